package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"measuredbook/probe"
)

// A run's child pays, before its probe starts, the Go runtime's start and
// the init of every package linked into its binary. The book's own binary
// links the whole generator (goldmark, chroma's lexers and styles, gonum's
// plot, YAML), whose package-level work costs tens of milliseconds and
// several MiB of heap in every child; a binary of the probes alone starts
// within 2 ms of a C program (go run ./bench child measures both). Light builds that binary (ChildPackage, with
// the go command, from this module's source) when the first run starts, and
// runs every child from it. Where it cannot be built, or it would not run
// the very probes this binary hashes, the runs start this binary again, as
// before, and one line says why.

// ChildPackage is the probes' own binary: the registry and the child entry
// point, nothing of the generator.
const ChildPackage = "measuredbook/probes/child"

// identifyArg, as the only argument after ChildVerb, makes Child print its
// identity instead of running a probe.
const identifyArg = "--identify"

// Light returns a runner whose runs start a binary of the probes alone,
// built on the first run; all is the registry that binary must hold (the
// same probes, with the same code hashes), and log gets the one line that
// says why the runs start this binary instead, when they do. Close removes
// the built binary.
func Light(all []probe.Probe, log io.Writer) (*Runner, error) {
	r, err := New()
	if err != nil {
		return nil, err
	}
	r.light = &light{all: all, log: log}
	return r, nil
}

// light is a Runner's binary of the probes alone, built once.
type light struct {
	all  []probe.Probe
	log  io.Writer
	once sync.Once
	dir  string // the temporary folder holding it
}

// exe is the binary a run starts: the light one once it is built, else Exe.
func (r *Runner) exe(ctx context.Context) string {
	if r.light == nil {
		return r.Exe
	}
	r.light.once.Do(func() {
		exe, err := r.light.build(ctx)
		switch {
		case err == nil:
			r.Exe = exe
		case ctx.Err() == nil: // (interrupted, the run itself says so)
			fmt.Fprintf(r.light.log, "note: each probe run starts this whole program again, which initialises the generator's packages before every run: %v\n", err)
		}
	})
	return r.Exe
}

// Close removes the binary Light built, if it did.
func (r *Runner) Close() error {
	if r.light == nil || r.light.dir == "" {
		return nil
	}
	return os.RemoveAll(r.light.dir)
}

// build builds ChildPackage from the source this package was compiled
// from and checks that it is the same program as far as a run can tell.
func (l *light) build(ctx context.Context) (string, error) {
	// The source folder, as the compiler saw it: absolute unless the
	// binary was built with -trimpath.
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	if !filepath.IsAbs(file) {
		return "", fmt.Errorf("this program was built without its source paths (-trimpath), so %s cannot be built from its source", ChildPackage)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("the source it was built from is not at %s any more", root)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build %s with: %v", ChildPackage, err)
	}
	dir, err := os.MkdirTemp("", "measuredbook-probes-")
	if err != nil {
		return "", err
	}
	l.dir = dir
	exe := filepath.Join(dir, "probes")
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", exe, ChildPackage)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", ChildPackage, err, bytes.TrimSpace(out))
	}
	var stderr bytes.Buffer
	cmd = exec.CommandContext(ctx, exe, ChildVerb, identifyArg)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s %s: %v: %s", exe, ChildVerb, identifyArg, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var got identity
	if err := json.Unmarshal(out, &got); err != nil {
		return "", fmt.Errorf("%s %s %s printed no identity: %v", exe, ChildVerb, identifyArg, err)
	}
	if why := identify(l.all).differs(got); why != "" {
		return "", fmt.Errorf("the probes built from %s are not the ones this program was built with (%s); rebuild it (go run . or go build)", root, why)
	}
	return exe, nil
}

// identity is what decides whether two binaries run the same
// measurements: the Go release, the versions of the modules each links,
// and every probe's code hash.
type identity struct {
	Go     string            `json:"go"`
	Deps   map[string]string `json:"deps"`
	Probes map[string]string `json:"probes"`
}

func identify(all []probe.Probe) identity {
	id := identity{Go: runtime.Version(), Deps: map[string]string{}, Probes: map[string]string{}}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			id.Deps[d.Path] = d.Version
		}
	}
	for _, p := range all {
		id.Probes[p.Name] = p.Hash()
	}
	return id
}

// differs says how the light binary's identity (child) differs from this
// one's: the child links fewer modules, each of which must be the same
// version here. (A test binary records no modules: then only the Go
// release and the probes are compared.)
func (id identity) differs(child identity) string {
	var why []string
	if id.Go != child.Go {
		why = append(why, fmt.Sprintf("Go %s, not %s", child.Go, id.Go))
	}
	for _, path := range slices.Sorted(maps.Keys(child.Deps)) {
		if v, ok := id.Deps[path]; len(id.Deps) > 0 && (!ok || v != child.Deps[path]) {
			why = append(why, fmt.Sprintf("%s %s, not %q", path, child.Deps[path], v))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(id.Probes)) {
		switch h, ok := child.Probes[name]; {
		case !ok:
			why = append(why, "no probe "+name)
		case h != id.Probes[name]:
			why = append(why, fmt.Sprintf("probe %s's code %.8s, not %.8s", name, h, id.Probes[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(child.Probes)) {
		if _, ok := id.Probes[name]; !ok {
			why = append(why, "an extra probe "+name)
		}
	}
	return strings.Join(why, "; ")
}
