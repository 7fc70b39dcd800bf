package render

import (
	"fmt"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"testing"
	"time"
)

// FuzzParse: no chapter text makes Parse, CheckSafe, Evaluate or HTML panic or hang
// (an input taking 3 s is reported as a crash, with the input), and every
// error they return is positioned.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"{{ a.b[] }}",
		"x {{ 1 +\n  2 }} y\n",
		"| a |\n| - |\n| {{ 1 \\| x }} |\n",
		"\t{{\t1 }}",
		"> {{ \"}}\" }}\n",
		"```claim\nexpect: 1 < 2\ntext: |\n  {{ 3 }}\n```\n",
		"```when\nif: 1 < 2\nthen: >\n  a {{ (\n  }}\n```\n",
		"---\ntitle: x\n---\n```experiment readiness\nparams: {idle: [1, 2]}\n```\n",
		"- ```table\n  from: readiness\n  value: round\n  ```\n",
		"```when\nif: machine.cores > 1\nthen: a\nunsure: |\n  {{ blocking.param.calls }}\n```\n",
		"```claim\nexpect: blocking.sndbuf[] > 0\nbasis: rule\n```\n",
		"```plot\nfrom: wake\nkind: cdf\nquantiles: {wake: 0.5}\nlabels: {wake: x}\n```\n",
		"<script>x</script>\n\n[a](javascript:x) <b>\xff</b> <javascript:x>\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog(src)()
		d, err := parse.Parse("f.md", []byte(src), fakeProbes)
		if err != nil {
			for _, e := range unwrapAll(err) {
				if _, ok := e.(*parse.PosError); !ok {
					t.Fatalf("error without a position: %v", e)
				}
			}
			return
		}
		if err := d.CheckSafe(); err != nil {
			for _, e := range unwrapAll(err) {
				if _, ok := e.(*parse.PosError); !ok {
					t.Fatalf("safe mode's error without a position: %v", e)
				}
			}
		}
		p, err := evaluate.Evaluate(d, sets{}, nil)
		if err != nil {
			for _, e := range unwrapAll(err) {
				if _, ok := e.(*parse.PosError); !ok {
					t.Fatalf("error without a position: %v", e)
				}
			}
		}
		if _, err := HTMLWith(d, p.Views, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// watchdog panics, naming input, if the call it returns is not made
// within 3 s: a fuzz input that makes the parser crawl fails as a crash
// would, instead of stalling the run.
func watchdog(input string) (stop func()) {
	done := make(chan bool)
	go func() {
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			panic(fmt.Sprintf("slow input %q", input))
		}
	}()
	return func() { close(done) }
}
