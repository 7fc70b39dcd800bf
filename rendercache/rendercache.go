// Package rendercache is the build's memory between runs: a folder of
// entries, each found by a key that is a hash of everything that went
// into making it (the program's own build, the chapter's source, the
// results it read, the layouts, the book's settings). An entry is never
// updated: new inputs make a new key, and an entry that no key reaches
// any more is trimmed after a while.
//
// The folder is safe to delete at any time. Every entry carries a
// checksum of its contents (CRC-32C: it is there to catch a file cut
// short by a crash, edited, or damaged on disk, and takes a fraction of
// the time a SHA-256 of a page takes); one that does not match is not
// used and the caller makes it anew.
//
// It is content-addressed in the way of Go's own build cache and of
// ccache: a key names the inputs, the entry holds the output.
package rendercache

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Key names an entry: a SHA-256 of its inputs, made with a Hasher.
type Key [sha256.Size]byte

func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Hasher builds a Key from parts. Each part is written with its length,
// so ("ab", "c") and ("a", "bc") make different keys.
type Hasher struct{ h []byte }

// NewHasher starts a key of the given kind ("chapter", "parse", …), so
// entries of different kinds never share a key.
func NewHasher(kind string) *Hasher {
	h := &Hasher{}
	h.String(kind)
	return h
}

// Bytes adds a part.
func (h *Hasher) Bytes(b []byte) *Hasher {
	h.h = binary.AppendUvarint(h.h, uint64(len(b)))
	h.h = append(h.h, b...)
	// Long parts are folded in as their own hash, so the buffer stays small.
	if len(h.h) > 64<<10 {
		sum := sha256.Sum256(h.h)
		h.h = append(h.h[:0], sum[:]...)
	}
	return h
}

// String adds a part.
func (h *Hasher) String(s string) *Hasher { return h.Bytes([]byte(s)) }

// Key is the key of the parts added so far.
func (h *Hasher) Key() Key { return sha256.Sum256(h.h) }

// Cache is a folder of entries. A nil *Cache is a cache that never has
// anything and keeps nothing (--no-cache).
type Cache struct {
	dir string
	now func() time.Time
	mem *memo // nil unless Remember(dir)
}

// Open returns the cache in dir, creating the folder when it is first
// written to.
func Open(dir string) *Cache {
	memos.Lock()
	defer memos.Unlock()
	return &Cache{dir: dir, now: time.Now, mem: memos.m[dir]}
}

// memos are the caches a process keeps in memory, by folder (Remember).
var memos = struct {
	sync.Mutex
	m map[string]*memo
}{m: map[string]*memo{}}

// Remember makes every Cache opened on dir from now on, in this process,
// keep what it reads and writes in memory too, up to limit bytes (then it
// starts again from nothing). For a process that builds again and again
// (serve): a rebuild after one save then reads no unchanged page from
// disk. A one-off build does not call it: it would hold the whole site.
// Entries are immutable, and blobs are named by their contents, so what
// is kept is never out of date; its bytes are shared, never modified.
func Remember(dir string, limit int) {
	memos.Lock()
	defer memos.Unlock()
	if memos.m[dir] == nil {
		memos.m[dir] = &memo{limit: limit, data: map[memoKey][]byte{}}
	}
}

type memoKey struct {
	blob bool
	k    Key
}

type memo struct {
	mu    sync.Mutex
	limit int
	size  int
	data  map[memoKey][]byte
}

func (m *memo) get(k memoKey) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.data[k]
	return v, ok
}

func (m *memo) put(k memoKey, v []byte) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.data[k]; ok {
		m.size -= len(old)
	}
	if m.size+len(v) > m.limit {
		clear(m.data)
		m.size = 0
	}
	m.data[k] = v
	m.size += len(v)
}

// Dir is the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// magic starts every entry; a new format gets a new magic, and entries
// of an older one are then simply not found valid.
const magic = "measuredbook-cache 1\n"

// An entry is magic, the CRC-32C of its payload, and the payload.
const header = len(magic) + 4

