package book

import (
	"crypto/sha256"
	"os"
	"sync"
	"time"

	"measuredbook/dataset"
	"measuredbook/probe"
)

// Sources remembers, for a process that loads the book again and again
// (serve), each chapter and result file's size, modification time and
// SHA-256, and a result's parse: a rebuild after one save then reads and
// hashes that file alone, takes the other chapters' parse from the render
// cache by their remembered hash, and parses no result again. A file
// modified within racy of when it was read is read again each time (as
// git treats a racily clean index entry): a coarse clock could give an
// edit of the same size the same time. The zero value is ready; a nil
// *Sources remembers nothing.
type Sources struct {
	mu    sync.Mutex
	files map[string]sourceFile
}

type sourceFile struct {
	size   int64
	mtime  time.Time
	sum    [sha256.Size]byte
	result *dataset.Result // a result file's parse; nil for a chapter
}

const racy = 2 * time.Second

// LoadCached is Load with the render cache in cacheDir, which Render then
// uses too; a cache that cannot be opened is done without. s remembers
// the files' hashes.
func (s *Sources) LoadCached(dir string, probes []probe.Probe, cacheDir string) (*Book, error) {
	if cacheDir == "" {
		return Load(dir, probes)
	}
	rc, _ := openRenderCache(cacheDir, probes) // nil when it cannot be opened
	return load(dir, probes, rc, s)
}

// NewResults is the package's NewResults, remembering the files' parses.
func (s *Sources) NewResults(dir, machineName string, probes []probe.Probe) *Results {
	r := NewResults(dir, machineName, probes)
	r.sources = s
	return r
}

// lookup returns what is remembered of the file at path, if its size and
// modification time are those it had when it was read.
func (s *Sources) lookup(path string) (sourceFile, bool) {
	if s == nil {
		return sourceFile{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return sourceFile{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	return f, ok && f.size == fi.Size() && f.mtime.Equal(fi.ModTime())
}

// stat is the file at path as remember wants it, taken before reading
// it: a change made meanwhile is seen next time. nil without a memory.
func (s *Sources) stat(path string) os.FileInfo {
	if s == nil {
		return nil
	}
	fi, _ := os.Stat(path)
	return fi
}

// remember keeps f for the file at path as fi described it before it was
// read.
func (s *Sources) remember(path string, fi os.FileInfo, f sourceFile) {
	if s == nil || fi == nil || time.Since(fi.ModTime()) < racy {
		return
	}
	f.size, f.mtime = fi.Size(), fi.ModTime()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]sourceFile{}
	}
	s.files[path] = f
}
