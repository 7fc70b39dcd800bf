package parse

import "testing"

// TestPosColumns: columns count characters, lines start at 1.
func TestPosColumns(t *testing.T) {
	f := newFile("f.md", []byte("ab\n한글x\n\n"))
	for off, want := range map[int]Pos{0: {File: "f.md", Line: 1, Col: 1}, 2: {File: "f.md", Line: 1, Col: 3}, 3: {File: "f.md", Line: 2, Col: 1}, 9: {File: "f.md", Line: 2, Col: 3}, 10: {File: "f.md", Line: 2, Col: 4}, 11: {File: "f.md", Line: 3, Col: 1}} {
		if got := f.pos(off); got != want {
			t.Errorf("pos(%d) = %v, want %v", off, got, want)
		}
	}
}
