package book

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/render"
	"measuredbook/rendercache"
	"measuredbook/runner"
	"measuredbook/site"
	"measuredbook/store"
	"measuredbook/templates"
	"measuredbook/view"
)

// Options are the build's flags.
type Options struct {
	Chapters, Results string
	// Out is where the site is written; "": DefaultOut's folder.
	Out      string
	Machine  string   // --machine: the set to build from
	Here     bool     // --here: build from this machine's set, measuring what it lacks
	Fresh    bool     // measure everything (or --only) anew into this machine's set
	Only     []string // measure only these experiments; every page is still built
	Strict   bool     // fail on a failing or undecidable claim, a gap, or anything that would need measuring
	Safe     bool     // refuse raw HTML and links that run code (see parse.Doc.CheckSafe), as book.yaml's safe: true
	Probes   []probe.Probe
	Runner   *runner.Runner
	This     dataset.Fingerprint // this machine
	Log      io.Writer           // notes: which set, what was not measured
	Progress *Progress           // measurement progress; nil: silent
	// Cache is the render cache's folder (CacheDir beside the chapters,
	// for the command line); "" builds without one (--no-cache).
	Cache string
	// Fleet names the sets whose copies of the book the site holds under
	// machines/SET/ (the fleet's site): every page links to the same page
	// in each, and the book's own build writes fleet.html. A build
	// with --machine is then the copy of that set.
	Fleet []string
	// EPUB and PDF are files to write the book to besides the site
	// (--epub, --pdf), each replaced atomically; "": none.
	EPUB, PDF string
}

// Report is what a build did.
type Report struct {
	Set      string   // the result set the numbers came from
	Out      string   // where the site was written
	Measures bool     // whether this build measures into Set (it is this machine's)
	Measured []string // experiments measured by this build
	Warnings []error
	Claims   []evaluate.Claim
	// Gaps are the experiments the set has no usable result for after the
	// build (missing, stale, failed, unreadable), in book order, and Fill
	// the command that fills them, "" where nothing can (a transcribed set).
	Gaps []Status
	Fill string
	// GapFigures counts the places on the pages that show a gap instead
	// of a figure (warnings for which IsGap holds).
	GapFigures int
	// Chapters counts the chapters' pages written, Cached those of them
	// taken from the render cache rather than evaluated and laid out.
	Chapters, Cached int
	// External lists the chapters' links to other sites: listed, never
	// fetched.
	External []string
}

// WarningKind groups warnings for a summary: the warning's own kind when
// it has one (render's kinds), else the message itself without its
// position, so the same message at many places is one kind.
func WarningKind(warn error) string {
	var k interface{ Kind() string }
	if errors.As(warn, &k) && k.Kind() != "" {
		return k.Kind()
	}
	var pe *parse.PosError
	if errors.As(warn, &pe) {
		return pe.Msg
	}
	return warn.Error()
}

// IsGap reports whether a warning is about a place that shows a gap where
// a figure could be measured: missing, or failed to measure. (An optional
// metric that does not apply to a combination is absent, not a gap.)
func IsGap(warn error) bool {
	k := WarningKind(warn)
	return k == parse.KindMissing || k == parse.KindFailed
}

// Summed reports whether a build's summary line accounts for warn, so
// that it need not be printed on its own: a gap (IsGap), or a figure or
// claim about what the set's machine cannot measure at all (kqueue on
// Linux), which no command run there can change.
func Summed(warn error) bool {
	return IsGap(warn) || WarningKind(warn) == parse.KindUnavailable
}

// SetFor decides which result set a build draws from: --machine, else
// this machine's with --here, else the book's machine, else this machine.
func SetFor(cfg Config, opts Options) string {
	if opts.Here {
		return cmp.Or(opts.Machine, opts.This.Name)
	}
	return cmp.Or(opts.Machine, cfg.Machine, opts.This.Name)
}

