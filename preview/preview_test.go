package preview

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/runner"
)

// fakes stand in for real probes: a measurement takes microseconds.
var fakes = []probe.Probe{
	{Spec: probe.Spec{Name: "fake.echo", Doc: "returns its param",
		Params:  []probe.Param{{Name: "n", Kind: probe.Int, Default: "1", Doc: "n"}},
		Metrics: []probe.Metric{{Name: "time", Unit: probe.Seconds, Doc: "n microseconds"}}},
		Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
			return probe.Values{"time": float64(p.Int("n")) * 1e-6}, nil
		}},
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], fakes, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const chapterOne = "---\ntitle: 하나\norder: 1\nslug: one\n---\n\n첫 장입니다. 값은 {{ echo.time[n=2] }}입니다.\n\n" +
	"```experiment echo\nprobe: fake.echo\nparams:\n  n: [1, 2]\nruns: 1\n```\n"

const chapterTwo = "---\ntitle: 둘\norder: 2\nslug: two\n---\n\n둘째 장도 {{ echo.time[n=1] }}을 씁니다.\n"

// fixture is a two-chapter book in a temp dir whose one experiment is
// measured (fresh), and the preview's source for it.
func fixture(t testing.TB) *Book {
	dir := t.TempDir()
	chapters := filepath.Join(dir, "chapters")
	os.MkdirAll(chapters, 0o755)
	write(t, filepath.Join(chapters, "book.yaml"), "title: 시험용 책\nlang: ko\nmachine: here\n")
	write(t, filepath.Join(chapters, "01-one.md"), chapterOne)
	write(t, filepath.Join(chapters, "02-two.md"), chapterTwo)
	r, err := runner.New()
	if err != nil {
		t.Fatal(err)
	}
	src := &Book{Opts: book.Options{Chapters: chapters, Results: filepath.Join(dir, "results"), Probes: fakes,
		Runner: r, This: dataset.Fingerprint{Name: "here", CPU: "Test", Cores: 2, Kernel: "Linux 6.1", Arch: "amd64", Go: "go1.26.0"}}, Templates: "../templates"}
	b, err := book.Load(chapters, fakes)
	if err != nil {
		t.Fatal(err)
	}
	m := &book.Measurer{Runner: r, Probes: fakes, Machine: src.Opts.This, Dir: src.Opts.Results}
	if _, err := m.Measure(context.Background(), b, "echo"); err != nil {
		t.Fatal(err)
	}
	return src
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// save writes a file as editors do: a temp file renamed over the old one.
func save(t testing.TB, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	write(t, tmp, text)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// running is a preview under httptest, following its folders.
type running struct {
	src *Book
	url string
	log *syncBuffer
}

// rebuild rebuilds s and reports whether the build succeeded.
func rebuild(s *Server) bool {
	s.Rebuild()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.st.Errors) == 0
}

func start(t testing.TB, src *Book, measure Measurer) *running {
	t.Helper()
	log := &syncBuffer{}
	s := NewServer(src.Build, log)
	if !rebuild(s) {
		t.Fatalf("first build failed:\n%s", log)
	}
	dirs, err := src.Folders()
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWatcher(dirs, log)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	ctx, cancel := context.WithCancel(context.Background())
	followed := make(chan struct{})
	go func() {
		s.Follow(ctx, w.Run(ctx), measure)
		close(followed)
	}()
	t.Cleanup(func() {
		cancel()
		<-followed
		s.Close()
		ts.Close()
		w.Close()
	})
	return &running{src: src, url: ts.URL, log: log}
}

func (r *running) get(t testing.TB, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(r.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// events follows the page's event stream; every state sent arrives on
// the channel.
func (r *running) events(t testing.TB) <-chan state {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", r.url+EventsPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("event stream's Content-Type = %q", ct)
	}
	out := make(chan state, 100)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var st state
				if err := json.Unmarshal([]byte(data), &st); err == nil {
					out <- st
				}
			}
		}
	}()
	t.Cleanup(cancel)
	return out
}

