package render

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/util"
	"strconv"
	"strings"
	"unicode"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Site is what the published pages add to standard Markdown: heading ids
// (headingIDs) and code coloured at build time with classes, not inline
// styles, so the site's light and dark themes both apply.
var Site goldmark.Extender = siteExtender{}

type siteExtender struct{}

func (siteExtender) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(headingIDs{}, 600)))
	extendCodeBlocks(m)
}

// headingIDs gives every heading an id a reader can link to, made from its
// text so it reads in the address bar in any script: letters and digits
// (Hangul included) kept, lower-cased, runs of anything else one "-";
// "1장. 1만 개의 연결" is "1장-1만-개의-연결". A repeated id gets "-2",
// "-3"; a heading with no letter or digit is "section".
type headingIDs struct{}

func (headingIDs) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	seen := map[string]int{}
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		h, ok := n.(*gast.Heading)
		if !entering || !ok {
			return gast.WalkContinue, nil
		}
		id := HeadingID(headingText(h, source))
		seen[id]++
		if k := seen[id]; k > 1 {
			id += "-" + strconv.Itoa(k)
		}
		h.SetAttributeString("id", []byte(id))
		return gast.WalkSkipChildren, nil
	})
}

// HeadingID is the id of a heading whose text is s (before de-duplication).
func HeadingID(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}

// headingText is n's text as a reader sees it, values as their source.
func headingText(n gast.Node, source []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *gast.Text:
			b.Write(c.Segment.Value(source))
		case *gast.String:
			b.Write(c.Value)
		default:
			b.WriteString(headingText(c, source))
		}
	}
	return b.String()
}
