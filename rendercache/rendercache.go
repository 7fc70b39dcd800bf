// Package rendercache is the build's memory between runs: a folder of
// entries, each found by a key that is a hash of everything that went
// into making it (the program's own build, the chapter's source, the
// results it read, the layouts, the book's settings). An entry is never
// updated: new inputs make a new key, and an entry that no key reaches
// any more is trimmed after a while.
//
// The folder is safe to delete at any time. Every entry carries a
// checksum of its contents; one that does not match (cut short by a
// crash, edited, a disk error) is not used and the caller makes it anew.
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
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
}

// Open returns the cache in dir, creating the folder when it is first
// written to.
func Open(dir string) *Cache { return &Cache{dir: dir, now: time.Now} }

// Dir is the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// magic starts every entry; a new format gets a new magic, and entries
// of an older one are then simply not found valid.
const magic = "measuredbook-cache 1\n"

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
	path := c.path(k)
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < int64(len(magic)+sha256.Size) {
		return nil, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
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
	return payload, true
}

// check returns an entry's payload if its magic and checksum are right.
func check(data []byte) ([]byte, bool) {
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, false
	}
	sum, payload := data[len(magic):len(magic)+sha256.Size], data[len(magic)+sha256.Size:]
	got := sha256.Sum256(payload)
	return payload, bytes.Equal(sum, got[:])
}

// Put stores data as the entry of key k. It is written beside its place
// and renamed into it, so a reader never sees half an entry, and two
// builds storing the same entry at once both succeed.
func (c *Cache) Put(k Key, data []byte) error {
	if c == nil {
		return nil
	}
	path := c.path(k)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	_, err = f.Write(append(append([]byte(magic), sum[:]...), data...))
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
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		sub := filepath.Join(c.dir, d.Name())
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
