package readiness

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// nativeAPI is the registration-based readiness API of this system.
const nativeAPI = "epoll"

// pollForever is poll(fds, n, -1). x/sys's Poll wraps ppoll and allocates a
// timespec for a finite timeout; ppoll with a NULL timeout and sigmask is
// the same kernel path as poll(…, -1), without the allocation.
func pollForever(fds []unix.PollFd) (int, error) { return unix.Ppoll(fds, nil, nil) }

// bytesUnread is ioctl(SIOCINQ), Linux's FIONREAD for sockets.
func bytesUnread(fd int) (int, error) { return unix.IoctlGetInt(fd, unix.SIOCINQ) }

// nativeRounds registers every watched fd with one epoll instance, once,
// and returns the round loop: write, epoll_wait(ep, out, 16, -1), read.
func nativeRounds(s *pairSet) (stepper, func(), error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, nil, fmt.Errorf("epoll_create1: %w", err)
	}
	cleanup := func() { unix.Close(ep) }
	for _, fd := range s.watched() {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("epoll_ctl(ADD, %d): %w", fd, err)
		}
	}
	events := make([]unix.EpollEvent, maxEvents)
	r, w := s.r, s.w
	buf := make([]byte, 1)
	step := func(k int) (int, error) {
		ready := 0
		for range k {
			if _, err := unix.Write(w, buf); err != nil {
				return 0, fmt.Errorf("write: %w", err)
			}
			n, err := unix.EpollWait(ep, events, -1)
			for err == unix.EINTR {
				n, err = unix.EpollWait(ep, events, -1)
			}
			if err != nil {
				return 0, fmt.Errorf("epoll_wait: %w", err)
			}
			found := false
			for i := range n {
				found = found || int(events[i].Fd) == r
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

// notifier watches one fd for readability, level- or edge-triggered.
type notifier struct {
	ep, fd int
	events []unix.EpollEvent
}

func newNotifier(fd int, edge bool) (*notifier, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if edge {
		ev.Events |= unix.EPOLLET
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(ep)
		return nil, fmt.Errorf("epoll_ctl(ADD): %w", err)
	}
	return &notifier{ep: ep, fd: fd, events: make([]unix.EpollEvent, maxEvents)}, nil
}

// wait is one epoll_wait with the given timeout (rounded up to whole
// milliseconds, epoll's resolution); it returns how many readable
// notifications for the fd it reported (0 or 1).
func (nt *notifier) wait(timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		ms := int((time.Until(deadline) + time.Millisecond - 1) / time.Millisecond)
		n, err := unix.EpollWait(nt.ep, nt.events, max(ms, 0))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("epoll_wait: %w", err)
		}
		got := 0
		for _, ev := range nt.events[:n] {
			if int(ev.Fd) == nt.fd && ev.Events&unix.EPOLLIN != 0 {
				got++
			}
		}
		return got, nil
	}
}

func (nt *notifier) close() { unix.Close(nt.ep) }

// nativeRegular asks epoll to watch a regular file: Linux refuses with
// EPERM, since a file is never "not ready".
func nativeRegular(fd int) (accepted bool, errno unix.Errno, ready bool, err error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return false, 0, false, fmt.Errorf("epoll_create1: %w", err)
	}
	defer unix.Close(ep)
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	accepted, errno = errnoOf(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev))
	if !accepted {
		return false, errno, false, nil
	}
	events := make([]unix.EpollEvent, maxEvents)
	n, err := unix.EpollWait(ep, events, 0)
	if err != nil {
		return true, 0, false, fmt.Errorf("epoll_wait: %w", err)
	}
	return true, 0, n > 0, nil
}
