package machine

// Linux answers from /proc; sysctl(2) by name is a BSD interface.
func sysctl(string) string { return "" }

func sysctlUint64(string) uint64 { return 0 }
