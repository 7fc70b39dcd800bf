package runner

import (
	"os"
	"os/exec"
	"testing"
)

// TestChildDiesWithParent kills (SIGKILL, no chance to clean up) a parent
// that is running a hanging probe, and checks the probe's child is gone.
func TestChildDiesWithParent(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=1", pidFileEnv+"="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	child := readPid(t, pidFile)
	parent.Process.Kill()
	parent.Wait()
	waitGone(t, child)
}
