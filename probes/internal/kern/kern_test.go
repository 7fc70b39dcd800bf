package kern

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Quantile interpolates between order statistics as R's and NumPy's
// default does: for 1..5, the 0.1-quantile lies 0.4 of the way from 1 to 2.
func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ q, want float64 }{
		{0, 1}, {0.1, 1.4}, {0.25, 2}, {0.5, 3}, {0.9, 4.6}, {0.99, 4.96}, {1, 5},
	} {
		if got := Quantile(xs, c.q); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("Quantile(1..5, %g) = %g, want %g", c.q, got, c.want)
		}
	}
	if got := Quantile([]float64{7}, 0.9); got != 7 {
		t.Errorf("one value: %g, want 7", got)
	}
}

// RawRead returns what read(2) returns: the byte, or -1 and EAGAIN on an
// empty non-blocking socket.
func TestRawRead(t *testing.T) {
	r, w, closeBoth, err := Socketpair()
	if err != nil {
		t.Fatal(err)
	}
	defer closeBoth()
	if err := unix.SetNonblock(r, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if n, e := RawRead(r, buf); n != -1 || e != unix.EAGAIN {
		t.Errorf("empty: %d, %v; want -1, EAGAIN", n, e)
	}
	unix.Write(w, []byte("ab"))
	if n, e := RawRead(r, buf); n != 2 || e != 0 || string(buf[:2]) != "ab" {
		t.Errorf("after writing ab: %d, %v, %q", n, e, buf[:n])
	}
}
