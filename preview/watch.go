package preview

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options configure Serve.
type Options struct {
	Addr    string    // host:port; an empty host means loopback
	Watch   []string  // folders whose changes rebuild the site (subfolders too)
	Build   Builder   // the site for the files on disk now
	Measure Measurer  // with --measure: measures what is pending; nil never measures
	Log     io.Writer // the terminal
}

// Listen binds addr, loopback when its host is empty. A port in use is an
// error that names the flag that changes it.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %v (want host:port, e.g. 127.0.0.1:8000)", addr, err)
	}
	host = cmp.Or(host, "127.0.0.1")
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if errors.Is(err, syscall.EADDRINUSE) {
		other := "8001"
		if n, err := strconv.Atoi(port); err == nil && n > 0 && n < 65535 {
			other = strconv.Itoa(n + 1)
		}
		return nil, fmt.Errorf("%s is already in use (another serve?); pick another port with --addr %s", net.JoinHostPort(host, port), net.JoinHostPort(host, other))
	}
	if err != nil {
		return nil, fmt.Errorf("--addr %s: %w", addr, err)
	}
	return ln, nil
}

// Serve builds the site, serves it on opts.Addr and rebuilds it on every
// change under opts.Watch until ctx ends. It never measures unless
// opts.Measure is set, and then one experiment at a time, in the
// background.
func Serve(ctx context.Context, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ln, err := Listen(opts.Addr)
	if err != nil {
		return err
	}
	s := NewServer(opts.Build, opts.Log)
	w, err := NewWatcher(opts.Watch, opts.Log)
	if err != nil {
		ln.Close()
		return err
	}
	defer w.Close()
	s.Rebuild()
	fmt.Fprintf(s.log, "serving http://%s/ (watching %s; Ctrl-C stops)\n", ln.Addr(), strings.Join(opts.Watch, ", "))
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(s.log, "warning: %s is reachable from other machines\n", host)
	}
	// Bounded: a connection left idle, a header sent slowly or a page
	// not read is dropped (the event stream sets its own deadlines).
	hs := &http.Server{Handler: OwnHost(ln.Addr(), s), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: time.Minute, WriteTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	followed := make(chan struct{})
	go func() {
		s.Follow(ctx, w.Run(ctx), opts.Measure)
		close(followed)
	}()
	select {
	case err := <-served:
		return err // the deferred cancel ends Follow
	case <-followed:
	}
	s.Close()
	// A client that does not read must not hold up Ctrl-C: what has not
	// finished in a moment is cut off.
	shut, done := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer done()
	if hs.Shutdown(shut) != nil {
		hs.Close()
	}
	return context.Cause(ctx)
}

