// Package fleet moves result sets between machines and compares them.
//
// A bundle is one machine's set (results/NAME/*.txt) as a single text
// file, so that a CI runner can upload it as one artifact and another
// checkout can import it:
//
//	measuredbook-bundle v1 set=linux-arm64-neoverse-n2-4c files=2
//	file readiness.txt 1234 sha256=9f86d0…
//	<exactly 1234 bytes: the results file as written>
//	file syscost.txt 987 sha256=60303a…
//	<987 bytes>
//	end
//
// The header names the format's version, the set and how many files
// follow; each file's line gives its name, its size in bytes and the
// SHA-256 of its bytes, so that a changed byte, a cut-off file or a file
// slipped in is found before anything is written. Import (import.go)
// then reads every file with the store's own reader, checks its probe
// hash against this checkout's probes and its machine fingerprint, and
// writes the set atomically.
//
// Compare (compare.go) puts two sets side by side with benchstat's
// statistics (golang.org/x/perf/benchmath).
package fleet

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"measuredbook/store"
)

// Version is the bundle format this build writes and reads.
const Version = "v1"

const magic = "measuredbook-bundle"

// MaxFiles bounds how many files a bundle may announce: the book has a
// few dozen experiments, and a header claiming millions is not a bundle.
const MaxFiles = 10000

// MaxBundle bounds the size of a bundle file import reads: a set is a
// few dozen files of kilobytes; what is larger is not a bundle.
const MaxBundle = 256 << 20

// File is one results file of a set: its name (ID.txt) and its bytes.
type File struct {
	Name string
	Data []byte
}

// Bundle is one machine's result set.
type Bundle struct {
	Set   string
	Files []File // sorted by name
}

// ReadSet collects set's results files from results/SET/ (*.txt; hidden
// leftovers such as .tmp-* are not part of a set). Every file must read
// with the store's reader: a set that does not read here would not read
// on the importing side either.
func ReadSet(results, set string) (*Bundle, error) {
	if err := store.CheckName("set name", set); err != nil {
		return nil, err
	}
	dir := filepath.Join(results, set)
	files, err := rawSet(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no results files (*.txt) in this set", dir)
	}
	for _, f := range files {
		if _, err := store.Parse(f.Data, filepath.Join(dir, f.Name), nil); err != nil {
			return nil, err
		}
	}
	return &Bundle{Set: set, Files: files}, nil
}

// rawSet reads the results files of dir as bytes, sorted by name.
func rawSet(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".txt") {
			continue
		}
		data, err := store.ReadFile(filepath.Join(dir, name), store.MaxFile)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: name, Data: data})
	}
	return files, nil // os.ReadDir sorts by name
}

// Write writes b in the bundle format.
func Write(w io.Writer, b *Bundle) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s %s set=%s files=%d\n", magic, Version, b.Set, len(b.Files))
	for _, f := range b.Files {
		sum := sha256.Sum256(f.Data)
		fmt.Fprintf(bw, "file %s %d sha256=%s\n", f.Name, len(f.Data), hex.EncodeToString(sum[:]))
		bw.Write(f.Data)
	}
	bw.WriteString("end\n")
	return bw.Flush()
}

// Parse reads a bundle written by Write and checks its frame: the format
// version, the set's name, every file's name (ID.txt, nothing that leaves
// the set's folder), size and SHA-256, and that the bundle ends where its
// header says. It does not interpret the files (Verify does). Errors name
// the bundle and the line.
func Parse(r io.Reader, name string) (*Bundle, error) {
	br := &bundleReader{r: bufio.NewReader(r), name: name}
	set, n, err := br.header()
	if err != nil {
		return nil, err
	}
	b := &Bundle{Set: set}
	seen := map[string]bool{}
	for range n {
		f, err := br.file(seen, n)
		if err != nil {
			return nil, err
		}
		b.Files = append(b.Files, f)
	}
	end, err := br.next()
	if err != nil {
		return nil, err
	}
	if end != "end" {
		return nil, br.at("want \"end\" after the %d files the header announces, got %q", n, end)
	}
	if extra, _ := br.r.Peek(1); len(extra) > 0 {
		br.line++
		return nil, br.at("more after the \"end\" line: not one bundle")
	}
	sort.Slice(b.Files, func(i, j int) bool { return b.Files[i].Name < b.Files[j].Name })
	return b, nil
}

