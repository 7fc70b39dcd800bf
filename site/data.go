package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"measuredbook/dataset"
)

// Data is an experiment's raw result for download: every run of every
// combination, the combinations that failed and those the machine cannot
// measure. It is the JSON file's schema: Export writes the bytes
// json.MarshalIndent(d, "", "  ") gives for it, without building it.
type Data struct {
	Experiment string              `json:"experiment"`
	Probe      string              `json:"probe"`
	Set        string              `json:"set"`
	Machine    string              `json:"machine"`
	Source     string              `json:"source"`
	Start      string              `json:"start,omitempty"`
	Units      map[string]string   `json:"units"`
	Params     []string            `json:"params"`
	Runs       []map[string]any    `json:"runs"`
	Failures   []map[string]string `json:"failures,omitempty"`
	// Unavailable are the combinations the machine cannot measure, each
	// with its params and the probe's reason.
	Unavailable []map[string]string `json:"unavailable,omitempty"`
}

// Export is r (of set) as data/ID.json and data/ID.csv: the JSON holds
// everything, the CSV one line per run (the params, the run's number,
// then each metric in its unit).
//
// Both are appended by hand: marshalling a map per run by reflection was
// most of the cost of an export. A run's record is its params, "run" and
// its metrics, keys sorted; on a clash of names a metric the run has wins
// over a param, and a param over "run", as when the record was a map.
func Export(set string, r *dataset.Result) (jsonFile, csvFile []byte, err error) {
	metrics := make([]string, 0, len(r.Units))
	for m := range r.Units {
		metrics = append(metrics, m)
	}
	runs := 0
	for _, row := range r.Rows {
		runs += len(row.Runs)
		for _, run := range row.Runs {
			for m := range run {
				if !slices.Contains(metrics, m) {
					metrics = append(metrics, m)
				}
			}
		}
	}
	sort.Strings(metrics)
	keys := recordKeys(r.Order, "run", metrics)

	// Sized for short params and values, so that neither file grows more
	// than once.
	perRun := 16
	for _, k := range keys {
		perRun += len(k.prefix) + 16
	}
	j := make([]byte, 0, 512+runs*perRun+(len(r.Failures)+len(r.Unavailable))*(len(r.Order)+1)*48)
	c := make([]byte, 0, 64+runs*(8+14*(len(r.Order)+len(metrics))))

	source := r.Source
	if source == "" {
		source = "measured"
	}
	j = append(j, "{\n  \"experiment\": "...)
	j = appendJSONString(j, r.Experiment)
	j = append(j, ",\n  \"probe\": "...)
	j = appendJSONString(j, r.Probe)
	j = append(j, ",\n  \"set\": "...)
	j = appendJSONString(j, set)
	j = append(j, ",\n  \"machine\": "...)
	j = appendJSONString(j, r.Machine.Name)
	j = append(j, ",\n  \"source\": "...)
	j = appendJSONString(j, source)
	if !r.Start.IsZero() {
		// RFC 3339 is digits and -:TZ+, nothing to escape.
		j = append(j, ",\n  \"start\": \""...)
		j = append(r.Start.UTC().AppendFormat(j, time.RFC3339), '"')
	}
	j = append(j, ",\n  \"units\": {"...)
	units := 0
	for _, m := range metrics {
		u, ok := r.Units[m]
		if !ok {
			continue
		}
		if units > 0 {
			j = append(j, ',')
		}
		units++
		j = append(j, "\n    "...)
		j = appendJSONString(j, m)
		j = append(j, ": "...)
		j = appendJSONString(j, string(u))
	}
	if units > 0 {
		j = append(j, "\n  "...)
	}
	j = append(j, "},\n  \"params\": "...)
	switch {
	case r.Order == nil:
		j = append(j, "null"...)
	case len(r.Order) == 0:
		j = append(j, "[]"...)
	default:
		j = append(j, '[')
		for i, p := range r.Order {
			if i > 0 {
				j = append(j, ',')
			}
			j = append(j, "\n    "...)
			j = appendJSONString(j, p)
		}
		j = append(j, "\n  ]"...)
	}

	for i, p := range r.Order {
		if i > 0 {
			c = append(c, ',')
		}
		c = appendCSVField(c, p)
	}
	if len(r.Order) > 0 {
		c = append(c, ',')
	}
	c = append(c, "run"...)
	for _, m := range metrics {
		c = append(c, ',')
		if u := r.Units[m]; u != "" {
			c = appendCSVField(c, m+" ("+string(u)+")")
		} else {
			c = appendCSVField(c, m)
		}
	}
	c = append(c, '\n')

	j = append(j, ",\n  \"runs\": "...)
	if runs == 0 {
		j = append(j, "null"...)
	} else {
		j = append(j, '[')
	}
	// The run's value of each metric, looked up once for both files, and
	// where the CSV has its text.
	type cell struct {
		v       float64
		has     bool
		at, end int
	}
	cells := make([]cell, len(metrics))
	params := make([]string, len(r.Order))
	first := true
	for _, row := range r.Rows {
		for i, p := range r.Order {
			params[i] = row.Params[p]
		}
		for n, run := range row.Runs {
			for i, m := range metrics {
				cells[i].v, cells[i].has = run[m]
			}
			for _, v := range params {
				c = append(appendCSVField(c, v), ',')
			}
			c = strconv.AppendInt(c, int64(n+1), 10)
			for i := range metrics {
				c = append(c, ',')
				if x := &cells[i]; x.has {
					x.at = len(c)
					c = strconv.AppendFloat(c, x.v, 'g', -1, 64)
					x.end = len(c)
				}
			}
			c = append(c, '\n')

			if !first {
				j = append(j, ',')
			}
			first = false
			j = append(j, "\n    {"...)
			sep := false
			for _, k := range keys {
				switch {
				case k.metric >= 0 && cells[k.metric].has:
					j = appendSep(j, sep, k.prefix)
					// Shortest 'g' without an exponent is 'f''s text, as
					// JSON writes such a value: the CSV's is reused
					// (NaN and ±Inf have no 'e' but are JSON's error).
					x := cells[k.metric]
					if g := c[x.at:x.end]; !math.IsNaN(x.v) && !math.IsInf(x.v, 0) && bytes.IndexByte(g, 'e') < 0 {
						j = append(j, g...)
					} else if j, err = appendJSONFloat(j, x.v); err != nil {
						return nil, nil, err
					}
				case k.param >= 0:
					j = appendJSONString(appendSep(j, sep, k.prefix), params[k.param])
				case k.fixed:
					j = strconv.AppendInt(appendSep(j, sep, k.prefix), int64(n+1), 10)
				default:
					continue
				}
				sep = true
			}
			j = append(j, "\n    }"...)
		}
	}
	if runs > 0 {
		j = append(j, "\n  ]"...)
	}

	if len(r.Failures) > 0 {
		j = append(j, ",\n  \"failures\": ["...)
		failKeys := recordKeys(r.Order, "error", nil)
		for i, f := range r.Failures {
			j = appendStringRecord(j, i, failKeys, f.Params, r.Order, f.Err)
		}
		j = append(j, "\n  ]"...)
	}
	if len(r.Unavailable) > 0 {
		j = append(j, ",\n  \"unavailable\": ["...)
		unavailKeys := recordKeys(r.Order, "reason", nil)
		for i, u := range r.Unavailable {
			j = appendStringRecord(j, i, unavailKeys, u.Params, r.Order, u.Reason)
		}
		j = append(j, "\n  ]"...)
	}
	return append(j, "\n}\n"...), c, nil
}

