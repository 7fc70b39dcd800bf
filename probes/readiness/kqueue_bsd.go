//go:build darwin || freebsd

package readiness

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// nativeAPI is the registration-based readiness API of this system.
const nativeAPI = "kqueue"

// fionread is FIONREAD, _IOR('f', 127, int), the same on macOS and FreeBSD
// (x/sys does not export it for them).
const fionread = 0x4004667f

// pollForever is poll(fds, n, -1).
func pollForever(fds []unix.PollFd) (int, error) { return unix.Poll(fds, -1) }

// bytesUnread is ioctl(FIONREAD).
func bytesUnread(fd int) (int, error) { return unix.IoctlGetInt(fd, fionread) }

// nativeRounds registers every watched fd with one kqueue in a single
// kevent() call and returns the round loop: write,
// kevent(kq, NULL, 0, out, 16, NULL), read.
func nativeRounds(s *pairSet) (stepper, func(), error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, nil, fmt.Errorf("kqueue: %w", err)
	}
	cleanup := func() { unix.Close(kq) }
	watched := s.watched()
	changes := make([]unix.Kevent_t, len(watched))
	for i, fd := range watched {
		unix.SetKevent(&changes[i], fd, unix.EVFILT_READ, unix.EV_ADD)
	}
	if _, err := unix.Kevent(kq, changes, nil, nil); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("kevent(EV_ADD × %d): %w", len(changes), err)
	}
	events := make([]unix.Kevent_t, maxEvents)
	r, w := s.r, s.w
	buf := make([]byte, 1)
	step := func(k int) (int, error) {
		ready := 0
		for range k {
			if _, err := unix.Write(w, buf); err != nil {
				return 0, fmt.Errorf("write: %w", err)
			}
			n, err := unix.Kevent(kq, nil, events, nil)
			for err == unix.EINTR {
				n, err = unix.Kevent(kq, nil, events, nil)
			}
			if err != nil {
				return 0, fmt.Errorf("kevent: %w", err)
			}
			found := false
			for i := range n {
				found = found || uint64(events[i].Ident) == uint64(r)
			}
			if !found {
				return 0, errMissed
			}
			ready += n
			if _, err := unix.Read(r, buf); err != nil {
				return 0, fmt.Errorf("read: %w", err)
			}
		}
		return ready, nil
	}
	return step, cleanup, nil
}

// notifier watches one fd for readability, level-triggered or, with
// EV_CLEAR, edge-triggered.
type notifier struct {
	kq, fd int
	events []unix.Kevent_t
}

func newNotifier(fd int, edge bool) (*notifier, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("kqueue: %w", err)
	}
	flags := unix.EV_ADD
	if edge {
		flags |= unix.EV_CLEAR
	}
	ch := make([]unix.Kevent_t, 1)
	unix.SetKevent(&ch[0], fd, unix.EVFILT_READ, flags)
	if _, err := unix.Kevent(kq, ch, nil, nil); err != nil {
		unix.Close(kq)
		return nil, fmt.Errorf("kevent(EV_ADD): %w", err)
	}
	return &notifier{kq: kq, fd: fd, events: make([]unix.Kevent_t, maxEvents)}, nil
}

// wait is one kevent() with the given timeout; it returns how many
// readable notifications for the fd it reported (0 or 1).
func (nt *notifier) wait(timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		ts := unix.NsecToTimespec(max(int64(time.Until(deadline)), 0))
		n, err := unix.Kevent(nt.kq, nil, nt.events, &ts)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("kevent: %w", err)
		}
		got := 0
		for _, ev := range nt.events[:n] {
			if uint64(ev.Ident) == uint64(nt.fd) && ev.Filter == unix.EVFILT_READ && ev.Flags&unix.EV_ERROR == 0 {
				got++
			}
		}
		return got, nil
	}
}

func (nt *notifier) close() { unix.Close(nt.kq) }

// nativeRegular asks kqueue to watch a regular file for reading (kqueue
// accepts it: EVFILT_READ on a file reports the bytes past the offset).
func nativeRegular(fd int) (accepted bool, errno unix.Errno, ready bool, err error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return false, 0, false, fmt.Errorf("kqueue: %w", err)
	}
	defer unix.Close(kq)
	ch := make([]unix.Kevent_t, 1)
	unix.SetKevent(&ch[0], fd, unix.EVFILT_READ, unix.EV_ADD)
	_, err = unix.Kevent(kq, ch, nil, nil)
	accepted, errno = errnoOf(err)
	if !accepted {
		return false, errno, false, nil
	}
	events := make([]unix.Kevent_t, maxEvents)
	n, err := unix.Kevent(kq, nil, events, &unix.Timespec{})
	if err != nil {
		return true, 0, false, fmt.Errorf("kevent: %w", err)
	}
	return true, 0, n > 0, nil
}
