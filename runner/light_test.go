package runner

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"measuredbook/probe"
	"measuredbook/probes"
)

// The probes' own binary is built and runs a real probe; the program that
// asked for it is not the one that ran.
func TestLightRunsProbesInTheirOwnBinary(t *testing.T) {
	var log bytes.Buffer
	r, err := Light(probes.All(), &log)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, ok := probe.Lookup(probes.All(), "syscall.overhead")
	if !ok {
		t.Fatal("no probe syscall.overhead")
	}
	params, err := p.Resolve(map[string]string{"calls": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Run(context.Background(), p, params)
	if err != nil {
		t.Fatalf("%v (said %q)", err, &log)
	}
	if v["rawsyscall"] <= 0 {
		t.Errorf("values %v", v)
	}
	self, _ := os.Executable()
	if r.Exe == self || log.Len() > 0 {
		t.Errorf("the run started %s (this test is %s); said %q", r.Exe, self, &log)
	}
	dir := r.light.dir
	r.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left %s (%v)", dir, err)
	}
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
	if msg := log.String(); !strings.Contains(msg, "probe "+all[0].Name+"'s code") || strings.Count(msg, "\n") != 1 {
		t.Errorf("said %q", msg)
	}
}
