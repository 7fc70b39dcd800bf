package evaluate

import (
	"strings"
	"testing"

	"measuredbook/parse"
)

// Invalid UTF-8 in prose is a warning at its place, each run of bad
// bytes once.
func TestInvalidUTF8IsAWarning(t *testing.T) {
	d, err := parse.Parse("ch.md", []byte("# 제목\n\n좋은 줄\n나쁜 \xff\xfe 줄과 \xc3 끝\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Evaluate(d, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.Error())
	}
	want := []string{"ch.md:4:4: invalid UTF-8 (byte 0xff)", "ch.md:4:10: invalid UTF-8 (byte 0xc3)"}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %q, want %q", got[i], want[i])
		}
	}
}