// ChooseSet is SetFor checked: the set's name is a valid name, --machine
// names a set that exists (a typo gets a did-you-mean), and the flags that
// measure (--fresh, --only) are given only where the build measures, that
// is, into this machine's set. Refusals are *UsageError.
func ChooseSet(cfg Config, opts Options) (string, error) {
	set := SetFor(cfg, opts)
	if err := store.CheckName("result set", set); err != nil {
		if set == cfg.Machine {
			return "", fmt.Errorf("%s: machine: %v", ConfigFile, err)
		}
		return "", &UsageError{err.Error()}
	}
	if opts.Machine != "" && opts.Machine != opts.This.Name {
		if err := CheckSet(opts.Results, "--machine", opts.Machine); err != nil {
			return "", err
		}
	}
	if set == opts.This.Name || !opts.Fresh && len(opts.Only) == 0 {
		return set, nil
	}
	flag, example := "--fresh", "--fresh"
	if !opts.Fresh {
		flag, example = "--only", "--only "+strings.Join(opts.Only, ",")
	}
	if opts.Machine != "" {
		return "", &UsageError{fmt.Sprintf("%s measures on this machine (%s), but --machine %s builds from another set: nothing would be measured into it", flag, opts.This.Name, opts.Machine)}
	}
	return "", &UsageError{fmt.Sprintf("%s measures on this machine (%s), but the book's set is %s's; to measure here and build from this machine's numbers: go run . build --here %s", flag, opts.This.Name, set, example)}
}

// CheckSet refuses, as a *UsageError, a set (given by what, a flag) whose
// name is not a set's or that results does not hold (a typo gets a
// did-you-mean).
func CheckSet(results, what, set string) error {
	if err := store.CheckName(what, set); err != nil {
		return &UsageError{err.Error()}
	}
	if sets := NewResults(results, "", nil).Sets(); !slices.Contains(sets, set) {
		return &UsageError{fmt.Sprintf("%s %s: no such result set in %s%s; sets: %s", what, set, results, expr.DidYouMean(set, sets), strings.Join(sets, ", "))}
	}
	return nil
}

// DefaultOut is where a build from set writes its site when not told:
// out/, the published book, for the book's own set; out-SET/, which git
// ignores, for any other (this machine's with --here, --machine's), so
// that another machine's numbers are never one git add away from the
// published book.
func DefaultOut(cfg Config, set string) string {
	if cfg.Machine == "" || set == cfg.Machine {
		return "out"
	}
	return "out-" + set
}

// checkSetExists refuses a book whose experiments would be read from a
// set of book.yaml's that results/ does not hold: said once, here, rather
// than as a missing result at every value.
func (b *Book) checkSetExists(set string, opts Options) error {
	if set == opts.This.Name || opts.Machine != "" || len(b.Order) == 0 {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(opts.Results, set)); err == nil && fi.IsDir() {
		return nil
	}
	return &UsageError{fmt.Sprintf("the set %s/ does not exist: %s's machine: names %s, but no results of it are stored. "+
		"Build from this machine's numbers with: go run . build --here; or bring the set in with: go run . import FILE (a bundle made on %s by: go run . bundle)",
		filepath.Join(opts.Results, set), ConfigFile, set, set)}
}

// Build loads the chapters, measures what must be measured, evaluates and
// writes the site. Nothing is written to out/ unless everything succeeded;
// an interrupt (ctx cancelled) keeps the experiments measured so far and
// leaves out/ as it was.
func Build(ctx context.Context, opts Options) (*Report, error) {
	b, err := load(opts.Chapters, opts.Probes, openCache(opts), nil)
	if err != nil {
		return nil, err
	}
	set, only, err := b.chooseBuild(&opts)
	if err != nil {
		return nil, err
	}
	browser, err := checkBookFiles(opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Set: set, Out: opts.Out, Measures: set == opts.This.Name}
	unlock, err := lockResults(ctx, rep, opts)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res := NewResults(opts.Results, set, opts.Probes)
	res.This, res.cache = opts.This, b.cache
	logSet(opts, rep)
	// The set's results are read here, in parallel, and checked before
	// anything is measured; Status asks for their headers one by one. A
	// result's rows are read again at their first use only if they were
	// let go meanwhile, or if its header came from the render cache.
	parallel(len(b.Order), func(i int) { res.Header("", b.Order[i]) })
	// A chapter's mistakes fail the build before a probe runs, whether
	// or not its experiments were ever measured.
	if err := b.Check(res); err != nil {
		return nil, err
	}
	// A build measures nothing unless it measures into this machine's set;
	// then every experiment of only with --fresh, else those of only that
	// are missing, stale or unreadable.
	var need []string
	if rep.Measures {
		for _, st := range b.Status(res, opts.Probes, b.Order) {
			if slices.Contains(only, st.ID) && (opts.Fresh || st.State == Missing || st.State == Stale || st.State == Unreadable) {
				need = append(need, st.ID)
			}
		}
	}
	if opts.Strict && len(need) > 0 {
		return nil, fmt.Errorf("--strict: %d experiment(s) would have to be measured: %s (measure them with: go run . run %s)", len(need), strings.Join(need, ", "), strings.Join(need, " "))
	}
	if err := b.measureAll(ctx, opts, res, need, rep); err != nil {
		return rep, err
	}
	res.MarkStale(b.Status(res, opts.Probes, b.Order))
	epub, err := b.writeSite(ctx, opts, res, rep)
	if err != nil {
		return rep, err
	}
	b.cache.finish(opts)
	return rep, b.writeBookFiles(ctx, opts, epub, browser)
}

