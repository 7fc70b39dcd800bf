package book

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"measuredbook/evaluate"
	"measuredbook/parse"
	"measuredbook/probes"
	"measuredbook/rendercache"
	"measuredbook/store"
)

// The render cache never shows in the site: a build from a cold cache,
// from a warm one, after a chapter was edited, after a result changed and
// with every entry damaged writes exactly what a build without a cache
// writes. What did not change is taken from the cache, and only that.
func TestCacheIsInvisible(t *testing.T) {
	const n = 8 // the 4 real chapters, then copies of them
	chapters := synthBook(t, n)
	results := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(results, os.DirFS("../results")); err != nil {
		t.Fatal(err)
	}
	opts := largeOptions(t, chapters, results)
	opts.Cache = filepath.Join(t.TempDir(), "cache")
	build := func(cache string) (map[string]string, *Report) {
		t.Helper()
		o := opts
		o.Cache, o.Out = cache, filepath.Join(t.TempDir(), "out")
		rep, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		// Pages linked from the cache are as readable as pages written.
		filepath.WalkDir(o.Out, func(path string, d fs.DirEntry, err error) error {
			if fi, _ := d.Info(); err == nil && !d.IsDir() && fi.Mode().Perm() != 0o644 {
				t.Errorf("%s has mode %v", path, fi.Mode())
			}
			return err
		})
		return readDir(t, o.Out), rep
	}
	step := func(what string, cached int) {
		t.Helper()
		want, _ := build("")
		got, rep := build(opts.Cache)
		if !equalDirs(want, got) {
			for name := range want {
				if want[name] != got[name] {
					t.Errorf("%s: %s differs from a build without the cache", what, name)
				}
			}
		}
		if rep.Chapters != n || rep.Cached != cached {
			t.Errorf("%s: %d of %d chapters from the cache, want %d", what, rep.Cached, rep.Chapters, cached)
		}
	}
	step("cold cache", 0)
	step("warm cache", n)

	b, err := load(chapters, probes.All(), mustOpen(t, opts), nil)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(b.full, func(d *parse.Doc) bool { return d != nil }); i >= 0 {
		t.Errorf("%s was parsed again, though it did not change", b.Docs[i].File)
	}

	edited := filepath.Join(chapters, "copy-0005.md")
	src, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(edited, append(src, "\n고친 문단 하나.\n"...), 0o644)
	step("one chapter edited", n-1)

	// A paragraph above an experiment moves it; the pages that use it
	// elsewhere do not change.
	edited = filepath.Join(chapters, "02-select-to-epoll.md")
	if src, err = os.ReadFile(edited); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(edited, bytes.Replace(src, []byte("\n---\n"), []byte("\n---\n\n맨 앞에 더한 문단.\n"), 1), 0o644)
	step("an experiment moved", n-1)

	// A figure added before another renumbers it: every page that may
	// refer to it is made again, and reads the new number.
	if src, err = os.ReadFile(edited); err != nil {
		t.Fatal(err)
	}
	first := "\n```plot\nfrom: readiness\nx: idle\ny: round\nseries: api\nlabel: fig-first\n```\n"
	os.WriteFile(edited, bytes.Replace(src, []byte("\n---\n"), []byte("\n---\n"+first), 1), 0o644)
	step("a figure renumbered", 0)

	// A claim's words change only the claims page beside its chapter's.
	edited = filepath.Join(chapters, "copy-0006.md")
	if src, err = os.ReadFile(edited); err != nil || !bytes.Contains(src, []byte("\ntext: ")) {
		t.Fatalf("%s has no claim to edit (%v)", edited, err)
	}
	os.WriteFile(edited, bytes.Replace(src, []byte("\ntext: "), []byte("\ntext: 고쳐 쓴 주장 — "), 1), 0o644)
	step("a claim edited", n-1)

	// Every chapter reads machine facts, which come from the newest of all
	// the set's results: a change to any result changes every page.
	cfg, err := LoadConfig("../chapters")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(results, cfg.Machine, "syscost.txt")
	data, err := os.ReadFile(path)
	figure := regexp.MustCompile(` [0-9.]+ ns/read_eagain`)
	if err != nil || !figure.Match(data) {
		t.Fatalf("syscost.txt is not what this test changes: %v", err)
	}
	at := figure.FindIndex(data)
	changed := append(append(slices.Clone(data[:at[0]]), " 1.5 ns/read_eagain"...), data[at[1]:]...)
	os.WriteFile(path, changed, 0o644)
	step("a result changed", 0)

	damaged := 0
	filepath.WalkDir(opts.Cache, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, "trim.txt") {
			data, _ := os.ReadFile(path)
			data[len(data)-1] ^= 1
			os.WriteFile(path, data, 0o644)
			damaged++
		}
		return err
	})
	if damaged == 0 {
		t.Fatal("the cache is empty")
	}
	step("every entry damaged", 0)
	step("warm again", n)
}

