package report

import "bytes"

// InlineSVG returns an SVG document ready to be placed inside HTML, for
// example in a <figure>: a byte-order mark and everything before the root
// element (XML declaration, processing instructions, doctype, comments,
// white space) are removed, as is trailing white space. The rest is
// returned unchanged, in a new slice.
//
// InlineSVG does not parse or validate the document; input whose prolog
// is cut short is returned from the point where it could not be skipped.
func InlineSVG(svg []byte) []byte {
	b := bytes.TrimPrefix(svg, []byte("\xef\xbb\xbf"))
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		var end int
		switch {
		case bytes.HasPrefix(b, []byte("<?")):
			end = svgSkipPast(b, "?>")
		case bytes.HasPrefix(b, []byte("<!--")):
			end = svgSkipPast(b, "-->")
		case len(b) >= 9 && bytes.EqualFold(b[:9], []byte("<!DOCTYPE")):
			end = svgSkipDoctype(b)
		default:
			end = 0
		}
		if end <= 0 {
			return append([]byte(nil), bytes.TrimRight(b, " \t\r\n")...)
		}
		b = b[end:]
	}
}

// svgSkipPast returns the index just past the first marker in b, or 0.
func svgSkipPast(b []byte, marker string) int {
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		return 0
	}
	return i + len(marker)
}

// svgSkipDoctype returns the index just past the doctype declaration at
// the start of b, stepping over an internal subset in [ ], or 0.
func svgSkipDoctype(b []byte) int {
	inSubset := false
	var quote byte
	for i := 9; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			inSubset = true
		case c == ']':
			inSubset = false
		case c == '>' && !inSubset:
			return i + 1
		}
	}
	return 0
}
