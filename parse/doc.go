// Package parse reads a chapter of the measured book: its front matter,
// its Markdown (goldmark) and the directives and {{ }} values in it, each
// checked against the probes. It is the first of three steps:
//
//	d, err := parse.Parse(file, src, probes)         // syntax, experiments checked against the probes
//	page, err := evaluate.Evaluate(d, results, all)  // values, tables, plots, claims, when blocks
//	body, err := render.HTMLWith(d, page.Views, x)   // the chapter body as an HTML fragment
//
// Parse never looks at results and Evaluate never runs a probe: measuring
// happens between the two, for the experiments that Parse returned. A Doc
// is never changed after Parse: Evaluate returns a Page (the views keyed
// by node, the claims, the warnings), so one parsed chapter can be
// evaluated against several result sets, and HTMLWith is a pure function
// of the two (and the book's index).
//
// What a chapter may say (the directives and their fields, inline values
// and their formats, callouts, includes, front matter) is documented for
// its authors in docs/authoring.md, which a test holds to the fields the
// parser accepts (directiveFields). Two rules of the syntax that the
// guide leaves to the code: a first line "---" not followed by a "key:"
// line is Markdown (a thematic break), not front matter, so that every
// CommonMark document renders as goldmark renders it; and a position in
// an included file names that file, Pos.Via saying where it was included
// from.
//
// # Errors and positions
//
// Every error is a *PosError, "FILE:LINE:COL: message", where LINE and COL
// are 1-based and COL counts characters (code points), not bytes. Errors
// are collected and joined, so one run reports all of them. Warnings are
// returned beside the result, also as *PosError, whose Kind says which
// (KindInconclusive, KindInconclusiveClaim, KindMissing, KindFailed,
// KindStale, KindNotApplicable): a build groups and counts them by it, and
// fails --strict on KindInconclusive.
package parse

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"measuredbook/expr"
	"measuredbook/parse/ast"
	"measuredbook/probe"
)

// Front is a chapter's YAML front matter.
type Front struct {
	Title string
	Order int
	Slug  string
	Lang  string
	// SlugAt is where the slug is written, for a clash between chapters.
	SlugAt Pos
}

// Doc is one parsed chapter.
type Doc struct {
	File        string
	Front       Front
	Experiments []*Experiment // in document order
	// Uses names, per experiment id, the metrics this chapter's values,
	// tables, plots, claims and conditions refer to: its headline metrics.
	Uses map[string][]string
	// Links are the chapter's links and images; Anchors the ids its page
	// has (headings, experiment-ID): what the book's links check needs.
	Links   []Link
	Anchors []string
	// Xref is the chapter's labels, references and citations.
	Xref Xref
	// Includes are the files the chapter includes, directly or not, in
	// the order they were read.
	Includes []Include

	f          *file
	body       []byte // the Markdown after the front matter
	root       gast.Node
	values     []*InlineValue // inline values of the body, in document order
	directives []*Directive
	warn       []*PosError // what Parse warns about (Warned)
}

// maxBadText is how many places of invalid UTF-8 a chapter's warnings name.
const maxBadText = 5

// invalidUTF8 returns the offsets where src stops being UTF-8: a run of
// bad bytes counts once, and only the first maxBadText are kept.
func invalidUTF8(src []byte) []int {
	var offs []int
	bad := false
	for i := 0; i < len(src) && len(offs) < maxBadText; {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 && !bad {
			offs = append(offs, i)
		}
		bad = r == utf8.RuneError && n == 1
		i += n
	}
	return offs
}

// Experiment is one experiment directive, validated against its probe.
type Experiment struct {
	ID, Probe string
	Pos       Pos // of the directive's opening fence
	Spec      probe.Spec
	Order     []string            // param names in the probe's order
	Sweep     map[string][]string // canonical values per param (defaults filled; a list is a sweep)
	Combos    []probe.Params      // the cartesian product, first param outermost
	Runs      int                 // a fixed count of runs per combination (runs: N); 0 is runs: auto, the default
	Precision float64             // runs: auto's ± of the median's interval, as a fraction; 0 = the book's
	Budget    time.Duration       // runs: auto's time budget; 0 = the book's
	Show      string              // "table" (default) or "none"
	Caption   string
	Timeout   time.Duration // per run; 0 = the default
	// Labels names params, metrics and values in the chapter's language
	// (labels:), for the experiment's table.
	Labels map[string]string
}

