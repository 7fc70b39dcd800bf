package book

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/runner"
	"measuredbook/store"
	"measuredbook/view"
)

// ConfigFile is the book's own configuration, inside the chapters folder.
const ConfigFile = "book.yaml"

// Config is chapters/book.yaml.
type Config struct {
	Title string // the book's title
	Lang  string // its language, the chapters' default
	// Words is the message table of Lang: the words of the site's
	// interface.
	Words   *view.Words `json:"-"`
	Machine string      // the result set a plain build uses
	Preface string      // Markdown, shown on the index page
	// Machines are the other machines the book shows beside its own, in
	// order: the sets a table, plot or claim with machines: book shows.
	// A machine whose set is not in results/ is shown as a gap.
	Machines []string
	// Precision and Budget are runs: auto's defaults for every
	// experiment that does not set its own (precision:, budget:).
	Precision float64
	Budget    time.Duration
	// RunTime is how long one run's sample lasts where an experiment
	// gives a count as auto (run-time:; see runner.Runner.RunTime).
	RunTime time.Duration
	// StaleOn names what of the machine, when it changed since a result
	// was measured, makes the result stale here: go, kernel (both by
	// default).
	StaleOn []string
	// Safe refuses raw HTML and links that run code in every chapter
	// (safe: true; the build's --safe does the same for one build).
	Safe bool
	// EPUB puts the book as an EPUB 3 file into the site, as book.epub
	// (epub: true; the build's --epub FILE writes one anywhere).
	EPUB bool
}

// The defaults of runs: auto. ±5 % is what the issue asks of a figure the
// prose reads; 10 s bounds one experiment so that the book's 21 fit in a
// few minutes even when a noisy one never gets there.
const (
	DefaultPrecision = 0.05
	DefaultBudget    = 10 * time.Second
	DefaultRunTime   = runner.DefaultRunTime
)

// staleKinds are what stale-on: may name.
var staleKinds = []string{"go", "kernel"}

// LoadConfig reads dir/book.yaml; a missing file is the empty config.
// Every problem is reported at its line and column.
func LoadConfig(dir string) (Config, error) {
	c := Config{Precision: DefaultPrecision, Budget: DefaultBudget, RunTime: DefaultRunTime, StaleOn: staleKinds, Words: view.Korean}
	path := filepath.Join(dir, ConfigFile)
	data, err := store.ReadFile(path, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return c, err
	}
	fields, err := parse.ParseFields(path, data, []string{"title", "lang", "machine", "machines", "preface", "precision", "budget", "run-time", "stale-on", "safe", "epub"}, []string{"machines", "stale-on"})
	if err != nil {
		return c, err
	}
	c.Title, c.Lang, c.Machine, c.Preface = fields["title"].Value, fields["lang"].Value, fields["machine"].Value, fields["preface"].Value
	var errs []error
	if f, ok := fields["lang"]; ok {
		w, known := view.WordsFor(f.Value)
		if !known {
			errs = append(errs, &parse.PosError{Pos: f.Pos, Msg: fmt.Sprintf("lang: the site has no words in %q%s; it knows %s", parse.Short(f.Value), expr.DidYouMean(f.Value, view.Langs()), strings.Join(view.Langs(), ", "))})
		}
		c.Words = w
	}
	if f, ok := fields["precision"]; ok {
		if c.Precision, err = parse.ParsePrecision(f.Value); err != nil {
			errs = append(errs, &parse.PosError{Pos: f.Pos, Msg: err.Error()})
		}
	}
	if f, ok := fields["budget"]; ok {
		if c.Budget, err = parse.ParseDuration("budget", f.Value, "10s"); err != nil {
			errs = append(errs, &parse.PosError{Pos: f.Pos, Msg: err.Error()})
		}
	}
	if f, ok := fields["run-time"]; ok {
		if c.RunTime, err = parse.ParseDuration("run-time", f.Value, "100ms"); err != nil {
			errs = append(errs, &parse.PosError{Pos: f.Pos, Msg: err.Error()})
		}
	}
	for _, b := range []struct {
		key string
		to  *bool
	}{{"safe", &c.Safe}, {"epub", &c.EPUB}} {
		if f, ok := fields[b.key]; ok {
			switch f.Value {
			case "true":
				*b.to = true
			case "false":
			default:
				errs = append(errs, &parse.PosError{Pos: f.Pos, Msg: fmt.Sprintf("%s wants true or false, got %q", b.key, parse.Short(f.Value))})
			}
		}
	}
	if f, ok := fields["stale-on"]; ok {
		c.StaleOn = f.Items
		for i, k := range f.Items {
			if !slices.Contains(staleKinds, k) {
				errs = append(errs, &parse.PosError{Pos: f.ItemPos[i], Msg: fmt.Sprintf("stale-on: %q is not go or kernel", k)})
			}
		}
	}
	if err := store.CheckName("machine", c.Machine); c.Machine != "" && err != nil {
		errs = append(errs, &parse.PosError{Pos: fields["machine"].Pos, Msg: err.Error()})
	}
	ms := fields["machines"]
	for i, m := range ms.Items {
		switch err := store.CheckName("machines:", m); {
		case m == "":
			errs = append(errs, &parse.PosError{Pos: ms.ItemPos[i], Msg: "machines: an empty name; list result sets, as in machines: [m1, linux-arm64-neoverse-n1-4c]"})
		case err != nil:
			errs = append(errs, &parse.PosError{Pos: ms.ItemPos[i], Msg: err.Error()})
		case slices.Contains(c.Machines, m):
			errs = append(errs, &parse.PosError{Pos: ms.ItemPos[i], Msg: fmt.Sprintf("machines: %s is listed twice", m)})
		default:
			c.Machines = append(c.Machines, m)
		}
	}
	return c, errors.Join(errs...)
}

var machineLine = regexp.MustCompile(`(?m)^machine:.*$`)

// SetMachine makes set the book's machine in dir/book.yaml: its machine:
// line is replaced, or one is added, and every other byte is kept. The new
// file is written beside the old one and renamed over it, so a failure
// leaves book.yaml as it was. It returns the file's path.
func SetMachine(dir, set string) (string, error) {
	if err := store.CheckName("machine", set); err != nil {
		return "", err
	}
	path := filepath.Join(dir, ConfigFile)
	src, err := store.ReadFile(path, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	line := "machine: " + set
	out := machineLine.ReplaceAll(src, []byte(line))
	if !machineLine.Match(src) {
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			src = append(src, '\n')
		}
		out = append(src, line+"\n"...)
	}
	return path, store.ReplaceFile(path, out)
}
