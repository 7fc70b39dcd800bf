package fleet

import (
	"bytes"
	"strings"
	"testing"

	"measuredbook/probes"
)

// FuzzBundle: no bundle makes Parse or Verify panic; a bundle Parse takes
// is written back by Write to bytes Parse reads as the same bundle.
func FuzzBundle(f *testing.F) {
	for _, set := range []string{"a", "b"} {
		f.Add(bundleOf(f, set))
	}
	f.Add([]byte("measuredbook-bundle 1 set=a files=1\nfile x.txt 3 sha256=00\nabc\nend\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(bytes.NewReader(data), "f.bundle")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.bundle") {
				t.Fatalf("error without the bundle's name: %v", err)
			}
			return
		}
		Verify(b, "f.bundle", probes.All())
		var buf bytes.Buffer
		if err := Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(&buf, "again")
		if err != nil {
			t.Fatalf("a bundle written back does not parse: %v", err)
		}
		if again.Set != b.Set || len(again.Files) != len(b.Files) {
			t.Fatalf("written back as another bundle: %s/%d, was %s/%d", again.Set, len(again.Files), b.Set, len(b.Files))
		}
		for i, f := range b.Files {
			if again.Files[i].Name != f.Name || !bytes.Equal(again.Files[i].Data, f.Data) {
				t.Fatalf("file %d written back differs", i)
			}
		}
	})
}
