package parse

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a chapter file. Line and Col are 1-based; Col
// counts characters (Unicode code points, not bytes), so a column in a
// Korean sentence is what an editor shows. A tab counts as one column.
type Pos struct {
	File      string
	Line, Col int
	// Via is where File is included from, when it is: "FILE:LINE" of each
	// include, innermost first, ", " between them.
	Via string `json:",omitempty"`
}

// String returns "FILE:LINE:COL".
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// PosError is an error at a position in a chapter.
type PosError struct {
	Pos  Pos
	Msg  string
	kind string // of a warning; "" for an error
}

// The kinds of warnings Evaluate returns (PosError.Kind), so that a build
// can group them, count them and decide which fail --strict.
const (
	// KindInconclusive: a condition (?: without ~, when without unsure:)
	// that the runs left undecided, so the page states a branch that may
	// not hold. --strict should fail on it.
	KindInconclusive = "inconclusive condition"
	// KindInconclusiveClaim: a claim the runs leave undecided (shown as
	// 판정 보류).
	KindInconclusiveClaim = "inconclusive claim"
	KindMissing           = "missing result" // a figure shown as 측정 없음
	KindFailed            = "failed result"  // a combination that failed to measure
	KindStale             = "stale result"   // shown, marked as measured with other settings or code
	KindNotApplicable     = "absent metric"  // an optional metric a combination does not have
	// KindUnavailable: a figure of a combination the set's machine cannot
	// measure at all (kqueue on Linux), shown as a gap with the probe's
	// reason; a result, not a gap to fill.
	KindUnavailable = "not available on the machine"
	// KindText is text that is not UTF-8.
	KindText = "invalid text"
)

// Kind is the warning's kind (one of the Kind constants), "" for an error.
func (e *PosError) Kind() string { return e.kind }

// Error returns "FILE:LINE:COL: Msg", and " (included from FILE:LINE)"
// after it for a position in an included file.
func (e *PosError) Error() string {
	if e.Pos.Via != "" {
		return e.Pos.String() + ": " + e.Msg + " (included from " + e.Pos.Via + ")"
	}
	return e.Pos.String() + ": " + e.Msg
}

// file is a chapter's source with a line index. Positions are kept as byte
// offsets into the whole file while parsing and turned into line and
// column only when an error or a Pos is reported (Hugo's habit).
type file struct {
	name  string
	src   []byte
	lines []int // byte offset of each line's start
	// spans, for a chapter with includes, say which file each part of src
	// comes from; src is then the chapter with its includes expanded.
	spans []span
}

// span: the bytes of a file's src from at on (to the next span) are those
// of f from off on, a file included from via (Pos.Via).
type span struct {
	at  int
	f   *file
	off int
	via string
}

func newFile(name string, src []byte) *file {
	f := &file{name: name, src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// pos converts a byte offset in the file to a Pos.
func (f *file) pos(off int) Pos {
	off = min(max(off, 0), len(f.src))
	if f.spans != nil {
		i := sort.Search(len(f.spans), func(i int) bool { return f.spans[i].at > off }) - 1
		s := f.spans[max(i, 0)]
		p := s.f.pos(s.off + off - s.at)
		p.Via = s.via
		return p
	}
	i := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
	return Pos{File: f.name, Line: i + 1, Col: utf8.RuneCount(f.src[f.lines[i]:off]) + 1}
}

// errs collects positioned errors.
type Errs struct {
	f    *file
	list []*PosError
}

// At adds an error at offset off.
func (e *Errs) At(off int, format string, args ...any) { e.KindAt("", off, format, args...) }

// KindAt adds a warning of a kind ("": an error).
func (e *Errs) KindAt(kind string, off int, format string, args ...any) {
	e.list = append(e.list, &PosError{Pos: e.f.pos(off), Msg: fmt.Sprintf(format, shortArgs(format, args)...), kind: kind})
}

// maxShown is how many characters of an input a message repeats.
const maxShown = 80

// Short is s cut to its first maxShown characters, with … when it was
// longer: a message repeats the input it names, and a 100 KB name must not
// make a 100 KB line.
func Short(s string) string {
	n := 0
	for i := range s {
		if n == maxShown {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// shortArgs is args with every string that format quotes (%q) Short:
// those are the user's input; other strings are messages made here.
func shortArgs(format string, args []any) []any {
	out := slices.Clone(args)
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*", format[i]) >= 0 {
			i++
		}
		if i == len(format) || format[i] == '%' {
			continue
		}
		if n < len(out) && format[i] == 'q' {
			if s, ok := out[n].(string); ok {
				out[n] = Short(s)
			}
		}
		n++
	}
	return out
}

// err returns the errors sorted by position (stable, so two errors at one
// place keep the order they were found in), joined; nil if none.
func (e *Errs) Err() error { return JoinSorted(e.list) }

// Relay adds each error of from to e, its message after prefix, as a
// warning of kind (of its own kind when kind is "").
func (e *Errs) Relay(from *Errs, prefix, kind string) {
	for _, w := range from.list {
		e.list = append(e.list, &PosError{Pos: w.Pos, Msg: prefix + w.Msg, kind: cmp.Or(kind, w.kind)})
	}
}

// Msgs are the errors' messages, in the order they were found.
func (e *Errs) Msgs() []string {
	var msgs []string
	for _, w := range e.list {
		msgs = append(msgs, w.Msg)
	}
	return msgs
}

// Sorted returns the errors sorted by position, as Err joins them; nil if
// none.
func (e *Errs) Sorted() []error { return sorted(e.list) }

// JoinSorted joins positioned errors sorted by position (stable); nil if
// there are none.
func JoinSorted(list []*PosError) error { return errors.Join(sorted(list)...) }

func sorted(list []*PosError) []error {
	if len(list) == 0 {
		return nil
	}
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b *PosError) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	out := make([]error, len(list))
	for i, pe := range list {
		out[i] = pe
	}
	return out
}

// Offmap maps byte offsets in a derived text (a directive's YAML body, a
// scalar's value, a Markdown sub-document, an expression) to byte offsets
// in the file. Derived texts are made of pieces of the file, so maps
// compose: the map of an expression inside a when block's Markdown inside
// the YAML body is three functions applied in turn.
type Offmap func(k int) int

// pieces builds an Offmap from a list of pieces, in the derived text's
// order: bytes [from, from+n) of the derived text are the bytes [to, to+n)
// of the text below. An offset between pieces maps to the end of the piece
// before it (a folded line break maps to the end of its line); one before
// every piece to dflt.
func pieces(ps []piece, dflt int) Offmap {
	return func(k int) int {
		i := sort.Search(len(ps), func(i int) bool { return ps[i].from > k }) - 1
		if i < 0 {
			return dflt
		}
		p := ps[i]
		return p.to + min(k-p.from, p.n)
	}
}

type piece struct{ from, to, n int }

// table is an Offmap from a table of offsets (ast.Value.Map): offsets past
// its end map to the last entry.
func table(t []int, below Offmap) Offmap {
	return func(k int) int {
		if len(t) == 0 {
			return below(0)
		}
		return below(t[min(max(k, 0), len(t)-1)])
	}
}

// shift is the Offmap of a text that starts at byte base of the text below.
func shift(base int) Offmap { return func(k int) int { return base + k } }

// NewErrs starts a list of errors at offsets in src, a file of the book
// that is not a chapter (the bibliography): the same positions, the same
// messages.
func NewErrs(file string, src []byte) *Errs { return &Errs{f: newFile(file, src)} }

// Pos is the position of an offset in the errors' file.
func (e *Errs) Pos(off int) Pos { return e.f.pos(off) }
