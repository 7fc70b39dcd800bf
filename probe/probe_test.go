package probe

import (
	iofs "io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		kind    Kind
		in, out string
		choices []string
		err     string
	}{
		{kind: Int, in: "10_000", out: "10000"},
		{kind: Int, in: " 0100", out: "100"},
		{kind: Int, in: "1e4", err: "wants a whole number"},
		{kind: Float, in: "0.50", out: "0.5"},
		{kind: Duration, in: "500us", out: "500µs"},
		{kind: Duration, in: "0.5ms", out: "500µs"},
		{kind: Duration, in: "500μs", out: "500µs"}, // Greek mu, as Korean text often has it
		{kind: Duration, in: "soon", err: "wants a duration"},
		{kind: String, in: "epoll", out: "epoll", choices: []string{"poll", "epoll"}},
		{kind: String, in: "kqeue", err: "wants one of poll, epoll", choices: []string{"poll", "epoll"}},
		{kind: String, in: "a/b", err: "without '/'"},
	} {
		got, err := Canonical(Param{Name: "p", Kind: tc.kind, Choices: tc.choices}, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: err %v, want %q", tc.kind, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.out {
			t.Errorf("%s %q = %q, %v; want %q", tc.kind, tc.in, got, err, tc.out)
		}
	}
}

func TestResolveFillsDefaultsAndRejectsUnknown(t *testing.T) {
	s := Spec{Name: "x", Params: []Param{{Name: "n", Kind: Int, Default: "1000"}, {Name: "api", Kind: String, Default: "poll"}}}
	p, err := s.Resolve(map[string]string{"api": "epoll"})
	if err != nil || p.Int("n") != 1000 || p.String("api") != "epoll" || p.Key() != "api=epoll/n=1000" {
		t.Errorf("resolve = %v, %v", p, err)
	}
	if _, err := s.Resolve(map[string]string{"m": "1"}); err == nil {
		t.Error("an unknown param was accepted")
	}
}

func TestHashFollowsSourceNotTests(t *testing.T) {
	src := fstest.MapFS{"a.go": {Data: []byte("package a")}, "a_test.go": {Data: []byte("package a // 1")}}
	p := Probe{Spec: Spec{Name: "a"}, Sources: []iofs.FS{src}}
	h1 := p.Hash()
	src["a_test.go"] = &fstest.MapFile{Data: []byte("package a // 2")}
	if p.Hash() != h1 {
		t.Error("a test file changed the code hash")
	}
	src["a.go"] = &fstest.MapFile{Data: []byte("package a // changed")}
	if p.Hash() == h1 {
		t.Error("a source change did not change the code hash")
	}
}
