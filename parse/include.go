package parse

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"measuredbook/expr"
	"measuredbook/parse/ast"
)

// Include is a file a chapter includes, directly or through another
// included file, as it was read: what a cache of the chapter must also
// key on.
type Include struct {
	File string // as positions name it: beside the chapter's own name
	Sum  [sha256.Size]byte
}

// includeLine is an include, Quarto's shortcode, alone on its line.
var includeLine = regexp.MustCompile(`^[ \t]*\{\{<[ \t]*include[ \t]+([^ \t>]+)[ \t]*>\}\}[ \t]*\r?\n?$`)

// maxIncludes bounds the includes one chapter expands to: a fragment
// included twice by each of twenty fragments must not make a chapter of
// a million copies.
const maxIncludes = 1000

// maxIncluded is the largest file included, in bytes (a chapter's limit).
const maxIncluded = 16 << 20

// includer expands the includes of a chapter: each paragraph that is
// {{< include FILE >}} alone, at the top level of the chapter or of a file
// it includes, is replaced by that file's text, FILE relative to the file
// that names it and inside the chapter's folder (fsys).
type includer struct {
	fsys     fs.FS
	dir      string // the chapter's folder, as its file name has it
	includes []Include
	errs     []*PosError
}

// expand returns text (bytes from off on of f, named name inside fsys,
// reached through the includes via) with its includes expanded, and the
// spans of what it returns (nil: text itself). chain is the files being
// expanded, outermost first.
func (x *includer) expand(f *file, name string, off int, text []byte, via string, chain []string) ([]byte, []span) {
	var out []byte
	var spans []span
	last := 0 // text[:last] is in out
	for _, at := range includeLines(text) {
		lineStart := bytes.LastIndexByte(text[:at], '\n') + 1
		_, after, _ := bytes.Cut(text[at:], []byte("\n"))
		lineEnd := len(text) - len(after)
		m := includeLine.FindSubmatchIndex(text[lineStart:lineEnd])
		if m == nil {
			continue
		}
		rel := string(text[lineStart+m[2] : lineStart+m[3]])
		inc, content, ok := x.read(f, name, off+lineStart+m[2], rel, via, chain)
		out = append(out, text[last:lineStart]...)
		spans = append(spans, span{at: len(out) - (lineStart - last), f: f, off: off + last, via: via})
		last = lineEnd
		if !ok {
			continue // the error is said; the line goes, so as not to be called misplaced too
		}
		p := f.pos(off + lineStart)
		here := fmt.Sprintf("%s:%d", p.File, p.Line)
		if via != "" {
			here += ", " + via
		}
		sub := newFile(x.display(inc), content)
		body, subSpans := x.expand(sub, inc, 0, content, here, slices.Concat(chain, []string{inc}))
		if subSpans == nil {
			subSpans = []span{{at: 0, f: sub, off: 0, via: here}}
		}
		for _, s := range subSpans {
			s.at += len(out)
			spans = append(spans, s)
		}
		out = append(out, body...)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	if spans == nil {
		return text, nil
	}
	spans = append(spans, span{at: len(out), f: f, off: off + last, via: via})
	return append(out, text[last:]...), spans
}

// includeLines are the offsets in src of the paragraphs that are an
// include: one line at the top level, so that an include in a code block,
// a list or a quote, or in the middle of a paragraph, is not one.
func includeLines(src []byte) []int {
	if !bytes.Contains(src, []byte("{{<")) {
		return nil
	}
	var at []int
	root := docParser().Parse(text.NewReader(src))
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		p, ok := c.(*gast.Paragraph)
		if !ok || p.Lines().Len() != 1 {
			continue
		}
		if line := p.Lines().At(0); includeLine.Match(line.Value(src)) {
			at = append(at, line.Start)
		}
	}
	return at
}

