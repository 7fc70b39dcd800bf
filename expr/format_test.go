package expr

import (
	"math"
	"strings"
	"testing"
)

func num(x float64, d Dim) Value { return point(x, d) }

func span(x, lo, hi float64, d Dim) Value {
	return Value{Kind: Number, Num: x, Lo: lo, Hi: hi, Dim: d}
}

func ratio(x float64) Value { v := point(x, Dimensionless); v.Ratio = true; return v }

func TestFormat(t *testing.T) {
	labels := []string{"cap", "threads-max", "pid_max"}
	coded := func(x, lo, hi float64) Value {
		v := span(x, lo, hi, Dimensionless)
		v.Labels = labels
		return v
	}
	tests := []struct {
		v      Value
		format string
		want   string
	}{
		// dur: unit picked, 3 significant digits, trailing zeros trimmed.
		{num(873e-9, Duration), "dur", "873 ns"},
		{num(31.2e-6, Duration), "dur", "31.2 μs"},
		{num(5.25e-3, Duration), "dur", "5.25 ms"},
		{num(2.3e-6, Duration), "dur", "2.3 μs"},
		{num(2.30001e-6, Duration), "dur", "2.3 μs"},
		{num(12.345e-6, Duration), "dur", "12.3 μs"},
		{num(1.5, Duration), "dur", "1.5 s"},
		{num(1234, Duration), "dur", "1,234 s"}, // the integer part is never rounded away
		{num(0, Duration), "dur", "0 ns"},
		{num(0.5e-9, Duration), "dur", "0.5 ns"},
		{num(999.4e-9, Duration), "dur", "999 ns"},
		{num(999.6e-9, Duration), "dur", "1 μs"}, // rounding carries into the next unit
		{num(1e-6, Duration), "dur", "1 μs"},
		{num(-2e-3, Duration), "dur", "-2 ms"},
		{num(5.25e-3, Duration), "", "5.25 ms"},
		// Fixed duration units.
		{num(674705e-9, Duration), "ns", "674,705 ns"},
		{num(5.25e-3, Duration), "ns", "5,250,000 ns"},
		{num(12.34e-9, Duration), "ns", "12.3 ns"},
		{num(31.2e-6, Duration), "us", "31.2 μs"},
		{num(5.25e-3, Duration), "us", "5,250 μs"},
		{num(873e-9, Duration), "us", "0.873 μs"},
		{num(873e-9, Duration), "μs", "0.873 μs"},
		{num(5.25e-3, Duration), "ms", "5.25 ms"},
		{num(2, Duration), "ms", "2,000 ms"},
		// int, f1, f2.
		{num(4068, Dimensionless), "int", "4,068"},
		{num(4068, Dimensionless), "", "4,068"},
		{num(1234567.6, Dimensionless), "int", "1,234,568"},
		{num(-1234567.6, Dimensionless), "int", "-1,234,568"},
		{num(-0.4, Dimensionless), "int", "0"},
		{num(2.5, Dimensionless), "int", "3"}, // half away from zero
		{num(999, Dimensionless), "int", "999"},
		{num(65536, Bytes), "int", "65,536"},
		{num(2.26, Dimensionless), "f1", "2.3"},
		{num(2.25, Dimensionless), "f1", "2.3"}, // schoolbook rounding, not half to even
		{num(1234.5, Dimensionless), "f2", "1,234.50"},
		{num(1/3.0, Dimensionless), "f2", "0.33"},
		{num(1/3.0, Dimensionless), "", "0.33"},
		{num(-0.001, Dimensionless), "f2", "0.00"},
		// x.
		{ratio(5712), "x", "5,712×"},
		{ratio(5712.4), "", "5,712×"},
		{ratio(22.5), "x", "22.5×"},
		{ratio(1.4), "x", "1.4×"},
		{ratio(2), "x", "2.0×"},
		{ratio(99.96), "x", "100×"},
		{ratio(100), "x", "100×"},
		{ratio(0.042), "x", "0.042×"},
		{ratio(0), "x", "0.0×"},
		{num(3, Dimensionless), "x", "3.0×"},
		// pct.
		{ratio(0.96), "pct", "96%"},
		{ratio(0.045), "pct", "4.5%"},
		{ratio(0.0996), "pct", "10%"},
		{ratio(0.0004), "pct", "0.04%"},
		{ratio(1.5), "pct", "150%"},
		{ratio(12.3), "pct", "1,230%"},
		{ratio(-0.25), "pct", "-25%"},
		// bytes.
		{num(64, Bytes), "bytes", "64 B"},
		{num(64, Bytes), "", "64 B"},
		{num(1000, Bytes), "bytes", "1,000 B"},
		{num(1023.9, Bytes), "bytes", "1 KiB"},
		{num(8192, Bytes), "bytes", "8 KiB"},
		{num(63590, Bytes), "bytes", "62.1 KiB"},
		{num(217088, Bytes), "bytes", "212 KiB"},
		{num(1.5*(1<<20), Bytes), "bytes", "1.5 MiB"},
		{num(3*(1<<30), Bytes), "bytes", "3 GiB"},
		// range: the unit written once.
		{span(500e-9, 298e-9, 1207e-9, Duration), "range", "298–1,207 ns"},
		{span(2600, 2587, 2645, Dimensionless), "range", "2,587–2,645"},
		{span(1e-3, 80e-9, 12e-3, Duration), "range", "80 ns–12 ms"},
		{span(31e-6, 30.1e-6, 45.7e-6, Duration), "range", "30.1–45.7 μs"},
		{span(1e-3, 950e-6, 1.21e-3, Duration), "range", "950–1,210 μs"},
		{span(1.04, 0.98, 1.1, Dimensionless), "range", "0.98–1.10"},
		{Value{Kind: Number, Num: 1.04, Lo: 0.98, Hi: 1.1, Ratio: true}, "range", "1.0–1.1×"},
		{span(5.25e-3, 5.25e-3, 5.25e-3, Duration), "range", "5.25 ms"},
		{span(12000, 8192, 16384, Bytes), "range", "8–16 KiB"},
		{span(-1, -5, 3, Dimensionless), "range", "-5–3"},
		// label.
		{coded(1, 1, 1), "label", "threads-max"},
		{coded(1, 1, 1), "", "threads-max"},
		{coded(1, 0, 2), "label", "threads-max (runs: cap–pid_max)"},
		{coded(1, 1, 1), "int", "1"},
		{coded(7, 7, 7), "", "7"}, // not a named code: the number
		// Conditions and strings.
		{Value{Kind: Bool, Truth: True}, "", "holds"},
		{Value{Kind: Bool, Truth: False}, "", "fails"},
		{Value{Kind: Bool, Truth: Unknown}, "", "inconclusive"},
		{Value{Kind: String, Str: "평평하다"}, "", "평평하다"},
	}
	for _, tt := range tests {
		got, err := tt.v.Format(tt.format)
		if err != nil || got != tt.want {
			t.Errorf("%+v.Format(%q) = %q, %v; want %q", tt.v, tt.format, got, err, tt.want)
		}
	}
}

