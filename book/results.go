package book

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/store"
	"measuredbook/view"
)

// Results reads result sets from results/SET/ID.txt on demand. Set "" is
// the build's own set (Machine); any other name is another set, such as
// the reference set m1, named by on("m1", …), machines: or a plot's ref:.
// Chapters are evaluated in parallel
// against one Results: its methods may be called concurrently, and files
// are read outside its lock, each once.
type Results struct {
	Dir      string
	Machine  string
	probes   []probe.Probe                  // the registry: each result's units are checked against its probe's
	mu       sync.Mutex                     // guards what follows
	files    map[string]*resultFile         // set/id →
	stale    map[string]string              // id → why, of the build's set (MarkStale)
	sets     []string                       // Sets, nil until read
	sources  *Sources                       // what a serving process remembers of the files; nil: nothing
	cache    *renderCache                   // where a file's header is kept once it parsed; nil: none
	held     atomic.Int64                   // bytes of the results files whose results are held for good
	machines map[string]dataset.Fingerprint // the headers' fingerprints, one per machine (headerOf)

	// BookMachines are the machines the book shows beside its own
	// (book.yaml's machines:), present or not: evaluate.Sets.
	BookMachines []string
	// Lang is the book's language (book.yaml's lang:): evaluate.Language.
	Lang *view.Words
	// This is this machine: a result of its own set measured under
	// another Go release or kernel is stale (book.yaml's stale-on:).
	This dataset.Fingerprint
}

// resultFile is one results file. It is read once, and its result kept
// for good only while the files read so far are few (keepResults); past
// that, only while something holds it (weak): a book of 10,000
// experiments would otherwise hold every result, 35 KB each decoded, from
// the first look to the build's end. A result let go, or whose header
// came from the render cache, is read again when asked for, and must be
// the bytes first read (its digest). Its header (the result without its
// rows) is always kept.
type resultFile struct {
	once   sync.Once
	mu     sync.Mutex // guards res once the file was first read, and is held while it is read again
	path   string
	res    weak.Pointer[dataset.Result] // zero: none, or it could not be read
	keep   *dataset.Result              // the result, held for good while the results held are few (keepResults)
	hold   bool                         // keep it: it is among the first keepResults bytes read
	head   *dataset.Result              // the result without its rows, held for good: what Status and the site's pages ask
	stored bool                         // a result was read
	digest [sha256.Size]byte
	err    error // why it could not be read (not "there is none")
}

// NewResults opens the result sets under dir, drawing the build's numbers
// from machineName's set; probes is the registry, whose specs every
// result read is checked against.
func NewResults(dir, machineName string, probes []probe.Probe) *Results {
	return &Results{Dir: dir, Machine: machineName, probes: probes, files: map[string]*resultFile{}}
}

// file returns the file of id in set, read, and its result if this call
// read it (nil: none, or read before: see again).
func (r *Results) file(set, id string) (*resultFile, *dataset.Result) {
	set = r.setName(set)
	key := set + "/" + id
	r.mu.Lock()
	f := r.files[key]
	if f == nil {
		f = &resultFile{}
		r.files[key] = f
	}
	r.mu.Unlock()
	var res *dataset.Result
	f.once.Do(func() { res = r.read(f, set, id) })
	return f, res
}

// read reads f, the file of id in set, for the first time.
func (r *Results) read(f *resultFile, set, id string) *dataset.Result {
	var res *dataset.Result
	var data []byte
	err := store.CheckName("result set", set)
	if err == nil {
		// Its units are checked against its probe's: a unit edited by
		// hand would be read as another quantity.
		f.path = store.Path(r.Dir, set, id)
		if m, ok := r.sources.lookup(f.path); ok && m.result != nil {
			res, f.digest = m.result, m.sum
		} else {
			fi := r.sources.stat(f.path)
			if data, err = store.ReadFile(f.path, store.MaxFile); err == nil {
				sum := sha256.Sum256(data)
				if head, ok := r.cache.resultHeader(set, id, sum); ok {
					// These very bytes parsed before: the rows are read
					// when a chapter's evaluation asks for them (again).
					f.digest, f.stored, f.head = sum, true, r.headerOf(head)
					f.hold = r.held.Add(int64(len(data))) <= keepResults
					return nil
				}
				if res, err = store.Parse(data, f.path, r.probes); err == nil {
					f.digest = sum
					r.sources.remember(f.path, fi, sourceFile{sum: f.digest, result: res})
				}
			}
		}
		if err == nil {
			if err = store.Belongs(res, set, id); err != nil {
				res, f.digest = nil, [sha256.Size]byte{}
				err = fmt.Errorf("%s: %v", f.path, err)
			}
		}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.err = err
	}
	if res != nil {
		f.res, f.stored = weak.Make(res), true
		f.head = r.headerOf(res)
		r.cache.keepResultHeader(set, id, f.digest, f.head)
		if f.hold = r.held.Add(int64(len(data))) <= keepResults; f.hold {
			f.keep = res
		}
	}
	return res
}