// openCache opens the render cache a build uses, nil for none (--no-cache,
// or one that cannot be opened, which the log says).
func openCache(opts Options) *renderCache {
	if opts.Cache == "" {
		return nil
	}
	rc, err := openRenderCache(opts.Cache, opts.Probes)
	if err != nil && opts.Log != nil {
		fmt.Fprintf(opts.Log, "building without the render cache: %v\n", err)
	}
	return rc
}

// chooseBuild checks the flags against the loaded book: the experiments
// --only names, safe mode, the set, the output folder (set in opts when
// not given). It returns the set and the experiments that may be measured.
func (b *Book) chooseBuild(opts *Options) (set string, only []string, err error) {
	// An unknown id first: the hint that --only measures only here would
	// suggest a command that fails on it too.
	if only, err = b.Select(opts.Only); err != nil {
		return "", nil, &UsageError{"--only: " + err.Error() + "; go run . status lists the experiments"}
	}
	if err := b.CheckSafe(opts.Safe); err != nil {
		return "", nil, err
	}
	if set, err = ChooseSet(b.Config, *opts); err != nil {
		return "", nil, err
	}
	opts.Out = cmp.Or(opts.Out, DefaultOut(b.Config, set))
	if err := b.checkSetExists(set, *opts); err != nil {
		return "", nil, err
	}
	if b.fleet, err = b.chooseFleet(*opts, set); err != nil {
		return "", nil, err
	}
	return set, only, CheckOut(opts.Out)
}

// lockResults takes the results tree's lock for the build: a build that
// may measure waits for another one on the same tree; one that cannot
// (another machine's set, --strict) only cleans up when no other build
// is at work. The returned function lets go of it.
func lockResults(ctx context.Context, rep *Report, opts Options) (func(), error) {
	if rep.Measures && !opts.Strict {
		unlock, err := store.Lock(ctx, opts.Results, opts.Log)
		if err != nil {
			return nil, err
		}
		removeLeftovers(opts.Out, opts.Results)
		return unlock, nil
	}
	if unlock, ok := store.TryLock(opts.Results); ok {
		removeLeftovers(opts.Out, opts.Results)
		return unlock, nil
	}
	return func() {}, nil
}

// logSet says, in one line, where a build that measures nothing takes its
// numbers from.
func logSet(opts Options, rep *Report) {
	switch {
	case rep.Measures || opts.Log == nil:
	case opts.Machine != "":
		fmt.Fprintf(opts.Log, "building from set %s (this machine is %s; nothing is measured)\n", rep.Set, opts.This.Name)
	default:
		fmt.Fprintf(opts.Log, "building the published book from %s's results (this machine is %s; nothing is measured). To build from this machine's numbers: go run . build --here\n", rep.Set, opts.This.Name)
	}
}

