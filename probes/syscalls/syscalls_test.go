package syscalls

import (
	"context"
	"runtime"
	"testing"
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
	v, err := p.Run(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s: %v", p.Name, params.Key(), v)
	if len(v) != len(p.Metrics) {
		t.Errorf("%d values for %d metrics", len(v), len(p.Metrics))
	}
	for _, m := range p.Metrics {
		if !(v[m.Name] > 0 && v[m.Name] < 100e-6) {
			t.Errorf("%s = %g s, want 0 < x < 100 µs", m.Name, v[m.Name])
		}
	}
	// The vDSO never enters the kernel: it must beat any system call.
	if v["vdso"] >= v["syscall"] || v["vdso"] >= v["rawsyscall"] || v["vdso"] >= v["clock_syscall"] {
		t.Errorf("vdso %g s is not below the system calls %v", v["vdso"], v)
	}
}
