package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		kind    Kind
		in, out string
		choices []string
		max     int64
		err     string
	}{
		{kind: Int, in: "10_000", out: "10000"},
		{kind: Int, in: " 0100", out: "100"},
		{kind: Int, in: "1e4", err: "wants a whole number"},
		{kind: Int, in: "1_000_000", out: "1000000", max: 1_000_000},
		{kind: Int, in: "3000000", err: "takes at most 1000000, got 3000000", max: 1_000_000},
		{kind: Float, in: "0.50", out: "0.5"},
		{kind: Duration, in: "500us", out: "500µs"},
		{kind: Duration, in: "0.5ms", out: "500µs"},
		{kind: Duration, in: "500μs", out: "500µs"}, // Greek mu, as Korean text often has it
		{kind: Duration, in: "soon", err: "wants a duration"},
		{kind: String, in: "epoll", out: "epoll", choices: []string{"poll", "epoll"}},
		{kind: String, in: "kqeue", err: "wants one of poll, epoll", choices: []string{"poll", "epoll"}},
		{kind: String, in: "a/b", err: "without '/'"},
	} {
		got, err := Canonical(Param{Name: "p", Kind: tc.kind, Choices: tc.choices, Max: tc.max}, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: err %v, want %q", tc.kind, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.out {
			t.Errorf("%s %q = %q, %v; want %q", tc.kind, tc.in, got, err, tc.out)
		}
	}
}

func TestResolveFillsDefaultsAndRejectsUnknown(t *testing.T) {
	s := Spec{Name: "x", Params: []Param{{Name: "n", Kind: Int, Default: "1000"}, {Name: "api", Kind: String, Default: "poll"}}}
	p, err := s.Resolve(map[string]string{"api": "epoll"})
	if err != nil || p.Int("n") != 1000 || p.String("api") != "epoll" || p.Key() != "api=epoll/n=1000" {
		t.Errorf("resolve = %v, %v", p, err)
	}
	if _, err := s.Resolve(map[string]string{"m": "1"}); err == nil {
		t.Error("an unknown param was accepted")
	}
}

func TestCheckValues(t *testing.T) {
	s := Spec{Name: "x", Metrics: []Metric{{Name: "a"}, {Name: "b", Optional: "only with select"}}}
	if err := s.CheckValues(Values{"a": 1, "b": 2}); err != nil {
		t.Error(err)
	}
	if err := s.CheckValues(Values{"a": 1}); err != nil {
		t.Errorf("an absent optional metric: %v", err)
	}
	if err := s.CheckValues(Values{"b": 1}); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("an absent required metric: %v", err)
	}
	if err := s.CheckValues(Values{"a": 1, "c": 1}); err == nil {
		t.Error("an undeclared metric was accepted")
	}
}

// A probe's "not available" is one sentence on every platform, found
// through any wrapping.
func TestNotAvailable(t *testing.T) {
	err := fmt.Errorf("readiness: %w", notAvailableOn("darwin", "epoll", ""))
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Reason != "epoll is not available on darwin" {
		t.Errorf("NotAvailable wrapped = %v (%#v)", err, ue)
	}
	if got := notAvailableOn("darwin", "threads.park", "it parks threads with Linux's futex(2)").Error(); got != "threads.park is not available on darwin: it parks threads with Linux's futex(2)" {
		t.Errorf("with a why: %q", got)
	}
}

// Keep collects only inside a run's context, sorted, and thins a long
// series to MaxKept evenly spaced order statistics that keep its ends.
func TestKeep(t *testing.T) {
	Keep(context.Background(), "x", []float64{1}) // no collector: nothing happens
	ctx, kept := WithKept(context.Background())
	Keep(ctx, "x", []float64{3, 1, 2})
	if got := kept["x"]; len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("kept %v, want [1 2 3]", got)
	}
	long := make([]float64, 3*MaxKept)
	for i := range long {
		long[i] = float64(len(long) - i)
	}
	Keep(ctx, "y", long)
	got := kept["y"]
	if len(got) != MaxKept || got[0] != 1 || got[MaxKept-1] != float64(len(long)) || got[MaxKept/2] < float64(len(long))/2-3 || got[MaxKept/2] > float64(len(long))/2+3 {
		t.Errorf("thinned to %d values from %v to %v, middle %v", len(got), got[0], got[len(got)-1], got[MaxKept/2])
	}
}
