package store

import (
	"fmt"
	"strings"
)

// CheckName validates a name that becomes a path under the results folder:
// a result set (a machine's name, --machine, ref("SET", …), the
// environment's override) or an experiment id. It must be a slug of ASCII
// letters, digits, '-', '_' and '.', not starting with '.' and without "..", so that
// results/NAME/ is always one folder inside results/ and never a hidden
// file, a parent ("..") or an absolute path. what names the thing for the
// message ("--machine", "set name").
func CheckName(what, name string) error {
	if name == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		return fmt.Errorf("%s %q may not start with '.' or hold \"..\"", what, name)
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return fmt.Errorf("%s %q may hold only letters, digits, '-', '_' and '.' (found %q)", what, name, r)
		}
	}
	return nil
}
