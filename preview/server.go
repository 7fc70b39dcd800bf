// Package preview is `go run . serve`: the site held in memory, rebuilt when
// a chapter, a template or a result changes, and pushed to the open page
// through server-sent events. It knows the generator only through a Builder
// (every page for the files on disk now) and, with --measure, a Measurer.
package preview

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Site is one build of the site, in memory.
type Site struct {
	Pages map[string][]byte // file name → bytes, exactly what build writes to out/
	// Later makes the rest of the site's pages (the whole-book page, the
	// EPUB), which build writes too but a save need not wait for: called
	// at the first request for a page that Pages lacks, never during a
	// build (nil: there are none).
	Later   func() (map[string][]byte, error)
	Pending []Pending // experiments shown as not measured yet
	// Flush keeps what the build learnt for the next process (the render
	// cache's new entries on disk), called once the pages are shown (nil:
	// nothing to keep).
	Flush func()
}

// Pending is an experiment the pages show without numbers because its
// result set holds none for what the chapter asks now.
type Pending struct {
	ID      string `json:"id"`
	Why     string `json:"why"`     // "missing", or what changed since it was measured
	Command string `json:"command"` // what measures it, runnable where it says
	Here    bool   `json:"-"`       // it can be measured on this machine (serve --measure)
}

// Builder renders every page from the files on disk now. It never
// measures. An error is reported on the page; its lines should read
// FILE:LINE:COL: message. With an error, a Site may still be returned
// for its Pending: what the build lacked, for --measure to measure.
type Builder func() (*Site, error)

// Measurer measures one experiment and stores its result, calling progress
// with one line per run.
type Measurer func(ctx context.Context, id string, progress func(line string)) error

// Problem is one line of a build error, with the source line it points at.
type Problem struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Col    int    `json:"col,omitempty"` // in characters, as an editor counts
	Msg    string `json:"msg"`
	Source string `json:"source,omitempty"`
}

// state is what every open page is told: the version of the pages, the
// build's problems and what is being measured.
type state struct {
	Version  int               `json:"version"`
	Errors   []Problem         `json:"errors"`
	Pending  []Pending         `json:"pending"`
	Progress string            `json:"progress,omitempty"`
	Assets   map[string]string `json:"assets"` // stylesheet or script → its hash: a page that loads a changed one reloads whole
}

// Server holds the last good site and the state pushed to open pages.
type Server struct {
	build Builder
	log   io.Writer

	buildMu sync.Mutex // one build at a time

	mu      sync.Mutex
	pages   map[string][]byte
	later   func() (map[string][]byte, error) // the pages' Later, until it is called
	made    map[string][]byte                 // what it made
	st      state
	changed chan struct{} // closed and replaced on every change of st
	done    chan struct{} // closed when the server stops: ends every event stream
	stop    sync.Once     // closes done
}

// NewServer returns a server that has built nothing yet; call Rebuild.
func NewServer(build Builder, log io.Writer) *Server {
	if log == nil {
		log = io.Discard
	}
	return &Server{build: build, log: log, changed: make(chan struct{}), done: make(chan struct{}),
		st: state{Errors: []Problem{}, Pending: []Pending{}}}
}

// Close ends every event stream, so an http.Server can shut down.
func (s *Server) Close() { s.stop.Do(func() { close(s.done) }) }

// Rebuild builds the site again. A good build replaces the pages and tells
// every open page to reload; a failed one keeps the last good pages and
// shows the error over them.
func (s *Server) Rebuild() {
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	start := time.Now()
	site, err := s.build()
	s.publish(site, err, time.Since(start).Round(time.Millisecond))
	if site != nil && site.Flush != nil {
		site.Flush()
	}
}

// publish shows what a build made (or why it failed) to every open page.
func (s *Server) publish(site *Site, err error, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notify()
	if err != nil {
		s.st.Errors = problems(err)
		fmt.Fprintf(s.log, "build failed (%v); the page shows the error, the last good pages are still served:\n%v\n", took, err)
		if site != nil {
			// What it could not build for want of results is still
			// what --measure fills.
			s.st.Pending = append([]Pending{}, site.Pending...)
		}
		return
	}
	for _, p := range site.Pending {
		if !slices.ContainsFunc(s.st.Pending, func(o Pending) bool { return o.ID == p.ID && o.Why == p.Why }) {
			fmt.Fprintf(s.log, "not measured yet: %s (%s): %s\n", p.ID, p.Why, p.Command)
		}
	}
	none := ": none changed"
	if s.pages == nil || !maps.EqualFunc(s.pages, site.Pages, bytes.Equal) {
		// Only a change of the pages reloads them: a touched file that
		// changes nothing (or a save that undoes a bad one) does not.
		s.pages, s.later, s.made = site.Pages, site.Later, nil
		s.st.Version++
		s.st.Assets = assets(site.Pages)
		none = ""
	}
	s.st.Errors = []Problem{}
	s.st.Pending = append([]Pending{}, site.Pending...)
	fmt.Fprintf(s.log, "rebuilt %d pages in %v%s\n", len(site.Pages), took, none)
}

// assets fingerprints the stylesheets and scripts of the site, the files a
// page loads beside itself.
func assets(pages map[string][]byte) map[string]string {
	out := map[string]string{}
	for name, page := range pages {
		if ext := path.Ext(name); ext == ".css" || ext == ".js" {
			sum := sha256.Sum256(page)
			out[name] = hex.EncodeToString(sum[:8])
		}
	}
	return out
}

// setProgress shows what is being measured on every open page.
func (s *Server) setProgress(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.Progress = line
	s.notify()
}

