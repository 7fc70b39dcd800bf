package evaluate

import (
	"strings"
	"testing"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/view"
)

// The provenance counts the runs stored, whatever the header says, and a
// transcribed set shows no date or runs its source did not give.
func TestProvenanceSaysOnlyWhatIsStored(t *testing.T) {
	r := &dataset.Result{
		Experiment: "x", Runs: 3, Source: "measured",
		Machine: dataset.Fingerprint{Name: "m"},
		Rows:    []dataset.Row{{Params: probe.Params{}, Runs: []probe.Values{{"t": 1}}}},
	}
	for _, got := range []string{provenance(view.Korean, r, nil, nil, ""), shortProvenance(view.Korean, r, "")} {
		if !strings.Contains(got, "1회 실행") || strings.Contains(got, "3회") {
			t.Errorf("measured: %q, want the one stored run", got)
		}
	}
	r.Source, r.Runs = "transcribed from 원서 2장", 0
	for _, got := range []string{provenance(view.Korean, r, nil, nil, ""), shortProvenance(view.Korean, r, "")} {
		if strings.Contains(got, "회 실행") || strings.Contains(got, "0001") {
			t.Errorf("transcribed: %q says runs or a date its source did not give", got)
		}
	}
}
