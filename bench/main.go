// Command bench compares this tool's build with Hugo's on synthetic books,
// and a probe child's start with a C program's.
//
//	go run ./bench                        # 4, 100 and 1,000 chapters, 5 paired runs each
//	go run ./bench --chapters 100 --runs 3
//	go run ./bench child                  # a probe child's start vs a C program's
//	go run ./bench intervals              # each headline median's 95 % interval in the book's set
//
// The books are generated from a seed, so every run builds the same bytes:
// N chapters of about 13 KB of Korean and English prose, each with one
// experiment (the stored result of readiness, copied under an id of the
// chapter's own, so nothing is measured), 3 inline values, a table, a plot
// and a Go code block; the same chapters in plain Markdown (numbers as text,
// a GFM table, no plot); and the plain chapters as a Hugo site, built with
// highlighting off and on. Each configuration is built in a fresh output
// folder, the configurations interleaved run by run, and the table gives
// medians of the build process's CPU time (user + system), its peak
// resident set and the wall time. A rebuild after editing one chapter is
// measured in a folder that keeps its output (and any cache) between
// builds, as a fraction of the full build.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"measuredbook/book"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake in the command line or a missing tool: exit 2.
type usageError string

func (e usageError) Error() string { return string(e) }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "child" {
		return runChildStart(ctx, args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "intervals" {
		return runIntervals(args[1:], stdout)
	}
	f, err := parseFlags(args, stdout)
	if f == nil || err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	set, err := bookSet(filepath.Join(root, "chapters"))
	if err != nil {
		return err
	}
	if f.work == "" {
		if f.work, err = os.MkdirTemp("", "measuredbook-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(f.work)
	}
	if f.tool == "" {
		f.tool = filepath.Join(f.work, "measuredbook")
		if err := goBuild(root, f.tool); err != nil {
			return err
		}
	}
	b := bench{tool: f.tool, hugo: f.hugo, toolFlags: f.toolFlags, coldFlags: f.coldFlags, runs: f.runs}
	hv, _ := exec.Command(f.hugo, "version").Output()
	fmt.Fprintf(stdout, "%s, %d CPUs; load average %s\n%s; this tool: %s\n", runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), loadavg(), strings.TrimSpace(string(hv)), f.tool)
	var per []result
	// Every build's output stays until all sizes are measured: on ext4
	// without a journal, creating a file within 30 s of deleting others
	// scans past every inode freed meanwhile, so removing each output as
	// soon as it was measured charged the next builds (either tool's) for
	// the benchmark's own deletions, by the number of files they create.
	var builds []string
	defer func() {
		for _, dir := range builds {
			os.RemoveAll(dir)
		}
	}()
	for _, n := range f.sizes {
		dir := filepath.Join(f.work, fmt.Sprint(n))
		if err := (synthBook{seed: f.seed, chapters: n}).write(dir, filepath.Join(root, "results"), set); err != nil {
			return err
		}
		res, err := b.size(ctx, dir, n, &builds)
		if err != nil {
			return err
		}
		res.print(stdout)
		per = append(per, res)
	}
	printMarginal(stdout, per)
	fmt.Fprintf(stdout, "\n(peak RSS: no figure reads below this benchmark's own peak, %s, which Linux counts into its children's)\n", mib(selfRSS()))
	return nil
}

// benchFlags are the comparison's command line.
type benchFlags struct {
	sizes                []int
	runs                 int
	seed                 uint64
	work, tool, hugo     string // hugo: the path of Hugo's binary, once parsed
	toolFlags, coldFlags []string
}

// parseFlags reads the comparison's flags; nil, nil after --help.
func parseFlags(args []string, stdout io.Writer) (*benchFlags, error) {
	f := &benchFlags{}
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.IntSliceVar(&f.sizes, "chapters", []int{4, 100, 1000}, "book sizes in chapters (comma-separated)")
	fs.IntVar(&f.runs, "runs", 5, "paired runs per size")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the generated text")
	fs.StringVar(&f.work, "work", "", "folder for the books and their builds, kept for a look (default: a temporary one, removed as it goes)")
	fs.StringVar(&f.tool, "tool", "", "this tool's binary (default: built from this module)")
	fs.StringVar(&f.hugo, "hugo", "hugo", "Hugo's binary")
	fs.StringArrayVar(&f.toolFlags, "tool-flag", nil, "a flag added to every build of this tool (repeatable)")
	fs.StringArrayVar(&f.coldFlags, "cold-flag", nil, "a flag added to this tool's full builds only, e.g. one that turns a render cache off (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: go run ./bench [flags]\n       go run ./bench child [flags]\n       go run ./bench intervals [--chapters DIR] [--results DIR] [--set NAME] [--top N]\n\nflags:\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil
		}
		return nil, usageError(err.Error())
	}
	if f.runs < 1 {
		return nil, usageError("--runs must be 1 or more")
	}
	slices.Sort(f.sizes)
	for _, n := range f.sizes {
		if n < 1 {
			return nil, usageError(fmt.Sprintf("--chapters %d: a book has at least one chapter", n))
		}
	}
	hugo, err := exec.LookPath(f.hugo)
	if err != nil {
		return nil, usageError(fmt.Sprintf("Hugo not found (%v): install it with `sudo apt-get install hugo` (Debian and Ubuntu; the comparison was set up with 0.111), or pass --hugo PATH", err))
	}
	f.hugo = hugo
	return f, nil
}

