package rendercache

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A pack is one file of entries, packs/NAME.pack: a zip archive, each
// entry stored (not compressed) under its key in hex, with the time it was
// made or used as its modification time. A reader reads the archive's
// directory, and an entry's payload only when it is asked for; a payload
// whose CRC does not match is not used.
const (
	packsDir = "packs"
	packExt  = ".pack"
	// maxPacks is how many packs may pile up (one per build that made a
	// new entry) before Flush merges them.
	maxPacks = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is an entry about to be written into a pack: its payload, or
// where to read it from when it is written (from).
type record struct {
	key     Key
	payload []byte
	from    *loc
	stamp   int64
}

// loc is where an entry is: in a pack file at off, or in memory (data,
// when this process Put it and has not read it back from a pack).
type loc struct {
	pack   string
	off, n int64
	crc    uint32
	stamp  int64
	data   []byte
}

// read returns the entry's payload, checked.
func (l loc) read() ([]byte, bool) {
	if l.pack == "" {
		return l.data, true
	}
	f, err := os.Open(l.pack)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	payload := make([]byte, l.n)
	if _, err := f.ReadAt(payload, l.off); err != nil || crc32.ChecksumIEEE(payload) != l.crc {
		return nil, false
	}
	return payload, true
}

// listPacks returns the packs in dir, oldest name first.
func listPacks(dir string) []string {
	// Read, not globbed: the cache's folder is a path, whatever its name.
	entries, _ := os.ReadDir(filepath.Join(dir, packsDir))
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), packExt) {
			names = append(names, filepath.Join(dir, packsDir, e.Name()))
		}
	}
	return names
}

// indexOf reads the indexes of packs. A damaged pack is left out (and
// removed); of two entries of one key, the one used last wins.
func indexOf(packs []string) map[Key]loc {
	index := map[Key]loc{}
	for _, p := range packs {
		locs, err := readPackIndex(p)
		if errors.Is(err, errDamaged) {
			os.Remove(p)
			continue
		}
		for k, l := range locs {
			if old, ok := index[k]; !ok || l.stamp > old.stamp {
				index[k] = l
			}
		}
	}
	return index
}

var errDamaged = errors.New("not a pack this program wrote, or damaged")

// readPackIndex reads the index of the pack at path.
func readPackIndex(path string) (map[Key]loc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errDamaged
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return nil, errDamaged
	}
	locs := make(map[Key]loc, len(zr.File))
	for _, zf := range zr.File {
		var k Key
		if len(zf.Name) != 2*len(k) || zf.Method != zip.Store {
			return nil, errDamaged
		}
		_, herr := hex.Decode(k[:], []byte(zf.Name))
		off, err := zf.DataOffset()
		if herr != nil || err != nil {
			return nil, errDamaged
		}
		locs[k] = loc{pack: path, off: off, n: int64(zf.CompressedSize64), crc: zf.CRC32, stamp: zf.Modified.Unix()}
	}
	return locs, nil
}

// writePack writes records as a new pack in dir and returns its path. Of
// two records of one key, the later is kept. The pack is written as it
// is made, not made in memory first: a first build of a large book puts
// tens of megabytes at a time.
func writePack(dir string, records []record) (string, error) {
	seen := map[Key]int{}
	var kept []record
	for _, r := range records {
		if i, ok := seen[r.key]; ok {
			kept[i] = r
			continue
		}
		seen[r.key] = len(kept)
		kept = append(kept, r)
	}
	// Named by the time first, so that listPacks sorts them oldest first.
	name := fmt.Sprintf("%016x-%d", time.Now().UnixNano(), os.Getpid())
	path := filepath.Join(dir, packsDir, name+packExt)
	return path, writeFileWith(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		zw := zip.NewWriter(bw)
		for _, r := range kept {
			if r.from != nil {
				var ok bool
				if r.payload, ok = r.from.read(); !ok {
					continue // damaged: dropped, as a reader would
				}
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: r.key.String(), Method: zip.Store, Modified: time.Unix(r.stamp, 0)})
			if err != nil {
				return err
			}
			if _, err := w.Write(r.payload); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// compact merges packs into one, keeping each key's last-used entry and
// dropping those unused for maxAge. Entries another process adds to a
// pack of its own meanwhile are not touched: only the packs listed are
// removed, once the merged one is in place.
func (c *Cache) compact(packs []string, now time.Time) error {
	index := indexOf(packs)
	n := len(index)
	maps.DeleteFunc(index, func(_ Key, l loc) bool { return now.Sub(time.Unix(l.stamp, 0)) > maxAge })
	// One pack with nothing to drop (a first build's) would be copied
	// into the same entries.
	if len(packs) == 1 && len(index) == n {
		return nil
	}
	// Each payload is read as it is written: a 10,000-chapter book's
	// entries, read all at once, took 500 MB.
	var records []record
	for k, l := range index {
		records = append(records, record{key: k, from: &l, stamp: l.stamp})
	}
	// In key order, so that one set of entries makes one pack.
	slices.SortFunc(records, func(a, b record) int { return bytes.Compare(a.key[:], b.key[:]) })
	if len(records) > 0 {
		if _, err := writePack(c.dir, records); err != nil {
			return err
		}
	}
	var errs []error
	for _, p := range packs {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// readFile reads a regular file whole, in as few system calls as it can
// (a build reads thousands of them).
func readFile(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	return data, true
}

// writeFile writes data to path (its folder made if need be) through a
// file beside it, renamed into place.
func writeFile(path string, data []byte, perm os.FileMode) error {
	return writeFileWith(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileWith is writeFile of what write writes.
func writeFileWith(path string, perm os.FileMode, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+"*")
	if err != nil {
		return err
	}
	err = write(f)
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

// tmpPrefix starts the files being written, which Trim removes when a
// killed process left them.
const tmpPrefix = ".tmp-"

// trimFile records when the cache was last trimmed.
const trimFile = "trim.txt"

// Trim drops the entries and blobs not used for maxAge, and temporary
// files left by a killed build; it does so at most once a day, so calling
// it after every build costs a stat.
func (c *Cache) Trim() error {
	if c == nil {
		return nil
	}
	now := c.now()
	mark := filepath.Join(c.dir, trimFile)
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < 24*time.Hour {
		return nil
	}
	if _, err := os.Stat(c.dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var errs []error
	for _, sub := range []string{packsDir, blobsDir} {
		entries, err := os.ReadDir(filepath.Join(c.dir, sub))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				continue
			}
			age := now.Sub(fi.ModTime())
			tmp := strings.HasPrefix(e.Name(), tmpPrefix)
			if (tmp && age > time.Hour) || (!tmp && sub == blobsDir && age > maxAge) {
				if err := os.Remove(filepath.Join(c.dir, sub, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	}
	if packs := listPacks(c.dir); len(packs) > 0 {
		errs = append(errs, c.compact(packs, now))
	}
	errs = append(errs, writeFile(mark, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o644))
	return errors.Join(errs...)
}
