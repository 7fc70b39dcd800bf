package probe

import (
	"fmt"
	"slices"
	"strings"
)

// MaxCombos bounds a sweep, and MaxRuns its runs per combination: each
// run is a child process of its own.
const (
	MaxCombos = 10_000
	MaxRuns   = 1_000
)

// Sweep is the values each param of a probe takes: a chapter's params:,
// or the probe verb's --param. Values are checked as they are added, so
// both report the same mistakes in the same words.
type Sweep struct {
	spec *Spec
	// suggest is the hint after an unknown param's name, as
	// " (did you mean idle?)", or "".
	suggest func(name string, known []string) string
	Values  map[string][]string // canonical values per param, in the order given
}

// NewSweep starts an empty sweep of s's params; suggest makes the hint
// after an unknown param's name.
func (s *Spec) NewSweep(suggest func(name string, known []string) string) *Sweep {
	return &Sweep{spec: s, suggest: suggest, Values: map[string][]string{}}
}

// Order is the params' order, the spec's: the first varies slowest.
func (w *Sweep) Order() []string {
	order := make([]string, len(w.spec.Params))
	for i, p := range w.spec.Params {
		order[i] = p.Name
	}
	return order
}

// Param begins the values of the named param: an error if the probe has
// no such param or the sweep was given it already.
func (w *Sweep) Param(name string) (Param, error) {
	p, ok := w.spec.Param(name)
	if !ok {
		return Param{}, fmt.Errorf("probe %s has no param %q%s", w.spec.Name, name, w.suggest(name, w.Order()))
	}
	if _, dup := w.Values[name]; dup {
		return Param{}, fmt.Errorf("duplicate param %q", name)
	}
	w.Values[name] = []string{}
	return p, nil
}

// Add adds one value of p, in its canonical form: an error if it does not
// fit p's kind or is in the sweep already.
func (w *Sweep) Add(p Param, v string) error {
	if strings.TrimSpace(v) == Auto {
		switch {
		case !p.Sample:
			return fmt.Errorf("param %s is not a count of repetitions within a run, so it cannot be %s", p.Name, Auto)
		case len(w.Values[p.Name]) > 0:
			return fmt.Errorf("param %s: %s sizes the count of every run, so it is the param's only value", p.Name, Auto)
		}
		w.Values[p.Name] = []string{Auto}
		return nil
	}
	if IsAuto(w.Values[p.Name]) {
		return fmt.Errorf("param %s: %s sizes the count of every run, so it is the param's only value", p.Name, Auto)
	}
	c, err := Canonical(p, v)
	if err != nil {
		return err
	}
	if slices.Contains(w.Values[p.Name], c) {
		return fmt.Errorf("param %s: value %s repeats in the sweep", p.Name, c)
	}
	w.Values[p.Name] = append(w.Values[p.Name], c)
	return nil
}

// Fill gives every param the sweep was not given its default.
func (w *Sweep) Fill() error {
	for _, p := range w.spec.Params {
		if _, set := w.Values[p.Name]; set {
			continue
		}
		c, err := Canonical(p, p.Default)
		if err != nil {
			return fmt.Errorf("probe %s: default of param %s: %v", w.spec.Name, p.Name, err)
		}
		w.Values[p.Name] = []string{c}
	}
	return nil
}

// CheckSize refuses a sweep of more than MaxCombos combinations. It is
// checked before the combinations are made: a sweep of 10^9 would take
// the machine's memory.
func (w *Sweep) CheckSize() error {
	n := 1
	for _, p := range w.spec.Params {
		if n *= len(w.Values[p.Name]); n > MaxCombos {
			return fmt.Errorf("its params sweep more than %d combinations (the product of their lists' lengths); sweep fewer values or split the experiment", MaxCombos)
		}
	}
	return nil
}
