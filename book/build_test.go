package book

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/runner"
	"measuredbook/store"
)

// fakes stand in for real probes: one measures, one crashes its child.
var fakes = []probe.Probe{
	{Spec: probe.Spec{Name: "fake.ok", Doc: "returns its param",
		Params:  []probe.Param{{Name: "n", Kind: probe.Int, Default: "1", Doc: "n"}},
		Metrics: []probe.Metric{{Name: "time", Unit: probe.Seconds, Doc: "n microseconds"}}},
		Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
			return probe.Values{"time": float64(p.Int("n")) * 1e-6}, nil
		}},
	// fake.slow sleeps for $FAKE_SLOW_MS (default a minute), so a test can
	// interrupt a measurement that is under way and then let it finish.
	{Spec: probe.Spec{Name: "fake.slow", Doc: "sleeps",
		Metrics: []probe.Metric{{Name: "time", Unit: probe.Seconds, Doc: "how long it slept"}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			d := time.Minute
			if ms, err := strconv.Atoi(os.Getenv("FAKE_SLOW_MS")); err == nil {
				d = time.Duration(ms) * time.Millisecond
			}
			time.Sleep(d)
			return probe.Values{"time": d.Seconds()}, nil
		}},
	{Spec: probe.Spec{Name: "fake.crash", Doc: "dies",
		Metrics: []probe.Metric{{Name: "time", Unit: probe.Seconds, Doc: "never"}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			panic("probe exploded")
		}},
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], fakes, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const chapter = `---
title: 시험
order: 1
slug: t
lang: ko
---

` + "```experiment ok\nprobe: fake.ok\nparams:\n  n: [1, 2]\nruns: 2\n```\n\n" +
	"```experiment boom\nprobe: fake.crash\nruns: 1\n```\n\n" +
	"한 번은 {{ ok.time[n=2] }}, 터지는 쪽은 {{ boom.time[] }}.\n"

func testOptions(t *testing.T) Options {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "chapters"), 0o755)
	os.WriteFile(filepath.Join(dir, "chapters", "t.md"), []byte(chapter), 0o644)
	r, err := runner.New()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Chapters: filepath.Join(dir, "chapters"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "out"),
		Probes: fakes, Runner: r, This: dataset.Fingerprint{Name: "here", CPU: "Test", Cores: 2, Kernel: "Linux 6.1", Arch: "amd64", Go: "go1.26.0"}, Log: &bytes.Buffer{}}
}

// A crashing probe is reported with its experiment and cause; the build
// still writes the site with what could be measured.
func TestCrashingProbeIsReportedNotFatal(t *testing.T) {
	opts := testOptions(t)
	rep, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("build failed: %v", err)
	}
	if len(rep.Measured) != 2 {
		t.Errorf("measured %v, want ok and boom", rep.Measured)
	}
	var crash string
	for _, w := range rep.Warnings {
		if strings.Contains(w.Error(), "combinations failed") {
			crash = w.Error()
		}
	}
	if !strings.Contains(crash, "fake.crash") || !strings.Contains(crash, "probe exploded") || !strings.Contains(crash, "t.md:15:1") {
		t.Errorf("crash warning %q lacks the probe, its cause or the experiment's position", crash)
	}
	page, err := os.ReadFile(filepath.Join(opts.Out, "t.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(">2 μs</span>")) || !bytes.Contains(page, []byte("mb-missing")) {
		t.Errorf("page should show the measured value and mark the crashed one:\n%s", page)
	}
	// The failure is stored, so status can say so without measuring again.
	b, _ := Load(opts.Chapters, fakes)
	for _, st := range b.Status(NewResults(opts.Results, "here", fakes), fakes, b.Order) {
		want := map[string]State{"ok": Fresh, "boom": Failed}[st.ID]
		if st.State != want {
			t.Errorf("%s: %s (%s), want %s", st.ID, st.State, st.Why, want)
		}
	}
}