// OwnHost serves only requests whose Host header names the listener
// itself: localhost, 127.0.0.1, [::1] or another IP literal, with its
// port. A page of another site whose name was made to resolve to the
// loopback address (DNS rebinding) sends its own name, and gets nothing:
// not the pages, nor the event stream with its source lines.
func OwnHost(addr net.Addr, h http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(addr.String())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, p, err := net.SplitHostPort(r.Host)
		if err != nil || p != port || (host != "localhost" && net.ParseIP(strings.Trim(host, "[]")) == nil) {
			http.Error(w, "this preview answers only to its own address, http://localhost:"+port+"/ or http://127.0.0.1:"+port+"/", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Follow rebuilds the site on every request from changes until ctx ends;
// with measure, it measures in the background what the builds leave
// unmeasured, one experiment at a time, and rebuilds as each result lands.
func (s *Server) Follow(ctx context.Context, changes <-chan struct{}, measure Measurer) {
	kick := make(chan struct{}, 1)
	if measure != nil {
		go s.measureLoop(ctx, measure, kick)
		kick <- struct{}{}
	}
	for {
		select {
		case <-changes:
			s.Rebuild()
			select {
			case kick <- struct{}{}:
			default:
			}
		case <-ctx.Done():
			return
		}
	}
}

// measureLoop measures what the last build left unmeasured, one experiment
// at a time, each at most once per reason: a probe that fails keeps its
// stored result and is not retried in a loop.
func (s *Server) measureLoop(ctx context.Context, measure Measurer, kick <-chan struct{}) {
	tried := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		}
		for {
			pending := s.pending()
			i := slices.IndexFunc(pending, func(p Pending) bool { return p.Here && !tried[p.ID+"\x00"+p.Why] })
			if i < 0 || ctx.Err() != nil {
				break
			}
			next := pending[i]
			tried[next.ID+"\x00"+next.Why] = true
			fmt.Fprintf(s.log, "measuring %s (%s)\n", next.ID, next.Why)
			s.setProgress(next.ID)
			start := time.Now()
			err := measure(ctx, next.ID, func(line string) {
				fmt.Fprintln(s.log, line)
				s.setProgress(line)
			})
			s.setProgress("")
			if err != nil {
				fmt.Fprintf(s.log, "measuring %s failed: %v\n", next.ID, err)
			} else {
				fmt.Fprintf(s.log, "measured %s in %v\n", next.ID, time.Since(start).Round(time.Millisecond))
			}
			// The result landed in the results folder: the watcher
			// rebuilds, and kicks this loop again.
		}
	}
}

// Watcher turns file changes under some folders into rebuild requests:
// debounced, and only once the files changed have stopped changing, so a
// half-written file (an editor's partial write, a rename over the old
// file) is never built as the truth.
type Watcher struct {
	fs    *fsnotify.Watcher
	log   io.Writer
	roots []string // the folders watched, cleaned
}

// debounce is the quiet time after the last change before a rebuild.
// Short: an editor saves with one write or one rename, and the author
// waits for the page (save to reload within 100 ms); the settle check
// still holds back a file that keeps being written.
const debounce = 10 * time.Millisecond

// NewWatcher watches every folder under dirs, and folders made later.
func NewWatcher(dirs []string, log io.Writer) (*Watcher, error) {
	if log == nil {
		log = io.Discard
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{fs: fw, log: log}
	for _, d := range dirs {
		d = filepath.Clean(d)
		w.roots = append(w.roots, d)
		// Its tree, and its parent alone, so that the folder removed and
		// made again (a checkout, a restore) is watched again.
		err := w.addTree(d)
		if err == nil {
			err = fw.Add(filepath.Dir(d))
		}
		if err != nil {
			fw.Close()
			return nil, err
		}
	}
	return w, nil
}

// watched reports whether name is a watched folder or under one: of the
// parents' events, only those of the watched folders themselves count.
func (w *Watcher) watched(name string) bool {
	return slices.ContainsFunc(w.roots, func(r string) bool {
		return name == r || strings.HasPrefix(name, r+string(filepath.Separator))
	})
}

// Close stops watching.
func (w *Watcher) Close() error { return w.fs.Close() }

func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return w.fs.Add(p)
	})
}

// ignored are editors' scratch files: never read by the build.
func ignored(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") ||
		strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx") || base == "4913"
}

// Run sends on the returned channel when the site should be rebuilt,
// until ctx ends.
func (w *Watcher) Run(ctx context.Context) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		touched := map[string]bool{}
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case err, ok := <-w.fs.Errors:
				if !ok {
					return
				}
				fmt.Fprintf(w.log, "watch: %v\n", err)
			case ev, ok := <-w.fs.Events:
				if !ok {
					return
				}
				if !w.watched(ev.Name) {
					continue
				}
				if ev.Has(fsnotify.Create) {
					if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
						// A new folder (a new result set): watch it, and
						// what was written into it before the watch began.
						if err := w.addTree(ev.Name); err != nil {
							fmt.Fprintf(w.log, "watch: %v\n", err)
						}
					}
				}
				if ev.Op == fsnotify.Chmod || ignored(ev.Name) {
					continue
				}
				touched[ev.Name] = true
				timer.Reset(debounce)
			case <-timer.C:
				if !w.settled(ctx, touched) {
					// Still being written: wait for the next quiet spell.
					timer.Reset(debounce)
					continue
				}
				touched = map[string]bool{}
				select {
				case out <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// settled reports whether every touched file kept its size and mtime over
// one more debounce interval (a file that is gone has settled too).
func (w *Watcher) settled(ctx context.Context, touched map[string]bool) bool {
	before := stats(touched)
	select {
	case <-time.After(debounce / 2):
	case <-ctx.Done():
		return true
	}
	after := stats(touched)
	for name, s := range before {
		if after[name] != s {
			return false
		}
	}
	return true
}

type stat struct {
	size  int64
	mtime time.Time
}

func stats(names map[string]bool) map[string]stat {
	out := map[string]stat{}
	for name := range names {
		if fi, err := os.Stat(name); err == nil {
			out[name] = stat{fi.Size(), fi.ModTime()}
		}
	}
	return out
}
