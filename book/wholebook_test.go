package book

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --epub writes the book beside the site, and a file the next build
// would remove (inside --out) or cannot write (a folder, no such folder)
// is refused before anything is measured.
func TestBookFiles(t *testing.T) {
	opts := testOptions(t)
	t.Setenv("FAKE_SLOW_MS", "1")
	dir := filepath.Dir(opts.Out)
	for _, tc := range []struct{ epub, pdf, want string }{
		{epub: filepath.Join(opts.Out, "b.epub"), want: "inside the site's folder"},
		{epub: dir, want: "is a folder"},
		{pdf: filepath.Join(dir, "nowhere", "b.pdf"), want: "does not exist"},
	} {
		o := opts
		o.EPUB, o.PDF = tc.epub, tc.pdf
		_, err := Build(context.Background(), o)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--epub %q --pdf %q: %v, want a usage error saying %q", tc.epub, tc.pdf, err, tc.want)
		}
		if _, err := os.Stat(o.Results); err == nil {
			t.Errorf("--epub %q --pdf %q: measured before refusing", tc.epub, tc.pdf)
		}
	}
	opts.EPUB = filepath.Join(dir, "b.epub")
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(opts.EPUB)
	if err != nil || !strings.HasPrefix(string(data), "PK\x03\x04") {
		t.Fatalf("--epub wrote %d bytes (%v)", len(data), err)
	}
	for _, f := range []string{"print.html", EPUBFile} {
		_, err := os.Stat(filepath.Join(opts.Out, f))
		if want := f == "print.html"; (err == nil) != want {
			t.Errorf("out/%s exists: %v, want %v (book.yaml has no epub: true)", f, err == nil, want)
		}
	}
}