// measureAll measures need in turn, with progress, into this machine's
// set; a probe that fails is a warning, an interrupt keeps what was
// measured.
func (b *Book) measureAll(ctx context.Context, opts Options, res *Results, need []string, rep *Report) error {
	m := &Measurer{Runner: opts.Runner, Probes: opts.Probes, Machine: opts.This, Dir: opts.Results, Progress: opts.Progress, Estimates: b.Config.Machine}
	est := make([]time.Duration, len(need))
	for i, id := range need {
		est[i] = m.estimate(b, id)
	}
	if len(need) > 1 {
		m.Progress.plan(est)
	}
	for i, id := range need {
		m.Progress.next(est[i])
		_, err := m.measure(ctx, b, id, fmt.Sprintf("%s (%d/%d)", id, i+1, len(need)))
		if cause := context.Cause(ctx); cause != nil {
			return &Interrupted{Cause: cause, Kept: rep.Measured, Left: need[i:], Out: opts.Out}
		}
		if errors.As(err, new(*SaveError)) { // stops the build, unlike a probe's failure
			return err
		}
		if err != nil {
			// A probe that fails is reported; the build goes on with
			// whatever the set holds.
			rep.Warnings = append(rep.Warnings, err)
		}
		res.Forget("", id)
		rep.Measured = append(rep.Measured, id)
	}
	return nil
}

// writeSite renders every page into a staged site, fills the report's
// claims, gaps and counts, and puts the site in place unless --strict
// finds a failure or the build was interrupted.
func (b *Book) writeSite(ctx context.Context, opts Options, res *Results, rep *Report) (epub []byte, err error) {
	out, err := stageSite(opts.Out)
	if err != nil {
		return nil, err
	}
	defer out.discard()
	r, err := b.renderTo(res, out, opts.EPUB != "", false)
	rep.Warnings = append(rep.Warnings, r.warnings...)
	rep.Claims, rep.Chapters, rep.Cached, rep.External = r.claims, len(b.Docs), r.cached, r.external
	if err != nil {
		return nil, err
	}
	rep.Gaps, rep.Fill = b.gaps(res, opts, rep.Set)
	for _, w := range rep.Warnings {
		if IsGap(w) {
			rep.GapFigures++
		}
	}
	if cause := context.Cause(ctx); cause != nil {
		return nil, &Interrupted{Cause: cause, Kept: rep.Measured, Out: opts.Out}
	}
	if opts.Strict {
		if err := b.strictFailures(rep); err != nil {
			return nil, err
		}
	}
	if err := out.commit(ctx); err != nil {
		if cause := context.Cause(ctx); cause != nil {
			return nil, &Interrupted{Cause: cause, Kept: rep.Measured, Out: opts.Out}
		}
		return nil, err
	}
	return r.epub, nil
}

// strictFailures is why a --strict build fails, nil when nothing does: the
// claims that do not hold, the gaps (and what fills them), undecided
// conditions and broken links.
func (b *Book) strictFailures(rep *Report) error {
	var failing []string
	n := 0
	for _, c := range rep.Claims {
		if c.Verdict == expr.False {
			n++
		}
	}
	if n > 0 {
		// The command line names each one with its place.
		failing = append(failing, fmt.Sprintf("%d claim(s) do not hold", n))
	}
	for _, g := range rep.Gaps {
		state := string(g.State)
		if g.Why != "" {
			state += " (" + g.Why + ")"
		}
		failing = append(failing, fmt.Sprintf("%s: experiment %s has no usable result in set %s: %s", b.Experiments[g.ID].Pos, g.ID, rep.Set, state))
	}
	if rep.GapFigures > 0 {
		first := rep.Warnings[slices.IndexFunc(rep.Warnings, IsGap)]
		failing = append(failing, fmt.Sprintf("%d place(s) show a gap instead of a figure; the first: %v", rep.GapFigures, first))
	}
	// A sentence picked by a condition the runs do not decide, with no
	// unsure branch to say so, states noise as a finding; a link to
	// nowhere, a directive shown as code, a callout shown as a quote and a
	// code block that swallows the rest of its chapter are broken pages.
	for _, w := range rep.Warnings {
		if k := WarningKind(w); k == parse.KindInconclusive || k == parse.KindLink || k == parse.KindMisspelt || k == parse.KindUnclosed || k == parse.KindCallout {
			failing = append(failing, w.Error())
		}
	}
	if len(rep.Gaps) > 0 && rep.Fill != "" {
		failing = append(failing, "fill the gaps with: "+rep.Fill)
	}
	if len(failing) > 0 {
		return errors.New("--strict: " + strings.Join(failing, "\n"))
	}
	return nil
}

