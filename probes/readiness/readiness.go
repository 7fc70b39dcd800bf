// Package readiness holds the probes of chapter 2, "from select to epoll":
// what one "is anything ready?" round costs with select, poll and epoll
// (kqueue on macOS and FreeBSD) as idle sockets grow; the edge-triggered
// trap (read part of the data, and an edge-triggered wait never tells you
// again); and what the readiness APIs say about a regular file.
//
// Every probe works on raw descriptors with golang.org/x/sys/unix, never on
// net.Conn or os.File, whose I/O goes through Go's own netpoller and would
// measure Go rather than the kernel.
package readiness

import (
	"embed"
	"io/fs"
	"time"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

//go:embed *.go
var source embed.FS

// Bounds on params, so that no parameter combination can run away with the
// machine: idle is bounded in practice by RLIMIT_NOFILE as well.
const (
	maxIdle     = 100_000
	maxRounds   = 1_000_000
	maxSent     = 64 << 10
	maxWait     = 10 * time.Second
	warmup      = 50  // untimed rounds before the timed ones
	chunk       = 256 // timed rounds between two checks of the context
	maxEvents   = 16  // epoll_wait / kevent output array, as in the seed
	fdHeadroom  = 64  // descriptors beyond the probe's own: stdio, the runtime's
	regularSize = 4096
)

var apis = []string{"select", "poll", "epoll", "kqueue"}

// Probes lists this family's probes.
func Probes() []probe.Probe {
	srcs := []fs.FS{source, kern.Source}
	return []probe.Probe{
		{Spec: roundSpec, Run: runRound, Sources: srcs},
		{Spec: edgeSpec, Run: runEdge, Sources: srcs},
		{Spec: regularSpec, Run: runRegular, Sources: srcs},
	}
}

var roundSpec = probe.Spec{
	Name: "readiness",
	Doc: `Cost of one readiness round as the idle sockets watched grow (select, poll, epoll; kqueue on macOS/FreeBSD).
Setup, untimed: ceil(idle/2) AF_UNIX stream socketpairs, and BOTH ends of each are watched for
readability (idle distinct idle sockets; nothing is ever written to either end, so none ever becomes
readable); then one active socketpair, whose read end is watched too. The seed watched one end of each
of N pairs, so N watched sockets cost 2N descriptors: 10,000 idle pairs need 20,002+ fds, above this
machine's RLIMIT_NOFILE hard limit of 20,000. Watching both ends keeps every watched fd an idle socket
while N watched idle fds cost about N descriptors. It also keeps fd numbers about half the seed's, so
here select still fits FD_SETSIZE at idle=1000 where the seed's 1,000 pairs (fds near 2,000) did not;
maxfd reports the highest watched fd. The soft RLIMIT_NOFILE is raised to the hard limit when needed.
Per API, built once outside the loop: poll, a pollfd array (POLLIN on every watched fd, the active
one where the active param puts it); select, an fd_set template; epoll, epoll_create1 and one
EPOLL_CTL_ADD (EPOLLIN, level-triggered) per fd; kqueue, one kevent() call registering
EVFILT_READ|EV_ADD for every fd.
One round: write(active_w, 1 byte); wait with no timeout (select(maxfd+1, &set, NULL, NULL, NULL) after
copying the template into set, because select overwrites its argument: that 128-byte copy is part of
select's cost, as it is in any C select loop; poll as ppoll(fds, n, NULL, NULL), which is poll(fds, n, -1);
epoll_wait(ep, out, 16, -1); kevent(kq, NULL, 0, out, 16, NULL)); check that the active fd is among
those reported; read(active_r, 1 byte). After 50 warm-up rounds the rounds are timed with
CLOCK_MONOTONIC (through the vDSO) in chunks of 256 (the context is checked between chunks, outside the timed region);
round = total time / rounds and includes the write and the read, as the seed's did. ready = the wait's
return value averaged over the rounds. select is never called when a watched fd is >= FD_SETSIZE (1024):
usable=0 then, and round and ready are absent from the run (not 0: nothing was measured).
The axis is idle sockets, not connections: idle counts watched descriptors, two per socketpair, so
idle=10000 is 5,000 connected pairs with both ends watched.
The active socket's place matters on Linux: poll and select add a wait-queue entry to every fd they
scan until they meet the first ready one, then only check the rest. With active=last (the default:
its pair is created after the idle ones, so it has the highest fd and ends the pollfd array) every
idle socket gets an entry, set up and torn down each round, as in a wait that finds nothing ready
and sleeps; with active=first (its pair created first, lowest fd, first in the array) none does.
What Go adds: each syscall passes through the runtime's entersyscall/exitsyscall (tens of ns, three
syscalls per round); and a Go process always has several threads (sysmon, idle Ms), so its file table
is shared: the kernel's fdget then takes a reference on the file (an atomic increment and decrement on
the struct file) for each of write, epoll_wait and read, which a single-threaded C process skips
(fdget's fast path when the table is not shared). epoll's figure, which scans no idle fd, carries
that cost in full; a C reproduction should start one idle pthread to compare like with like; the measuring goroutine is locked to its OS thread and the GC is off during the
timed rounds; and unix.FdSet.Set on an fd >= 1024 would panic on a bounds check where C's FD_SET
silently writes past the fd_set (the probe checks before setting).
kqueue (macOS, FreeBSD) against epoll (Linux), what differs in this probe: registration is one kevent()
call whose change list holds every fd (epoll needs one epoll_ctl per fd); the wait is kevent(kq, NULL, 0,
out, 16, NULL), the same 16-slot output array as epoll_wait's, and each event also carries the bytes
readable (epoll's only flags readiness); poll is libc's poll(fds, n, -1) rather than ppoll; the fdget
and wait-queue remarks above are Linux's kernel, and XNU's and FreeBSD's differ. Each platform measures
the one it has: asked for the other, the probe's result is "kqueue is not available on linux" (or
"epoll is not available on darwin"), a reason and no figures, so a chapter may sweep both.`,
	Params: []probe.Param{
		{Name: "api", Kind: probe.String, Default: "poll", Choices: apis,
			Doc: "readiness API: select, poll, epoll (Linux) or kqueue (macOS, FreeBSD)"},
		{Name: "idle", Kind: probe.Int, Max: maxIdle, Default: "1000",
			Doc: "idle sockets watched besides the active one: watched descriptors, both ends of ceil(idle/2) socketpairs (not connections)"},
		{Name: "rounds", Kind: probe.Int, Sample: true, Max: maxRounds, Default: "2000",
			Doc: "timed rounds (write 1 byte, wait, read it), after 50 warm-up rounds"},
		{Name: "active", Kind: probe.String, Default: "last", Choices: []string{"last", "first"},
			Doc: "where the active socket sits: last (created after the idle ones, highest fd, end of the poll array) or first"},
	},
	Metrics: []probe.Metric{
		{Name: "round", Unit: probe.Seconds, Better: probe.Lower,
			Doc:      "mean time of one round: write 1 byte, wait for readiness, read it",
			Optional: "absent where select cannot be used: a watched fd is at or above FD_SETSIZE (1024), so select was never called"},
		{Name: "usable", Unit: probe.Count, Better: probe.Higher,
			Doc: "1 if the API could watch every fd; 0 when select would need an fd >= FD_SETSIZE (1024)"},
		{Name: "maxfd", Unit: probe.Count,
			Doc: "highest fd number watched"},
		{Name: "ready", Unit: probe.Count,
			Doc:      "mean number of fds the wait reported ready per round (1: only the active one)",
			Optional: "absent where select cannot be used: a watched fd is at or above FD_SETSIZE (1024), so select was never called"},
	},
	Timeout: 2 * time.Minute,
}

var edgeSpec = probe.Spec{
	Name: "readiness.edge",
	Doc: `The edge-triggered trap. One AF_UNIX stream socketpair, both ends non-blocking. The read end is
registered for readability: on Linux epoll_ctl(EPOLL_CTL_ADD, EPOLLIN, | EPOLLET in edge mode); on
macOS/FreeBSD kevent(EVFILT_READ, EV_ADD, | EV_CLEAR in edge mode). Then: write sent bytes in one
write(); wait (timeout 1 s) -> first notification; read(readsize bytes) once, not until EAGAIN;
ioctl(FIONREAD/SIOCINQ) -> unread; wait again with timeout wait, timed with CLOCK_MONOTONIC -> waited,
timedout (the wait returned nothing); finally write 1 more byte and wait (timeout wait) -> renotified,
the fix a reader can see: new data makes a new edge. The probe uses the platform's own API (epoll on Linux,
kqueue on macOS and FreeBSD; the machine's fingerprint says which): EV_CLEAR resets the kevent's state
when it is returned, as EPOLLET reports only a change, so both stay silent while old bytes wait, and
both fire again on new data. Level-triggered, the second wait reports the
socket again (notifications = 2); edge-triggered it times out (notifications = 1) although unread
bytes remain, and a protocol that waits for the peer would stall there. Go adds nothing here beyond
the runtime's syscall wrappers: the waits are plain epoll_wait/kevent calls on a locked thread.`,
	Params: []probe.Param{
		{Name: "mode", Kind: probe.String, Default: "edge", Choices: []string{"edge", "level"},
			Doc: "edge (EPOLLET / EV_CLEAR) or level (the default of both APIs)"},
		{Name: "sent", Kind: probe.Int, Max: maxSent, Default: "100",
			Doc: "bytes written before the first wait (1 to 65536)"},
		{Name: "readsize", Kind: probe.Int, Default: "30",
			Doc: "bytes read after the first notification, with one read()"},
		{Name: "wait", Kind: probe.Duration, Default: "50ms",
			Doc: "how long the second (and the third) wait may block"},
	},
	Metrics: []probe.Metric{
		{Name: "notifications", Unit: probe.Count,
			Doc: "notifications for the socket over the first two waits (2 level-triggered, 1 edge-triggered)"},
		{Name: "unread", Unit: probe.Bytes,
			Doc: "bytes left in the socket after the read (FIONREAD)"},
		{Name: "timedout", Unit: probe.Count,
			Doc: "1 if the second wait timed out with data still unread"},
		{Name: "waited", Unit: probe.Seconds,
			Doc: "how long the second wait actually took (the param asks; this is what happened)"},
		{Name: "renotified", Unit: probe.Count,
			Doc: "1 if one more byte written then brought a notification (a new edge)"},
	},
	Timeout: 30 * time.Second,
}

var regularSpec = probe.Spec{
	Name: "readiness.regular_file",
	Doc: `What a readiness API says about a regular file. A temporary file of 4096 bytes is created in the
system temp directory (removed afterwards) and opened O_RDONLY as a raw fd. select: FD_SET(fd),
select(fd+1, &set, NULL, NULL, &{0,0}) -> ready if the bit is still set. poll: {fd, POLLIN},
poll(&p, 1, 0) -> accepted unless POLLNVAL, ready if POLLIN. epoll: epoll_ctl(EPOLL_CTL_ADD, fd,
EPOLLIN) -> accepted 1 or the errno (Linux refuses regular files with EPERM = 1), and if accepted
epoll_wait with timeout 0 -> ready. kqueue: kevent(EVFILT_READ, EV_ADD) to register, then kevent with
a zero timeout -> ready (kqueue, unlike epoll, accepts a regular file: EVFILT_READ on a file fires while the
offset is short of the end, with the bytes left as its data). The point: select and poll say a file is
always ready (a disk read is never "not ready", only slow, and the thread still sleeps in it), epoll will
not even take it, and kqueue says ready at once. The API the platform lacks is "not available" (a result
with that reason, no figures).
Go adds nothing: the file is a raw fd, never registered with Go's netpoller.`,
	Params: []probe.Param{
		{Name: "api", Kind: probe.String, Default: "epoll", Choices: apis,
			Doc: "readiness API: select, poll, epoll (Linux) or kqueue (macOS, FreeBSD)"},
	},
	Metrics: []probe.Metric{
		{Name: "accepted", Unit: probe.Count, Better: probe.Higher,
			Doc: "1 if the registration or call accepted the regular file's fd"},
		{Name: "errno", Unit: probe.Count,
			Doc: "errno of the registration/call, 0 if none (EPERM is 1 on Linux)"},
		{Name: "ready", Unit: probe.Count,
			Doc: "1 if the file was reported readable at once, with a zero timeout"},
	},
	Timeout: 10 * time.Second,
}

// checkAPI answers for an API this system does not have: not a failure but
// the result "kqueue is not available on linux", which a chapter sweeping
// every API shows as a gap with that reason. nativeAPI is "epoll" on
// Linux, "kqueue" on macOS and FreeBSD.
func checkAPI(api string) error {
	if (api == "epoll" || api == "kqueue") && api != nativeAPI {
		return probe.NotAvailable(api, "")
	}
	return nil
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
