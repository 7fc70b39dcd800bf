package render

import (
	"bytes"
	"io"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/testutil"

	"measuredbook/view"
)

// TestExtensionSpecs renders goldmark's own examples of the footnote and
// definition-list extensions (testdata/footnote.txt and
// definition_list.txt, goldmark's copies) with Markdown(), and wants what
// goldmark wants, but for the one thing the book adds: the footnote
// back-link's title.
func TestExtensionSpecs(t *testing.T) {
	for _, f := range []string{"testdata/footnote.txt", "testdata/definition_list.txt"} {
		testutil.DoTestCaseFile(untitled{Markdown()}, f, t)
	}
}

// untitled is a Markdown whose output has no back-link titles.
type untitled struct{ goldmark.Markdown }

func (m untitled) Convert(src []byte, w io.Writer, opts ...parser.ParseOption) error {
	var b bytes.Buffer
	if err := m.Markdown.Convert(src, &b, opts...); err != nil {
		return err
	}
	title := []byte(` title="` + view.Korean.FootnoteBack + `"`)
	if bytes.Count(b.Bytes(), title) != bytes.Count(b.Bytes(), []byte(`class="footnote-backref"`)) {
		return io.ErrUnexpectedEOF
	}
	_, err := w.Write(bytes.ReplaceAll(b.Bytes(), title, nil))
	return err
}
