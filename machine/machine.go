// Package machine fingerprints the computer a measurement ran on
// (a dataset.Fingerprint): what a reader needs to judge a number (CPU, cores, memory, kernel, Go release)
// and the limits that shape the thread and fd experiments. It never
// records the hostname: the fingerprint is published with the book.
package machine

import (
	"bufio"
	"bytes"
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

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		s := bufio.NewScanner(bytes.NewReader(b))
		for s.Scan() {
			k, v, ok := strings.Cut(s.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
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
	if info := readFile("/proc/cpuinfo"); info != "" {
		for _, line := range strings.Split(info, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && (strings.TrimSpace(k) == "flags" || strings.TrimSpace(k) == "Features") {
				return yes[slices.Contains(strings.Fields(v), "hypervisor")]
			}
		}
		return ""
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
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) == nil {
		set("nofile", fmt.Sprintf("%d/%d", r.Cur, r.Max))
	}
	if unix.Getrlimit(unix.RLIMIT_NPROC, &r) == nil {
		set("nproc", fmt.Sprintf("%d/%d", r.Cur, r.Max))
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
