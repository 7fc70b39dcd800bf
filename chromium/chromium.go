// Package chromium finds Chromium and starts it headless through
// chromedp: the one place that is done, for printing the book (package
// pdf) and for the site's and the preview's browser tests.
package chromium

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// names are the names Chromium goes by on a PATH.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// Path is Chromium's path on PATH, or an error that says what to install.
func Path() (string, error) {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("Chromium is not installed (looked for " + strings.Join(names, ", ") + " on PATH): install chromium (Debian: apt-get install chromium)")
}

// Start readies the browser at path, headless, with a new profile in the
// folder profile, and returns the context of its first tab; the first
// action run on tab starts the browser (and must be on tab itself: that
// action's context owns it). cancel closes the browser.
func Start(ctx context.Context, path, profile string) (tab context.Context, cancel context.CancelFunc) {
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(path),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.NoFirstRun,
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile), chromedp.WSURLReadTimeout(60*time.Second))
	tab, cancelTab := chromedp.NewContext(alloc)
	cancel = func() {
		cancelTab()
		cancelAlloc()
	}
	return tab, cancel
}