// headerOf is res without its rows and units, its strings copied: a
// string read from a results file shares the whole file's text, which a
// header kept for the build would hold (94 MB for 10,000 files). One
// fingerprint is kept per machine, not one per result.
func (r *Results) headerOf(res *dataset.Result) *dataset.Result {
	c := strings.Clone
	h := &dataset.Result{Experiment: c(res.Experiment), Probe: c(res.Probe), Hash: c(res.Hash), Runs: res.Runs, RunTime: res.RunTime,
		Start: res.Start, Duration: res.Duration, Source: c(res.Source), Stop: res.Stop, Sweep: map[string][]string{}}
	h.Stop.Why = c(res.Stop.Why)
	for _, k := range res.Order {
		h.Order = append(h.Order, c(k))
	}
	for k, vs := range res.Sweep {
		for _, v := range vs {
			h.Sweep[c(k)] = append(h.Sweep[c(k)], c(v))
		}
	}
	params := func(p probe.Params) probe.Params {
		out := probe.Params{}
		for k, v := range p {
			out[c(k)] = c(v)
		}
		return out
	}
	for _, f := range res.Failures {
		h.Failures = append(h.Failures, dataset.Failure{Params: params(f.Params), Err: c(f.Err)})
	}
	for _, u := range res.Unavailable {
		h.Unavailable = append(h.Unavailable, dataset.Unavailable{Params: params(u.Params), Reason: c(u.Reason)})
	}
	key := fmt.Sprint(res.Machine) // fmt prints a map's keys sorted
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.machines[key]
	if !ok {
		m = res.Machine
		m.Name, m.CPU, m.OS, m.Kernel, m.Arch, m.Go, m.Virtual = c(m.Name), c(m.CPU), c(m.OS), c(m.Kernel), c(m.Arch), c(m.Go), c(m.Virtual)
		m.Limits = params(probe.Params(m.Limits))
		if r.machines == nil {
			r.machines = map[string]dataset.Fingerprint{}
		}
		r.machines[key] = m
	}
	h.Machine = m
	return h
}

// keepResults bounds the results files whose results are held for the
// whole build, in bytes of the files (a result takes about four times its
// file decoded): a book of a few hundred experiments never reads one twice.
const keepResults = 4 << 20

// again returns f's result, read again if it was let go (or never parsed:
// its header came from the render cache). A file that changed since it
// was first read is an error of the build (Errors).
func (r *Results) again(f *resultFile) *dataset.Result {
	f.mu.Lock() // f.res is set here, by whichever chapter asks first
	defer f.mu.Unlock()
	if res := f.res.Value(); res != nil {
		return res
	}
	data, err := store.ReadFile(f.path, store.MaxFile)
	var res *dataset.Result
	if err == nil && sha256.Sum256(data) != f.digest {
		err = fmt.Errorf("%s: changed while the book was being built; build again", f.path)
	}
	if err == nil {
		res, err = store.Parse(data, f.path, r.probes)
	}
	if err != nil {
		r.mu.Lock()
		f.err = cmp.Or(f.err, err)
		r.mu.Unlock()
		return nil
	}
	f.res = weak.Make(res)
	if f.hold {
		f.keep = res
	}
	return res
}

// Lookup implements evaluate.Results.
func (r *Results) Lookup(set, id string) (*dataset.Result, bool) {
	f, res := r.file(set, id)
	if res == nil && f.stored {
		res = r.again(f)
	}
	return res, res != nil
}

// Header is the result of id in set without its rows and units (Rows and
// Units are nil): its probe, params, machine, provenance and failures,
// kept for the whole build whatever the book's size.
func (r *Results) Header(set, id string) (*dataset.Result, bool) {
	f, _ := r.file(set, id)
	return f.head, f.head != nil
}

// Has reports whether set holds a result of id, without keeping it.
func (r *Results) Has(set, id string) bool {
	f, _ := r.file(set, id)
	r.mu.Lock()
	defer r.mu.Unlock()
	return f.stored && f.err == nil
}

// digest identifies what Lookup answers for id in set, for the render
// cache's keys: the SHA-256 of the file read, zero when there is none (or
// it is hidden). A result that could not be read fails the build, so it
// never reaches a cache.
func (r *Results) digest(set, id string) [sha256.Size]byte {
	f, _ := r.file(set, id)
	return f.digest
}

