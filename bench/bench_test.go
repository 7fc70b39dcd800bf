package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// write generates a book of n chapters with seed into a new folder.
func write(t *testing.T, seed uint64, n int) string {
	t.Helper()
	set, err := bookSet("../chapters")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := (synthBook{seed: seed, chapters: n}).write(dir, "../results", set); err != nil {
		t.Fatal(err)
	}
	return dir
}

// files reads every file under dir, by path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		m[path], err = os.ReadFile(filepath.Join(dir, path))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := files(t, write(t, 7, 3)), files(t, write(t, 7, 3))
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s differs between two books of the same seed", path)
		}
	}
	other := files(t, write(t, 8, 3))
	if p := filepath.Join(dirPlain, "chapters", "ch-0001.md"); bytes.Equal(a[p], other[p]) {
		t.Errorf("%s is the same for seeds 7 and 8", p)
	}
	// Every variant has every chapter, and a chapter holds its share of
	// prose: at least chapterBytes, less than twice that.
	for _, variant := range []string{filepath.Join(dirDirectives, "chapters"), filepath.Join(dirPlain, "chapters"), filepath.Join(dirHugo, "content")} {
		for i := 1; i <= 3; i++ {
			p := filepath.Join(variant, slug(i)+".md")
			if n := len(a[p]); n < chapterBytes || n > 2*chapterBytes {
				t.Errorf("%s: %d bytes, want about %d", p, n, chapterBytes)
			}
		}
	}
	if n := strings.Count(string(a[filepath.Join(dirDirectives, "chapters", "ch-0002.md")]), "{{ "); n != 3 {
		t.Errorf("a chapter with directives has %d inline values, want 3", n)
	}
}

// TestWriteAgain generates a book into a folder that holds one already,
// as go run ./bench --work DIR does when run twice: the incremental copy
// is made again, with the second book's chapters.
func TestWriteAgain(t *testing.T) {
	set, err := bookSet("../chapters")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, seed := range []uint64{1, 2} {
		if err := (synthBook{seed: seed, chapters: 2}).write(dir, "../results", set); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	a, b := files(t, filepath.Join(dir, dirDirectives)), files(t, filepath.Join(dir, dirIncr))
	if len(a) != len(b) {
		t.Fatalf("%d files in the book, %d in its incremental copy", len(a), len(b))
	}
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s: the incremental copy is not the second book's", path)
		}
	}
}

// TestTinyBookBuilds builds a book of 3 chapters with this tool, both
// variants, and with Hugo where it is installed; then runs the whole
// benchmark once on it.
func TestTinyBookBuilds(t *testing.T) {
	dir := write(t, 1, 3)
	tool := filepath.Join(t.TempDir(), "measuredbook")
	if err := goBuild("..", tool); err != nil {
		t.Fatal(err)
	}
	b := options{tool: tool, runs: 1}
	for _, variant := range []string{dirDirectives, dirPlain} {
		out := filepath.Join(t.TempDir(), "out")
		cmd := b.toolCmd(context.Background(), filepath.Join(dir, variant), out, []string{"-v"})
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if _, err := runChild(cmd, out); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr.String(), "warning") || !strings.Contains(stderr.String(), "nothing is measured") {
			t.Errorf("%s: the build said\n%s\nwant no warning, and nothing measured", variant, &stderr)
		}
		page, err := os.ReadFile(filepath.Join(out, "ch-0003.html"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"<table": 1, "<svg": 0, `class="mb-value"`: 0}
		if variant == dirDirectives {
			// The plot's table view of its points is the second table.
			want = map[string]int{"<table": 2, "<svg": 1, `class="mb-value"`: 3}
		}
		for s, n := range want {
			if got := strings.Count(string(page), s); got != n {
				t.Errorf("%s: %d× %s on a page, want %d", variant, got, s, n)
			}
		}
	}
	if _, err := exec.LookPath("hugo"); err != nil {
		t.Skip("hugo is not installed (sudo apt-get install hugo): the rest builds the Hugo site")
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--chapters", "3", "--runs", "1", "--tool", tool}, &out); err != nil {
		t.Fatal(err)
	}
	for _, name := range configNames {
		if !strings.Contains(out.String(), name) {
			t.Errorf("the benchmark's output has no line for %q:\n%s", name, &out)
		}
	}
}

// TestIntervals reads the book's own set: every experiment gets a line,
// and readiness's widest headline figure is one of its rounds.
func TestIntervals(t *testing.T) {
	var out bytes.Buffer
	if err := runIntervals([]string{"--top", "1"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nreadiness: ", "  round  n=", "\nwake: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}
