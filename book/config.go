package book

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"measuredbook/parse"
	"measuredbook/store"
)

// ConfigFile is the book's own configuration, inside the chapters folder.
const ConfigFile = "book.yaml"

// Config is chapters/book.yaml.
type Config struct {
	Title   string // the book's title
	Lang    string // its language, the chapters' default
	Machine string // the result set a plain build uses
	Preface string // Markdown, shown on the index page
	// Machines are the other machines the book shows beside its own, in
	// order: the sets a table, plot or claim with machines: book shows.
	// A machine whose set is not in results/ is shown as a gap.
	Machines []string
}

// LoadConfig reads dir/book.yaml; a missing file is the empty config.
// Every problem is reported at its line and column.
func LoadConfig(dir string) (Config, error) {
	var c Config
	path := filepath.Join(dir, ConfigFile)
	data, err := store.ReadFile(path, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return c, err
	}
	fields, err := parse.ParseFields(path, data, []string{"title", "lang", "machine", "machines", "preface"}, []string{"machines"})
	if err != nil {
		return c, err
	}
	c.Title, c.Lang, c.Machine, c.Preface = fields["title"].Value, fields["lang"].Value, fields["machine"].Value, fields["preface"].Value
	var errs []error
	if c.Machine != "" {
		if err := checkSetName(c.Machine); err != nil {
			errs = append(errs, &parse.PosError{Pos: fields["machine"].Pos, Msg: err.Error()})
		}
	}
	ms := fields["machines"]
	for i, m := range ms.Items {
		switch err := checkSetName(m); {
		case m == "":
			errs = append(errs, &parse.PosError{Pos: ms.ItemPos[i], Msg: "machines: an empty name; list result sets, as in machines: [m1, linux-arm64-neoverse-n1-4c]"})
		case err != nil:
			errs = append(errs, &parse.PosError{Pos: ms.ItemPos[i], Msg: "machines: " + err.Error()})
		case slices.Contains(c.Machines, m):
			errs = append(errs, &parse.PosError{Pos: ms.ItemPos[i], Msg: fmt.Sprintf("machines: %s is listed twice", m)})
		default:
			c.Machines = append(c.Machines, m)
		}
	}
	return c, errors.Join(errs...)
}

// checkSetName accepts a result set's name that is one plain folder name
// under results/: it names a path, so "..", "/" and the like are refused.
func checkSetName(s string) error {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("machine %q: %q is not allowed in a result set's name (letters, digits, -, _ and .)", s, c)
		}
	}
	if s[0] == '.' {
		return fmt.Errorf("machine %q: a result set's name may not start with a dot", s)
	}
	return nil
}
