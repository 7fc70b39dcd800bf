package nonblocking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

// Caps of nonblocking.sndbuf, so that a socket that never says EAGAIN
// cannot run away with memory or time. Reaching one is reported (capped=1).
const (
	maxSndBytes  = 64 << 20
	maxSndWrites = 10_000_000
	maxSndTime   = 20 * time.Second
	maxWriteSize = 16 << 20
)

var sndbufSpec = probe.Spec{
	Name: "nonblocking.sndbuf",
	Doc: `How much a stream socket accepts from a non-blocking writer whose peer never reads, before write(2) fails
with EAGAIN: the kernel's own back-pressure.
Setup, kind=unix: socketpair(AF_UNIX, SOCK_STREAM, 0); kind=tcp: a listening socket bound to 127.0.0.1 port 0
(listen backlog 1), a second socket connect()ed to it (blocking: on loopback the handshake completes inside
connect), and accept() for the peer; nothing but loopback is ever used. The writing end is set O_NONBLOCK;
the peer is never read. Then write(w, buf, write) again and again, summing the bytes each call accepted
(short writes included) and counting the calls that accepted any, until a write fails: with EAGAIN, the
expected end, or with anything else (the probe fails). Caps: 64 MiB, 10 million writes, 20 s; reaching one
ends the run with capped=1 and errno=0. Then getsockopt(SO_SNDBUF) of the writer and SO_RCVBUF of the peer.
On Linux an AF_UNIX stream charges every write as an skb of its own (its payload plus a few hundred bytes
of overhead) against the writer's SO_SNDBUF, so 1-byte writes stop after a few hundred bytes while 64 KiB
writes fill it with data; the peer's SO_RCVBUF plays no part. Loopback TCP moves data into the peer's
receive queue until its window closes, then keeps it in the writer's send queue, whose SO_SNDBUF the kernel
may grow as the connection runs (tcp_wmem); Nagle coalesces small writes into large segments.
What Go adds: nothing on the measured path beyond entersyscall/exitsyscall per write; the sockets are raw
descriptors, not net.Conn (whose writes would park the goroutine in the netpoller instead of failing).`,
	Params: []probe.Param{
		{Name: "kind", Kind: probe.String, Default: "unix", Choices: []string{"unix", "tcp"},
			Doc: "unix: an AF_UNIX stream socketpair; tcp: a TCP connection over 127.0.0.1"},
		{Name: "write", Kind: probe.Int, Max: maxWriteSize, Default: "1", Doc: "bytes per write call (the book also uses 65536)"},
	},
	Metrics: []probe.Metric{
		{Name: "bytes", Unit: probe.Bytes, Doc: "bytes the socket accepted before write failed with EAGAIN"},
		{Name: "writes", Unit: probe.Count, Doc: "write calls that accepted at least one byte"},
		{Name: "errno", Unit: probe.Count, Doc: "errno of the write that ended the run (EAGAIN), 0 if a cap ended it"},
		{Name: "sndbuf", Unit: probe.Bytes, Doc: "SO_SNDBUF of the writing socket after the run"},
		{Name: "rcvbuf", Unit: probe.Bytes, Doc: "SO_RCVBUF of the never-reading peer after the run"},
		{Name: "capped", Unit: probe.Count, Doc: "1 if a cap (64 MiB, 10 million writes, 20 s) ended the run before EAGAIN"},
	},
	Timeout: 30 * time.Second,
}

func runSndbuf(ctx context.Context, p probe.Params) (probe.Values, error) {
	size := p.Int("write")
	if size < 1 || size > maxWriteSize {
		return nil, fmt.Errorf("write must be 1..%d bytes, got %d", maxWriteSize, size)
	}
	var w, r int
	switch kind := p.String("kind"); kind {
	case "unix":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return nil, fmt.Errorf("socketpair: %w", err)
		}
		w, r = fds[0], fds[1]
	case "tcp":
		var err error
		if w, r, err = loopbackTCP(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("kind must be unix or tcp, got %q", kind)
	}
	defer unix.Close(w)
	defer unix.Close(r)
	if err := unix.SetNonblock(w, true); err != nil {
		return nil, fmt.Errorf("set O_NONBLOCK: %w", err)
	}

	buf := make([]byte, size)
	var bytes, writes int64
	var errno unix.Errno
	capped := 0
	t0 := kern.Now()
	for {
		n, err := unix.Write(w, buf)
		if n > 0 {
			bytes += int64(n)
			writes++
		}
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if errors.As(err, &errno) && errno == unix.EAGAIN {
				break
			}
			return nil, fmt.Errorf("write after %d bytes: %w", bytes, err)
		}
		if bytes >= maxSndBytes || writes >= maxSndWrites {
			capped = 1
			break
		}
		if writes&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if kern.Now()-t0 > int64(maxSndTime) {
				capped = 1
				break
			}
		}
	}
	sndbuf, err := unix.GetsockoptInt(w, unix.SOL_SOCKET, unix.SO_SNDBUF)
	if err != nil {
		return nil, fmt.Errorf("getsockopt(SO_SNDBUF): %w", err)
	}
	rcvbuf, err := unix.GetsockoptInt(r, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		return nil, fmt.Errorf("getsockopt(SO_RCVBUF): %w", err)
	}
	return probe.Values{
		"bytes":  float64(bytes),
		"writes": float64(writes),
		"errno":  float64(errno),
		"sndbuf": float64(sndbuf),
		"rcvbuf": float64(rcvbuf),
		"capped": float64(capped),
	}, nil
}

// loopbackTCP returns the two ends of a TCP connection over 127.0.0.1: the
// connecting socket (w) and the accepted one (r).
func loopbackTCP() (w, r int, err error) {
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, -1, fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(l)
	if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return -1, -1, fmt.Errorf("bind 127.0.0.1:0: %w", err)
	}
	if err := unix.Listen(l, 1); err != nil {
		return -1, -1, fmt.Errorf("listen: %w", err)
	}
	sa, err := unix.Getsockname(l)
	if err != nil {
		return -1, -1, fmt.Errorf("getsockname: %w", err)
	}
	if w, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err != nil {
		return -1, -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Connect(w, sa); err != nil {
		unix.Close(w)
		return -1, -1, fmt.Errorf("connect 127.0.0.1: %w", err)
	}
	if r, _, err = unix.Accept(l); err != nil {
		unix.Close(w)
		return -1, -1, fmt.Errorf("accept: %w", err)
	}
	return w, r, nil
}
