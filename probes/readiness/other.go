//go:build !linux && !darwin && !freebsd

package readiness

import (
	"context"

	"measuredbook/probe"
)

// nativeAPI is empty: this package measures only Linux, macOS and FreeBSD.
const nativeAPI = ""

func unsupported() (probe.Values, error) {
	return nil, probe.NotAvailable("the readiness probes", "they measure Linux, macOS and FreeBSD")
}

func runRound(context.Context, probe.Params) (probe.Values, error)   { return unsupported() }
func runEdge(context.Context, probe.Params) (probe.Values, error)    { return unsupported() }
func runRegular(context.Context, probe.Params) (probe.Values, error) { return unsupported() }
