package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMistakesFailBeforeMeasuring: a chapter's mistakes about an
// experiment that was never measured fail build, check and run at their
// places, with the words the measured result would give, and no probe
// runs.
func TestMistakesFailBeforeMeasuring(t *testing.T) {
	t.Setenv("MBOOK_MACHINE", "fixture") // the book's machine: a plain build would measure
	t.Setenv("MBOOK_HERE", "")
	dir := site(t)
	missing := filepath.Join(dir, "results", "fixture", "readiness.txt")
	os.Remove(missing)
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	mistakes := "\nA {{ readiness.roundd[api=poll, idle=100] }}.\n" +
		"B {{ readiness.round[apii=poll, idle=100] }}.\n" +
		"C {{ readiness.round[api=select, idle=100] }}.\n" +
		"D {{ readiness.round[api=poll] }}.\n" +
		"E {{ readiness.round[api=poll, idle=100] | bytes }}.\n" +
		"\n```claim\nexpect: readiness.round[api=poll, idle=100] > 5\ntext: x\n```\n"
	os.WriteFile(chapter, append(src, mistakes...), 0o644)
	line := strings.Count(string(src), "\n") + 2 // the line of A
	want := []string{
		`01-sample.md:%d:6: experiment readiness (probe readiness) has no metric "roundd" (did you mean round?)`,
		`01-sample.md:%d:22: readiness has no param "apii" (did you mean api?)`,
		`01-sample.md:%d:26: no result has api=select; api is one of poll, epoll`,
		`01-sample.md:%d:6: selector matches 2 combinations; add one of idle=100|1000`,
		`01-sample.md:%d:44: format bytes shows a size in bytes, but the value is a duration (use dur, ns, us or ms)`,
		`01-sample.md:%d:45: unit mismatch: duration > number; write the number with a unit: 5ns, 5us, 5ms or 5s`,
	}
	at := []int{0, 1, 2, 3, 4, 7}
	flags := []string{"--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results")}
	for _, args := range [][]string{
		append([]string{"build", "--out", filepath.Join(dir, "out")}, flags...),
		append([]string{"check"}, flags...),
		append([]string{"run", "readiness"}, flags...),
	} {
		code, _, stderr := cli(t, "", args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", args[0], code)
		}
		for i, w := range want {
			if w = fmt.Sprintf(w, line+at[i]); !strings.Contains(stderr, w) {
				t.Errorf("%s: no %q in\n%s", args[0], w, stderr)
			}
		}
		if _, err := os.Stat(missing); err == nil || strings.Contains(stderr, "measure readiness") {
			t.Fatalf("%s measured readiness before reporting the chapter's mistakes", args[0])
		}
	}
}

// TestShellEnvironmentIsIgnored runs tests of the CLI again in a child
// test binary with the MBOOK_* settings an author may export (the
// fixture book's own machine, --here by default), under which a test that
// read them would measure, build from another set and fail; TestMain
// also fails the child if the tests changed the working tree.
func TestShellEnvironmentIsIgnored(t *testing.T) {
	if os.Getenv("MBOOK_HERE") != "" || os.Getenv("MBOOK_MACHINE") != "" {
		t.Fatal("TestMain left the shell's MBOOK_* settings in place")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^(TestBuildIsReproducibleAndNeverMeasuresAnotherMachine|TestStatusAndCheck|TestFailingClaimIsNamed)$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "MBOOK_HERE=1", "MBOOK_MACHINE=fixture")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("the tests under MBOOK_HERE=1 MBOOK_MACHINE=fixture: %v\n%s", err, out)
	}
}

// TestOtherSetsBuildBesideTheBook: a build from a set other than the
// book's writes out-SET/, which git ignores, and says so; out/ is the
// published book's, and --out is obeyed.
func TestOtherSetsBuildBesideTheBook(t *testing.T) {
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	wd, _ := os.Getwd()
	dir := site(t)
	t.Chdir(dir)
	code, stdout, stderr := cli(t, "", append([]string{"build", "--machine", "m1"}, flagsOf(dir)...)...)
	if code != 0 || !strings.Contains(stdout, "built out-m1 (not the published book's out/; git ignores it) from set m1") {
		t.Errorf("build --machine m1: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat("out-m1/index.html"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat("out"); err == nil {
		t.Error("a build from m1 wrote out/")
	}
	if code, stdout, _ := cli(t, "", append([]string{"build"}, flagsOf(dir)...)...); code != 0 || !strings.HasPrefix(stdout, "built out from set fixture") {
		t.Errorf("build: exit %d, %s", code, stdout)
	}
	if code, stdout, _ := cli(t, "", append([]string{"build", "--machine", "m1", "--out", "site"}, flagsOf(dir)...)...); code != 0 || !strings.HasPrefix(stdout, "built site from set m1") {
		t.Errorf("build --out site: exit %d, %s", code, stdout)
	}
	ignore, _ := os.ReadFile(filepath.Join(wd, ".gitignore"))
	if !strings.Contains(string(ignore), "/out-*/") {
		t.Error(".gitignore does not ignore out-SET/")
	}
}

// TestLinksAndImages: an image a chapter shows is copied into the site
// under its path; a missing image, a link to a missing heading and one to
// a missing chapter are warnings at their places, and fail --strict.
func TestLinksAndImages(t *testing.T) {
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	dir := site(t)
	os.MkdirAll(filepath.Join(dir, "chapters", "img"), 0o755)
	os.WriteFile(filepath.Join(dir, "chapters", "img", "ok.png"), []byte("png"), 0o644)
	chapter := filepath.Join(dir, "chapters", "01-sample.md")
	src, _ := os.ReadFile(chapter)
	line := strings.Count(string(src), "\n") + 2
	os.WriteFile(chapter, append(src, "\n![ok](img/ok.png) ![no](img/no.png)\n[a](#nowhere) [b](nosuch.html#x) [c](sample.html#experiment-readiness) [d](https://example.com/)\n"...), 0o644)
	out := filepath.Join(dir, "out")
	want := []string{
		fmt.Sprintf(`01-sample.md:%d:25: image "img/no.png": no file`, line),
		fmt.Sprintf(`01-sample.md:%d:5: link "#nowhere": page sample.html has no heading or experiment with id "nowhere"`, line+1),
		fmt.Sprintf(`01-sample.md:%d:19: link "nosuch.html#x": no page of the book`, line+1),
	}
	code, _, stderr := cli(t, "", append([]string{"build", "--strict", "--out", out}, flagsOf(dir)...)...)
	if code != 1 || strings.Count(stderr, "01-sample.md:") < 3 {
		t.Errorf("build --strict: exit %d\n%s", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, "--strict") || !strings.Contains(stderr, w) {
			t.Errorf("build --strict: no %q in\n%s", w, stderr)
		}
	}
	code, _, stderr = cli(t, "", append([]string{"build", "-v", "--out", out}, flagsOf(dir)...)...)
	if code != 0 || !strings.Contains(stderr, "external links (listed, not fetched): https://example.com/") || strings.Contains(stderr, "experiment-readiness") {
		t.Errorf("build -v: exit %d\n%s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "img", "ok.png")); err != nil || string(b) != "png" {
		t.Errorf("the image is not in the site: %v", err)
	}
}