// Parse parses one chapter: optional YAML front matter (title, order,
// slug, lang; any other key is an error) between "---" lines, then
// Markdown with directives. probes is the registry, used to validate
// experiments. The error joins one *PosError per problem found.
func Parse(file string, src []byte, probes []probe.Probe) (*Doc, error) {
	d := &Doc{File: file, f: newFile(file, src)}
	e := &Errs{f: d.f}
	bodyOff := d.parseFront(src, e)
	e.list = append(e.list, d.expandIncludes(bodyOff)...)
	e.f = d.f
	src = d.f.src // the chapter with its includes
	w := &Errs{f: d.f}
	for _, off := range invalidUTF8(src) {
		w.KindAt(KindText, off, "invalid UTF-8 (byte 0x%02x): the page cannot show it as written; save the file as UTF-8", src[off])
	}
	d.body = src[bodyOff:]
	d.root = docParser().Parse(text.NewReader(d.body))
	base := shift(bodyOff)

	for n := range nodes(d.root) {
		d.collectXref(n, d.body, base, e)
		switch n := n.(type) {
		case *gast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				d.Anchors = append(d.Anchors, string(id.([]byte)))
			}
		case *gast.Link:
			d.link(n, n.Destination, n.Title, base, e)
		case *gast.Image:
			d.link(n, n.Destination, n.Title, base, e)
		case *ast.Value:
			if shortcode(n, base, e) {
				break
			}
			if v := parseValue(n, base, e); v != nil {
				d.values = append(d.values, v)
			}
		case *gast.Blockquote:
			unknownCallout(n, d.body, base, w)
		case *gast.FencedCodeBlock:
			if checkFence(n, d.body, base, w, KindUnclosed) {
				misspelt(n, d.body, base, w)
			}
		case *ast.Directive:
			if !checkFence(n, d.body, base, e, "") {
				break
			}
			dir := d.parseDirective(n, d.body, base, probes, e)
			if dir == nil {
				break
			}
			d.directives = append(d.directives, dir)
			if x := dir.Exp; x != nil {
				if i := slices.IndexFunc(d.Experiments, func(y *Experiment) bool { return y.ID == x.ID }); i >= 0 {
					e.At(dir.ArgOff, "duplicate experiment id %q (first at %s)", x.ID, d.Experiments[i].Pos)
				} else {
					d.Experiments = append(d.Experiments, x)
				}
			}
		}
	}
	if err := e.Err(); err != nil {
		return nil, err
	}
	d.Uses = d.uses()
	d.anchors()
	d.warn = w.list
	return d, nil
}

// blockStart is the body offset where the block holding the inline n
// starts: where to look for n's source, which inline nodes do not keep.
func blockStart(n gast.Node) int {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == gast.TypeBlock && p.Lines().Len() > 0 {
			return p.Lines().At(0).Start
		}
	}
	return 0
}

// nodes yields every node of the tree under root, root first, in document
// order, as gast.Walk enters them.
func nodes(root gast.Node) iter.Seq[gast.Node] {
	return func(yield func(gast.Node) bool) {
		_ = gast.Walk(root, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
			if entering && !yield(n) {
				return gast.WalkStop, nil
			}
			return gast.WalkContinue, nil
		})
	}
}

var frontKeys = []string{"title", "order", "slug", "lang"}

