// Package templates holds the site's layouts and stylesheet, embedded so
// the binary alone can build the book.
package templates

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"measuredbook/view"
)

//go:embed *.html *.css *.js
var files embed.FS

// Embedded is the layouts and stylesheet compiled into the binary; the
// preview reads the same files from the templates folder instead, so an
// edit shows without rebuilding the binary.
func Embedded() fs.FS { return files }

// Stylesheet is fsys's style.css, written to out/style.css. Its first
// line gives it the words of w as custom properties (--mb-w-KEY: "…"),
// which its generated content uses: the stylesheet holds no language of
// its own.
func Stylesheet(fsys fs.FS, w *view.Words) ([]byte, error) {
	css, err := fs.ReadFile(fsys, "style.css")
	if err != nil {
		return nil, err
	}
	words := w.StyleWords()
	quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\a `) // inside a CSS string
	var b strings.Builder
	b.WriteString(":root {")
	for _, k := range slices.Sorted(maps.Keys(words)) {
		fmt.Fprintf(&b, " --mb-w-%s: \"%s\";", k, quoted.Replace(words[k]))
	}
	b.WriteString(" }\n")
	return slices.Concat([]byte(b.String()), css), nil
}

// Parse parses fsys's page layouts: "index.html", "chapter.html" and
// "page.html" (the claims, environment and search pages) and "print.html"
// (the whole book on one page).
func Parse(fsys fs.FS) (*template.Template, error) {
	return template.ParseFS(fsys, "*.html")
}

// Script is fsys's site.js, written to out/site.js: the theme toggle,
// the values' provenance popovers, ←/→ between chapters, copy buttons and
// the search page. Its first line gives it the words of w
// (window.MB_WORDS), so the script holds none of any language.
func Script(fsys fs.FS, w *view.Words) ([]byte, error) {
	js, err := fs.ReadFile(fsys, "site.js")
	if err != nil {
		return nil, err
	}
	words, err := json.Marshal(w.ScriptWords())
	if err != nil {
		return nil, err
	}
	return slices.Concat([]byte("window.MB_WORDS = "), words, []byte(";\n"), js), nil
}

// TOCScript is fsys's toc.js, the code that lays out the sidebar's
// chapters from their list (site.TOC writes out/toc.js of both).
func TOCScript(fsys fs.FS) ([]byte, error) {
	return fs.ReadFile(fsys, "toc.js")
}