// Interrupted is a build stopped by a signal (or a cancelled context):
// out/ is as it was, the experiments in Kept were measured and stored,
// and those in Left were not (the next build measures them).
type Interrupted struct {
	Cause      error
	Kept, Left []string
	Out        string // the site left as it was; "" when there is none (run)
}

func (e *Interrupted) Error() string {
	s := fmt.Sprintf("interrupted (%v)", e.Cause)
	if e.Out != "" {
		s += fmt.Sprintf(": %s was left as it was", e.Out)
	}
	if len(e.Kept) > 0 {
		s += fmt.Sprintf("; kept the %d experiment(s) measured: %s", len(e.Kept), strings.Join(e.Kept, ", "))
	}
	if len(e.Left) > 0 {
		s += fmt.Sprintf("; not measured: %s (the same command carries on with them)", strings.Join(e.Left, ", "))
	}
	return s
}

func (e *Interrupted) Unwrap() error { return e.Cause }

// gaps lists the experiments set cannot show after the build, and the
// command that fills them where one can.
func (b *Book) gaps(res *Results, opts Options, set string) ([]Status, string) {
	var gaps []Status
	var failed []string
	transcribed := false
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		switch st.State {
		case Transcribed:
			transcribed = true
		case Failed:
			failed = append(failed, st.ID)
			fallthrough
		case Missing, Stale, Unreadable:
			gaps = append(gaps, st)
		}
	}
	switch {
	case len(gaps) == 0, transcribed:
		return gaps, ""
	case set == opts.This.Name:
		// A build measures what is missing or stale; a failed probe is
		// tried again only when asked, with run.
		build := "go run . build"
		if opts.Here || opts.Machine != "" {
			build += " --here"
		}
		var cmds []string
		if len(failed) < len(gaps) { // the build measures the other gaps
			cmds = append(cmds, build)
		}
		if len(failed) > 0 {
			cmds = append(cmds, "go run . run "+strings.Join(failed, " "))
		}
		return gaps, strings.Join(cmds, " and ")
	}
	there := "go run . build"
	if set != b.Config.Machine {
		there += " --here"
	}
	return gaps, fmt.Sprintf("%s on %s (set %s is measured on that machine only, and its results committed from there); here (%s), go run . build --here measures them into this machine's own set and builds a preview from it into %s/",
		there, set, set, opts.This.Name, DefaultOut(b.Config, opts.This.Name))
}

// Render evaluates every chapter against res and lays out every page:
// file name → bytes. It never measures. A build streams the pages to disk
// instead (renderTo); Render is for the preview, which serves them from
// memory, and for check, which only wants the claims. A Book loaded with
// LoadCached takes unchanged chapters from its render cache.
func (b *Book) Render(res *Results) (pages map[string][]byte, warnings []error, claims []evaluate.Claim, err error) {
	pages, r, err := b.renderMemory(res, false)
	return pages, r.warnings, r.claims, err
}

// RenderLater is Render without the whole-book page and the EPUB, which
// whole makes when called (nil: the book is too large for them), for a
// preview that serves them when asked: at a hundred chapters they were
// half of a save's rebuild. Call whole before the next render from the
// same render cache, and not during one. The render cache's new entries
// stay in memory until FlushCache, so that the preview shows the page
// before it writes them.
func (b *Book) RenderLater(res *Results) (pages map[string][]byte, whole func() (map[string][]byte, error), err error) {
	pages, r, err := b.renderMemory(res, true)
	return pages, r.whole, err
}

// FlushCache writes the render cache's new entries into its folder, where
// the next process finds them (RenderLater leaves them in memory).
func (b *Book) FlushCache() { b.cache.flush() }

// renderMemory is Render and RenderLater: the book checked against res,
// then rendered into memory.
func (b *Book) renderMemory(res *Results, later bool) (map[string][]byte, rendering, error) {
	if err := b.Check(res); err != nil {
		return nil, rendering{}, err
	}
	m := &memorySite{pages: map[string][]byte{}}
	r, err := b.renderTo(res, m, false, later)
	if err != nil {
		return nil, r, err
	}
	return m.pages, r, nil
}

// rendering is what renderTo returns beside the pages.
type rendering struct {
	warnings []error
	external []string // the chapters' links to other sites, never fetched
	claims   []evaluate.Claim
	cached   int // chapters whose page came from the render cache
	epub     []byte
	whole    func() (map[string][]byte, error) // with later: makes the whole-book page and the EPUB
}

