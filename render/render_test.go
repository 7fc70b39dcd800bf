package render

import (
	"bytes"
	"flag"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"golang.org/x/tools/txtar"

	"measuredbook/bib"
	"measuredbook/xref"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/store"
)

var update = flag.Bool("update", false, "rewrite the expected output of testdata/*.txtar")

// fakeProbes stand for the registry: Specs only, no Run, since rendering
// never measures.
var fakeProbes = []probe.Probe{
	{Spec: probe.Spec{
		Name: "readiness",
		Params: []probe.Param{
			{Name: "api", Kind: probe.String, Default: "epoll", Choices: []string{"select", "poll", "epoll", "kqueue"}, Doc: "readiness API"},
			{Name: "idle", Kind: probe.Int, Default: "1000", Doc: "idle connections"},
			{Name: "rounds", Kind: probe.Int, Max: 1_000_000, Default: "2000", Doc: "timed rounds"},
		},
		Metrics: []probe.Metric{
			{Name: "round", Unit: probe.Seconds, Better: probe.Lower, Doc: "one readiness round"},
			{Name: "usable", Unit: probe.Count, Doc: "1 if the API could watch every fd", Labels: []string{"no", "yes"}},
		},
	}},
	{Spec: probe.Spec{
		Name: "blocking",
		Params: []probe.Param{
			{Name: "calls", Kind: probe.Int, Default: "1000", Doc: "reads per run"},
		},
		Metrics: []probe.Metric{
			{Name: "ready_read", Unit: probe.Seconds, Doc: "a read of ready data"},
			{Name: "sndbuf", Unit: probe.Bytes, Doc: "socket send buffer"},
			{Name: "sleeps", Unit: probe.Count, Doc: "voluntary switches per read"},
		},
	}},
	{Spec: probe.Spec{
		Name: "threads.handoff",
		Params: []probe.Param{
			{Name: "sleeping", Kind: probe.Int, Default: "0", Doc: "parked threads"},
			{Name: "delay", Kind: probe.Duration, Default: "500us", Doc: "sleep before the wake"},
		},
		Metrics: []probe.Metric{
			{Name: "time", Unit: probe.Seconds, Doc: "wake to run"},
			{Name: "waker_cpu", Unit: probe.Seconds, Doc: "the waker's CPU per wake (recorded since the stored results)"},
		},
	}},
	{Spec: probe.Spec{
		Name: "fdset",
		Params: []probe.Param{
			{Name: "api", Kind: probe.String, Default: "poll", Doc: "readiness API"},
			{Name: "fds", Kind: probe.Int, Default: "10", Doc: "watched fds"},
		},
		Metrics: []probe.Metric{
			{Name: "round", Unit: probe.Seconds, Doc: "one round", Optional: "select cannot watch an fd at or above FD_SETSIZE (1024)"},
			{Name: "open", Unit: probe.Count, Doc: "fds open"},
		},
	}},
	{Spec: probe.Spec{
		Name: "sized",
		Params: []probe.Param{
			{Name: "api", Kind: probe.String, Default: "poll", Doc: "readiness API"},
			{Name: "rounds", Kind: probe.Int, Default: "1000", Doc: "timed rounds", Sample: true},
		},
		Metrics: []probe.Metric{
			{Name: "round", Unit: probe.Seconds, Doc: "one round"},
			{Name: "round_p99", Unit: probe.Seconds, Doc: "99th percentile of a run's rounds", Quantile: 0.99, Samples: "rounds"},
		},
	}},
	{Spec: probe.Spec{
		Name: "wake",
		Params: []probe.Param{
			{Name: "mode", Kind: probe.String, Default: "block", Doc: "how the reader waits"},
		},
		Metrics: []probe.Metric{
			{Name: "wake_min", Unit: probe.Seconds, Doc: "fastest wake"},
			{Name: "wake_p25", Unit: probe.Seconds, Doc: "25th percentile"},
			{Name: "wake", Unit: probe.Seconds, Doc: "median wake"},
			{Name: "wake_max", Unit: probe.Seconds, Doc: "slowest wake"},
			{Name: "calls", Unit: probe.Count, Doc: "wakes per run"},
		},
	}},
}

