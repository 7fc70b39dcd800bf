package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"measuredbook/probes"
	"measuredbook/store"
)

// bundleOf bundles one of the fixture sets of testdata/compare.
func bundleOf(t testing.TB, set string) []byte {
	t.Helper()
	b, err := ReadSet(filepath.Join("testdata", "compare"), set)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// importBytes parses data as a bundle and imports it into results.
func importBytes(results string, data []byte, force bool) (*ImportReport, error) {
	b, err := Parse(bytes.NewReader(data), "x.bundle")
	if err != nil {
		return nil, err
	}
	return Import(context.Background(), results, b, "x.bundle", force, probes.All(), io.Discard)
}

// TestRoundTripIsIdentical bundles the repository's measured set and its
// transcribed one, imports each into an empty results folder, and wants
// every file byte for byte, and the imported set's bundle identical to
// the first.
func TestRoundTripIsIdentical(t *testing.T) {
	for _, set := range []string{"linux-amd64-amd-epyc-2c", "m1"} {
		src := filepath.Join("..", "results")
		b, err := ReadSet(src, set)
		if err != nil {
			t.Fatal(err)
		}
		var first bytes.Buffer
		if err := Write(&first, b); err != nil {
			t.Fatal(err)
		}
		dst := t.TempDir()
		// A killed import's leftover is cleared, not taken for a set.
		os.MkdirAll(filepath.Join(dst, ".import-"+set+"-123", "x"), 0o755)
		if _, err := importBytes(dst, first.Bytes(), false); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		if entries, _ := os.ReadDir(filepath.Join(dst, set)); len(entries) != len(b.Files) || len(b.Files) < 5 {
			t.Errorf("%s: imported %d files, the set has %d", set, len(entries), len(b.Files))
		}
		for _, f := range b.Files {
			got, err := os.ReadFile(filepath.Join(dst, set, f.Name))
			if err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("%s/%s: not identical after import (%v)", set, f.Name, err)
			}
		}
		again, err := ReadSet(dst, set)
		if err != nil {
			t.Fatal(err)
		}
		var second bytes.Buffer
		Write(&second, again)
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Errorf("%s: the imported set bundles differently", set)
		}
		// Importing the same bundle again changes nothing.
		rep, err := importBytes(dst, first.Bytes(), false)
		if err != nil || !rep.Same {
			t.Errorf("%s: importing it twice: %+v, %v", set, rep, err)
		}
		left, _ := filepath.Glob(filepath.Join(dst, ".import-*"))
		if len(left) > 0 {
			t.Errorf("temporary folders left behind: %q", left)
		}
	}
}

// rehash rewrites the sha256 of file name in a bundle to match data, as
// someone who edits a bundle on purpose would.
func rehash(bundle []byte, name string, edit func([]byte) []byte) []byte {
	b, err := Parse(bytes.NewReader(bundle), "")
	if err != nil {
		panic(err)
	}
	for i := range b.Files {
		if b.Files[i].Name == name {
			b.Files[i].Data = edit(b.Files[i].Data)
		}
	}
	var out bytes.Buffer
	Write(&out, b)
	return out.Bytes()
}

