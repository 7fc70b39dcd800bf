package store

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/probes"
)

// BenchmarkRead reads every committed result file as a build does (with
// the registry, so units are checked), with Read and with the reference
// it replaced: one op reads them all. Compare the two with
// benchstat -col /impl.
func BenchmarkRead(b *testing.B) {
	paths, _ := filepath.Glob("../results/*/*.txt")
	if len(paths) == 0 {
		b.Fatal("no committed results")
	}
	data := make([][]byte, len(paths))
	size := 0
	for i, p := range paths {
		var err error
		if data[i], err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
		size += len(data[i])
	}
	all := probes.All()
	for _, impl := range []struct {
		name string
		read func(io.Reader, string, []probe.Probe) (*dataset.Result, error)
	}{{"reference", refRead}, {"Read", Read}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for i, d := range data {
					if _, err := impl.read(bytes.NewReader(d), paths[i], all); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/file")
		})
	}
}
