// Package epub writes the book as one EPUB 3 file: a title page, the
// contents (nav.xhtml, every chapter and its h2–h4), and each chapter as
// XHTML made from the HTML body the site's page has, its plots inline
// SVG, and every figure's provenance, which the site shows on hover, as
// an endnote a reader without hover or JavaScript can follow. Fonts are
// named in the stylesheet, not embedded.
//
// The container is written with archive/zip (no Go EPUB library is kept,
// and OCF is small): the mimetype first and stored, every entry without
// a time, so the same book gives the same bytes.
package epub

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/flate"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"hash/crc32"
	"html"
	"io"
	"maps"
	"measuredbook/view"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
)

// Book is what the EPUB holds.
type Book struct {
	Title, Lang string
	// Words are the book's words (view.Korean when nil).
	Words *view.Words
	// Identifier is dc:identifier, the same for every build of the same
	// book (see Identifier).
	Identifier string
	// Modified is dcterms:modified: a time taken from the book's inputs
	// (its newest result), never the clock, so that a rebuild gives the
	// same bytes.
	Modified time.Time
	// Front is the title page's HTML after the title (the preface and
	// where the figures come from); nil: the title alone.
	Front    []byte
	Chapters []Chapter
	// Files are the site's files the chapters refer to (images), by their
	// path in the site; an image not among them shows its description.
	Files map[string][]byte
}

// Chapter is one chapter: its slug (its page is SLUG.html on the site),
// title, language ("" for the book's) and body as the site's page has it.
type Chapter struct {
	Slug, Title, Lang string
	Body              []byte
}

// Identifier makes a book's dc:identifier from what names it (its title,
// the result set it was built from): a name-based UUID, the same on every
// build of that book and another for another book.
func Identifier(names ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(names, "\x00")))
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x50 // version 5 (name-based)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

//go:embed book.css
var stylesheet []byte

// The container's own files, beside the chapters (in chapters/, so that
// no slug can name one of them).
const (
	dir       = "EPUB/"
	chapters  = "chapters/"
	navFile   = "nav.xhtml"
	titleFile = "title.xhtml"
	cssFile   = "book.css"
)

// Doc is a chapter made into its content document (Book.Chapter),
// compressed as the container holds it: the costly part, done once per
// chapter and in parallel, not by Write.
type Doc struct {
	Deflated []byte         // the XHTML, deflated
	CRC32    uint32         // of the XHTML
	Size     int            // of the XHTML
	SVG      bool           // it has inline SVG (a property in the manifest)
	Headings []view.Heading // its h2–h4 with an id, for the contents
	Files    []string       // the Files it shows, sorted
}

// lang is the book's language, Korean unless said.
func (b *Book) lang() string { return cmp.Or(b.Lang, "ko") }

// words are the EPUB's words, in the book's language.
func (b *Book) words() view.EPUBWords { return cmp.Or(b.Words, view.Korean).EPUB }

// Chapter makes chapter i its content document. It depends on the
// chapter, the book's language, its chapters' slugs and the names of its
// Files, and on nothing else: a build makes the chapters in parallel and
// may keep them.
func (b *Book) Chapter(i int) (Doc, error) {
	c := b.Chapters[i]
	x := &converter{words: b.words(), chapters: b.Chapters, files: b.Files, used: map[string]bool{}, noteOf: map[string]int{}}
	body, err := x.convert(c.Body)
	if err != nil {
		return Doc{}, fmt.Errorf("%s.html: %v", c.Slug, err)
	}
	var doc bytes.Buffer
	writeHead(&doc, cmp.Or(c.Lang, b.lang()), c.Title, "../"+cssFile)
	doc.WriteString(`<section epub:type="chapter" role="doc-chapter">` + "\n<h1>" + html.EscapeString(c.Title) + "</h1>\n")
	doc.Write(body)
	doc.WriteString("</section>\n")
	x.writeNotes(&doc)
	doc.WriteString("</body>\n</html>\n")
	// Neither can fail: the level is valid, and a bytes.Buffer takes any write.
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.DefaultCompression)
	fw.Write(doc.Bytes())
	fw.Close()
	return Doc{Deflated: deflated.Bytes(), CRC32: crc32.ChecksumIEEE(doc.Bytes()), Size: doc.Len(), SVG: x.svg,
		Headings: x.headings, Files: slices.Sorted(maps.Keys(x.used))}, nil
}

