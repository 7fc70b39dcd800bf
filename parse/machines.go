package parse

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MachinesField is a directive's machines: a list of result sets, or the
// word book for the machines chapters/book.yaml names.
type MachinesField struct {
	Book  bool
	Names []string
	Offs  []int // file offset of each name
	Off   int   // of the field's value
}

// machines decodes the optional machines: field.
func (dir *Directive) machines(fs map[string]field, e *Errs) *MachinesField {
	f, ok := fs["machines"]
	if !ok {
		return nil
	}
	mf := &MachinesField{Off: dir.y.at(f.val)}
	const want = "machines wants a list of result sets, as in machines: [m1, linux-arm64-neoverse-n1-4c], or book for the machines chapters/book.yaml names"
	switch f.val.Kind {
	case yaml.ScalarNode:
		if strings.TrimSpace(f.val.Value) != "book" {
			e.At(mf.Off, "%s; got %q (write [%s] for one set)", want, f.val.Value, strings.TrimSpace(f.val.Value))
			return nil
		}
		mf.Book = true
	case yaml.SequenceNode:
		if len(f.val.Content) == 0 {
			e.At(mf.Off, "%s; got an empty list", want)
			return nil
		}
		for _, it := range f.val.Content {
			name := strings.TrimSpace(it.Value)
			switch {
			case it.Kind != yaml.ScalarNode || name == "":
				e.At(dir.y.at(it), "machines: wants the name of a result set, got %s", nodeKind(it))
				return nil
			case slices.Contains(mf.Names, name):
				e.At(dir.y.at(it), "machines: %s is listed twice", name)
				return nil
			}
			mf.Names = append(mf.Names, name)
			mf.Offs = append(mf.Offs, dir.y.at(it))
		}
	default:
		e.At(mf.Off, "%s; got %s", want, nodeKind(f.val))
		return nil
	}
	return mf
}
