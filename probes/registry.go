// Package probes is the registry: the one explicit list of every probe the
// book can run. Nothing registers itself from init(); a probe exists when it
// is listed here.
package probes

import (
	"measuredbook/probe"
	"measuredbook/probes/blocking"
	"measuredbook/probes/goroutines"
	"measuredbook/probes/nonblocking"
	"measuredbook/probes/readiness"
	"measuredbook/probes/syscalls"
	"measuredbook/probes/threads"
)

// All returns every probe, in the order the book introduces them.
func All() []probe.Probe {
	var all []probe.Probe
	for _, family := range [][]probe.Probe{
		threads.Probes(),
		goroutines.Probes(),
		readiness.Probes(),
		blocking.Probes(),
		nonblocking.Probes(),
		syscalls.Probes(),
	} {
		all = append(all, family...)
	}
	return all
}