// TestImportRefusesTamperedBundles: every kind of damage is refused with
// a message saying what is wrong, and nothing is written.
func TestImportRefusesTamperedBundles(t *testing.T) {
	good := bundleOf(t, "a")
	head, _, _ := bytes.Cut(good, []byte("\n"))
	sweepData, _ := os.ReadFile(filepath.Join("testdata", "compare", "a", "sweep.txt"))
	sum := sha256.Sum256(sweepData)
	sweepLine := "sha256=" + hex.EncodeToString(sum[:])
	evil := func(name string) []byte {
		data := []byte("x\n")
		s := sha256.Sum256(data)
		return []byte("measuredbook-bundle v1 set=a files=1\nfile " + name + " 2 sha256=" + hex.EncodeToString(s[:]) + "\nx\nend\n")
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"changed byte", bytes.Replace(good, []byte("ns/round"), []byte("ns/rounD"), 1), "do not match its SHA-256"},
		{"wrong hash", bytes.Replace(good, []byte(sweepLine), []byte("sha256="+strings.Repeat("0", 64)), 1), "do not match its SHA-256"},
		{"truncated in a file", good[:len(good)/2], "ends inside it"},
		{"truncated before end", good[:len(good)-4], "cut short"},
		{"no end", good[:len(good)-len("end\n")], "before its \"end\" line"},
		{"trailing bytes", append(append([]byte{}, good...), "end\n"...), "more after"},
		{"format version", bytes.Replace(good, []byte(" v1 "), []byte(" v2 "), 1), "bundle format v2 is not one this checkout reads"},
		{"not a bundle", sweepData, "not a measuredbook bundle"},
		{"fewer files than announced", bytes.Replace(good, head, bytes.Replace(head, []byte("files=2"), []byte("files=3"), 1), 1), "\"end\" after 2 of the 3 files"},
		{"parent directory", evil("../x.txt"), "may not start with '.' or hold \"..\""},
		{"subfolder", evil("a/x.txt"), "may hold only letters"},
		{"absolute path", evil("/etc/x.txt"), "may hold only letters"},
		{"not .txt", evil("x.sh"), "named ID.txt"},
		{"set name", bytes.Replace(good, []byte("set=a "), []byte("set=../a "), 1), "may not start with '.'"},
		{"rehashed edit that does not read", rehash(good, "sweep.txt", func(d []byte) []byte { return d[:len(d)-40] }), "sweep.txt"},
		{"rehashed other machine", rehash(good, "sweep.txt", func(d []byte) []byte {
			return bytes.Replace(d, []byte("machine: a\n"), []byte("machine: z\n"), 1)
		}), "measured on machine \"z\", but it is in the set \"a\""},
		{"rehashed fingerprint removed", rehash(good, "sweep.txt", func(d []byte) []byte {
			return bytes.Replace(d, []byte("machine-cpu: Fixture CPU\n"), nil, 1)
		}), "no machine fingerprint: machine-cpu missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := t.TempDir()
			_, err := importBytes(dst, c.data, true)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "x.bundle:") {
				t.Errorf("the error does not name the bundle: %v", err)
			}
			entries, _ := os.ReadDir(dst)
			for _, e := range entries {
				if e.Name() != ".lock" {
					t.Errorf("a refused import left %s behind", e.Name())
				}
			}
		})
	}
}

// importedAndChanged imports the fixture set a into a new results folder
// and returns it with a bundle of the set in which one file differs.
func importedAndChanged(t *testing.T) (dst string, changed []byte) {
	dst = t.TempDir()
	good := bundleOf(t, "a")
	if _, err := importBytes(dst, good, false); err != nil {
		t.Fatal(err)
	}
	return dst, rehash(good, "sweep.txt", func(d []byte) []byte {
		return bytes.Replace(d, []byte("start: 2026-11-30T10:00:00Z"), []byte("start: 2026-12-02T10:00:00Z"), 1)
	})
}

// TestImportOverwritesOnlyWithForce: a set that exists and differs is
// kept, with what differs named, unless --force; then it is replaced
// whole (a file the bundle lacks is gone).
func TestImportOverwritesOnlyWithForce(t *testing.T) {
	dst, changed := importedAndChanged(t)
	extra := filepath.Join(dst, "a", "extra.txt")
	few, _ := os.ReadFile(filepath.Join(dst, "a", "few.txt"))
	os.WriteFile(extra, bytes.Replace(few, []byte("experiment: few"), []byte("experiment: extra"), 1), 0o644)
	_, err := importBytes(dst, changed, false)
	for _, want := range []string{"already exists and differs", "sweep.txt: differs (measured 2026-11-30 10:00Z here, measured 2026-12-02 10:00Z in the bundle)", "extra.txt: only in", "--force"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("without --force: %v, want %q", err, want)
		}
	}
	if _, err := os.Stat(extra); err != nil {
		t.Errorf("a refused import touched the set: %v", err)
	}
	rep, err := importBytes(dst, changed, true)
	if err != nil || len(rep.Replaced) != 2 {
		t.Fatalf("--force: %+v, %v", rep, err)
	}
	if _, err := os.Stat(extra); err == nil {
		t.Error("--force kept a file the bundle does not hold")
	}
	got, _ := os.ReadFile(filepath.Join(dst, "a", "sweep.txt"))
	if !bytes.Contains(got, []byte("2026-12-02")) {
		t.Error("--force did not write the bundle's file")
	}
}

