package probes

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"measuredbook/probe"
	"measuredbook/probe/codehash"
)

// Every probe must describe itself completely: the book's readers see
// these docs (go run . probes) and the defaults are the book's values.
func TestRegistryIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range All() {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("probe name %q empty or listed twice", p.Name)
		}
		seen[p.Name] = true
		if len(p.Doc) < 80 {
			t.Errorf("%s: Doc too short to reproduce the method (%d chars)", p.Name, len(p.Doc))
		}
		if p.Run == nil || len(p.Sources) == 0 {
			t.Errorf("%s: no Run or no Sources for the code hash", p.Name)
		}
		if len(p.Metrics) == 0 {
			t.Errorf("%s: no metrics", p.Name)
		}
		for _, prm := range p.Params {
			if prm.Doc == "" {
				t.Errorf("%s: param %s has no doc", p.Name, prm.Name)
			}
			if _, err := probe.Canonical(prm, prm.Default); err != nil {
				t.Errorf("%s: default of %s: %v", p.Name, prm.Name, err)
			}
		}
		for _, m := range p.Metrics {
			if m.Doc == "" || strings.ContainsAny(m.Name, " /=") {
				t.Errorf("%s: metric %q needs a doc and a name usable as a benchmark unit", p.Name, m.Name)
			}
			switch m.Unit {
			case probe.Seconds, probe.Bytes, probe.Count:
			default:
				t.Errorf("%s: metric %s has unit %q", p.Name, m.Name, m.Unit)
			}
		}
	}
	for _, name := range []string{"readiness", "readiness.edge", "readiness.regular_file", "threads.ceiling",
		"threads.idle_rss", "threads.handoff", "goroutines.idle_rss", "goroutines.handoff", "blocking.ready",
		"blocking.empty", "blocking.wake", "nonblocking.eagain", "nonblocking.busy_vs_block",
		"nonblocking.breakeven", "nonblocking.sndbuf", "syscall.overhead"} {
		if !seen[name] {
			t.Errorf("probe %s is not registered", name)
		}
	}
}

// A probe's code hash follows what runs, not its words: every probe's real
// source with a comment added to each file, every Doc text changed and the
// shared method texts its Docs are built from changed hashes the same; a
// new variable does not.
func TestHashIgnoresRealDocs(t *testing.T) {
	edit := func(p probe.Probe, f func(string) string) probe.Probe {
		var srcs []fs.FS
		for _, src := range p.Sources {
			m := fstest.MapFS{}
			fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := fs.ReadFile(src, path)
					m[path] = &fstest.MapFile{Data: []byte(f(string(b)))}
				}
				return nil
			})
			srcs = append(srcs, m)
		}
		p.Sources = srcs
		return p
	}
	words := strings.NewReplacer("Doc: `", "Doc: `Reworded. ", `Doc: "`, `Doc: "Reworded. `,
		"Method = `", "Method = `Reworded. ")
	for _, p := range All() {
		h := codehash.Of(p)
		reworded := edit(p, func(src string) string { return words.Replace(src) + "\n// A comment.\n" })
		if got := codehash.Of(reworded); got != h {
			t.Errorf("%s: rewording its docs and comments changed the code hash", p.Name)
		}
		changed := edit(p, func(src string) string { return src + "\nvar unusedForTheTest = 1\n" })
		if got := codehash.Of(changed); got == h {
			t.Errorf("%s: a new variable kept the code hash", p.Name)
		}
	}
}