// bookSet is the result set the book's config in chapters names
// (machine:), whose stored results the generated chapters reuse.
func bookSet(chapters string) (string, error) {
	cfg, err := book.LoadConfig(chapters)
	if err != nil {
		return "", err
	}
	if cfg.Machine == "" {
		return "", fmt.Errorf("%s names no machine: the benchmark reuses that set's stored result of %s", filepath.Join(chapters, book.ConfigFile), template)
	}
	return cfg.Machine, nil
}

// moduleRoot is the folder of this module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v (run the benchmark with go run ./bench from the module)", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", usageError("not inside the measuredbook module: run go run ./bench from its folder")
	}
	return filepath.Dir(mod), nil
}

func goBuild(root, out string) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, b)
	}
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// bench builds one generated book in every configuration.
type bench struct {
	tool, hugo           string
	toolFlags, coldFlags []string
	runs                 int
}

// The configurations, in the order they are printed; the ratios are to
// hugoOff's.
const (
	toolDirectives = iota
	toolPlain
	hugoOff
	hugoOn
	rebuildSame
	rebuildEdited
	nConfigs
)

var configNames = [nConfigs]string{"this tool, directives", "this tool, plain Markdown", "Hugo, highlighting off", "Hugo, highlighting on",
	"rebuild, nothing changed", "rebuild, 1 chapter edited"}

// result is one size's samples, by configuration.
type result struct {
	chapters int
	runs     int
	samples  [nConfigs][]sample
}

// size measures the book in dir in every configuration. The folders of
// the full builds are added to builds, for the caller to remove.
func (b bench) size(ctx context.Context, dir string, n int, builds *[]string) (result, error) {
	sr := &sizeRun{bench: b, ctx: ctx, dir: dir, builds: builds, res: result{chapters: n, runs: b.runs}}
	for range 2 {
		if _, err := sr.rebuild(); err != nil {
			return sr.res, fmt.Errorf("%d chapters, the builds before the incremental ones: %w", n, err)
		}
	}
	start := time.Now()
	for rep := range b.runs {
		// Each run starts with another configuration, so none is always
		// the first after a pause or always follows the same one.
		for k := range nSteps {
			if err := ctx.Err(); err != nil {
				return sr.res, err
			}
			if err := sr.step((k+rep)%nSteps, rep); err != nil {
				return sr.res, err
			}
		}
		fmt.Fprintf(os.Stderr, "\r%d chapters: run %d of %d (%s)", n, rep+1, b.runs, time.Since(start).Round(time.Second))
	}
	fmt.Fprintln(os.Stderr)
	return sr.res, nil
}

// sizeRun is the measuring of one book size: its samples so far.
type sizeRun struct {
	bench
	ctx    context.Context
	dir    string
	builds *[]string
	res    result
}

// nSteps is how many steps a run takes: the four full builds, then the
// two rebuilds together.
const nSteps = 5

// step takes step k of run rep.
func (sr *sizeRun) step(k, rep int) error {
	switch k {
	case 0:
		return sr.fresh(toolDirectives, dirDirectives, sr.toolBuild)
	case 1:
		return sr.fresh(toolPlain, dirPlain, sr.toolBuild)
	case 2:
		return sr.fresh(hugoOff, dirHugo, sr.hugoBuild("hugo.toml"))
	case 3:
		return sr.fresh(hugoOn, dirHugo, sr.hugoBuild("hugo-hl.toml"))
	}
	// Build again with nothing changed, then edit one chapter (another
	// one each run) and build again.
	s, err := sr.rebuild()
	if err := sr.add(rebuildSame, s, err); err != nil {
		return err
	}
	if err := editChapter(filepath.Join(sr.dir, dirIncr), rep%sr.res.chapters+1, rep); err != nil {
		return err
	}
	s, err = sr.rebuild()
	return sr.add(rebuildEdited, s, err)
}

func (sr *sizeRun) add(i int, s sample, err error) error {
	if err != nil {
		return fmt.Errorf("%d chapters, %s: %w", sr.res.chapters, configNames[i], err)
	}
	sr.res.samples[i] = append(sr.res.samples[i], s)
	return nil
}

