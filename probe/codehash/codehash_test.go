package codehash

import (
	iofs "io/fs"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"measuredbook/probe"
)

func TestHashFollowsSourceNotTests(t *testing.T) {
	src := fstest.MapFS{"a.go": {Data: []byte("package a")}, "a_test.go": {Data: []byte("package a // 1")}}
	p := probe.Probe{Spec: probe.Spec{Name: "a"}, Sources: []iofs.FS{src}}
	h1 := Of(p)
	src["a_test.go"] = &fstest.MapFile{Data: []byte("package a // 2")}
	if Of(p) != h1 {
		t.Error("a test file changed the code hash")
	}
	src["a.go"] = &fstest.MapFile{Data: []byte("package a; var x = 1")}
	if Of(p) == h1 {
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
		p := probe.Probe{Spec: probe.Spec{Name: "a"}, Sources: []iofs.FS{fstest.MapFS{"a.go": {Data: []byte(code)}}}}
		return Of(p)
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
		{"a metric's Resolution, added", `Optional: "when not"}`, `Optional: "when not", Resolution: 1}`},
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

// The hash counts the files that build for the platform a result was
// measured on: editing kqueue code leaves a Linux result fresh.
func TestForCountsWhatBuildsThere(t *testing.T) {
	src := fstest.MapFS{
		"a.go":         {Data: []byte("package a")},
		"a_linux.go":   {Data: []byte("package a; var epoll = 1")},
		"kq_bsd.go":    {Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 1")},
		"a_windows.go": {Data: []byte("package a; var w = 1")},
	}
	p := probe.Probe{Spec: probe.Spec{Name: "a"}, Sources: []iofs.FS{src}}
	linux, darwin, all := For(p, "linux", "amd64"), For(p, "darwin", "arm64"), For(p, "", "")
	src["kq_bsd.go"] = &fstest.MapFile{Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 2")}
	if For(p, "linux", "amd64") != linux {
		t.Error("a kqueue change made the Linux hash differ")
	}
	if For(p, "darwin", "arm64") == darwin || For(p, "", "") == all {
		t.Error("a kqueue change kept the macOS hash (or the every-file hash)")
	}
	src["a_linux.go"] = &fstest.MapFile{Data: []byte("package a; var epoll = 2")}
	if For(p, "linux", "amd64") == linux {
		t.Error("an epoll change kept the Linux hash")
	}
	if Of(p) != For(p, runtime.GOOS, runtime.GOARCH) {
		t.Error("Of is not this platform's For")
	}
}
