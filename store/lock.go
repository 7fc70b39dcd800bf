package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockFile is the lock a build or a measurement holds on its results
// folder, so that two builds on one tree never measure at once (each
// would measure the other's noise) nor write the same files.
const LockFile = ".lock"

// Lock takes the tree's lock (results/.lock, flock), waiting while another
// build holds it: log says once who holds it. It returns the function that
// releases it. The lock dies with the process, so a killed build never
// leaves it taken.
func Lock(ctx context.Context, results string, log io.Writer) (unlock func(), err error) {
	return lock(ctx, results, log, true)
}

// TryLock takes the tree's lock if it is free; ok is false when another
// build holds it. A build that measures nothing need not wait for one
// that does: it only reads results, which are replaced atomically.
func TryLock(results string) (unlock func(), ok bool) {
	unlock, err := lock(context.Background(), results, nil, false)
	return unlock, err == nil
}

func lock(ctx context.Context, results string, log io.Writer, wait bool) (unlock func(), err error) {
	if err := os.MkdirAll(results, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(results, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	said := false
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if err != unix.EWOULDBLOCK || !wait {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !said && log != nil {
			holder, _ := os.ReadFile(path)
			who := "another build"
			if pid, err := strconv.Atoi(strings.TrimSpace(string(holder))); err == nil {
				who = fmt.Sprintf("another build (pid %d)", pid)
			}
			fmt.Fprintf(log, "%s is using %s; waiting for it to finish (Ctrl-C to give up)\n", who, results)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(200 * time.Millisecond):
		}
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}
