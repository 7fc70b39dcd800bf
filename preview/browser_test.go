package preview

import (
	"context"
	"measuredbook/chromium"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts Debian's chromium, headless, with a new empty profile.
// Under CI=true a missing browser fails the test; elsewhere it skips.
func browser(t testing.TB) context.Context {
	t.Helper()
	path, err := chromium.Path()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; .ci/run installs it", err)
		}
		t.Skip(err)
	}
	ctx, cancel := chromium.Start(context.Background(), path, t.TempDir())
	t.Cleanup(cancel)
	// Start the browser now (on ctx itself: the first action's context
	// owns the browser).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// waitJS waits until expression is true in the open page, across the
// page's own reloads (each ends a poll early; the next one starts on the
// new page), for at most a minute: generous for a loaded machine.
func waitJS(ctx context.Context, expression string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expression, chromedp.WithPollingTimeout(10*time.Second)))
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitText waits until the open page's text includes text.
func waitText(ctx context.Context, text string) error {
	return waitJS(ctx, "document.body && document.body.innerText.includes("+jsString(text)+")")
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// In a real browser: open a chapter, scroll down, save the file; the page
// shows the new text by itself, at the same scroll position. A bad save
// shows the overlay; the next good one clears it.
func TestBrowserReloadsOnSave(t *testing.T) {
	ctx := browser(t)
	src := fixture(t)
	path := filepath.Join(src.Opts.Chapters, "01-one.md")
	long := chapterOne + strings.Repeat("\n긴 문단으로 쪽을 늘립니다.\n", 200) + "\n```go\nfmt.Println(\"복사할 줄\")\n```\n"
	save(t, path, long)
	r := start(t, src, nil)

	if err := chromedp.Do(ctx, chromedp.Navigate(r.url+"/one.html")); err != nil {
		t.Fatal(err)
	}
	if err := waitText(ctx, "첫 장입니다."); err != nil {
		t.Fatal(err)
	}
	// The page keeps what did not change: the code block far below the edit.
	if err := waitJS(ctx, "!!document.querySelector('div.code') && 'served' in document.getElementById('mb-serve').dataset"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void]("window.scrollTo(0, 1500); window.mbNotReloaded = true; window.mbKept = document.querySelector('div.code')")); err != nil {
		t.Fatal(err)
	}
	save(t, path, strings.Replace(long, "첫 장입니다.", "브라우저에서 고친 첫 장입니다.", 1))
	if err := waitText(ctx, "브라우저에서 고친 첫 장입니다."); err != nil {
		t.Fatalf("the page never showed the saved text: %v\nserve's log:\n%s", err, r.log)
	}
	// The new body took the old one's place where it was, without a
	// navigation (the marker stays), and the site's script bound it once:
	// one copy button per code block, one popover, one serve script.
	if err := waitJS(ctx, "window.scrollY > 1000 && window.mbNotReloaded"); err != nil {
		y, _ := chromedp.Run(ctx, chromedp.Evaluate[float64]("window.scrollY"))
		t.Errorf("after the save scrollY = %v, want about 1500, in the same page: %v", y, err)
	}
	if err := waitJS(ctx, "document.contains(window.mbKept)"); err != nil {
		t.Errorf("the code block that did not change was replaced: %v", err)
	}
	// (The experiment's re-run box has code blocks of its own.)
	bound := "document.querySelectorAll('pre').length > 1 && document.querySelectorAll('button.copy').length === document.querySelectorAll('pre').length && " +
		"document.querySelectorAll('#mb-pop').length === 1 && document.querySelectorAll('#mb-serve').length === 1"
	if err := waitJS(ctx, bound); err != nil {
		t.Errorf("the swapped body is not bound once by the site's script: %v", err)
	}

	save(t, path, strings.Replace(long, "echo.time[n=2]", "echo.nosuch[n=2]", 1))
	if err := waitJS(ctx, "(document.getElementById('mb-serve-overlay') || {}).innerText?.includes('01-one.md:7:')"); err != nil {
		t.Fatalf("no overlay with the error's position: %v", err)
	}
	save(t, path, long)
	if err := waitJS(ctx, "document.readyState === 'complete' && !document.getElementById('mb-serve-overlay') && document.body.innerText.includes('첫 장입니다.')"); err != nil {
		t.Fatalf("the overlay stayed after a good save: %v", err)
	}
}

// A changed stylesheet is not swapped in: the page loads again whole and
// wears it.
func TestBrowserReloadsOnNewStylesheet(t *testing.T) {
	ctx := browser(t)
	src := fixture(t)
	src.Templates = t.TempDir()
	if err := os.CopyFS(src.Templates, os.DirFS("../templates")); err != nil {
		t.Fatal(err)
	}
	r := start(t, src, nil)
	if err := chromedp.Do(ctx, chromedp.Navigate(r.url+"/one.html")); err != nil {
		t.Fatal(err)
	}
	if err := waitJS(ctx, "document.readyState === 'complete' && !!window.mbSetup"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void]("window.mbNotReloaded = true")); err != nil {
		t.Fatal(err)
	}
	css := filepath.Join(src.Templates, "style.css")
	old, err := os.ReadFile(css)
	if err != nil {
		t.Fatal(err)
	}
	save(t, css, string(old)+"\nbody { --mb-test-mark: 7; }\n")
	if err := waitJS(ctx, "!window.mbNotReloaded && document.readyState === 'complete' && "+
		"getComputedStyle(document.body).getPropertyValue('--mb-test-mark').trim() === '7'"); err != nil {
		t.Fatalf("the page did not load again with the new stylesheet: %v\nserve's log:\n%s", err, r.log)
	}
}
