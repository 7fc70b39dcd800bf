package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"measuredbook/probe"
)

// A run's child pays, before its probe starts, the Go runtime's start and
// the init of every package linked into its binary. The book's own binary
// links the whole generator (goldmark, chroma's lexers, gonum's
// plot, YAML), whose package-level work costs tens of milliseconds and
// several MiB of heap in every child; a binary of the probes alone, linked
// statically, starts within 2 ms of a C program (go run ./bench child
// measures both). Light builds that binary (ChildPackage, with the go
// command, from this module's source) when the first run starts, and runs
// every child from it. Where it cannot be built, or it would not run the
// very probes this binary holds, the runs start this binary again, as
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
	r.light = &light{all: all, log: log, static: staticLink}
	return r, nil
}

// light is a Runner's binary of the probes alone, built once.
type light struct {
	all    []probe.Probe
	log    io.Writer
	static []string // the go build flags of its static link (staticLink)
	once   sync.Once
	dir    string // the temporary folder holding it
}

// exe is the binary a run starts: the light one once it is built, else Exe.
func (r *Runner) exe(ctx context.Context) string {
	if r.light == nil {
		return r.Exe
	}
	r.light.once.Do(func() {
		exe, note, err := r.light.build(ctx)
		switch {
		case err == nil:
			r.Exe = exe
			if note != "" {
				fmt.Fprintln(r.light.log, "note: "+note)
			}
		case ctx.Err() == nil: // (interrupted, the run itself says so)
			fmt.Fprintf(r.light.log, "note: each probe run starts this whole program again, which initialises the generator's packages before every run: %v\n", err)
		}
	})
	return r.Exe
}

// Close removes the binary Light built, if it did; a nil Runner has none.
func (r *Runner) Close() error {
	if r == nil || r.light == nil || r.light.dir == "" {
		return nil
	}
	return os.RemoveAll(r.light.dir)
}

// build builds ChildPackage from the source this package was compiled
// from and checks that it is the same program as far as a run can tell;
// note is buildChild's.
func (l *light) build(ctx context.Context) (exe, note string, err error) {
	// The source folder, as the compiler saw it: absolute unless the
	// binary was built with -trimpath.
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	if !filepath.IsAbs(file) {
		return "", "", fmt.Errorf("this program was built without its source paths (-trimpath), so %s cannot be built from its source", ChildPackage)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", "", fmt.Errorf("the source it was built from is not at %s any more", root)
	}
	removeStale(os.TempDir())
	dir, err := os.MkdirTemp("", probesDir+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", "", err
	}
	l.dir = dir
	exe = filepath.Join(dir, "probes")
	if note, err = buildChild(ctx, root, exe, l.static); err != nil {
		return "", "", err
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, exe, ChildVerb, identifyArg)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("%s %s %s: %v: %s", exe, ChildVerb, identifyArg, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var got identity
	if err := json.Unmarshal(out, &got); err != nil {
		return "", "", fmt.Errorf("%s %s %s printed no identity: %v", exe, ChildVerb, identifyArg, err)
	}
	if why := identify(l.all).differs(got); why != "" {
		return "", "", fmt.Errorf("the probes built from %s are not the ones this program was built with (%s); rebuild it (go run . or go build)", root, why)
	}
	return exe, note, nil
}

// probesDir starts the name of the temporary folder of the probes'
// binary, then the builder's process id.
const probesDir = "measuredbook-probes-"

// removeStale removes the probes' folders in tmp whose process is gone: a
// process killed (SIGKILL) cannot remove its own, and each holds a binary
// of several MB. A folder of a process that is alive, or not ours to
// signal, is left.
func removeStale(tmp string) {
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), probesDir)
		pid, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && n > 0 && syscall.Kill(n, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// staticLink is what the go command is given to link the probes' binary
// statically. A dynamically linked child waits for ld.so to load and
// relocate libc before the Go runtime starts: about a fifth of what its
// start cost over a C program's (go run ./bench child). Its threads stay
// pthreads: runtime/cgo is linked all the same, with glibc's static
// libpthread. The tags keep the net and os/user packages, should a probe
// ever link them, from calling glibc's name services, which a static
// binary can only reach by loading shared libraries after all.
var staticLink = []string{"-tags=netgo,osusergo", "-ldflags=-linkmode=external -extldflags=-static"}

// BuildChild builds ChildPackage from the module at root into exe as Light
// builds it: on Linux, linked statically (staticLink) and, where that link
// fails (no static C library), dynamically, and then note says so in one
// sentence with what to install; elsewhere as go build links it.
func BuildChild(ctx context.Context, root, exe string) (note string, err error) {
	return buildChild(ctx, root, exe, staticLink)
}

// buildChild is BuildChild with the flags of the static link given.
func buildChild(ctx context.Context, root, exe string, static []string) (note string, err error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build %s with: %v", ChildPackage, err)
	}
	goRun := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir = root
		return cmd.CombinedOutput()
	}
	build := func(flags ...string) ([]byte, error) {
		return goRun(append(append([]string{"build", "-o", exe}, flags...), ChildPackage)...)
	}
	plain := func() error {
		if out, err := build(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", ChildPackage, err, bytes.TrimSpace(out))
		}
		return nil
	}
	// With cgo off (CGO_ENABLED=0) the go command cannot link externally,
	// and needs not: its own link is static.
	if cgo, err := goRun("env", "CGO_ENABLED"); runtime.GOOS != "linux" || err != nil || strings.TrimSpace(string(cgo)) != "1" {
		return "", plain()
	}
	out, err := build(static...)
	if err == nil || ctx.Err() != nil {
		return "", err
	}
	failed := linkError(out, err)
	if err := plain(); err != nil {
		return "", err
	}
	return fmt.Sprintf("the probes' binary is linked dynamically, so every run's child waits for the dynamic loader before it starts (its static link failed: %s); install the static C library (libc6-dev on Debian and Ubuntu, glibc-static on Fedora) to link it statically", failed), nil
}

// linkError is the line of a failed go build's output that says why (the
// linker's last words, not the command line the go command echoes).
func linkError(out []byte, err error) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "collect2:") && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return err.Error()
}

// identity is what decides whether two binaries run the same
// measurements: the Go release, the versions of the modules each links,
// and every probe's source (sourceDigest).
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
		id.Probes[p.Name] = sourceDigest(p)
	}
	return id
}

// sourceDigest is a hex SHA-256 of the name and bytes of every file of
// p's Sources: the source a binary holds the probe from. Equal bytes are
// equal code (a stricter test than the probe's code hash, which a comment
// leaves alone), and it needs no go/parser or go/build, which the probes'
// binary does not link (see package codehash).
func sourceDigest(p probe.Probe) string {
	h := sha256.New()
	h.Write([]byte(p.Name))
	for _, src := range p.Sources {
		h.Write([]byte{1})
		fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				return nil
			}
			var b []byte
			if err == nil {
				b, err = fs.ReadFile(src, path)
			}
			if err != nil {
				b = []byte(err.Error())
			}
			fmt.Fprintf(h, "\x00%s\x00%d\x00", path, len(b))
			h.Write(b)
			return nil
		})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
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
			why = append(why, fmt.Sprintf("probe %s's source %.8s, not %.8s", name, h, id.Probes[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(child.Probes)) {
		if _, ok := id.Probes[name]; !ok {
			why = append(why, "an extra probe "+name)
		}
	}
	return strings.Join(why, "; ")
}
