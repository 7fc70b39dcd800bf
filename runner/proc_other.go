//go:build !linux

package runner

import (
	"os"
	"syscall"
)

// dieWithParent has no Pdeathsig here: a child outlives a parent killed
// with SIGKILL until its own timeout ends it. (A parent stopped by SIGINT
// or SIGTERM cancels the run and kills the child's group.)
func dieWithParent(*syscall.SysProcAttr) (unlock func()) { return func() {} }

// leftBehind cannot find who holds a pipe on this OS; it says so.
func leftBehind(...*os.File) string {
	return "a process the probe started outside its process group kept its output open past its exit and was left running"
}

func oomKills() int64 { return -1 }
