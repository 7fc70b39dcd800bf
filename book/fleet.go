package book

import (
	"fmt"
	"slices"
	"strings"

	"measuredbook/fleet"
	"measuredbook/site"
	"measuredbook/view"
)

// fleetSite is where a build stands in the fleet's site (build --fleet):
// the book built from its own set at the site's root, and one copy of it
// per machine's set under machines/SET/. Every page links to the same
// page in each of them, and the root lists the machines (fleet.html).
type fleetSite struct {
	sets []string // the sets the site holds a copy of, in --fleet's order
	copy string   // this build's set when it is the copy machines/SET/; "": the root
	book string   // the root's set: the book's
}

// chooseFleet checks --fleet: set names that results/ holds (a typo gets a
// did-you-mean), and a build from another set than the book's (--machine)
// is the copy of one of them. Refusals are *UsageError.
func (b *Book) chooseFleet(opts Options, set string) (fleetSite, error) {
	f := fleetSite{book: SetFor(b.Config, Options{This: opts.This})}
	if len(opts.Fleet) == 0 {
		return f, nil
	}
	for _, s := range opts.Fleet {
		if err := CheckSet(opts.Results, "--fleet", s); err != nil {
			return f, err
		}
		if !slices.Contains(f.sets, s) {
			f.sets = append(f.sets, s)
		}
	}
	if opts.Machine != "" {
		if !slices.Contains(f.sets, set) {
			return f, &UsageError{fmt.Sprintf("--machine %s with --fleet %s: a build from another set is that set's copy machines/%s/ of the fleet's site, so --fleet must name it", set, strings.Join(opts.Fleet, ","), set)}
		}
		f.copy = set
	}
	return f, nil
}

// fleetNav is the switcher a page of the fleet's site carries: a link to
// the same page in the book and in each copy (Prefix + the page's name),
// and to the machines page.
type fleetNav struct {
	Label                   string
	Links                   []fleetLink
	Machines, MachinesLabel string
}

type fleetLink struct {
	Name, Prefix string
	Current      bool
}

// nav is f's switcher, nil outside a fleet's site.
func (f fleetSite) nav(w *view.Words) *fleetNav {
	if len(f.sets) == 0 {
		return nil
	}
	up := "" // from this build's folder to the site's root
	if f.copy != "" {
		up = "../../"
	}
	n := &fleetNav{Label: w.FleetNav, Machines: up + "fleet.html", MachinesLabel: w.MachinesLink,
		Links: []fleetLink{{Name: f.book + " (" + w.BookEdition + ")", Prefix: up, Current: f.copy == ""}}}
	if f.copy == f.book {
		// The copy of the book's own set is the book again: it stands for
		// the book's entry.
		n.Links[0].Prefix, n.Links[0].Current = "", true
	}
	for _, s := range f.sets {
		if s == f.book {
			continue // the book itself
		}
		l := fleetLink{Name: s, Prefix: up + "machines/" + s + "/"}
		if f.copy != "" {
			l.Prefix = "../" + s + "/"
		}
		if s == f.copy {
			l.Prefix, l.Current = "", true
		}
		n.Links = append(n.Links, l)
	}
	return n
}

// machines is the machines page's list: each set of the fleet with its
// machine, its copy's contents page and its comparison with the book's
// set on the metrics the chapters use (fleet.Compare, as go run . compare
// prints it).
func (b *Book) machines(res *Results, f fleetSite) ([]site.FleetMachine, error) {
	book, err := fleet.LoadSet(res.Dir, f.book, b.probes)
	if err != nil {
		return nil, err
	}
	var out []site.FleetMachine
	for _, s := range f.sets {
		m := site.FleetMachine{Set: s, Href: "machines/" + s + "/index.html"}
		for _, id := range b.Order {
			if r, ok := res.Header(s, id); ok {
				m.Machine = b.Config.Words.MachineSummary(r.Machine)
				break
			}
		}
		if s == f.book {
			m.Href = "index.html" // the book itself
		} else {
			other, err := fleet.LoadSet(res.Dir, s, b.probes)
			if err != nil {
				return nil, err
			}
			c, err := fleet.Compare(f.book, book, s, other, nil)
			if err != nil {
				return nil, err
			}
			c.Headline(b.Headline)
			t := c.Tally()
			m.Compare = b.Config.Words.CompareSummary(f.book, t.Compared, t.Higher, t.Lower, t.Same, t.Untested, t.Geomean)
		}
		out = append(out, m)
	}
	return out, nil
}