// Write writes b as an EPUB 3 file to w, its chapters as docs has them
// (docs[i] is b.Chapter(i)).
func Write(w io.Writer, b Book, docs []Doc) error {
	b.Lang = b.lang()
	items, err := b.items(docs)
	if err != nil {
		return err
	}
	z := zip.NewWriter(w)
	// OCF: the mimetype first, stored, with no extra field (CreateRaw, as
	// CreateHeader would add a data descriptor).
	mt := []byte("application/epub+zip")
	if err := putRaw(z, "mimetype", zip.Store, mt, crc32.ChecksumIEEE(mt), len(mt)); err != nil {
		return err
	}
	put := func(name string, data []byte) error {
		f, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err == nil {
			_, err = f.Write(data)
		}
		return err
	}
	if err := put("META-INF/container.xml", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles>
<rootfile full-path="`+dir+`package.opf" media-type="application/oebps-package+xml"/>
</rootfiles>
</container>
`)); err != nil {
		return err
	}
	if err := put(dir+"package.opf", b.packageDoc(items)); err != nil {
		return err
	}
	for _, it := range items {
		if it.doc == nil {
			err = put(dir+it.href, it.data)
		} else {
			err = putRaw(z, dir+it.href, zip.Deflate, it.doc.Deflated, it.doc.CRC32, it.doc.Size)
		}
		if err != nil {
			return err
		}
	}
	return z.Close()
}

// item is one file of the EPUB's manifest.
type item struct {
	id, href, media, props string
	data                   []byte
	doc                    *Doc // a chapter's, compressed, instead of data
}

// items are the EPUB's files in reading order: the title page, the
// contents, the stylesheet, the chapters (docs[i] is chapter i's) and the
// files they show.
func (b *Book) items(docs []Doc) ([]item, error) {
	words := b.words()
	var items []item
	used := map[string]bool{} // the Files the chapters show
	for i, c := range b.Chapters {
		d := docs[i]
		props := ""
		if d.SVG {
			props = "svg"
		}
		items = append(items, item{fmt.Sprintf("ch%d", i+1), chapters + c.Slug + ".xhtml", "application/xhtml+xml", props, nil, &docs[i]})
		for _, f := range d.Files {
			used[f] = true
		}
	}
	files := slices.Sorted(maps.Keys(used))
	for i, f := range files {
		items = append(items, item{fmt.Sprintf("file%d", i+1), chapters + f, mediaType(f), "", b.Files[f], nil})
	}
	front, err := titlePage(*b, words)
	if err != nil {
		return nil, err
	}
	return append([]item{
		{"title", titleFile, "application/xhtml+xml", "", front, nil},
		{"nav", navFile, "application/xhtml+xml", "nav", navPage(*b, words, docs), nil},
		{"css", cssFile, "text/css", "", stylesheet, nil},
	}, items...), nil
}

// packageDoc is the package document (package.opf) of b's items: its
// metadata, manifest and spine.
func (b *Book) packageDoc(items []item) []byte {
	var opf bytes.Buffer
	opf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="` + html.EscapeString(b.Lang) + `">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="book-id">` + html.EscapeString(b.Identifier) + `</dc:identifier>
<dc:title>` + html.EscapeString(b.Title) + `</dc:title>
<dc:language>` + html.EscapeString(b.Lang) + `</dc:language>
<meta property="dcterms:modified">` + b.Modified.UTC().Format("2006-01-02T15:04:05Z") + `</meta>
</metadata>
<manifest>
`)
	for _, it := range items {
		opf.WriteString(`<item id="` + it.id + `" href="` + html.EscapeString(hrefOf(it.href)) + `" media-type="` + it.media + `"`)
		if it.props != "" {
			opf.WriteString(` properties="` + it.props + `"`)
		}
		opf.WriteString("/>\n")
	}
	opf.WriteString("</manifest>\n<spine>\n")
	for _, it := range items {
		if it.media == "application/xhtml+xml" {
			opf.WriteString(`<itemref idref="` + it.id + `"/>` + "\n")
		}
	}
	opf.WriteString("</spine>\n</package>\n")
	return opf.Bytes()
}

