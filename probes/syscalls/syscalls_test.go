package syscalls

import (
	"context"
	"runtime"
	"testing"

	"measuredbook/probe"
)

func TestOverhead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	p := Probes()[0]
	params, err := p.Resolve(map[string]string{"calls": "20000"})
	if err != nil {
		t.Fatal(err)
	}
	// The vDSO never enters the kernel, so it beats any system call by
	// several times. Each figure is a loop timed on the wall clock, which a
	// loaded machine stretches by whole time slices (a 0.6 ms loop of vDSO
	// reads came out at 400 ns a call), so the best of up to ten runs of
	// each is compared, stopping as soon as the order shows.
	syscalls := []string{"syscall", "rawsyscall", "clock_syscall", "read_eagain", "read_eagain_go"}
	best := probe.Values{}
	ordered := func() bool {
		for _, sys := range syscalls {
			if best["vdso"] >= best[sys] {
				return false
			}
		}
		return true
	}
	for attempt := 1; attempt <= 10; attempt++ {
		v, err := p.Run(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: %v", p.Name, params.Key(), v)
		if err := p.CheckValues(v); err != nil {
			t.Error(err)
		}
		for _, m := range p.Metrics {
			if b, ok := best[m.Name]; !ok || v[m.Name] < b {
				best[m.Name] = v[m.Name]
			}
		}
		if attempt >= 3 && ordered() {
			break
		}
	}
	for _, m := range p.Metrics {
		if !(best[m.Name] > 0 && best[m.Name] < 100e-6) {
			t.Errorf("%s = %g s (best of the runs), want 0 < x < 100 µs", m.Name, best[m.Name])
		}
	}
	for _, sys := range syscalls {
		if best["vdso"] >= best[sys] {
			t.Errorf("vdso %g s is not below %s %g s (best of ten runs)", best["vdso"], sys, best[sys])
		}
	}
}
