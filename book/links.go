package book

import (
	"cmp"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"measuredbook/expr"
	"measuredbook/parse"
)

// sitePages are the pages a build writes beside the chapters', which a
// chapter may link to.
var sitePages = []string{"index.html", "claims.html", "environment.html", "search.html"}

// linkCheck is what the chapters' links lead to: the files of the
// chapters folder they refer to (copied into the site under the same
// path), the external links (listed, never fetched) and the warnings,
// of kind parse.KindLink, about those that lead nowhere.
type linkCheck struct {
	static   []string // paths relative to the chapters folder, slash-separated, sorted
	external []string // in book order, each once
	warnings []error
}

// checkLinks checks every link and image of the book: a page of the
// site must exist and have the anchor named (a heading's id, or
// experiment-ID), and a file must exist under the chapters folder.
func (b *Book) checkLinks() linkCheck {
	var lc linkCheck
	anchors := map[string][]string{}
	for _, d := range b.Docs {
		anchors[d.Front.Slug+".html"] = d.Anchors
	}
	for _, d := range b.Docs {
		for _, l := range d.Links {
			u, err := url.Parse(l.Dest)
			switch {
			case err != nil:
				lc.warnings = append(lc.warnings, parse.LinkWarning(l.At, "link %q is not a URL: %v", l.Dest, err))
				continue
			case u.Scheme != "" || u.Host != "":
				if !slices.Contains(lc.external, l.Dest) {
					lc.external = append(lc.external, l.Dest)
				}
				continue
			}
			page := cmp.Or(u.Path, d.Front.Slug+".html")
			if have, chapter := anchors[page]; chapter {
				if u.Fragment != "" && !slices.Contains(have, u.Fragment) {
					lc.warnings = append(lc.warnings, parse.LinkWarning(l.At, "link %q: page %s has no heading or experiment with id %q%s", l.Dest, page, u.Fragment, expr.DidYouMean(u.Fragment, have)))
				}
				continue
			}
			if slices.Contains(sitePages, page) {
				continue
			}
			name := path.Clean(page)
			if !filepath.IsLocal(filepath.FromSlash(name)) || name == Manifest {
				lc.warnings = append(lc.warnings, parse.LinkWarning(l.At, "link %q leads outside the chapters folder, which the site cannot hold", l.Dest))
				continue
			}
			file := filepath.Join(b.Dir, filepath.FromSlash(name))
			if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
				if l.Image {
					lc.warnings = append(lc.warnings, parse.LinkWarning(l.At, "image %q: no file %s (a chapter's images are copied from the chapters folder into the site)", l.Dest, file))
				} else {
					lc.warnings = append(lc.warnings, parse.LinkWarning(l.At, "link %q: no page of the book and no file %s%s", l.Dest, file, pageHint(name, anchors)))
				}
				continue
			}
			lc.static = append(lc.static, name)
		}
	}
	slices.Sort(lc.static)
	lc.static = slices.Compact(lc.static)
	return lc
}

// pageHint suggests the chapter page a link to a missing .html file may
// have meant.
func pageHint(name string, anchors map[string][]string) string {
	if !strings.HasSuffix(name, ".html") {
		return ""
	}
	return expr.DidYouMean(name, append(slices.Sorted(maps.Keys(anchors)), sitePages...))
}

// copyStatic copies the files the chapters refer to into the site, under
// the same paths.
func (b *Book) copyStatic(out siteSink, static []string) error {
	for _, name := range static {
		data, err := os.ReadFile(filepath.Join(b.Dir, filepath.FromSlash(name))) // a regular file: checkLinks saw it
		if err != nil {
			return err
		}
		if err := out.put(name, data); err != nil {
			return err
		}
	}
	return nil
}
