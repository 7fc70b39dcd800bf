package runner

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"measuredbook/probe"
	"measuredbook/probes"
)

// The probes' own binary is built and runs a real probe; the program that
// asked for it is not the one that ran.
func TestLightRunsProbesInTheirOwnBinary(t *testing.T) {
	r, log := lightRunner(t)
	v := runProbe(t, r, log, "syscall.overhead", map[string]string{"calls": "1000"})
	if v["rawsyscall"] <= 0 {
		t.Errorf("values %v", v)
	}
	self, _ := os.Executable()
	if r.Exe == self || log.Len() > 0 {
		t.Errorf("the run started %s (this test is %s); said %q", r.Exe, self, log)
	}
	dir := r.light.dir
	r.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left %s (%v)", dir, err)
	}
}

// lightRunner is Light with the real probes, closed when the test ends, and
// what it says.
func lightRunner(t *testing.T) (*Runner, *bytes.Buffer) {
	t.Helper()
	log := &bytes.Buffer{}
	r, err := Light(probes.All(), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, log
}

// runProbe runs the real probe name with params through r, failing the
// test (with what r said in log) if it cannot.
func runProbe(t *testing.T, r *Runner, log *bytes.Buffer, name string, params map[string]string) probe.Values {
	t.Helper()
	p, ok := probe.Lookup(probes.All(), name)
	if !ok {
		t.Fatalf("no probe %s", name)
	}
	resolved, err := p.Resolve(params)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Run(context.Background(), p, resolved)
	if err != nil {
		t.Fatalf("%v (said %q)", err, log)
	}
	return v
}

// A binary whose probes are not the registry's (here: a registry whose
// probe hashes differently) is not used: the runs start this binary, and
// one line says why.
func TestLightFallsBackWhenTheProbesDiffer(t *testing.T) {
	all := probes.All()
	all[0].Sources = nil
	var log bytes.Buffer
	r, err := Light(all, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Timeout = 2e9
	v, err := r.Run(context.Background(), fakes[0], probe.Params{"n": "3"})
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	if v["n"] != 3 || r.Exe != self {
		t.Errorf("ran %s with values %v, want this test binary", r.Exe, v)
	}
	if msg := log.String(); !strings.Contains(msg, "probe "+all[0].Name+"'s source") || strings.Count(msg, "\n") != 1 {
		t.Errorf("said %q", msg)
	}
}

// Where the go command has cgo and the C compiler a static C library, the
// probes' binary is linked statically (no PT_INTERP: nothing runs before
// the Go runtime), and its threads are pthreads all the same.
func TestLightLinksTheProbesStatically(t *testing.T) {
	if why := noStaticLink(t); why != "" {
		t.Skip(why)
	}
	r, log := lightRunner(t)
	v := runProbe(t, r, log, "threads.idle_rss", map[string]string{"threads": "8"})
	if log.Len() > 0 {
		t.Errorf("said %q", log)
	}
	if linkedDynamically(t, r.Exe) {
		t.Errorf("%s is dynamically linked, want a static link", r.Exe)
	}
	if v["pthreads"] != 1 {
		t.Errorf("threads.idle_rss in the static binary: pthreads %v, want 1 (values %v)", v["pthreads"], v)
	}
}

// A static link that fails (here: a library that does not exist, as a
// missing libc.a fails) leaves a dynamically linked binary of the probes
// that the runs still start, and one line that says why and what to install.
func TestLightLinksDynamicallyWhenTheStaticLinkFails(t *testing.T) {
	if why := noStaticLink(t); why != "" {
		t.Skip(why)
	}
	r, log := lightRunner(t)
	r.light.static = []string{`-ldflags=-linkmode=external "-extldflags=-static -lmeasuredbook-none"`}
	runProbe(t, r, log, "syscall.overhead", map[string]string{"calls": "1000"})
	self, _ := os.Executable()
	if r.Exe == self {
		t.Fatalf("the run started this test binary; said %q", log)
	}
	if !linkedDynamically(t, r.Exe) {
		t.Errorf("%s is not dynamically linked", r.Exe)
	}
	msg := log.String()
	for _, want := range []string{"linked dynamically", "cannot find -lmeasuredbook-none", "libc6-dev"} {
		if !strings.Contains(msg, want) {
			t.Errorf("said %q, want it to say %q", msg, want)
		}
	}
	if strings.Count(msg, "\n") != 1 {
		t.Errorf("said %d lines, want 1: %q", strings.Count(msg, "\n"), msg)
	}
}

// linkedDynamically reports whether exe has a PT_INTERP program header.
func linkedDynamically(t *testing.T, exe string) bool {
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
}

// noStaticLink says why the probes' binary cannot be linked statically
// here, or "": not on Linux, cgo off, or no static C library.
func noStaticLink(t *testing.T) string {
	if runtime.GOOS != "linux" {
		return "the probes' binary is linked statically on Linux only"
	}
	out, err := exec.Command("go", "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	env := strings.Split(string(out), "\n")
	if env[0] != "1" {
		return "cgo is off (CGO_ENABLED=" + env[0] + ")"
	}
	cc := strings.Fields(env[1])
	out, err = exec.Command(cc[0], append(cc[1:], "-print-file-name=libc.a")...).Output()
	libc := strings.TrimSpace(string(out))
	if _, serr := os.Stat(libc); err != nil || !filepath.IsAbs(libc) || serr != nil {
		return fmt.Sprintf("%s finds no static C library (libc.a): %v %s", env[1], err, libc)
	}
	return ""
}

// The probes' binary links none of the go/... packages the code hash needs
// (package codehash): their package initialisation would precede every run.
func TestTheProbesBinaryLinksNoSourceParser(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ChildPackage).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", ChildPackage, err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "go/") || pkg == "measuredbook/probe/codehash" {
			t.Errorf("%s links %s", ChildPackage, pkg)
		}
	}
}
