package view

// The words a reader sees on a page come from one message table per
// language (Words; the tables are in langs.go), picked by book.yaml's
// lang: the verdicts, the notes and placeholders evaluation writes into
// the views, the renderer's, the layouts' and the site script's.
// Warnings and errors, read by the author, stay in English beside the
// code that finds them. Numbers are formatted alike in every language.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/probe"
)

// Verdict is a claim's verdict as a page shows it.
type Verdict int

// The verdicts a page shows.
const (
	Holds Verdict = iota
	Fails
	Inconclusive
	Unavailable // the claim is about what the machine cannot measure: no verdict
)

// verdicts gives each verdict its class (mb-CLASS) and mark; its word is
// the language's (Words.Verdicts).
var verdicts = [...]struct{ class, mark string }{
	Holds:        {"holds", "✓"},
	Fails:        {"fails", "✗"},
	Inconclusive: {"inconclusive", "?"},
	Unavailable:  {"unavailable", "–"},
}

// VerdictOf is the verdict shown for t, or Unavailable when unavailable
// (why the claim does not apply) is set.
func VerdictOf(t expr.Truth, unavailable string) Verdict {
	switch {
	case unavailable != "":
		return Unavailable
	case t == expr.True:
		return Holds
	case t == expr.False:
		return Fails
	}
	return Inconclusive
}

// Class is the verdict's CSS class without its mb- prefix.
func (v Verdict) Class() string { return verdicts[v].class }

// NoFigure is a figure's place when there is none, in every language;
// its title says why.
const NoFigure = "—"

// Count is a phrase with a number, in its singular and plural forms
// (fmt formats of one %d; Korean has one form for both).
type Count struct{ One, Many string }

// Of is the phrase for n.
func (c Count) Of(n int) string {
	if n == 1 {
		return fmt.Sprintf(c.One, n)
	}
	return fmt.Sprintf(c.Many, n)
}

