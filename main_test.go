package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/probes"
	"measuredbook/runner"
)

// TestMain lets the test binary serve as the probe child, as the real
// binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], probes.All(), os.Stdout, os.Stderr))
	}
	// The test binary as the program itself, for tests that signal it.
	if os.Getenv("MBOOK_TEST_MAIN") == "1" {
		os.Exit(cliMain(os.Args[1:]))
	}
	// Hermetic: the shell's MBOOK_* settings (MBOOK_HERE=1, as an author
	// may export) must not change what a test does; a test that needs one
	// sets it.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "MBOOK_") {
			os.Unsetenv(k)
		}
	}
	before, tracked := treeState()
	code := m.Run()
	if after, _ := treeState(); tracked && after != before {
		fmt.Fprintf(os.Stderr, "FAIL: the tests changed the working tree (git status --porcelain):\n%s\nwas:\n%s\n", after, before)
		code = 1
	}
	os.Exit(code)
}

// treeState is what git status says of the working tree; ok is false
// outside a git work tree (a module copied without .git), where the check
// is left out.
func treeState() (status string, ok bool) {
	out, err := exec.Command("git", "status", "--porcelain").Output()
	return string(out), err == nil
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
	// The site's files, those in its folders (data/) by their path.
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
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
	// A value the stale result was not measured with is a gap to check, as
	// it is to the build, not an error in the chapter.
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	wider := strings.Replace(string(src), "idle: [100, 1000]", "idle: [100, 1000, 10000]", 1) + "\n{{ readiness.round[api=poll, idle=10000] }}\n"
	os.WriteFile(chapter, []byte(wider), 0o644)
	code, stdout, stderr := cli(t, "", append([]string{"check"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "1 claims: 1 hold") {
		t.Errorf("check of a value the stale result lacks: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A claim the fixture contradicts must fail check with exit 1.
	os.WriteFile(chapter, []byte(strings.Replace(string(src), "api=epoll], idle) < 2", "api=poll], idle) < 2", 1)), 0o644)
	code, stdout, _ = cli(t, "", append([]string{"check"}, flags...)...)
	if code != 1 || !strings.Contains(stdout, "FAIL") {
		t.Errorf("failing claim: exit %d\n%s", code, stdout)
	}
}

func TestRenderStdin(t *testing.T) {
	code, stdout, stderr := cli(t, "# 제목\n\n*강조*와 `{{ 코드 }}`\n", "render", "-", "--chapters", "testdata/none")
	if code != 0 || stdout != "<h1 id=\"제목\">제목</h1>\n<p><em>강조</em>와 <code>{{ 코드 }}</code></p>\n" {
		t.Errorf("render -: exit %d, %q, %q", code, stdout, stderr)
	}
}

// The probe verb measures in child processes; an API this machine lacks is
// a result that says so, not a failure.
func TestProbeVerbMeasuresInChildren(t *testing.T) {
	code, stdout, stderr := cli(t, "", "probe", "readiness", "--param", "api=poll,epoll,kqueue", "--param", "idle=20", "--param", "rounds=200", "--runs", "2", "--json")
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
			Unavailable string `json:"unavailable"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if out.Probe != "readiness" || len(out.Rows) != 3 || out.Machine.Name == "" {
		t.Fatalf("json %+v", out)
	}
	foreign := "kqueue"
	if runtime.GOOS != "linux" {
		foreign = "epoll"
	}
	for _, row := range out.Rows {
		if row.Params["api"] == foreign {
			if want := foreign + " is not available on " + runtime.GOOS; row.Unavailable != want || len(row.Metrics) != 0 {
				t.Errorf("%v: unavailable %q, metrics %v; want %q and none", row.Params, row.Unavailable, row.Metrics, want)
			}
			continue
		}
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
		return &parse.PosError{Pos: parse.Pos{File: "c.md", Line: line, Col: 1}, Msg: msg}
	}
	var buf bytes.Buffer
	printWarnings(&buf, []error{at(3, "same thing"), at(9, "other"), at(5, "same thing"), at(7, "same thing")}, false, nil)
	want := "warning: c.md:3:1: same thing (and 2 more like it; -v lists them)\nwarning: c.md:9:1: other\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	// A warning that says its kind is grouped by it, whatever its message;
	// -v lists every one; the kind the caller skips is left out.
	buf.Reset()
	printWarnings(&buf, []error{kinded{at(1, "a"), "k"}, kinded{at(2, "b"), "k"}, kinded{at(3, "c"), "gap"}}, false, func(err error) bool { return book.WarningKind(err) == "gap" })
	if want := "warning: c.md:1:1: a (and 1 more like it; -v lists them)\n"; buf.String() != want {
		t.Errorf("by kind: got %q, want %q", buf.String(), want)
	}
	buf.Reset()
	printWarnings(&buf, []error{kinded{at(1, "a"), "k"}, kinded{at(2, "b"), "k"}, kinded{at(3, "c"), "gap"}}, true, func(err error) bool { return book.WarningKind(err) == "gap" })
	if strings.Count(buf.String(), "warning: ") != 3 {
		t.Errorf("-v: %q", buf.String())
	}
}

type kinded struct {
	error
	kind string
}

func (k kinded) Kind() string { return k.kind }

// flagsOf are the folder flags of a test book in dir.
func flagsOf(dir string) []string {
	return []string{"--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results")}
}

// The machine model, as a user on another machine meets it: the published
// book builds without measuring, one line says so and names --here; the
// flags that measure are refused there; --machine must exist; a
// transcribed set builds with gaps and fails --strict; --here measures this
// machine's set and builds from it, an edit re-measures only what changed;
// MBOOK_HERE makes --here the default; adopt makes this machine the book's.
func TestMachineModel(t *testing.T) {
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	t.Setenv(hereEnv, "")
	dir := site(t)
	build := func(extra ...string) (int, string, string) {
		t.Helper()
		args := append([]string{"build", "--out", filepath.Join(dir, "out")}, flagsOf(dir)...)
		return cli(t, "", append(args, extra...)...)
	}
	code, stdout, stderr := build()
	if code != 0 || !strings.Contains(stderr, "fixture's results (this machine is elsewhere; nothing is measured)") ||
		!strings.Contains(stderr, "go run . build --here") || !strings.Contains(stdout, "from set fixture (0 measured now)") {
		t.Errorf("plain build elsewhere: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fresh"}, "go run . build --here --fresh"},
		{[]string{"--only", "readiness"}, "go run . build --here --only readiness"},
		{[]string{"--machine", "fixtur"}, "did you mean fixture?"},
		{[]string{"--machine", "m1", "--here"}, "give one"},
		{[]string{"--machine", "m1", "--fresh"}, "nothing would be measured"},
		{[]string{"--machine", "../../etc"}, "may not start with '.'"},
		{[]string{"--here", "--only", "readines"}, "did you mean readiness?"},
	} {
		if code, _, stderr := build(tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("build %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// The fixture's m1 set has readiness for kqueue only: its poll and
	// epoll figures are gaps, shown as such; --strict fails on them.
	code, stdout, stderr = build("--machine", "m1")
	if code != 0 || !strings.Contains(stdout, "from set m1") || strings.Contains(stderr+stdout, "go run . run") {
		t.Errorf("build --machine m1: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := build("--machine", "m1", "--strict"); code != 1 || !strings.Contains(stderr, "--strict") {
		t.Errorf("build --machine m1 --strict: exit %d, %q", code, stderr)
	}

	// --here: this machine's set is empty, so everything is measured.
	code, stdout, stderr = build("--here")
	if code != 0 || !strings.Contains(stdout, "from set elsewhere (1 measured now)") || !strings.Contains(stderr, "measure readiness (1/1): [active=last/api=poll/idle=100/rounds=2000] run 1/8") {
		t.Fatalf("build --here: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "results", "elsewhere", "readiness.txt")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(hereEnv, "1")
	if code, stdout, _ := build(); code != 0 || !strings.Contains(stdout, "from set elsewhere (0 measured now)") {
		t.Errorf("%s=1 build: exit %d, %s", hereEnv, code, stdout)
	}
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	os.WriteFile(chapter, []byte(strings.Replace(string(src), "rounds: 2000", "rounds: 1000", 1)), 0o644)
	if code, stdout, stderr := build(); code != 0 || !strings.Contains(stdout, "(1 measured now)") || !strings.Contains(stderr, "rounds=1000") {
		t.Errorf("after an edit: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Setenv(hereEnv, "")
	code, stdout, _ = cli(t, "", append([]string{"adopt"}, flagsOf(dir)...)...)
	if code != 0 || !strings.Contains(stdout, "machine fixture → elsewhere") {
		t.Errorf("adopt: exit %d, %s", code, stdout)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "chapters", "book.yaml"))
	if !strings.Contains(string(cfg), "\nmachine: elsewhere\n") || !strings.Contains(string(cfg), "시험용") {
		t.Errorf("book.yaml after adopt:\n%s", cfg)
	}
	if code, stdout, stderr := build(); code != 0 || strings.Contains(stderr, "nothing is measured") || !strings.Contains(stdout, "from set elsewhere (0 measured now)") {
		t.Errorf("plain build after adopt: exit %d\n%s%s", code, stdout, stderr)
	}
}

// Usage errors are exit 2 in every verb: arguments a verb does not take,
// unknown ids and names, impossible numbers.
func TestUsageErrorsAreExit2(t *testing.T) {
	dir := site(t)
	f := flagsOf(dir)
	for _, args := range [][]string{
		append([]string{"build", "extra"}, f...),
		append([]string{"build", "--only", "nosuch"}, f...),
		append([]string{"check", "extra"}, f...),
		append([]string{"status", "extra"}, f...),
		append([]string{"status", "--machine", "nosuch"}, f...),
		append([]string{"check", "--machine", "a/b"}, f...),
		append([]string{"run", "nosuch"}, f...),
		append([]string{"run"}, f...),
		append([]string{"run", "readiness", "--runs", "-1"}, f...),
		append([]string{"run", "readiness", "--machine", "m1"}, f...),
		{"probes", "extra"},
		{"probe"},
		{"probe", "nosuch"},
		{"probe", "readiness", "--runs", "0"},
		{"render"},
		{"render", "a", "b"},
		append([]string{"adopt", "extra"}, f...),
	} {
		if code, _, stderr := cli(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	t.Setenv("MBOOK_MACHINE", "../../etc")
	if code, _, stderr := cli(t, "", append([]string{"status"}, f...)...); code != 2 || !strings.Contains(stderr, "MBOOK_MACHINE") {
		t.Errorf("a path as MBOOK_MACHINE: exit %d, %q", code, stderr)
	}
}

// A set name in ref("SET", …) is a path too: one that leaves results/ is
// an error, never a file read.
func TestRefSetNameIsValidated(t *testing.T) {
	dir := site(t)
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	os.WriteFile(chapter, []byte(strings.Replace(string(src), `ref("m1", readiness`, `ref("../../x", readiness`, 1)), 0o644)
	code, _, stderr := cli(t, "", append([]string{"build", "--out", filepath.Join(dir, "out")}, flagsOf(dir)...)...)
	if code != 1 || !strings.Contains(stderr, `"../../x"`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// The exit code of an interrupted run is the shell's: 128 + the signal.
func TestInterruptExitCodes(t *testing.T) {
	var buf bytes.Buffer
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		err := &book.Interrupted{Cause: signalError{sig}, Kept: []string{"a"}, Out: "out"}
		if code := exitCode(err, &buf); code != want {
			t.Errorf("%v: exit %d, want %d", sig, code, want)
		}
	}
	if !strings.Contains(buf.String(), "interrupted (signal: interrupt): out was left as it was; kept the 1 experiment(s) measured: a") {
		t.Errorf("message %q", buf.String())
	}
}

// status reports a corrupt results file as build does, with its file and
// line, and exits 1; check exits 1 when a claim lacks its data and names
// the command that measures it where check runs.
func TestStatusAndCheckOnBadOrMissingResults(t *testing.T) {
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	dir := site(t)
	file := filepath.Join(dir, "results", "fixture", "readiness.txt")
	good, _ := os.ReadFile(file)
	os.WriteFile(file, append(good, []byte("BenchmarkReadiness/api=poll/idle=100/rounds=2000/active=last 1 garbage ns/round\n")...), 0o644)
	code, stdout, stderr := cli(t, "", append([]string{"status"}, flagsOf(dir)...)...)
	if bcode, _, berr := cli(t, "", append([]string{"build", "--out", filepath.Join(dir, "out")}, flagsOf(dir)...)...); bcode != 1 || !strings.Contains(berr, strings.TrimSpace(stderr)) {
		t.Errorf("build and status disagree on a corrupt file: build exit %d %q, status %q", bcode, berr, stderr)
	}
	if code != 1 || !strings.Contains(stdout, "unreadable") || !strings.Contains(stderr, file+":") {
		t.Errorf("status on a corrupt file: exit %d\n%s%s", code, stdout, stderr)
	}
	os.Remove(file)
	code, stdout, _ = cli(t, "", append([]string{"check"}, flagsOf(dir)...)...)
	if code != 1 || !strings.Contains(stdout, "cannot be decided: no result of readiness in set fixture") || !strings.Contains(stdout, "go run . build --here && go run . check --here") {
		t.Errorf("check without data: exit %d\n%s", code, stdout)
	}
}

// A failing claim is named in the build's output with its place and the
// measured values; the build still exits 0 unless --strict.
func TestFailingClaimIsNamed(t *testing.T) {
	dir := site(t)
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	os.WriteFile(chapter, []byte(strings.Replace(string(src), "api=epoll], idle) < 2", "api=poll], idle) < 2", 1)), 0o644)
	args := append([]string{"build", "--out", filepath.Join(dir, "out")}, flagsOf(dir)...)
	code, _, stderr := cli(t, "", args...)
	if code != 0 || !strings.Contains(stderr, "01-sample.md:41:1: claim does not hold: epoll의 비용은") || !strings.Contains(stderr, "growth(readiness.round[api=poll], idle) = ") {
		t.Errorf("build: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cli(t, "", append(args, "--strict")...); code != 1 || !strings.Contains(stderr, "01-sample.md:41:1: claim does not hold") {
		t.Errorf("build --strict: exit %d, %q", code, stderr)
	}
}

var update = flag.Bool("update", false, "rewrite out/ from chapters/ and results/ (TestTheBook)")

// TestTheBook builds the real chapters/ from the committed results/ with
// --strict and a runner that fails if it is ever called, and compares the
// site with the committed out/ byte for byte: a broken chapter, a claim
// that no longer holds, a result that would need measuring or a change in
// rendering all fail here. go test -run TestTheBook -update rewrites out/.
func TestTheBook(t *testing.T) {
	opts := book.Options{Chapters: "chapters", Results: resultsCopy(t, "results"), Out: filepath.Join(t.TempDir(), "out"), Strict: true,
		Probes: probes.All(), Runner: &runner.Runner{Exe: filepath.Join(t.TempDir(), "no-probe-may-run")},
		This: dataset.Fingerprint{Name: "not-the-books-machine"}, Log: io.Discard}
	if *update {
		opts.Out = "out"
	}
	rep, err := book.Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("the book does not build with --strict: %v", err)
	}
	if len(rep.Measured) > 0 || rep.Measures {
		t.Fatalf("the book's build measured %v", rep.Measured)
	}
	if *update {
		return
	}
	want, got := snapshot(t, "out"), snapshot(t, opts.Out)
	for name, b := range want {
		if !bytes.Equal(b, got[name]) {
			t.Errorf("out/%s differs from what chapters/ and results/ build (go test -run TestTheBook -update rewrites it)", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("the build writes %s, which out/ lacks (go test -run TestTheBook -update)", name)
		}
	}
}

// TestTheBookFromEverySet: the book builds from every set it holds, a
// transcribed one with gaps, and measures nothing.
func TestTheBookFromEverySet(t *testing.T) {
	sets, err := os.ReadDir("results")
	if err != nil {
		t.Fatal(err)
	}
	results := resultsCopy(t, "results")
	for _, set := range sets {
		if !set.IsDir() {
			continue
		}
		opts := book.Options{Chapters: "chapters", Results: results, Out: filepath.Join(t.TempDir(), "out"), Machine: set.Name(),
			Probes: probes.All(), Runner: &runner.Runner{Exe: filepath.Join(t.TempDir(), "no-probe-may-run")},
			This: dataset.Fingerprint{Name: "not-the-books-machine"}, Log: io.Discard}
		rep, err := book.Build(context.Background(), opts)
		if err != nil {
			t.Errorf("the book does not build from set %s: %v", set.Name(), err)
			continue
		}
		if len(rep.Measured) > 0 {
			t.Errorf("the build from set %s measured %v", set.Name(), rep.Measured)
		}
	}
}

// TestAuthoringGuide builds every example of docs/authoring.md as a
// chapter of the real book, against the real results: an example that
// stops working fails here.
func TestAuthoringGuide(t *testing.T) {
	guide, err := os.ReadFile("docs/authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := strings.Split(string(guide), "````markdown\n")[1:]
	if len(examples) < 7 {
		t.Fatalf("found %d examples in docs/authoring.md", len(examples))
	}
	dir := t.TempDir()
	if err := exec.Command("cp", "-r", "chapters", dir).Run(); err != nil {
		t.Fatal(err)
	}
	for i, ex := range examples {
		body, _, ok := strings.Cut(ex, "\n````\n")
		if !ok {
			t.Fatalf("example %d is not closed by ````", i+1)
		}
		if !strings.HasPrefix(body, "---\n") {
			body = fmt.Sprintf("---\ntitle: 예 %d\norder: %d\nslug: example-%d\n---\n\n%s", i+1, 100+i, i+1, body)
		} else {
			// The front matter example names a real chapter's slug.
			body = strings.Replace(body, "slug: select-to-epoll", fmt.Sprintf("slug: example-%d", i+1), 1)
		}
		os.WriteFile(filepath.Join(dir, "chapters", fmt.Sprintf("zz-example-%02d.md", i+1)), []byte(body+"\n"), 0o644)
	}
	b, err := book.Load(filepath.Join(dir, "chapters"), probes.All())
	if err != nil {
		t.Fatalf("the guide's examples do not parse:\n%v", err)
	}
	pages, _, claims, err := b.Render(book.NewResults("results", b.Config.Machine, probes.All()))
	if err != nil {
		t.Fatalf("the guide's examples do not evaluate:\n%v", err)
	}
	// The examples that use the book's experiments show real figures.
	inline := string(pages[fmt.Sprintf("example-%d.html", len(examples))])
	if strings.Contains(inline, "mb-missing") || !strings.Contains(inline, "mb-value") {
		t.Errorf("the inline example shows no figures:\n%s", inline)
	}
	found := false
	for _, c := range claims {
		if strings.Contains(c.Pos.File, "zz-example") && c.Explain != "" {
			found = true
		}
	}
	if !found {
		t.Error("the claim example was not evaluated")
	}
}

// A real SIGINT or SIGTERM to a build that is measuring: the probe under
// way stops, nothing is stored for it, out/ stays as it was, the exit code
// is 130 or 143, and the same command then carries on.
func TestSignalStopsABuild(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := site(t)
			out := filepath.Join(dir, "out")
			if code, _, stderr := cli(t, "", append([]string{"build", "--out", out}, flagsOf(dir)...)...); code != 0 {
				t.Fatal(stderr)
			}
			before := snapshot(t, out)
			chapter := filepath.Join(dir, "chapters", "01-sample.md")
			src, _ := os.ReadFile(chapter)
			// Many runs, so the build is surely still measuring when the signal comes.
			os.WriteFile(chapter, []byte(strings.Replace(string(src), "runs: 2", "runs: 200", 1)), 0o644)
			cmd := exec.Command(os.Args[0], append([]string{"build", "--here", "--out", out}, flagsOf(dir)...)...)
			cmd.Env = append(os.Environ(), "MBOOK_TEST_MAIN=1", "MBOOK_MACHINE=elsewhere")
			stderr := &lockedBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(stderr.String(), "run 3/800") {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the build never got to run 3: %s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			start := time.Now()
			cmd.Wait()
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("the build took %v to stop", took)
			}
			if code, want := cmd.ProcessState.ExitCode(), 128+int(sig); code != want {
				t.Errorf("exit %d, want %d; %s", code, want, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "not measured: readiness") {
				t.Errorf("stderr %q", stderr.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "results", "elsewhere", "readiness.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the interrupted experiment was stored (%v)", err)
			}
			after := snapshot(t, out)
			if len(after) != len(before) {
				t.Errorf("out/ changed")
			}
			for name, b := range before {
				if !bytes.Equal(b, after[name]) {
					t.Errorf("out/%s changed", name)
				}
			}
			// Carrying on: back to a short experiment, measured and built.
			os.WriteFile(chapter, src, 0o644)
			t.Setenv("MBOOK_MACHINE", "elsewhere")
			if code, stdout, stderr := cli(t, "", append([]string{"build", "--here", "--out", out}, flagsOf(dir)...)...); code != 0 || !strings.Contains(stdout, "(1 measured now)") {
				t.Errorf("the next build: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// What the machine cannot measure at all (the book's kqueue figures and
// claims on Linux) is counted in the summary line, not printed as a
// warning no command run here can change; -v lists it.
func TestBuildCountsWhatTheMachineCannotMeasure(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the book's unavailable figures are kqueue's, on Linux")
	}
	// Not the book's machine, which would measure what is stale.
	t.Setenv("MBOOK_MACHINE", "not-the-books-machine")
	t.Setenv(hereEnv, "")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := cli(t, "", "build", "--out", out)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "not applicable") || strings.Contains(stderr, "kqueue") {
		t.Errorf("build printed\n%s%s\nwant the n/a claims counted in the summary only", stdout, stderr)
	}
	code, _, stderr = cli(t, "", "build", "--out", out, "-v")
	if code != 0 || !strings.Contains(stderr, "kqueue is not available on linux") {
		t.Errorf("build -v: exit %d, stderr\n%s\nwant the n/a claims listed", code, stderr)
	}
}

// probe --param sweeps as a chapter's params: does, with its checks: a
// param given twice, a value repeated, a sweep past the bound are usage
// errors, before anything runs.
func TestProbeSweepIsCheckedAsAChapter(t *testing.T) {
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprint(i + 1)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--param", "api=poll", "--param", "api=epoll"}, `duplicate param "api"`},
		{[]string{"--param", "idle=10,1_0"}, "param idle: value 10 repeats in the sweep"},
		{[]string{"--param", "idle=" + strings.Join(many, ","), "--param", "rounds=" + strings.Join(many, ",")}, "probe readiness: its params sweep more than 10000 combinations"},
		{[]string{"--runs", "1001"}, "--runs 1001: want at most 1000"},
	} {
		code, stdout, stderr := cli(t, "", append([]string{"probe", "readiness"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, %q%q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestReadmeExample renders the README's example against the book's
// results: it must build, and the sentence the README quotes must be what
// it renders to (a new measurement of the book changes it: copy the new
// sentence into README.md).
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, _ := strings.Cut(string(readme), "````markdown\n")
	example, _, ok := strings.Cut(example, "\n````\n")
	quoted := ""
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "> With ") {
			quoted = strings.TrimPrefix(line, "> ")
		}
	}
	if !ok || quoted == "" {
		t.Fatal("README.md has no ````markdown example and quoted sentence")
	}
	t.Setenv("MBOOK_MACHINE", "not-the-books-machine")
	t.Setenv(hereEnv, "")
	code, stdout, stderr := cli(t, example+"\n", "render", "-")
	if code != 0 {
		t.Fatalf("the README's example: exit %d: %s", code, stderr)
	}
	text := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(stdout, " ")), " ")
	if !strings.Contains(text, quoted) {
		t.Errorf("the README quotes %q; the example renders\n%s", quoted, text)
	}
}

// zeros is an endless input, as /dev/zero on stdin.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// render reads as the build reads: a FIFO or a device is refused without
// waiting for it, endless stdin stops at the cap, and an interrupt ends a
// wait on stdin.
func TestRenderReadsABoundedRegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ch.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{fifo, "/dev/zero"} {
		code, _, stderr := cli(t, "", "render", name, "--chapters", "testdata/none")
		if code != 1 || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("render %s: exit %d, %q", name, code, stderr)
		}
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"render", "-", "--chapters", "testdata/none"}, zeros{}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "<stdin>: more than 16 MiB") {
		t.Errorf("render - < /dev/zero: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalError{syscall.SIGINT})
	err = run(ctx, []string{"render", "-", "--chapters", "testdata/none"}, r, &out, &errb)
	if code := exitCode(err, &errb); code != 130 {
		t.Errorf("render - interrupted while stdin is silent: exit %d (%v)", code, err)
	}
}

// render --safe refuses raw HTML as build --safe does.
func TestRenderSafe(t *testing.T) {
	src := "# 제목\n\n<script>alert(1)</script>\n"
	if code, _, stderr := cli(t, src, "render", "-", "--chapters", "testdata/none"); code != 0 {
		t.Errorf("render without --safe: exit %d: %s", code, stderr)
	}
	code, _, stderr := cli(t, src, "render", "-", "--safe", "--chapters", "testdata/none")
	if code != 1 || !strings.Contains(stderr, "<stdin>:3:1: raw HTML is refused") {
		t.Errorf("render --safe: exit %d: %q", code, stderr)
	}
}

// status says how long each measurement took beside its runs, so that a
// budget the fewest runs outlast shows.
func TestStatusSaysHowLongAMeasurementTook(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "", 72 * time.Millisecond: " in 72ms", 49400 * time.Millisecond: " in 49s", 2*time.Minute + 3*time.Second: " in 2m3s"} {
		if got := took(d); got != want {
			t.Errorf("took(%v) = %q, want %q", d, got, want)
		}
	}
}

// resultsCopy is a copy of the results folder dir in a temporary folder:
// a build takes its lock file there (and would remove a killed build's
// leftovers there), and a test writes nothing under the working tree.
func resultsCopy(t *testing.T, dir string) string {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return tmp
}
