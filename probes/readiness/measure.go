//go:build linux || darwin || freebsd

package readiness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

// fdSetSize is FD_SETSIZE: the bits in an fd_set (1024 on Linux, macOS and
// FreeBSD alike).
const fdSetSize = int(unsafe.Sizeof(unix.FdSet{})) * 8

// pairSet is the probe's sockets: the watched idle fds and the active pair.
type pairSet struct {
	idle  []int // watched idle sockets: both ends of ceil(n/2) pairs
	r, w  int   // the active pair: read end (watched) and write end
	first bool  // the active pair has the lowest fds and is watched first
	all   []int // every descriptor opened, to close
}

// openPairs creates the idle sockets and the active pair: the active pair
// after the idle ones (its read end is then the highest watched fd and the
// last one watched) or, with first, before them.
func openPairs(n int, first bool) (*pairSet, error) {
	s := &pairSet{idle: make([]int, 0, n), first: first, all: make([]int, 0, n+3)}
	pair := func() ([2]int, error) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			cur, max := kern.NoFile()
			return fds, fmt.Errorf("socketpair after %d fds: %w (RLIMIT_NOFILE soft %d, hard %d)", len(s.all), err, cur, max)
		}
		s.all = append(s.all, fds[0], fds[1])
		return fds, nil
	}
	active := func() error {
		fds, err := pair()
		s.r, s.w = fds[0], fds[1]
		return err
	}
	if first {
		if err := active(); err != nil {
			s.close()
			return nil, err
		}
	}
	for len(s.idle) < n {
		fds, err := pair()
		if err != nil {
			s.close()
			return nil, err
		}
		s.idle = append(s.idle, fds[0])
		if len(s.idle) < n { // an odd n leaves the last pair's second end unwatched
			s.idle = append(s.idle, fds[1])
		}
	}
	if !first {
		if err := active(); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// watched is every watched fd in the order they are given to the API.
func (s *pairSet) watched() []int {
	if s.first {
		return append([]int{s.r}, s.idle...)
	}
	return append(s.idle[:len(s.idle):len(s.idle)], s.r)
}

func (s *pairSet) maxfd() int {
	m := s.r
	for _, fd := range s.idle {
		m = max(m, fd)
	}
	return m
}

func (s *pairSet) close() {
	for _, fd := range s.all {
		unix.Close(fd)
	}
	s.all = nil
}

// A stepper runs k rounds and returns the sum of the waits' return values.
// It must not allocate: it runs inside the timed region.
type stepper func(k int) (ready int, err error)

func runRound(ctx context.Context, p probe.Params) (probe.Values, error) {
	api, idle, rounds := p.String("api"), p.Int("idle"), p.Int("rounds")
	first := p.String("active") == "first"
	if err := checkAPI(api); err != nil {
		return nil, err
	}
	if idle < 0 || idle > maxIdle {
		return nil, fmt.Errorf("idle must be 0 to %d, got %d", maxIdle, idle)
	}
	if rounds < 1 || rounds > maxRounds {
		return nil, fmt.Errorf("rounds must be 1 to %d, got %d", maxRounds, rounds)
	}
	// idle watched fds cost about idle descriptors (both ends of each pair
	// are watched), plus the active pair, the epoll/kqueue fd and headroom.
	if err := kern.RaiseNoFile(uint64(idle + 3 + fdHeadroom)); err != nil {
		return nil, fmt.Errorf("readiness with idle=%d: %w", idle, err)
	}
	set, err := openPairs(idle, first)
	if err != nil {
		return nil, err
	}
	defer set.close()

	v := probe.Values{"maxfd": float64(set.maxfd()), "usable": 1}
	if api == "select" && set.maxfd() >= fdSetSize {
		// FD_SET on such an fd writes past the fd_set in C (and panics in
		// Go): report that select cannot be used instead of calling it,
		// and leave out the figures that were not measured.
		v["usable"] = 0
		return v, nil
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var step stepper
	switch api {
	case "select":
		step = selectRounds(set)
	case "poll":
		step = pollRounds(set)
	default:
		var cleanup func()
		step, cleanup, err = nativeRounds(set)
		if err != nil {
			return nil, err
		}
		defer cleanup()
	}
	total, ready, err := timeRounds(ctx, step, rounds)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", api, err)
	}
	v["round"] = float64(total) / float64(rounds) / 1e9
	v["ready"] = float64(ready) / float64(rounds)
	return v, nil
}

// timeRounds warms up, then times rounds in chunks with the GC off; the
// context is checked between chunks, outside the timed region.
func timeRounds(ctx context.Context, step stepper, rounds int) (total int64, ready int, err error) {
	if _, err := step(warmup); err != nil {
		return 0, 0, err
	}
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for done := 0; done < rounds; {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		k := min(chunk, rounds-done)
		t0 := kern.Now()
		r, err := step(k)
		total += kern.Now() - t0
		if err != nil {
			return 0, 0, err
		}
		ready += r
		done += k
	}
	return total, ready, nil
}

var errMissed = errors.New("the wait did not report the active socket")

// selectRounds: the fd_set is rebuilt before every call by copying a
// template, since select overwrites the set it is given.
func selectRounds(s *pairSet) stepper {
	var tmpl unix.FdSet
	for _, fd := range s.watched() {
		tmpl.Set(fd) // every fd < fdSetSize: checked by the caller
	}
	nfd := s.maxfd() + 1
	r, w := s.r, s.w
	rset := new(unix.FdSet)
	buf := make([]byte, 1)
	return func(k int) (int, error) {
		ready := 0
		for range k {
			if _, err := unix.Write(w, buf); err != nil {
				return 0, fmt.Errorf("write: %w", err)
			}
			*rset = tmpl
			n, err := unix.Select(nfd, rset, nil, nil, nil)
			for err == unix.EINTR {
				*rset = tmpl
				n, err = unix.Select(nfd, rset, nil, nil, nil)
			}
			if err != nil {
				return 0, fmt.Errorf("select: %w", err)
			}
			if !rset.IsSet(r) {
				return 0, errMissed
			}
			ready += n
			if _, err := unix.Read(r, buf); err != nil {
				return 0, fmt.Errorf("read: %w", err)
			}
		}
		return ready, nil
	}
}

// pollRounds: the pollfd array is built once; poll writes only revents.
func pollRounds(s *pairSet) stepper {
	watched := s.watched()
	pfds := make([]unix.PollFd, len(watched))
	for i, fd := range watched {
		pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	active := &pfds[len(pfds)-1]
	if s.first {
		active = &pfds[0]
	}
	r, w := s.r, s.w
	buf := make([]byte, 1)
	return func(k int) (int, error) {
		ready := 0
		for range k {
			if _, err := unix.Write(w, buf); err != nil {
				return 0, fmt.Errorf("write: %w", err)
			}
			n, err := pollForever(pfds)
			for err == unix.EINTR {
				n, err = pollForever(pfds)
			}
			if err != nil {
				return 0, fmt.Errorf("poll: %w", err)
			}
			if active.Revents&unix.POLLIN == 0 {
				return 0, errMissed
			}
			ready += n
			if _, err := unix.Read(r, buf); err != nil {
				return 0, fmt.Errorf("read: %w", err)
			}
		}
		return ready, nil
	}
}

func runEdge(ctx context.Context, p probe.Params) (probe.Values, error) {
	edge := p.String("mode") == "edge"
	sent, readsize, wait := p.Int("sent"), p.Int("readsize"), p.Duration("wait")
	if sent < 1 || sent > maxSent {
		return nil, fmt.Errorf("sent must be 1 to %d bytes, got %d", maxSent, sent)
	}
	if readsize < 1 || readsize > sent {
		return nil, fmt.Errorf("readsize must be 1 to sent (%d), got %d", sent, readsize)
	}
	if wait < 0 || wait > maxWait {
		return nil, fmt.Errorf("wait must be 0 to %v, got %v", maxWait, wait)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	r, w, closeBoth, err := kern.Socketpair()
	if err != nil {
		return nil, err
	}
	defer closeBoth()
	for _, fd := range []int{r, w} {
		if err := unix.SetNonblock(fd, true); err != nil {
			return nil, fmt.Errorf("set non-blocking: %w", err)
		}
	}
	nt, err := newNotifier(r, edge)
	if err != nil {
		return nil, err
	}
	defer nt.close()

	if err := writeAll(w, make([]byte, sent)); err != nil {
		return nil, err
	}
	first, err := nt.wait(time.Second)
	if err != nil {
		return nil, err
	}
	if first == 0 {
		return nil, fmt.Errorf("first wait: no notification within 1s although %d bytes were written", sent)
	}
	if _, err := unix.Read(r, make([]byte, readsize)); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	unread, err := bytesUnread(r)
	if err != nil {
		return nil, fmt.Errorf("FIONREAD: %w", err)
	}
	t0 := kern.Now()
	second, err := nt.wait(wait)
	waited := kern.Now() - t0
	if err != nil {
		return nil, err
	}
	// The fix a reader can see: new data is a new edge.
	if err := writeAll(w, []byte{1}); err != nil {
		return nil, err
	}
	third, err := nt.wait(wait)
	if err != nil {
		return nil, err
	}
	return probe.Values{
		"notifications": float64(first + second),
		"unread":        float64(unread),
		"timedout":      flag(second == 0),
		"waited":        float64(waited) / 1e9,
		"renotified":    flag(third > 0),
	}, nil
}

// writeAll writes b with one write on a non-blocking socket: a short write
// means the socket buffer could not take it, which the probe reports.
func writeAll(fd int, b []byte) error {
	n, err := unix.Write(fd, b)
	if err != nil {
		return fmt.Errorf("write %d bytes: %w", len(b), err)
	}
	if n != len(b) {
		return fmt.Errorf("write %d bytes: the socket took only %d", len(b), n)
	}
	return nil
}

func runRegular(ctx context.Context, p probe.Params) (probe.Values, error) {
	api := p.String("api")
	if err := checkAPI(api); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "readiness-regular-*")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	defer os.Remove(name)
	_, werr := f.Write(make([]byte, regularSize))
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil, err
	}
	fd, err := unix.Open(name, unix.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer unix.Close(fd)

	var accepted, ready bool
	var errno unix.Errno
	switch api {
	case "select":
		if fd >= fdSetSize {
			return nil, fmt.Errorf("the file's fd %d is >= FD_SETSIZE (%d)", fd, fdSetSize)
		}
		var set unix.FdSet
		set.Set(fd)
		n, err := unix.Select(fd+1, &set, nil, nil, &unix.Timeval{})
		accepted, errno = errnoOf(err)
		ready = err == nil && n > 0 && set.IsSet(fd)
	case "poll":
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		_, err := unix.Poll(pfd, 0)
		accepted, errno = errnoOf(err)
		accepted = accepted && pfd[0].Revents&unix.POLLNVAL == 0
		ready = err == nil && pfd[0].Revents&unix.POLLIN != 0
	default:
		accepted, errno, ready, err = nativeRegular(fd)
		if err != nil {
			return nil, err
		}
	}
	return probe.Values{
		"accepted": flag(accepted),
		"errno":    float64(errno),
		"ready":    flag(ready),
	}, nil
}

// errnoOf splits a call's error into accepted (no error) and its errno.
func errnoOf(err error) (bool, unix.Errno) {
	if err == nil {
		return true, 0
	}
	var e unix.Errno
	if errors.As(err, &e) {
		return false, e
	}
	return false, 0
}