// Every field of a claim, a warning, the search entries and the page's blob come
// back from a chapter's entry as they went in: a field added to
// evaluate.Claim must be added to the entry's encoding too.
func TestEntryKeepsEveryField(t *testing.T) {
	var c evaluate.Claim
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.String:
				f.SetString("«" + v.Type().Field(i).Name + "»")
			case reflect.Int:
				f.SetInt(int64(i + 2))
			case reflect.Struct:
				fill(f)
			case reflect.Slice:
				// Machines and On: a string and a verdict per machine.
				name := v.Type().Field(i).Name
				f.Set(reflect.MakeSlice(f.Type(), 2, 2))
				for j := 0; j < 2; j++ {
					switch e := f.Index(j); e.Kind() {
					case reflect.String:
						e.SetString(fmt.Sprintf("«%s %d»", name, j))
					case reflect.Struct:
						fill(e)
					default:
						t.Fatalf("evaluate.Claim.%s holds %s: teach encodeEntry to keep it", name, e.Kind())
					}
				}
			default:
				t.Fatalf("evaluate.Claim.%s is a %s: teach encodeEntry to keep it", v.Type().Field(i).Name, f.Kind())
			}
		}
	}
	fill(reflect.ValueOf(&c).Elem())
	w := cachedWarning{&parse.PosError{Pos: parse.Pos{File: "a.md", Line: 3, Col: 4}, Msg: "no result"}, parse.KindMissing}
	in := chapterOut{warnings: []error{w}, claims: []evaluate.Claim{c, {}}, search: []byte(`{"c":"장"}`), sets: []string{"m1", "other"}}
	blob := rendercache.Blob{Sum: rendercache.NewHasher("test").String("<html>").Key(), CRC: 7}
	cc := &chapterCache{rc: &renderCache{c: rendercache.Open(t.TempDir())}, res: NewResults(t.TempDir(), "here", nil)}
	deps := []dep{{"here", "a"}, {"m1", "a"}}
	data, ok := cc.encodeEntry(deps, in, blob)
	if !ok {
		t.Fatal("not encoded")
	}
	e, ok := decodeJSON[entry](data)
	if !ok {
		t.Fatal("the entry does not decode")
	}
	page, out, ok := cc.decodeEntry(e)
	if !ok || page != blob || !reflect.DeepEqual(out.claims, in.claims) || string(out.search) != string(in.search) || !slices.Equal(out.sets, in.sets) ||
		len(out.warnings) != 1 || out.warnings[0].Error() != w.Error() || WarningKind(out.warnings[0]) != parse.KindMissing {
		t.Errorf("entry came back as %+v, %v, %v", out, page, ok)
	}
	if _, ok := decodeJSON[entry](data[:5]); ok {
		t.Error("a cut entry decoded")
	}
	// A warning that is not a position's is not kept.
	if _, ok := cc.encodeEntry(nil, chapterOut{warnings: []error{errors.New("x")}}, blob); ok {
		t.Error("encoded a warning it cannot give back")
	}
	// Once a result the chapter read is seen otherwise, the entry is not used.
	cc.res.MarkStale([]Status{{ID: "a", State: Stale, Why: "runs changed"}})
	if _, _, ok := cc.decodeEntry(e); ok {
		t.Error("the entry was used though a result it read is now stale")
	}
}

