// Command bench compares this tool's build with Hugo's on synthetic books,
// and a probe child's start with a C program's.
//
//	go run ./bench                        # 4, 100 and 1,000 chapters, 5 paired runs each
//	go run ./bench --chapters 100 --runs 3
//	go run ./bench child                  # a probe child's start vs a C program's
//	go run ./bench intervals              # each headline median's 95 % interval in the book's set
//	go run ./bench gen --chapters 10000 DIR  # only write the books, to time a build by hand
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
		if _, ok := errors.AsType[usageError](err); ok {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake in the command line or a missing tool: exit 2.
type usageError string

func (e usageError) Error() string { return string(e) }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "child":
			return runChildStart(ctx, args[1:], stdout)
		case "intervals":
			return runIntervals(args[1:], stdout)
		case "gen":
			return runGen(args[1:], stdout)
		}
	}
	o, err := parseOptions(args, stdout)
	if err != nil || o == nil {
		return err
	}
	if o.hugo, err = exec.LookPath(o.hugo); err != nil {
		return usageError(fmt.Sprintf("Hugo not found (%v): install it with `sudo apt-get install hugo` (Debian and Ubuntu; the comparison was set up with 0.111), or pass --hugo PATH", err))
	}
	root, set, err := moduleBook()
	if err != nil {
		return err
	}
	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "measuredbook-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(o.work)
	}
	if o.tool == "" {
		o.tool = filepath.Join(o.work, "measuredbook")
		if err := goBuild(root, o.tool); err != nil {
			return err
		}
	}
	hv, _ := exec.Command(o.hugo, "version").Output()
	fmt.Fprintf(stdout, "%s, %d CPUs; load average %s\n%s; this tool: %s\n", runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), loadavg(), strings.TrimSpace(string(hv)), o.tool)
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
	for _, n := range o.sizes {
		dir := filepath.Join(o.work, fmt.Sprint(n))
		if err := (synthBook{seed: o.seed, chapters: n}).write(dir, filepath.Join(root, "results"), set); err != nil {
			return err
		}
		res, err := o.size(ctx, dir, n, &builds)
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

// options are the comparison's flags, hugo found on the PATH once run
// starts: how it builds a generated book in every configuration.
type options struct {
	sizes                []int
	runs                 int
	seed                 uint64
	work, tool, hugo     string
	toolFlags, coldFlags []string
}

// parseOptions reads the comparison's flags, sizes sorted; nil options
// and no error when --help printed the usage.
func parseOptions(args []string, stdout io.Writer) (*options, error) {
	var o options
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.IntSliceVar(&o.sizes, "chapters", []int{4, 100, 1000}, "book sizes in chapters (comma-separated)")
	fs.IntVar(&o.runs, "runs", 5, "paired runs per size")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the generated text")
	fs.StringVar(&o.work, "work", "", "folder for the books and their builds, kept for a look (default: a temporary one, removed as it goes)")
	fs.StringVar(&o.tool, "tool", "", "this tool's binary (default: built from this module)")
	fs.StringVar(&o.hugo, "hugo", "hugo", "Hugo's binary")
	fs.StringArrayVar(&o.toolFlags, "tool-flag", nil, "a flag added to every build of this tool (repeatable)")
	fs.StringArrayVar(&o.coldFlags, "cold-flag", nil, "a flag added to this tool's full builds only, e.g. one that turns a render cache off (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: go run ./bench [flags]\n       go run ./bench child [flags]\n       go run ./bench gen [--chapters N] [--seed N] DIR\n       go run ./bench intervals [--chapters DIR] [--results DIR] [--set NAME] [--top N]\n\nflags:\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil
		}
		return nil, usageError(err.Error())
	}
	if o.runs < 1 {
		return nil, usageError("--runs must be 1 or more")
	}
	slices.Sort(o.sizes)
	if len(o.sizes) > 0 && o.sizes[0] < 1 {
		return nil, usageError(fmt.Sprintf("--chapters %d: a book has at least one chapter", o.sizes[0]))
	}
	return &o, nil
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

// moduleBook is this module's folder and the result set its book names.
func moduleBook() (root, set string, err error) {
	if root, err = moduleRoot(); err == nil {
		set, err = bookSet(filepath.Join(root, "chapters"))
	}
	return root, set, err
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
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// The configurations, in the order they are printed; the ratios are to
// hugoMinimal's (baseof, single, list: no sidebar, highlighting off) and
// to hugoOff's (every chapter in a sidebar on every page, as this tool's
// pages show them).
const (
	toolDirectives = iota
	toolPlain
	hugoMinimal
	hugoOff
	hugoOn
	rebuildSame
	rebuildEdited
	nConfigs
)

var configNames = [nConfigs]string{"this tool, directives", "this tool, plain Markdown", "Hugo minimal (no sidebar, no highlighting)",
	"Hugo, sidebar, highlighting off", "Hugo, sidebar, highlighting on", "rebuild, nothing changed", "rebuild, 1 chapter edited"}

// result is one size's samples, by configuration.
type result struct {
	chapters int
	runs     int
	markdown int64 // bytes of the directives variant's chapters
	samples  [nConfigs][]sample
}

// size measures the book in dir in every configuration. The folders of
// the full builds are added to builds, for the caller to remove.
func (o *options) size(ctx context.Context, dir string, n int, builds *[]string) (result, error) {
	m := &sizeRun{options: o, ctx: ctx, dir: dir, incr: filepath.Join(dir, dirIncr), builds: builds}
	m.res = result{chapters: n, runs: o.runs}
	var err error
	if m.res.markdown, err = treeSize(filepath.Join(dir, dirDirectives, "chapters")); err != nil {
		return m.res, err
	}
	for range 2 {
		if _, err := m.rebuild(); err != nil {
			return m.res, fmt.Errorf("%d chapters, the builds before the incremental ones: %w", n, err)
		}
	}
	steps := m.steps()
	start := time.Now()
	for rep := range o.runs {
		// Each run starts with another configuration, so none is always
		// the first after a pause or always follows the same one.
		for k := range steps {
			if err := ctx.Err(); err != nil {
				return m.res, err
			}
			if err := steps[(k+rep)%len(steps)](rep); err != nil {
				return m.res, err
			}
		}
		fmt.Fprintf(os.Stderr, "\r%d chapters: run %d of %d (%s)", n, rep+1, o.runs, time.Since(start).Round(time.Second))
	}
	fmt.Fprintln(os.Stderr)
	return m.res, nil
}

// sizeRun is one size's measurement under way: the book's folder, the
// incremental builds' folder within it, and the samples so far.
type sizeRun struct {
	*options
	ctx       context.Context
	dir, incr string
	builds    *[]string
	res       result
}

// steps are one run's builds, one per configuration but the two
// rebuilds, which go together.
func (m *sizeRun) steps() []func(rep int) error {
	return []func(int) error{
		func(int) error { return m.fresh(toolDirectives, dirDirectives, "") },
		func(int) error { return m.fresh(toolPlain, dirPlain, "") },
		func(int) error { return m.fresh(hugoMinimal, dirHugo, "hugo-minimal.toml") },
		func(int) error { return m.fresh(hugoOff, dirHugo, "hugo.toml") },
		func(int) error { return m.fresh(hugoOn, dirHugo, "hugo-hl.toml") },
		m.rebuilds,
	}
}

// add records a sample of configuration i, or names it in err.
func (m *sizeRun) add(i int, s sample, err error) error {
	if err != nil {
		return fmt.Errorf("%d chapters, %s: %w", m.res.chapters, configNames[i], err)
	}
	m.res.samples[i] = append(m.res.samples[i], s)
	return nil
}

// fresh runs one full build of configuration i: this tool's of variant,
// or Hugo's with hugoConfig. It gets a fresh output folder, working
// directory and user cache folder, and whatever it adds to the book's
// folder is removed: nothing one build leaves (a cache, wherever a
// version of either tool keeps it) can help the next.
func (m *sizeRun) fresh(i int, variant, hugoConfig string) error {
	src := filepath.Join(m.dir, variant)
	before, err := tree(src)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(m.dir, "build-")
	if err != nil {
		return err
	}
	*m.builds = append(*m.builds, tmp)
	cwd := filepath.Join(tmp, "cwd")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		return err
	}
	out := filepath.Join(tmp, "out")
	var cmd *exec.Cmd
	if hugoConfig == "" {
		cmd = m.toolCmd(m.ctx, src, out, m.coldFlags)
	} else {
		cmd = exec.CommandContext(m.ctx, m.hugo, "--source", src, "--config", hugoConfig,
			"--destination", out, "--cacheDir", filepath.Join(cwd, "cache"), "--ignoreCache", "--quiet")
		cmd.Env = env()
	}
	cmd.Dir = cwd
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	s, err := runChild(cmd, out)
	if err := removeNew(src, before); err != nil {
		return err
	}
	return m.add(i, s, err)
}

// rebuilds builds again with nothing changed, then edits one chapter
// (another one each run) and builds again.
func (m *sizeRun) rebuilds(rep int) error {
	s, err := m.rebuild()
	if err := m.add(rebuildSame, s, err); err != nil {
		return err
	}
	if err := editChapter(m.incr, rep%m.res.chapters+1, rep); err != nil {
		return err
	}
	s, err = m.rebuild()
	return m.add(rebuildEdited, s, err)
}

// rebuild is one incremental build: it keeps its output (and a cache,
// where there is one) from build to build, as on an author's machine.
func (m *sizeRun) rebuild() (sample, error) {
	cmd := m.toolCmd(m.ctx, m.incr, filepath.Join(m.incr, "out"), nil)
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(m.dir, "incremental-cache"))
	return runChild(cmd, filepath.Join(m.incr, "out"))
}

