package rendercache

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
)

// ProgramID identifies the code of the running program, for keys: the Go
// build ID of its executable, which changes with any change to what was
// linked into it (the layouts and probe sources embedded in it included),
// or, where no build ID can be read, the SHA-256 of the executable.
func ProgramID() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if id := buildID(exe); id != "" {
		return "go:" + id, nil
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// buildID reads the Go build ID the linker wrote into exe, as
// `go tool buildid` does: an ELF note on Linux and the BSDs, and a string
// at the start of the text everywhere else. "" when there is none.
func buildID(exe string) string {
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		s := f.Section(".note.go.buildid")
		if s == nil {
			return ""
		}
		note, err := s.Data()
		// namesz, descsz, type, the name "Go\x00\x00", the ID.
		if err != nil || len(note) < 16 || string(note[12:16]) != "Go\x00\x00" {
			return ""
		}
		n := f.ByteOrder.Uint32(note[4:8])
		if int64(n) > int64(len(note)-16) {
			return ""
		}
		return string(note[16 : 16+n])
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, 32<<10))
	_, rest, ok := bytes.Cut(head, []byte("\xff Go build ID: \""))
	id, _, ok2 := bytes.Cut(rest, []byte("\"\n \xff"))
	if !ok || !ok2 {
		return ""
	}
	return string(id)
}
