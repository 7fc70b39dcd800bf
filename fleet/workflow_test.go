package fleet

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const workflow = "../.github/workflows/measure.yml"

// actionlint runs github.com/rhysd/actionlint at the version go.mod pins
// (a tool of the module, built by `go tool` from the module cache). It
// runs shellcheck on the run: scripts when shellcheck is installed.
func actionlint(t *testing.T, files ...string) (string, error) {
	t.Helper()
	out, err := exec.Command("go", append([]string{"tool", "actionlint", "-no-color"}, files...)...).CombinedOutput()
	return string(out), err
}

// TestWorkflowLints: the fleet workflow cannot run here, so actionlint
// checks it (syntax, expressions, action inputs, job needs, shell). A
// workflow with a mistake must fail the same check.
func TestWorkflowLints(t *testing.T) {
	if out, err := actionlint(t, workflow); err != nil {
		t.Fatalf("actionlint %s: %v\n%s", workflow, err, out)
	}
	data, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "broken.yml")
	os.WriteFile(broken, []byte(strings.Replace(string(data), "${{ matrix.runner }}\n", "${{ matrix.runnr }}\n", 1)), 0o644)
	if out, err := actionlint(t, broken); err == nil || !strings.Contains(out, "runnr") {
		t.Errorf("actionlint passes a workflow naming an undefined matrix key: %v\n%s", err, out)
	}
}

// TestWorkflowShape: the matrix covers the three runners the book is
// measured on, every job is bounded, and the jobs use the verbs that
// move sets (bundle, import) and the measuring build.
func TestWorkflowShape(t *testing.T) {
	data, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Timeout  int `yaml:"timeout-minutes"`
			Strategy struct {
				Matrix struct {
					Include []map[string]string
				}
			}
			Steps []struct {
				Run string
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var runners []string
	for _, m := range wf.Jobs["measure"].Strategy.Matrix.Include {
		runners = append(runners, m["runner"])
	}
	slices.Sort(runners)
	if want := []string{"macos-14", "ubuntu-24.04-arm", "ubuntu-latest"}; !slices.Equal(runners, want) {
		t.Errorf("matrix runners %q, want %q", runners, want)
	}
	for name, job := range wf.Jobs {
		if job.Timeout <= 0 || job.Timeout > 60 {
			t.Errorf("job %s: timeout-minutes %d, want a bound of at most an hour", name, job.Timeout)
		}
	}
	runs := func(job string) string {
		var s []string
		for _, st := range wf.Jobs[job].Steps {
			s = append(s, st.Run)
		}
		return strings.Join(s, "\n")
	}
	for job, wants := range map[string][]string{
		"measure": {"build --here --fresh", "bundle >"},
		"site":    {"import \"$b\"", "build --fleet \"$sets\" --out _site", "build --machine \"$set\" --fleet \"$sets\""},
	} {
		for _, w := range wants {
			if !strings.Contains(runs(job), w) {
				t.Errorf("job %s does not run %q", job, w)
			}
		}
	}
}
