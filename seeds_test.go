package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// seedsDir holds the original chapters the book was written anew from. It
// lives beside the repository (CI lays it there), not in it.
const seedsDir = "../shared/seeds"

// seedWindow is how long a run of the same text, in runes after spaces are
// folded, counts as a copied sentence; hangulMin is how many Hangul
// syllables it must hold, so that API calls, C code and quoted English
// sources (which the chapters may share with the seeds) do not count.
const (
	seedWindow = 30
	hangulMin  = 10
)

// chapterTitle matches a seed's chapter titles ("5장. read() 한 번의 전
// 여정 — …", "▶ 6장. …"), which the book keeps on purpose.
var chapterTitle = regexp.MustCompile(`(?m)^(▶ )?\d+장\. .*$`)

// The chapters are our own words: no sentence of the original chapters is
// carried over. Any 30-rune stretch of Korean prose that a chapter shares
// with a seed fails, with both places named.
func TestChaptersDoNotCopyTheSeeds(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join(seedsDir, "*.txt"))
	if len(seeds) == 0 {
		t.Skipf("no seeds in %s (shared/ is not beside this clone); nothing to compare against", seedsDir)
	}
	chapters, _ := filepath.Glob("chapters/*.md")
	where := map[string]string{} // every window of every chapter → its file
	for _, c := range chapters {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		text := []rune(fold(string(data)))
		for i := 0; i+seedWindow <= len(text); i++ {
			where[string(text[i:i+seedWindow])] = c
		}
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		seed := []rune(fold(chapterTitle.ReplaceAllString(string(data), "")))
		for i := 0; i+seedWindow <= len(seed); i++ {
			window := string(seed[i : i+seedWindow])
			if c, ok := where[window]; ok && hangul(window) >= hangulMin {
				t.Errorf("%s repeats %s word for word: %q", c, filepath.Base(s), window)
				i += seedWindow // one report per copied stretch
			}
		}
	}
}

// fold turns every run of white space into one space.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

func hangul(s string) int {
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			n++
		}
	}
	return n
}