// putRaw adds a file whose data is compressed already by method (or
// stored), its CRC-32 and size those of the file.
func putRaw(z *zip.Writer, name string, method uint16, data []byte, crc uint32, size int) error {
	w, err := z.CreateRaw(&zip.FileHeader{Name: name, Method: method, CRC32: crc,
		CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(size)})
	if err == nil {
		_, err = w.Write(data)
	}
	return err
}

// hrefOf is a file's path in the container as a URL reference.
func hrefOf(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// writeHead starts an XHTML content document.
func writeHead(b *bytes.Buffer, lang, title, css string) {
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="` + html.EscapeString(lang) + `" xml:lang="` + html.EscapeString(lang) + `">
<head>
<meta charset="utf-8"/>
<title>` + html.EscapeString(title) + `</title>
<link rel="stylesheet" type="text/css" href="` + html.EscapeString(css) + `"/>
</head>
<body>
`)
}

// titlePage is the book's first page: its title, then Front.
func titlePage(b Book, w view.EPUBWords) ([]byte, error) {
	var doc bytes.Buffer
	writeHead(&doc, b.Lang, b.Title, cssFile)
	doc.WriteString(`<section epub:type="titlepage" class="titlepage">` + "\n<h1>" + html.EscapeString(b.Title) + "</h1>\n")
	if b.Front != nil {
		x := &converter{words: w, chapters: b.Chapters, files: b.Files, used: map[string]bool{}, noteOf: map[string]int{}, top: true}
		body, err := x.convert(b.Front)
		if err != nil {
			return nil, fmt.Errorf("title page: %v", err)
		}
		doc.Write(body)
	}
	doc.WriteString("</section>\n</body>\n</html>\n")
	return doc.Bytes(), nil
}

// navPage is nav.xhtml: every chapter and, nested under it, its h2–h4
// (docs[i] is chapter i's).
func navPage(b Book, w view.EPUBWords, docs []Doc) []byte {
	var doc bytes.Buffer
	writeHead(&doc, b.Lang, w.Contents, cssFile)
	doc.WriteString(`<nav epub:type="toc" role="doc-toc" id="toc">` + "\n<h1>" + html.EscapeString(w.Contents) + "</h1>\n<ol>\n")
	for i, c := range b.Chapters {
		href := hrefOf(chapters + c.Slug + ".xhtml")
		doc.WriteString(`<li><a href="` + html.EscapeString(href) + `">` + html.EscapeString(c.Title) + "</a>")
		writeHeadings(&doc, href, docs[i].Headings)
		doc.WriteString("</li>\n")
	}
	doc.WriteString("</ol>\n</nav>\n</body>\n</html>\n")
	return doc.Bytes()
}

// writeHeadings writes hs as nested lists: each heading holds the
// deeper ones that follow it.
func writeHeadings(b *bytes.Buffer, href string, hs []view.Heading) {
	if len(hs) == 0 {
		return
	}
	b.WriteString("<ol>")
	for i := 0; i < len(hs); {
		h := hs[i]
		j := i + 1
		for j < len(hs) && hs[j].Level > h.Level {
			j++
		}
		b.WriteString(`<li><a href="` + html.EscapeString(href+"#"+escapeFragment(h.ID)) + `">` + html.EscapeString(h.Text) + "</a>")
		writeHeadings(b, href, hs[i+1:j])
		b.WriteString("</li>")
		i = j
	}
	b.WriteString("</ol>")
}

// mediaType is the media type of an image the chapters show; "" for a
// file an EPUB cannot hold as one.
func mediaType(name string) string { return mediaTypes[strings.ToLower(path.Ext(name))] }

var mediaTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".svg": "image/svg+xml", ".webp": "image/webp"}
