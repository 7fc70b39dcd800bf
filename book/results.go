package book

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/render"
	"measuredbook/store"
)

// Results reads result sets from results/SET/ID.txt on demand. Set "" is
// the build's own set (Machine); any other name is another set, such as
// the reference set m1, named by on("m1", …), machines: or a plot's ref:.
type Results struct {
	Dir     string
	Machine string
	probes  []probe.Probe // the registry: each result's units are checked against its probe's
	cache   map[string]*dataset.Result
	errs    []error
	stale   map[string]string // id → why, of the build's set (MarkStale)
	failed  map[string]error  // set/id → why its file could not be read

	// BookMachines are the machines the book shows beside its own
	// (book.yaml's machines:), present or not: render.Sets.
	BookMachines []string
}

// NewResults opens the result sets under dir, drawing the build's numbers
// from machineName's set; probes is the registry, whose specs every
// result read is checked against.
func NewResults(dir, machineName string, probes []probe.Probe) *Results {
	return &Results{Dir: dir, Machine: machineName, probes: probes, cache: map[string]*dataset.Result{}, failed: map[string]error{}}
}

// Lookup implements render.Results.
func (r *Results) Lookup(set, id string) (*dataset.Result, bool) {
	set = r.setName(set)
	key := set + "/" + id
	if res, ok := r.cache[key]; ok {
		return res, res != nil
	}
	var res *dataset.Result
	err := store.CheckName("result set", set)
	if err == nil {
		// Its units are checked against its probe's: a unit edited by
		// hand would be read as another quantity.
		res, err = store.Load(store.Path(r.Dir, set, id), r.probes)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.errs = append(r.errs, err)
			r.failed[key] = err
		}
		res = nil
	}
	r.cache[key] = res
	return res, res != nil
}

// Forget drops a cached result after it was measured anew.
func (r *Results) Forget(set, id string) {
	key := r.setName(set) + "/" + id
	delete(r.cache, key)
	if err, ok := r.failed[key]; ok {
		delete(r.failed, key)
		r.errs = slices.DeleteFunc(r.errs, func(e error) bool { return e == err })
	}
}

// Err is why the result of id in set could not be read (nil when it was,
// or when there is none).
func (r *Results) Err(set, id string) error {
	r.Lookup(set, id)
	return r.failed[r.setName(set)+"/"+id]
}

// Hide makes the build's own set answer "not stored" for id, as if it had
// never been measured: the preview shows an experiment whose params changed
// as not measured yet, not with numbers measured for other params.
func (r *Results) Hide(id string) { r.cache[r.setName("")+"/"+id] = nil }

// setName resolves "" to the build's own set, so both spellings share one
// cache entry.
func (r *Results) setName(set string) string {
	if set == "" {
		return r.Machine
	}
	return set
}

// Own implements render.Sets: the build's set.
func (r *Results) Own() string { return r.Machine }

// Shown implements render.Sets: the machines the book shows.
func (r *Results) Shown() []string { return r.BookMachines }

// Errors are the result files that exist but could not be read.
func (r *Results) Errors() []error { return r.errs }

// Sets lists the result sets present (directory names), sorted; it
// implements render.Sets.
func (r *Results) Sets() []string {
	entries, _ := os.ReadDir(r.Dir)
	var sets []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			sets = append(sets, e.Name())
		}
	}
	return sets
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

// MarkStale records which results of the build's set are stale, so that
// the pages mark them where they are shown (render.Staleness).
func (r *Results) MarkStale(sts []Status) {
	r.stale = map[string]string{}
	for _, st := range sts {
		if st.State == Stale {
			r.stale[st.ID] = st.Why
		}
	}
}

// Stale implements render.Staleness for the build's set.
func (r *Results) Stale(set, id string) (string, bool) {
	why, ok := r.stale[id]
	return why, ok && set == ""
}

// Status is one experiment's state in a result set.
type Status struct {
	ID     string
	State  State
	Why    string // for stale and failed: what changed or what broke
	Result *dataset.Result
}

// Status compares every experiment (or the given ids) with what the set
// holds: a stored result matches when the probe's code hash, its params and
// its runs are the ones the chapter asks for now.
func (b *Book) Status(res *Results, all []probe.Probe, ids []string) []Status {
	var out []Status
	for _, id := range ids {
		e := b.Experiments[id]
		st := Status{ID: id}
		r, ok := res.Lookup("", id)
		st.Result = r
		switch {
		case !ok && res.Err("", id) != nil:
			st.State, st.Why = Unreadable, res.Err("", id).Error()
		case !ok:
			st.State = Missing
		case !r.Measured():
			st.State, st.Why = Transcribed, r.Source
		default:
			p, _ := probe.Lookup(all, e.Probe)
			st.State, st.Why = compare(e, p, r)
		}
		out = append(out, st)
	}
	return out
}

func compare(e *render.Experiment, p probe.Probe, r *dataset.Result) (State, string) {
	var why []string
	if r.Probe != e.Probe {
		why = append(why, fmt.Sprintf("measured with probe %s, chapter asks for %s", r.Probe, e.Probe))
	} else if h := p.HashFor(r.Machine.GOOS(), r.Machine.Arch); r.Hash != h {
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
	if r.Runs != e.Runs {
		why = append(why, fmt.Sprintf("runs changed (%d → %d)", r.Runs, e.Runs))
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
