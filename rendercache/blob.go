package rendercache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
)

// Blobs are files' exact bytes, each named by the SHA-256 of its
// contents (blobs/abcdef…), so that a build can hard-link a page that
// did not change into the site it writes instead of writing it again
// (on a busy disk, creating a file and writing it takes a hundred times
// longer than linking one). A page linked into a site shares its blob's
// file: a blob changed through it no longer matches its checksum, and is
// not used again.

// Blob names a blob: the SHA-256 of its contents, their CRC-32C, which
// Place checks (reading a page back costs little, hashing it again far
// more, and a CRC catches what a crash, an editor or a disk does to it),
// and their length.
type Blob struct {
	Sum  Key
	CRC  uint32
	Size int64
}

// BlobSize is the length of a Blob's bytes (AppendTo, BlobFrom).
const BlobSize = sha256.Size + 4 + 8

// AppendTo appends b's bytes to dst.
func (b Blob) AppendTo(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(append(dst, b.Sum[:]...), b.CRC)
	return binary.LittleEndian.AppendUint64(dst, uint64(b.Size))
}

// BlobFrom reads a Blob from its bytes.
func BlobFrom(data []byte) (Blob, bool) {
	if len(data) != BlobSize {
		return Blob{}, false
	}
	return Blob{Sum: Key(data[:sha256.Size]), CRC: binary.LittleEndian.Uint32(data[sha256.Size:]),
		Size: int64(binary.LittleEndian.Uint64(data[sha256.Size+4:]))}, true
}

// blobsDir holds the blobs, in one folder: a folder per two hex digits
// (as git and Go's build cache fan out) costs a mkdir for most of a
// book's first pages, and a few thousand names are nothing to a
// directory index.
const blobsDir = "blobs"

func (c *Cache) blobPath(b Blob) string {
	return filepath.Join(c.dir, blobsDir, b.Sum.String())
}

// blobOf names data as a blob.
func blobOf(data []byte) Blob {
	return Blob{Sum: sha256.Sum256(data), CRC: crc32.Checksum(data, castagnoli), Size: int64(len(data))}
}

// PutBlob stores data as a blob and returns its name.
func (c *Cache) PutBlob(data []byte) (Blob, error) {
	b := blobOf(data)
	if c.hasBlob(b, data) {
		return b, nil
	}
	if err := writeFile(c.blobPath(b), data, 0o644); err != nil {
		return b, err
	}
	c.mem.put(memoKey{true, b.Sum}, data)
	return b, nil
}

// LinkBlob stores data, which the file at path holds, as a blob: a hard
// link to that file, which costs no new file (or a copy where the cache
// is on another file system). The file must not be written to again.
func (c *Cache) LinkBlob(path string, data []byte) (Blob, error) {
	b := blobOf(data)
	if c.hasBlob(b, data) {
		return b, nil
	}
	dst := c.blobPath(b)
	err := os.Link(path, dst)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			err = os.Link(path, dst)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		// A blob of these bytes made meanwhile, or a damaged one, which
		// blob removes.
		if _, ok := c.blob(b); ok {
			err = nil
		} else {
			err = os.Link(path, dst)
		}
	}
	if err != nil {
		err = writeFile(dst, data, 0o644)
	}
	if err == nil {
		c.mem.put(memoKey{true, b.Sum}, data)
	}
	return b, err
}

// hasBlob reports whether the blob b of data is stored already.
func (c *Cache) hasBlob(b Blob, data []byte) bool {
	if _, ok := c.mem.get(memoKey{true, b.Sum}); ok {
		return true
	}
	old, ok := readFile(c.blobPath(b))
	if ok && bytes.Equal(old, data) {
		c.mem.put(memoKey{true, b.Sum}, data)
		return true
	}
	return false
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
	data, ok := c.blob(b)
	if ok {
		c.mem.put(memoKey{true, b.Sum}, data)
	}
	return data, ok
}

// blob reads and checks the blob b.
func (c *Cache) blob(b Blob) ([]byte, bool) {
	path := c.blobPath(b)
	data, ok := readFile(path)
	if !ok {
		return nil, false
	}
	if int64(len(data)) != b.Size || crc32.Checksum(data, castagnoli) != b.CRC {
		os.Remove(path)
		return nil, false
	}
	return data, true
}

// Place makes dst a file holding the blob b: a hard link to it, or a copy
// where the file system cannot link. It returns false, writing nothing,
// when there is no such blob or its contents do not match its checksum
// (that blob is removed).
func (c *Cache) Place(b Blob, dst string) (bool, error) {
	if c == nil {
		return false, nil
	}
	path := c.blobPath(b)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	data, ok := c.blob(b)
	if !ok {
		return false, nil
	}
	if now := c.now(); now.Sub(fi.ModTime()) > refresh {
		// Used today: Trim keeps it.
		os.Chtimes(path, now, now)
	}
	if os.Link(path, dst) == nil {
		return true, nil
	}
	return true, os.WriteFile(dst, data, 0o644)
}
