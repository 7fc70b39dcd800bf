//go:build !linux

package threads

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"measuredbook/probe"
)

// CeilingChildMain returns false unless MBOOK_THREADS_CEILING_CHILD is set;
// the ceiling loop is Linux-only, so a grandchild started here says so and
// exits.
func CeilingChildMain() bool {
	if _, ok := os.LookupEnv(ceilingEnv); !ok {
		return false
	}
	fmt.Fprintf(os.Stderr, "threads.ceiling: not supported on %s\n", runtime.GOOS)
	os.Exit(2)
	return true
}

func unsupported(name string) error {
	return fmt.Errorf("%s: not supported on %s (parks threads with Linux futex(2) and reads /proc)", name, runtime.GOOS)
}

func runCeiling(context.Context, probe.Params) (probe.Values, error) {
	return nil, unsupported("threads.ceiling")
}

func runIdleRSS(context.Context, probe.Params) (probe.Values, error) {
	return nil, unsupported("threads.idle_rss")
}

func runHandoff(context.Context, probe.Params) (probe.Values, error) {
	return nil, unsupported("threads.handoff")
}