// pending is what the last good build left unmeasured.
func (s *Server) pending() []Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Pending{}, s.st.Pending...)
}

// notify wakes every event stream; s.mu is held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) snapshot() ([]byte, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, _ := json.Marshal(s.st)
	return data, s.changed
}

// EventsPath is where an open page listens for changes.
const EventsPath = "/_serve/events"

// ServeHTTP serves the site's pages from memory and the event stream.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == EventsPath {
		s.events(w, r)
		return
	}
	name, ok := pageName(r.URL.EscapedPath())
	s.mu.Lock()
	page, found := s.pages[name]
	pages := s.pages
	s.mu.Unlock()
	if ok && !found && pages != nil {
		page, found = s.laterPage(name)
	}
	st, _ := s.snapshot()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch {
	case pages == nil && ok && path.Ext(name) == ".html":
		// No build has succeeded yet: an empty page that shows the
		// error and reloads once a save fixes it.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>build failed</title></head><body>\n"+script(st)+"</body></html>\n")
		return
	case !ok || !found:
		http.Error(w, "not found in the site: "+r.URL.Path, http.StatusNotFound)
		return
	}
	ctype := cmp.Or(contentTypes[path.Ext(name)], "application/octet-stream")
	w.Header().Set("Content-Type", ctype)
	if strings.HasPrefix(ctype, "text/html") {
		page = Inject(page, st)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(page)))
	w.Write(page)
}

// laterPage is page name of what the last good build's Later makes,
// made at the first request for a page the build lacks. It takes turns
// with the builds, which share their render cache with it.
func (s *Server) laterPage(name string) ([]byte, bool) {
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	s.mu.Lock()
	later := s.later
	s.mu.Unlock()
	if later != nil {
		start := time.Now()
		made, err := later()
		if err != nil {
			fmt.Fprintf(s.log, "the whole-book page could not be made: %v\n", err)
		} else {
			fmt.Fprintf(s.log, "made %d more pages in %v\n", len(made), time.Since(start).Round(time.Millisecond))
		}
		s.mu.Lock()
		s.later, s.made = nil, made
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page, ok := s.made[name]
	return page, ok
}

// pageName maps a request's escaped path to a page of the site. The site
// is flat: a name with a slash (also encoded as %2f), a backslash or a
// leading dot (.., hidden files) names nothing.
func pageName(escaped string) (string, bool) {
	name, err := url.PathUnescape(strings.TrimPrefix(escaped, "/"))
	if err != nil {
		return "", false
	}
	if name == "" {
		return "index.html", true
	}
	file := strings.TrimPrefix(name, "data/") // the experiments' raw data
	if strings.ContainsAny(file, "/\\\x00") || strings.HasPrefix(file, ".") {
		return "", false
	}
	return name, true
}

// contentTypes are the types of what a site holds; anything else is
// served as bytes.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".json": "application/json",
	".csv":  "text/csv; charset=utf-8",
}

// streamWrite bounds one write of the event stream.
const streamWrite = 10 * time.Second

// events is the server-sent event stream: the state now, then again on
// every change, and a comment now and then so proxies keep it open.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	// Each write has a deadline of its own, instead of the server's for
	// the whole response: a page that stops reading is dropped.
	rc := http.NewResponseController(w)
	send := func(format string, args ...any) error {
		rc.SetWriteDeadline(time.Now().Add(streamWrite))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return err
		}
		return rc.Flush()
	}
	if send("retry: 500\n\n") != nil {
		return
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		data, changed := s.snapshot()
		if send("event: state\ndata: %s\n\n", data) != nil {
			return
		}
		for waiting := true; waiting; {
			select {
			case <-changed:
				waiting = false
			case <-ping.C:
				if send(": ping\n\n") != nil {
					return
				}
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			}
		}
	}
}

//go:embed reload.js
var reloadJS string

// script is what serve adds to every HTML page, before </body>: the
// state when the page was served (its version, and any build error, drawn
// at once) and the code that follows the event stream.
func script(state []byte) string {
	var st struct{ Version int }
	json.Unmarshal(state, &st)
	return `<script id="mb-serve" data-version="` + strconv.Itoa(st.Version) + `" data-state="` + html.EscapeString(string(state)) + `">` + reloadJS + "</script>\n"
}

// Inject returns page with the reload script before its last </body>; the
// rest of the page is build's bytes, untouched. state is the JSON of the
// server's state.
func Inject(page, state []byte) []byte {
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		i = len(page)
	}
	return slices.Concat(page[:i], []byte(script(state)), page[i:])
}

var posLine = regexp.MustCompile(`^(.+?):(\d+):(\d+): (.*)$`)

// problems splits a build error into its FILE:LINE:COL lines, each with
// its source line; lines without a position continue the message before.
func problems(err error) []Problem {
	var out []Problem
	sources := map[string][]string{}
	for _, line := range strings.Split(err.Error(), "\n") {
		m := posLine.FindStringSubmatch(line)
		if m == nil {
			if len(out) > 0 {
				out[len(out)-1].Msg += "\n" + line
			} else {
				out = append(out, Problem{Msg: line})
			}
			continue
		}
		p := Problem{File: m[1], Msg: m[4]}
		p.Line, _ = strconv.Atoi(m[2])
		p.Col, _ = strconv.Atoi(m[3])
		lines, ok := sources[p.File]
		if !ok {
			if data, err := os.ReadFile(p.File); err == nil {
				lines = strings.Split(string(data), "\n")
			}
			sources[p.File] = lines
		}
		if p.Line >= 1 && p.Line <= len(lines) {
			p.Source = strings.TrimRight(lines[p.Line-1], "\r")
		}
		out = append(out, p)
	}
	return out
}
