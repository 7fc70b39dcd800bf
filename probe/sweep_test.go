package probe

import (
	"reflect"
	"strings"
	"testing"
)

// A sweep takes canonical values, refuses what the chapter parser refuses
// and fills the rest with the defaults.
func TestSweep(t *testing.T) {
	s := &Spec{Name: "p", Params: []Param{
		{Name: "api", Kind: String, Default: "poll", Choices: []string{"poll", "epoll"}},
		{Name: "idle", Kind: Int, Default: "100"},
	}}
	hint := func(name string, known []string) string { return " (known: " + strings.Join(known, ", ") + ")" }
	w := s.NewSweep(hint)
	prm, err := w.Param("idle")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"10", "1_000"} {
		if err := w.Add(prm, v); err != nil {
			t.Fatal(err)
		}
	}
	for v, want := range map[string]string{"1000": "param idle: value 1000 repeats in the sweep", "x": "param idle wants a whole number"} {
		if err := w.Add(prm, v); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Add %q: %v, want %q", v, err, want)
		}
	}
	for name, want := range map[string]string{"idle": `duplicate param "idle"`, "idel": `probe p has no param "idel" (known: api, idle)`} {
		if _, err := w.Param(name); err == nil || err.Error() != want {
			t.Errorf("Param %q: %v, want %q", name, err, want)
		}
	}
	if err := w.Fill(); err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"api": {"poll"}, "idle": {"10", "1000"}}; !reflect.DeepEqual(w.Values, want) || !reflect.DeepEqual(w.Order(), []string{"api", "idle"}) {
		t.Errorf("sweep %v in order %v", w.Values, w.Order())
	}
	if err := w.CheckSize(); err != nil {
		t.Error(err)
	}
	for i := range MaxCombos / 2 {
		w.Values["idle"] = append(w.Values["idle"], string(rune('a'+i%26)))
	}
	w.Values["api"] = []string{"poll", "epoll"}
	if err := w.CheckSize(); err == nil || !strings.Contains(err.Error(), "more than 10000 combinations") {
		t.Errorf("a sweep of %d: %v", 2*len(w.Values["idle"]), err)
	}
}

// auto is a Sample param's only value, and only a Sample param's.
func TestSweepAuto(t *testing.T) {
	s := &Spec{Name: "p", Params: []Param{
		{Name: "idle", Kind: Int, Default: "100"},
		{Name: "rounds", Kind: Int, Default: "1000", Sample: true},
	}}
	w := s.NewSweep(func(string, []string) string { return "" })
	idle, _ := w.Param("idle")
	if err := w.Add(idle, "auto"); err == nil || !strings.Contains(err.Error(), "not a count of repetitions") {
		t.Errorf("auto for idle: %v", err)
	}
	rounds, _ := w.Param("rounds")
	if err := w.Add(rounds, " auto"); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(rounds, "10"); err == nil || !strings.Contains(err.Error(), "only value") {
		t.Errorf("10 after auto: %v", err)
	}
	if !IsAuto(w.Values["rounds"]) {
		t.Errorf("rounds = %v", w.Values["rounds"])
	}
	w = s.NewSweep(func(string, []string) string { return "" })
	rounds, _ = w.Param("rounds")
	w.Add(rounds, "10")
	if err := w.Add(rounds, "auto"); err == nil || !strings.Contains(err.Error(), "only value") {
		t.Errorf("auto after 10: %v", err)
	}
}
