package probes

import (
	"strings"
	"testing"

	"measuredbook/probe"
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
