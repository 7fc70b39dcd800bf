package store

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzRead reads arbitrary results files: never a panic, and a file that
// reads writes back to one that reads the same.
func FuzzRead(f *testing.F) {
	f.Add([]byte(header))
	var buf bytes.Buffer
	Write(&buf, sample())
	f.Add(buf.Bytes())
	f.Add([]byte(strings.Replace(header, "source: measured", "source: transcribed from 원서 2장", 1)))
	f.Add([]byte("experiment: readiness\nprobe: p\nmachine: m\nsource: transcribed\nparams: a\nparam-a: 1\n\nBenchmarkReadiness/a=1 1 NaN ns/x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read(bytes.NewReader(data), "readiness.txt", nil)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Write(&out, r); err != nil {
			t.Fatal(err)
		}
		again, err := Read(bytes.NewReader(out.Bytes()), "readiness.txt", nil)
		if err != nil {
			t.Fatalf("%v\nwritten:\n%s", err, out.Bytes())
		}
		if again.Experiment != r.Experiment || len(again.Rows) != len(r.Rows) || !reflect.DeepEqual(again.Order, r.Order) {
			t.Fatalf("round trip changed the result:\n%s\n→\n%s", data, out.Bytes())
		}
	})
}
