package expr_test

import (
	"fmt"

	"measuredbook/expr"
	"measuredbook/probe"
)

// results is the smallest Env: one data set, metrics by "experiment.metric".
type results map[string]*expr.Metric

func (r results) Metric(set, experiment, metric string) (*expr.Metric, error) {
	if m, ok := r[experiment+"."+metric]; ok && set == "" {
		return m, nil
	}
	return nil, fmt.Errorf("no result for %s.%s in set %q", experiment, metric, set)
}

func Example() {
	env := results{
		"readiness.round": {
			Unit:   probe.Seconds,
			Params: []string{"api", "idle"},
			Samples: []expr.Sample{
				{Params: map[string]string{"api": "poll", "idle": "100"}, Median: 52e-6, Min: 50e-6, Max: 55e-6, Runs: 3},
				{Params: map[string]string{"api": "poll", "idle": "10000"}, Median: 5.25e-3, Min: 5.1e-3, Max: 5.4e-3, Runs: 3},
				{Params: map[string]string{"api": "epoll", "idle": "100"}, Median: 0.90e-6, Min: 0.88e-6, Max: 0.95e-6, Runs: 3},
				{Params: map[string]string{"api": "epoll", "idle": "10000"}, Median: 0.92e-6, Min: 0.90e-6, Max: 0.99e-6, Runs: 3},
			},
		},
	}
	for _, src := range []string{
		"readiness.round[api=poll, idle=10000]",
		"readiness.round[api=poll, idle=1e4] / readiness.round[api=epoll, idle=10000] | x",
		"readiness.round[api=epoll, idle=10000] | range",
		`growth(readiness.round[api=poll], idle) > 2 ? "자란다" : "평평하다"`,
		"growth(readiness.round[api=epoll], idle) < 2",
		"growth(readiness.round[api=epoll], idle) < 1.05",
		"readiness.round[idle=100]",
	} {
		e, err := expr.Parse(src)
		if err != nil {
			fmt.Println("parse error:", err)
			continue
		}
		v, err := e.Eval(env)
		if err != nil {
			fmt.Printf("error at byte %d: %v\n", err.(*expr.Error).Off, err)
			continue
		}
		s, _ := v.Format(e.Format())
		fmt.Println(s)
		if v.Kind == expr.Bool && v.Truth != expr.True {
			fmt.Println("  because", e.Explain(env))
		}
	}
	// Output:
	// 5.25 ms
	// 5,707×
	// 900–990 ns
	// 자란다
	// holds
	// inconclusive
	//   because growth(readiness.round[api=epoll], idle) = 1.02× (0.947×–1.13×) < 1.05
	// error at byte 0: selector matches 2 combinations; add one of api=poll|epoll
}

// book is an Env with settings: the blocks' params and the fingerprint.
type book struct{ results }

func (book) Param(set, experiment, name string) (*expr.Param, error) {
	switch experiment + "." + name {
	case "empty_read.delay":
		return &expr.Param{Kind: probe.Duration, Values: []string{"500µs"}}, nil
	case "empty_read.reads":
		return &expr.Param{Kind: probe.Int, Values: []string{"2000"}}, nil
	case "readiness.idle":
		return &expr.Param{Kind: probe.Int, Values: []string{"100", "10000"}}, nil
	}
	return nil, fmt.Errorf("no param %s.%s", experiment, name)
}

func (book) Machine(set string) (expr.Machine, error) {
	return expr.Machine{Name: "here", Cores: 2, Limits: map[string]string{"nofile": "1024/20000"}}, nil
}

// Example_settings shows three-valued prose, settings and machine facts.
func Example_settings() {
	env := book{results{
		"handoff.time": {Unit: probe.Seconds, Samples: []expr.Sample{{Median: 47e-6, Min: 17e-6, Max: 48e-6, Runs: 3}}},
	}}
	for _, src := range []string{
		`handoff.time > 20us ? "느려졌다" : "그대로였다" ~ "실행마다 달랐다"`,
		`handoff.time > 10us ? "느려졌다" : "그대로였다" ~ "실행마다 달랐다"`,
		"empty_read.param.delay",
		"empty_read.param.reads",
		"readiness.param.idle",
		"readiness.param.idle | range",
		"machine.cores",
		"machine.nofile_hard",
		"handoff.time > 0",
	} {
		e, err := expr.Parse(src)
		if err != nil {
			fmt.Println("parse error:", err)
			continue
		}
		v, err := e.Eval(env)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		s, _ := v.Format(e.Format())
		fmt.Println(s)
	}
	// Output:
	// 실행마다 달랐다
	// 느려졌다
	// 500 μs
	// 2,000
	// 100, 10,000
	// 100–10,000
	// 2
	// 20,000
	// holds
}
