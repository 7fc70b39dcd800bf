package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleImportCompareVerbs drives the three verbs through the command
// line: the repository's m1 set is bundled, imported into an empty
// results folder, imported again (nothing to do), and compared with
// itself as JSON.
func TestBundleImportCompareVerbs(t *testing.T) {
	code, bundle, stderr := cli(t, "", "bundle", "--machine", "m1")
	if code != 0 || !strings.HasPrefix(bundle, "measuredbook-bundle v1 set=m1 files=") {
		t.Fatalf("bundle: exit %d, %q\n%s", code, bundle[:min(len(bundle), 80)], stderr)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "m1.bundle")
	if err := os.WriteFile(file, []byte(bundle), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	if code, out, stderr := cli(t, "", "import", file, "--results", results); code != 0 || !strings.Contains(out, "imported "+filepath.Join(results, "m1")) {
		t.Fatalf("import: exit %d, %s%s", code, out, stderr)
	}
	if code, out, _ := cli(t, "", "import", file, "--results", results); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Errorf("import again: exit %d, %s", code, out)
	}
	code, out, stderr := cli(t, "", "compare", "m1", "m1", "--results", results, "--only", "handoff", "--json")
	var c struct {
		Lines []struct {
			Note  string
			Ratio float64
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || len(c.Lines) != 8 {
		t.Fatalf("compare --json: exit %d, %d lines, %s%s", code, len(c.Lines), out, stderr)
	}
	for _, l := range c.Lines {
		if l.Note != "no runs: transcribed in m1 and m1" || l.Ratio != 1 {
			t.Errorf("m1 against itself: %+v", l)
		}
	}
	// here is this machine's set.
	t.Setenv("MBOOK_MACHINE", "m1")
	if code, out, stderr := cli(t, "", "compare", "m1", "here", "--results", results, "--only", "handoff"); code != 0 || !strings.Contains(out, "m1") {
		t.Errorf("compare m1 here: exit %d, %s%s", code, out, stderr)
	}
	t.Setenv("MBOOK_MACHINE", "elsewhere")
	if code, _, stderr := cli(t, "", "compare", "m1", "here", "--results", results); code != 2 || !strings.Contains(stderr, "compare elsewhere: no such result set") {
		t.Errorf("compare m1 here, with no set here: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{
		{"compare", "m1"},
		{"compare", "m1", "nosuch", "--results", results},
		{"bundle", "--machine", "../x"},
		{"import"},
	} {
		if code, _, _ := cli(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (usage)", args, code)
		}
	}
}
