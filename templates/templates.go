// Package templates holds the site's layouts and stylesheet, embedded so
// the binary alone can build the book.
package templates

import (
	"embed"
	"html/template"
)

//go:embed *.html *.css
var files embed.FS

// Stylesheet is the site's CSS, written to out/style.css.
func Stylesheet() []byte {
	b, err := files.ReadFile("style.css")
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return b
}

// Parse parses the page layouts: "index.html" and "chapter.html".
func Parse() (*template.Template, error) {
	return template.ParseFS(files, "*.html")
}
