package parse

import "testing"

// TestPosColumns: columns count characters, lines start at 1.
func TestPosColumns(t *testing.T) {
	f := newFile("f.md", []byte("ab\n한글x\n\n"))
	for off, want := range map[int]Pos{0: {"f.md", 1, 1}, 2: {"f.md", 1, 3}, 3: {"f.md", 2, 1}, 9: {"f.md", 2, 3}, 10: {"f.md", 2, 4}, 11: {"f.md", 3, 1}} {
		if got := f.pos(off); got != want {
			t.Errorf("pos(%d) = %v, want %v", off, got, want)
		}
	}
}