// Words is one language's message table. A field that ends in a format
// is a fmt format whose arguments are in the order the field's comment
// gives (a language puts them where it needs with %[2]s and the like).
type Words struct {
	Lang string // the code book.yaml's lang names it by

	// The verdicts' words, by Verdict.
	Verdicts [4]string

	// Figures, cells and provenance lines.
	ThisMachine     string // the build's own machine, unnamed
	NotMeasured     string // a figure with no result
	FailedCell      string // a table cell whose combination failed
	NoSuchMetric    string // a cell of a metric the result lacks
	TranscribedCell string // a cell of a transcribed set
	MeasuredMark    string // a provenance line of a measured set
	TranscribedMark string // a provenance line of a transcribed set
	SameEachRun     string // a spread of zero
	RestSameEachRun string // the metrics a spread leaves out
	DashedNote      string // what a plot's dashed series are
	CumulativeShare string // a distribution plot's y axis
	FixedPrefix     string // an experiment's fixed params
	SizedCount      string // a count the runner sizes (auto), not yet measured
	RuleWord        string // a claim decided by rule
	MeasuredPrefix  string // the values a claim was decided on
	SectionLink     string // a heading's link to itself
	TableWord       string // a table's scroll region
	PlotWord        string // a plot's scroll region
	RawData         string // an experiment's raw data for download
	PlotTable       string // the summary of a plot's table of its points
	SeriesHead      string // that table's column of series
	RangeHead       string // its column of min–max
	RunsHead        string // its column of runs
	// An experiment's "measure it yourself", folded under its box.
	Rerun          string // its summary
	ProbeFormat    string // probe: what measures the experiment (HTML; probe in <code>)
	MethodMore     string // the summary of the rest of the probe's method
	RunsAutoFormat string // precision ("±5 %", or RunsAutoAny): runs: auto
	RunsAutoAny    string // runs: auto's precision when it is not known
	RunsFixed      Count  // runs: N
	MeasureHere    string // before the command that measures it here
	CompareFormat  string // book's set: before the command that compares
	AfterFormat    string // the build, bundle and import commands: what else to do (HTML)
	SpreadNote     string // the hover of a provenance line's spread
	// RuleNote is the hover of a claim a probe decides by rule: its
	// verdict restates the probe's definition, it is not a finding.
	RuleNote string

	UnavailableFormat  string // reason: where the set's machine cannot measure a combination
	NotAvailableFormat string // what, OS: the usual reason, "kqueue is not available on linux"
	// StaleWords name what a stale result's reasons say changed (the
	// build's English: "probe code", "params", "runs").
	StaleWords       map[string]string
	StaleFormat      string // reasons: a stale result's mark
	ChangedFormat    string // what, "A → B)": one reason a result is stale
	MissingInFormat  string // set, experiment: another set has no result
	MissingRunFormat string // experiment: the build's set has no result
	MixedFormat      string // n: a value of n machines' figures
	PooledFormat     string // n (grouped): a quantile of every run's samples pooled
	ThinSuffixFormat string // n (grouped): the mark of a tail quantile of too few samples
	ThinNoteFormat   string // n (grouped), min: its hover's note
	// ProbeDocs: a table head's hover may show the probe's own doc of its
	// param or metric, which is in English (a page in another language
	// shows none rather than mix languages).
	ProbeDocs           bool
	SettingFormat       string // experiment, param: the setting a value shows
	FingerprintFormat   string // machine: the machine whose recorded fact a value shows
	TranscribedFormat   string // machine: a figure of a transcribed set
	NotHereFormat       string // source: what follows TranscribedFormat in a value's note
	OtherSetFormat      string // machine, set: a figure of another machine's set
	NoResultOnFormat    string // machine: its set has no result
	NotOnFormat         string // machine: a cell it has no figure for
	NoFiguresFormat     string // experiment, metric: a plot with no figures
	NoDistFormat        string // experiment: a distribution plot without quantiles
	NotApplicableFormat string // why: figures an optional metric does not apply to
	NotApplicableOf     string // which, why: the same, naming which
	PlotTitleFormat     string // x, y: a plot's default title
	DistTitleFormat     string // metric: a distribution plot's default title
	SpreadFormat        string // spread: a provenance line's spread part
	Failures            Count  // failed combinations in a provenance line
	BelowTenthFormat    string // metric: a spread under 0.1 %
	TranscribedMachine  string // machine: the machine of a transcribed set
	Runs                Count  // runs of a result's combinations
	RunsRangeFormat     string // lo, hi: runs from lo to hi
	NoInterval          string // after Runs: no 95 % interval yet
	BudgetFormat        string // budget: the runs stopped at the time budget
	AtMostFormat        string // runs: the runs stopped at their cap
	ShortOfFormat       string // precision, why: the interval missed its precision
	NoRecordFormat      string // machine, fact: a fact the machine did not record
	NotInOriginalFormat string // what: a figure the transcribed set lacks
	StaleLacksFormat    string // what, reasons: a figure a stale result lacks
	FailedFormat        string // what: a combination that failed to measure
	FailedOnFormat      string // set, what: the same, on another machine's set
	Cores               Count  // a machine's cores, in MachineSummary
	// LimitWords name the environment page's limits (a fingerprint's
	// Limits keys) and say what each counts.
	LimitWords     map[string]string
	LimitFormat    string // key: a limit LimitWords does not name
	NoLimit        string // a limit of max
	SettingHeadFmt string // words: a param's column beside a metric of the same words
	MeasuredHdFmt  string // words: that metric's column

	// The layouts: header, sidebar, pager, footer, contents page.
	SkipToMain       string
	SearchHeader     string // the header's search form
	Search           string // its placeholder, and the search page's title
	SearchBook       string // its box
	ThemeDark        string // the theme toggle, in the light theme
	ThemeLight       string // the theme toggle, in the dark theme
	Contents         string // the sidebar and the contents page's heading
	AboutBook        string // the sidebar's link to the contents page
	ClaimsPage       string // the claims page's title
	EnvironmentPage  string // the environment page's title
	Pager            string // the previous and next chapter's links
	Previous, Next   string
	Also             [3]string // around the claims page's link and the environment page's, under the contents
	MachineHead      string    // the contents page's heading over where the figures come from
	RefNote          [3]string // the footer's note on reference figures: before, "like this" marked, after
	SearchPage       string    // the search page's form
	SearchFor        string    // its box's label
	Find             string    // its button
	NeedsJS          string    // the search page without JavaScript
	NoResultsSuffix  string    // machine: the build's set has no results at all
	ChapterFormat    string    // n: a chapter by its number
	And              string    // between the last two of a list
	NumberingFormat  string    // chapters: the chapters not written yet
	EmptySetFormat   string    // set: a build's set with no results
	TranscribedSrc   string    // set: the build's figures were transcribed
	BookMachine      string    // machine: the figures are the book's machine's
	OtherMachine     string    // set, machine: the figures are another set's
	MissingGaps      Count     // experiments with no result
	StaleGaps        Count     // experiments shown from a stale result
	FailedGaps       Count     // experiments with failed combinations
	ClaimsNAFormat   string    // word, n: claims about what the machine cannot measure
	ClaimsIntro      string    // total, holds word, n, fails word, n, inconclusive word, n, ClaimsNAFormat or "", set
	EnvIntro         string
	OwnSet           string // the environment page's kinds of set
	NoResults        string
	ReferenceSet     string
	OtherSet         string
	AbsentSetFormat  string // set: a machine the book shows whose set is not here (HTML; set escaped)
	FingerprintOf    string // set: the caption of a machine's fingerprint
	EnvRows          map[string]string
	Yes, No          string
	ExperimentsCount Count  // n, then the list, on the environment page
	SourcesHead      string // a transcribed set's sources

	// The book's structure: footnotes, callouts, numbered figures and
	// tables (PlotWord and TableWord name them), references to chapters
	// and headings, and a chapter's sources.
	FootnoteBack      string            // the title of a footnote's link back to where it is referred to
	CalloutTitles     map[string]string // the callouts' titles, by kind (> [!NOTE])
	NumberedFormat    string            // word, chapter, n: a figure's or table's number ("그림 2.3")
	QuoteFormat       string            // title: a heading or an unnumbered chapter referred to by its title
	SectionInFormat   string            // chapter (ChapterFormat's), quoted title: a heading of another chapter
	ReferencesHeading string            // the heading of a chapter's sources
	// The whole book: the contents page's line linking print.html and the
	// EPUB (WholeBook around OnePage, and around EPUBFile when there is
	// one), and the EPUB's own words.
	WholeBook    [5]string
	OnePage      string
	ChapterPages string // print.html's link to the site, a page a chapter
	EPUBFile     string
	EPUB         EPUBWords

	// The fleet's site: the switcher on every page between the book and
	// each machine's copy of it (machines/NAME/), and the page that lists
	// the machines.
	FleetNav         string // the switcher's label
	MachinesTitle    string // the machines page's title
	MachinesLink     string // the switcher's link to the machines page
	BookEdition      string // the published book, among the copies
	MachineEdition   string // a copy's link on the machines page
	MachinesIntro    string
	CompareNone      string // book's set: nothing to compare
	CompareSumFormat string // book's set, compared, higher, lower, same
	CompareUntested  string // n: figures with no runs to test
	CompareGeomean   string // geomean: of the medians' ratios
	CompareEnd       string
	BackToText       string // a source's links back to where it is cited
	Accessed         string // before the date a web page was read (urldate)

	// The stylesheet's words (its generated content: a wide table's
	// hint, the provenance shown without the script and in print), by
	// custom property (--mb-w-KEY).
	Style map[string]string

	// The site script's words, as the script takes them (its "{}"
	// stands for a number or a name).
	Script map[string]string
}

