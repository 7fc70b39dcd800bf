package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchunit"
)

// This file reads the lines of a results file as benchfmt.Reader reads
// them, and rejects what it rejects in its words. Its Reader copies every
// configuration line into each result, interns every unit through a map
// and tidies every value: over a third of reading a file whose header
// Read parses itself. Whatever benchfmt accepts still reads, so that a
// file edited by hand or written by another tool means here what it means
// to benchstat; TestReadMatchesReference holds the two to the same
// results and errors.

// benchLine is a benchmark line: "Benchmark", the name, an iteration
// count, then value and unit pairs.
type benchLine struct {
	name   string // without "Benchmark"
	values []benchValue
}

// benchValue is a value as written, before benchfmt would tidy it
// ("ns/round" into "sec/round"): the unit says how Read stores it.
type benchValue struct {
	x    float64
	unit string
}

// parse reads line, which starts with "Benchmark". skip reports a name
// alone (go test -v prints one as a benchmark starts), which benchfmt
// passes over; msg is why benchfmt rejects the line.
func (b *benchLine) parse(line string) (skip bool, msg string) {
	line = line[len("Benchmark"):]
	name, rest := field(line)
	if rest == "" && len(name) == len(line) {
		return true, ""
	}
	b.name = name
	iters, rest := field(rest)
	if iters == "" {
		return false, "missing iteration count"
	}
	if _, err := strconv.Atoi(iters); err != nil {
		why := err.(*strconv.NumError).Err
		if why == strconv.ErrRange && !underscoresOK(iters) {
			// benchfmt's Atoi (Go 1.13's) checks the underscores before
			// the digits: "9…9_" is badly written before it is too large.
			why = strconv.ErrSyntax
		}
		return false, "parsing iteration count: " + why.Error()
	}
	b.values = b.values[:0]
	for {
		var num, unit string
		if num, rest = field(rest); num == "" {
			if len(b.values) == 0 {
				return false, "missing measurements"
			}
			return false, ""
		}
		x, err := parseFloat(num)
		if err != nil {
			return false, "parsing measurement: " + err.(*strconv.NumError).Err.Error()
		}
		if unit, rest = field(rest); unit == "" {
			return false, "missing units"
		}
		b.values = append(b.values, benchValue{x, unit})
	}
}

// parseFloat is strconv.ParseFloat, faster for the counts most values
// are (as benchfmt's is): a whole number that fits an int64 converts
// exactly as ParseFloat rounds it.
func parseFloat(s string) (float64, error) {
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 || n > (math.MaxInt64-9)/10 {
			return strconv.ParseFloat(s, 64)
		}
		n = n*10 + int64(d)
	}
	return float64(n), nil
}

// underscoresOK reports whether every '_' in s stands between two
// digits, as Go's number syntax wants.
func underscoresOK(s string) bool {
	prev := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' && !isDigit(prev) || prev == '_' && !isDigit(c) {
			return false
		}
		prev = c
	}
	return prev != '_'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// unitMetadata is what a file's "Unit" lines said ("Unit ns/round
// assume=exact"), by tidied unit and key. benchstat reads them; Read only
// rejects what benchfmt rejects: a malformed pair, or a key given two
// values for one unit.
type unitMetadata map[[2]string]string

// check reads line if it is a unit line, and says why benchfmt rejects
// it; "" when it does not.
func (u *unitMetadata) check(line string) (msg string) {
	if !strings.HasPrefix(line, "Unit") {
		return ""
	}
	f, rest := field(line)
	if f != "Unit" {
		return ""
	}
	unit, rest := field(rest)
	if unit == "" {
		return "missing unit"
	}
	_, tidy := benchunit.Tidy(1, unit)
	for {
		var pair string
		if pair, rest = field(rest); pair == "" {
			return ""
		}
		k, v, ok := strings.Cut(pair, "=")
		if !ok || k == "" {
			return "expected key=value"
		}
		if *u == nil {
			*u = unitMetadata{}
		}
		key := [2]string{tidy, k}
		if have, ok := (*u)[key]; !ok {
			(*u)[key] = v
		} else if have != v {
			return fmt.Sprintf("metadata %s of unit %s already set to %s", k, unit, have)
		}
	}
}

// field splits s at its first white space, as benchfmt does: f is what
// comes before it (all of s if there is none), rest what follows the
// white space. White space is Unicode's; a byte that is not UTF-8 is not
// white space.
func field(s string) (f, rest string) {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiSpace[c] {
				return s[:i], strings.TrimLeftFunc(s[i+1:], unicode.IsSpace)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return s[:i], strings.TrimLeftFunc(s[i+n:], unicode.IsSpace)
		}
		i += n
	}
	return s, ""
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
