package runner

import (
	"context"
	"maps"
	"math"
	"strconv"
	"time"

	"measuredbook/probe"
)

// DefaultRunTime is the sample one run of a sized count (probe.Auto)
// lasts when the Runner's RunTime is not set: long enough that the clock's
// resolution and a scheduler's tick or two are small beside it.
const DefaultRunTime = 100 * time.Millisecond

// Sizing bounds: how many runs may size one combination, how much a count
// may grow from one to the next (go test's 100×; 10× while its growth is
// within the setup's spread), and the largest count.
const (
	sizingRuns      = 8
	maxGrowth       = 100
	unsettledGrowth = 10
	maxCount        = 1_000_000_000
)

// size returns c with every Sample param given as probe.Auto replaced by
// a count, found as go test -benchtime finds b.N: runs of 1, then of
// counts predicted from the last run (20 % over the target, at most 100×
// the last, rounded up to 1, 2, 3 or 5 × 10^k so that the recorded counts
// read well), until a run's sample lasts at least RunTime. A run's sample
// is what its count adds: the growth of the probe's Run time between the
// last two runs, scaled to the count, so that the setup a run pays
// whatever its count (10,000 idle sockets made and closed) is not taken
// for it. That setup's own time spreads from run to run (180–270 ms for
// 10,000 sockets on an Intel Xeon guest), so a growth is taken for the
// count's only once the count adds at least the first run's time; until
// then the count grows tenfold. Several Auto params of one probe grow
// together, up to the least of their Max (probe.Param), where the sizing
// stops. The sizing runs are not kept: they are the combination's warm-up.
func (r *Runner) size(ctx context.Context, p probe.Probe, c probe.Params) (probe.Params, error) {
	var auto []string
	limit := maxCount
	for k, v := range c {
		if v != probe.Auto {
			continue
		}
		auto = append(auto, k)
		if prm, ok := p.Param(k); ok && prm.Max > 0 {
			limit = min(limit, int(prm.Max))
		}
	}
	if len(auto) == 0 {
		return c, nil
	}
	target := r.RunTime
	if target <= 0 {
		target = DefaultRunTime
	}
	var s sizing
	for n := 1; ; {
		try := maps.Clone(c)
		for _, k := range auto {
			try[k] = strconv.Itoa(n)
		}
		out, err := r.run(ctx, p, try)
		if err != nil {
			return nil, err
		}
		next, done := s.step(n, time.Duration(out.Elapsed), target)
		if done || n >= limit {
			return try, nil
		}
		n = min(next, limit)
	}
}

// sizing is what size has seen: the runs so far, the last one's count
// and time, and the first run's time.
type sizing struct {
	runs         int
	prevN        int
	prevT, first time.Duration
}

// step takes a run of count n that took t and says whether the sizing is
// done, and otherwise the count to run next.
func (s *sizing) step(n int, t, target time.Duration) (next int, done bool) {
	s.runs++
	if s.runs == 1 {
		s.first = t
	}
	sample := sampleTime(s.prevN, s.prevT, n, t)
	// The first run cannot tell its sample from its setup, nor can a
	// later one whose growth the setup's spread may account for.
	settled := s.runs > 1 && t-s.first >= s.first
	if settled && sample >= target || s.runs == sizingRuns {
		return n, true
	}
	next = nextCount(n, sample, target)
	if s.runs > 1 && !settled {
		next = n * unsettledGrowth
	}
	s.prevN, s.prevT = n, t
	return next, false
}

// sampleTime is how much of a run of n that took t its count accounts
// for, given the run before it (prevN in prevT; prevN 0 for none): the
// growth between the two scaled to n; all of t when there is no earlier
// run (an upper bound); 0, not known, when the later was not the longer
// (noise), so that the count grows.
func sampleTime(prevN int, prevT time.Duration, n int, t time.Duration) time.Duration {
	if prevN <= 0 || n <= prevN {
		return t
	}
	if t <= prevT {
		return 0
	}
	return time.Duration(float64(t-prevT) / float64(n-prevN) * float64(n))
}

// nextCount predicts the count whose sample lasts target, from a run of n
// whose sample lasted sample: go test's predictN, rounded up.
func nextCount(n int, sample, target time.Duration) int {
	next := float64(n) * maxGrowth
	if sample > 0 {
		next = math.Min(next, 1.2*float64(n)*float64(target)/float64(sample))
	}
	next = math.Max(next, float64(n+1))
	return roundUp(int(math.Min(math.Ceil(next), maxCount)))
}

// roundUp is the least of 1, 2, 3 and 5 × 10^k at least n.
func roundUp(n int) int {
	for base := 1; ; base *= 10 {
		for _, m := range []int{1, 2, 3, 5} {
			if m*base >= n {
				return m * base
			}
		}
	}
}
