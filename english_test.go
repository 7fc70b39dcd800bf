package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// An English book (testdata/english: one chapter with a value, a table, a
// plot and a claim; its result file copied from results/) has an English
// interface: no Hangul anywhere in its out/, site script included, and
// its pages say lang="en".
func TestEnglishBook(t *testing.T) {
	dir := t.TempDir()
	if err := exec.Command("cp", "-r", "testdata/english/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	t.Setenv(hereEnv, "")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cli(t, "", append([]string{"build", "--strict", "--out", out}, flagsOf(dir)...)...)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s\n%s", code, stdout, stderr)
	}
	hangul := regexp.MustCompile(`\p{Hangul}+`)
	files := 0
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := hangul.FindIndex(data); loc != nil {
			from, to := max(0, loc[0]-80), min(len(data), loc[1]+80)
			t.Errorf("%s has Korean: …%s…", path[len(out)+1:], data[from:to])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(out, "readiness.html"))
	for _, want := range []string{
		`<html lang="en">`, "✅ measured", "cannot be measured on this machine: kqueue is not available on linux",
		`<span class="mb-verdict">✓ holds</span>`, "<svg", "Skip to the text", ">Checked claims</a>",
		// A plot's points, their table, and how to measure it again.
		`<span>poll · idle=10,000: 1.08 ms</span>`, "<summary>The plot&#39;s figures as a table</summary>",
		"<summary>Measure it yourself: how it was measured, and how to measure it on your machine</summary>",
		"<code>go run . compare linux-amd64-amd-epyc-2c here --only readiness</code>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("readiness.html lacks %q", want)
		}
	}
	if files < 8 {
		t.Errorf("out/ holds %d files; the build wrote less than a site", files)
	}
}
