//go:build darwin || freebsd

package machine

import "golang.org/x/sys/unix"

func sysctl(name string) string {
	v, err := unix.Sysctl(name)
	if err != nil {
		return ""
	}
	return v
}

func sysctlUint64(name string) uint64 {
	v, err := unix.SysctlUint64(name)
	if err != nil {
		return 0
	}
	return v
}
