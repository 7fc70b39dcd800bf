package site_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"measuredbook/book"
	"measuredbook/chromium"
	"measuredbook/dataset"
	"measuredbook/probes"
	"measuredbook/render"
	"measuredbook/runner"
)

// built is the book (../chapters from ../results) built once for every
// test here, into a temporary folder: its path and its pages.
var built struct {
	once  sync.Once
	dir   string
	pages []string
	err   error
}

func buildBook(t *testing.T) (string, []string) {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "site-test-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = filepath.Join(dir, "out")
		// A build takes its lock in the results folder: a copy's, so that
		// the test writes nothing under the working tree.
		if built.err = os.CopyFS(filepath.Join(dir, "results"), os.DirFS("../results")); built.err != nil {
			return
		}
		opts := book.Options{Chapters: "../chapters", Results: filepath.Join(dir, "results"), Out: built.dir, Strict: true,
			Probes: probes.All(), Runner: &runner.Runner{Exe: filepath.Join(dir, "no-probe-may-run")},
			This: dataset.Fingerprint{Name: "not-the-books-machine"}, Log: io.Discard}
		if _, built.err = book.Build(context.Background(), opts); built.err != nil {
			return
		}
		built.pages, built.err = filepath.Glob(filepath.Join(built.dir, "*.html"))
		for i, p := range built.pages {
			built.pages[i] = filepath.Base(p)
		}
		sort.Strings(built.pages)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir, built.pages
}

// mustLoad loads the book the tests build.
func mustLoad(t *testing.T) *book.Book {
	t.Helper()
	b, err := book.Load("../chapters", probes.All())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(filepath.Dir(built.dir))
	}
	os.Exit(code)
}

// need finds a tool the checks need; under CI=true a missing one fails,
// elsewhere the check is skipped (.ci/run installs them all).
func need(t *testing.T, what, hint string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing: %s", what, hint)
	}
	t.Skipf("%s is missing: %s", what, hint)
}

// browser starts Chromium, headless, with a new empty profile, as --pdf
// and the preview's browser test do (package chromium).
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := chromium.Path()
	need(t, "chromium", "apt-get install -y chromium", err == nil)
	ctx, cancel := chromium.Start(context.Background(), path, t.TempDir())
	t.Cleanup(cancel)
	err = chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
			return err
		}
		// A headless tab is not the focused window: without this, focus
		// events (which show a value's provenance) would not fire.
		_, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	}))
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// problems collects what a reader would count as broken while pages load:
// console errors, uncaught exceptions, failed requests, and any request
// that leaves the site (allowed: URLs with prefix).
type problems struct {
	mu     sync.Mutex
	prefix []string
	list   []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}

func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list
	p.list = nil
	return l
}

func (p *problems) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.add("console %s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p.add("exception: %s %s", ev.ExceptionDetails.Text, ev.ExceptionDetails.URL)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				p.add("log: %s %s", ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventLoadingFailed:
			if ev.ErrorText != "net::ERR_ABORTED" {
				p.add("request failed: %s", ev.ErrorText)
			}
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				p.add("HTTP %d: %s", ev.Response.Status, ev.Response.URL)
			}
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			for _, pre := range p.prefix {
				if strings.HasPrefix(u, pre) {
					return
				}
			}
			if !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				p.add("request outside the site: %s", u)
			}
		}
	})
}

func viewport(width, height int64, mobile bool) chromedp.Action[chromedp.Void] {
	if mobile {
		return chromedp.EmulateViewport(width, height, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	return chromedp.EmulateViewport(width, height)
}

// prefers emulates the system's colour scheme preference.
func prefers(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// waitJS waits until expression is true in the open page, across a
// navigation (each ends a poll early; the next starts on the new page).
func waitJS(ctx context.Context, expression string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expression, chromedp.WithPollingTimeout(5*time.Second)))
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// value evaluates expression (awaiting a promise) in the open page.
func value[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%v\nin: %s", err, expression)
	}
	return v
}

// js runs expression for its effect.
func js(expression string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](expression, chromedp.EvalAwaitPromise)(ctx, t)
		return err
	})
}