// recordKey is one key of a record in the JSON file, and where its value
// comes from: metrics[metric], the param Order[param], or the record's
// fixed key; -1 where the name is no metric or no param.
type recordKey struct {
	prefix        []byte // the indented, quoted key and ": "
	metric, param int
	fixed         bool
}

// recordKeys is the sorted union of the params (order), the fixed key and
// the metrics, each name once.
func recordKeys(order []string, fixed string, metrics []string) []recordKey {
	names := make([]string, 0, len(order)+1+len(metrics))
	names = append(append(append(names, order...), fixed), metrics...)
	sort.Strings(names)
	names = slices.Compact(names)
	keys := make([]recordKey, len(names))
	// The prefixes share one array, large enough for every byte escaped
	// (at most 6 for one), so that it never moves.
	size := 0
	for _, n := range names {
		size += 12 + 6*len(n)
	}
	buf := make([]byte, 0, size)
	for i, n := range names {
		start := len(buf)
		buf = append(appendJSONString(append(buf, "\n      "...), n), ": "...)
		keys[i] = recordKey{prefix: buf[start:len(buf):len(buf)], metric: -1, param: slices.Index(order, n), fixed: n == fixed}
		if m, ok := slices.BinarySearch(metrics, n); ok {
			keys[i].metric = m
		}
	}
	return keys
}

