package expr

import (
	"fmt"
	"strings"
	"testing"

	"measuredbook/probe"
)

// settingsEnv adds settings and a fingerprint per set to testEnv.
type settingsEnv struct {
	fakeEnv
	params   map[string]*Param // "experiment.param"
	machines map[string]Machine
}

func (s settingsEnv) Param(set, experiment, name string) (*Param, error) {
	if p, ok := s.params[experiment+"."+name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("experiment %s has no param %q", experiment, name)
}

func (s settingsEnv) Machine(set string) (Machine, error) {
	if f, ok := s.machines[set]; ok {
		return f, nil
	}
	return Machine{}, fmt.Errorf("no data set %q", set)
}

func testSettings() settingsEnv {
	return settingsEnv{
		fakeEnv: testEnv(),
		params: map[string]*Param{
			"empty_read.delay":  {Kind: probe.Duration, Values: []string{"500µs"}},
			"empty_read.reads":  {Kind: probe.Int, Values: []string{"2000"}},
			"readiness.idle":    {Kind: probe.Int, Values: []string{"100", "1000", "10000"}},
			"readiness.api":     {Kind: probe.String, Values: []string{"poll", "epoll"}},
			"threads.mode.mode": {Kind: probe.String, Values: []string{"block"}},
		},
		machines: map[string]Machine{
			"":   {Name: "here", Cores: 2, Memory: 8 << 30, Virtual: "yes", OS: "linux", Limits: map[string]string{"nofile": "1024/20000", "threads-max": "62459", "pids-max": "max"}},
			"m1": {Name: "m1", Cores: 8, OS: "darwin", Transcribed: true},
			"x":  {Name: "x"},
		},
	}
}

// TestSettings reads params and machine facts, in their formats.
func TestSettings(t *testing.T) {
	tests := []struct{ src, want string }{
		{"empty_read.param.delay", "500 μs"},
		{"empty_read.param.reads", "2,000"},
		{"empty_read.param.reads * 2", "4,000"},
		{"readiness.param.idle", "100, 1,000, 10,000"},
		{"readiness.param.idle | range", "100–10,000"},
		{"max(readiness.param.idle)", "10,000"},
		{"readiness.param.api", "poll, epoll"},
		{"threads.mode.param.mode", "block"},
		{"blocking.ready_read / empty_read.param.reads | ns", "0.25 ns"},
		{"machine.cores", "2"},
		{`ref("m1", machine.cores)`, "8"},
		{"machine.nofile_hard", "20,000"},
		{"machine.nofile_soft", "1,024"},
		{"machine.threads_max", "62,459"},
		{"machine.memory", "8 GiB"},
		{`machine.cores > 2 ? "many" : "two"`, "two"},
		{"machine.virtual", "holds"},
		{"machine.linux", "holds"},
		{"machine.darwin", "fails"},
		{`ref("m1", machine.darwin)`, "holds"},
		{"machine.transcribed", "fails"},
		{`ref("m1", machine.transcribed)`, "holds"},
		{`machine.linux ? "epoll" : "kqueue"`, "epoll"},
		{`ref("m1", machine.linux ? "epoll" : "kqueue")`, "kqueue"},
		{`machine.virtual && machine.cores <= 2 ? "작은 가상 머신" : "다른 기계"`, "작은 가상 머신"},
		// A condition the fingerprint did not record is not known.
		{`ref("m1", machine.virtual ? "(가상 머신)" : "" ~ "")`, ""},
		{`ref("m1", machine.virtual)`, "inconclusive"},
		{`ref("x", machine.linux ? "epoll" : "kqueue" ~ "모름")`, "모름"},
		// A bare 0 compares with a value of any unit.
		{"blocking.ready_read > 0", "holds"},
		{"0 < bufs.size[n=1]", "holds"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		v, err := e.Eval(testSettings())
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		got, err := v.Format(e.Format())
		if err != nil || got != tt.want {
			t.Errorf("Eval(%q) = %q, %v; want %q", tt.src, got, err, tt.want)
		}
	}
}

func TestSettingsErrors(t *testing.T) {
	tests := []struct{ src, at, msg string }{
		{"readiness.param.idle * 2", "*", "a swept setting takes several values (100–10,000): reduce it with min(…) or max(…)"},
		{"-readiness.param.idle", "-", "a swept setting takes several values (100–10,000): reduce it with min(…) or max(…)"},
		{"abs(readiness.param.idle)", "readiness", "a swept setting takes several values (100–10,000): reduce it with min(…) or max(…)"},
		{"readiness.param.idle[api=poll]", "[", "a setting readiness.param.idle takes no selector"},
		{"machine.core", "machine", `unknown machine fact "core" (did you mean machine.cores?)`},
		{"machine.pids_max", "machine", `machine.pids_max is "max" on machine here, not a number`},
		{"machine.nproc_soft", "machine", "machine here did not record machine.nproc_soft"},
		{"empty_read.param.dealy", "empty_read", `experiment empty_read has no param "dealy"`},
		{"1ms > 0.5", ">", "unit mismatch: duration > number; write the number with a unit: 0.5ns, 0.5us, 0.5ms or 0.5s"},
		{"bufs.size[n=1] > 1", ">", "write the number with a unit: 1B, 1KiB or 1MiB"},
		{"1ms > 0 + 0", "", ""}, // 0 + 0 is still a bare zero: no error
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err == nil {
			_, err = e.Eval(testSettings())
		}
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.src, err)
			}
			continue
		}
		xe, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: got %v, want an *Error", tt.src, err)
			continue
		}
		if !strings.Contains(xe.Msg, tt.msg) || xe.Off != strings.Index(tt.src, tt.at) {
			t.Errorf("%q: got %q at %d, want %q at %d", tt.src, xe.Msg, xe.Off, tt.msg, strings.Index(tt.src, tt.at))
		}
	}
}

// TestSettingsWithoutEnv: an Env that does not answer settings makes a
// read of one an error, not a zero.
func TestSettingsWithoutEnv(t *testing.T) {
	e, _ := Parse("empty_read.param.delay")
	if _, err := e.Eval(testEnv()); err == nil || !strings.Contains(err.Error(), "no settings") {
		t.Errorf("got %v", err)
	}
}