// renderFragment is what `go run . render FILE|-` prints: Parse, Evaluate
// and HTML of one document, with the evaluation's warnings.
func renderFragment(file string, src []byte, probes []probe.Probe, res evaluate.Results, experiments map[string]*parse.Experiment) ([]byte, []error, error) {
	d, err := parse.Parse(file, src, probes)
	if err != nil {
		return nil, nil, err
	}
	p, evalErr := evaluate.Evaluate(d, res, experiments)
	out, err := HTMLWith(d, p.Views, nil)
	if err != nil {
		return nil, p.Warnings, err
	}
	return out, p.Warnings, evalErr
}

// site is what the published pages add to standard Markdown: heading ids
// and code coloured with classes.
type site struct{}

func (site) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(parse.HeadingIDs, 600)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(codeBlocks{}, 200)))
}

// codeBlocks colours code as a page does, without the page's other
// renderers.
type codeBlocks struct{}

func (codeBlocks) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(gast.KindFencedCodeBlock, renderCode)
}

// sets is a Results from txtar files: results/ID.txt is the build's set,
// NAME/ID.txt the reference set NAME; a file "stale" lists "ID why" lines
// of the build's set that are stale.
type sets map[string]map[string]*dataset.Result

func (s sets) Lookup(set, id string) (*dataset.Result, bool) {
	r, ok := s[set][id]
	return r, ok
}

// staleSets adds Staleness to sets.
type staleSets struct {
	sets
	why map[string]string
}

func (s staleSets) Stale(set, id string) (string, bool) {
	w, ok := s.why[id]
	return w, ok && set == ""
}

// namedSets adds Sets to sets: the build's set's name and the book's
// machines, from a file "machines" ("own: NAME" and "book: A B …" lines).
type namedSets struct {
	sets
	own   string
	shown []string
}

func (s namedSets) Own() string     { return s.own }
func (s namedSets) Shown() []string { return s.shown }
func (s namedSets) Sets() []string {
	out := []string{s.own}
	for set := range s.sets {
		if set != "" {
			out = append(out, set)
		}
	}
	return out
}

func loadResults(t *testing.T, a *txtar.Archive) evaluate.Results {
	s := loadSets(t, a)
	for _, f := range a.Files {
		switch f.Name {
		case "stale":
			st := staleSets{sets: s, why: map[string]string{}}
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				id, why, _ := strings.Cut(line, " ")
				st.why[id] = why
			}
			return st
		case "machines":
			n := namedSets{sets: s}
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				k, v, _ := strings.Cut(line, ":")
				switch k {
				case "own":
					n.own = strings.TrimSpace(v)
				case "book":
					n.shown = strings.Fields(v)
				}
			}
			return n
		}
	}
	return s
}

// ownMachine is the name of the machine of the build's set in a case.
func ownMachine(a *txtar.Archive) string {
	for _, f := range a.Files {
		if strings.HasPrefix(f.Name, "results/") {
			if r, err := store.Read(bytes.NewReader(f.Data), f.Name, nil); err == nil {
				return r.Machine.Name
			}
		}
	}
	return ""
}

func loadSets(t *testing.T, a *txtar.Archive) sets {
	s := sets{}
	for _, f := range a.Files {
		dir, name := filepath.Split(f.Name)
		if !strings.HasSuffix(name, ".txt") || dir == "" {
			continue
		}
		set := strings.TrimSuffix(dir, "/")
		if set == "results" {
			set = ""
		}
		r, err := store.Read(bytes.NewReader(f.Data), f.Name, nil)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if s[set] == nil {
			s[set] = map[string]*dataset.Result{}
		}
		s[set][r.Experiment] = r
	}
	return s
}

