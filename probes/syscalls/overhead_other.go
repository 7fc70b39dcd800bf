//go:build !linux

package syscalls

import (
	"context"
	"fmt"
	"runtime"

	"measuredbook/probe"
)

func runOverhead(context.Context, probe.Params) (probe.Values, error) {
	return nil, fmt.Errorf("syscall.overhead is not supported on %s: it measures Linux's raw getpid trap and vDSO", runtime.GOOS)
}
