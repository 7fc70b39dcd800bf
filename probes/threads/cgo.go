//go:build cgo

package threads

// The threads probes measure threads as a C program makes them, with
// pthread_create and glibc's stack mappings: the Go runtime does so
// whenever runtime/cgo is linked. Linking it here, and not by accident of
// what else a binary imports, keeps that true of every binary that runs
// them (the probes' own binary imports nothing else that would link it).
import _ "runtime/cgo"
