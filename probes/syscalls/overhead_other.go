//go:build !linux

package syscalls

import (
	"context"

	"measuredbook/probe"
)

// runOverhead: not a failure but a result, with the reason.
func runOverhead(context.Context, probe.Params) (probe.Values, error) {
	return nil, probe.NotAvailable("syscall.overhead", "it measures Linux's raw getpid trap and vDSO")
}