// Entries are refreshed (their modification time set to now) when used
// and older than refresh, and removed by Trim when unused for maxAge.
const (
	refresh = time.Hour
	maxAge  = 5 * 24 * time.Hour
)

func (c *Cache) path(k Key) string {
	s := k.String()
	return filepath.Join(c.dir, s[:2], s[2:])
}

// Get returns the entry of key k, and false when there is none or it is
// damaged (a damaged entry is removed).
func (c *Cache) Get(k Key) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	if payload, ok := c.mem.get(memoKey{false, k}); ok {
		return payload, true
	}
	path := c.path(k)
	data, fi, ok := readFile(path)
	if !ok || len(data) < header {
		return nil, false
	}
	payload, ok := check(data)
	if !ok {
		os.Remove(path)
		return nil, false
	}
	if now := c.now(); now.Sub(fi.ModTime()) > refresh {
		os.Chtimes(path, now, now)
	}
	c.mem.put(memoKey{false, k}, payload)
	return payload, true
}

// check returns an entry's payload if its magic and checksum are right.
func check(data []byte) ([]byte, bool) {
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, false
	}
	payload := data[header:]
	return payload, binary.LittleEndian.Uint32(data[len(magic):]) == crc32.Checksum(payload, castagnoli)
}

// Put stores data as the entry of key k. It is written beside its place
// and renamed into it, so a reader never sees half an entry, and two
// builds storing the same entry at once both succeed.
func (c *Cache) Put(k Key, data []byte) error {
	if c == nil {
		return nil
	}
	entry := binary.LittleEndian.AppendUint32([]byte(magic), crc32.Checksum(data, castagnoli))
	if err := writeFile(c.path(k), append(entry, data...), 0o644); err != nil {
		return err
	}
	c.mem.put(memoKey{false, k}, data)
	return nil
}

// Blobs are files' exact bytes, each named by the SHA-256 of its
// contents (blobs/ab/cdef…), so that a build can hard-link a page that
// did not change into the site it writes instead of writing it again
// (on a busy disk, creating a file and writing it takes a hundred times
// longer than linking one). A page linked into a site shares its blob's
// file: a blob changed through it no longer matches its checksum, and is
// not used again.

// Blob names a blob: the SHA-256 of its contents and their CRC-32C, which
// Place checks (reading a page back costs little, hashing it again far
// more, and a CRC catches what a crash, an editor or a disk does to it).
type Blob struct {
	Sum Key
	CRC uint32
}

// BlobSize is the length of a Blob's bytes (AppendTo, BlobFrom).
const BlobSize = sha256.Size + 4

// AppendTo appends b's bytes to dst.
func (b Blob) AppendTo(dst []byte) []byte {
	return binary.LittleEndian.AppendUint32(append(dst, b.Sum[:]...), b.CRC)
}

// BlobFrom reads a Blob from its bytes.
func BlobFrom(data []byte) (Blob, bool) {
	if len(data) != BlobSize {
		return Blob{}, false
	}
	return Blob{Sum: Key(data[:sha256.Size]), CRC: binary.LittleEndian.Uint32(data[sha256.Size:])}, true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (c *Cache) blobPath(b Blob) string {
	s := b.Sum.String()
	return filepath.Join(c.dir, "blobs", s[:2], s[2:])
}

// PutBlob stores data as a blob and returns its name.
func (c *Cache) PutBlob(data []byte) (Blob, error) {
	b := Blob{Sum: sha256.Sum256(data), CRC: crc32.Checksum(data, castagnoli)}
	if _, ok := c.mem.get(memoKey{true, b.Sum}); ok {
		return b, nil
	}
	path := c.blobPath(b)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		c.mem.put(memoKey{true, b.Sum}, data)
		return b, nil
	}
	if err := writeFile(path, data, 0o644); err != nil {
		return b, err
	}
	c.mem.put(memoKey{true, b.Sum}, data)
	return b, nil
}

// ReadBlob returns the bytes of the blob b, and false when there is no
// such blob or its contents do not match its checksum (that blob is
// removed).
func (c *Cache) ReadBlob(b Blob) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	if data, ok := c.mem.get(memoKey{true, b.Sum}); ok {
		return data, true
	}
	data, _, ok := c.blob(b)
	if ok {
		c.mem.put(memoKey{true, b.Sum}, data)
	}
	return data, ok
}

