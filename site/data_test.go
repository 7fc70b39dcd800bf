package site

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/probe"
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

// BenchmarkExport exports every stored result of the book, as first
// written (ref) and as now (new).
func BenchmarkExport(b *testing.B) {
	rs := bookResults(b)
	for _, impl := range []struct {
		name   string
		export func(string, *dataset.Result) ([]byte, []byte, error)
	}{{"ref", refExport}, {"new", Export}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range rs {
					if _, _, err := impl.export(s.set, s.r); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// checkExport fails t unless Export gives r's files (or error) byte for
// byte as refExport does.
func checkExport(t testing.TB, set string, r *dataset.Result) {
	t.Helper()
	wantJ, wantC, wantErr := refExport(set, r)
	j, c, err := Export(set, r)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%s: error %v, want %v", r.Experiment, err, wantErr)
	}
	if !bytes.Equal(j, wantJ) {
		t.Fatalf("%s: json\n%s\nwant\n%s", r.Experiment, j, wantJ)
	}
	if !bytes.Equal(c, wantC) {
		t.Fatalf("%s: csv\n%q\nwant\n%q", r.Experiment, c, wantC)
	}
}

func TestExportAsFirstWrittenOnTheBook(t *testing.T) {
	for _, s := range bookResults(t) {
		checkExport(t, s.set, s.r)
	}
}

var (
	awkwardStrings = []string{"", "run", "error", "reason", "a", "b", "api", "wall", " x", "x,y", `q"uote`, `back\slash`,
		"<script>&amp;</script>", "\u2028", "\u2029", "\xff", "a\xc3", "\xed\xa0\x80", "\x00", "\x1f", "\b\f\n\r\t", "\x7f",
		"\\.", "텍스트", "é", "\u00a0lead", "\ttab", "\r\n", "😀", "\ufffd"}
	awkwardFloats = []float64{0, math.Copysign(0, -1), 1, -1, 42, 3, 1e21, -1e21, 1e21 * (1 - 1e-16), 1e20, 1e-6, 1e-7, -1e-7,
		9.99999e-7, 5e-324, math.MaxFloat64, -1.5e-300, 123456789012345678, 0.1, 2.5e-9, 1.5e-6}
)

// awkwardString is one of awkwardStrings, or a few of them joined.
func awkwardString(r *rand.Rand) string {
	s := awkwardStrings[r.IntN(len(awkwardStrings))]
	for r.IntN(4) == 0 {
		s += awkwardStrings[r.IntN(len(awkwardStrings))]
	}
	return s
}

func awkwardFloat(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30))
	case 1:
		return float64(r.IntN(1e6) - 1000)
	}
	return awkwardFloats[r.IntN(len(awkwardFloats))]
}

// randomResult is a result with awkward names, values and shapes: params
// and metrics that share names with each other or with the records'
// fixed keys, missing maps and metrics, no rows, failures, unavailable
// combinations.
func randomResult(r *rand.Rand) *dataset.Result {
	names := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = awkwardString(r)
		}
		return s
	}
	params := func(order []string) probe.Params {
		if r.IntN(8) == 0 {
			return nil
		}
		p := probe.Params{}
		for _, k := range order {
			if r.IntN(6) > 0 {
				p[k] = awkwardString(r)
			}
		}
		return p
	}
	res := &dataset.Result{Experiment: awkwardString(r), Probe: awkwardString(r), Source: []string{"", "measured", awkwardString(r)}[r.IntN(3)],
		Machine: dataset.Fingerprint{Name: awkwardString(r)}}
	if r.IntN(2) == 0 {
		res.Start = time.Date(2000+r.IntN(30), 1, 1, 0, 0, r.IntN(1e8), 0, time.FixedZone("z", 3600*(r.IntN(5)-2)))
	}
	if n := r.IntN(5) - 1; n >= 0 {
		res.Order = names(n)
	}
	metrics := names(r.IntN(5))
	if r.IntN(4) > 0 {
		res.Units = map[string]probe.Unit{}
		for _, m := range metrics {
			if r.IntN(4) > 0 {
				res.Units[m] = probe.Unit([]string{"s", "B", "", awkwardString(r)}[r.IntN(4)])
			}
		}
	}
	for range r.IntN(4) {
		row := dataset.Row{Params: params(res.Order)}
		for range r.IntN(4) {
			if r.IntN(10) == 0 {
				row.Runs = append(row.Runs, nil)
				continue
			}
			run := probe.Values{}
			for _, m := range metrics {
				if r.IntN(5) > 0 {
					run[m] = awkwardFloat(r)
				}
			}
			if r.IntN(50) == 0 {
				run[awkwardString(r)] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
			}
			row.Runs = append(row.Runs, run)
		}
		res.Rows = append(res.Rows, row)
	}
	for range r.IntN(3) {
		res.Failures = append(res.Failures, dataset.Failure{Params: params(res.Order), Err: awkwardString(r)})
	}
	for range r.IntN(3) {
		res.Unavailable = append(res.Unavailable, dataset.Unavailable{Params: params(res.Order), Reason: awkwardString(r)})
	}
	return res
}

func TestExportAsFirstWrittenAtRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 4000 {
		checkExport(t, awkwardString(r), randomResult(r))
	}
}

// fuzzResult builds a result from the fuzzer's values: the params and
// metrics are comma-separated names, values the strings they take; shape
// picks the counts and what is left out.
func fuzzResult(names, values, metrics string, x, y float64, shape uint32) *dataset.Result {
	vals := strings.Split(values, ",")
	val := func(i int) string { return vals[i%len(vals)] }
	bit := func(i int) bool { return shape>>i&1 == 1 }
	res := &dataset.Result{Experiment: val(0), Probe: val(1), Machine: dataset.Fingerprint{Name: val(2)}, Units: map[string]probe.Unit{}}
	if bit(0) {
		res.Source = val(3)
	}
	if bit(1) {
		res.Start = time.Unix(int64(x), 0)
	}
	if names != "" || bit(2) {
		res.Order = strings.Split(names, ",")
	}
	ms := strings.Split(metrics, ",")
	for i, m := range ms {
		if bit(3 + i%4) {
			res.Units[m] = probe.Unit(val(i + 4))
		}
	}
	n := 0
	for i := range int(shape >> 8 & 3) {
		row := dataset.Row{Params: probe.Params{}}
		for k, p := range res.Order {
			if bit(10 + (i+k)%6) {
				row.Params[p] = val(n)
				n++
			}
		}
		for k := range int(shape >> 16 & 3) {
			run := probe.Values{}
			for j, m := range ms {
				if bit(18 + (i+j+k)%6) {
					run[m] = x*float64(j+1) + y*float64(k)
				}
			}
			row.Runs = append(row.Runs, run)
		}
		res.Rows = append(res.Rows, row)
	}
	if bit(24) {
		res.Failures = []dataset.Failure{{Params: probe.Params{res.Order[0]: val(n)}, Err: val(n + 1)}}
	}
	if bit(25) {
		res.Unavailable = []dataset.Unavailable{{Params: probe.Params{res.Order[len(res.Order)-1]: val(n + 2)}, Reason: val(n + 3)}}
	}
	return res
}

func FuzzExportAsFirstWritten(f *testing.F) {
	f.Add("api,idle", "poll,100,<&>,run", "round,run", 1.5e-6, 3.0, uint32(0x3ffffff))
	f.Add("run,error,reason", "\u2028,\xff,\"q\", x", "reason,error", 1e21, -1e-7, uint32(0x2f5f3a5))
	f.Add("", "", "", 0.0, -0.0, uint32(0))
	f.Fuzz(func(t *testing.T, names, values, metrics string, x, y float64, shape uint32) {
		checkExport(t, values, fuzzResult(names, values, metrics, x, y, shape))
	})
}