// A result that was good once is never overwritten by a failed measurement.
func TestFailedMeasurementKeepsTheStoredResult(t *testing.T) {
	opts := testOptions(t)
	good := &dataset.Result{Experiment: "boom", Probe: "fake.crash", Hash: "old", Runs: 1, Machine: opts.This, Start: time.Now(),
		Units: map[string]probe.Unit{"time": probe.Seconds}, Rows: []dataset.Row{{Params: probe.Params{}, Runs: []probe.Values{{"time": 1e-6}}}}}
	path := store.Path(opts.Results, "here", "boom")
	if err := store.Save(path, good); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	b, err := Load(opts.Chapters, fakes)
	if err != nil {
		t.Fatal(err)
	}
	m := &Measurer{Runner: opts.Runner, Probes: fakes, Machine: opts.This, Dir: opts.Results}
	_, err = m.Measure(context.Background(), b, "boom")
	if err == nil || !strings.Contains(err.Error(), "stored result was kept") {
		t.Errorf("err = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a failed measurement replaced the stored result")
	}
	var re *runner.RunError
	if !errors.As(err, &re) && !strings.Contains(err.Error(), "probe exploded") {
		t.Errorf("the cause is lost: %v", err)
	}
}

const slowChapter = `---
title: 느림
order: 1
slug: s
---

` + "```experiment ok\nprobe: fake.ok\nruns: 1\n```\n\n" +
	"```experiment slow\nprobe: fake.slow\nruns: 1\n```\n\n" +
	"{{ ok.time[] }}, {{ slow.time[] }}\n"

// cancelOn cancels a context when a line it is written contains want: the
// build is interrupted exactly while that measurement runs.
type cancelOn struct {
	want   string
	cancel context.CancelCauseFunc
	buf    bytes.Buffer
}

func (c *cancelOn) Write(b []byte) (int, error) {
	c.buf.Write(b)
	if strings.Contains(c.buf.String(), c.want) {
		c.cancel(errors.New("test interrupt"))
	}
	return len(b), nil
}

// An interrupt stops the probe under way, keeps what was measured before
// it, stores nothing for the interrupted experiment (not even a failure),
// leaves out/ exactly as it was, and the next build carries on from there.
func TestInterruptKeepsWhatWasMeasuredAndLeavesOutAlone(t *testing.T) {
	opts := testOptions(t)
	os.WriteFile(filepath.Join(opts.Chapters, "t.md"), []byte(slowChapter), 0o644)
	if err := writeSite(context.Background(), opts.Out, map[string][]byte{"index.html": []byte("old site")}); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, opts.Out)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	opts.Progress = &Progress{W: &cancelOn{want: "measure slow", cancel: cancel}}
	start := time.Now()
	rep, err := Build(ctx, opts)
	// The slow probe sleeps a minute; the interrupt must not wait for it.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the interrupted build took %v", took)
	}
	var in *Interrupted
	if !errors.As(err, &in) || in.Cause.Error() != "test interrupt" {
		t.Fatalf("err = %v, want an interruption", err)
	}
	if len(rep.Measured) != 1 || rep.Measured[0] != "ok" || len(in.Left) != 1 || in.Left[0] != "slow" {
		t.Errorf("measured %v, left %v; want ok measured and slow left", rep.Measured, in.Left)
	}
	if _, err := os.Stat(store.Path(opts.Results, "here", "ok")); err != nil {
		t.Errorf("the experiment measured before the interrupt was not kept: %v", err)
	}
	if _, err := os.Stat(store.Path(opts.Results, "here", "slow")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted experiment was stored: %v", err)
	}
	if after := readDir(t, opts.Out); !equalDirs(before, after) {
		t.Errorf("out/ changed: %v → %v", before, after)
	}
	t.Setenv("FAKE_SLOW_MS", "1")
	opts.Progress = nil
	rep, err = Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Measured) != 1 || rep.Measured[0] != "slow" {
		t.Errorf("the next build measured %v, want only slow", rep.Measured)
	}
}