// TestImportSaysStaleProbes: the fixture probes are not in this checkout
// and the repository's set may have been measured with older probe code;
// either is said per experiment, not imported silently as fresh.
func TestImportSaysStaleProbes(t *testing.T) {
	rep, err := importBytes(t.TempDir(), bundleOf(t, "a"), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Stale) != 2 || !strings.Contains(rep.Stale[0], "few: probe fixture.few is not in this checkout") {
		t.Errorf("stale: %q", rep.Stale)
	}
	b, err := ReadSet(filepath.Join("..", "results"), "linux-amd64-amd-epyc-2c")
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for ; i < len(b.Files) && b.Files[i].Name != "syscost.txt"; i++ {
	}
	b.Files[i].Data = bytes.Replace(b.Files[i].Data, []byte("probe-hash: "), []byte("probe-hash: f00d"), 1)
	stale, err := Verify(b, "x.bundle", probes.All())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(stale, "\n"), "syscost: stale here, probe syscall.overhead's code differs (measured with f00d") {
		t.Errorf("a changed probe hash is not said: %q", stale)
	}
}

// import --force keeps the set folder's other files (notes) and names
// them; a folder it cannot carry over is refused by name. An import
// killed between its two renames leaves the old set aside, and the next
// import puts it back and says so.
func TestForcedImportKeepsOtherFilesAndRecovers(t *testing.T) {
	dst, changed := importedAndChanged(t)
	notes := filepath.Join(dst, "a", "notes.md")
	os.WriteFile(notes, []byte("mine"), 0o644)
	os.Mkdir(filepath.Join(dst, "a", "plots"), 0o755)
	if _, err := importBytes(dst, changed, true); err == nil || !strings.Contains(err.Error(), "holds plots, which is not a results file") {
		t.Errorf("--force over a folder in the set: %v", err)
	}
	os.Remove(filepath.Join(dst, "a", "plots"))
	rep, err := importBytes(dst, changed, true)
	if err != nil || strings.Join(rep.Kept, ",") != "notes.md" {
		t.Fatalf("--force: %+v, %v", rep, err)
	}
	if data, _ := os.ReadFile(notes); string(data) != "mine" {
		t.Errorf("--force lost notes.md: %q", data)
	}
	// Killed between the renames: the set is aside, its place empty.
	aside := filepath.Join(dst, tempPrefix+"a-123"+oldSuffix)
	if err := os.Rename(filepath.Join(dst, "a"), aside); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dst, tempPrefix+"a-123"), 0o755)
	b, err := Parse(bytes.NewReader(changed), "x.bundle")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	rep, err = Import(context.Background(), dst, b, "x.bundle", false, probes.All(), &log)
	if err != nil || !rep.Same {
		t.Errorf("the import after a killed one: %+v, %v (want the restored set, the same as the bundle)", rep, err)
	}
	if !strings.Contains(log.String(), "restored "+filepath.Join(dst, "a")) {
		t.Errorf("the restore was not said: %q", log.String())
	}
	if data, _ := os.ReadFile(notes); string(data) != "mine" {
		t.Errorf("the restored set lost notes.md: %q", data)
	}
	if left, _ := store.Named(dst, tempPrefix, ""); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