// bookIndex is the index of a case's book: chapter.md and the other
// chapters in the archive (every other NAME.md at its top, in the
// archive's order; _NAME.md and files in folders are fragments), with the
// bibliography references.bib if it has one.
func bookIndex(t *testing.T, a *txtar.Archive, d *parse.Doc) (*xref.Index, error) {
	docs := []*parse.Doc{d}
	var refs *bib.Bib
	for _, f := range a.Files {
		switch {
		case f.Name == "references.bib":
			var err error
			if refs, err = bib.Parse(f.Name, f.Data); err != nil {
				return nil, err
			}
		case strings.HasSuffix(f.Name, ".md") && f.Name != "chapter.md" && !strings.HasPrefix(f.Name, "_") && !strings.Contains(f.Name, "/"):
			other, err := parse.Parse(f.Name, f.Data, fakeProbes)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			docs = append(docs, other)
		}
	}
	return xref.New(docs, refs)
}

func errLines(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	for _, e := range unwrapAll(err) {
		b.WriteString(e.Error())
		b.WriteString("\n")
	}
	return b.String()
}

func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// writeIncluded writes the archive's other Markdown files (those
// chapter.md may include) into a temporary folder and makes it the
// working directory, where chapter.md is then parsed; without any it does
// nothing.
func writeIncluded(t *testing.T, a *txtar.Archive) {
	dir := ""
	for _, f := range a.Files {
		if !strings.HasSuffix(f.Name, ".md") || f.Name == "chapter.md" {
			continue
		}
		if dir == "" {
			dir = t.TempDir()
		}
		name := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if dir != "" {
		t.Chdir(dir)
	}
}

// TestCases runs every testdata/*.txtar: chapter.md rendered against the
// result files in the archive, compared with its html, errors and
// warnings sections (absent means empty). With -update the sections are
// rewritten from the output; review the diff.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no test cases")
	}
	for _, file := range files {
		file, _ = filepath.Abs(file) // a case with includes runs in a folder of its own
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string][]byte{}
			for _, f := range a.Files {
				sections[f.Name] = f.Data
			}
			src, ok := sections["chapter.md"]
			if !ok {
				t.Fatal("no chapter.md")
			}
			writeIncluded(t, a)
			got := map[string]string{}
			d, err := parse.Parse("chapter.md", src, fakeProbes)
			var x *xref.Index
			if err == nil {
				x, err = bookIndex(t, a, d)
			}
			if err != nil {
				got["errors"] = errLines(err)
			} else {
				p, err := evaluate.Evaluate(d, loadResults(t, a), nil)
				got["errors"] = errLines(err)
				for _, w := range p.Warnings {
					got["warnings"] += "[" + w.(interface{ Kind() string }).Kind() + "] " + w.Error() + "\n"
				}
				var out []byte
				if err == nil {
					// Drawing a plot may fail too, when the page is rendered.
					out, err = HTMLWith(d, p.Views, x)
					got["errors"] = errLines(err)
				}
				if err == nil {
					got["html"] = string(out)
					// Rendering is deterministic: a second evaluation of
					// the same input gives the same bytes.
					d2, _ := parse.Parse("chapter.md", src, fakeProbes)
					p2, _ := evaluate.Evaluate(d2, loadResults(t, a), nil)
					out2, _ := HTMLWith(d2, p2.Views, x)
					if !bytes.Equal(out, out2) {
						t.Errorf("two renderings differ")
					}
					for _, c := range p.Claims {
						got["claims"] += c.Pos.String() + " " + c.Verdict.String() + ": " + c.Text + " [" + c.Explain + "]\n"
						if len(c.Machines) > 1 || len(c.Machines) == 1 && c.Machines[0] != ownMachine(a) {
							got["claims"] += "  decided on " + strings.Join(c.Machines, " + ") + "\n"
						}
						for _, o := range c.On {
							got["claims"] += "  on " + o.Machine + ": " + o.Verdict.String() + " [" + o.Explain + "]\n"
						}
					}
				}
			}
			if *update {
				var keep []txtar.File
				for _, f := range a.Files {
					if _, gen := got[f.Name]; !gen {
						keep = append(keep, f)
					}
				}
				for _, name := range []string{"errors", "warnings", "claims", "html"} {
					if got[name] != "" {
						keep = append(keep, txtar.File{Name: name, Data: []byte(got[name])})
					}
				}
				a.Files = keep
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"errors", "warnings", "claims", "html"} {
				if want := string(sections[name]); got[name] != want {
					t.Errorf("%s:\ngot:\n%s\nwant:\n%s", name, got[name], want)
				}
			}
		})
	}
}
