package parse

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIncludeReadsOnlyFiles: an include of a FIFO is an error, not a
// build that hangs reading it.
func TestIncludeReadsOnlyFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "_pipe.md"), 0o644); err != nil {
		t.Skip(err)
	}
	chapter := filepath.Join(dir, "a.md")
	src := []byte("앞.\n\n{{< include _pipe.md >}}\n")
	_, err := Parse(chapter, src, nil)
	if want := chapter + `:3:13: include "_pipe.md": ` + filepath.Join(dir, "_pipe.md") + " is not a regular file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %s", err, want)
	}
	os.Remove(filepath.Join(dir, "_pipe.md"))
}
