package book

import (
	"testing"

	"measuredbook/probes"
)

// BenchmarkRebuild is the author's loop without measuring: parse every
// chapter, evaluate it against the committed results and lay out every
// page (go test -bench Rebuild ./book). The goal is well under a second.
func BenchmarkRebuild(b *testing.B) {
	all := probes.All()
	for b.Loop() {
		bk, err := Load("../chapters", all)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := bk.Render(NewResults("../results", bk.Config.Machine, all)); err != nil {
			b.Fatal(err)
		}
	}
}