// blob reads and checks the blob b.
func (c *Cache) blob(b Blob) ([]byte, os.FileInfo, bool) {
	path := c.blobPath(b)
	data, fi, ok := readFile(path)
	if !ok {
		return nil, nil, false
	}
	if crc32.Checksum(data, castagnoli) != b.CRC {
		os.Remove(path)
		return nil, nil, false
	}
	return data, fi, true
}

// Place makes dst a file holding the blob b: a hard link to it, or a copy
// where the file system cannot link. It returns false, writing nothing,
// when there is no such blob or its contents do not match its checksum
// (that blob is removed).
func (c *Cache) Place(b Blob, dst string) (bool, error) {
	if c == nil {
		return false, nil
	}
	data, fi, ok := c.blob(b)
	if !ok {
		return false, nil
	}
	path := c.blobPath(b)
	if now := c.now(); now.Sub(fi.ModTime()) > refresh {
		os.Chtimes(path, now, now)
	}
	if os.Link(path, dst) == nil {
		return true, nil
	}
	return true, os.WriteFile(dst, data, 0o644)
}

// readFile reads a regular file whole, in as few system calls as it can
// (a build reads thousands of them).
func readFile(path string) ([]byte, os.FileInfo, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, false
	}
	return data, fi, true
}

// writeFile writes data to path (its folder made if need be) through a
// file beside it, renamed into place.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// trimFile records when the cache was last trimmed.
const trimFile = "trim.txt"

// Trim removes the entries not used for maxAge, and temporary files
// left by a killed build; it does so at most once a day, so calling it
// after every build costs a stat.
func (c *Cache) Trim() error {
	if c == nil {
		return nil
	}
	now := c.now()
	mark := filepath.Join(c.dir, trimFile)
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < 24*time.Hour {
		return nil
	}
	var errs []error
	dirs, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var subs []string
	for _, d := range dirs {
		if d.IsDir() && len(d.Name()) == 2 {
			subs = append(subs, filepath.Join(c.dir, d.Name()))
		}
	}
	blobs, _ := os.ReadDir(filepath.Join(c.dir, "blobs"))
	for _, d := range blobs {
		if d.IsDir() && len(d.Name()) == 2 {
			subs = append(subs, filepath.Join(c.dir, "blobs", d.Name()))
		}
	}
	for _, sub := range subs {
		entries, err := os.ReadDir(sub)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				continue
			}
			age := now.Sub(fi.ModTime())
			if age > maxAge || (strings.HasPrefix(e.Name(), ".tmp-") && age > time.Hour) {
				if err := os.Remove(filepath.Join(sub, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	}
	errs = append(errs, os.WriteFile(mark, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o644))
	return errors.Join(errs...)
}

// ProgramID identifies the code of the running program, for keys: the Go
// build ID of its executable, which changes with any change to what was
// linked into it (the layouts and probe sources embedded in it included),
// or, where no build ID can be read, the SHA-256 of the executable.
func ProgramID() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if id := buildID(exe); id != "" {
		return "go:" + id, nil
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// buildID reads the Go build ID the linker wrote into exe, as
// `go tool buildid` does: an ELF note on Linux and the BSDs, and a string
// at the start of the text everywhere else. "" when there is none.
func buildID(exe string) string {
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		s := f.Section(".note.go.buildid")
		if s == nil {
			return ""
		}
		note, err := s.Data()
		// namesz, descsz, type, the name "Go\x00\x00", the ID.
		if err != nil || len(note) < 16 || string(note[12:16]) != "Go\x00\x00" {
			return ""
		}
		n := f.ByteOrder.Uint32(note[4:8])
		if int64(n) > int64(len(note)-16) {
			return ""
		}
		return string(note[16 : 16+n])
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	const prefix, suffix = "\xff Go build ID: \"", "\"\n \xff"
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(prefix):]
	j := bytes.Index(rest, []byte(suffix))
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
