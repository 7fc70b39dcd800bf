package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without Chromium on PATH, --pdf says what to install.
func TestNoBrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Browser()
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") || !strings.Contains(err.Error(), "print.html") {
		t.Errorf("Browser() without one: %v", err)
	}
}

// A page printed by Chromium is a PDF. Skipped without Chromium, except
// under CI=true (.ci/run installs it).
func TestPrint(t *testing.T) {
	browser, err := Browser()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	page := filepath.Join(t.TempDir(), "p.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html lang="en"><title>t</title><h1>Hello</h1>`), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := Print(context.Background(), browser, page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Errorf("Print gave %d bytes that are not a PDF: %q", len(data), data[:min(len(data), 20)])
	}
}
