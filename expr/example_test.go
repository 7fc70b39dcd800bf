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