// An interrupt that arrives after measuring (while rendering) also stops
// the build before out/ is touched.
func TestInterruptWhileRenderingLeavesOutAlone(t *testing.T) {
	opts := testOptions(t)
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, opts.Out)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("test interrupt"))
	_, err := Build(ctx, opts)
	var in *Interrupted
	if !errors.As(err, &in) {
		t.Fatalf("err = %v, want an interruption", err)
	}
	if after := readDir(t, opts.Out); !equalDirs(before, after) {
		t.Error("out/ changed")
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	// The site's files, those in its folders (data/) by their path.
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func equalDirs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// --out is replaced only when it is absent, empty or a site a build wrote;
// everything else is refused with nothing touched.
func TestOutIsReplacedOnlyWhenItIsOurs(t *testing.T) {
	opts := testOptions(t)
	opts.Progress = nil
	t.Setenv("FAKE_SLOW_MS", "1")
	dir := filepath.Dir(opts.Out)
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("mine"), 0o644)
	foreign := filepath.Join(dir, "photos")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "a.jpg"), []byte("jpg"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(foreign, link)
	site := filepath.Join(dir, "site")
	if err := writeSite(context.Background(), site, map[string][]byte{"index.html": []byte("x")}); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(dir, "mixed")
	writeSite(context.Background(), mixed, map[string][]byte{"index.html": []byte("x")})
	os.WriteFile(filepath.Join(mixed, "draft.md"), []byte("mine"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	data := filepath.Join(dir, "data")
	writeSite(context.Background(), data, map[string][]byte{"index.html": []byte("x"), "data/ok.csv": []byte("x")})
	os.WriteFile(filepath.Join(data, "data", "notes.txt"), []byte("mine"), 0o644)
	nested := filepath.Join(dir, "nested")
	writeSite(context.Background(), nested, map[string][]byte{"index.html": []byte("x"), "data/ok.csv": []byte("x")})
	os.MkdirAll(filepath.Join(nested, "data", "mine"), 0o755)
	for _, tc := range []struct {
		out, refusal string
	}{
		{opts.Chapters, "no " + Manifest + "; a build"},
		{file, "is a file"},
		{link, "symbolic link"},
		{foreign, "no " + Manifest},
		{mixed, "holds files no build wrote: draft.md"},
		{data, "holds files no build wrote: data/notes.txt"},
		{nested, "holds files no build wrote: data/mine"},
		{filepath.Join(dir, "absent"), ""},
		{empty, ""},
		{site, ""},
	} {
		before := snapshotTree(t, dir)
		o := opts
		o.Out = tc.out
		_, err := Build(context.Background(), o)
		if tc.refusal == "" {
			if err != nil {
				t.Errorf("--out %s: %v", tc.out, err)
			} else if _, err := os.Stat(filepath.Join(tc.out, "t.html")); err != nil {
				t.Errorf("--out %s: no site written: %v", tc.out, err)
			}
			continue
		}
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.refusal) {
			t.Errorf("--out %s: err = %v, want a refusal saying %q", tc.out, err, tc.refusal)
		}
		if after := snapshotTree(t, dir); after != before {
			t.Errorf("--out %s: a refused build changed the folder around it", tc.out)
		}
	}
}

// snapshotTree lists every path under dir with its size and link target:
// enough to see that a refused build touched nothing. results/ is left
// out, since the builds that succeed measure into it.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Name() == "results" {
			return filepath.SkipDir
		}
		target, _ := os.Readlink(path)
		fmt.Fprintf(&b, "%s %d %s %s\n", path, fi.Size(), fi.Mode(), target)
		return nil
	})
	return b.String()
}

// What a killed build leaves behind (a half-written site beside out/, a
// half-written result file) is removed by the next one.
func TestLeftoversOfAKilledBuildAreRemoved(t *testing.T) {
	opts := testOptions(t)
	t.Setenv("FAKE_SLOW_MS", "1")
	half := filepath.Join(filepath.Dir(opts.Out), tempSite+"123")
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, "index.html"), []byte("half"), 0o644)
	tmp := filepath.Join(opts.Results, "here", ".tmp-456")
	os.MkdirAll(filepath.Dir(tmp), 0o755)
	os.WriteFile(tmp, []byte("half a result"), 0o644)
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{half, tmp} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(opts.Out), ".out-new-*"))
	if len(leftovers) > 0 {
		t.Errorf("the build left %v", leftovers)
	}
}

