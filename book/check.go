package book

import (
	"errors"
	"slices"

	"measuredbook/evaluate"
	"measuredbook/parse"
)

// Check finds, before anything is measured, the mistakes in the chapters
// that an experiment without a usable result in res would hide until it
// is measured: every chapter that refers to such an experiment is
// evaluated against its shape (evaluate.Check). A chapter whose every
// experiment has a fresh result is left to the build, whose evaluation
// reports the same errors.
func (b *Book) Check(res *Results) error {
	res.BookMachines = b.Config.Machines // what machines: book shows
	unusable := map[string]bool{}
	for _, st := range b.Status(res, b.probes, b.Order) {
		if st.State == Missing || st.State == Stale || st.State == Unreadable {
			unusable[st.ID] = true
		}
	}
	if len(unusable) == 0 {
		return nil
	}
	errs := make([]error, len(b.Docs))
	parallel(len(b.Docs), func(i int) {
		if !b.refersTo(i, unusable) {
			return
		}
		doc, err := b.parse(i)
		if err == nil {
			err = evaluate.Check(doc, res, b.Experiments, unusable)
		}
		errs[i] = err
	})
	return errors.Join(errs...)
}

// refersTo reports whether chapter i declares or uses one of ids.
func (b *Book) refersTo(i int, ids map[string]bool) bool {
	d := b.Docs[i]
	for id := range d.Uses {
		if ids[id] {
			return true
		}
	}
	return slices.ContainsFunc(d.Experiments, func(x *parse.Experiment) bool { return ids[x.ID] })
}
