package evaluate

import (
	"fmt"
	"strconv"
	"strings"

	"measuredbook/view"
)

// provenanceData is what a live value's popover says about the results
// it draws on (view.Out.Data): its experiment, machine and measuring date,
// and whether it is another set's (a transcribed one, or another
// machine's). A value that combines figures of several machines names
// them all ("A (CPU) + B (CPU)") and says how many (mixed), without a
// date or set of its own: its title says which figure is whose.
func (ev *eval) provenanceData(sets []setID) map[string]string {
	d := map[string]string{"exp": sets[0].id}
	var names []string
	for _, s := range sets {
		r, _ := ev.env.find(s.set, s.id)
		name := ev.env.machineName(s.set, r)
		if r.Machine.CPU != "" {
			name += " (" + r.Machine.CPU + ")"
		}
		names = append(names, name)
	}
	d["machine"] = strings.Join(names, " + ")
	if len(sets) > 1 {
		d["mixed"] = strconv.Itoa(len(sets))
		return d
	}
	r, _ := ev.env.find(sets[0].set, sets[0].id)
	if !r.Start.IsZero() {
		d["date"] = r.Start.UTC().Format("2006-01-02")
	}
	if !r.Measured() {
		d["ref"] = "transcribed"
	} else if sets[0].set != "" {
		d["ref"] = sets[0].set
	}
	return d
}

// titleInData reports whether out's title says nothing its Data does not
// (the popover, or the stylesheet without a script, shows the Data):
// the range, the runs and the machine, or that the figure was transcribed
// from the original book (whose source the environment page gives).
func titleInData(w *view.Words, out *view.Out) bool {
	d := out.Data
	if d == nil {
		return false
	}
	if d["ref"] == "transcribed" {
		// One note and nothing else: a second set, a setting or a
		// stale result would follow " · ".
		return strings.HasPrefix(out.Title, fmt.Sprintf(w.TranscribedFormat, d["machine"])) && !strings.Contains(out.Title, " · ")
	}
	var parts []string
	if d["range"] != "" {
		parts = append(parts, d["range"])
	}
	if n, err := strconv.Atoi(d["runs"]); err == nil {
		parts = append(parts, w.RunsOf(n, n))
	}
	parts = append(parts, d["machine"])
	return out.Title == strings.Join(parts, " · ")
}
