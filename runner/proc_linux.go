package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// dieWithParent asks the kernel to send the child SIGTERM when the parent
// dies, on which the child kills its whole process group (see
// watchParent); a SIGKILL would kill the child alone and leave anything it
// started. Linux sends the signal when the *thread* that started the child
// exits, so the calling goroutine stays locked to its thread until the
// returned function is called, after the child is gone.
func dieWithParent(a *syscall.SysProcAttr) (unlock func()) {
	runtime.LockOSThread()
	a.Pdeathsig = syscall.SIGTERM
	return runtime.UnlockOSThread
}

// leftBehind finds the processes that still hold one of the pipes open
// (a grandchild that left the process group with setsid), kills them and
// says which they were.
func leftBehind(pipes ...*os.File) string {
	want := map[string]bool{}
	for _, f := range pipes {
		var st syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &st) == nil {
			want[fmt.Sprintf("pipe:[%d]", st.Ino)] = true
		}
	}
	self := os.Getpid()
	procs, _ := os.ReadDir("/proc")
	var found []string
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		for _, fd := range fds {
			link, _ := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name()))
			if want[link] {
				syscall.Kill(pid, syscall.SIGKILL)
				comm, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
				found = append(found, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(string(comm))))
				break
			}
		}
	}
	if len(found) == 0 {
		return "a process the probe started kept its output open past its exit; it could not be found"
	}
	return fmt.Sprintf("left behind process %s, which had left the probe's process group and held its output open; killed", strings.Join(found, ", "))
}

// oomKills is the OOM-kill count of the cgroup this process (and so its
// children) runs in, or -1 when it cannot be read.
func oomKills() int64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			file = filepath.Join("/sys/fs/cgroup", parts[2], "memory.events")
		case parts[1] == "memory":
			file = filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.oom_control")
		default:
			continue
		}
		if n, ok := oomField(file); ok {
			return n
		}
	}
	return -1
}

func oomField(file string) (int64, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
