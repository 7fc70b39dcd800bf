package site_test

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"measuredbook/book"
	"measuredbook/probes"
)

// chapterSlugs are the book's chapters, in order.
func chapterSlugs(t *testing.T) []string {
	t.Helper()
	b, err := book.Load("../chapters", probes.All())
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, d := range b.Docs {
		slugs = append(slugs, d.Front.Slug)
	}
	return slugs
}

// print.html holds every chapter once, in book order, after the
// contents; no id is there twice, every link within the page has its
// target, and the contents page links to it.
func TestPrintPage(t *testing.T) {
	dir, _ := buildBook(t)
	data, err := os.ReadFile(filepath.Join(dir, "print.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := xhtml.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	var sections, targets []string
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		for _, a := range n.Attr {
			switch {
			case a.Key == "id":
				ids[a.Val]++
			case a.Key == "href" && strings.HasPrefix(a.Val, "#"):
				targets = append(targets, a.Val[1:])
			case a.Key == "class" && a.Val == "print-chapter":
				id := ""
				for _, b := range n.Attr {
					if b.Key == "id" {
						id = b.Val
					}
				}
				sections = append(sections, id)
			case a.Key == "class" && strings.Contains(a.Val, "sidebar"):
				t.Errorf("print.html has a sidebar (%s)", a.Val)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if want := chapterSlugs(t); !slices.Equal(sections, want) {
		t.Errorf("print.html's chapters %v, want %v", sections, want)
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("print.html has id %q %d times", id, n)
		}
	}
	for _, to := range targets {
		if ids[to] == 0 {
			t.Errorf("print.html links to #%s, which it does not have", to)
		}
	}
	if len(targets) < 50 {
		t.Errorf("print.html has only %d links within itself: its contents are missing", len(targets))
	}
	if contents := string(data); strings.Index(contents, `class="print-contents"`) > strings.Index(contents, `class="print-chapter"`) {
		t.Error("print.html's contents do not come before the chapters")
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{`href="print.html"`, `href="` + book.EPUBFile + `"`} {
		if !bytes.Contains(index, []byte(link)) {
			t.Errorf("the contents page has no %s", link)
		}
	}
}

// The book's EPUB (book.yaml's epub: true puts it in the site): its
// container names the package, the manifest lists every file, the spine
// is the title page, the contents and the chapters in order; and
// Debian's epubcheck finds neither an error nor a warning in it.
func TestEPUB(t *testing.T) {
	dir, _ := buildBook(t)
	file := filepath.Join(dir, book.EPUBFile)
	z, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	read := func(name string) []byte {
		f, err := z.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return b
	}
	if z.File[0].Name != "mimetype" || z.File[0].Method != zip.Store {
		t.Errorf("the first entry is %s (method %d), not mimetype stored", z.File[0].Name, z.File[0].Method)
	}
	var container struct {
		Rootfile struct {
			Path string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xml.Unmarshal(read("META-INF/container.xml"), &container); err != nil || container.Rootfile.Path != "EPUB/package.opf" {
		t.Fatalf("container.xml names %q (%v)", container.Rootfile.Path, err)
	}
	var opf struct {
		Items []struct {
			ID   string `xml:"id,attr"`
			Href string `xml:"href,attr"`
		} `xml:"manifest>item"`
		Spine []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if err := xml.Unmarshal(read(container.Rootfile.Path), &opf); err != nil {
		t.Fatal(err)
	}
	href := map[string]string{}
	listed := []string{"mimetype", "META-INF/container.xml", container.Rootfile.Path}
	for _, it := range opf.Items {
		href[it.ID] = it.Href
		listed = append(listed, "EPUB/"+it.Href)
	}
	var held []string
	for _, f := range z.File {
		held = append(held, f.Name)
	}
	slices.Sort(listed)
	slices.Sort(held)
	if !slices.Equal(listed, held) {
		t.Errorf("the manifest (with the container's own files) lists %v, the container holds %v", listed, held)
	}
	var spine []string
	for _, s := range opf.Spine {
		spine = append(spine, href[s.IDRef])
	}
	want := []string{"title.xhtml", "nav.xhtml"}
	for _, s := range chapterSlugs(t) {
		want = append(want, "chapters/"+s+".xhtml")
	}
	if !slices.Equal(spine, want) {
		t.Errorf("spine %v, want %v", spine, want)
	}

	cmd, ok := epubcheck(file)
	need(t, "epubcheck", "apt-get install -y epubcheck", ok)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("No errors or warnings detected")) {
		t.Errorf("epubcheck %s (%v):\n%s", file, err, out)
	}
}

// epubcheck is Debian's epubcheck on file. Debian installs it as a jar
// that binfmt_misc runs, which a container may lack: run by java, as
// what it is.
func epubcheck(file string) (*exec.Cmd, bool) {
	path, err := exec.LookPath("epubcheck")
	if err != nil {
		return nil, false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && strings.HasSuffix(real, ".jar") {
		java, err := exec.LookPath("java")
		return exec.Command(java, "-jar", real, file), err == nil
	}
	return exec.Command(path, file), true
}
