package runner

import (
	"os"
	"os/exec"
	"testing"
)

// TestChildDiesWithParent kills (SIGKILL, no chance to clean up) a parent
// that is running a probe which started a grandchild and hangs, and checks
// that the probe's child and its grandchild are both gone.
func TestChildDiesWithParent(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=1", pidFileEnv+"="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	pids := readPids(t, pidFile, 2)
	parent.Process.Kill()
	parent.Wait()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}