// waitLoaded waits until the page's load event and its script have run.
func waitLoaded() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`document.readyState === "complete"`, chromedp.WithPollingTimeout(20*time.Second))(ctx, t)
		return err
	})
}

// TestSiteInBrowser reads the built site in a real browser, as a reader
// would: every page at desktop and phone width, the theme toggle, a
// value's provenance, search, heading links, and axe-core's audit.
func TestSiteInBrowser(t *testing.T) {
	dir, pages := buildBook(t)
	ctx := browser(t)
	fileURL := "file://" + dir + "/"
	srv := httptest.NewServer(http.StripPrefix("/sub/path/", http.FileServer(http.Dir(dir))))
	defer srv.Close()
	subURL := srv.URL + "/sub/path/"
	probs := &problems{prefix: []string{fileURL, subURL}}
	if err := probs.listen(ctx); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("pages", func(t *testing.T) {
		for _, base := range []string{fileURL, subURL} {
			for _, page := range pages {
				probs.take()
				run(t, viewport(1280, 900, false), chromedp.Navigate(base+page), waitLoaded())
				run(t, viewport(360, 740, true), chromedp.Sleep(50*time.Millisecond))
				wide := value[struct{ Scroll, Inner int }](t, ctx, `({Scroll: document.documentElement.scrollWidth, Inner: window.innerWidth})`)
				if wide.Scroll > wide.Inner {
					t.Errorf("%s%s scrolls sideways at 360 px: the page is %d px wide", base, page, wide.Scroll)
				}
				// The smallest plot text as drawn: its font size times the
				// plot's scale on the screen.
				small := value[float64](t, ctx, `Math.min(1e9, ...[...document.querySelectorAll('.mb-plot svg')].flatMap(svg =>
					[...svg.querySelectorAll('text')].map(tx => parseFloat(getComputedStyle(tx).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width)))`)
				if small < render.MinPlotText-0.01 {
					t.Errorf("%s%s: plot text is %.1f px at 360 px, want at least %d", base, page, small, render.MinPlotText)
				}
				for _, p := range probs.take() {
					t.Errorf("%s%s: %s", base, page, p)
				}
			}
		}
	})

	t.Run("theme", func(t *testing.T) {
		type look struct{ Bg, Text, Series, Theme string }
		read := `(() => { const s = document.querySelector('.mb-plot svg'), p = s && s.querySelector('[style*="--mb-s1"]');
			return {Bg: getComputedStyle(document.documentElement).backgroundColor, Text: s ? getComputedStyle(s).color : "",
			Series: p ? getComputedStyle(p).stroke || getComputedStyle(p).fill : "", Theme: document.documentElement.dataset.theme || ""}; })()`
		run(t, viewport(1280, 900, false), prefers("light"),
			chromedp.Navigate(fileURL+"c10k.html"), waitLoaded(), js(`localStorage.clear()`))
		run(t, chromedp.Reload(), waitLoaded())
		before := value[look](t, ctx, read)
		run(t, chromedp.Click(chromedp.CSS("button.theme")))
		after := value[look](t, ctx, read)
		if before.Series == "" || before.Text == "" {
			t.Fatalf("c10k.html has no plot with a series coloured from the stylesheet: %+v", before)
		}
		if before.Bg == after.Bg || before.Text == after.Text || before.Series == after.Series {
			t.Errorf("the theme toggle does not change the page and its plots: before %+v, after %+v", before, after)
		}
		run(t, chromedp.Navigate(fileURL+"select-to-epoll.html"), waitLoaded())
		reloaded := value[look](t, ctx, read)
		if reloaded.Theme != "dark" || reloaded.Bg != after.Bg {
			t.Errorf("the chosen theme is not remembered on the next page: %+v, want dark like %+v", reloaded, after)
		}
		// The system's dark preference alone, with nothing remembered.
		run(t, js(`localStorage.clear()`), prefers("dark"),
			chromedp.Reload(), waitLoaded())
		sys := value[look](t, ctx, read)
		if sys.Bg != after.Bg {
			t.Errorf("prefers-color-scheme: dark does not give the dark background: %+v, want %s", sys, after.Bg)
		}
		run(t, js(`localStorage.clear()`), prefers("light"))
	})

	t.Run("provenance", func(t *testing.T) {
		run(t, viewport(390, 844, true), chromedp.Navigate(fileURL+"select-to-epoll.html"), waitLoaded(),
			chromedp.Focus(chromedp.CSS(`.mb-value[data-runs]`)))
		pop := value[struct {
			Visible    bool
			Text, Link string
		}](t, ctx, `(() => { const p = document.getElementById('mb-pop'), r = p.getBoundingClientRect(), a = p.querySelector('a');
			return {Visible: !p.hidden && r.width > 0 && r.right <= innerWidth + 1, Text: p.innerText, Link: a ? a.getAttribute('href') : ""}; })()`)
		if !pop.Visible {
			t.Fatalf("focusing a live value shows no popover inside the screen: %+v", pop)
		}
		for _, want := range []string{"중앙값", "범위", "실행", "기계", "측정일"} {
			if !strings.Contains(pop.Text, want) {
				t.Errorf("the popover does not say %s: %q", want, pop.Text)
			}
		}
		if !strings.Contains(pop.Link, "#experiment-") {
			t.Errorf("the popover links to %q, not to its experiment", pop.Link)
		}
		run(t, chromedp.KeyEvent(kb.Enter))
		if in := value[bool](t, ctx, `document.activeElement.closest('#mb-pop') !== null`); !in {
			t.Error("Enter on a focused value does not reach its popover's link")
		}
		// A value that divides this machine's figure by M1's names both.
		run(t, chromedp.Focus(chromedp.CSS(`.mb-value[data-mixed]`)))
		mixed := value[string](t, ctx, `document.getElementById('mb-pop').innerText`)
		cfg, err := book.LoadConfig("../chapters")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"기계 2대의 수치를 섞은 값", cfg.Machine, "m1 (Apple M1)", "원 책에서 옮겨 적은 값"} {
			if !strings.Contains(mixed, want) {
				t.Errorf("the popover of a value mixing two machines does not say %s: %q", want, mixed)
			}
		}
		run(t, viewport(1280, 900, false))
	})

	// A plot's points tell their figures on focus, hover and tap, as the
	// prose's values do; the marks lie on the picture, and a table of
	// the points is there for a reader who cannot see it.
	t.Run("plot points", func(t *testing.T) {
		type pop struct {
			Visible    bool
			Text, Mark string
		}
		read := `(() => { const p = document.getElementById('mb-pop'), r = p.getBoundingClientRect(), m = document.activeElement;
			return {Visible: !p.hidden && r.width > 0, Text: p.innerText, Mark: m && m.classList.contains('mb-pt') ? m.textContent : ""}; })()`
		run(t, viewport(1280, 900, false), chromedp.Navigate(fileURL+"select-to-epoll.html"), waitLoaded(),
			chromedp.Focus(chromedp.CSS(`.mb-plot .mb-pt`)))
		got := value[pop](t, ctx, read)
		if !got.Visible || got.Mark == "" || !strings.Contains(got.Text, got.Mark) {
			t.Fatalf("focusing a plot's point does not show its figure: %+v", got)
		}
		for _, want := range []string{"범위", "실행", "기계", "측정일"} {
			if !strings.Contains(got.Text, want) {
				t.Errorf("a point's popover does not say %s: %q", want, got.Text)
			}
		}
		// The box of the marks is the picture's, and every mark is in it.
		box := value[struct{ Dw, Dh, Out, Marks, Rows int }](t, ctx, `(() => { const f = document.querySelector('.mb-plot'),
			b = f.querySelector('.mb-plotbox').getBoundingClientRect(), s = f.querySelector('svg').getBoundingClientRect(),
			ms = [...f.querySelectorAll('.mb-pt')].map(m => m.getBoundingClientRect());
			return {Dw: Math.round(Math.abs(b.width - s.width)), Dh: Math.round(Math.abs(b.height - s.height)),
				Out: ms.filter(r => r.left + r.width/2 < s.left || r.right - r.width/2 > s.right || r.top + r.height/2 < s.top || r.bottom - r.height/2 > s.bottom).length,
				Marks: ms.length, Rows: f.querySelectorAll('details.mb-points tbody tr').length}; })()`)
		if box.Dw > 1 || box.Dh > 1 || box.Out > 0 || box.Marks == 0 {
			t.Errorf("the marks do not lie on the picture: %+v", box)
		}
		if box.Rows != box.Marks {
			t.Errorf("the table view has %d rows for %d points", box.Rows, box.Marks)
		}
		// Hover: the mouse over another point shows that one (one that no
		// other point's mark covers: two machines' points may coincide).
		run(t, chromedp.KeyEvent(kb.Escape))
		at := value[struct {
			X, Y float64
			Text string
		}](t, ctx, `(() => { const ms = [...document.querySelector('.mb-plot').querySelectorAll('.mb-pt')], box = m => m.getBoundingClientRect(),
			covers = (o, x, y) => { const b = box(o); return x >= b.left && x <= b.right && y >= b.top && y <= b.bottom; },
			m = ms.slice(1).find(m => { const b = box(m), x = b.left + b.width/2, y = b.top + b.height/2; return !ms.some(o => o !== m && covers(o, x, y)); }),
			r = box(m);
			return {X: r.left + r.width/2, Y: r.top + r.height/2, Text: m.textContent}; })()`)
		run(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y))
		hover := value[pop](t, ctx, read)
		if !hover.Visible || !strings.Contains(hover.Text, at.Text) {
			t.Errorf("hovering a point does not show its figure %q: %+v", at.Text, hover)
		}
		// The table view opens.
		run(t, chromedp.Click(chromedp.CSS(`.mb-plot details.mb-points summary`)))
		if shown := value[bool](t, ctx, `document.querySelector('.mb-plot details.mb-points table').getBoundingClientRect().height > 0`); !shown {
			t.Error("the plot's table view does not open")
		}
	})

	t.Run("sidebar", func(t *testing.T) {
		// Every page lists every chapter, in book order, from toc.js, and
		// marks its own with its contents under it.
		var chapters []string
		for _, d := range mustLoad(t).Docs {
			chapters = append(chapters, d.Front.Slug+".html")
		}
		for _, page := range []string{chapters[1], "index.html", "claims.html"} {
			run(t, chromedp.Navigate(fileURL+page), waitLoaded())
			got := value[struct {
				Links    []string
				Current  string
				Contents int
			}](t, ctx, `({Links: [...document.querySelectorAll('#mb-chapters > li > a')].map(a => a.getAttribute('href')),
				Current: (document.querySelector('#mb-chapters a[aria-current]') || {}).textContent || "",
				Contents: document.querySelectorAll('#mb-chapters a[aria-current] + ol.contents a').length})`)
			want := append(append([]string{"index.html"}, chapters...), "claims.html", "environment.html")
			if !slices.Equal(got.Links, want) {
				t.Errorf("%s: the sidebar lists %v, want %v", page, got.Links, want)
			}
			if got.Current == "" || (page == chapters[1]) != (got.Contents > 0) {
				t.Errorf("%s: the sidebar marks %q as the current page, with %d contents links", page, got.Current, got.Contents)
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		// The index is loaded by a search, not by the page.
		run(t, chromedp.Navigate(fileURL+"search.html"), waitLoaded())
		if loaded := value[bool](t, ctx, `window.MB_SEARCH !== undefined || [...document.scripts].some(s => /search-index/.test(s.src))`); loaded {
			t.Error("search.html loads the search index before anything is searched")
		}
		for _, base := range []string{fileURL, subURL} {
			run(t, chromedp.Navigate(base+"index.html"), waitLoaded(),
				chromedp.SendKeys(chromedp.CSS(`header form.search input`), "FD_SETSIZE\n"))
			// The hits grow as the index's parts come in; the count ends in
			// "…" until the last has.
			if err := waitJS(ctx, `(() => { const p = document.querySelector('#results > p'); return !!p && !p.textContent.endsWith('…') && !!document.querySelector('ol.hits'); })()`); err != nil {
				t.Fatalf("searching %s: the whole index never came in: %v", base, err)
			}
			hits := value[[]string](t, ctx, `[...document.querySelectorAll('ol.hits a')].map(a => a.href)`)
			found := false
			for _, h := range hits {
				found = found || strings.HasPrefix(h, base+"select-to-epoll.html#")
			}
			if !found {
				t.Errorf("searching %s for FD_SETSIZE finds no section of chapter 2: %v", base, hits)
			}
		}
	})

	t.Run("heading link", func(t *testing.T) {
		run(t, chromedp.Navigate(fileURL+"select-to-epoll.html"), waitLoaded(),
			chromedp.Click(chromedp.JSPath(`document.querySelectorAll('main h2')[3].querySelector('a.anchor')`)), chromedp.Sleep(100*time.Millisecond))
		got := value[struct {
			Hash, ID string
			Top, Y   float64
		}](t, ctx, `(() => { const h = document.querySelectorAll('main h2')[3];
			return {Hash: decodeURIComponent(location.hash.slice(1)), ID: h.id, Top: h.getBoundingClientRect().top, Y: scrollY}; })()`)
		if got.Hash != got.ID || got.Y == 0 || got.Top < -1 || got.Top > 40 {
			t.Errorf("the heading link does not scroll to its section: %+v", got)
		}
	})

	t.Run("arrow keys", func(t *testing.T) {
		run(t, viewport(1280, 900, false), chromedp.Navigate(fileURL+"select-to-epoll.html"), waitLoaded(), chromedp.KeyEvent(kb.ArrowRight))
		if err := waitJS(ctx, `location.pathname.endsWith("/blocking-read.html") && document.readyState === "complete"`); err != nil {
			t.Fatalf("→ on chapter 2 does not open the next chapter (5): %v", err)
		}
		run(t, chromedp.KeyEvent(kb.ArrowLeft))
		if err := waitJS(ctx, `location.pathname.endsWith("/select-to-epoll.html") && document.readyState === "complete"`); err != nil {
			t.Fatalf("← on chapter 5 does not open chapter 2: %v", err)
		}
		// In a focused table the arrows scroll it, not the book.
		run(t, viewport(360, 740, true), chromedp.Sleep(100*time.Millisecond), chromedp.Focus(chromedp.CSS(`.scroll.wide`)),
			chromedp.KeyEvent(kb.ArrowRight), chromedp.Sleep(300*time.Millisecond))
		if here := value[string](t, ctx, `location.pathname.split('/').pop()`); here != "select-to-epoll.html" {
			t.Errorf("→ in a focused table left the chapter for %s", here)
		}
		run(t, viewport(1280, 900, false))
	})

	t.Run("without script", func(t *testing.T) {
		noScript := func(off bool) chromedp.Action[chromedp.Void] {
			return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
				return err
			})
		}
		defer run(t, noScript(false))
		run(t, noScript(true), viewport(360, 740, true), chromedp.Navigate(fileURL+"select-to-epoll.html"), waitLoaded(),
			chromedp.Focus(chromedp.CSS(`.mb-value[data-runs]`)))
		got := value[struct {
			JS       int
			Sidebar  []string
			Contents int
			Note     string
		}](t, ctx, `({JS: document.documentElement.classList.contains("js") ? 1 : 0,
			Sidebar: [...document.querySelectorAll('#mb-chapters > li > a')].map(a => a.getAttribute('href')),
			Contents: document.querySelectorAll('#mb-chapters a[aria-current] + ol.contents a').length,
			Note: getComputedStyle(document.activeElement, '::after').content})`)
		// The sidebar's chapter list is toc.js's; without it, the sidebar
		// links to the contents page and holds the chapter's own contents.
		if got.JS != 0 || !slices.Contains(got.Sidebar, "index.html") || !slices.Contains(got.Sidebar, "select-to-epoll.html") || got.Contents == 0 || !strings.Contains(got.Note, "회 실행") {
			t.Errorf("without a script, the sidebar (its link to the contents, the chapter and its contents) or a focused value's provenance is missing: %+v", got)
		}
		run(t, chromedp.Focus(chromedp.CSS(`.mb-value[data-mixed]`)))
		if note := value[string](t, ctx, `getComputedStyle(document.activeElement, '::after').content`); !strings.Contains(note, "섞은 값") || !strings.Contains(note, " + m1") {
			t.Errorf("without a script, a value mixing two machines does not name both: %q", note)
		}
		run(t, viewport(1280, 900, false))
	})

	t.Run("axe", func(t *testing.T) {
		axe, err := os.ReadFile("../node_modules/axe-core/axe.min.js")
		need(t, "axe-core", "npm ci (package.json) installs it", err == nil)
		modes := []struct {
			name   string
			setup  chromedp.Action[chromedp.Void]
			width  int64
			mobile bool
		}{
			{"light", js(`document.documentElement.dataset.theme = "light"`), 1280, false},
			{"dark", js(`document.documentElement.dataset.theme = "dark"`), 1280, false},
			{"phone", js(`document.documentElement.dataset.theme = "light"`), 360, true},
			{"phone, dark", js(`document.documentElement.dataset.theme = "dark"`), 360, true},
		}
		for _, m := range modes {
			for _, page := range pages {
				run(t, viewport(m.width, 900, m.mobile), chromedp.Navigate(fileURL+page), waitLoaded(), m.setup,
					js(string(axe)))
				violations := value[[]string](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
					.filter(v => v.impact === "serious" || v.impact === "critical")
					.map(v => v.id + " (" + v.impact + "): " + v.nodes.length + " × " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", ")))`)
				for _, v := range violations {
					t.Errorf("axe, %s, %s: %s", m.name, page, v)
				}
			}
		}
	})
}

// TestSiteValidates runs the W3C Nu HTML Checker on every page.
func TestSiteValidates(t *testing.T) {
	dir, pages := buildBook(t)
	_, err := os.Stat("../node_modules/vnu-jar/build/dist/vnu.jar")
	need(t, "vnu-jar", "npm ci (package.json) installs it", err == nil)
	_, err = exec.LookPath("java")
	need(t, "java", "apt-get install -y default-jre-headless", err == nil)
	args := []string{"-jar", "../node_modules/vnu-jar/build/dist/vnu.jar", "--errors-only"}
	for _, p := range pages {
		args = append(args, filepath.Join(dir, p))
	}
	// The fleet's site: the machine switcher on every page, the fleet's
	// page at its root, a copy's page.
	fleet := filepath.Join(t.TempDir(), "fleet")
	results := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(results, os.DirFS("../testdata/multi/results")); err != nil {
		t.Fatal(err)
	}
	opts := book.Options{Chapters: "../testdata/multi/chapters", Results: results, Out: fleet,
		Fleet: []string{"linux-amd64-intel-r-xeon-r-processor-2c", "m1"}, Probes: probes.All(),
		Runner: &runner.Runner{Exe: filepath.Join(t.TempDir(), "no-probe-may-run")}, This: dataset.Fingerprint{Name: "not-the-books-machine"}, Log: io.Discard}
	if _, err := book.Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	opts.Machine, opts.Out = "m1", filepath.Join(fleet, "machines", "m1")
	if _, err := book.Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "machines.html", "fleet.html", "machines/m1/machines.html"} {
		args = append(args, filepath.Join(fleet, p))
	}
	out, err := exec.Command("java", args...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("the Nu HTML Checker finds errors (%v):\n%s", err, out)
	}
}