// Forget drops a result read after it was measured anew, and the list of
// sets (the measurement may have made its set).
func (r *Results) Forget(set, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.files, r.setName(set)+"/"+id)
	r.sets = nil
}

// Err is why the result of id in set could not be read (nil when it was,
// or when there is none).
func (r *Results) Err(set, id string) error {
	f, _ := r.file(set, id)
	r.mu.Lock()
	defer r.mu.Unlock()
	return f.err
}

// Hide makes the build's own set answer "not stored" for id, as if it had
// never been measured: the preview shows an experiment whose params changed
// as not measured yet, not with numbers measured for other params.
func (r *Results) Hide(id string) {
	f := &resultFile{}
	f.once.Do(func() {})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[r.setName("")+"/"+id] = f
}

// setName resolves "" to the build's own set, so both spellings share one
// cache entry.
func (r *Results) setName(set string) string {
	return cmp.Or(set, r.Machine)
}

// Own implements evaluate.Sets: the build's set.
func (r *Results) Own() string { return r.Machine }

// Elsewhere implements evaluate.Elsewhere: the build's set is another
// machine's than this one (This), so what it lacks is measured there.
func (r *Results) Elsewhere() bool { return r.This.Name != "" && r.Machine != r.This.Name }

// Shown implements evaluate.Sets: the machines the book shows.
func (r *Results) Shown() []string { return r.BookMachines }

// Words is the book's language, Korean unless Lang is set: evaluate.Language.
func (r *Results) Words() *view.Words {
	return cmp.Or(r.Lang, view.Korean)
}

// Errors joins the errors of the result files that exist but could not
// be read, in the order of their sets and ids (chapters are evaluated in
// parallel, so the order they were first looked up in varies). It is
// called once no lookup is under way.
func (r *Results) Errors() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(r.files)) {
		errs = append(errs, r.files[k].err)
	}
	return errors.Join(errs...)
}

// Sets lists the result sets present (directory names), sorted; it
// implements evaluate.Sets.
//
// The folder is read once (every chapter asks), and again after Forget:
// a measurement may have made the set's folder.
func (r *Results) Sets() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sets == nil {
		r.sets = []string{}
		entries, _ := os.ReadDir(r.Dir)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				r.sets = append(r.sets, e.Name())
			}
		}
	}
	return slices.Clone(r.sets)
}

// State is what the build's set holds for one experiment.
type State string

const (
	Fresh   State = "fresh"   // stored, and matches the probe's code, params and runs
	Stale   State = "stale"   // stored, but something it was measured with changed
	Missing State = "missing" // never measured in this set
	// Unreadable: a file is there but cannot be read (corrupt, cut,
	// not a regular file); Why holds the error with its file and line.
	Unreadable State = "unreadable"
	Failed     State = "failed" // stored with combinations that failed
	// Transcribed figures (a reference set such as m1) were never measured
	// by a probe, so they cannot go stale: they are what the book reported.
	Transcribed State = "transcribed"
)

// ruleText is a run rule in the words compare shows: "runs: auto ±5%"
// or "runs: 3", and when sized, the run time counts are sized to.
func ruleText(auto bool, runs int, precision float64, sized bool, runTime time.Duration) string {
	rule := fmt.Sprintf("runs: %d", runs)
	if auto {
		rule = fmt.Sprintf("runs: auto ±%g%%", 100*precision)
	}
	if sized {
		rule += fmt.Sprintf(", counts sized to %v", runTime)
	}
	return rule
}

// Sized reports whether experiment e gives a count as probe.Auto, for the
// runner to size from the book's run-time.
func Sized(e *parse.Experiment) bool {
	return slices.ContainsFunc(e.Order, func(k string) bool { return probe.IsAuto(e.Sweep[k]) })
}

