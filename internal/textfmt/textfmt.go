// Package textfmt writes the few small pieces of text that every stage of
// benchnote prints the same way: a count with its noun in the right
// number ("1 run", "3 runs"), digits grouped in thousands ("1,234,567"),
// a string from the inputs clipped to a length, a p-value, and a dash
// for an empty cell.
//
// It knows no benchnote type and imports nothing of the project, so every
// package, ingest first, can use it. It does not round statistics: how a
// figure is rounded is the report's rule (report's fmtNum).
package textfmt

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Integer is a count: an int or an int64 (row counts and byte sizes).
type Integer interface{ ~int | ~int64 }

// Plural is one when n is 1, else many: the noun, or the verb, that agrees
// with n ("run"/"runs", "is"/"are"). Zero takes many: "0 runs".
func Plural[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the noun that agrees with it: "1 run", "3 runs",
// "0 runs". The digits are not grouped ("1234 rows"); for large counts
// write Thousands(n) + " " + Plural(n, one, many).
func Count[N Integer](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Plural(n, one, many)
}

// Thousands writes n with a comma between groups of three digits, the
// sign in front: 1234567 is "1,234,567", -1234 is "-1,234".
func Thousands[N Integer](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	b := make([]byte, 0, len(sign)+len(s)+len(s)/3)
	b = append(b, sign...)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// Clip shortens s to at most n runes (n ≥ 1), its last rune "…" when it
// is cut: Clip("abcdef", 4) is "abc…". It copies at most n runes, however
// long s is.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[:end] + "…"
}

// ClipBytes keeps at most n bytes of s, cut back to a rune boundary, and
// appends "…" when it cuts: ClipBytes("abcdef", 4) is "abcd…". Unlike
// Clip it bounds the bytes copied from s, not the runes shown: ingest
// uses it on values from files of any encoding.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// OrDash is s, or "—" when s is empty: a table cell that has nothing to
// say still says so.
func OrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// PValue writes a p-value with 3 significant figures ("0.0421", "0.5"),
// "< 0.0001" below 0.0001 and "n/a" for NaN.
func PValue(p float64) string {
	if math.IsNaN(p) {
		return "n/a"
	}
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}
