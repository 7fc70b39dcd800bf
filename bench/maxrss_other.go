//go:build !darwin

package main

import "syscall"

// maxRSS is the peak resident set in bytes: Linux and the BSDs report it
// in KiB.
func maxRSS(ru *syscall.Rusage) int64 { return ru.Maxrss << 10 }
