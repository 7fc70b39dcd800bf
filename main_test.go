package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"measuredbook/probes"
	"measuredbook/probes/threads"
	"measuredbook/render"
	"measuredbook/runner"
)

// TestMain lets the test binary serve as the probe child, as the real
// binary does.
func TestMain(m *testing.M) {
	if threads.CeilingChildMain() {
		return
	}
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], probes.All(), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cli runs the command line in-process and returns its exit code and output.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String()
}

// site copies the fixture book (chapters + results) into a temp dir.
func site(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("cp", "-r", "testdata/site/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestUsage(t *testing.T) {
	if code, _, _ := cli(t, ""); code != 2 {
		t.Errorf("no verb: exit %d, want 2", code)
	}
	code, _, stderr := cli(t, "", "biuld")
	if code != 2 || !strings.Contains(stderr, "did you mean build?") {
		t.Errorf("misspelt verb: exit %d, %q", code, stderr)
	}
	for _, v := range verbs {
		code, stdout, _ := cli(t, "", v.name, "--help")
		if code != 0 || !strings.Contains(stdout, "example:") || !strings.Contains(stdout, "go run . "+v.name) {
			t.Errorf("%s --help: exit %d, output %q", v.name, code, stdout)
		}
	}
	if code, _, stderr := cli(t, "", "build", "--nope"); code != 2 || !strings.Contains(stderr, "unknown flag") {
		t.Errorf("unknown flag: exit %d, %q", code, stderr)
	}
}

func TestBuildIsReproducibleAndNeverMeasuresAnotherMachine(t *testing.T) {
	dir := site(t)
	args := []string{"build", "--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results"), "--out", filepath.Join(dir, "out")}
	code, stdout, stderr := cli(t, "", args...)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "from set fixture (0 measured now)") {
		t.Errorf("build output %q", stdout)
	}
	page, err := os.ReadFile(filepath.Join(dir, "out", "sample.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`lang="ko"`, "준비 확인의 비용", "<svg", "mb-claim", "mb-provenance", "fixture"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("sample.html lacks %q", want)
		}
	}
	first := snapshot(t, filepath.Join(dir, "out"))
	if code, _, stderr := cli(t, "", args...); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	second := snapshot(t, filepath.Join(dir, "out"))
	if len(first) != len(second) {
		t.Fatalf("second build wrote %d files, first %d", len(second), len(first))
	}
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs between two builds from the same results", name)
		}
	}
}

func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

func TestFailedBuildLeavesOutAndResultsIntact(t *testing.T) {
	dir := site(t)
	args := []string{"build", "--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results"), "--out", filepath.Join(dir, "out")}
	if code, _, stderr := cli(t, "", args...); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	before := snapshot(t, filepath.Join(dir, "out"))
	results := snapshot(t, filepath.Join(dir, "results", "fixture"))
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	broken := strings.Replace(string(src), "caption:", "captoin:", 1)
	os.WriteFile(chapter, []byte(broken), 0o644)
	code, _, stderr := cli(t, "", args...)
	if code != 1 {
		t.Fatalf("broken chapter: exit %d, want 1", code)
	}
	if !strings.Contains(stderr, "01-sample.md:17:1:") || !strings.Contains(stderr, "caption") {
		t.Errorf("error does not point at the field: %q", stderr)
	}
	after := snapshot(t, filepath.Join(dir, "out"))
	for name, b := range before {
		if !bytes.Equal(b, after[name]) {
			t.Errorf("failed build changed out/%s", name)
		}
	}
	for name, b := range snapshot(t, filepath.Join(dir, "results", "fixture")) {
		if !bytes.Equal(b, results[name]) {
			t.Errorf("failed build changed results/fixture/%s", name)
		}
	}
}

func TestStrictNamesWhatWouldBeMeasured(t *testing.T) {
	t.Setenv("MBOOK_MACHINE", "fixture") // the book's machine: a plain build measures
	dir := site(t)
	os.Remove(filepath.Join(dir, "results", "fixture", "readiness.txt"))
	code, _, stderr := cli(t, "", "build", "--strict", "--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results"), "--out", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(stderr, "go run . run readiness") {
		t.Errorf("strict build without results: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("strict build that failed wrote out/")
	}
}

func TestStatusAndCheck(t *testing.T) {
	dir := site(t)
	flags := []string{"--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results")}
	code, stdout, _ := cli(t, "", append([]string{"status"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "readiness") || !strings.Contains(stdout, "stale") || !strings.Contains(stdout, "probe code changed") {
		t.Errorf("status: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = cli(t, "", append([]string{"check"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "1 claims: 1 hold") {
		t.Errorf("check: exit %d\n%s", code, stdout)
	}
	// A claim the fixture contradicts must fail check with exit 1.
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	os.WriteFile(chapter, []byte(strings.Replace(string(src), "api=epoll], idle) < 2", "api=poll], idle) < 2", 1)), 0o644)
	code, stdout, _ = cli(t, "", append([]string{"check"}, flags...)...)
	if code != 1 || !strings.Contains(stdout, "FAIL") {
		t.Errorf("failing claim: exit %d\n%s", code, stdout)
	}
}

func TestRenderStdin(t *testing.T) {
	code, stdout, stderr := cli(t, "# 제목\n\n*강조*와 `{{ 코드 }}`\n", "render", "-", "--chapters", "testdata/none")
	if code != 0 || stdout != "<h1>제목</h1>\n<p><em>강조</em>와 <code>{{ 코드 }}</code></p>\n" {
		t.Errorf("render -: exit %d, %q, %q", code, stdout, stderr)
	}
}

func TestProbeVerbMeasuresInChildren(t *testing.T) {
	code, stdout, stderr := cli(t, "", "probe", "readiness", "--param", "api=poll,epoll", "--param", "idle=20", "--param", "rounds=200", "--runs", "2", "--json")
	if code != 0 {
		t.Fatalf("probe: exit %d: %s", code, stderr)
	}
	var out struct {
		Probe   string `json:"probe"`
		Machine struct{ Name string }
		Rows    []struct {
			Params  map[string]string `json:"params"`
			Metrics map[string]struct {
				Unit             string
				Median, Min, Max float64
				Runs             int
			} `json:"metrics"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if out.Probe != "readiness" || len(out.Rows) != 2 || out.Machine.Name == "" {
		t.Fatalf("json %+v", out)
	}
	for _, row := range out.Rows {
		m := row.Metrics["round"]
		if m.Unit != "seconds" || m.Runs != 2 || !(m.Min > 0 && m.Min <= m.Median && m.Median <= m.Max && m.Max < 0.01) {
			t.Errorf("%v: round %+v", row.Params, m)
		}
	}
	code, _, stderr = cli(t, "", "probe", "readiness", "--param", "idel=3")
	if code != 2 || !strings.Contains(stderr, "did you mean idle?") {
		t.Errorf("misspelt param: exit %d, %q", code, stderr)
	}
}

func TestWarningsAreGroupedByMessage(t *testing.T) {
	at := func(line int, msg string) error {
		return &render.PosError{Pos: render.Pos{File: "c.md", Line: line, Col: 1}, Msg: msg}
	}
	var buf bytes.Buffer
	printWarnings(&buf, []error{at(3, "same thing"), at(9, "other"), at(5, "same thing"), at(7, "same thing")}, false, "")
	want := "warning: c.md:3:1: same thing (and 2 more like it; -v lists them)\nwarning: c.md:9:1: other\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