// toolCmd builds the book in dir (chapters/, results/) into out. The
// environment names this machine so that it is never the book's: the
// build draws every figure from the copied set and measures nothing.
func (o *options) toolCmd(ctx context.Context, dir, out string, extra []string) *exec.Cmd {
	args := []string{"build", "--chapters", filepath.Join(dir, "chapters"), "--results", filepath.Join(dir, "results"), "--out", out}
	args = append(append(args, o.toolFlags...), extra...)
	cmd := exec.CommandContext(ctx, o.tool, args...)
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

// treeSize is the bytes of the files under dir: a site's output size.
func treeSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		n += fi.Size()
		return err
	})
	return n, err
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
	f, err := os.OpenFile(filepath.Join(dir, "chapters", slug(i)+".md"), os.O_APPEND|os.O_WRONLY, 0)
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
	fmt.Fprintf(w, "\n%d chapters, %d paired runs; medians (CPU: user+sys of the build process; out: the site's bytes, Markdown: %s)\n", r.chapters, r.runs, mb(r.markdown))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tCPU\t×Hugo minimal\t×Hugo sidebar\tCPU/chapter\tpeak RSS\twall\tout\t×Markdown\t")
	minimal, sidebar := median(r.samples[hugoMinimal], cpu), median(r.samples[hugoOff], cpu)
	full := median(r.samples[toolDirectives], cpu)
	for i, s := range r.samples {
		c := median(s, cpu)
		ratios := fmt.Sprintf("%.2f×\t%.2f×", c.Seconds()/minimal.Seconds(), c.Seconds()/sidebar.Seconds())
		if i == rebuildSame || i == rebuildEdited {
			ratios = fmt.Sprintf("%.0f%% of full\t", 100*c.Seconds()/full.Seconds())
		}
		out := median(s, size)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f×\t\n", configNames[i], dur(c), ratios, dur(c/time.Duration(r.chapters)), mib(median(s, rss)), dur(median(s, wall)), mb(out), float64(out)/float64(r.markdown))
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
	for _, i := range []int{toolDirectives, toolPlain, hugoMinimal, hugoOff, hugoOn} {
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

// runGen writes one synthetic book into a folder and builds nothing: for
// timing a build by hand (/usr/bin/time -v measuredbook build --chapters
// DIR/directives/chapters --results DIR/directives/results --out OUT).
func runGen(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("bench gen", pflag.ContinueOnError)
	n := fs.Int("chapters", 1000, "chapters in the book")
	seed := fs.Uint64("seed", 1, "seed of the generated text")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usageError(err.Error())
	}
	if fs.NArg() != 1 || *n < 1 {
		return usageError("usage: go run ./bench gen [--chapters N] [--seed N] DIR")
	}
	root, set, err := moduleBook()
	if err != nil {
		return err
	}
	dir := fs.Arg(0)
	if err := (synthBook{seed: *seed, chapters: *n}).write(dir, filepath.Join(root, "results"), set); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d chapters (directives/, plain/, hugo/, incremental/)\n", dir, *n)
	return nil
}
