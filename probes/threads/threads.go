// Package threads is being written; its probes land here.
package threads

import "measuredbook/probe"

// Probes lists this family's probes.
func Probes() []probe.Probe { return nil }
