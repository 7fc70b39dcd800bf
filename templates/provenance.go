package templates

import (
	"cmp"
	"fmt"
	"strings"

	"measuredbook/view"
)

// Provenance is what a build knows about where its figures come from, for
// the sentences the layouts print about them (the footer and the index):
// they must be true of the set the build used, not of the book's ideal.
type Provenance struct {
	Set         string      // the result set's name
	Machine     string      // its machine, described ("NAME — CPU, cores, …")
	Book        bool        // the set is the book's own (book.yaml's machine)
	Transcribed bool        // the figures were transcribed from the original book, not measured
	Experiments int         // experiments in the book
	Missing     int         // experiments the set has no result for (shown as view.Words.NotMeasured)
	Stale       int         // experiments shown from a stale result (marked ⚠)
	Failed      int         // experiments with combinations that failed to measure
	Words       *view.Words // the book's language; nil: Korean
}

func (p Provenance) w() *view.Words { return cmp.Or(p.Words, view.Korean) }

// Source says, in the book's language, where the figures come from.
func (p Provenance) Source() string {
	switch {
	case p.Experiments > 0 && p.Missing == p.Experiments:
		return fmt.Sprintf(p.w().EmptySetFormat, p.Set)
	case p.Transcribed:
		return fmt.Sprintf(p.w().TranscribedSrc, p.Set)
	case p.Book:
		return fmt.Sprintf(p.w().BookMachine, p.Machine)
	}
	return fmt.Sprintf(p.w().OtherMachine, p.Set, p.Machine)
}

// Gaps says which figures are not what Source says: missing, stale or
// failed experiments; "" when there are none.
func (p Provenance) Gaps() string {
	if p.Experiments > 0 && p.Missing == p.Experiments {
		return ""
	}
	var gaps []string
	if p.Missing > 0 {
		gaps = append(gaps, p.w().MissingGaps.Of(p.Missing))
	}
	if p.Stale > 0 {
		gaps = append(gaps, p.w().StaleGaps.Of(p.Stale))
	}
	if p.Failed > 0 {
		gaps = append(gaps, p.w().FailedGaps.Of(p.Failed))
	}
	return strings.Join(gaps, " ")
}
