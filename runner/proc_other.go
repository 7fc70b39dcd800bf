//go:build !linux

package runner

import (
	"os"
	"syscall"
)

// dieWithParent has no Pdeathsig here; the lifeline (see watchParent)
// alone makes the child's group die with the parent.
func dieWithParent(*syscall.SysProcAttr) (unlock func()) { return func() {} }

// leftBehind cannot find who holds a pipe on this OS; it says so.
func leftBehind(...*os.File) string {
	return "a process the probe started outside its process group kept its output open past its exit and was left running"
}

func oomKills() int64 { return -1 }