// The languages a book may be written in, by book.yaml's lang.
var langs = []*Words{Korean, English}

// WordsFor is the message table of lang; ok=false when there is none.
func WordsFor(lang string) (w *Words, ok bool) {
	if i := slices.IndexFunc(langs, func(w *Words) bool { return w.Lang == lang }); i >= 0 {
		return langs[i], true
	}
	return Korean, false
}

// Langs lists the languages there are tables of.
func Langs() []string {
	var out []string
	for _, w := range langs {
		out = append(out, w.Lang)
	}
	return slices.Clip(out)
}

// Verdict is the verdict's word.
func (w *Words) Verdict(v Verdict) string { return w.Verdicts[v] }

// Shown is the verdict's mark and word, as a page shows it.
func (w *Words) Shown(v Verdict) string { return verdicts[v].mark + " " + w.Verdicts[v] }

// UnavailableNote is the text where the set's machine cannot measure a
// combination: the probe's own reason, in English in the results, in the
// book's words when it is the usual one ("kqueue is not available on
// linux": "linux에 없는 kqueue").
func (w *Words) UnavailableNote(reason string) string {
	if what, goos, ok := strings.Cut(reason, " is not available on "); ok && !strings.Contains(goos, " ") {
		reason = fmt.Sprintf(w.NotAvailableFormat, what, goos)
	}
	return fmt.Sprintf(w.UnavailableFormat, reason)
}

// StaleNote is a stale result's mark.
func (w *Words) StaleNote(why string) string { return fmt.Sprintf(w.StaleFormat, w.staleReasons(why)) }

