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

// fingerprint rebuilds a fingerprint from configuration lines written by
// fingerprintConfig; unknown keys are ignored, a number that does not
// parse is an error at its line.
func (h configLines) fingerprint() (dataset.Fingerprint, error) {
	f := dataset.Fingerprint{
		Name:    h.get("machine"),
		CPU:     h.get("machine-cpu"),
		OS:      h.get("machine-os"),
		Kernel:  h.get("machine-kernel"),
		Arch:    h.get("machine-arch"),
		Go:      h.get("machine-go"),
		Virtual: h.get("machine-virtual"),
		Limits:  map[string]string{},
	}
	if v := h.get("machine-cores"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return f, h.at("machine-cores", "%q is not a number of cores", v)
		}
		f.Cores = n
	}
	if v := h.get("machine-memory"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return f, h.at("machine-memory", "%q is not a size in bytes", v)
		}
		f.Memory = n
	}
	for k, v := range h.cfg {
		if name, ok := strings.CutPrefix(k, "limit-"); ok {
			f.Limits[name] = v.value
		}
	}
	return f, nil
}