// appendSep appends a record's key, after a comma unless it is the first.
func appendSep(b []byte, sep bool, prefix []byte) []byte {
	if sep {
		b = append(b, ',')
	}
	return append(b, prefix...)
}

// appendStringRecord appends the i-th record of failures or unavailable
// combinations: its params and the fixed key's value (a param of that
// name wins, as a later map write did).
func appendStringRecord(b []byte, i int, keys []recordKey, params map[string]string, order []string, fixed string) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n    {"...)
	for n, k := range keys {
		b = appendSep(b, n > 0, k.prefix)
		if k.param >= 0 {
			b = appendJSONString(b, params[order[k.param]])
		} else {
			b = appendJSONString(b, fixed)
		}
	}
	return append(b, "\n    }"...)
}

// appendJSONFloat appends f as encoding/json writes a float64: like
// JavaScript, 'f' but for exponents below -6 or from 21 on ("1e-7", not
// "1e-07"); NaN and infinities are its error.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, nil
}

// appendJSONString appends s quoted as encoding/json quotes it: <, > and &
// escaped for HTML, U+2028 and U+2029 for JavaScript, invalid UTF-8 as
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// appendCSVField appends s as encoding/csv's Writer writes a field: quoted
// (quotes doubled) when it holds a comma, quote or line break, starts with
// white space or is \. .
func appendCSVField(b []byte, s string) []byte {
	r, _ := utf8.DecodeRuneInString(s)
	if s != `\.` && !strings.ContainsAny(s, ",\"\r\n") && !unicode.IsSpace(r) {
		return append(b, s...)
	}
	b = append(b, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(append(b, s[:i+1]...), '"')
		s = s[i+1:]
	}
	return append(append(b, s...), '"')
}

// linkData adds to each experiment's provenance line (its figure's
// caption) the links to its raw data, for the experiments with data (has).
func linkData(dst, body []byte, has map[string]bool) ([]byte, bool) {
	out, last, changed := dst, 0, false
	for from := 0; ; {
		start, id, open := experimentFigure(body, from)
		if start < 0 {
			break
		}
		end := bytes.Index(body[open:], []byte("</figure>"))
		if end < 0 {
			break
		}
		// The links go at the end of the figure's last caption, inside
		// a span it may end with.
		prev, fig := from, open+end
		from = fig
		cut := bytes.LastIndex(body[prev:fig], []byte("</figcaption>"))
		if cut < 0 || prev+cut < open {
			continue
		}
		exp := html.UnescapeString(string(id))
		if !has[exp] {
			continue
		}
		cut += prev
		if bytes.HasSuffix(body[:cut], []byte("</span>")) {
			cut -= len("</span>")
		}
		e := html.EscapeString(exp)
		out = fmt.Appendf(append(out, body[last:cut]...),
			` <span class="mb-data">원자료 <a href="data/%s.csv" download>CSV</a> · <a href="data/%s.json" download>JSON</a></span>`, e, e)
		last, changed = cut, true
	}
	if !changed {
		return dst, false
	}
	return append(out, body[last:]...), true
}

// linkExperiments tells each live value drawing on an experiment shown on
// another page where that page is (data-page), for its popover's link.
func linkExperiments(dst, body []byte, l Links) ([]byte, bool) {
	return afterAttrs(dst, body, "data-exp", func(value []byte) string {
		id := html.UnescapeString(string(value))
		if p, ok := l.PageOf[id]; ok && p != l.Page {
			return ` data-page="` + html.EscapeString(p) + `"`
		}
		return ""
	})
}
