// Package machine fingerprints the computer a measurement ran on
// (a dataset.Fingerprint): what a reader needs to judge a number (CPU, cores, memory, kernel, Go release)
// and the limits that shape the thread and fd experiments. It never
// records the hostname: the fingerprint is published with the book.
package machine

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"measuredbook/dataset"
)

// Current fingerprints this machine. MBOOK_MACHINE overrides the name, for
// a maintainer who wants to keep two result sets apart on one host.
func Current() dataset.Fingerprint {
	f := dataset.Fingerprint{
		CPU:     cpuModel(),
		Cores:   runtime.NumCPU(),
		Memory:  memTotal(),
		OS:      osName(),
		Kernel:  kernelRelease(),
		Arch:    runtime.GOARCH,
		Go:      runtime.Version(),
		Virtual: virtual(),
		Limits:  limits(),
	}
	f.Name = os.Getenv("MBOOK_MACHINE")
	if f.Name == "" {
		f.Name = DefaultName(f)
	}
	return f
}

var nonAlnum = regexp.MustCompile(`[^a-z0-9]+`)

// DefaultName derives a stable, hostname-free name from what identifies the
// hardware class: OS family, architecture, CPU model and core count. A new
// kernel or Go release keeps the name (it is recorded, not identifying).
func DefaultName(f dataset.Fingerprint) string {
	cpu := strings.Trim(nonAlnum.ReplaceAllString(strings.ToLower(f.CPU), "-"), "-")
	if cpu == "" {
		cpu = "cpu"
	}
	return fmt.Sprintf("%s-%s-%s-%dc", runtime.GOOS, f.Arch, cpu, f.Cores)
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// cpuinfo is the first value of one of keys in Linux's /proc/cpuinfo.
func cpuinfo(keys ...string) (string, bool) {
	for _, line := range strings.Split(readFile("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && slices.Contains(keys, strings.TrimSpace(k)) {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func cpuModel() string {
	if v, ok := cpuinfo("model name"); ok {
		return v
	}
	if v := sysctl("machdep.cpu.brand_string"); v != "" {
		return v
	}
	return sysctl("hw.model")
}

func memTotal() uint64 {
	for _, line := range strings.Split(readFile("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	if v := sysctlUint64("hw.memsize"); v != 0 {
		return v
	}
	return sysctlUint64("hw.physmem")
}

func osName() string {
	for _, line := range strings.Split(readFile("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}

// virtual reports whether this is a virtual machine guest: on Linux the
// CPU's hypervisor flag (set by every hypervisor that exposes CPUID); on
// macOS kern.hv_vmm_present, on FreeBSD kern.vm_guest. "" when unknown.
func virtual() string {
	yes := map[bool]string{true: "yes", false: "no"}
	if v, ok := cpuinfo("flags", "Features"); ok {
		return yes[slices.Contains(strings.Fields(v), "hypervisor")]
	}
	if v := sysctl("kern.vm_guest"); v != "" {
		return yes[v != "none"]
	}
	if v := sysctl("kern.hv_vmm_present"); v != "" {
		return yes[v[0] != 0] // an int, read as its bytes (little-endian)
	}
	return ""
}

func limits() map[string]string {
	l := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			l[k] = v
		}
	}
	set("threads-max", readFile("/proc/sys/kernel/threads-max"))
	set("pid-max", readFile("/proc/sys/kernel/pid_max"))
	set("pids-max", cgroupPidsMax())
	var r unix.Rlimit
	for k, which := range map[string]int{"nofile": unix.RLIMIT_NOFILE, "nproc": unix.RLIMIT_NPROC} {
		if unix.Getrlimit(which, &r) == nil {
			set(k, fmt.Sprintf("%d/%d", r.Cur, r.Max))
		}
	}
	return l
}

// cgroupPidsMax reads pids.max of this process's cgroup, v2 or v1; "max"
// means no limit.
func cgroupPidsMax() string {
	for _, line := range strings.Split(readFile("/proc/self/cgroup"), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var path string
		switch {
		case parts[0] == "0" && parts[1] == "":
			path = "/sys/fs/cgroup" + parts[2] + "/pids.max"
		case parts[1] == "pids":
			path = "/sys/fs/cgroup/pids" + parts[2] + "/pids.max"
		default:
			continue
		}
		if v := readFile(path); v != "" {
			return v
		}
	}
	return ""
}
