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
	// several times; a loaded machine can stretch one loop of one run, so
	// the best of three runs of each is compared.
	best := probe.Values{}
	for range 3 {
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
	}
	for _, m := range p.Metrics {
		if !(best[m.Name] > 0 && best[m.Name] < 100e-6) {
			t.Errorf("%s = %g s (best of 3), want 0 < x < 100 µs", m.Name, best[m.Name])
		}
	}
	for _, sys := range []string{"syscall", "rawsyscall", "clock_syscall", "read_eagain", "read_eagain_go"} {
		if best["vdso"] >= best[sys] {
			t.Errorf("vdso %g s is not below %s %g s (best of 3)", best["vdso"], sys, best[sys])
		}
	}
}
