// Package controls escapes the characters of an input string that could
// act on a terminal or on a document instead of being shown: C0 and C1
// control characters (NUL, ESC, BEL, newline, ...), DEL, Unicode
// bidirectional formatting characters, the line and paragraph separators
// and bytes that are not valid UTF-8. Everything else, including non-ASCII
// letters and symbols, is kept as it is.
//
// An escaped character is written the way Go writes it in a quoted string
// (\x1b, \x00, \n, \u202e), so a reader can tell which byte it was.
package controls

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Is reports whether r is a character Escape rewrites.
func Is(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}

// Escape returns s with every control character, bidirectional formatting
// character and invalid UTF-8 byte replaced by its Go escape. A string
// without any is returned unchanged.
func Escape(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&0xf, 16))
		case Is(r):
			q := strconv.QuoteRuneToASCII(r) // '\x1b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s has nothing for Escape to do.
func clean(s string) bool {
	for i, r := range s {
		if Is(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return false
		}
	}
	return true
}