// fresh runs the full build of configuration i on the book's variant. It
// gets a fresh output folder, working directory and user cache folder,
// and whatever it adds to the book's folder is removed: nothing one build
// leaves (a cache, wherever a version of either tool keeps it) can help
// the next.
func (sr *sizeRun) fresh(i int, variant string, build func(src, out, cwd string) *exec.Cmd) error {
	src := filepath.Join(sr.dir, variant)
	before, err := tree(src)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(sr.dir, "build-")
	if err != nil {
		return err
	}
	*sr.builds = append(*sr.builds, tmp)
	cwd := filepath.Join(tmp, "cwd")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		return err
	}
	cmd := build(src, filepath.Join(tmp, "out"), cwd)
	cmd.Dir = cwd
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	s, err := runChild(cmd)
	if err := removeNew(src, before); err != nil {
		return err
	}
	return sr.add(i, s, err)
}

func (sr *sizeRun) toolBuild(src, out, cwd string) *exec.Cmd {
	return sr.toolCmd(sr.ctx, src, out, sr.coldFlags)
}

func (sr *sizeRun) hugoBuild(config string) func(src, out, cwd string) *exec.Cmd {
	return func(src, out, cwd string) *exec.Cmd {
		cmd := exec.CommandContext(sr.ctx, sr.hugo, "--source", src, "--config", config,
			"--destination", out, "--cacheDir", filepath.Join(cwd, "cache"), "--ignoreCache", "--quiet")
		cmd.Env = env()
		return cmd
	}
}

// rebuild builds the incremental copy of the book, which keeps its output
// (and a cache, where there is one) from build to build, as on an
// author's machine.
func (sr *sizeRun) rebuild() (sample, error) {
	incr := filepath.Join(sr.dir, dirIncr)
	cmd := sr.toolCmd(sr.ctx, incr, filepath.Join(incr, "out"), nil)
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(sr.dir, "incremental-cache"))
	return runChild(cmd)
}

// toolCmd builds the book in dir (chapters/, results/) into out. The
// environment names this machine so that it is never the book's: the
// build draws every figure from the copied set and measures nothing.
func (b bench) toolCmd(ctx context.Context, dir, out string, extra []string) *exec.Cmd {
	args := []string{"build", "--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results"), "--out", out}
	args = append(append(args, b.toolFlags...), extra...)
	cmd := exec.CommandContext(ctx, b.tool, args...)
	cmd.Env = env("MBOOK_MACHINE=benchmark-runner")
	return cmd
}

// tree lists every path under dir.
func tree(dir string) (map[string]bool, error) {
	paths := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		paths[path] = true
		return err
	})
	return paths, err
}

// removeNew removes what was added under dir since before was listed.
func removeNew(dir string, before map[string]bool) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || before[path] {
			return err
		}
		if err := os.RemoveAll(path); err != nil {
			return err
		}
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
}

// editChapter changes chapter i of the book in dir: a sentence added to
// its end, different in every run.
func editChapter(dir string, i, rep int) error {
	path := filepath.Join(dir, "chapters", slug(i)+".md")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "고친 문장 %d번입니다.\n", rep+1); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (r result) print(w io.Writer) {
	fmt.Fprintf(w, "\n%d chapters, %d paired runs; medians (CPU: user+sys of the build process)\n", r.chapters, r.runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tCPU\t×Hugo off\tCPU/chapter\tpeak RSS\twall\t")
	base := median(r.samples[hugoOff], cpu)
	full := median(r.samples[toolDirectives], cpu)
	for i, s := range r.samples {
		c := median(s, cpu)
		ratio := fmt.Sprintf("%.2f×", c.Seconds()/base.Seconds())
		if i == rebuildSame || i == rebuildEdited {
			ratio = fmt.Sprintf("%.0f%% of full", 100*c.Seconds()/full.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", configNames[i], dur(c), ratio, dur(c/time.Duration(r.chapters)), mib(median(s, rss)), dur(median(s, wall)))
	}
	tw.Flush()
}

// printMarginal prints what one more chapter costs between two sizes (the
// slope of CPU over chapters), which leaves out what a build costs
// whatever its size.
func printMarginal(w io.Writer, rs []result) {
	if len(rs) < 2 {
		return
	}
	fmt.Fprintln(w, "\nCPU per added chapter (difference of medians over difference of sizes)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for k := 1; k < len(rs); k++ {
		fmt.Fprintf(tw, "%d→%d\t", rs[k-1].chapters, rs[k].chapters)
	}
	fmt.Fprintln(tw)
	for _, i := range []int{toolDirectives, toolPlain, hugoOff, hugoOn} {
		fmt.Fprintf(tw, "%s\t", configNames[i])
		for k := 1; k < len(rs); k++ {
			a, b := rs[k-1], rs[k]
			d := median(b.samples[i], cpu) - median(a.samples[i], cpu)
			fmt.Fprintf(tw, "%s\t", dur(d/time.Duration(b.chapters-a.chapters)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
