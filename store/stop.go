package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"measuredbook/dataset"
)

// stopConfig is what the stopping rule of an automatic run count saw, as
// configuration lines (none for a fixed count).
func stopConfig(s dataset.Stop) [][2]string {
	if !s.Auto {
		return nil
	}
	interval := "none"
	if !math.IsInf(s.Interval, 0) {
		interval = percent(s.Interval)
	}
	reached := "no"
	if s.Reached() {
		reached = "yes"
	}
	return [][2]string{{"runs-rule", "auto"}, {"precision", percent(s.Precision)},
		{"interval", interval}, {"precision-reached", reached}, {"stopped", s.Why}}
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'g', 3, 64) + "%" }

// readStop is stopConfig undone; get returns "" for an absent line.
func readStop(get func(string) string) (dataset.Stop, error) {
	switch rule := get("runs-rule"); rule {
	case "":
		return dataset.Stop{}, nil
	case "auto":
	default:
		return dataset.Stop{}, fmt.Errorf("runs-rule: %q is not a rule (auto, or no line for a fixed count)", rule)
	}
	s := dataset.Stop{Auto: true, Why: get("stopped")}
	var err error
	if s.Precision, err = readPercent(get("precision")); err != nil || s.Precision <= 0 {
		return s, fmt.Errorf("precision: %q is not a percentage such as 5%%", get("precision"))
	}
	if v := get("interval"); v == "none" {
		s.Interval = math.Inf(1)
	} else if s.Interval, err = readPercent(v); err != nil {
		return s, fmt.Errorf("interval: %q is not a percentage such as 3.2%% (or none)", v)
	}
	return s, nil
}

func readPercent(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || !strings.HasSuffix(v, "%") || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("not a percentage")
	}
	return f / 100, nil
}
