package store

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"measuredbook/dataset"
)

// The machine's fingerprint is written into a results file's header, and
// read back from it, as the rest of the header is: beside it, not in the
// detector (package machine) that makes one.

// fingerprintConfig returns the fingerprint as benchfmt configuration lines, in a
// stable order: "machine", "machine-cpu", ..., "limit-threads-max".
func fingerprintConfig(f dataset.Fingerprint) [][2]string {
	c := [][2]string{
		{"machine", f.Name},
		{"machine-cpu", f.CPU},
		{"machine-cores", strconv.Itoa(f.Cores)},
		{"machine-memory", strconv.FormatUint(f.Memory, 10)},
		{"machine-os", f.OS},
		{"machine-kernel", f.Kernel},
		{"machine-arch", f.Arch},
		{"machine-go", f.Go},
	}
	if f.Virtual != "" {
		c = append(c, [2]string{"machine-virtual", f.Virtual})
	}
	for _, k := range slices.Sorted(maps.Keys(f.Limits)) {
		c = append(c, [2]string{"limit-" + k, f.Limits[k]})
	}
	return c
}

// fingerprintFromConfig rebuilds a fingerprint from configuration lines
// written by fingerprintConfig; unknown keys are ignored, a number that
// does not parse is the error at makes of its key.
func fingerprintFromConfig(get func(key string) string, keys []string, at func(key, format string, a ...any) error) (dataset.Fingerprint, error) {
	f := dataset.Fingerprint{
		Name:    get("machine"),
		CPU:     get("machine-cpu"),
		OS:      get("machine-os"),
		Kernel:  get("machine-kernel"),
		Arch:    get("machine-arch"),
		Go:      get("machine-go"),
		Virtual: get("machine-virtual"),
		Limits:  map[string]string{},
	}
	if v := get("machine-cores"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return f, at("machine-cores", "%q is not a number of cores", v)
		}
		f.Cores = n
	}
	if v := get("machine-memory"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return f, at("machine-memory", "%q is not a size in bytes", v)
		}
		f.Memory = n
	}
	for _, k := range keys {
		if name, ok := strings.CutPrefix(k, "limit-"); ok {
			f.Limits[name] = get(k)
		}
	}
	return f, nil
}
