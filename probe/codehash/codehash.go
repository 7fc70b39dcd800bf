// Package codehash is a probe's code hash: what decides whether a stored
// result of the probe is stale. It is a package of its own so that the
// probes' binary, which runs measurements and hashes nothing, does not
// link go/parser, go/printer and go/build, whose package initialisation
// would precede every run.
package codehash

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"measuredbook/probe"
)

// Of is For this platform (runtime.GOOS, runtime.GOARCH): the hash a
// result measured here carries.
func Of(p probe.Probe) string { return For(p, runtime.GOOS, runtime.GOARCH) }

// For is the hex SHA-256 of the probe's name and of what runs on goos
// and goarch in the non-test Go source of its Sources: the files that build
// there (their name suffixes and //go:build lines, read as go build reads
// them). So a change to kqueue code does not make a Linux result stale, nor
// a change to epoll code a macOS one; goos "" (a machine whose system is
// not known) counts every file. A change to the measuring code marks
// stored results stale and a change to its words does not: each file is
// parsed and printed again without its comments, with the value of every
// Doc and Optional field of a composite literal replaced by "", and so is
// the value of every package-level constant or variable that such a field
// refers to (a shared method text such as blocking's emptyMethod), and
// without the fields that never change what a run does (readingKeys).
// Layout does not count either (the file is printed as gofmt would). A file that
// does not parse is hashed as it is.
func For(p probe.Probe, goos, goarch string) string {
	h := sha256.New()
	h.Write([]byte(p.Name))
	for _, src := range p.Sources {
		var names []string
		fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && builds(src, path, goos, goarch) {
				names = append(names, path)
			}
			return nil
		})
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(h, "\x00%s\x00", n)
			h.Write(code(src, n))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// code is codeOf the file name of src. That of an embedded file is kept
// for the life of the process, since it cannot change: the probes of a
// package share their sources, and every probe hashes kern's, so a build
// hashing each of its probes would otherwise parse and print the same
// files again and again (kern's 16 times for the book's 16 probes).
func code(src fs.FS, name string) []byte {
	e, ok := src.(embed.FS)
	if !ok {
		b, _ := fs.ReadFile(src, name)
		return codeOf(name, b)
	}
	key := embeddedFile{e, name}
	if c, ok := printed.Load(key); ok {
		return c.([]byte)
	}
	b, _ := fs.ReadFile(src, name)
	c, _ := printed.LoadOrStore(key, codeOf(name, b))
	return c.([]byte)
}

// printed holds code's results for embedded files, by embeddedFile.
var printed sync.Map

type embeddedFile struct {
	src  embed.FS
	name string
}

// builds reports whether the file name of src is compiled for goos and
// goarch, as go build decides; every file does when goos is "".
func builds(src fs.FS, name, goos, goarch string) bool {
	if goos == "" {
		return true
	}
	ctxt := build.Context{GOOS: goos, GOARCH: goarch, CgoEnabled: true, Compiler: "gc",
		ReleaseTags: build.Default.ReleaseTags, ToolTags: build.Default.ToolTags,
		JoinPath: path.Join,
		OpenFile: func(name string) (io.ReadCloser, error) { return src.Open(name) }}
	ok, err := ctxt.MatchFile(".", name)
	return ok || err != nil // a file go build cannot read is hashed as it is
}

// docKeys are the composite-literal fields whose values are words, not code.
var docKeys = map[string]bool{"Doc": true, "Optional": true}

// readingKeys are the composite-literal fields that never change what a
// run does: how the build reads a figure (probe.Metric's Resolution,
// Quantile, Samples, Of), which a build applies to stored results anew,
// and the bound of a param (probe.Param's Max), which only refuses values
// no stored run can have used. They are left out whole.
var readingKeys = map[string]bool{"Resolution": true, "Quantile": true, "Samples": true, "Of": true, "Max": true}

// codeOf is a Go file as For sees it: printed without comments and with the
// words of docKeys fields and of the declarations they name blanked. The
// declarations a doc names are found in the same file; a package whose docs
// use a constant of another file hashes that constant's words.
func codeOf(name string, src []byte) []byte {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	blank := func() ast.Expr { return &ast.BasicLit{Kind: token.STRING, Value: `""`} }
	named := map[string]bool{}
	collect := func(x ast.Expr) {
		ast.Inspect(x, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				named[id.Name] = true
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok {
			lit.Elts = slices.DeleteFunc(lit.Elts, func(e ast.Expr) bool {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					return false
				}
				k, ok := kv.Key.(*ast.Ident)
				return ok && readingKeys[k.Name]
			})
		}
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && docKeys[k.Name] {
				collect(kv.Value)
				kv.Value = blank()
			}
		}
		return true
	})
	// Blank the declarations the docs named, and those they name in turn.
	for changed := true; changed; {
		changed = false
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !named[id.Name] || i >= len(vs.Values) || !isText(vs.Values[i]) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Value == `""` {
						continue
					}
					collect(vs.Values[i])
					vs.Values[i] = blank()
					changed = true
				}
			}
		}
	}
	var out bytes.Buffer
	if err := printer.Fprint(&out, fset, f); err != nil {
		return src
	}
	return out.Bytes()
}

// isText reports whether x is built only of string literals, names and +,
// the shape of a text constant.
func isText(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.BasicLit:
		return x.Kind == token.STRING
	case *ast.Ident:
		return true
	case *ast.ParenExpr:
		return isText(x.X)
	case *ast.BinaryExpr:
		return x.Op == token.ADD && isText(x.X) && isText(x.Y)
	}
	return false
}