// read reads the file rel names, written at offset relAt of f (named name
// in fsys): its path inside fsys and its text. A path outside the folder,
// a file that cannot be read and a cycle are errors at relAt.
func (x *includer) read(f *file, name string, relAt int, rel, via string, chain []string) (string, []byte, bool) {
	fail := func(format string, args ...any) (string, []byte, bool) {
		p := f.pos(relAt)
		p.Via = via
		x.errs = append(x.errs, &PosError{Pos: p, Msg: fmt.Sprintf(format, shortArgs(format, args)...)})
		return "", nil, false
	}
	inc := path.Join(path.Dir(name), filepath.ToSlash(rel))
	if path.IsAbs(rel) || !fs.ValidPath(inc) {
		return fail("include %q: outside the chapters folder; an include names a file in the folder of %s, relative to the file that includes it", rel, x.display(chain[0]))
	}
	if i := slices.Index(chain, inc); i >= 0 {
		cycle := make([]string, 0, len(chain)-i+1)
		for _, c := range append(chain[i:], inc) {
			cycle = append(cycle, x.display(c))
		}
		return fail("include cycle: %s", strings.Join(cycle, " → "))
	}
	if len(x.includes) >= maxIncludes {
		return fail("more than %d includes in one chapter", maxIncludes)
	}
	// Stat first: a FIFO or a device named *.md must not hang the build
	// nor fill its memory.
	st, err := fs.Stat(x.fsys, inc)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("include %q: no file %s%s", rel, x.display(inc), x.nearest(inc))
	case err != nil:
		return fail("include %q: %v", rel, err)
	case !st.Mode().IsRegular():
		return fail("include %q: %s is not a regular file", rel, x.display(inc))
	case st.Size() > maxIncluded:
		return fail("include %q: %s is larger than %d MiB", rel, x.display(inc), maxIncluded>>20)
	}
	content, err := fs.ReadFile(x.fsys, inc)
	if err != nil {
		return fail("include %q: %v", rel, err)
	}
	x.includes = append(x.includes, Include{File: x.display(inc), Sum: sha256.Sum256(content)})
	return inc, content, true
}

// display is the name positions give a file of fsys.
func (x *includer) display(name string) string { return filepath.Join(x.dir, filepath.FromSlash(name)) }

// nearest suggests the Markdown file of inc's folder nearest its name.
func (x *includer) nearest(inc string) string {
	names, _ := fs.Glob(x.fsys, path.Join(path.Dir(inc), "*.md"))
	for i, n := range names {
		names[i] = path.Base(n)
	}
	return expr.DidYouMean(path.Base(inc), names)
}

// expandIncludes expands the includes of d's body, which starts at bodyOff
// of its file: d's file becomes the expanded text, its positions those of
// the files each part comes from. It returns the errors found.
func (d *Doc) expandIncludes(bodyOff int) []*PosError {
	src := d.f.src
	x := &includer{fsys: os.DirFS(filepath.Dir(d.File)), dir: filepath.Dir(d.File)}
	name := filepath.Base(d.File)
	body, spans := x.expand(d.f, name, bodyOff, src[bodyOff:], "", []string{name})
	if spans == nil {
		return x.errs
	}
	virtual := &file{name: d.f.name, src: append(slices.Clip(src[:bodyOff]), body...), spans: []span{{at: 0, f: d.f}}}
	for _, s := range spans {
		s.at += bodyOff
		virtual.spans = append(virtual.spans, s)
	}
	d.f, d.Includes = virtual, x.includes
	return x.errs
}

// shortcode checks a value that is a shortcode, {{< … >}}: one that is
// not an include alone on its line, or of a name other than include, is an
// error.
func shortcode(n *ast.Value, base Offmap, e *Errs) bool {
	s := strings.TrimSpace(n.Expr)
	if !strings.HasPrefix(s, "<") || !strings.HasSuffix(s, ">") {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimSpace(strings.Trim(s, "<>")), " ")
	if name == "include" {
		e.At(base(n.Pos()), "{{< include … >}} is expanded only alone on a line of its own, a paragraph at the top level (not inside a list, a quote or a sentence)")
	} else {
		e.At(base(n.Pos()), "unknown shortcode %q%s; the one shortcode is {{< include FILE.md >}}", name, expr.DidYouMean(name, []string{"include"}))
	}
	return true
}