// An experiment comes back from the cache as Parse made it: a field added
// to parse.Experiment must be kept by storedExperiment too.
func TestStoredExperimentIsParsed(t *testing.T) {
	all := probes.All()
	b, err := Load("../chapters", all)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range b.Experiments {
		data, err := json.Marshal(storeExperiment(x))
		if err != nil {
			t.Fatal(err)
		}
		var s storedExperiment
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if y, ok := s.experiment(all); !ok || !reflect.DeepEqual(x, y) {
			t.Errorf("%s came back as\n%+v\nnot\n%+v", x.ID, y, x)
		}
	}
	stored, parsed := reflect.TypeFor[storedExperiment](), reflect.TypeFor[parse.Experiment]()
	for i := range parsed.NumField() {
		name := parsed.Field(i).Name
		if _, ok := stored.FieldByName(name); !ok && name != "Spec" && name != "Combos" {
			t.Errorf("parse.Experiment.%s is not kept in the cache (storedExperiment)", name)
		}
	}
}

func mustOpen(t *testing.T, opts Options) *renderCache {
	rc, err := openRenderCache(opts.Cache, opts.Probes)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// A chapter is rendered again when a result it reads changes, and only
// then.
func TestCacheFollowsResults(t *testing.T) {
	opts := testOptions(t)
	opts.Cache = filepath.Join(t.TempDir(), "cache")
	for _, id := range []string{"a", "b"} {
		ch := "---\ntitle: " + id + "\norder: 1\nslug: " + id + "\n---\n\n```experiment " + id + "\nprobe: fake.ok\nruns: 1\n```\n\n{{ " + id + ".time[] }}\n"
		os.WriteFile(filepath.Join(opts.Chapters, id+".md"), []byte(ch), 0o644)
	}
	os.Remove(filepath.Join(opts.Chapters, "t.md"))
	build := func(want int) {
		t.Helper()
		rep, err := Build(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cached != want {
			t.Errorf("%d chapters from the cache, want %d", rep.Cached, want)
		}
	}
	build(0) // measures a and b
	build(2)
	path := store.Path(opts.Results, "here", "a")
	r, err := store.Load(path, fakes)
	if err != nil {
		t.Fatal(err)
	}
	r.Rows[0].Runs[0]["time"] *= 2
	if err := store.Save(path, r); err != nil {
		t.Fatal(err)
	}
	build(1)
	page, _ := os.ReadFile(filepath.Join(opts.Out, "a.html"))
	if !bytes.Contains(page, []byte(">2 μs<")) {
		t.Errorf("a.html does not show the new figure:\n%s", page)
	}
}

// A chapter whose syntax tree Load let go (past keepParsed) is parsed
// again for its page, which is the page it would have been.
func TestPagesParsedAgain(t *testing.T) {
	chapters := synthBook(t, 6)
	opts := largeOptions(t, chapters, "../results")
	build := func() map[string]string {
		t.Helper()
		o := opts
		o.Out = filepath.Join(t.TempDir(), "out")
		if _, err := Build(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return readDir(t, o.Out)
	}
	want := build()
	defer func(old int64) { keepParsed = old }(keepParsed)
	keepParsed = 1 // every chapter is parsed again
	if got := build(); !equalDirs(want, got) {
		t.Error("pages parsed again differ from pages parsed once")
	}
}

// Sources hashes a chapter again only when its size or modification time
// changed, and never trusts a file modified within racy of its reading.
func TestSourcesRemembers(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "book.yaml"), []byte("title: t\nmachine: m\n"), 0o644)
	chapter := func(title string, when time.Time) {
		t.Helper()
		path := filepath.Join(dir, "a.md")
		os.WriteFile(path, []byte("---\ntitle: "+title+"\nslug: a\norder: 1\n---\n\ntext\n"), 0o644)
		if err := os.Chtimes(path, when, when); err != nil {
			t.Fatal(err)
		}
	}
	var s Sources
	cache := filepath.Join(t.TempDir(), "cache")
	rendercache.Remember(cache, 1<<20) // as serve does: the parse of one load is found by the next
	title := func() string {
		t.Helper()
		b, err := s.LoadCached(dir, probes.All(), cache)
		if err != nil {
			t.Fatal(err)
		}
		return b.Docs[0].Front.Title
	}
	past := time.Now().Add(-time.Hour)
	chapter("one", past)
	if got := title(); got != "one" {
		t.Fatalf("title %q", got)
	}
	chapter("two", past.Add(time.Second))
	if got := title(); got != "two" {
		t.Errorf("after an edit, title %q, want two", got)
	}
	// Same size, same time: taken as unchanged (what the memo is for).
	chapter("thr", past.Add(time.Second))
	if got := title(); got != "two" {
		t.Errorf("a file of the same size and time was hashed again: title %q", got)
	}
	// Modified just now: hashed on every load, however it changes.
	now := time.Now()
	chapter("fou", now)
	title()
	chapter("fiv", now)
	if got := title(); got != "fiv" {
		t.Errorf("a file modified within racy was trusted: title %q, want fiv", got)
	}
}

// A name staged twice is a new file the second time: when the first was
// a blob of the render cache, linked, the blob keeps its bytes.
func TestStagingTwiceLeavesTheBlob(t *testing.T) {
	s, err := stageSite(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.discard()
	c := rendercache.Open(filepath.Join(t.TempDir(), "cache"))
	blob, err := s.keep("data/x.csv", []byte("a,b\n"), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.put("data/x.csv", []byte("other\n")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.ReadBlob(blob); !ok || string(got) != "a,b\n" {
		t.Errorf("the blob after its name was written again: %q, %v", got, ok)
	}
}

// Sources keeps a result file's parse while its size and time stay, and
// reads it again once they change.
func TestSourcesRemembersResults(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(store.Path("../results", "m1", "ceiling"))
	if err != nil {
		t.Fatal(err)
	}
	path := store.Path(dir, "m1", "ceiling")
	os.MkdirAll(filepath.Dir(path), 0o755)
	past := time.Now().Add(-time.Hour)
	write := func(b []byte, when time.Time) {
		os.WriteFile(path, b, 0o644)
		os.Chtimes(path, when, when)
	}
	write(data, past)
	var s Sources
	first, ok := s.NewResults(dir, "m1", probes.All()).Lookup("", "ceiling")
	if !ok {
		t.Fatal("no result")
	}
	if again, _ := s.NewResults(dir, "m1", probes.All()).Lookup("", "ceiling"); again != first {
		t.Error("an unchanged result was parsed again")
	}
	write(append(data, '\n'), past.Add(time.Second))
	if again, ok := s.NewResults(dir, "m1", probes.All()).Lookup("", "ceiling"); !ok || again == first {
		t.Errorf("a changed result was not read again (found: %v)", ok)
	}
}

// An edit to an included fragment renders again the chapter that includes
// it, and only that one; a fragment (_NAME.md) is not a chapter itself.
func TestCacheFollowsIncludes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chapters")
	os.MkdirAll(dir, 0o755)
	cfg, err := os.ReadFile("../chapters/book.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("book.yaml", string(cfg))
	write("a.md", "---\ntitle: 가\nslug: a\norder: 1\n---\n\n{{< include _part.md >}}\n")
	write("b.md", "---\ntitle: 나\nslug: b\norder: 2\n---\n\n본문.\n")
	write("_part.md", "첫 조각.\n")
	opts := largeOptions(t, dir, "../results")
	opts.Cache = filepath.Join(t.TempDir(), "cache")
	build := func(want string, cached int) {
		t.Helper()
		o := opts
		o.Out = filepath.Join(t.TempDir(), "out")
		rep, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := os.ReadFile(filepath.Join(o.Out, "a.html"))
		if !strings.Contains(string(page), want) {
			t.Errorf("a.html has no %q", want)
		}
		if rep.Chapters != 2 || rep.Cached != cached {
			t.Errorf("%d of %d chapters from the cache, want %d of 2", rep.Cached, rep.Chapters, cached)
		}
		if _, err := os.Stat(filepath.Join(o.Out, "_part.html")); err == nil {
			t.Error("the fragment was built as a chapter")
		}
	}
	build("첫 조각.", 0)
	build("첫 조각.", 2)
	write("_part.md", "고친 조각.\n")
	build("고친 조각.", 1)
}

// A chapter's page in out/ changed in place without its size or
// modification time changing (cp -p over it, a bad disk) changes its
// cached copy too, as the page is a hard link to it: the next build reads
// and checks that copy, and writes the page anew rather than publishing
// the change.
func TestChangedPageKeepingItsTimeIsNotPublished(t *testing.T) {
	chapters := synthBook(t, 4)
	opts := largeOptions(t, chapters, "../results")
	opts.Cache = filepath.Join(t.TempDir(), "cache")
	opts.Out = filepath.Join(t.TempDir(), "out")
	for range 2 { // the second build links its pages from the cache
		if _, err := Build(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(opts.Out, "c10k.html")
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(page)
	forged := bytes.Repeat([]byte("x"), len(want))
	f, err := os.OpenFile(page, os.O_WRONLY|os.O_TRUNC, 0) // as cp does: the same file, written over
	if err != nil {
		t.Fatal(err)
	}
	f.Write(forged)
	f.Close()
	os.Chtimes(page, fi.ModTime(), fi.ModTime()) // as cp -p does
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(page); !bytes.Equal(got, want) {
		t.Errorf("the build published a page changed behind its back (%d bytes, %q…)", len(got), got[:min(len(got), 20)])
	}
}

// A results file whose bytes parsed before gives its header from the
// render cache, the header a parse gives, and its rows only when asked
// for; the same file with other bytes is parsed.
func TestResultHeaderFromCache(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "m1"), os.DirFS("../results/m1")); err != nil {
		t.Fatal(err)
	}
	rc := mustOpen(t, Options{Cache: filepath.Join(t.TempDir(), "cache"), Probes: probes.All()})
	open := func() *Results {
		r := NewResults(dir, "m1", probes.All())
		r.cache = rc
		return r
	}
	first := open()
	want, ok := first.Header("", "ceiling")
	if !ok {
		t.Fatal("no result")
	}
	rc.flush()

	again := open()
	got, ok := again.Header("", "ceiling")
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("the cached header is\n%+v\nwant\n%+v", got, want)
	}
	if f, _ := again.file("", "ceiling"); f.res.Value() != nil {
		t.Error("the rows were parsed though only the header was asked for")
	}
	rows, ok := again.Lookup("", "ceiling")
	parsed, err := store.Load(store.Path(dir, "m1", "ceiling"), probes.All())
	if err != nil || !ok || !reflect.DeepEqual(rows, parsed) {
		t.Errorf("Lookup after a cached header: %v, %v; want the file's result", ok, err)
	}

	path := store.Path(dir, "m1", "ceiling")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte("\nsource:"), []byte("\nnote: edited\nsource:"), 1), 0o644)
	edited := open()
	edited.Header("", "ceiling")
	if f, _ := edited.file("", "ceiling"); f.res.Value() == nil {
		t.Error("a file whose bytes changed took its header from the cache")
	}
}
