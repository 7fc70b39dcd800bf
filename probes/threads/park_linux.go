package threads

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
)

// futex(2) operations; x/sys/unix has the syscall number but not these.
const (
	futexWait        = 0
	futexWake        = 1
	futexPrivateFlag = 128
)

// futexWaitPrivate sleeps in the kernel while *addr == val. It goes through
// unix.Syscall6, so the runtime is told (entersyscall) and may hand the
// thread's P to another M; the OS thread itself is asleep in the kernel.
// Spurious returns (EINTR, EAGAIN) are the caller's to loop over.
func futexWaitPrivate(addr *uint32, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait|futexPrivateFlag, uintptr(val), 0, 0, 0)
}

// futexWakePrivate wakes at most n threads sleeping on addr.
func futexWakePrivate(addr *uint32, n int) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake|futexPrivateFlag, uintptr(n), 0, 0, 0)
}

// sleepers is a set of parked OS threads: each is a goroutine locked to its
// own thread, asleep in FUTEX_WAIT_PRIVATE on its own word of words.
type sleepers struct {
	words []uint32 // one futex word per thread; 0 = sleep, 1 = leave
	wg    sync.WaitGroup
}

// park is one sleeper's body. It never unlocks its thread: when it returns,
// the goroutine exits while locked and the runtime ends the OS thread, so a
// test that parks thousands of threads leaves none behind.
func (s *sleepers) park(i int, started *atomic.Int64) {
	defer s.wg.Done()
	runtime.LockOSThread()
	started.Add(1)
	w := &s.words[i]
	for atomic.LoadUint32(w) == 0 {
		futexWaitPrivate(w, 0)
	}
}

// startSleepers parks n threads and returns once every one of them is seen
// by the kernel asleep in futex(2) on its own word (read from
// /proc/self/task/TID/syscall), or fails after a deadline.
func startSleepers(n int, deadline time.Duration) (*sleepers, error) {
	s := &sleepers{words: make([]uint32, max(n, 1))}
	var started atomic.Int64
	s.wg.Add(n)
	for i := range n {
		go s.park(i, &started)
	}
	end := time.Now().Add(deadline)
	for {
		parked := 0
		if started.Load() == int64(n) {
			var err error
			parked, err = s.parked()
			if err != nil {
				s.stop()
				return nil, err
			}
			if parked == n {
				return s, nil
			}
		}
		if time.Now().After(end) {
			s.stop()
			return nil, fmt.Errorf("only %d of %d threads started and %d seen parked in futex after %v", started.Load(), n, parked, deadline)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// parked counts the process's threads that the kernel shows blocked in
// futex(2) on one of s.words: /proc/self/task/TID/syscall starts with the
// syscall number and its first argument, the futex address.
func (s *sleepers) parked() (int, error) {
	lo := uintptr(unsafe.Pointer(&s.words[0]))
	hi := lo + uintptr(len(s.words))*4
	return threadsInFutex(lo, hi)
}

// threadsInFutex counts threads of this process asleep in futex(2) on an
// address in [lo, hi).
func threadsInFutex(lo, hi uintptr) (int, error) {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return 0, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return 0, err
	}
	want := strconv.Itoa(unix.SYS_FUTEX) + " "
	n := 0
	buf := make([]byte, 256)
	for _, tid := range names {
		fd, err := unix.Open("/proc/self/task/"+tid+"/syscall", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // the thread exited meanwhile
		}
		m, _ := unix.Read(fd, buf)
		unix.Close(fd)
		if m <= 0 || !bytes.HasPrefix(buf[:m], []byte(want)) {
			continue
		}
		f := bytes.Fields(buf[:m])
		if len(f) < 2 {
			continue
		}
		addr, err := strconv.ParseUint(string(bytes.TrimPrefix(f[1], []byte("0x"))), 16, 64)
		if err == nil && uintptr(addr) >= lo && uintptr(addr) < hi {
			n++
		}
	}
	return n, nil
}

// release stops the sleepers unless the run's process ends with it
// (probe.OwnProcess), which ends their threads at once.
func (s *sleepers) release(ctx context.Context) {
	if !probe.OwnProcess(ctx) {
		s.stop()
	}
}

// stop wakes every sleeper and waits until all have returned (and so, being
// locked, have ended their threads).
func (s *sleepers) stop() {
	for i := range s.words {
		atomic.StoreUint32(&s.words[i], 1)
		futexWakePrivate(&s.words[i], 1)
	}
	s.wg.Wait()
}
