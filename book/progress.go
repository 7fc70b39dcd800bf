package book

import (
	"cmp"
	"fmt"
	"io"
	"sync"
	"time"

	"measuredbook/probe"
)

// Progress reports a measurement while it runs. On a terminal it keeps
// one status line up to date (experiment, combination, run i/N, elapsed,
// ETA); elsewhere it prints one plain line per run. Either way a run that
// takes much longer than expected gets a line of its own, so a 30-second
// run never looks like a hang.
type Progress struct {
	W        io.Writer
	Terminal bool
	// Slow is how long a run may take before it is reported as slow (and
	// at least three times its expected duration); 0 means 10s.
	Slow time.Duration

	mu       sync.Mutex
	label    string // "readiness (2/5)"
	params   probe.Params
	done     int // runs started, the current one included
	total    int
	perRun   time.Duration // expected duration of one run; 0 = unknown
	start    time.Time     // of the experiment
	runStart time.Time
	warned   bool
	// The whole measurement, when it is of several experiments (plan):
	// when it began, and the expected duration of the experiments after
	// the current one.
	bookStart time.Time
	after     time.Duration
	stop      chan struct{}
	ticker    sync.WaitGroup
}

// begin starts reporting one experiment of total runs; perRun is how long
// a run took when it was last measured (0 if never).
func (p *Progress) begin(label string, total int, perRun time.Duration) {
	if p == nil || p.W == nil {
		return
	}
	p.mu.Lock()
	p.label, p.total, p.perRun, p.done = label, total, perRun, 0
	p.start = time.Now()
	p.mu.Unlock()
	p.stop = make(chan struct{})
	p.ticker.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	})
}

// plan starts reporting a measurement of several experiments, expected
// to take est each (0 where unknown).
func (p *Progress) plan(est []time.Duration) {
	if p == nil || p.W == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bookStart = time.Now()
	p.after = 0
	for _, d := range est {
		p.after += d
	}
}

// next says that the experiment taking about est begins.
func (p *Progress) next(est time.Duration) {
	if p == nil || p.W == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.after = max(p.after-est, 0)
}

// run is called as run done of total starts.
func (p *Progress) run(done, total int, params probe.Params) {
	if p == nil || p.W == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total, p.params = done, total, params
	p.runStart, p.warned = time.Now(), false
	if p.Terminal {
		fmt.Fprintf(p.W, "\r\033[K%s", p.line())
		return
	}
	fmt.Fprintln(p.W, p.line())
}

func (p *Progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == 0 {
		return
	}
	slow := max(cmp.Or(p.Slow, 10*time.Second), 3*p.perRun)
	took := time.Since(p.runStart)
	if !p.warned && took > slow {
		p.warned = true
		if p.Terminal {
			fmt.Fprint(p.W, "\r\033[K")
		}
		fmt.Fprintf(p.W, "measure %s: run %d/%d [%s] has been running for %s", p.label, p.done, p.total, p.params.Key(), clock(took))
		if p.perRun > 0 {
			fmt.Fprintf(p.W, " (a run took %s last time)", clock(p.perRun))
		}
		fmt.Fprintln(p.W)
	}
	if p.Terminal {
		fmt.Fprintf(p.W, "\r\033[K%s", p.line())
	}
}

// line is the status: experiment, combination, run, elapsed and ETA. The
// ETA comes from the stored duration of the last measurement of this
// experiment, else from the runs done so far.
func (p *Progress) line() string {
	elapsed := time.Since(p.start)
	s := fmt.Sprintf("measure %s: [%s] run %d/%d, %s elapsed", p.label, p.params.Key(), p.done, p.total, clock(elapsed))
	per := p.perRun
	if per == 0 && p.done > 1 {
		per = elapsed / time.Duration(p.done-1)
	}
	left := time.Duration(0)
	if per > 0 {
		left = max(time.Duration(p.total-p.done+1)*per-time.Since(p.runStart), 0)
		s += ", about " + clock(left) + " left"
	}
	if !p.bookStart.IsZero() {
		s += fmt.Sprintf("; all: %s elapsed, about %s left", clock(time.Since(p.bookStart)), clock(left+p.after))
	}
	return s
}

// end stops reporting the experiment and says how long it took.
func (p *Progress) end(err error) {
	if p == nil || p.W == nil {
		return
	}
	close(p.stop)
	p.ticker.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Terminal {
		fmt.Fprint(p.W, "\r\033[K")
	}
	state := "done"
	if err != nil {
		state = "stopped"
	}
	fmt.Fprintf(p.W, "measure %s: %s in %s (%d runs)\n", p.label, state, clock(time.Since(p.start)), p.done)
}

// clock prints a duration as a person reads a stopwatch: 4s, 1m05s, 1h02m.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