func TestFormatErrors(t *testing.T) {
	tests := []struct {
		v      Value
		format string
		msg    string
	}{
		{num(1, Duration), "bytes", "format bytes shows a size in bytes, but the value is a duration"},
		{num(1, Bytes), "dur", "format dur shows a duration, but the value is a size in bytes"},
		{num(1, Bytes), "ns", "format ns shows a duration"},
		{num(1, Dimensionless), "ms", "format ms shows a duration, but the value is a number (use int, f1, f2, x or pct)"},
		{num(1, Duration), "int", "format int shows a plain number"},
		{num(1, Duration), "f2", "format f2 shows a plain number"},
		{num(1, Duration), "x", "format x shows a ratio"},
		{num(1, Bytes), "pct", "format pct shows a ratio"},
		{num(1, Dimensionless), "label", "format label needs a metric whose values have names"},
		{Value{Kind: Number, Num: 3, Lo: 3, Hi: 3, Labels: []string{"a"}}, "label", "value 3 is not a code with a name (codes are 0–0: a)"},
		{Value{Kind: Bool}, "dur", "a condition has no format dur"},
		{Value{Kind: String, Str: "s"}, "x", "a string has no format x"},
		{num(1, Duration), "zz", `unknown format "zz"`},
		{num(1, Duration), "dru", `unknown format "dru" (did you mean dur?)`},
		{num(math.Inf(1), Duration), "", "not a finite number"},
		{num(math.NaN(), Dimensionless), "int", "not a finite number"},
	}
	for _, tt := range tests {
		got, err := tt.v.Format(tt.format)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v.Format(%q) = %q, %v; want error %q", tt.v, tt.format, got, err, tt.msg)
		}
	}
}
