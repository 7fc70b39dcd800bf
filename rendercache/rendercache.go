// Package rendercache is the build's memory between runs: a folder of
// entries, each found by a key that is a hash of everything that went
// into making it (the program's own build, the chapter's source, the
// results it read, the layouts, the book's settings), and of blobs, the
// exact bytes of the pages those entries name. An entry is never
// updated: new inputs make a new key, and an entry that no key reaches
// any more is trimmed after a while.
//
// The folder is safe to delete at any time. Every entry and blob carries
// a checksum of its contents (CRC-32C: it is there to catch a file cut
// short by a crash, edited, or damaged on disk, and takes a fraction of
// the time a SHA-256 of a page takes); one that does not match is not
// used and the caller makes it anew.
//
// It is content-addressed in the way of Go's own build cache and of
// ccache: a key names the inputs, the entry holds the output. Entries are
// small and many, so a process writes those it made into one pack file
// (as git packs its objects) when it flushes, not one file each:
// creating a file costs far more than writing a few kilobytes more.
package rendercache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"slices"
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
// anything and keeps nothing (--no-cache). Its methods are safe for
// concurrent use.
type Cache struct {
	dir string
	now func() time.Time
	mem *memo // nil unless Remember(dir)

	mu      sync.Mutex
	index   map[Key]loc // the packs' entries, read on the first Get
	pending []record    // entries Put since the last Flush
	held    int         // bytes of pending's payloads
}

// spillAt is how many bytes of entries Put holds before it writes them
// into a pack of their own: a first build of a large book would otherwise
// hold every chapter's entries until its end.
const spillAt = 16 << 20

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
		memos.m[dir] = &memo{limit: limit, data: map[memoKey]memoEntry{}}
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
	data  map[memoKey]memoEntry
}

// memoEntry is an entry's bytes and, once Decoded has been asked for it,
// what they decode to.
type memoEntry struct {
	data    []byte
	decoded any
}

// size is what the entry counts against the memo's limit: its bytes, and
// as much again for what they decoded to (a guess, but one that keeps
// the limit a bound).
func (e memoEntry) size() int {
	if e.decoded != nil {
		return 2 * len(e.data)
	}
	return len(e.data)
}

func (m *memo) get(k memoKey) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.data[k]
	return v.data, ok
}

func (m *memo) put(k memoKey, v []byte) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.data[k]; ok {
		m.size -= old.size()
	}
	if m.size+len(v) > m.limit {
		clear(m.data)
		m.size = 0
	}
	m.data[k] = memoEntry{data: v}
	m.size += len(v)
}

// Decoded returns decode of entry k's bytes, and false when there is no
// such entry or decode refuses it. While the process remembers the
// folder (Remember), each entry is decoded once and what it decoded to
// is kept beside its bytes: a rebuild in serve decodes only the entries
// that changed. The value is shared between calls: never modify it.
func Decoded[T any](c *Cache, k Key, decode func([]byte) (T, bool)) (T, bool) {
	var zero T
	data, ok := c.Get(k)
	if !ok {
		return zero, false
	}
	mk := memoKey{false, k}
	if m := c.mem; m != nil {
		m.mu.Lock()
		e, ok := m.data[mk]
		m.mu.Unlock()
		if v, isT := e.decoded.(T); ok && isT && sameBytes(e.data, data) {
			return v, true
		}
	}
	v, ok := decode(data)
	if !ok {
		return zero, false
	}
	if m := c.mem; m != nil {
		m.mu.Lock()
		// Only if no Put replaced the bytes meanwhile, and within the limit.
		if e, ok := m.data[mk]; ok && e.decoded == nil && sameBytes(e.data, data) && m.size+len(data) <= m.limit {
			m.data[mk] = memoEntry{data: data, decoded: v}
			m.size += len(data)
		}
		m.mu.Unlock()
	}
	return v, true
}

// sameBytes reports whether a and b are the same bytes in memory, not
// only equal ones: the memo's entries are never modified, only replaced.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Entries are refreshed (written again with the time of their use) when
// used and older than refresh, and dropped by Trim when unused for maxAge.
const (
	refresh = 24 * time.Hour
	maxAge  = 5 * 24 * time.Hour
)

// Get returns the entry of key k, and false when there is none or it is
// damaged.
func (c *Cache) Get(k Key) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	if payload, ok := c.mem.get(memoKey{false, k}); ok {
		return payload, true
	}
	c.mu.Lock()
	if c.index == nil {
		c.index = indexOf(listPacks(c.dir))
	}
	l, ok := c.index[k]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	payload, ok := l.read()
	if !ok {
		return nil, false
	}
	if now := c.now(); now.Sub(time.Unix(l.stamp, 0)) > refresh {
		// Written again, with today's time, by the next Flush: Trim then
		// keeps it.
		c.mu.Lock()
		c.pending = append(c.pending, record{key: k, payload: payload, stamp: now.Unix()})
		l.stamp = now.Unix()
		c.index[k] = l
		c.mu.Unlock()
	}
	c.mem.put(memoKey{false, k}, payload)
	return payload, true
}

// Put stores data as the entry of key k: at once for this Cache's Get,
// on disk with the next Flush (or sooner, when many are held).
func (c *Cache) Put(k Key, data []byte) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	c.pending = append(c.pending, record{key: k, payload: data, stamp: c.now().Unix()})
	c.held += len(data)
	if c.index == nil {
		c.index = indexOf(listPacks(c.dir))
	}
	c.index[k] = loc{data: data, crc: crc32.ChecksumIEEE(data), stamp: c.now().Unix()}
	spill := c.held >= spillAt
	c.mu.Unlock()
	c.mem.put(memoKey{false, k}, data)
	if spill {
		return c.writePending()
	}
	return nil
}

// Flush writes the entries Put since the last Flush into a pack of their
// own, so that other processes find them; with too many packs about, it
// merges them into one. A process that never flushes leaves no entry
// behind, and a crash while it flushes leaves no half pack (it is written
// beside its place and renamed into it).
func (c *Cache) Flush() error {
	if c == nil {
		return nil
	}
	if err := c.writePending(); err != nil {
		return err
	}
	if packs := listPacks(c.dir); len(packs) > maxPacks {
		return c.compact(smallPacks(packs), c.now())
	}
	return nil
}

// writePending writes the entries Put so far into a pack, and lets go of
// their bytes: Get reads them from the pack from then on.
func (c *Cache) writePending() error {
	c.mu.Lock()
	pending := c.pending
	c.pending, c.held = nil, 0
	c.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	path, err := writePack(c.dir, pending)
	if err != nil {
		return err
	}
	locs, err := readPackIndex(path)
	if err != nil {
		return nil // the entries stay in memory, as they were
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, l := range locs {
		// An entry Put again meanwhile keeps its newer bytes.
		if old, ok := c.index[k]; ok && old.pack == "" && old.crc == l.crc {
			c.index[k] = l
		}
	}
	return nil
}

// smallPacks are the packs a Flush merges: all but the largest when it
// holds most of the entries (a first build's, which the small packs of
// later edits would otherwise copy again and again), else all of them.
func smallPacks(packs []string) []string {
	largest, total := -1, int64(0)
	var size int64
	for i, p := range packs {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		total += fi.Size()
		if fi.Size() > size {
			largest, size = i, fi.Size()
		}
	}
	if largest < 0 || 2*size < total {
		return packs
	}
	return slices.Delete(slices.Clone(packs), largest, largest+1)
}
