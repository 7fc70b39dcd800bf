package expr

import "strings"

// Closest returns the candidate nearest to name by edit distance (insert,
// delete, substitute, or swap two adjacent letters; case ignored), or ""
// when none is near enough to be a plausible typo: within half the name's
// length, at most 3 edits. Ties go to the earlier candidate, so callers
// control the preference by ordering candidates.
func Closest(name string, candidates []string) string {
	if name == "" {
		return ""
	}
	n := []rune(strings.ToLower(name))
	limit := min(max((len(n)+1)/2, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			return c
		}
		if d := editDistance(n, []rune(strings.ToLower(c))); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: Levenshtein plus
// adjacent transpositions, the commonest typo ("raedy").
func editDistance(a, b []rune) int {
	// Three rolling rows: the transposition looks two rows back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean is the suffix every "unknown name" message ends with:
// " (did you mean X?)" naming Closest's pick, or "" when nothing is near.
func DidYouMean(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// suggest is DidYouMean's suffix or, when no name is near, the list of
// them after what they are: "; formats are dur, ns, …" ("" with none).
func suggest(name string, candidates []string, what string) string {
	if s := DidYouMean(name, candidates); s != "" {
		return s
	}
	if len(candidates) == 0 {
		return ""
	}
	return "; " + what + " " + strings.Join(candidates, ", ")
}

// Distance is the number of edits (insert, delete, substitute, swap two
// adjacent letters; case ignored) that make a into b.
func Distance(a, b string) int {
	return editDistance([]rune(strings.ToLower(a)), []rune(strings.ToLower(b)))
}