// siteSink receives the site's files as they are made, from several
// goroutines at once: as bytes (put), as bytes the render cache keeps as
// a blob too (keep), or as a blob of the render cache (place), which it
// may refuse (false).
type siteSink interface {
	put(name string, data []byte) error
	keep(name string, data []byte, c *rendercache.Cache) (rendercache.Blob, error)
	place(name string, c *rendercache.Cache, blob rendercache.Blob) (bool, error)
}

// memorySite is a site held in memory.
type memorySite struct {
	mu    sync.Mutex
	pages map[string][]byte
}

func (m *memorySite) put(name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages[name] = data
	return nil
}

func (m *memorySite) keep(name string, data []byte, c *rendercache.Cache) (rendercache.Blob, error) {
	m.put(name, data)
	b, err := c.PutBlob(data)
	if err != nil {
		err = cacheError{err}
	}
	return b, err
}

func (m *memorySite) place(name string, c *rendercache.Cache, blob rendercache.Blob) (bool, error) {
	data, ok := c.ReadBlob(blob)
	if ok {
		m.put(name, data)
	}
	return ok, nil
}

// chapterOut is what the rest of the site needs from one chapter once its
// page is written: small, so that a book of a thousand chapters is not
// held in memory.
type chapterOut struct {
	warnings []error
	claims   []evaluate.Claim
	search   []byte   // the chapter's entries of the search index, until the index takes them
	body     []byte   // the chapter's body, for the whole-book page and the EPUB
	sets     []string // the sets other than the build's own its page draws on
	cached   bool     // the page came from the render cache
	err      error
}

// layout is what every page of one build shares.
type layout struct {
	res     *Results
	layouts fs.FS
	tmpl    *template.Template
	base    siteData
	has     map[string]bool   // experiments with a result, which get data links
	pageOf  map[string]string // experiment id → the page that shows it
	out     siteSink
	search  *site.SearchIndex
	cache   *chapterCache // nil: none
	epub    bool          // make the EPUB even if the site does not hold it
}

// renderTo evaluates every chapter against res, lays out every page and
// hands each to out as soon as it is made. The chapters are independent
// and rendered in parallel, on GOMAXPROCS goroutines; the warnings,
// claims and errors come back in chapter order whatever the order the
// chapters finished in. With a cache, a chapter whose inputs are those of
// a previous build is taken from it instead of being evaluated again.
// It never measures. With epub, it returns the book as an EPUB too; with
// later, it leaves the whole-book page and the EPUB to r.whole.
func (b *Book) renderTo(res *Results, out siteSink, epub, later bool) (r rendering, err error) {
	if !later {
		defer b.cache.flush()
	}
	l, err := b.newLayout(res, out, epub)
	if err != nil {
		return r, err
	}
	if l.cache, err = b.cache.chapters(b, l); err != nil {
		return r, err
	}
	outs, whole, err := b.renderChapters(l, &r)
	if err != nil {
		return r, err
	}
	links := b.checkLinks()
	r.warnings, r.external = append(r.warnings, links.warnings...), links.external
	if err := b.copyStatic(out, links.static); err != nil {
		return r, err
	}
	var preface bytes.Buffer
	if err := render.Markdown().Convert([]byte(b.Config.Preface), &preface); err != nil {
		return r, err
	}
	if err := b.writeIndex(l, preface.Bytes()); err != nil {
		return r, err
	}
	if err := b.extraPages(l, outs); err != nil {
		return r, err
	}
	switch {
	case whole && later:
		r.whole = func() (map[string][]byte, error) {
			defer b.cache.flush()
			m, lw := &memorySite{pages: map[string][]byte{}}, *l
			lw.out = m
			_, err := b.wholeBook(&lw, outs, preface.Bytes(), links.static)
			return m.pages, err
		}
	case whole:
		r.epub, err = b.wholeBook(l, outs, preface.Bytes(), links.static)
	}
	return r, err
}

