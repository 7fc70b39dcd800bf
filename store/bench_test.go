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

// BenchmarkRead reads every committed result file (with the registry, so
// units are checked) with Read, and with Parse, which a build calls on
// the files it has read: one op reads them all. Compare them with
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
	type parse func([]byte, string, []probe.Probe) (*dataset.Result, error)
	reader := func(read func(io.Reader, string, []probe.Probe) (*dataset.Result, error)) parse {
		return func(data []byte, name string, all []probe.Probe) (*dataset.Result, error) {
			return read(bytes.NewReader(data), name, all)
		}
	}
	for _, impl := range []struct {
		name  string
		parse parse
	}{{"Read", reader(Read)}, {"Parse", Parse}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for i, d := range data {
					if _, err := impl.parse(d, paths[i], all); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/file")
		})
	}
}
