package book

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"measuredbook/rendercache"
	"measuredbook/store"
)

// Manifest is the file that marks a folder as a site this tool wrote. It
// lists the site's files, so a build replaces a folder only when it holds
// nothing but what an earlier build put there.
const Manifest = ".measuredbook-site"

const manifestHead = "measuredbook site: written by `go run . build`; the next build replaces this folder\n"

// UsageError is a request refused before anything is touched: a mistake
// in the command line, a result set that does not exist, an output folder
// that is not ours. The command line reports it with exit code 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// CheckOut says whether dir may be replaced by a site: it is absent, an
// empty folder, or a folder holding exactly a site this tool wrote (its
// manifest, and no file the manifest does not list). Anything else (a
// file, a symlink, the chapters, a folder of someone's files) is refused.
func CheckOut(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	refuse := func(what string) error {
		return &UsageError{fmt.Sprintf("--out %s: %s; a build only replaces an empty folder or a site it wrote (marked by %s). Choose another --out, or move it away yourself", dir, what, Manifest)}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return refuse("is a symbolic link")
	case !fi.IsDir():
		return refuse("is a file, not a folder")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	listed, err := readManifest(filepath.Join(dir, Manifest))
	if errors.Is(err, fs.ErrNotExist) {
		what := fmt.Sprintf("holds %d entries and no %s", len(entries), Manifest)
		if oldSite(entries) {
			what += " (it looks like a site built before builds marked their output: if it is, remove it and build again)"
		}
		return refuse(what)
	}
	if err != nil {
		return refuse(err.Error())
	}
	foreign, err := unlisted(dir, "", entries, listed)
	if err != nil {
		return refuse(err.Error())
	}
	// The old site is removed once the new one is in place: a folder of it
	// that cannot be emptied would be left behind, each build another.
	for _, sub := range []string{".", "data"} {
		if path := filepath.Join(dir, sub); listed[sub] || sub == "." {
			if err := unix.Access(path, unix.W_OK); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return &UsageError{fmt.Sprintf("--out %s: %s is read-only (%v), so the site it holds could not be removed once replaced; make it writable (chmod -R u+w %s) or choose another --out", dir, path, err, dir)}
			}
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		return refuse("holds files no build wrote: " + strings.Join(foreign, ", "))
	}
	return nil
}

// unlisted names the entries of dir/sub the manifest does not list,
// looking into the site's own folders (data/), where a file someone added
// would be lost as surely as one beside index.html.
func unlisted(dir, sub string, entries []fs.DirEntry, listed map[string]bool) ([]string, error) {
	var foreign []string
	for _, e := range entries {
		name := path.Join(sub, e.Name())
		switch {
		case name == Manifest:
		case !listed[name]:
			foreign = append(foreign, name)
		case sub == "" && e.IsDir():
			inner, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return nil, err
			}
			more, err := unlisted(dir, name, inner, listed)
			if err != nil {
				return nil, err
			}
			foreign = append(foreign, more...)
		}
	}
	return foreign, nil
}

// oldSite reports whether entries look like a site of this tool written
// before the manifest existed: index.html, style.css and pages, nothing
// else. Only then does the refusal suggest removing the folder.
func oldSite(entries []fs.DirEntry) bool {
	has := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !(strings.HasSuffix(e.Name(), ".html") || e.Name() == "style.css") {
			return false
		}
		has[e.Name()] = true
	}
	return has["index.html"] && has["style.css"]
}

func readManifest(path string) (map[string]bool, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, fmt.Errorf("%s is not a manifest this tool wrote", Manifest)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	names, ok := strings.CutPrefix(string(data), manifestHead)
	if !ok {
		return nil, fmt.Errorf("%s does not start with this tool's mark", Manifest)
	}
	listed := map[string]bool{}
	for name := range strings.SplitSeq(names, "\n") {
		if name != "" {
			listed[name] = true
			if dir, _, ok := strings.Cut(name, "/"); ok {
				listed[dir] = true // a folder of the site's (data/)
			}
		}
	}
	return listed, nil
}

// stagedSite is a site being written: its files go into a folder beside
// dir as they are made, and commit renames that folder into place, so a
// reader (or a failed or interrupted build) never sees half a site and a
// build never holds the whole site in memory.
type stagedSite struct {
	dir, tmp string
	mu       sync.Mutex
	names    map[string]bool // written so far, for the manifest
	dirs     map[string]bool // folders made so far
	creating sync.Mutex      // held while a file is created (see create)
}

