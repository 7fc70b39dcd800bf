package site

import (
	"path/filepath"
	"testing"

	"measuredbook/dataset"
	"measuredbook/probes"
	"measuredbook/store"
)

// setResult is one stored result and the set it belongs to.
type setResult struct {
	set string
	r   *dataset.Result
}

// bookResults reads every result of every set under ../results, as a
// build reads them (checked against the probes' units).
func bookResults(tb testing.TB) []setResult {
	paths, err := filepath.Glob("../results/*/*.txt")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no results under ../results (%v)", err)
	}
	all := probes.All()
	var rs []setResult
	for _, p := range paths {
		r, err := store.Load(p, all)
		if err != nil {
			tb.Fatal(err)
		}
		rs = append(rs, setResult{filepath.Base(filepath.Dir(p)), r})
	}
	return rs
}

// BenchmarkExport exports every stored result of the book.
func BenchmarkExport(b *testing.B) {
	rs := bookResults(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range rs {
			if _, _, err := Export(s.set, s.r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
