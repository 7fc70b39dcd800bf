package expr

import (
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input makes Parse, Eval, Explain or Format
// panic, and that every error points inside the source.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"readiness.round[api=poll, idle=10000] | dur",
		"readiness.round[api=poll,idle=10000] / readiness.round[api=epoll,idle=10000] | x",
		"blocking.ready_read[] | range",
		`growth(readiness.round[api=epoll], idle) > 1.1 ? "자란다" : "평평하다"`,
		`ref("m1", readiness.round[api=epoll, idle=1e4]) | ns`,
		"slope(readiness.round[api=poll], idle) < 1.2 && !(1 < 2) || 3 >= 4",
		"min(readiness.round[idle=100]) + max(1ms, 2ms) - abs(-500us) * 2 / 4",
		"8KiB / 64B | pct",
		`blocking.ready_read < 1us ? "a" : "b" ~ "c"`, "a ? b : c ~ d ~ e", "~",
		"empty_read.param.delay * 2 | us", "readiness.param.idle | range", "max(readiness.param.idle)",
		`machine.cores > 2 && machine.virtual ? "x" : "y"`, `ref("m1", machine.nofile_hard)`, "machine.", "x.param.",
		`"\"\\" ? :`, "[", "]", "a.b[", "1e", "1e+", "5µ", "((((", "a..b", "|||", "&&&", "!!!",
	} {
		f.Add(s)
	}
	env := testSettings()
	f.Fuzz(func(t *testing.T, src string) {
		check := func(what string, err error) {
			if err == nil {
				return
			}
			pe, ok := err.(*Error)
			if !ok {
				t.Fatalf("%s(%q): error %T, want *Error", what, src, err)
			}
			if pe.Off < 0 || pe.Len < 0 || pe.Off+pe.Len > len(src) {
				t.Fatalf("%s(%q): error span [%d,+%d) outside the source of length %d: %s", what, src, pe.Off, pe.Len, len(src), pe.Msg)
			}
			if pe.Msg == "" {
				t.Fatalf("%s(%q): empty message", what, src)
			}
		}
		e, err := Parse(src)
		check("Parse", err)
		if err != nil {
			return
		}
		v, err := e.Eval(env)
		check("Eval", err)
		_ = e.Explain(env)
		if err != nil {
			return
		}
		if v.Kind == Number && !(v.Lo <= v.Num && v.Num <= v.Hi) {
			t.Fatalf("Eval(%q): median %g outside [%g, %g]", src, v.Num, v.Lo, v.Hi)
		}
		s, err := v.Format(e.Format())
		if err != nil {
			t.Fatalf("Eval(%q) accepted format %q that Format refuses: %v", src, e.Format(), err)
		}
		if utf8.ValidString(src) && !utf8.ValidString(s) {
			t.Fatalf("Format of %q is not UTF-8: %q", src, s)
		}
	})
}
