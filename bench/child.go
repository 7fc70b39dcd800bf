package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"measuredbook/runner"
)

// runChildStart measures what starting a probe's child costs over starting
// a C program that does nothing: the runner starts one child per run, and
// each pays the Go runtime's start and the package initialisation of
// everything linked into its binary before the probe runs. Both binaries a
// run may start are measured: the probes' own (runner.ChildPackage, what
// runs start) and this whole program (what they start when that cannot be
// built).
//
// The child is started as the runner starts it (ChildVerb) but without a
// probe, so it stops where it would read its arguments: what is timed is
// exec, the runtime's start, every package's init, and exit.
func runChildStart(ctx context.Context, args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("bench child", pflag.ContinueOnError)
	n := fs.Int("n", 200, "starts of each program")
	tool := fs.String("tool", "", "this tool's binary (default: built from this module)")
	top := fs.Int("inits", 8, "how many of the costliest package inits to list (GODEBUG=inittrace=1)")
	fs.Usage = func() { fmt.Fprintf(stdout, "usage: go run ./bench child [flags]\n\nflags:\n%s", fs.FlagUsages()) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usageError(err.Error())
	}
	if *n < 1 {
		return usageError("--n must be 1 or more")
	}
	dir, err := os.MkdirTemp("", "measuredbook-child-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	progs, err := childPrograms(ctx, dir, *tool, stdout)
	if err != nil {
		return err
	}
	samples, err := starts(ctx, progs, *n)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "load average %s; %d starts of each, interleaved; medians\n", loadavg(), *n)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\twall\tover C\tCPU\tover C\t")
	cWall, cCPU := median(samples[0], wall), median(samples[0], cpu)
	for i, p := range progs {
		w, c := median(samples[i], wall), median(samples[i], cpu)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", p.name, dur(w), dur(w-cWall), dur(c), dur(c-cCPU))
	}
	tw.Flush()
	for _, p := range progs[2:] {
		inits, err := initCosts(p.argv[0], 20)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s, package inits (GODEBUG=inittrace=1, medians of 20 starts): %s in all; the costliest:\n", p.name, dur(inits.total))
		for _, in := range inits.pkgs[:min(*top, len(inits.pkgs))] {
			fmt.Fprintf(stdout, "  %9s  %s\n", dur(in.cost), in.pkg)
		}
	}
	return nil
}

// childPrograms builds, in dir, the programs whose starts are compared:
// the empty C and Go programs, then the probes' binary and this whole
// program (tool, or built from this module when "") started as children.
func childPrograms(ctx context.Context, dir, tool string, stdout io.Writer) ([]program, error) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		return nil, usageError("gcc not found: install it with `sudo apt-get install gcc` (Debian and Ubuntu)")
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	if tool == "" {
		tool = filepath.Join(dir, "measuredbook")
		if err := goBuild(root, tool); err != nil {
			return nil, err
		}
	}
	progs, err := startPrograms(dir, cc)
	if err != nil {
		return nil, err
	}
	// The probes' binary as runs start it: linked as runner.Light links it.
	light := filepath.Join(dir, "probes")
	note, err := runner.BuildChild(ctx, root, light)
	if err != nil {
		return nil, err
	}
	name := "probe child: the probes' binary"
	if note != "" {
		fmt.Fprintln(stdout, "note:", note)
		name += " (dynamic)"
	}
	return append(progs,
		program{name, []string{light, runner.ChildVerb}},
		program{"probe child: this whole program", []string{tool, runner.ChildVerb}}), nil
}

// starts starts each program n times, interleaved so that a change in the
// machine's load falls on all; samples[i] are progs[i]'s.
func starts(ctx context.Context, progs []program, n int) ([][]sample, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	samples := make([][]sample, len(progs))
	for i := range n {
		for k := range progs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			j := (k + i) % len(progs)
			s, err := start(progs[j].argv, null)
			if err != nil {
				return nil, err
			}
			samples[j] = append(samples[j], s)
		}
	}
	return samples, nil
}

// program is one program to start: a name and its command line.
type program struct {
	name string
	argv []string
}

// startPrograms compiles the programs the child is compared with: a C
// program and a Go program that do nothing (the floor of a Go process).
func startPrograms(dir, cc string) ([]program, error) {
	c := filepath.Join(dir, "noop.c")
	if err := os.WriteFile(c, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		return nil, err
	}
	if b, err := exec.Command(cc, "-O2", "-o", filepath.Join(dir, "noop-c"), c).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("gcc: %v\n%s", err, b)
	}
	gosrc := filepath.Join(dir, "noop-go")
	if err := writeFile(filepath.Join(gosrc, "go.mod"), "module noop\n"); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(gosrc, "main.go"), "package main\n\nfunc main() {}\n"); err != nil {
		return nil, err
	}
	if err := goBuild(gosrc, filepath.Join(dir, "noop-go-bin")); err != nil {
		return nil, err
	}
	return []program{
		{"C program, empty main", []string{filepath.Join(dir, "noop-c")}},
		{"Go program, empty main", []string{filepath.Join(dir, "noop-go-bin")}},
	}, nil
}

// start runs argv once; its exit status is not looked at (the child
// started without a probe exits 2, after its start is over).
func start(argv []string, null *os.File) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = null, null
	t := time.Now()
	err := cmd.Run()
	w := time.Since(t)
	if _, exit := errors.AsType[*exec.ExitError](err); err != nil && !exit {
		return sample{}, err
	}
	return sample{CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), Wall: w}, nil
}

type initCost struct {
	pkg  string
	cost time.Duration
}

type inits struct {
	total time.Duration
	pkgs  []initCost // costliest first
}

// initCosts starts the child n times with GODEBUG=inittrace=1 and returns
// the median clock time of every package's init and of their sum.
func initCosts(tool string, n int) (inits, error) {
	per := map[string][]time.Duration{}
	var totals []time.Duration
	for range n {
		cmd := exec.Command(tool, runner.ChildVerb)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run() // exits 2: no probe named
		var total time.Duration
		for line := range strings.Lines(stderr.String()) {
			// init PKG @T ms, C ms clock, B bytes, A allocs
			f := strings.Fields(line)
			if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
				continue
			}
			ms, err := strconv.ParseFloat(f[4], 64)
			if err != nil {
				continue
			}
			d := time.Duration(ms * float64(time.Millisecond))
			per[f[1]] = append(per[f[1]], d)
			total += d
		}
		totals = append(totals, total)
	}
	if len(per) == 0 {
		return inits{}, fmt.Errorf("%s %s with GODEBUG=inittrace=1 printed no init lines", tool, runner.ChildVerb)
	}
	med := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[(len(d)-1)/2]
	}
	out := inits{total: med(totals)}
	for pkg, d := range per {
		out.pkgs = append(out.pkgs, initCost{pkg, med(d)})
	}
	slices.SortFunc(out.pkgs, func(a, b initCost) int {
		return cmp.Or(cmp.Compare(b.cost, a.cost), strings.Compare(a.pkg, b.pkg))
	})
	return out, nil
}
