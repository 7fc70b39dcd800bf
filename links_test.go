package main

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInPageLinksLand: on every page of the committed site every id is
// unique, and every link to a place on the page (a heading's link to
// itself, a footnote's number and its link back) has a place to land;
// the book's footnotes are among them.
func TestInPageLinksLand(t *testing.T) {
	pages, _ := filepath.Glob("out/*.html")
	if len(pages) == 0 {
		t.Fatal("no pages in out/")
	}
	idRE, hrefRE := regexp.MustCompile(` id="([^"]+)"`), regexp.MustCompile(` href="#([^"]+)"`)
	notes := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, m := range idRE.FindAllStringSubmatch(string(b), -1) {
			id := html.UnescapeString(m[1])
			if ids[id] {
				t.Errorf("%s: id %q twice", p, id)
			}
			ids[id] = true
		}
		for _, m := range hrefRE.FindAllStringSubmatch(string(b), -1) {
			target, err := url.PathUnescape(html.UnescapeString(m[1]))
			if err != nil || !ids[target] {
				t.Errorf("%s: link to #%s lands nowhere", p, m[1])
			}
			if strings.HasPrefix(target, "fnref") {
				notes++
			}
		}
	}
	if notes == 0 {
		t.Error("no footnote's link back in out/")
	}
}
