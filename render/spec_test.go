package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"measuredbook/parse"
	"os"
	"slices"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/renderer/html"
)

// TestCommonMarkSpec renders every example of the CommonMark spec
// (testdata/spec.json, goldmark's copy) three ways, Markdown().Convert,
// RenderFragment (what `go run . render -` prints) and plain goldmark with
// unsafe HTML and the site's additions (Site: heading ids, highlighted
// code), and wants all three equal: the book's extensions leave
// standard Markdown exactly as goldmark renders it. No example is skipped.
func TestCommonMarkSpec(t *testing.T) {
	b, err := os.ReadFile("testdata/spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples []struct {
		Markdown string `json:"markdown"`
		Example  int    `json:"example"`
		Section  string `json:"section"`
	}
	if err := json.Unmarshal(b, &examples); err != nil {
		t.Fatal(err)
	}
	if len(examples) < 600 {
		t.Fatalf("only %d examples", len(examples))
	}
	plain := goldmark.New(goldmark.WithRendererOptions(html.WithUnsafe()), goldmark.WithExtensions(site{}))
	ours := Markdown()
	for _, ex := range examples {
		var want, got bytes.Buffer
		if err := plain.Convert([]byte(ex.Markdown), &want); err != nil {
			t.Fatal(err)
		}
		if err := ours.Convert([]byte(ex.Markdown), &got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("example %d (%s): Markdown() differs\nsource: %q\ngot:  %q\nwant: %q", ex.Example, ex.Section, ex.Markdown, got.String(), want.String())
		}
		frag, warnings, err := renderFragment("spec.md", []byte(ex.Markdown), fakeProbes, sets{}, nil)
		// The spec's code blocks that run to the end of their container
		// are CommonMark, and warned about as probably a mistake.
		warnings = slices.DeleteFunc(warnings, func(w error) bool {
			var pe *parse.PosError
			return errors.As(w, &pe) && pe.Kind() == parse.KindUnclosed
		})
		if err != nil || len(warnings) > 0 {
			t.Errorf("example %d: RenderFragment: %v %v", ex.Example, err, warnings)
			continue
		}
		if string(frag) != want.String() {
			t.Errorf("example %d (%s): RenderFragment differs\nsource: %q\ngot:  %q\nwant: %q", ex.Example, ex.Section, ex.Markdown, frag, want.String())
		}
	}
}
