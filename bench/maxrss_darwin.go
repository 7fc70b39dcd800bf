package main

import "syscall"

// maxRSS is the peak resident set in bytes: macOS reports it in bytes.
func maxRSS(ru *syscall.Rusage) int64 { return ru.Maxrss }
