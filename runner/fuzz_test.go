package runner

import (
	"math"
	"testing"

	"measuredbook/probe"
)

// FuzzDecode feeds the parent's side of the child protocol arbitrary
// bytes: it never panics, and what it accepts is a complete, finite set of
// the probe's declared metrics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"values":{"x":1,"y":2.5}}`,
		`{"values":{"x":1}}`,
		`{"error":"cannot raise RLIMIT_NOFILE"}`,
		`{"values":{"x":1e309}}`,
		`{"values":{"x":1}}{"values":{"x":2}}`,
		`{"values":{"x":"NaN"}}`,
		``, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	p := probe.Probe{Spec: probe.Spec{Name: "f", Metrics: []probe.Metric{
		{Name: "x", Unit: probe.Count}, {Name: "y", Unit: probe.Seconds, Optional: "sometimes"}}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := decode(p, data)
		if err != nil {
			return
		}
		v := out.Values
		if _, ok := v["x"]; !ok {
			t.Fatalf("accepted %q without metric x", data)
		}
		for k, x := range v {
			if _, ok := p.Metric(k); !ok {
				t.Fatalf("accepted undeclared metric %q", k)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("accepted %v for %s", x, k)
			}
		}
	})
}