// staleReasons puts the build's reasons a result is stale, in English,
// "; " between them, in the book's words: each "WHAT changed (A → B)" as
// "프로브 코드 바뀜 (A → B)", a param's name kept as written.
func (w *Words) staleReasons(why string) string {
	parts := strings.Split(why, "; ")
	for i, p := range parts {
		what, change, ok := strings.Cut(p, " changed (")
		if !ok {
			continue
		}
		if word, known := w.StaleWords[what]; known {
			what = word
		}
		parts[i] = fmt.Sprintf(w.ChangedFormat, what, change)
	}
	return strings.Join(parts, "; ")
}

// MissingNote is the placeholder of a result set (the build's own: "")
// holds no result of experiment id.
func (w *Words) MissingNote(set, id string) string {
	if set != "" {
		return fmt.Sprintf(w.MissingInFormat, set, id)
	}
	return fmt.Sprintf(w.MissingRunFormat, id)
}

// NotApplicable is the note on figures an optional metric does not apply
// to (which, "" for a cell), and why.
func (w *Words) NotApplicable(which, why string) string {
	if which == "" {
		return fmt.Sprintf(w.NotApplicableFormat, why)
	}
	return fmt.Sprintf(w.NotApplicableOf, which, why)
}

// RunsOf says how many runs a result's combinations had, lo to hi.
func (w *Words) RunsOf(lo, hi int) string {
	if lo == hi {
		return w.Runs.Of(hi)
	}
	return fmt.Sprintf(w.RunsRangeFormat, lo, hi)
}

// Interval follows RunsOf under runs: auto: the widest 95 % interval of a
// headline median in percent ("" when there was none yet), and when it
// missed the precision asked, why the runs stopped (a results file's
// stopped: line, which is English).
func (w *Words) Interval(interval string, reached bool, precision float64, why string) string {
	s := w.NoInterval
	if interval != "" {
		s = ", ±" + interval + " %"
	}
	if reached {
		return s
	}
	switch {
	case strings.HasPrefix(why, "budget reached (") && strings.HasSuffix(why, ")"):
		why = fmt.Sprintf(w.BudgetFormat, strings.TrimSuffix(strings.TrimPrefix(why, "budget reached ("), ")"))
	case strings.HasPrefix(why, "at most ") && strings.HasSuffix(why, " runs"):
		why = fmt.Sprintf(w.AtMostFormat, strings.TrimSuffix(strings.TrimPrefix(why, "at most "), " runs"))
	}
	return s + fmt.Sprintf(w.ShortOfFormat, precision, why)
}

// The gaps' placeholders: a figure the page cannot show, and why.

// StaleLacksNote: the stale result (why) was measured without what.
func (w *Words) StaleLacksNote(what, why string) string {
	return fmt.Sprintf(w.StaleLacksFormat, what, w.staleReasons(why))
}

// FailedNote: the combination what failed to measure (why), on set when
// it is another machine's; why may be "".
func (w *Words) FailedNote(set, what, why string) string {
	if why != "" {
		what += ": " + why
	}
	if set != "" {
		return fmt.Sprintf(w.FailedOnFormat, set, what)
	}
	return fmt.Sprintf(w.FailedFormat, what)
}

// MachineSummary is the one-line description of a machine shown in
// provenance: "AMD EPYC, 코어 2개, 24 GiB, OS, kernel, Go release".
func (w *Words) MachineSummary(f dataset.Fingerprint) string {
	var parts []string
	if f.CPU != "" {
		parts = append(parts, f.CPU+", "+w.Cores.Of(f.Cores))
	}
	if f.Memory > 0 {
		parts = append(parts, fmt.Sprintf("%.0f GiB", float64(f.Memory)/(1<<30)))
	}
	for _, s := range []string{f.OS, f.Kernel, f.Go} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// Limit is the environment page's row of limit key: its words, and its
// value with each number grouped ("20,000/20,000"; "max": none).
func (w *Words) Limit(key, value string) (words, shown string) {
	words, ok := w.LimitWords[key]
	if !ok {
		words = fmt.Sprintf(w.LimitFormat, key)
	}
	parts := strings.Split(value, "/")
	for i, p := range parts {
		parts[i] = Grouped(p)
		if p == "max" {
			parts[i] = w.NoLimit
		}
	}
	return words, strings.Join(parts, "/")
}

// Grouped is a whole number v written as prose writes it ("4,000"); any
// other v as it is.
func Grouped(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v
	}
	g, err := expr.Value{Num: float64(n)}.Format("int")
	if err != nil {
		return v
	}
	return g
}

