package book

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// book.yaml errors are at their own line and column, not at 1:1.
func TestConfigErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"title: 책\nlang: ko\ntitel: x\n", "book.yaml:3:1: unknown field \"titel\" in book.yaml (did you mean title?)"},
		{"title: 책\nmachine: [a, b]\n", "book.yaml:2:10: book.yaml wants a single value for machine, got a list"},
		{"title: 책\nlang: ko\n\tmachine: m\n", "book.yaml:3:1: malformed YAML in book.yaml: found a tab"},
		{"title: \"책\nlang: ko\n", "book.yaml:"},
		{"title: 책\nmachine: ../../etc\n", "book.yaml:2:10: machine \"../../etc\": '/' is not allowed"},
		{"title: 책\ntitle: 둘\n", "book.yaml:2:1: "},
		{"", ""},
		{"\ufefftitle: 책\nmachine: m1\n", ""},
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
	if c, err := LoadConfig(t.TempDir()); err != nil || c != (Config{}) {
		t.Errorf("no book.yaml: %+v, %v", c, err)
	}
}
