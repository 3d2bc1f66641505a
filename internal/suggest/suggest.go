// Package suggest finds the known name a mistyped one was probably meant
// to be, for "did you mean" hints in error messages.
package suggest

import "strings"

// maxLen bounds the names Closest compares: a longer input is no typo of
// a short name, and the distance costs len(s)·len(candidate).
const maxLen = 64

// Closest returns the candidate nearest to s when it is a plausible typo
// (edit distance at most 2, and less than half of s), else "".
func Closest(s string, candidates []string) string {
	if len(s) > maxLen {
		return ""
	}
	best, bestDist := "", 3
	for _, c := range candidates {
		if len(c) > maxLen {
			continue
		}
		if d := Distance(s, c); d < bestDist && 2*d < len(s) {
			best, bestDist = c, d
		}
	}
	return best
}

// Prefixed returns the candidates that start with s followed by a
// separator ("latency" → "latency-ttft", "latency-tpot"), in their order.
func Prefixed(s string, candidates []string) []string {
	var out []string
	if s == "" {
		return nil
	}
	for _, c := range candidates {
		if rest, ok := strings.CutPrefix(c, s); ok && rest != "" && strings.ContainsRune("-._", rune(rest[0])) {
			out = append(out, c)
		}
	}
	return out
}

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbouring
// letters ("reprot" → "report") each cost 1.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