// newLayout is what every page of a build from res shares.
func (b *Book) newLayout(res *Results, out siteSink, epub bool) (l *layout, err error) {
	res.Lang = b.Config.Words
	l = &layout{res: res, layouts: cmp.Or(b.Templates, templates.Embedded()), out: out, epub: epub, has: map[string]bool{}, pageOf: map[string]string{}}
	if l.tmpl, err = templates.Parse(l.layouts); err != nil {
		return nil, err
	}
	l.base = siteData{Book: b.Config.Title, Lang: b.Config.Lang, W: b.Config.Words, Shows: len(b.Config.Machines) > 0,
		Machine: res.Machine, Provenance: b.provenance(res), Fleet: b.fleet.nav(b.Config.Words)}
	if b.Config.EPUB {
		l.base.EPUB = EPUBFile
	}
	for _, d := range b.Docs {
		l.base.Chapters = append(l.base.Chapters, site.Chapter{Title: d.Front.Title, Slug: d.Front.Slug, Order: d.Front.Order})
		for _, e := range d.Experiments {
			l.pageOf[e.ID] = d.Front.Slug + ".html"
			if res.Has("", e.ID) {
				l.has[e.ID] = true
			}
		}
	}
	return l, nil
}

// renderChapters renders every chapter in parallel into l's site, adding
// their warnings, claims and cache hits to r. The chapters' bodies are
// kept for the whole-book page and the EPUB (whole) unless they come to
// more than maxWholeBook, when neither is made.
func (b *Book) renderChapters(l *layout, r *rendering) (outs []chapterOut, whole bool, err error) {
	outs = make([]chapterOut, len(b.Docs))
	l.search = site.NewSearchIndex(l.out.put)
	var held atomic.Int64 // bytes of the chapters' bodies, for the whole book
	parallel(len(b.Docs), func(i int) {
		o := b.renderChapter(l, i)
		if held.Add(int64(len(o.body))) > maxWholeBook {
			o.body = nil
		}
		// The index takes the entries, and writes them in parts as they
		// come: a book's whole text is not held until its end.
		l.search.Add(i, o.search)
		o.search = nil
		outs[i] = o
	})
	var errs []error
	for _, o := range outs {
		r.warnings = append(r.warnings, o.warnings...)
		r.claims = append(r.claims, o.claims...)
		errs = append(errs, o.err) // errors.Join leaves out the nil ones
		if o.cached {
			r.cached++
		}
	}
	errs = append(errs, l.res.Errors())
	if err := errors.Join(errs...); err != nil {
		return nil, false, err
	}
	whole = held.Load() <= maxWholeBook
	if !whole {
		for i := range outs {
			outs[i].body = nil
		}
		if l.epub {
			return nil, false, fmt.Errorf("--epub: the chapters' pages come to %d MB, more than the %d MB an EPUB of this tool holds; leave --epub out for a book this large", held.Load()>>20, maxWholeBook>>20)
		}
		r.warnings = append(r.warnings, fmt.Errorf("print.html (and book.epub) left out: the chapters' pages come to %d MB, more than the %d MB one page should hold, which no browser lays out", held.Load()>>20, maxWholeBook>>20))
	}
	l.base.PrintPage = whole
	return outs, whole, nil
}

// writeIndex writes the contents page, and the stylesheet.
func (b *Book) writeIndex(l *layout, preface []byte) error {
	css, err := templates.Stylesheet(l.layouts, b.Config.Words)
	if err != nil {
		return err
	}
	if err := l.out.put("style.css", css); err != nil {
		return err
	}
	index := l.page("index.html", "", -1, "", nil)
	index.Preface = template.HTML(preface)
	page, err := execute(l.tmpl, "index.html", index)
	if err != nil {
		return err
	}
	return l.out.put("index.html", page)
}

// maxWholeBook bounds the chapters' bodies the whole-book page and the
// EPUB are made of: a page larger is more than a browser lays out at a
// reader's pace (the real book's is half a megabyte), and holding every
// body until the end would make a large book's build grow with the book
// (428 MB of bodies at 10,000 chapters, 2.9 GB at its peak).
const maxWholeBook = 16 << 20

