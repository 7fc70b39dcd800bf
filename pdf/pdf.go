// Package pdf prints a page to PDF with Chromium (headless, through
// chromedp), as a browser's "print to PDF" does, with the page's print
// stylesheet.
package pdf

import (
	"context"
	"errors"
	"fmt"
	"measuredbook/chromium"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Timeout bounds one print: starting the browser, loading the page and
// laying it out on paper.
const Timeout = 2 * time.Minute

// Browser finds Chromium, or says how to install it or do without.
func Browser() (string, error) {
	p, err := chromium.Path()
	if err != nil {
		return "", fmt.Errorf("--pdf prints the book with Chromium: %v, or build without --pdf and print print.html from any browser", err)
	}
	return p, nil
}

// FontNote says, when fontconfig finds no font for lang, that the PDF's
// text would show as boxes and what to install; "" when there is one (or
// no fc-list to ask).
func FontNote(lang string) string {
	base, _, _ := strings.Cut(lang, "-")
	out, err := exec.Command("fc-list", ":lang="+base, "family").Output()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		return ""
	}
	return fmt.Sprintf("no font for the book's language (%s) is installed (fc-list :lang=%s finds none), so the PDF shows its letters as boxes; install one (Debian: apt-get install fonts-noto-cjk for Korean)", lang, base)
}

// Print loads the file file in Chromium at path browser and prints it:
// A4, with the page's backgrounds and an outline of its headings.
func Print(ctx context.Context, browser, file string) ([]byte, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "measuredbook-pdf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	bctx, cancelBrowser := chromium.Start(ctx, browser, profile)
	defer cancelBrowser()
	yes := true
	err = chromedp.Do(bctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String()),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Poll[bool](`document.readyState === "complete"`)(ctx, t)
			return err
		}))
	var res page.PrintToPDFResult
	if err == nil {
		res, err = chromedp.Call(bctx, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: &yes, PaperWidth: 8.27, PaperHeight: 11.69,
			GenerateDocumentOutline: &yes, GenerateTaggedPDF: &yes})
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("printing %s with %s took longer than %v", file, browser, Timeout)
	case err != nil:
		return nil, fmt.Errorf("printing %s with %s: %w", file, browser, err)
	}
	return res.Data, nil
}
