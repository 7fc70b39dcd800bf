// Package templates holds the site's layouts and stylesheet, embedded so
// the binary alone can build the book.
package templates

import (
	"embed"
	"html/template"
	"io/fs"
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
// the search page.
func Script(fsys fs.FS) ([]byte, error) {
	return fs.ReadFile(fsys, "site.js")
}

// TOCScript is fsys's toc.js, the code that lays out the sidebar's
// chapters from their list (site.TOC writes out/toc.js of both).
func TOCScript(fsys fs.FS) ([]byte, error) {
	return fs.ReadFile(fsys, "toc.js")
}
