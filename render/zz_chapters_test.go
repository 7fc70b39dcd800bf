package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"measuredbook/probes"
	"measuredbook/store"
)

func TestZZChapters(t *testing.T) {
	all := probes.All()
	files, _ := filepath.Glob("../chapters/*.md")
	exps := map[string]*Experiment{}
	var docs []*Doc
	for _, f := range files {
		src, _ := os.ReadFile(f)
		d, err := Parse(f, src, all)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		docs = append(docs, d)
		for _, x := range d.Experiments {
			exps[x.ID] = x
		}
	}
	s := sets{}
	for _, set := range []string{"m1"} {
		fs, _ := filepath.Glob("../results/" + set + "/*.txt")
		for _, f := range fs {
			r, err := store.Load(f)
			if err != nil {
				t.Error(err)
				continue
			}
			if s[set] == nil {
				s[set] = map[string]*store.Result{}
			}
			s[set][strings.TrimSuffix(filepath.Base(f), ".txt")] = r
		}
	}
	for _, d := range docs {
		w, err := d.Evaluate(s, exps)
		for _, x := range w {
			t.Logf("warn: %v", x)
		}
		if err != nil {
			t.Errorf("%v", err)
		}
	}
}
