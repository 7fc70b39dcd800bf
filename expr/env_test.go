package expr

import (
	"fmt"
	"sort"
	"strings"

	"measuredbook/probe"
)

// fakeEnv is an in-memory Env: set → "experiment.metric" → metric.
type fakeEnv map[string]map[string]*Metric

func (f fakeEnv) Metric(set, experiment, metric string) (*Metric, error) {
	ms, ok := f[set]
	if !ok {
		return nil, fmt.Errorf("no data set %q", set)
	}
	if m, ok := ms[experiment+"."+metric]; ok {
		return m, nil
	}
	var exps []string
	for k := range ms {
		exps = append(exps, k[:strings.LastIndexByte(k, '.')])
	}
	sort.Strings(exps)
	if c := Closest(experiment, exps); c != "" && c != experiment {
		return nil, fmt.Errorf("unknown experiment %q (did you mean %s?)", experiment, c)
	}
	return nil, fmt.Errorf("unknown metric %s.%s", experiment, metric)
}

// s builds a sample from "k=v,k=v" and median, min, max.
func s(params string, med, lo, hi float64, runs int) Sample {
	p := map[string]string{}
	if params != "" {
		for _, kv := range strings.Split(params, ",") {
			k, v, _ := strings.Cut(kv, "=")
			p[k] = v
		}
	}
	return Sample{Params: p, Median: med, Min: lo, Max: hi, Runs: runs}
}

// testEnv resembles the book's data: a readiness sweep, a single-valued
// result, codes with labels, sizes, and a reference set m1.
func testEnv() fakeEnv {
	return fakeEnv{
		"": {
			"readiness.round": {Unit: probe.Seconds, Params: []string{"api", "idle"}, Samples: []Sample{
				s("api=poll,idle=100", 50e-6, 48e-6, 53e-6, 3),
				s("api=poll,idle=1000", 500e-6, 480e-6, 530e-6, 3),
				s("api=poll,idle=10000", 5.25e-3, 5.1e-3, 5.4e-3, 3),
				s("api=epoll,idle=100", 0.90e-6, 0.88e-6, 0.95e-6, 3),
				s("api=epoll,idle=1000", 0.91e-6, 0.89e-6, 0.93e-6, 3),
				s("api=epoll,idle=10000", 5.25e-3/5712, 0.90e-6, 0.99e-6, 3),
				s("api=select,idle=100", 40e-6, 39e-6, 41e-6, 2),
				s("api=select,idle=1000", 400e-6, 390e-6, 410e-6, 2),
				s("api=select,idle=10000", 4e-3, 3.9e-3, 4.1e-3, 2),
			}},
			"blocking.ready_read": {Unit: probe.Seconds, Samples: []Sample{s("", 500e-9, 298e-9, 1207e-9, 3)}},
			"threads.handoff.time": {Unit: probe.Seconds, Params: []string{"sleeping"}, Samples: []Sample{
				s("sleeping=0", 10e-6, 9e-6, 11e-6, 5),
				s("sleeping=10", 12e-6, 11e-6, 13e-6, 5),
				s("sleeping=1000", 30e-6, 25e-6, 40e-6, 5),
			}},
			"threads.ceiling.count": {Unit: probe.Count, Samples: []Sample{s("", 4068, 4068, 4068, 1)}},
			// A count of threads, known to one more or one fewer.
			"threads.park.threads":  {Unit: probe.Count, Resolution: 1, Samples: []Sample{s("", 4096, 4095, 4096, 3)}},
			"threads.ceiling.limit": {Unit: probe.Count, Labels: []string{"cap", "threads-max", "pid_max", "RLIMIT_NPROC"}, Samples: []Sample{s("", 2, 2, 2, 1)}},
			"threads.flaky.limit":   {Unit: probe.Count, Labels: []string{"cap", "threads-max", "pid_max", "RLIMIT_NPROC"}, Samples: []Sample{s("", 1.5, 1, 2, 2)}},
			"bufs.size": {Unit: probe.Bytes, Params: []string{"n"}, Samples: []Sample{
				s("n=1", 8192, 8192, 8192, 3),
				s("n=8", 63590, 63000, 64000, 3),
			}},
			"sleep.actual": {Unit: probe.Seconds, Params: []string{"asked"}, Samples: []Sample{
				s("asked=100µs", 160e-6, 150e-6, 170e-6, 3),
				s("asked=1ms", 1.08e-3, 1.06e-3, 1.1e-3, 3),
				s("asked=500µs", 580e-6, 560e-6, 600e-6, 3),
			}},
			"syscalls.switches": {Unit: probe.Count, Params: []string{"mode"}, Samples: []Sample{
				s("mode=block", 2587, 2587, 2645, 3),
				s("mode=spin", 3, 0, 5, 3),
			}},
			"sparse.t": {Unit: probe.Seconds, Params: []string{"a", "b"}, Samples: []Sample{
				s("a=1,b=1", 1e-6, 1e-6, 1e-6, 1),
				s("a=2,b=2", 2e-6, 2e-6, 2e-6, 1),
			}},
			"flat.t": {Unit: probe.Seconds, Params: []string{"n"}, Samples: []Sample{
				s("n=1", 1e-6, 1e-6, 1e-6, 1),
				s("n=10", 10e-6, 10e-6, 10e-6, 1),
				s("n=100", 100e-6, 100e-6, 100e-6, 1),
			}},
		},
		"m1": {
			"readiness.round": {Unit: probe.Seconds, Params: []string{"api", "idle"}, Samples: []Sample{
				s("api=poll,idle=10000", 5.25e-3, 5.25e-3, 5.25e-3, 1),
				s("api=epoll,idle=10000", 0.919e-6, 0.919e-6, 0.919e-6, 1),
			}},
		},
	}
}