// List joins items as the language lists them: "3장과 4장", "chapters 3
// and 4" is ChapterFormat's business; this is "a, b and c".
func (w *Words) List(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + w.And + items[len(items)-1]
}

// StyleWords is every word the stylesheet writes, by custom property
// without its --mb-w- prefix: Style, and the words it shares with the
// pages.
func (w *Words) StyleWords() map[string]string {
	before, after, _ := strings.Cut(w.MixedFormat, "%d")
	m := map[string]string{"transcribed": w.TranscribedCell, "mixed": before, "mixed-after": after}
	maps.Copy(m, w.Style)
	return m
}

// ScriptWords is every word the site script writes, by its key in the
// script: Script, and the words it shares with the pages.
func (w *Words) ScriptWords() map[string]string {
	m := map[string]string{
		"themeDark": w.ThemeDark, "themeLight": w.ThemeLight,
		"mixed":       " (" + strings.Replace(w.MixedFormat, "%d", "{}", 1) + ")",
		"transcribed": w.TranscribedCell,
	}
	maps.Copy(m, w.Script)
	return m
}

// ID is an element id made of words s, as a heading's: its spaces as
// hyphens, in lower case ("측정한 기계": "측정한-기계").
func (w *Words) ID(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "-")) }

// Numbered is a figure's or a table's number: "그림 2.3" (word PlotWord
// or TableWord, the chapter's order, its place in the chapter), or "그림 3"
// in a document that is no chapter of the book (order 0).
func (w *Words) Numbered(word string, chapter, n int) string {
	if chapter == 0 {
		return fmt.Sprintf("%s %d", word, n)
	}
	return fmt.Sprintf(w.NumberedFormat, word, chapter, n)
}

// ChapterRef is a reference to a chapter: "2장", or its title when it has
// no order.
func (w *Words) ChapterRef(chapter int, title string) string {
	if chapter == 0 {
		return fmt.Sprintf(w.QuoteFormat, title)
	}
	return fmt.Sprintf(w.ChapterFormat, chapter)
}

// SectionRef is a reference to a heading: its text in quotes, after its
// chapter when that is another one ("2장 ‘…’").
func (w *Words) SectionRef(chapter int, other bool, title string) string {
	if other && chapter != 0 {
		return fmt.Sprintf(w.SectionInFormat, fmt.Sprintf(w.ChapterFormat, chapter), fmt.Sprintf(w.QuoteFormat, title))
	}
	return fmt.Sprintf(w.QuoteFormat, title)
}

// PooledNote is the hover note of a quantile taken from every run's n
// samples pooled.
func (w *Words) PooledNote(n int) string {
	return fmt.Sprintf(w.PooledFormat, Grouped(strconv.Itoa(n)))
}

// ThinTail marks a tail quantile taken from n samples, too few for it
// to mean what it says (probe.Metric.ThinTail): a visible suffix and the
// hover's note.
func (w *Words) ThinTail(n int) (suffix, note string) {
	g := Grouped(strconv.Itoa(n))
	return fmt.Sprintf(w.ThinSuffixFormat, g), fmt.Sprintf(w.ThinNoteFormat, g, probe.MinTailSamples)
}

// HeadTitle is the hover of a table's head naming a probe's param or
// metric, given the probe's own doc (see ProbeDocs).
func (w *Words) HeadTitle(doc string) string {
	if w.ProbeDocs {
		return doc
	}
	return ""
}

// EPUBWords are what the EPUB writes itself: its contents, and the note
// on each figure that the site's popover shows (a reader has no hover).
type EPUBWords struct {
	Contents, Notes, Back string
	Median, Reference     string
	MixedFormat           string // n: figures of n machines combined
	Range, MinMax, Runs   string
	RunsFormat            string // runs
	Machine, Date, Source string
	Transcribed           string
	OtherSetFormat        string // set
	ExperimentFormat      string // experiment id: the link to it
}

// CompareSummary says in a sentence how a machine's figures stand against
// the book's machine's (fleet.Tally's numbers): book is the book's set.
func (w *Words) CompareSummary(book string, compared, higher, lower, same, untested int, geomean float64) string {
	if compared == 0 {
		return fmt.Sprintf(w.CompareNone, book)
	}
	s := fmt.Sprintf(w.CompareSumFormat, book, compared, higher, lower, same)
	if untested > 0 {
		s += fmt.Sprintf(w.CompareUntested, untested)
	}
	if geomean > 0 {
		s += fmt.Sprintf(w.CompareGeomean, geomean)
	}
	return s + w.CompareEnd
}
