package rendercache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestGetPut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c := Open(dir)
	k := NewHasher("test").String("a").Key()
	if _, ok := c.Get(k); ok {
		t.Fatal("an empty cache has an entry")
	}
	if err := c.Put(k, []byte("page")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get(k); !ok || string(got) != "page" {
		t.Fatalf("Get = %q, %v", got, ok)
	}
	if _, ok := Open(dir).Get(k); ok {
		t.Error("another process found an entry not flushed")
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, ok := Open(dir).Get(k); !ok || string(got) != "page" {
		t.Fatalf("after Flush, another process's Get = %q, %v", got, ok)
	}
	// Parts are written with their lengths: ("ab", "c") is not ("a", "bc").
	if NewHasher("test").String("ab").String("c").Key() == NewHasher("test").String("a").String("bc").Key() {
		t.Error("two part lists make one key")
	}
	if NewHasher("x").String("a").Key() == NewHasher("y").String("a").Key() {
		t.Error("two kinds make one key")
	}
	var none *Cache
	if err := none.Put(k, []byte("x")); err != nil {
		t.Error(err)
	}
	if _, ok := none.Get(k); ok {
		t.Error("no cache has an entry")
	}
	if err := none.Flush(); err != nil {
		t.Error(err)
	}
}

// A build writes one pack however many entries it made; past maxPacks,
// Flush merges the packs into one that still holds every entry.
func TestPacks(t *testing.T) {
	dir := t.TempDir()
	var keys []Key
	for i := range maxPacks + 1 {
		c := Open(dir)
		for j := range 3 {
			k := NewHasher("test").String(fmt.Sprint(i, j)).Key()
			keys = append(keys, k)
			c.Put(k, []byte(fmt.Sprint("entry ", i, j)))
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := len(listPacks(dir)); i < maxPacks && got != i+1 {
			t.Fatalf("after %d flushes, %d packs", i+1, got)
		}
	}
	if got := len(listPacks(dir)); got != 1 {
		t.Errorf("after %d flushes, %d packs, not one merged", maxPacks+1, got)
	}
	c := Open(dir)
	for i, k := range keys {
		if got, ok := c.Get(k); !ok || string(got) != fmt.Sprint("entry ", i/3, i%3) {
			t.Errorf("entry %d after the merge: %q, %v", i, got, ok)
		}
	}
	if err := c.Flush(); err != nil || len(listPacks(dir)) != 1 {
		t.Errorf("a Flush with nothing new wrote a pack (%v)", err)
	}
	// A pack that holds most of the entries (a first build's) is left as
	// it is while the small ones of later builds are merged.
	c = Open(dir)
	c.Put(NewHasher("test").String("big").Key(), make([]byte, 1<<20))
	c.Flush()
	big := listPacks(dir)         // the merged pack and the big one
	for i := range maxPacks - 1 { // the last makes one too many
		c := Open(dir)
		c.Put(NewHasher("test").String(fmt.Sprint("small ", i)).Key(), []byte("small"))
		c.Flush()
	}
	after := listPacks(dir)
	if len(big) != 2 || len(after) != 2 || !slices.Contains(after, big[1]) {
		t.Errorf("packs %v, after small flushes %v; want the big one and one merged", big, after)
	}
}

// A damaged pack (cut short, a name in its directory changed, an entry's
// header changed, emptied) is not used, and is removed; a payload damaged
// inside a sound pack loses that entry only.
func TestDamagedPacks(t *testing.T) {
	for name, damage := range map[string]func([]byte) []byte{
		"cut": func(b []byte) []byte { return b[:len(b)-1] },
		"index": func(b []byte) []byte {
			// The first name in the central directory, whose offset the
			// directory's end record holds, 16 bytes into it.
			dir := binary.LittleEndian.Uint32(b[len(b)-22+16:])
			b[dir+46] ^= 0x40
			return b
		},
		"format":  func(b []byte) []byte { b[0]++; return b },
		"empty":   func([]byte) []byte { return nil },
		"payload": func(b []byte) []byte { b[bytes.Index(b, []byte("<p>a page</p>"))] ^= 0x20; return b },
	} {
		dir := t.TempDir()
		c := Open(dir)
		k1, k2 := NewHasher("test").String("1").Key(), NewHasher("test").String("2").Key()
		c.Put(k1, []byte("<p>a page</p>"))
		c.Put(k2, []byte("<p>another</p>"))
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		pack := listPacks(dir)[0]
		data, err := os.ReadFile(pack)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(pack, damage(data), 0o644)
		c = Open(dir)
		_, ok1 := c.Get(k1)
		_, ok2 := c.Get(k2)
		if ok1 {
			t.Errorf("%s: the damaged entry was used", name)
		}
		if want := name == "payload"; ok2 != want {
			t.Errorf("%s: the other entry found: %v, want %v", name, ok2, want)
		}
		if _, err := os.Stat(pack); (name == "payload") != (err == nil) {
			t.Errorf("%s: the pack kept: %v", name, err == nil)
		}
	}
}

// A blob is placed as a link (or a copy), readable by all; a damaged one
// is refused and removed, and stored again by the next PutBlob.
func TestBlobs(t *testing.T) {
	c := Open(t.TempDir())
	out := t.TempDir()
	b, err := c.PutBlob([]byte("<p>page</p>"))
	if err != nil {
		t.Fatal(err)
	}
	if raw, ok := BlobFrom(b.AppendTo(nil)); !ok || raw != b {
		t.Errorf("BlobFrom(AppendTo) = %v, %v", raw, ok)
	}
	dst := filepath.Join(out, "a.html")
	if ok, err := c.Place(b, dst); !ok || err != nil {
		t.Fatalf("Place = %v, %v", ok, err)
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("placed page: %v, %v", fi, err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "<p>page</p>" {
		t.Errorf("placed %q", got)
	}
	// Written to through the site (they share a file): no longer the blob.
	os.WriteFile(dst, []byte("<p>edit</p>"), 0o644)
	if ok, _ := c.Place(b, filepath.Join(out, "b.html")); ok {
		t.Error("placed a blob that no longer matches its checksum")
	}
	if _, err := os.Stat(filepath.Join(out, "b.html")); err == nil {
		t.Error("a refused blob was written")
	}
	if _, err := c.PutBlob([]byte("<p>page</p>")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Place(b, filepath.Join(out, "c.html")); !ok {
		t.Error("the blob stored again was not placed")
	}
	if ok, _ := c.Place(Blob{}, filepath.Join(out, "d.html")); ok {
		t.Error("placed a blob never stored")
	}
}

// A blob emptied behind the cache's back, as a crash can leave a new
// file, is refused and removed.
func TestEmptiedBlob(t *testing.T) {
	c := Open(t.TempDir())
	b, err := c.PutBlob([]byte("<p>page</p>"))
	if err != nil {
		t.Fatal(err)
	}
	path := c.blobPath(b)
	os.Truncate(path, 0)
	if ok, _ := c.Place(b, filepath.Join(t.TempDir(), "a.html")); ok {
		t.Error("placed an emptied blob")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("an emptied blob was kept")
	}
}

// LinkBlob keeps a file the site wrote as a blob without writing it
// again: the same file, until the site's is written to.
func TestLinkBlob(t *testing.T) {
	c := Open(filepath.Join(t.TempDir(), "cache"))
	site := filepath.Join(t.TempDir(), "a.html")
	os.WriteFile(site, []byte("<p>page</p>"), 0o644)
	b, err := c.LinkBlob(site, []byte("<p>page</p>"))
	if err != nil {
		t.Fatal(err)
	}
	fa, _ := os.Stat(site)
	fb, err := os.Stat(c.blobPath(b))
	if err != nil || !os.SameFile(fa, fb) {
		t.Errorf("the blob is not the site's file, linked: %v", err)
	}
	if got, ok := c.ReadBlob(b); !ok || string(got) != "<p>page</p>" {
		t.Errorf("ReadBlob = %q, %v", got, ok)
	}
	// The site's file changed, so the blob is damaged: a new page of the
	// old bytes replaces it.
	os.WriteFile(site, []byte("<p>edit</p>"), 0o644)
	again := filepath.Join(filepath.Dir(site), "b.html")
	os.WriteFile(again, []byte("<p>page</p>"), 0o644)
	if _, err := c.LinkBlob(again, []byte("<p>page</p>")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.ReadBlob(b); !ok || string(got) != "<p>page</p>" {
		t.Errorf("after a damaged blob was replaced, ReadBlob = %q, %v", got, ok)
	}
}

// Trim drops what has not been used for maxAge and keeps the rest; a
// used entry or blob is refreshed.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	long := now.Add(-maxAge - time.Hour)
	c := Open(dir)
	c.now = func() time.Time { return long }
	old, used, fresh := NewHasher("t").String("old").Key(), NewHasher("t").String("used").Key(), NewHasher("t").String("fresh").Key()
	c.Put(old, []byte("x"))
	c.Put(used, []byte("y"))
	oldBlob, _ := c.PutBlob([]byte("old page"))
	usedBlob, _ := c.PutBlob([]byte("used page"))
	os.Chtimes(c.blobPath(oldBlob), long, long)
	os.Chtimes(c.blobPath(usedBlob), long, long)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	c = Open(dir)
	c.now = func() time.Time { return now }
	c.Put(fresh, []byte("z"))
	if _, ok := c.Get(used); !ok {
		t.Fatal("lost an entry")
	}
	if ok, _ := c.Place(usedBlob, filepath.Join(t.TempDir(), "page")); !ok {
		t.Fatal("lost a blob")
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	c = Open(dir)
	if _, ok := c.Get(old); ok {
		t.Error("an entry unused for long was kept")
	}
	for _, k := range []Key{used, fresh} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%v was trimmed", k)
		}
	}
	if _, err := os.Stat(c.blobPath(oldBlob)); err == nil {
		t.Error("a blob unused for long was kept")
	}
	if _, ok := c.ReadBlob(usedBlob); !ok {
		t.Error("a used blob was trimmed")
	}
	if got := len(listPacks(dir)); got != 1 {
		t.Errorf("Trim left %d packs, want them merged into one", got)
	}
}

// A first build's one pack holds nothing to drop: Trim leaves it as it
// is, but not a lone pack with an entry unused for long.
func TestTrimOnePack(t *testing.T) {
	dir := t.TempDir()
	c := Open(dir)
	k := NewHasher("t").String("fresh").Key()
	c.Put(k, []byte("z"))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	packs := listPacks(dir)
	before, err := os.Stat(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(packs[0])
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("Trim rewrote the only pack, with nothing to drop (%v)", err)
	}

	dir = t.TempDir()
	c = Open(dir)
	c.now = func() time.Time { return time.Now().Add(-maxAge - time.Hour) }
	c.Put(k, []byte("z"))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	c = Open(dir)
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	if _, ok := Open(dir).Get(k); ok {
		t.Error("the only pack's entry unused for long was kept")
	}
}

func TestProgramID(t *testing.T) {
	a, err := ProgramID()
	if err != nil || len(a) < 10 {
		t.Fatalf("ProgramID = %q, %v", a, err)
	}
	if b, _ := ProgramID(); a != b {
		t.Errorf("ProgramID changed: %q, then %q", a, b)
	}
	// Where the executable is not ELF, the ID is read from the start of
	// its text, as the Go linker writes it there.
	raw := filepath.Join(t.TempDir(), "prog")
	os.WriteFile(raw, []byte("\x00\x01junk\xff Go build ID: \"abc/def\"\n \xff more"), 0o644)
	if id := buildID(raw); id != "abc/def" {
		t.Errorf("buildID of a raw file = %q", id)
	}
}

// A remembered cache answers from memory what it read or wrote before,
// even once the folder is gone; a cache not remembered reads the disk
// each time; past its limit the memory starts again from nothing.
func TestRemember(t *testing.T) {
	kept, plain := t.TempDir(), t.TempDir()
	Remember(kept, 1<<10)
	k := NewHasher("test").String("a").Key()
	for _, dir := range []string{kept, plain} {
		c := Open(dir)
		if err := c.Put(k, []byte("entry")); err != nil {
			t.Fatal(err)
		}
		blob, err := c.PutBlob([]byte("<html>page</html>"))
		if err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(dir)
		c = Open(dir) // as serve's next build does
		_, gotEntry := c.Get(k)
		_, gotBlob := c.ReadBlob(blob)
		if want := dir == kept; gotEntry != want || gotBlob != want {
			t.Errorf("remembered %v: entry found %v, blob found %v after the folder went", want, gotEntry, gotBlob)
		}
	}
	c := Open(kept)
	c.Put(NewHasher("test").String("big").Key(), make([]byte, 2<<10))
	if _, ok := c.Get(k); ok {
		t.Error("past its limit the memory still holds an old entry")
	}
}

// Decoded decodes a remembered entry once, and again once a Put has
// replaced its bytes; an entry not remembered it decodes at every call.
func TestDecoded(t *testing.T) {
	kept, plain := t.TempDir(), t.TempDir()
	Remember(kept, 1<<10)
	k := NewHasher("test").String("a").Key()
	calls := 0
	decode := func(data []byte) (string, bool) {
		calls++
		return string(data), len(data) > 0
	}
	for _, tc := range []struct {
		dir   string
		calls int // after three Decoded, a Put and one more
	}{{kept, 2}, {plain, 4}} {
		calls = 0
		c := Open(tc.dir)
		c.Put(k, []byte("one"))
		for range 3 {
			if v, ok := Decoded(c, k, decode); !ok || v != "one" {
				t.Fatalf("Decoded = %q, %v; want one", v, ok)
			}
		}
		c.Put(k, []byte("two"))
		if v, ok := Decoded(c, k, decode); !ok || v != "two" {
			t.Errorf("after a Put, Decoded = %q, %v; want two", v, ok)
		}
		if calls != tc.calls {
			t.Errorf("remembered %v: decode called %d times, want %d", tc.dir == kept, calls, tc.calls)
		}
	}
	c := Open(plain)
	c.Put(k, nil)
	if _, ok := Decoded(c, k, decode); ok {
		t.Error("an entry decode refuses is found")
	}
	// What an entry decoded to counts against the limit as its bytes
	// again: past it, the entry is decoded at every call.
	small := t.TempDir()
	Remember(small, 1<<10)
	c = Open(small)
	c.Put(k, make([]byte, 600))
	calls = 0
	Decoded(c, k, decode)
	Decoded(c, k, decode)
	if calls != 2 {
		t.Errorf("an entry that would double past the limit: decode called %d times, want 2", calls)
	}
}

// Trim's mark is replaced by a rename, never rewritten in place (where a
// full disk would leave it cut short): a hard link to the old mark keeps
// the old bytes.
func TestTrimMarkIsReplaced(t *testing.T) {
	dir := t.TempDir()
	c := Open(dir)
	c.Put(NewHasher("t").String("k").Key(), []byte("x"))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	mark, link := filepath.Join(dir, trimFile), filepath.Join(t.TempDir(), "link")
	os.WriteFile(mark, []byte("old\n"), 0o644)
	long := time.Now().Add(-48 * time.Hour)
	os.Chtimes(mark, long, long)
	if err := os.Link(mark, link); err != nil {
		t.Fatal(err)
	}
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(link); string(data) != "old\n" {
		t.Errorf("the old mark was written through: %q", data)
	}
	if data, _ := os.ReadFile(mark); string(data) == "old\n" {
		t.Error("Trim did not renew its mark")
	}
}