// frontKey matches the first field of a front matter.
var frontKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*[ \t]*:`)

// parseFront decodes the front matter, if the file starts with one, and
// returns the offset of the Markdown after it. A front matter is a first
// line "---", YAML fields, and a closing line "---" (or "..."). What does
// not look like one (a first line "---" that is not followed by a
// "key:" line, such as a thematic break over a setext heading) is left to
// Markdown, so that standard Markdown keeps its meaning.
func (d *Doc) parseFront(src []byte, e *Errs) int {
	bom := bomLen(src)
	first, _, ok := bytes.Cut(src[bom:], []byte("\n"))
	if !ok || strings.TrimRight(string(first), " \r") != "---" {
		return bom
	}
	start := bom + len(first) + 1
	lines := strings.Split(string(src[start:]), "\n")
	i := slices.IndexFunc(lines, func(line string) bool {
		t := strings.TrimSpace(line)
		return t != "" && !strings.HasPrefix(t, "#")
	})
	if i < 0 || !frontKey.MatchString(lines[i]) {
		return bom
	}
	end, next := -1, start
	for line := range bytes.Lines(src[start:]) {
		next += len(line)
		if t := strings.TrimRight(string(line), " \r\n"); t == "---" || t == "..." {
			end = next - len(line)
			break
		}
	}
	if end < 0 {
		e.At(0, "front matter is not closed: expected a line \"---\" after the fields")
		return len(src)
	}
	y := newYBody(src[start:end], shift(start))
	root, ok := y.parse("front matter", e)
	if !ok {
		return next
	}
	fs := y.values("front matter", root, frontKeys, nil, e)
	d.Front.Title, d.Front.Lang = fs["title"].Value, fs["lang"].Value
	if f, ok := fs["slug"]; ok {
		if err := checkSlug(f.Value); err != nil {
			e.At(f.off, "%v", err)
		}
		d.Front.Slug, d.Front.SlugAt = f.Value, f.Pos
	}
	if f, ok := fs["order"]; ok {
		n, err := strconv.Atoi(f.Value)
		if err != nil {
			e.At(f.off, "order wants a whole number, got %q", f.Value)
		}
		d.Front.Order = n
	}
	return next
}

// reservedSlugs are names a chapter's page may not take: the stem of every
// file and folder the site writes beside the chapters (index.html,
// claims.html, search-index.js, toc.js, data/, ...; book's tests check
// that list), the fleet's page (fleet.html) and names kept for pages to
// come.
var reservedSlugs = []string{"index", "style", "data", "search", "search-index", "site", "toc", "claims", "environment",
	"fleet", "print", "assets", "static", "404", "sitemap", "feed"}

// ReservedSlug says whether a page named s.html would clash with a file
// the site writes, in any case (case-insensitive disks).
func ReservedSlug(s string) bool {
	return slices.ContainsFunc(reservedSlugs, func(r string) bool { return strings.EqualFold(s, r) })
}

// checkSlug accepts a slug that is a plain file name: ASCII letters, digits, -
// and _, not a reserved name (in any case, for case-insensitive disks).
func checkSlug(s string) error {
	if s == "" {
		return errors.New("slug is empty")
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("slug %q: %q is not allowed; a slug is ASCII letters, digits, - and _ (it names the page's file)", s, c)
		}
	}
	if ReservedSlug(s) {
		return fmt.Errorf("slug %q is reserved for the site's own pages (%s)", s, strings.Join(reservedSlugs, ", "))
	}
	return nil
}

// InlineValue is an inline value with its parsed expression and the map from
// the expression's offsets to the file's.
type InlineValue struct {
	Node *ast.Value
	E    *expr.Expr
	M    Offmap
	At   int // file offset of the opening {{, where warnings point
}

// parseValue parses an inline value node; base maps offsets in the source
// the node was parsed from to file offsets.
func parseValue(n *ast.Value, base Offmap, e *Errs) *InlineValue {
	m := table(n.Map, base)
	if n.Unclosed {
		e.At(base(n.Pos()), "unclosed {{: expected }} to end the value")
		return nil
	}
	x, err := expr.Parse(n.Expr)
	if err != nil {
		e.Expr(m, err)
		return nil
	}
	return &InlineValue{Node: n, E: x, M: m, At: base(n.Pos())}
}

// Expr reports an error from package expr at its culprit, whose offsets
// m maps to the file.
func (e *Errs) Expr(m Offmap, err error) {
	var xe *expr.Error
	if errors.As(err, &xe) {
		e.At(m(xe.Off), "%s", xe.Msg)
		return
	}
	e.At(m(0), "%s", err)
}

// Subdoc is Markdown held in a directive's field (a claim's text, a when
// block's branches): parsed like the body, with its own source.
type Subdoc struct {
	Src    []byte
	Root   gast.Node
	Values []*InlineValue
}

func (d *Doc) parseSub(src string, m Offmap, what string, e *Errs) *Subdoc {
	s := &Subdoc{Src: []byte(src)}
	s.Root = docParser().Parse(text.NewReader(s.Src))
	for n := range nodes(s.Root) {
		d.collectXref(n, s.Src, m, e)
		switch n := n.(type) {
		case *ast.Value:
			if v := parseValue(n, m, e); v != nil {
				s.Values = append(s.Values, v)
			}
		case *ast.Directive:
			e.At(m(n.Pos()), "a %s directive cannot be nested inside %s", n.Name, what)
		case *east.Footnote:
			// Its number and id would be the body's first note's again.
			at := max(bytes.Index(s.Src, []byte("[^"+string(n.Ref)+"]:")), 0)
			e.At(m(at), "a footnote cannot be defined inside %s; define it in the chapter's prose", what)
		}
	}
	return s
}

var idRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*$`)

// Body is the chapter's Markdown after the front matter: the source the
// segments of Root point into.
func (d *Doc) Body() []byte { return d.body }

// Root is the body's goldmark AST.
func (d *Doc) Root() gast.Node { return d.root }

// Values are the body's inline values, in document order.
func (d *Doc) Values() []*InlineValue { return d.values }

// Directives are the body's directives, in document order.
func (d *Doc) Directives() []*Directive { return d.directives }

// Summary is what a book keeps of a parsed chapter between its check and
// its render: no syntax tree, no source.
func (d *Doc) Summary() *Doc {
	return &Doc{File: d.File, Front: d.Front, Experiments: d.Experiments, Uses: d.Uses, Links: d.Links, Anchors: d.Anchors, Xref: d.Xref, Includes: d.Includes}
}

// Pos is the position of a file offset.
func (d *Doc) Pos(off int) Pos { return d.f.pos(off) }

// Errs starts a list of errors at positions in d.
func (d *Doc) Errs() *Errs { return &Errs{f: d.f} }

// Warned starts a list of warnings at positions in d with those Parse
// made (a misspelt directive, a broken link): the page's warnings add
// to them.
func (d *Doc) Warned() *Errs { return &Errs{f: d.f, list: slices.Clone(d.warn)} }
