package kern

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// RSS is the calling process's resident set size in bytes, read from
// /proc/self/statm (its second field, in pages). It counts user pages that
// are mapped and resident; the kernel's own memory for a thread (its task
// struct, its kernel stack) is not in it.
func RSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/self/statm: unexpected %q", b)
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/statm: %v", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// LiveThreads is the number of threads the calling process has now, the
// "Threads:" line of /proc/self/status (every thread, the Go runtime's own
// included).
func LiveThreads() (int, error) {
	return StatusField("/proc/self/status", "Threads")
}

// StatusField reads one numeric "Name:\tvalue" line of a /proc status file.
func StatusField(path, name string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	key := []byte(name + ":")
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, key); ok {
			f := bytes.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.Atoi(string(f[0]))
		}
	}
	return 0, fmt.Errorf("%s: no %s line", path, name)
}
