package render

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"measuredbook/evaluate"
	"measuredbook/parse"
)

// TestCheckWithoutResults: every case's chapter, checked with the
// build's own set taken away (as before it is measured), reports the
// errors its evaluation against that set reports, at the same places:
// an experiment's shape stands for its result.
func TestCheckWithoutResults(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	checked, hidden := 0, 0
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := parse.Parse("chapter.md", caseFile(a, "chapter.md"), fakeProbes)
		if err != nil {
			continue
		}
		_, measured := evaluate.Evaluate(d, loadResults(t, a), nil)
		before := &txtar.Archive{}
		for _, f := range a.Files {
			if !strings.HasPrefix(f.Name, "results/") {
				before.Files = append(before.Files, f)
			}
		}
		checked++
		if _, err := evaluate.Evaluate(d, loadResults(t, before), nil); errLines(err) != errLines(measured) {
			hidden++ // errors the missing results hid until now
		}
		if got, want := errLines(evaluate.Check(d, loadResults(t, before), nil, nil)), errLines(measured); got != want {
			t.Errorf("%s: checked before measuring:\n%swant, as after:\n%s", file, got, want)
		}
	}
	if checked < 20 || hidden < 2 {
		t.Errorf("%d cases checked, %d of them with errors their results hid: the cases changed", checked, hidden)
	}
}

func caseFile(a *txtar.Archive, name string) []byte {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}
