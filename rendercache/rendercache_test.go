package rendercache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGetPut(t *testing.T) {
	c := Open(filepath.Join(t.TempDir(), "cache"))
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
}

// A damaged entry (cut short, a byte changed, another format) is not
// used, and is removed.
func TestDamagedEntries(t *testing.T) {
	c := Open(t.TempDir())
	for name, damage := range map[string]func([]byte) []byte{
		"cut":     func(b []byte) []byte { return b[:len(b)-1] },
		"flipped": func(b []byte) []byte { b[len(b)-1] ^= 0x20; return b },
		"format":  func(b []byte) []byte { b[len(magic)-2]++; return b },
		"empty":   func([]byte) []byte { return nil },
	} {
		k := NewHasher("test").String(name).Key()
		if err := c.Put(k, []byte("<p>a page</p>")); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(c.path(k))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(c.path(k), damage(data), 0o644)
		if got, ok := c.Get(k); ok {
			t.Errorf("%s: the damaged entry was used: %q", name, got)
		}
		if _, err := os.Stat(c.path(k)); name != "empty" && err == nil {
			t.Errorf("%s: the damaged entry was kept", name)
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

// Trim removes what has not been used for maxAge and keeps the rest; a
// used entry is refreshed.
func TestTrim(t *testing.T) {
	c := Open(t.TempDir())
	now := time.Now()
	c.now = func() time.Time { return now }
	old, used, fresh := NewHasher("t").String("old").Key(), NewHasher("t").String("used").Key(), NewHasher("t").String("fresh").Key()
	for _, k := range []Key{old, used, fresh} {
		c.Put(k, []byte("x"))
	}
	long := now.Add(-maxAge - time.Hour)
	os.Chtimes(c.path(old), long, long)
	os.Chtimes(c.path(used), long, long)
	if _, ok := c.Get(used); !ok {
		t.Fatal("lost an entry")
	}
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.path(old)); err == nil {
		t.Error("an entry unused for long was kept")
	}
	for _, k := range []Key{used, fresh} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%v was trimmed", k)
		}
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
