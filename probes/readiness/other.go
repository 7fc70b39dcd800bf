//go:build !linux && !darwin && !freebsd

package readiness

import (
	"context"
	"fmt"
	"runtime"

	"measuredbook/probe"
)

// nativeAPI is empty: this package measures only Linux, macOS and FreeBSD.
const nativeAPI = ""

func unsupported() (probe.Values, error) {
	return nil, fmt.Errorf("the readiness probes are not supported on %s", runtime.GOOS)
}

func runRound(context.Context, probe.Params) (probe.Values, error)   { return unsupported() }
func runEdge(context.Context, probe.Params) (probe.Values, error)    { return unsupported() }
func runRegular(context.Context, probe.Params) (probe.Values, error) { return unsupported() }
