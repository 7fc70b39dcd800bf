package preview

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"measuredbook/book"
	"measuredbook/machine"
	"measuredbook/probes"
)

// BenchmarkSaveToReload is the author's loop in a real browser: the time
// from saving a chapter to the open page showing the new text, through
// the watcher, the rebuild, the event and the new body in place. It reports the
// median (ms-median) over its iterations:
//
//	go test ./preview -run '^$' -bench SaveToReload -benchtime 20x
//
// at the real book (its 4 chapters, against the committed results) and at
// 100 chapters: the real ones plus copies with new slugs whose experiment
// blocks are dropped (ids must be unique), so every copy still evaluates
// the same values, tables, plots and claims against the real results;
// each with the render cache, as serve runs, and without (serve
// --no-cache), to see what the cache buys.
func BenchmarkSaveToReload(b *testing.B) {
	for _, n := range []int{4, 100} {
		for _, cached := range []bool{true, false} {
			b.Run(fmt.Sprintf("chapters=%d/cache=%v", n, cached), func(b *testing.B) { saveToReload(b, n, cached) })
		}
	}
}

func saveToReload(b *testing.B, n int, cached bool) {
	ctx := browser(b)
	dir := copyBook(b, n)
	src := &Book{Opts: book.Options{Chapters: dir, Results: "../results", Probes: probes.All(), This: machine.Current()}, Templates: "../templates"}
	if cached {
		src.Opts.Cache = filepath.Join(b.TempDir(), "cache")
	}
	r := start(b, src, nil)
	path := filepath.Join(dir, "02-select-to-epoll.md")
	orig, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(r.url+"/select-to-epoll.html")); err != nil {
		b.Fatal(err)
	}
	var took, built []time.Duration
	i := 0
	for b.Loop() {
		i++
		marker := fmt.Sprintf("저장 표시 %d번째", i)
		logged := make(chan time.Duration, 1)
		start := time.Now()
		go func(before int) { // when serve's log says the rebuild is done
			for time.Since(start) < time.Minute && strings.Count(r.log.String(), "rebuilt ") == before {
				time.Sleep(200 * time.Microsecond)
			}
			logged <- time.Since(start)
		}(strings.Count(r.log.String(), "rebuilt "))
		write(b, path, string(orig)+"\n"+marker+"\n")
		if err := waitText(ctx, marker); err != nil {
			b.Fatalf("save %d never showed: %v", i, err)
		}
		took = append(took, time.Since(start))
		built = append(built, <-logged)
	}
	slices.Sort(took)
	slices.Sort(built)
	b.ReportMetric(float64(took[len(took)/2])/1e6, "ms-median")
	// Of which the save until the rebuild is done (the watcher's
	// quiet time and the rebuild), the rest is showing the page.
	b.ReportMetric(float64(built[len(built)/2])/1e6, "rebuilt-ms-median")
	// Of which the rebuild (book.Load and Render), from serve's log.
	var builds []time.Duration
	for _, m := range rebuilt.FindAllStringSubmatch(r.log.String(), -1) {
		if d, err := time.ParseDuration(m[1]); err == nil {
			builds = append(builds, d)
		}
	}
	if len(builds) > 0 {
		slices.Sort(builds)
		b.ReportMetric(float64(builds[len(builds)/2])/1e6, "rebuild-ms-median")
	}
}

var rebuilt = regexp.MustCompile(`rebuilt \d+ pages in ([0-9.]+(?:ms|µs|ns|s))`)

var (
	experimentBlock = regexp.MustCompile("(?ms)^```experiment .*?^```\n")
	// labelLine numbers a figure or a table (a directive's label:, or a
	// Markdown table's {#tbl-…}): a copy keeps the reference to the real
	// chapter's and defines none of its own.
	labelLine = regexp.MustCompile(`(?m)^label: (fig|tbl)-.*\n|\s*\{#tbl-[A-Za-z0-9_-]+\}`)
)

// copyBook copies the real chapters into a temp dir and adds copies up to
// n chapters, each with its own slug and order and without experiment
// blocks or figure and table labels.
func copyBook(b *testing.B, n int) string {
	dir := b.TempDir()
	files, err := filepath.Glob("../chapters/*")
	if err != nil || len(files) == 0 {
		b.Fatalf("no chapters: %v", err)
	}
	var chapters []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		write(b, filepath.Join(dir, filepath.Base(f)), string(data))
		if strings.HasSuffix(f, ".md") && !strings.HasPrefix(filepath.Base(f), "_") { // not a fragment
			chapters = append(chapters, string(data))
		}
	}
	slug := regexp.MustCompile(`(?m)^slug: *(.*)$`)
	order := regexp.MustCompile(`(?m)^order: *\d+$`)
	for i := len(chapters); i < n; i++ {
		c := chapters[i%len(chapters)]
		c = slug.ReplaceAllString(c, fmt.Sprintf("slug: ${1}-copy%d", i))
		c = order.ReplaceAllString(c, fmt.Sprintf("order: %d", 100+i))
		c = experimentBlock.ReplaceAllString(c, "")
		c = labelLine.ReplaceAllString(c, "")
		write(b, filepath.Join(dir, fmt.Sprintf("%03d-copy.md", i)), c)
	}
	return dir
}
