package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// multiBook copies the two-machine fixture book (testdata/multi: the
// book's set and m1, result files copied from results/) into a temp dir,
// and builds on a machine that is neither, so nothing is measured.
func multiBook(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("cp", "-r", "testdata/multi/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	return dir
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	s := read(t, path)
	if !strings.Contains(s, old) {
		t.Fatalf("%s lacks %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(s, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A book with two machines: tables and plots show both side by side,
// each column and line labelled with its machine; a value that mixes them
// names both in its hover; a claim stated per machine gets a verdict on
// each, on the page and the claims page; the environment page lists both.
func TestBookWithTwoMachines(t *testing.T) {
	dir := multiBook(t)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cli(t, "", append([]string{"build", "--out", out}, flagsOf(dir)...)...)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s\n%s", code, stdout, stderr)
	}
	page := read(t, filepath.Join(out, "machines.html"))
	const own = "linux-amd64-intel-r-xeon-r-processor-2c"
	for _, want := range []string{
		// machines: book — a column per machine, the build's first.
		`<tr><th>idle</th><th class="mb-num">` + own + `</th><th class="mb-num">m1</th></tr>`,
		// machines: [m1] with cols: each machine's own values.
		">poll · " + own + "<", ">epoll · " + own + "<", ">poll · m1<", ">kqueue · m1<",
		// Every cell's hover names its machine.
		"3회 실행 · " + own + `"`, `title="원서에서 옮겨 적은 값 · m1"`,
		// The plot's lines, labelled (m1 by its label M1, the other
		// machine by its CPU, short).
		">poll · Intel Xeon</text>", ">kqueue · M1</text>", ">poll · M1</text>",
		"<figcaption class=\"mb-provenance\">✅ " + own + " · 2026-12-01 · 3회 실행; 📄 m1 (옮겨 적음)</figcaption>",
		// This machine cannot measure kqueue: said beside its part.
		"3회 실행 · 이 기계에서는 잴 수 없음: linux에 없는 kqueue; 점선: 📄 m1 (옮겨 적음)</span>",
		// The claim on each machine, and the one decided on m1 alone.
		`<span class="mb-machine">` + own + `</span> <span class="mb-verdict">✓ 성립</span>`,
		`<span class="mb-machine">m1</span> <span class="mb-verdict">✓ 성립</span>`,
		`<span class="mb-verdict">✓ 성립</span> <span class="mb-machine">m1</span> <span class="mb-claim-text">M1의 kqueue`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("machines.html lacks %s", want)
		}
	}
	// The value that divides this machine's read by M1's says so.
	mixed := regexp.MustCompile(`<span class="mb-value[^"]*"[^>]*data-mixed="2"[^>]*>[0-9.]+</span>`).FindString(page)
	if mixed == "" {
		t.Fatal("the value mixing two machines has no data-mixed")
	}
	for _, want := range []string{`data-machine="` + own + ` (Intel(R) Xeon(R) Processor) + m1 (Apple M1)"`, `title="기계 2대의 수치를 섞은 값`} {
		if !strings.Contains(mixed, want) {
			t.Errorf("the mixed value %s lacks %s", mixed, want)
		}
	}
	claims := read(t, filepath.Join(out, "claims.html"))
	for _, want := range []string{
		`<li class="mb-holds"><span class="mb-machine">` + own + `</span> <span class="mb-verdict">✓ 성립</span> <code class="explain">growth(readiness.round[api=poll], idle) = `,
		`<li class="mb-holds"><span class="mb-machine">m1</span> <span class="mb-verdict">✓ 성립</span> <code class="explain">growth(readiness.round[api=poll], idle) = 233× &gt; 10</code>`,
		`<span class="mb-machine">m1</span> M1의 kqueue`,
	} {
		if !strings.Contains(claims, want) {
			t.Errorf("claims.html lacks %s", want)
		}
	}
	env := read(t, filepath.Join(out, "environment.html"))
	for _, want := range []string{`id="set-` + own + `"`, `id="set-m1"`, "<td>Apple M1</td>", "<td>Intel(R) Xeon(R) Processor</td>"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment.html lacks %s", want)
		}
	}
	// check reports the claim on each machine; this set's verdict decides.
	code, stdout, _ = cli(t, "", append([]string{"check"}, flagsOf(dir)...)...)
	if code != 0 || !strings.Contains(stdout, "     on m1: ok growth(readiness.round[api=poll], idle) = 233× > 10") {
		t.Errorf("check: exit %d\n%s", code, stdout)
	}
}

// A machine the book shows whose set is not in results/ is a labelled gap
// in every view and on the environment page, never a crash; a set name
// that is neither present nor the book's is an error at its place.
func TestBookWithAMissingMachine(t *testing.T) {
	dir := multiBook(t)
	edit(t, filepath.Join(dir, "chapters", "book.yaml"), "machines: [m1]", "machines: [m1, darwin-arm64-apple-m2-8c]")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cli(t, "", append([]string{"build", "-v", "--out", out}, flagsOf(dir)...)...)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "3 place(s) shown as gaps") || !strings.Contains(stderr, `01-machines.md:35:11: no result of experiment readiness in set "darwin-arm64-apple-m2-8c"`) {
		t.Errorf("the missing set is not counted and warned about:\n%s\n%s", stdout, stderr)
	}
	page := read(t, filepath.Join(out, "machines.html"))
	for _, want := range []string{
		`<th class="mb-num">darwin-arm64-apple-m2-8c</th>`,
		`<td class="mb-missing" title="세트 darwin-arm64-apple-m2-8c에 readiness 결과가 없습니다 · darwin-arm64-apple-m2-8c">—</td>`,
		"; darwin-arm64-apple-m2-8c: 결과 없음</span>",
		`<span class="mb-machine">darwin-arm64-apple-m2-8c</span> <span class="mb-verdict">? 판정 보류</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("machines.html lacks %s", want)
		}
	}
	env := read(t, filepath.Join(out, "environment.html"))
	if !strings.Contains(env, `darwin-arm64-apple-m2-8c <small>(결과 없음)</small>`) {
		t.Errorf("environment.html does not list the missing machine")
	}

	before := snapshot(t, out)
	chapter := filepath.Join(dir, "chapters", "01-machines.md")
	edit(t, chapter, `M1에서 {{ on("m1", ready_read.read[]) }}`, `M1에서 {{ on("m2", ready_read.read[]) }}`)
	edit(t, chapter, "machines: [m1]", "machines: [m1, darwin-arm64-apple-m2]")
	code, _, stderr = cli(t, "", append([]string{"build", "--out", out}, flagsOf(dir)...)...)
	for _, want := range []string{
		`01-machines.md:27:71: unknown result set "m2" (did you mean m1?)`,
		`01-machines.md:44:16: machines: unknown result set "darwin-arm64-apple-m2" (did you mean darwin-arm64-apple-m2-8c?)`,
	} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("build: exit %d, stderr lacks %s:\n%s", code, want, stderr)
		}
	}
	after := snapshot(t, out)
	for name, b := range before {
		if string(after[name]) != string(b) {
			t.Errorf("a failed build changed out/%s", name)
		}
	}
}
