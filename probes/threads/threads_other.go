//go:build !linux

package threads

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"measuredbook/probe"
)

// ceilingHelper: the ceiling loop is Linux-only, so a grandchild started
// here says so and exits.
func ceilingHelper() {
	fmt.Fprintf(os.Stderr, "threads.ceiling: not supported on %s\n", runtime.GOOS)
	os.Exit(2)
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