// bundleReader reads a bundle's lines and files, counting lines for its
// errors.
type bundleReader struct {
	r    *bufio.Reader
	name string
	line int
}

func (br *bundleReader) at(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", br.name, br.line, fmt.Sprintf(format, args...))
}

// next reads the next header line, without its newline.
func (br *bundleReader) next() (string, error) {
	br.line++
	s, err := br.r.ReadString('\n')
	if err == io.EOF {
		if s == "" {
			return "", br.at("the bundle ends here, before its \"end\" line (cut short?)")
		}
		return "", br.at("the bundle is cut short inside this line")
	}
	if err != nil {
		return "", br.at("%v", err)
	}
	if len(s) > 4096 {
		return "", br.at("a header line of %d bytes: not a bundle", len(s))
	}
	return strings.TrimSuffix(s, "\n"), nil
}

// header reads the first line: the set's name and how many files follow.
func (br *bundleReader) header() (set string, n int, err error) {
	head, err := br.next()
	if err != nil {
		return "", 0, err
	}
	fields := strings.Fields(head)
	if len(fields) == 0 || fields[0] != magic {
		return "", 0, br.at("not a measuredbook bundle (it should start with %q; write one with: go run . bundle > FILE)", magic)
	}
	if v := field(fields, 1); v != Version {
		return "", 0, br.at("bundle format %s is not one this checkout reads (it reads %s)", cmp.Or(v, "none"), Version)
	}
	set, ok1 := strings.CutPrefix(field(fields, 2), "set=")
	count, ok2 := strings.CutPrefix(field(fields, 3), "files=")
	if !ok1 || !ok2 || len(fields) != 4 {
		return "", 0, br.at("header should be %q, got %q", magic+" "+Version+" set=NAME files=N", head)
	}
	if err := store.CheckName("set name", set); err != nil {
		return "", 0, br.at("%v", err)
	}
	n, err = strconv.Atoi(count)
	if err != nil || n < 1 || n > MaxFiles {
		return "", 0, br.at("files=%s: want a number of files from 1 to %d", count, MaxFiles)
	}
	return set, n, nil
}

// file reads one file's line and its bytes, checked against the line's
// size and SHA-256, and adds its name to seen, the files before it of the
// n announced.
func (br *bundleReader) file(seen map[string]bool, n int) (File, error) {
	fl, err := br.next()
	if err != nil {
		return File{}, err
	}
	f := strings.Fields(fl)
	if len(f) != 4 || f[0] != "file" || !strings.HasPrefix(f[3], "sha256=") {
		if fl == "end" {
			return File{}, br.at("\"end\" after %d of the %d files the header announces", len(seen), n)
		}
		return File{}, br.at("want a file line (file NAME SIZE sha256=HEX), got %q", fl)
	}
	fname := f[1]
	id, ok := strings.CutSuffix(fname, ".txt")
	if !ok {
		return File{}, br.at("file %q: a results file is named ID.txt", fname)
	}
	if err := store.CheckName("experiment id", id); err != nil {
		return File{}, br.at("file %q: %v", fname, err)
	}
	if seen[fname] {
		return File{}, br.at("file %q is in the bundle twice", fname)
	}
	seen[fname] = true
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 || size > store.MaxFile {
		return File{}, br.at("file %s: size %q is not a number of bytes up to %d", fname, f[2], store.MaxFile)
	}
	want, err := hex.DecodeString(strings.TrimPrefix(f[3], "sha256="))
	if err != nil || len(want) != sha256.Size {
		return File{}, br.at("file %s: %q is not a SHA-256 in hex", fname, f[3])
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(br.r, data); err != nil {
		return File{}, br.at("file %s: the bundle ends inside it (%d bytes announced)", fname, size)
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], want) {
		return File{}, br.at("file %s: its bytes do not match its SHA-256 (%x, the bundle says %x): changed after bundling", fname, sum[:6], want[:6])
	}
	br.line += bytes.Count(data, []byte("\n"))
	return File{Name: fname, Data: data}, nil
}

func field(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}