// stageSite starts a site that will replace dir. dir must pass CheckOut;
// it is checked again by commit, just before it is replaced.
func stageSite(dir string) (*stagedSite, error) {
	if err := CheckOut(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, tempSite)
	if err != nil {
		return nil, err
	}
	return &stagedSite{dir: dir, tmp: tmp, names: map[string]bool{}, dirs: map[string]bool{}}, nil
}

// put writes one file of the site. It may be called from several
// goroutines at once; a name written twice keeps the last bytes.
func (s *stagedSite) put(name string, data []byte) error {
	_, err := s.create(name, data)
	return err
}

// create writes the new file name and returns its path. Files are created
// one at a time: two threads creating files in one folder contend for its
// lock in the kernel, which spins for it, and where creating a file is
// slow (ext4 without a journal soon after files were deleted) the spinning
// was a tenth of a build's CPU. The bytes are written outside the lock.
func (s *stagedSite) create(name string, data []byte) (string, error) {
	path, err := s.path(name)
	if err != nil {
		return "", err
	}
	s.creating.Lock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	s.creating.Unlock()
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// keep writes one file of the site and keeps it in the render cache as a
// blob: the same file, linked.
func (s *stagedSite) keep(name string, data []byte, c *rendercache.Cache) (rendercache.Blob, error) {
	path, err := s.create(name, data)
	if err != nil {
		return rendercache.Blob{}, err
	}
	b, err := c.LinkBlob(path, data)
	if err != nil {
		err = cacheError{err}
	}
	return b, err
}

// place makes a file of the site the render cache's blob (see
// rendercache.Cache.Place).
func (s *stagedSite) place(name string, c *rendercache.Cache, blob rendercache.Blob) (bool, error) {
	path, err := s.path(name)
	if err != nil {
		return false, err
	}
	return c.Place(blob, path)
}

// path is where the file name of the site is staged, its folder made. A
// name staged before is removed first: it may be a blob of the render
// cache, linked, which writing through it would change.
func (s *stagedSite) path(name string) (string, error) {
	if name == Manifest || !sitePath(name) {
		return "", fmt.Errorf("page name %q cannot be written into the site", name)
	}
	sub := filepath.Dir(filepath.FromSlash(name))
	path := filepath.Join(s.tmp, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names[name] {
		os.Remove(path)
	}
	s.names[name] = true
	if sub != "." && !s.dirs[sub] {
		// Under the lock: another file of the folder waits until it is made.
		if err := os.MkdirAll(filepath.Join(s.tmp, sub), 0o755); err != nil {
			return "", err
		}
		s.dirs[sub] = true
	}
	return path, nil
}

// commit writes the manifest and renames the site into place.
func (s *stagedSite) commit(ctx context.Context) error {
	names := slices.Sorted(maps.Keys(s.names))
	if err := os.WriteFile(filepath.Join(s.tmp, Manifest), []byte(manifestHead+strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Chmod(s.tmp, 0o755); err != nil {
		return err
	}
	// The last moment an interrupt leaves the old site exactly as it was.
	if err := context.Cause(ctx); err != nil {
		return err
	}
	if err := CheckOut(s.dir); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(s.dir); err == nil {
		old = s.tmp + "-old"
		if err := os.Rename(s.dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(s.tmp, s.dir); err != nil {
		if old != "" {
			os.Rename(old, s.dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// discard removes what is left of the staging folder: all of it when the
// site was not committed, nothing when it was.
func (s *stagedSite) discard() { os.RemoveAll(s.tmp) }

// sitePath reports whether name may be a file of the site: a clean,
// slash-separated path inside it ("data/ID.csv", or a chapter's image
// "img/plot.png").
func sitePath(name string) bool {
	return name != "" && path.Clean(name) == name && filepath.IsLocal(filepath.FromSlash(name))
}

// tempSite prefixes the folders a build stages its site in, beside the output.
const tempSite = ".out-new-"

// removeLeftovers deletes what a killed build left behind: half-written
// sites beside out/ and half-written result files in results/*/. The caller
// holds the tree's lock, so no other build is writing them.
func removeLeftovers(out, results string) {
	olds, _ := store.Named(filepath.Dir(filepath.Clean(out)), tempSite, "")
	for _, o := range olds {
		os.RemoveAll(o)
	}
	sets, _ := os.ReadDir(results)
	for _, set := range sets {
		tmps, _ := store.Named(filepath.Join(results, set.Name()), ".tmp-", "")
		for _, t := range tmps {
			os.Remove(t)
		}
	}
}