// renderChapter evaluates chapter i, lays out its page and hands it to
// l.out; or, when l.cache holds the page of the same inputs, hands over
// that one.
func (b *Book) renderChapter(l *layout, i int) (o chapterOut) {
	d := b.Docs[i]
	name := d.Front.Slug + ".html"
	if page, o, ok := l.cache.get(i); ok {
		if placed, err := l.out.place(name, l.cache.rc.c, page); placed || err != nil {
			o.cached, o.err = true, cmp.Or(err, l.exportAll(d, nil))
			return o
		}
	}
	doc, err := b.doc(i)
	if err != nil {
		return chapterOut{err: err}
	}
	// The chapter's own results, held until their raw data is exported
	// from this same reading (a large book's are not kept: see Results).
	held := map[string]*dataset.Result{}
	for _, e := range d.Experiments {
		held[e.ID], _ = l.res.Lookup("", e.ID)
	}
	deps := l.cache.record(l.res)
	p, err := evaluate.Evaluate(doc, deps, b.Experiments)
	o.warnings = p.Warnings
	if o.err = err; err != nil {
		return o
	}
	o.claims, o.sets = p.Claims, p.Sets
	body, headings, err := render.SitePage(doc, p.Views, render.Site{Page: name, Data: l.has, PageOf: l.pageOf, Xref: b.Xref})
	if o.err = err; err != nil {
		return o
	}
	o.body = body
	text := string(body)
	o.search = site.SearchEntries(site.Sections(d.Front.Title, d.Front.Slug, text, headings))
	page := l.page(name, d.Front.Title, i, text, site.Contents(headings))
	page.Lang = cmp.Or(d.Front.Lang, page.Lang) // a chapter may be in another language than the book
	if i > 0 {
		page.Prev = &l.base.Chapters[i-1]
	}
	if i+1 < len(b.Docs) {
		page.Next = &l.base.Chapters[i+1]
	}
	html, err := execute(l.tmpl, "chapter.html", page)
	if o.err = err; err != nil {
		return o
	}
	blob, err := l.write(name, html)
	if o.err = err; err == nil {
		l.cache.put(i, deps, blob, o)
		o.err = l.exportAll(d, held)
	}
	return o
}

// write hands a page to l.out. With a cache, the page is kept there as a
// blob too; page names the blob.
func (l *layout) write(name string, data []byte) (page rendercache.Blob, err error) {
	if l.cache == nil {
		return page, l.out.put(name, data)
	}
	page, err = l.out.keep(name, data, l.cache.rc.c)
	return page, l.cache.rc.fail(err)
}

// parallel calls f(0), …, f(n-1) on up to GOMAXPROCS goroutines and
// returns when all have returned.
func parallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// provenance describes where the set's figures come from, for the
// sentences the layouts print about them; the set's machine is described
// from the first of its results.
func (b *Book) provenance(res *Results) templates.Provenance {
	p := templates.Provenance{Set: res.Machine, Machine: fmt.Sprintf(b.Config.Words.NoResultsSuffix, res.Machine), Book: res.Machine == b.Config.Machine,
		Experiments: len(b.Order), Words: b.Config.Words}
	described := false
	for _, id := range b.Order {
		r, ok := res.Header("", id)
		if ok && !described {
			p.Machine = r.Machine.Name + " — " + b.Config.Words.MachineSummary(r.Machine)
			described = true
		}
		switch {
		case !ok:
			p.Missing++
			continue
		case !r.Measured():
			p.Transcribed = true
		case len(r.Failures) > 0:
			p.Failed++
		}
		if _, stale := res.Stale("", id); stale {
			p.Stale++
		}
	}
	return p
}

type siteData struct {
	Book, Lang, Machine string
	W                   *view.Words `json:"-"` // the interface's words (Lang's: in the cache's key)
	Shows               bool        // the book shows other machines' figures beside its own
	Provenance          templates.Provenance
	Page                string
	Preface, Body       template.HTML
	Contents            template.HTML // the whole-book page's
	EPUB                string        // the EPUB's file in the site; "": none
	PrintPage           bool          // the site has print.html (not for a book too large for one page)
	Chapters            []site.Chapter
	Prev, Next          *site.Chapter
	Fleet               *fleetNav // the switcher of the fleet's site; nil: none
	pageExtras
}

func execute(t *template.Template, name string, data siteData) ([]byte, error) {
	var buf bytes.Buffer
	// The body, the whole-book page's contents and preface, and the rest
	// of the layout: grown once, not doubled up to a chapter's size.
	buf.Grow(len(data.Body) + len(data.Contents) + len(data.Preface) + 8<<10)
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}
