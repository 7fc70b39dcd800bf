package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"measuredbook/view"
)

// Section is one searchable part of a chapter: the text under one
// heading, up to the next.
type Section struct {
	Chapter string `json:"c"` // the chapter's title
	URL     string `json:"u"` // page.html#id, relative, so it works from file:// and any sub-path
	Title   string `json:"t"` // the heading's text (the chapter's title for its opening)
	Text    string `json:"x"` // the plain text
}

// Sections splits a chapter's page body (render.SitePage's) into its
// searchable sections, one from each of its h2–h4 (headings, in order).
func Sections(title, slug, body string, headings []view.Heading) []Section {
	var out []Section
	text := make([]byte, 0, len(body)) // the section's so far, a space for each tag: room for all of body's
	url, head := slug+".html", title
	end := func() {
		if t := bytes.TrimSpace(text); len(t) > 0 {
			out = append(out, Section{Chapter: title, URL: url, Title: head, Text: string(t)})
		}
		text = text[:0]
	}
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken: // the end of body: a strings.Reader fails at nothing else
			end()
			return out
		case html.TextToken:
			text = appendText(text, z.Text())
			continue
		case html.StartTagToken:
			name, more := z.TagName()
			var id, class, href []byte
			for more && asks(name) {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "id":
					id = v
				case "class":
					class = v
				case "href":
					href = v
				}
			}
			if hides(string(name), id, class, href) {
				skip(z, string(name))
				break
			}
			// A section starts at its heading's start tag.
			if len(name) != 2 || name[0] != 'h' || name[1] < '2' || name[1] > '4' {
				break
			}
			for k, h := range headings {
				if h.Level == int(name[1]-'0') && h.ID == string(id) {
					end()
					url, head, headings = slug+".html#"+h.ID, h.Text, headings[k+1:]
					if h.Level > 3 || h.Text == "" { // not in the contents: the section goes by the chapter's title
						head = title
					}
					break
				}
			}
		}
		text = appendText(text, []byte{' '})
	}
}

// SearchEntries is one chapter's part of the search index: its sections
// as JSON array elements, comma-separated (empty for none). A build keeps
// these, not the sections, until it writes the index.
func SearchEntries(sections []Section) []byte {
	if len(sections) == 0 {
		return nil
	}
	b, err := json.Marshal(sections)
	if err != nil {
		panic(err) // a struct of strings always marshals
	}
	return b[1 : len(b)-1]
}

// SearchIndex writes the search index in parts, each a script of about
// SearchPartSize bytes, as the chapters' entries come (in any order, from
// several goroutines): a build holds no more of the index than a part and
// the chapters that finished ahead of their turn, and the search page
// loads the first part when a search is made, then each part the one
// before names, showing hits as they come. Scripts, not JSON files, so
// that they load from file:// too. Which entries go into which part
// depends on the entries alone, never on the order they came in.
type SearchIndex struct {
	put     func(name string, data []byte) error
	mu      sync.Mutex
	pending map[int][]byte // entries of the chapters ahead of next
	next    int            // the chapter whose entries go in next
	part    [][]byte       // the entries of the part being filled
	size    int            // their bytes
	parts   int            // parts written
	err     error
}

// SearchPartSize is about the size of one part of the search index.
const SearchPartSize = 1 << 20

// SearchPart is the file name of part k of the search index; the search
// page starts from SearchPart(0).
func SearchPart(k int) string {
	if k == 0 {
		return "search-index.js"
	}
	return fmt.Sprintf("search-index-%d.js", k)
}

// NewSearchIndex starts an index whose parts are handed to put.
func NewSearchIndex(put func(name string, data []byte) error) *SearchIndex {
	return &SearchIndex{put: put, pending: map[int][]byte{}}
}

// Add takes chapter i's entries (SearchEntries), i counting from 0 in
// book order; every chapter is added once.
func (s *SearchIndex) Add(i int, entries []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[i] = entries
	for {
		e, ok := s.pending[s.next]
		if !ok {
			return
		}
		delete(s.pending, s.next)
		s.next++
		if len(e) == 0 {
			continue
		}
		if s.size >= SearchPartSize {
			s.write(SearchPart(s.parts + 1))
		}
		if len(s.part) == 0 {
			s.size = len(searchHead)
		} else {
			s.size++ // the comma before it
		}
		s.part = append(s.part, e)
		s.size += len(e)
	}
}

// searchHead starts every part of the search index.
const searchHead = "mbSearchPart(["

// write hands over the part being filled, which names next as the part
// after it ("" for none). The part is laid out once at its full size: a
// part grown entry by entry was copied and cleared again at every
// doubling, a sixth of the preview's rebuild after a save.
func (s *SearchIndex) write(next string) {
	tail := "null"
	if next != "" {
		tail = strconv.Quote(next)
	}
	part := make([]byte, 0, max(s.size, len(searchHead))+len("],")+len(tail)+len(");\n"))
	part = append(part, searchHead...)
	for i, e := range s.part {
		if i > 0 {
			part = append(part, ',')
		}
		part = append(part, e...)
	}
	part = append(part, "],"...)
	part = append(part, tail...)
	part = append(part, ");\n"...)
	if err := s.put(SearchPart(s.parts), part); err != nil && s.err == nil {
		s.err = err
	}
	s.parts++
	s.part, s.size = nil, 0
}

// Close writes the last part (the only one, empty, for a book with
// nothing to search) and returns the first error put returned.
func (s *SearchIndex) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 {
		return fmt.Errorf("search index: the entries of %d chapter(s) came without those of chapter %d", len(s.pending), s.next+1)
	}
	s.write("")
	return s.err
}
