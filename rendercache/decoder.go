package rendercache

import "encoding/binary"

// Decoder reads what encoding/binary's Append functions wrote: the packs'
// indexes here, and the entries callers encode their own way. Running
// out, or a varint that does not end, makes it Bad; every read after that
// returns zero values.
type Decoder struct {
	b   []byte
	bad bool
}

// NewDecoder reads data.
func NewDecoder(data []byte) *Decoder { return &Decoder{b: data} }

// Bad reports whether a read ran past the data.
func (d *Decoder) Bad() bool { return d.bad }

// Rest is what no read has taken yet.
func (d *Decoder) Rest() []byte { return d.b }

func (d *Decoder) fail() { d.bad, d.b = true, nil }

// Next takes the next n bytes (n zero bytes once Bad).
func (d *Decoder) Next(n int) []byte {
	if n > len(d.b) {
		d.fail()
		return make([]byte, n)
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

// Uvarint takes a binary.AppendUvarint.
func (d *Decoder) Uvarint() uint64 {
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return v
}

// Varint takes a binary.AppendVarint.
func (d *Decoder) Varint() int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return v
}

// Bytes takes bytes written after their length as a uvarint.
func (d *Decoder) Bytes() []byte {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	return d.Next(int(n))
}
