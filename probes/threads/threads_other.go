//go:build !linux

package threads

import (
	"context"
	"fmt"
	"os"

	"measuredbook/probe"
)

// ceilingHelper: the ceiling loop is Linux-only, so a grandchild started
// here says so and exits.
func ceilingHelper() {
	fmt.Fprintln(os.Stderr, unsupported("threads.ceiling"))
	os.Exit(2)
}

// unsupported is every threads probe's result here: not a failure, but a
// combination this machine cannot measure, with the reason.
func unsupported(name string) error {
	return probe.NotAvailable(name, "it parks threads with Linux's futex(2) and reads /proc")
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
