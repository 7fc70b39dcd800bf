// Command child is the probes' own binary: the runner starts it for every
// run (runner.Light builds it), so a run's process links the probes and
// the runner's child side, and none of the generator's packages, whose
// initialisation would otherwise precede every measurement.
package main

import (
	"fmt"
	"os"

	"measuredbook/probes"
	"measuredbook/runner"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != runner.ChildVerb {
		fmt.Fprintf(os.Stderr, "%s runs one probe run for measuredbook's runner (%s PROBE PARAMS-JSON); use go run . probe NAME\n", os.Args[0], runner.ChildVerb)
		os.Exit(2)
	}
	os.Exit(runner.Child(os.Args[2:], probes.All(), os.Stdout, os.Stderr))
}
