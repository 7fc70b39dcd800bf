package probe

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"runtime"
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
	src["a.go"] = &fstest.MapFile{Data: []byte("package a; var x = 1")}
	if p.Hash() == h1 {
		t.Error("a source change did not change the code hash")
	}
}

// The hash follows what runs: comments, layout, Doc and Optional texts and
// the text constants a Doc is built from are words, and changing them is no
// new measurement; any change to code is.
func TestHashIgnoresWords(t *testing.T) {
	const base = `package a

import "time"

// method is shared by two docs.
const method = "Setup: " + "one socketpair."

const n = 10 // a bound

var spec = Spec{
	Name: "a",
	Doc:  "How long it takes. " + method,
	Metrics: []Metric{{Name: "t", Doc: "time", Optional: "when not"}},
}

func run() time.Duration { return n * time.Second }
`
	hashOf := func(code string) string {
		p := Probe{Spec: Spec{Name: "a"}, Sources: []iofs.FS{fstest.MapFS{"a.go": {Data: []byte(code)}}}}
		return p.Hash()
	}
	h := hashOf(base)
	for _, same := range []struct{ what, old, new string }{
		{"a comment", "// a bound", "// an upper bound"},
		{"a doc comment", "// method is shared", "// method, shared"},
		{"a Doc string", `"How long it takes. "`, `"How long one call takes. "`},
		{"a metric's Doc", `Doc: "time"`, `Doc: "time per call"`},
		{"an Optional reason", `"when not"`, `"absent when select cannot run"`},
		{"a text constant a Doc uses", `"one socketpair."`, `"one AF_UNIX socketpair."`},
		{"layout", "return n * time.Second", "return n*time.Second"},
	} {
		if !strings.Contains(base, same.old) {
			t.Fatalf("test bug: %q not in the source", same.old)
		}
		if got := hashOf(strings.Replace(base, same.old, same.new, 1)); got != h {
			t.Errorf("changing %s changed the code hash", same.what)
		}
	}
	for _, diff := range []struct{ what, old, new string }{
		{"a constant", "const n = 10", "const n = 20"},
		{"a metric name", `Name: "t"`, `Name: "u"`},
		{"the code", "n * time.Second", "n * time.Millisecond"},
	} {
		if got := hashOf(strings.Replace(base, diff.old, diff.new, 1)); got == h {
			t.Errorf("changing %s kept the code hash", diff.what)
		}
	}
}

func TestCheckValues(t *testing.T) {
	s := Spec{Name: "x", Metrics: []Metric{{Name: "a"}, {Name: "b", Optional: "only with select"}}}
	if err := s.CheckValues(Values{"a": 1, "b": 2}); err != nil {
		t.Error(err)
	}
	if err := s.CheckValues(Values{"a": 1}); err != nil {
		t.Errorf("an absent optional metric: %v", err)
	}
	if err := s.CheckValues(Values{"b": 1}); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("an absent required metric: %v", err)
	}
	if err := s.CheckValues(Values{"a": 1, "c": 1}); err == nil {
		t.Error("an undeclared metric was accepted")
	}
}

// A probe's "not available" is one sentence on every platform, found
// through any wrapping.
func TestNotAvailable(t *testing.T) {
	err := fmt.Errorf("readiness: %w", notAvailableOn("darwin", "epoll", ""))
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Reason != "epoll is not available on darwin" {
		t.Errorf("NotAvailable wrapped = %v (%#v)", err, ue)
	}
	if got := notAvailableOn("darwin", "threads.park", "it parks threads with Linux's futex(2)").Error(); got != "threads.park is not available on darwin: it parks threads with Linux's futex(2)" {
		t.Errorf("with a why: %q", got)
	}
}

// The hash counts the files that build for the platform a result was
// measured on: editing kqueue code leaves a Linux result fresh.
func TestHashForCountsWhatBuildsThere(t *testing.T) {
	src := fstest.MapFS{
		"a.go":         {Data: []byte("package a")},
		"a_linux.go":   {Data: []byte("package a; var epoll = 1")},
		"kq_bsd.go":    {Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 1")},
		"a_windows.go": {Data: []byte("package a; var w = 1")},
	}
	p := Probe{Spec: Spec{Name: "a"}, Sources: []iofs.FS{src}}
	linux, darwin, all := p.HashFor("linux", "amd64"), p.HashFor("darwin", "arm64"), p.HashFor("", "")
	src["kq_bsd.go"] = &fstest.MapFile{Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 2")}
	if p.HashFor("linux", "amd64") != linux {
		t.Error("a kqueue change made the Linux hash differ")
	}
	if p.HashFor("darwin", "arm64") == darwin || p.HashFor("", "") == all {
		t.Error("a kqueue change kept the macOS hash (or the every-file hash)")
	}
	src["a_linux.go"] = &fstest.MapFile{Data: []byte("package a; var epoll = 2")}
	if p.HashFor("linux", "amd64") == linux {
		t.Error("an epoll change kept the Linux hash")
	}
	if p.Hash() != p.HashFor(runtime.GOOS, runtime.GOARCH) {
		t.Error("Hash is not this platform's HashFor")
	}
}