// A second build on the same tree waits for the first, saying so; a build
// that measures nothing does not wait.
func TestSecondBuildWaitsForTheLock(t *testing.T) {
	opts := testOptions(t)
	opts.Only = []string{"ok"}
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	unlock, err := store.Lock(context.Background(), opts.Results, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A build that cannot measure does not wait.
	strict := opts
	strict.Strict, strict.Only = true, nil
	os.WriteFile(filepath.Join(opts.Chapters, "t.md"), []byte(strings.Split(chapter, "```experiment boom")[0]+"{{ ok.time[n=2] }}\n"), 0o644)
	if _, err := Build(context.Background(), strict); err != nil {
		t.Fatalf("a --strict build while the lock is held: %v", err)
	}
	log := &syncBuffer{}
	opts.Log = log
	done := make(chan error, 1)
	go func() {
		_, err := Build(context.Background(), opts)
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(log.String(), "waiting for it to finish") {
		if time.Now().After(deadline) {
			t.Fatalf("no message while waiting; log %q", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the second build did not wait: %v", err)
	default:
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A result that cannot be saved stops the build, naming the experiment,
// instead of building the old numbers.
func TestUnsavableResultFailsTheBuild(t *testing.T) {
	opts := testOptions(t)
	opts.Fresh = true
	// A file where the set's folder should be: every save fails.
	os.MkdirAll(opts.Results, 0o755)
	os.WriteFile(filepath.Join(opts.Results, "here"), []byte("not a folder"), 0o644)
	_, err := Build(context.Background(), opts)
	var se *SaveError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "experiment ok") {
		t.Fatalf("err = %v, want a save error naming experiment ok", err)
	}
	if _, err := os.Stat(opts.Out); !errors.Is(err, os.ErrNotExist) {
		t.Error("a build that could not save its results wrote out/")
	}
}

// Progress on a terminal keeps one line up to date; elsewhere it prints a
// plain line per run; a run far slower than expected gets its own line.
func TestProgress(t *testing.T) {
	var plain bytes.Buffer
	p := &Progress{W: &plain}
	p.begin("x (1/2)", 2, 0)
	p.run(1, 2, probe.Params{"n": "1"})
	p.run(2, 2, probe.Params{"n": "2"})
	p.end(nil)
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "x (1/2): [n=2] run 2/2") || strings.Contains(plain.String(), "\r") {
		t.Errorf("plain progress:\n%s", plain.String())
	}
	var tty syncBuffer
	p = &Progress{W: &tty, Terminal: true, Slow: time.Millisecond}
	p.begin("y", 3, time.Minute)
	p.run(1, 3, probe.Params{"n": "1"})
	if !strings.Contains(tty.String(), "\r\033[K") || !strings.Contains(tty.String(), "about 3m00s left") {
		t.Errorf("terminal progress has no status line with an ETA from the stored duration: %q", tty.String())
	}
	p.mu.Lock()
	p.runStart = time.Now().Add(-4 * time.Minute) // the run is far slower than the last time
	p.mu.Unlock()
	p.tick()
	p.end(nil)
	if !strings.Contains(tty.String(), "has been running for 4m00s (a run took 1m00s last time)\n") {
		t.Errorf("a slow run is not reported on a line of its own: %q", tty.String())
	}
}

// A chapter without a title or a slug is an error at its first line.
func TestChapterNeedsTitleAndSlug(t *testing.T) {
	opts := testOptions(t)
	os.WriteFile(filepath.Join(opts.Chapters, "t.md"), []byte("---\norder: 1\n---\n\n본문\n"), 0o644)
	_, err := Load(opts.Chapters, fakes)
	for _, want := range []string{"t.md:1:1: front matter has no title", "t.md:1:1: front matter has no slug"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// A condition the runs do not decide, written without an unsure branch,
// fails a strict build at its place; with one, the build passes.
func TestStrictFailsOnAnInconclusiveCondition(t *testing.T) {
	opts := testOptions(t)
	write := func(cond string) {
		src := "---\ntitle: 시험\norder: 1\nslug: t\n---\n\n```experiment ok\nprobe: fake.ok\nparams:\n  n: [1, 2]\nruns: 2\n```\n\n" + cond + "\n"
		if err := os.WriteFile(filepath.Join(opts.Chapters, "t.md"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{{ ok.time[n=1] < ok.time[n=2] ? "작다" : "작지 않다" }}`)
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	// The runs of n=1 now straddle n=2's: which is smaller is undecided.
	path := store.Path(opts.Results, "here", "ok")
	r, err := store.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Rows {
		if r.Rows[i].Params["n"] == "1" {
			r.Rows[i].Runs = []probe.Values{{"time": 1e-6}, {"time": 3e-6}}
		}
	}
	if err := store.Save(path, r); err != nil {
		t.Fatal(err)
	}
	strict := opts
	strict.Strict = true
	_, err = Build(context.Background(), strict)
	if err == nil || !strings.Contains(err.Error(), "t.md:14:1:") || !strings.Contains(err.Error(), "inconclusive condition") {
		t.Fatalf("strict build with an inconclusive condition: err = %v", err)
	}
	write(`{{ ok.time[n=1] < ok.time[n=2] ? "작다" : "작지 않다" ~ "실행마다 달랐다" }}`)
	if _, err := Build(context.Background(), strict); err != nil {
		t.Fatalf("with an unsure branch: %v", err)
	}
}

// Every file and folder the site writes beside the chapters' pages has a
// name no chapter may take, so a chapter's page never replaces one.
func TestSiteNamesAreReservedSlugs(t *testing.T) {
	opts := testOptions(t)
	t.Setenv("FAKE_SLOW_MS", "1")
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(opts.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == "t.html" || name == Manifest {
			continue
		}
		stem, _, _ := strings.Cut(name, ".")
		if !parse.ReservedSlug(stem) {
			t.Errorf("out/%s: a chapter with slug %q would clash with it", name, stem)
		}
	}
}

// Two chapters whose slugs differ only in case name one file on a
// case-insensitive disk: an error at the second slug.
func TestSlugClashIsAtTheSlug(t *testing.T) {
	opts := testOptions(t)
	os.WriteFile(filepath.Join(opts.Chapters, "u.md"), []byte("---\ntitle: 둘\norder: 2\nslug: T\n---\n\n본문\n"), 0o644)
	_, err := Load(opts.Chapters, fakes)
	want := filepath.Join(opts.Chapters, "u.md") + `:4:7: slug "T" is already used by`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// Folder flags are paths, never patterns: --chapters 'ch[ap]ters' is not
// the folder chapters beside it, and a build into 's[12]/out' leaves the
// temporary files of s1/ alone. A chapters that is a file says so.
func TestFolderFlagsArePaths(t *testing.T) {
	opts := testOptions(t)
	t.Setenv("FAKE_SLOW_MS", "1")
	dir := filepath.Dir(opts.Chapters)
	_, err := Load(filepath.Join(dir, "ch[ap]ters"), fakes)
	if err == nil || !strings.Contains(err.Error(), "ch[ap]ters: no such folder") {
		t.Errorf("--chapters ch[ap]ters: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := Load(file, fakes); err == nil || !strings.Contains(err.Error(), "file: is a file, not a folder") {
		t.Errorf("--chapters FILE: %v", err)
	}
	other := filepath.Join(dir, "s1", tempSite+"keep")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(dir, "s1", "x"), nil, 0o644)
	opts.Out = filepath.Join(dir, "s[12]", "out")
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a build into s[12]/out removed s1's files: %v", err)
	}
}

// A book whose machine: names a set not in results/ is refused once, with
// what to do, not with an error at every value that would read it.
func TestMissingBookSetIsSaidOnce(t *testing.T) {
	opts := testOptions(t)
	os.WriteFile(filepath.Join(opts.Chapters, ConfigFile), []byte("machine: gone\n"), 0o644)
	_, err := Build(context.Background(), opts)
	var ue *UsageError
	want := "the set " + filepath.Join(opts.Results, "gone") + "/ does not exist"
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "go run . build --here") {
		t.Errorf("err = %v, want a usage error %q... naming build --here", err, want)
	}
	if _, err := os.Stat(opts.Out); err == nil {
		t.Error("the refused build wrote out/")
	}
}

// A result file of another machine's, or one without a fingerprint, is
// refused by a build as import refuses it, never shown as the set's.
func TestResultOfAnotherMachineIsRefused(t *testing.T) {
	opts := testOptions(t)
	t.Setenv("FAKE_SLOW_MS", "1")
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(opts.Results, "here", "ok.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var bare []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "machine-") {
			bare = append(bare, strings.Replace(line, "machine: here", "machine: bare", 1))
		}
	}
	for set, want := range map[string]string{
		"copied": `ok.txt: measured on machine "here", but it is in the set "copied"`,
		"bare":   "ok.txt: no machine fingerprint: machine-cpu, machine-cores",
	} {
		os.MkdirAll(filepath.Join(opts.Results, set), 0o755)
		file := data
		if set == "bare" {
			file = []byte(strings.Join(bare, "\n"))
		}
		os.WriteFile(filepath.Join(opts.Results, set, "ok.txt"), file, 0o644)
		o := opts
		o.Machine = set
		if _, err := Build(context.Background(), o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--machine %s: %v, want %q", set, err, want)
		}
	}
}

// A read-only site is refused before anything is replaced: its files
// could not be removed once the new site took its place.
func TestReadOnlyOutIsRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write into a read-only folder")
	}
	opts := testOptions(t)
	t.Setenv("FAKE_SLOW_MS", "1")
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	os.Chmod(opts.Out, 0o555)
	defer os.Chmod(opts.Out, 0o755)
	before := snapshotTree(t, filepath.Dir(opts.Out))
	var ue *UsageError
	if _, err := Build(context.Background(), opts); !errors.As(err, &ue) || !strings.Contains(err.Error(), "is read-only") {
		t.Errorf("read-only out/: %v", err)
	}
	if after := snapshotTree(t, filepath.Dir(opts.Out)); after != before {
		t.Errorf("a refused build changed the folder around out/")
	}
}

// The render cache is optional: a cache folder that is a file, or holds
// a file where a folder should be, costs a warning, never the build.
func TestBrokenRenderCacheIsAWarning(t *testing.T) {
	t.Setenv("FAKE_SLOW_MS", "1")
	for _, tc := range []struct{ name, file string }{{"a file", ""}, {"blobs a file", "blobs"}, {"packs a file", "packs"}} {
		opts := testOptions(t)
		opts.Cache = filepath.Join(filepath.Dir(opts.Chapters), "cache")
		if tc.file != "" {
			os.MkdirAll(opts.Cache, 0o755)
		}
		os.WriteFile(filepath.Join(opts.Cache, tc.file), []byte("x"), 0o644)
		var log bytes.Buffer
		opts.Log = &log
		if _, err := Build(context.Background(), opts); err != nil {
			t.Errorf("cache %s: the build failed: %v", tc.name, err)
		} else if !strings.Contains(log.String(), "warning: render cache "+opts.Cache) {
			t.Errorf("cache %s: no warning in %q", tc.name, log.String())
		}
		if _, err := os.Stat(filepath.Join(opts.Out, "t.html")); err != nil {
			t.Errorf("cache %s: %v", tc.name, err)
		}
	}
}

// In safe mode (--safe, or book.yaml's safe: true) raw HTML and a link
// that runs code are errors at their places, and out/ is not written;
// otherwise the chapter is trusted.
func TestSafeRefusesRawHTML(t *testing.T) {
	t.Setenv("FAKE_SLOW_MS", "1")
	src := "---\ntitle: 위험\norder: 2\nslug: u\n---\n\n<script>alert(1)</script>\n\n본문 <b onclick=\"x()\">굵게</b> [링크](javascript:alert(1))\n"
	for _, mode := range []string{"flag", "book.yaml", "off"} {
		opts := testOptions(t)
		os.WriteFile(filepath.Join(opts.Chapters, "u.md"), []byte(src), 0o644)
		switch mode {
		case "flag":
			opts.Safe = true
		case "book.yaml":
			os.WriteFile(filepath.Join(opts.Chapters, ConfigFile), []byte("safe: true\n"), 0o644)
		}
		_, err := Build(context.Background(), opts)
		if mode == "off" {
			if err != nil {
				t.Errorf("without safe mode: %v", err)
			}
			continue
		}
		u := filepath.Join(opts.Chapters, "u.md")
		for _, want := range []string{u + ":7:1: raw HTML is refused", u + ":9:4: raw HTML is refused", u + ":9:33: a javascript URL runs code"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", mode, err, want)
			}
		}
		if _, err := os.Stat(opts.Out); err == nil {
			t.Errorf("%s: a refused build wrote out/", mode)
		}
	}
}

// --fleet names sets that exist (a typo gets a did-you-mean), and a build
// from another set is the copy of one of them; before anything is
// measured or written.
func TestFleetRefusals(t *testing.T) {
	opts := testOptions(t)
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(opts.Results, "there"), 0o755)
	for _, c := range []struct {
		machine string
		fleet   []string
		want    string
	}{
		{"", []string{"here", "ther"}, "--fleet ther: no such result set"},
		{"", []string{"here", "ther"}, "did you mean there?"},
		{"", []string{"../x"}, "--fleet \"../x\" may not"},
		{"there", []string{"here"}, "--fleet must name it"},
	} {
		o := opts
		o.Machine, o.Fleet, o.Out = c.machine, c.fleet, filepath.Join(t.TempDir(), "out")
		_, err := Build(context.Background(), o)
		var u *UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--machine %q --fleet %q: %v, want a usage error saying %q", c.machine, c.fleet, err, c.want)
		}
		if _, err := os.Stat(o.Out); err == nil {
			t.Errorf("--fleet %q: a refused build wrote %s", c.fleet, o.Out)
		}
	}
}

// writeSite replaces dir with exactly pages and the manifest, as a build
// does.
func writeSite(ctx context.Context, dir string, pages map[string][]byte) error {
	s, err := stageSite(dir)
	if err != nil {
		return err
	}
	defer s.discard()
	for name, data := range pages {
		if err := s.put(name, data); err != nil {
			return err
		}
	}
	return s.commit(ctx)
}
