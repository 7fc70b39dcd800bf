// Package probetest runs a probe in-process for the probe packages' own
// tests, with the checks every such test wants: the params resolve, the
// run succeeds, and the declared metrics come back (an Optional one may
// be absent) and no others.
package probetest

import (
	"context"
	"testing"

	"measuredbook/probe"
)

// Run finds probe name in all, runs it once with the given params (defaults
// for the rest) and returns its values; it fails the test otherwise.
func Run(t testing.TB, all []probe.Probe, name string, given map[string]string) probe.Values {
	t.Helper()
	for _, p := range all {
		if p.Name != name {
			continue
		}
		params, err := p.Resolve(given)
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Run(context.Background(), params)
		if err != nil {
			t.Fatalf("%s [%s]: %v", name, params.Key(), err)
		}
		if err := p.CheckValues(v); err != nil {
			t.Error(err)
		}
		t.Logf("%s [%s]: %v", name, params.Key(), v)
		return v
	}
	t.Fatalf("no probe %s", name)
	return nil
}
