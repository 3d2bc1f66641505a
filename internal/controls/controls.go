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
	"io"
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

// Writer escapes, in everything written through it, the characters Escape
// escapes except newline and tab, which lay out text. Wrap a terminal's
// stdout and stderr in one so that no input string printed on them can
// move the cursor, change colours or hide text. Each Write is escaped on
// its own: a character split across two writes is escaped byte by byte.
type Writer struct {
	w io.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap returns the underlying writer, to ask it whether it is a terminal.
func (cw *Writer) Unwrap() io.Writer { return cw.w }

// Write writes p with its control characters escaped, as EscapeText
// does. It reports len(p) when the escaped text was written whole.
func (cw *Writer) Write(p []byte) (int, error) {
	s := string(p)
	e := EscapeText(s)
	if e == s {
		return cw.w.Write(p)
	}
	if _, err := io.WriteString(cw.w, e); err != nil {
		return 0, err
	}
	return len(p), nil
}

// EscapeText is Escape for text laid out in lines: it keeps newlines and
// tabs, and escapes every other character Escape escapes.
func EscapeText(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && (Is(r) || r == utf8.RuneError) }) {
		return s
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		parts := strings.Split(body, "\t")
		for i, part := range parts {
			parts[i] = Escape(part)
		}
		b.WriteString(strings.Join(parts, "\t"))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
