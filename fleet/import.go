package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"measuredbook/probe"
	"measuredbook/probe/codehash"
	"measuredbook/store"
)

// Verify reads every file of b with the store's reader and checks what a
// set must hold to be used here: each file is the experiment its name
// says, measured on the machine the set is named after, with a machine
// fingerprint (CPU and cores; for a measured result also the OS kernel,
// architecture and Go version), in the units its probe declares. A probe
// whose code differs in this checkout does not make the bundle wrong (it
// is what that machine measured), but its results are stale here: each
// such experiment is returned in stale, to be said rather than imported
// silently as fresh. name is the bundle's name for messages.
func Verify(b *Bundle, name string, all []probe.Probe) (stale []string, err error) {
	var errs []error
	for _, f := range b.Files {
		at := name + ":" + b.Set + "/" + f.Name
		res, err := store.Parse(f.Data, at, all)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id := strings.TrimSuffix(f.Name, ".txt")
		if err := store.Belongs(res, b.Set, id); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", at, err))
		}
		p, ok := probe.Lookup(all, res.Probe)
		switch {
		case !ok:
			stale = append(stale, fmt.Sprintf("%s: probe %s is not in this checkout", id, res.Probe))
		case !res.Measured():
			// A transcribed result has no code hash to compare.
		case res.Hash != codehash.For(p, res.Machine.GOOS(), res.Machine.Arch):
			stale = append(stale, fmt.Sprintf("%s: stale here, probe %s's code differs (measured with %.8s, this checkout has %.8s)", id, p.Name, res.Hash, codehash.For(p, res.Machine.GOOS(), res.Machine.Arch)))
		}
	}
	return stale, errors.Join(errs...)
}

// tempPrefix starts the name of the folder a set is written into before
// it is renamed into place (hidden: never taken for a set).
const tempPrefix = ".import-"

// ImportReport says what Import did.
type ImportReport struct {
	Dir      string   // results/SET
	Stale    []string // experiments whose probe differs here (from Verify)
	Replaced []string // with force: how the set it replaced differed
	Kept     []string // with force: the old set's other files, kept in the new one
	Same     bool     // the set already held exactly these files
}

// Import verifies b and writes it as results/SET/ under the results
// lock. An existing set is replaced only with force (and its
// differences are reported either way); a set that already holds the
// same bytes is left alone. The set is written into a temporary folder
// beside it and renamed into place, so that a failed import leaves
// nothing half-written.
func Import(ctx context.Context, results string, b *Bundle, name string, force bool, all []probe.Probe, log io.Writer) (*ImportReport, error) {
	stale, err := Verify(b, name, all)
	if err != nil {
		return nil, err
	}
	rep := &ImportReport{Dir: filepath.Join(results, b.Set), Stale: stale}
	unlock, err := store.Lock(ctx, results, log)
	if err != nil {
		return nil, err
	}
	defer unlock()
	recoverKilled(results, log)
	diff, exists, err := differences(rep.Dir, b)
	if err != nil {
		return nil, err
	}
	if exists && len(diff) == 0 {
		rep.Same = true
		return rep, nil
	}
	if exists && !force {
		return nil, fmt.Errorf("%s already exists and differs from the bundle:\n  %s\nto replace it: go run . import %s --force", rep.Dir, strings.Join(diff, "\n  "), name)
	}
	tmp, err := os.MkdirTemp(results, tempPrefix+b.Set+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	for _, f := range b.Files {
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	if exists {
		if rep.Kept, err = keepOthers(rep.Dir, tmp); err != nil {
			return nil, err
		}
		// The old set moves aside first and comes back if the new one
		// cannot take its place; killed in between, the next import
		// puts it back (recoverKilled).
		old := tmp + oldSuffix
		if err := os.Rename(rep.Dir, old); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, rep.Dir); err != nil {
			os.Rename(old, rep.Dir)
			return nil, err
		}
		os.RemoveAll(old)
		rep.Replaced = diff
	} else if err := os.Rename(tmp, rep.Dir); err != nil {
		return nil, err
	}
	return rep, nil
}

// oldSuffix ends the name an old set has while an import replaces it.
const oldSuffix = ".old"

// recoverKilled deals with what a killed import left in results: an old
// set moved aside whose place is empty goes back (and is said to), the
// rest is removed. The caller holds the lock, so no import is at work.
func recoverKilled(results string, log io.Writer) {
	olds, _ := store.Named(results, tempPrefix, "")
	for _, o := range olds {
		name := filepath.Base(o)
		if set, ok := strings.CutSuffix(strings.TrimPrefix(name, tempPrefix), oldSuffix); ok {
			if i := strings.LastIndexByte(set, '-'); i > 0 {
				dir := filepath.Join(results, set[:i])
				if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) && os.Rename(o, dir) == nil {
					fmt.Fprintf(log, "restored %s from %s, where an interrupted import had left it\n", dir, name)
					continue
				}
			}
		}
		os.RemoveAll(o)
	}
}

// keepOthers links into the new set tmp every file of the old set dir that
// is not a result (notes, say), so replacing the results keeps them, and
// returns their names. A folder or other entry it cannot carry over is
// refused by name rather than lost.
func keepOthers(dir, tmp string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var kept, refused []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".txt") {
			continue // a result: the bundle's replace them (differences names each)
		}
		if !e.Type().IsRegular() {
			refused = append(refused, name)
			continue
		}
		if err := os.Link(filepath.Join(dir, name), filepath.Join(tmp, name)); err != nil {
			return nil, err
		}
		kept = append(kept, name)
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("%s holds %s, which is not a results file and would be lost with the set it replaces; move it away first and import again", dir, strings.Join(refused, ", "))
	}
	return kept, nil
}

// differences lists how the set in dir differs from b, file by file.
func differences(dir string, b *Bundle) (diff []string, exists bool, err error) {
	have, err := rawSet(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	old := map[string][]byte{}
	for _, f := range have {
		old[f.Name] = f.Data
	}
	for _, f := range b.Files {
		o, ok := old[f.Name]
		switch {
		case !ok:
			diff = append(diff, f.Name+": only in the bundle")
		case !bytes.Equal(o, f.Data):
			diff = append(diff, f.Name+": differs ("+startOf(o)+" here, "+startOf(f.Data)+" in the bundle)")
		}
		delete(old, f.Name)
	}
	for _, f := range have {
		if _, ok := old[f.Name]; ok {
			diff = append(diff, f.Name+": only in "+dir)
		}
	}
	return diff, true, nil
}

// startOf names a results file's measurement by its start time, the
// quickest way to tell two measurements apart.
func startOf(data []byte) string {
	res, err := store.Parse(data, "", nil)
	switch {
	case err != nil:
		return "not readable as a result"
	case res.Start.IsZero():
		return "transcribed"
	}
	return "measured " + res.Start.UTC().Format("2006-01-02 15:04Z")
}
