// Package templates holds the site's layouts and stylesheet, embedded so
// the binary alone can build the book.
package templates

import (
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"slices"

	"measuredbook/view"
)

//go:embed *.html *.css *.js
var files embed.FS

// Embedded is the layouts and stylesheet compiled into the binary; the
// preview reads the same files from the templates folder instead, so an
// edit shows without rebuilding the binary.
func Embedded() fs.FS { return files }

// Stylesheet is fsys's style.css, written to out/style.css.
func Stylesheet(fsys fs.FS) ([]byte, error) {
	return fs.ReadFile(fsys, "style.css")
}

// Parse parses fsys's page layouts: "index.html", "chapter.html" and
// "page.html" (the claims, environment and search pages).
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
