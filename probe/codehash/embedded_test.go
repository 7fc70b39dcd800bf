package codehash_test

import (
	"io/fs"
	"testing"

	"measuredbook/probe/codehash"
	"measuredbook/probes"
)

// plainFS hides that its FS is embedded, so For reads and prints its
// files anew on every call.
type plainFS struct{ fs.FS }

// The code of embedded files is kept from one call to the next: the hash
// is the one For computes from the files themselves, for every platform,
// on the first call and after.
func TestEmbeddedCodeIsKept(t *testing.T) {
	for _, p := range probes.All() {
		plain := p
		plain.Sources = nil
		for _, src := range p.Sources {
			plain.Sources = append(plain.Sources, plainFS{src})
		}
		for _, platform := range [][2]string{{"linux", "amd64"}, {"darwin", "arm64"}, {"", ""}} {
			want := codehash.For(plain, platform[0], platform[1])
			for range 2 {
				if got := codehash.For(p, platform[0], platform[1]); got != want {
					t.Errorf("%s on %s: %s, from the files themselves %s", p.Name, platform, got, want)
				}
			}
		}
	}
}