// waitFor returns the first state that satisfies ok; the limit is generous
// (a loaded machine), never a timing assertion.
func waitFor(t testing.TB, ch <-chan state, what string, ok func(state) bool) state {
	t.Helper()
	limit := time.After(60 * time.Second)
	for {
		select {
		case st := <-ch:
			if ok(st) {
				return st
			}
		case <-limit:
			t.Fatalf("no event with %s within 60s", what)
		}
	}
}

// scriptRE is exactly what serve adds to a page.
var scriptRE = regexp.MustCompile(`<script id="mb-serve" data-version="\d+" data-state="[^"]*">(?s:.*?)</script>\n`)

// serve's page is build's file plus the reload script, byte for byte.
func TestPagesAreBuildsFilesPlusTheScript(t *testing.T) {
	src := fixture(t)
	out := filepath.Join(t.TempDir(), "out")
	opts := src.Opts
	opts.Out, opts.Strict = out, true // nothing to measure: a fresh set
	if _, err := book.Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	r := start(t, src, nil)
	var files []os.DirEntry
	all, _ := os.ReadDir(out)
	for _, f := range all {
		if !strings.HasPrefix(f.Name(), ".") && !f.IsDir() { // the build's manifest is not a page
			files = append(files, f)
		}
	}
	if len(files) < 4 {
		t.Fatalf("build wrote %d files, want at least index, two chapters and style.css", len(files))
	}
	for _, f := range files {
		want, _ := os.ReadFile(filepath.Join(out, f.Name()))
		code, h, got := r.get(t, "/"+f.Name())
		if code != 200 {
			t.Fatalf("%s: %d", f.Name(), code)
		}
		wantType := map[string]string{".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}[filepath.Ext(f.Name())]
		if ct := h.Get("Content-Type"); ct != wantType {
			t.Errorf("%s: Content-Type %q, want %q", f.Name(), ct, wantType)
		}
		if strings.HasSuffix(f.Name(), ".html") {
			if n := len(scriptRE.FindAllString(got, -1)); n != 1 {
				t.Fatalf("%s: %d reload scripts, want 1", f.Name(), n)
			}
			got = scriptRE.ReplaceAllString(got, "")
		}
		if got != string(want) {
			t.Errorf("%s: serve's page differs from build's file", f.Name())
		}
	}
	if _, _, index := r.get(t, "/"); !strings.Contains(index, "시험용 책") {
		t.Error("/ is not the index page")
	}
}

// A save (renamed over the file, as editors do) rebuilds the site and
// tells the open page, whose next load shows the new text.
func TestSaveRebuildsAndSendsAnEvent(t *testing.T) {
	r := start(t, fixture(t), nil)
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	if first.Version < 1 || len(first.Errors) != 0 {
		t.Fatalf("first state %+v", first)
	}
	save(t, filepath.Join(r.src.Opts.Chapters, "01-one.md"), strings.Replace(chapterOne, "첫 장입니다.", "고쳐 쓴 첫 장입니다.", 1))
	waitFor(t, ev, "a new version", func(st state) bool { return st.Version > first.Version })
	if _, _, page := r.get(t, "/one.html"); !strings.Contains(page, "고쳐 쓴 첫 장입니다.") {
		t.Error("the page does not show the saved text")
	}
	// A new chapter appears.
	write(t, filepath.Join(r.src.Opts.Chapters, "03-three.md"), "---\ntitle: 셋\norder: 3\nslug: three\n---\n\n새 장.\n")
	waitFor(t, ev, "the new chapter", func(st state) bool {
		code, _, page := r.get(t, "/three.html")
		return code == 200 && strings.Contains(page, "새 장.")
	})
}

// A save of a fragment a chapter includes rebuilds that chapter's page,
// through the render cache serve keeps.
func TestIncludedFragmentEditRebuilds(t *testing.T) {
	src := fixture(t)
	src.Opts.Cache = filepath.Join(t.TempDir(), "cache")
	chapters := src.Opts.Chapters
	write(t, filepath.Join(chapters, "_part.md"), "조각의 첫 글.\n")
	write(t, filepath.Join(chapters, "02-two.md"), chapterTwo+"\n{{< include _part.md >}}\n")
	r := start(t, src, nil)
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	if _, _, page := r.get(t, "/two.html"); len(first.Errors) != 0 || !strings.Contains(page, "조각의 첫 글.") {
		t.Fatalf("the included text is not on the page (%+v)", first.Errors)
	}
	save(t, filepath.Join(chapters, "_part.md"), "고쳐 쓴 조각.\n")
	waitFor(t, ev, "the page with the edited fragment", func(st state) bool {
		_, _, page := r.get(t, "/two.html")
		return st.Version > first.Version && strings.Contains(page, "고쳐 쓴 조각.")
	})
}

// A result set made after the watch began is seen: its folder is watched
// from when it appears.
func TestNewResultFolderIsWatched(t *testing.T) {
	src := fixture(t)
	set := filepath.Join(src.Opts.Results, "here")
	stored, err := os.ReadFile(filepath.Join(set, "echo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(set); err != nil {
		t.Fatal(err)
	}
	r := start(t, src, nil)
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	if len(first.Pending) != 1 || first.Pending[0].Why != "missing" {
		t.Fatalf("pending %+v, want echo missing", first.Pending)
	}
	if err := os.Mkdir(set, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(set, "echo.txt"), string(stored))
	waitFor(t, ev, "the result in the new folder", func(st state) bool { return st.Version > first.Version && len(st.Pending) == 0 })
	if _, _, page := r.get(t, "/one.html"); !strings.Contains(page, "2 μs") {
		t.Error("the result is not on the page")
	}
}

// A build error is shown over the page with its position, message and
// source line; the last good pages stay served; the next good save clears
// it.
func TestErrorOverlayAndRecovery(t *testing.T) {
	r := start(t, fixture(t), nil)
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	path := filepath.Join(r.src.Opts.Chapters, "01-one.md")
	save(t, path, strings.Replace(chapterOne, "echo.time[n=2]", "echo.nosuch[n=2]", 1))
	bad := waitFor(t, ev, "an error", func(st state) bool { return len(st.Errors) > 0 })
	p := bad.Errors[0]
	if p.File != path || p.Line != 7 || p.Col < 1 || !strings.Contains(p.Msg, "nosuch") || !strings.Contains(p.Source, "{{ echo.nosuch[n=2] }}") {
		t.Errorf("problem %+v, want %s:7 with the message and the source line", p, path)
	}
	if bad.Version != first.Version {
		t.Errorf("a failed build changed the version %d → %d", first.Version, bad.Version)
	}
	if code, _, page := r.get(t, "/one.html"); code != 200 || !strings.Contains(page, "첫 장입니다.") {
		t.Error("the last good page is no longer served")
	}
	if !strings.Contains(r.log.String(), "nosuch") {
		t.Errorf("the terminal does not show the error:\n%s", r.log)
	}
	// Undoing the bad edit clears the error; the pages are the ones the
	// browser shows already, so they are not reloaded.
	save(t, path, chapterOne)
	good := waitFor(t, ev, "recovery", func(st state) bool { return len(st.Errors) == 0 })
	if good.Version != first.Version {
		t.Errorf("recovered to the same pages with a new version %d → %d", first.Version, good.Version)
	}
	save(t, path, strings.Replace(chapterOne, "첫 장입니다.", "다시 고친 첫 장입니다.", 1))
	waitFor(t, ev, "a new version", func(st state) bool { return st.Version > first.Version })
}

// Nothing outside the site is served: not the chapters beside it, not
// through .., encoded slashes or a symlink.
func TestServesNothingOutsideTheSite(t *testing.T) {
	src := fixture(t)
	secret := filepath.Join(t.TempDir(), "secret.html")
	write(t, secret, "TOP-SECRET")
	if err := os.Symlink(secret, filepath.Join(src.Opts.Chapters, "leak.html")); err != nil {
		t.Fatal(err)
	}
	r := start(t, src, nil)
	for _, p := range []string{"/../chapters/01-one.md", "/..%2fchapters%2f01-one.md", "/%2e%2e/go.mod", "/chapters/01-one.md",
		"/leak.html", "/..%5c01-one.md", "/one.html%2f..%2f..%2fsecret.html", "/.hidden", "/nope.html"} {
		// A raw request: the path exactly as written, not cleaned by a client.
		conn, err := net.Dial("tcp", strings.TrimPrefix(r.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, "GET "+p+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		conn.Close()
		if resp.StatusCode == 200 || bytes.Contains(body, []byte("TOP-SECRET")) || bytes.Contains(body, []byte("첫 장")) {
			t.Errorf("GET %s: %d %q", p, resp.StatusCode, body)
		}
	}
	resp, err := http.Post(r.url+"/one.html", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

// An edit never measures: an experiment whose params changed shows as not
// measured yet, with the command that measures it; --measure measures it
// in the background and the page updates when the result lands.
func TestChangedParamsAreNotMeasuredUntilAsked(t *testing.T) {
	src := fixture(t)
	path := filepath.Join(src.Opts.Chapters, "01-one.md")
	changed := strings.Replace(chapterOne, "n: [1, 2]", "n: [1, 2, 3]", 1)
	changed = strings.Replace(changed, "{{ echo.time[n=2] }}", "{{ echo.time[n=3] }}", 1)

	r := start(t, src, nil)
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	save(t, path, changed)
	st := waitFor(t, ev, "a pending experiment", func(st state) bool { return st.Version > first.Version })
	want := "go run . run echo --chapters " + src.Opts.Chapters + " --results " + src.Opts.Results
	if len(st.Pending) != 1 || st.Pending[0].ID != "echo" || !strings.Contains(st.Pending[0].Why, "n changed") || st.Pending[0].Command != want {
		t.Fatalf("pending %+v, want echo (n changed) with %q", st.Pending, want)
	}
	_, _, page := r.get(t, "/one.html")
	if !strings.Contains(page, "측정 없음: go run . run echo") || strings.Contains(page, "3 μs") {
		t.Errorf("the page should show echo as not measured yet")
	}
	stored, _ := os.ReadFile(filepath.Join(src.Opts.Results, "here", "echo.txt"))
	if bytes.Contains(stored, []byte("n=3")) {
		t.Fatal("an edit measured")
	}

	// The same book under --measure.
	m := start(t, src, src.Measure)
	ev = m.events(t)
	waitFor(t, ev, "the result landing", func(st state) bool { return len(st.Pending) == 0 && st.Progress == "" })
	if _, _, page := m.get(t, "/one.html"); !strings.Contains(page, "3 μs") {
		t.Errorf("the measured value is not on the page")
	}
	if log := m.log.String(); !strings.Contains(log, "run 3/3") || !strings.Contains(log, "measured echo") {
		t.Errorf("the terminal shows no progress:\n%s", log)
	}
}

// A port in use is an error that names the flag that changes it.
func TestPortInUse(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "--addr 127.0.0.1:") {
		t.Errorf("err = %v", err)
	}
	l2, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if host, _, _ := net.SplitHostPort(l2.Addr().String()); host != "127.0.0.1" {
		t.Errorf("an empty host bound %s, want loopback", host)
	}
}

// Before any build succeeds, every page is an empty one that shows the
// error at once (the state is in the script) and reloads on recovery.
func TestNoGoodBuildYet(t *testing.T) {
	src := fixture(t)
	path := filepath.Join(src.Opts.Chapters, "01-one.md")
	write(t, path, strings.Replace(chapterOne, "echo.time[n=2]", "echo.nosuch[n=2]", 1))
	s := NewServer(src.Build, nil)
	if rebuild(s) {
		t.Fatal("a broken chapter built")
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/one.html", nil))
	page := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(page, `data-version="0"`) || !strings.Contains(page, "01-one.md") || !strings.Contains(page, "nosuch") {
		t.Errorf("%d %s", rec.Code, page)
	}
	write(t, path, chapterOne)
	if !rebuild(s) {
		t.Fatal("the fixed chapter did not build")
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/one.html", nil))
	if !strings.Contains(rec.Body.String(), "첫 장입니다.") || !strings.Contains(rec.Body.String(), `data-version="1"`) {
		t.Error("the fixed page is not served")
	}
}

// A template read from disk is watched: editing it rebuilds every page.
func TestTemplateEditRebuilds(t *testing.T) {
	src := fixture(t)
	dir := t.TempDir()
	for _, name := range []string{"base.html", "chapter.html", "index.html", "page.html", "print.html", "style.css", "site.js", "toc.js"} {
		data, err := os.ReadFile(filepath.Join("../templates", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), string(data))
	}
	src.Templates = TemplatesIn(dir)
	if src.Templates == "" {
		t.Fatal("a copy of the templates folder is not recognised")
	}
	r := start(t, src, nil)
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	base, _ := os.ReadFile(filepath.Join(dir, "base.html"))
	save(t, filepath.Join(dir, "base.html"), strings.Replace(string(base), "<body>", "<body>\n<p>머리말 바꿈</p>", 1))
	waitFor(t, ev, "a rebuild", func(st state) bool { return st.Version > first.Version })
	if _, _, page := r.get(t, "/two.html"); !strings.Contains(page, "머리말 바꿈") {
		t.Error("the template edit is not on the page")
	}
	if TemplatesIn(t.TempDir()) != "" {
		t.Error("an empty folder taken for the templates")
	}
}

func TestPageName(t *testing.T) {
	for path, want := range map[string]string{
		"/":                        "index.html",
		"/one.html":                "one.html",
		"/%ED%95%9C%EA%B8%80.html": "한글.html", // a slug in Korean, as a browser asks for it
		"/..%2fgo.mod":             "",
		"/a%2Fb.html":              "",
		"/%2e%2e":                  "",
		"/..":                      "",
		"/a%5cb":                   "",
		"/%zz":                     "",
		"/a%00.html":               "",
		"/sub/one.html":            "",
	} {
		got, ok := pageName(path)
		if got != want || ok != (want != "") {
			t.Errorf("pageName(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}

// A file still being written has not settled; once the writer stops, it
// has. (Best of several checks: a loaded machine may starve the writer
// for one window.)
func TestSettledWaitsForTheWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "01-one.md")
	write(t, path, "")
	w, err := NewWatcher([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return
		}
		defer f.Close()
		for {
			select {
			case <-stop:
				return
			default:
			}
			f.WriteString("반쯤 쓴 줄\n")
			time.Sleep(time.Millisecond)
		}
	}()
	touched := map[string]bool{path: true}
	unsettled := false
	for range 5 {
		if !w.settled(context.Background(), touched) {
			unsettled = true
			break
		}
	}
	close(stop)
	<-stopped
	if !unsettled {
		t.Error("a file written to all along was taken as settled")
	}
	if !w.settled(context.Background(), touched) {
		t.Error("a file nobody writes is not settled")
	}
}

// The preview honours safe mode as the build does: book.yaml's safe: true
// (or serve --safe) refuses a chapter's raw HTML, at its place.
func TestSafeModeRefusesRawHTML(t *testing.T) {
	for _, mode := range []string{"flag", "book.yaml"} {
		src := fixture(t)
		path := filepath.Join(src.Opts.Chapters, "02-two.md")
		write(t, path, chapterTwo+"\n<script>alert(1)</script>\n")
		if _, err := src.Build(); err != nil {
			t.Fatalf("without safe mode: %v", err)
		}
		if mode == "flag" {
			src.Opts.Safe = true
		} else {
			write(t, filepath.Join(src.Opts.Chapters, "book.yaml"), "title: 시험용 책\nlang: ko\nmachine: here\nsafe: true\n")
		}
		_, err := src.Build()
		if want := path + ":9:1: raw HTML is refused"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", mode, err, want)
		}
	}
}

// The whole-book page is made when a reader asks for it, not at every
// save, and shows the last save; the EPUB with it when book.yaml asks.
func TestWholeBookOnRequest(t *testing.T) {
	src := fixture(t)
	write(t, filepath.Join(src.Opts.Chapters, "book.yaml"), "title: 시험용 책\nlang: ko\nmachine: here\nepub: true\n")
	r := start(t, src, nil)
	if !strings.Contains(r.log.String(), "rebuilt ") || strings.Contains(r.log.String(), "made ") {
		t.Fatalf("the whole book was made before anyone asked:\n%s", r.log)
	}
	if code, _, page := r.get(t, "/print.html"); code != http.StatusOK || !strings.Contains(page, "첫 장입니다.") {
		t.Fatalf("print.html: %d\n%s", code, page)
	}
	if code, _, _ := r.get(t, "/book.epub"); code != http.StatusOK {
		t.Errorf("book.epub: %d", code)
	}
	if n := strings.Count(r.log.String(), "made "); n != 1 {
		t.Errorf("the whole book made %d times for two requests:\n%s", n, r.log)
	}
	ev := r.events(t)
	first := waitFor(t, ev, "the first state", func(state) bool { return true })
	save(t, filepath.Join(src.Opts.Chapters, "01-one.md"), chapterOne+"\n고친 문단입니다.\n")
	waitFor(t, ev, "a rebuild", func(st state) bool { return st.Version > first.Version })
	if _, _, page := r.get(t, "/print.html"); !strings.Contains(page, "고친 문단입니다.") {
		t.Errorf("print.html does not show the save:\n%s", page)
	}
	if code, _, _ := r.get(t, "/nothing.html"); code != http.StatusNotFound {
		t.Errorf("a page the site does not hold: %d", code)
	}
}

// Rebuilds through the render cache serve keeps in memory, whose entries
// it decodes once, make the pages a build without any cache makes: after
// a save of a chapter, of the other chapter and of a result.
func TestRememberedRebuildsAreFresh(t *testing.T) {
	src := fixture(t)
	src.Opts.Cache = filepath.Join(t.TempDir(), "cache")
	chapters := src.Opts.Chapters
	result := filepath.Join(src.Opts.Results, "here", "echo.txt")
	stored, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	edits := []func(){
		func() {},
		func() {
			save(t, filepath.Join(chapters, "01-one.md"), strings.Replace(chapterOne, "첫 장입니다.", "고친 첫 장.", 1))
		},
		func() { save(t, filepath.Join(chapters, "02-two.md"), chapterTwo+"\n덧붙인 글.\n") },
		func() { save(t, result, strings.Replace(string(stored), "\nBenchmark", "\n\nBenchmark", 1)) },
	}
	for i, edit := range edits {
		edit()
		got, err := src.Build()
		if err != nil {
			t.Fatal(err)
		}
		plain := &Book{Opts: src.Opts, Templates: src.Templates}
		plain.Opts.Cache = ""
		want, err := plain.Build()
		if err != nil {
			t.Fatal(err)
		}
		for name, page := range want.Pages {
			if !bytes.Equal(got.Pages[name], page) {
				t.Errorf("after edit %d: %s differs from a build without the cache", i, name)
			}
		}
	}
}

// A rebuild leaves its render cache's new entries on disk once the pages
// are shown, where the next serve or build finds them.
func TestRebuildKeepsTheCache(t *testing.T) {
	src := fixture(t)
	src.Opts.Cache = filepath.Join(t.TempDir(), "cache")
	NewServer(src.Build, nil).Rebuild()
	packs, _ := filepath.Glob(filepath.Join(src.Opts.Cache, "packs", "*.pack"))
	if len(packs) == 0 {
		t.Error("the rebuild left no entry of the render cache on disk")
	}
}
