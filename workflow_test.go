package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflowStep is one step of a job of the fleet workflow.
type workflowStep struct {
	Name, Uses, Run string
	With            map[string]string
}

type workflowJob struct {
	Strategy struct {
		Matrix struct{ Include []map[string]string }
	}
	Steps []workflowStep
}

// TestWorkflowRehearsed runs the jobs of the fleet workflow
// (.github/workflows/measure.yml) step by step, as GitHub runs them, on
// the small fixture book testdata/fleet/ (two experiments with tiny
// params, real measurements): the measure job for two machines (the
// first two of its matrix, their sets named fleet-a and fleet-b through
// MBOOK_MACHINE), then the site job on the bundles they uploaded. Each job
// starts from a checkout of its own; a run: script runs in bash with
// GitHub's flags, an action is done by hand (checkout, artifacts). So a
// change to the workflow or to a verb it calls that breaks the chain
// fails here, not on the runners.
func TestWorkflowRehearsed(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is needed to run the workflow's scripts")
	}
	data, err := os.ReadFile(".github/workflows/measure.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct{ Jobs map[string]workflowJob }
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	r := &rehearsal{t: t, bash: bash, artifacts: map[string][]string{}}
	matrix := wf.Jobs["measure"].Strategy.Matrix.Include
	if len(matrix) < 2 {
		t.Fatalf("the measure job's matrix has %d runners, want at least 2", len(matrix))
	}
	for i, set := range []string{"fleet-a", "fleet-b"} {
		r.job(wf.Jobs["measure"], matrix[i], set)
	}
	site := r.job(wf.Jobs["site"], nil, "site-runner")
	if r.pages == "" {
		t.Fatal("the site job uploaded no pages")
	}
	checkFleetSite(t, filepath.Join(site, r.pages))
}

// rehearsal is the state shared by the jobs: the program built once, the
// artifacts uploaded so far, the folder of the pages.
type rehearsal struct {
	t         *testing.T
	bash      string
	exe       string              // the program the first Build step built
	artifacts map[string][]string // name → files uploaded
	pages     string              // the pages' folder, relative to the checkout
}

// job runs one job on a fresh runner whose machine is named machine
// (MBOOK_MACHINE) and returns its checkout.
func (r *rehearsal) job(job workflowJob, matrix map[string]string, machine string) string {
	t := r.t
	root := t.TempDir()
	temp, checkout := filepath.Join(root, "runner-temp"), filepath.Join(root, "checkout")
	for _, d := range []string{temp, checkout} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "${{ runner.temp }}", temp)
		for k, v := range matrix {
			s = strings.ReplaceAll(s, "${{ matrix."+k+" }}", v)
		}
		return s
	}
	for _, st := range job.Steps {
		action, _, _ := strings.Cut(st.Uses, "@")
		switch {
		case action == "actions/checkout":
			if err := os.CopyFS(checkout, os.DirFS("testdata/fleet")); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(filepath.Join(checkout, "results"), 0o755)
		case action == "actions/setup-go":
		case action == "actions/upload-artifact":
			files, _ := filepath.Glob(expand(st.With["path"]))
			if len(files) == 0 {
				t.Fatalf("%s: upload-artifact %s: no files at %s", machine, st.With["name"], st.With["path"])
			}
			r.artifacts[expand(st.With["name"])] = files
		case action == "actions/download-artifact":
			dir := expand(st.With["path"])
			os.MkdirAll(dir, 0o755)
			for name, files := range r.artifacts {
				if ok, _ := filepath.Match(st.With["pattern"], name); !ok {
					continue
				}
				for _, f := range files {
					copyFile(t, f, filepath.Join(dir, filepath.Base(f)))
				}
			}
		case action == "actions/upload-pages-artifact":
			r.pages = st.With["path"]
		case st.Uses != "":
			t.Fatalf("step %q uses %s, which the rehearsal does not know", st.Name, st.Uses)
		case st.Name == "Build":
			r.buildOnce(st, temp)
		default:
			r.run(st, expand(st.Run), checkout, temp, machine)
		}
	}
	return checkout
}

// buildOnce runs the Build step in this module (what the checkout holds),
// the first time; a later job copies what it built.
func (r *rehearsal) buildOnce(st workflowStep, temp string) {
	t := r.t
	if want := `go build -o "$RUNNER_TEMP/measuredbook" .`; strings.TrimSpace(st.Run) != want {
		t.Fatalf("the Build step runs %q; the rehearsal knows %q", st.Run, want)
	}
	if r.exe == "" {
		r.run(st, st.Run, ".", temp, "")
		r.exe = filepath.Join(temp, "measuredbook")
		return
	}
	copyFile(t, r.exe, filepath.Join(temp, "measuredbook"))
	os.Chmod(filepath.Join(temp, "measuredbook"), 0o755)
}

// run runs a step's script as GitHub's default shell does.
func (r *rehearsal) run(st workflowStep, script, dir, temp, machine string) {
	t := r.t
	if strings.Contains(script, "${{") {
		t.Fatalf("step %q: an expression the rehearsal cannot fill in: %s", st.Name, script)
	}
	cmd := exec.Command(r.bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUNNER_TEMP="+temp)
	if machine != "" {
		cmd.Env = append(cmd.Env, "MBOOK_MACHINE="+machine)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: step %q: %v\n%s\n%s", machine, st.Name, err, script, &out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// checkFleetSite checks the site the site job made: the book, a copy per
// machine, every page's switcher leading to the same page in each, the
// machines page with the comparison, and compare's text.
func checkFleetSite(t *testing.T, site string) {
	read := func(path string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(site, path))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	switcher := regexp.MustCompile(`(?s)<nav class="machines".*?</nav>`)
	href := regexp.MustCompile(`href="([^"]+)"`)
	for _, dir := range []string{".", "machines/fleet-a", "machines/fleet-b"} {
		for _, page := range []string{"index.html", "small.html", "claims.html"} {
			nav := switcher.FindString(read(filepath.Join(dir, page)))
			var links []string
			for _, m := range href.FindAllStringSubmatch(nav, -1) {
				links = append(links, m[1])
				if _, err := os.Stat(filepath.Join(site, dir, m[1])); err != nil {
					t.Errorf("%s/%s: the switcher's link %s leads nowhere", dir, page, m[1])
				}
			}
			// The book, fleet-b's copy (fleet-a's is the book's set), and
			// the machines page.
			if len(links) != 3 || !slices.Contains(links, page) {
				t.Errorf("%s/%s: the switcher links to %q, want the book, fleet-b and the machines page, this page among them", dir, page, links)
			}
		}
	}
	machines := read("fleet.html")
	for _, want := range []string{"fleet-a", "fleet-b", "책의 기계(fleet-a)와 견준 수치", `href="machines/fleet-b/index.html"`} {
		if !strings.Contains(machines, want) {
			t.Errorf("fleet.html does not say %q", want)
		}
	}
	if text := read("compare/fleet-b.txt"); !strings.Contains(text, "fleet-a vs fleet-b:") {
		t.Errorf("compare/fleet-b.txt is not a comparison of fleet-b with fleet-a:\n%s", text)
	}
}
