package bib

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `A comment line, as BibTeX allows.
@string{lwn = "LWN.net"}
@Misc{kegel1999,
  author = {Kegel, Dan},
  title = {The {C10K} problem},
  howpublished = lwn # " mirror",
  year = 1999, month = may,
  url = {http://www.kegel.com/c10k.html~x--y},
}
@comment{ @misc{not, title = {an entry}} }
@book(stevens, title = "Unix Network Programming, \& more {"quoted"}", author = "W. Richard Stevens and Fenner, Bill",)
`
	b, err := Parse("references.bib", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Keys(), " "); got != "kegel1999 stevens" {
		t.Fatalf("keys %q", got)
	}
	k, _ := b.Lookup("kegel1999")
	for f, want := range map[string]string{"author": "Kegel, Dan", "title": "The C10K problem", "howpublished": "LWN.net mirror",
		"year": "1999", "month": "5", "url": "http://www.kegel.com/c10k.html~x--y"} {
		if k.Fields[f] != want {
			t.Errorf("%s = %q, want %q", f, k.Fields[f], want)
		}
	}
	if k.Type != "misc" || k.At.String() != "references.bib:3:7" {
		t.Errorf("type %q at %s", k.Type, k.At)
	}
	s, _ := b.Lookup("stevens")
	if s.Fields["title"] != `Unix Network Programming, & more "quoted"` {
		t.Errorf("title %q", s.Fields["title"])
	}
}

func TestErrors(t *testing.T) {
	src := "@misc{a, title = {x}}\n@misc{a, title = {y}}\n@misc{b, publisher = acmm}\n@string{acm = {ACM}}\n@misc{c, title = {open}\n"
	_, err := Parse("r.bib", []byte(src))
	want := []string{
		`r.bib:2:7: duplicate key "a" (first at r.bib:1:7)`,
		`r.bib:3:22: unknown @string name "acmm"`,
		`r.bib:5:6: @misc{c: not closed: expected }`,
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("no %q in\n%v", w, err)
		}
	}
}

// FuzzParse: no input makes the parser panic or loop, and every error
// names a position in the file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"@misc{a, title = {x}}", "@string(x = \"y\") @misc{k, a = x # {b}, }", "@{", "@misc{a, t = {{}", "@misc{", "@comment(", "\"@@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := Parse("f.bib", []byte(s))
		if err != nil && !strings.HasPrefix(err.Error(), "f.bib:") {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