// MarkStale records which results of the build's set are stale, so that
// the pages mark them where they are shown (evaluate.Staleness).
func (r *Results) MarkStale(sts []Status) {
	stale := map[string]string{}
	for _, st := range sts {
		if st.State == Stale {
			stale[st.ID] = st.Why
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stale = stale
}

// Stale implements evaluate.Staleness for the build's set.
func (r *Results) Stale(set, id string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.stale[id]
	return why, ok && set == ""
}

// Status is one experiment's state in a result set.
// It holds no result: a book's statuses would hold every result at once.
type Status struct {
	ID    string
	State State
	Why   string // for stale and failed: what changed or what broke
}

// Status compares every experiment (or the given ids) with what the set
// holds: a stored result matches when the probe's code hash, its params and
// its runs are the ones the chapter asks for now.
func (b *Book) Status(res *Results, all []probe.Probe, ids []string) []Status {
	var out []Status
	for _, id := range ids {
		e := b.Experiments[id]
		st := Status{ID: id}
		r, ok := res.Header("", id)
		switch {
		case !ok && res.Err("", id) != nil:
			st.State, st.Why = Unreadable, res.Err("", id).Error()
		case !ok:
			st.State = Missing
		case !r.Measured():
			st.State, st.Why = Transcribed, r.Source
		default:
			st.State, st.Why = compare(e, func() string { return b.probeHash(all, e.Probe, r.Machine.GOOS(), r.Machine.Arch) }, r, b.Config.Precision, b.Config.RunTime)
			if why := b.machineChanged(res, r); why != "" && st.State != Stale {
				st.State, st.Why = Stale, why
			} else if why != "" {
				st.Why += "; " + why
			}
		}
		out = append(out, st)
	}
	return out
}

// probeHash is the code hash of the probe named name as it builds on goos
// and goarch (the result's machine), computed once per Book (or taken from
// the render cache): hashing parses and prints the probe's sources, and
// every experiment of a probe (and every Status of a build) shares it.
func (b *Book) probeHash(all []probe.Probe, name, goos, goarch string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := name + "\x00" + goos + "\x00" + goarch
	if h, ok := b.hashes[key]; ok {
		return h
	}
	p, _ := probe.Lookup(all, name)
	h := b.cache.probeHash(p, goos, goarch)
	if b.hashes == nil {
		b.hashes = map[string]string{}
	}
	b.hashes[key] = h
	return h
}

// machineChanged says what of this machine (book.yaml's stale-on:) is not
// what r of its own set was measured under, "" when nothing is or when
// the set is another machine's.
func (b *Book) machineChanged(res *Results, r *dataset.Result) string {
	if res.This.Name == "" || res.Machine != res.This.Name || r.Machine.Name != res.This.Name {
		return ""
	}
	var why []string
	if slices.Contains(b.Config.StaleOn, "go") && r.Machine.Go != res.This.Go {
		why = append(why, fmt.Sprintf("%s → %s", r.Machine.Go, res.This.Go))
	}
	if slices.Contains(b.Config.StaleOn, "kernel") && kernelVersion(r.Machine.Kernel) != kernelVersion(res.This.Kernel) {
		why = append(why, fmt.Sprintf("kernel %s → %s", r.Machine.Kernel, res.This.Kernel))
	}
	return strings.Join(why, "; ")
}

// kernelVersion is a kernel's name and version without the release's
// local suffix ("Linux 6.18.44-fc-v669" → "Linux 6.18.44"): one virtual
// machine image comes up under a new suffix on every boot, a new kernel
// changes the version.
func kernelVersion(k string) string {
	name, release, _ := strings.Cut(k, " ")
	n := strings.IndexFunc(release, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if n < 0 {
		return k
	}
	return name + " " + release[:n]
}

// compare says whether r is what e asks for now; precision is the book's
// for runs: auto, runTime its for counts given as auto.
func compare(e *parse.Experiment, hash func() string, r *dataset.Result, precision float64, runTime time.Duration) (State, string) {
	var why []string
	if r.Probe != e.Probe {
		why = append(why, fmt.Sprintf("measured with probe %s, chapter asks for %s", r.Probe, e.Probe))
	} else if h := hash(); r.Hash != h {
		// The code that runs on the result's machine: a change to kqueue
		// code leaves a Linux result fresh.
		why = append(why, fmt.Sprintf("probe code changed (%.8s → %.8s)", r.Hash, h))
	}
	if !slices.Equal(r.Order, e.Order) {
		why = append(why, fmt.Sprintf("params changed (%s → %s)", strings.Join(r.Order, ","), strings.Join(e.Order, ",")))
	} else {
		for _, k := range e.Order {
			if !slices.Equal(r.Sweep[k], e.Sweep[k]) {
				why = append(why, fmt.Sprintf("%s changed (%s → %s)", k, strings.Join(r.Sweep[k], ","), strings.Join(e.Sweep[k], ",")))
			}
		}
	}
	was := ruleText(r.Stop.Auto, r.Runs, r.Stop.Precision, r.RunTime > 0, r.RunTime)
	if now := ruleText(e.Runs <= 0, e.Runs, cmp.Or(e.Precision, precision), Sized(e), runTime); was != now {
		why = append(why, fmt.Sprintf("runs changed (%s → %s)", was, now))
	}
	if len(why) > 0 {
		return Stale, strings.Join(why, "; ")
	}
	if len(r.Failures) > 0 {
		f := r.Failures[0]
		return Failed, fmt.Sprintf("%d combination(s) failed, first [%s]: %s", len(r.Failures), f.Params.Key(), f.Err)
	}
	return Fresh, ""
}
