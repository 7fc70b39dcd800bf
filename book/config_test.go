package book

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"measuredbook/view"
)

// book.yaml errors are at their own line and column, not at 1:1.
func TestConfigErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"title: 책\nlang: ko\ntitel: x\n", "book.yaml:3:1: unknown field \"titel\" in book.yaml (did you mean title?)"},
		{"title: 책\nmachine: [a, b]\n", "book.yaml:2:10: book.yaml wants a single value for machine, got a list"},
		{"title: 책\nlang: ko\n\tmachine: m\n", "book.yaml:3:1: malformed YAML in book.yaml: found a tab"},
		{"title: \"책\nlang: ko\n", "book.yaml:"},
		{"title: 책\nmachine: ../../etc\n", "book.yaml:2:10: machine \"../../etc\" may not start with '.'"},
		{"title: 책\ntitle: 둘\n", "book.yaml:2:1: "},
		{"", ""},
		{"\ufefftitle: 책\nmachine: m1\n", ""},
		{"title: 책\nmachines: m1\n", "book.yaml:2:11: book.yaml wants a list for machines, as in machines: [a, b], got \"m1\""},
		{"title: 책\nmachines: [m1, ../x]\n", "book.yaml:2:16: machines: \"../x\" may not start with '.'"},
		{"title: 책\nmachines: [m1, m1]\n", "book.yaml:2:16: machines: m1 is listed twice"},
		{"title: 책\nmachines:\n  - m1\n  - [a]\n", "book.yaml:4:5: book.yaml wants plain values in the list machines, got a list"},
		{"title: 책\nprecision: 0%\n", "book.yaml:2:12: precision wants a percentage"},
		{"title: 책\nbudget: soon\n", "book.yaml:2:9: budget wants a positive duration"},
		{"title: 책\nlang: kr\n", "book.yaml:2:7: lang: the site has no words in \"kr\" (did you mean ko?); it knows ko, en"},
		{"title: Book\nlang: en\n", ""},
		{"title: 책\nstale-on: [go, cpu]\n", "book.yaml:2:16: stale-on: \"cpu\" is not go or kernel"},
		{"title: 책\nepub: yes please\n", "book.yaml:2:7: epub wants true or false, got \"yes please\""},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(dir)
		got := ""
		if err != nil {
			got = strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
		}
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.yaml, got, tc.want)
		}
		if tc.want == "" && strings.Contains(tc.yaml, "m1") && (c.Machine != "m1" || c.Title != "책") {
			t.Errorf("%q: read %+v", tc.yaml, c)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte("machine: a\nmachines:\n  - m1\n  - linux-arm64-x\n"), 0o644)
	if c, err := LoadConfig(dir); err != nil || !reflect.DeepEqual(c.Machines, []string{"m1", "linux-arm64-x"}) {
		t.Errorf("machines: %+v, %v", c, err)
	}
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte("precision: 2.5%\nbudget: 1m\nrun-time: 250ms\nstale-on: [go]\nepub: true\n"), 0o644)
	if c, err := LoadConfig(dir); err != nil || c.Precision != 0.025 || c.Budget != time.Minute || c.RunTime != 250*time.Millisecond || !reflect.DeepEqual(c.StaleOn, []string{"go"}) || !c.EPUB {
		t.Errorf("precision, budget, run-time, stale-on, epub: %+v, %v", c, err)
	}
	want := Config{Precision: DefaultPrecision, Budget: DefaultBudget, RunTime: DefaultRunTime, StaleOn: []string{"go", "kernel"}, Words: view.Korean}
	if c, err := LoadConfig(t.TempDir()); err != nil || !reflect.DeepEqual(c, want) {
		t.Errorf("no book.yaml: %+v, %v", c, err)
	}
}

// FuzzConfig parses arbitrary book.yaml texts: never a panic, and every
// error is positioned in book.yaml.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{"title: 책\nlang: ko\nmachine: m1\npreface: |\n  서문\n", "machines: [m1, a]\n", "machines: [[x]]\n", "titel: x\n", "a: [\n", "\tmachine: m\n", "machine: ../x\n", "- a\n- b\n", "title: &a x\nlang: *a\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(dir)
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, filepath.Join(dir, ConfigFile)+":") {
				t.Fatalf("error not positioned in book.yaml: %q", line)
			}
		}
	})
}

// A book.yaml that is not a regular file is an error, never a hang.
func TestConfigMustBeAFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ConfigFile), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadConfig(dir); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "book.yaml: not a regular file (a named pipe)") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("LoadConfig hangs on a FIFO")
	}
}

// SetMachine changes the machine: line alone, adds one where there is
// none, keeps the file's mode and leaves no temporary file behind.
func TestSetMachine(t *testing.T) {
	for _, tc := range []struct{ before, after string }{
		{"title: 책 # 시험용\nmachine: a\nmachines: [m1]\n", "title: 책 # 시험용\nmachine: b\nmachines: [m1]\n"},
		{"title: 책", "title: 책\nmachine: b\n"},
		{"", "machine: b\n"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, ConfigFile)
		if tc.before != "" {
			if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		got, err := SetMachine(dir, "b")
		if err != nil || got != path {
			t.Fatalf("%q: %q, %v", tc.before, got, err)
		}
		data, _ := os.ReadFile(path)
		if string(data) != tc.after {
			t.Errorf("%q: wrote %q, want %q", tc.before, data, tc.after)
		}
		want := os.FileMode(0o600)
		if tc.before == "" {
			want = 0o644
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != want {
			t.Errorf("%q: mode %v, want %v", tc.before, fi.Mode(), want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%q: the folder holds %d files", tc.before, len(entries))
		}
	}
	if _, err := SetMachine(t.TempDir(), "../x"); err == nil {
		t.Error("SetMachine took a path as a set's name")
	}
}
