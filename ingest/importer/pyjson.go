package importer

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Bounds that keep a hostile file from taking unbounded memory: the JSON
// decoder buffers one token at a time, so no token may be longer than this.
const (
	// maxStringBytes is the longest string accepted (a generated text, a
	// traceback).
	maxStringBytes = 64 << 20
	// maxLiteralBytes is the longest number or literal accepted.
	maxLiteralBytes = 512
)

// pyLiteral marks a string that stood for one of Python's non-standard JSON
// literals, or for a number too long to keep; a real string never starts
// with a NUL byte.
const pyLiteral = "\x00py:"

// pyLong marks, after pyLiteral, a number longer than maxLiteralBytes:
// "long:" then its length, ":", "1" when it is all digits (an integer)
// or "0", ":" and its first longPrefix characters.
const pyLong = "long:"

// longPrefix is how much of a long number is kept, for messages.
const longPrefix = 20

// pyJSON reads JSON as Python's json.dumps writes it: the bare literals
// NaN, Infinity and -Infinity (which strict JSON, and Go's decoders, reject)
// are turned into the strings "\u0000py:NaN" and so on, which the number
// readers accept. It also refuses strings longer than maxStringBytes and
// literals longer than maxLiteralBytes, so that a hostile file fails
// instead of growing the decoder's buffer without bound. A number longer
// than maxLiteralBytes is valid JSON but more than a float64 holds: it
// becomes the string "\u0000py:long:N:I:PREFIX" (see pyLong), which the
// number readers refuse at its JSON path, and the rest of the file is
// still read.
type pyJSON struct {
	r   io.Reader
	buf []byte // read buffer
	out []byte // converted bytes; out[pos:] not yet returned
	pos int
	err error // the reader's error, returned once out is drained

	inString bool
	escape   bool
	strLen   int
	lit      []byte // a number or literal being collected, outside strings
	offset   int64  // input bytes consumed, for messages
	// longLen counts the bytes of a number longer than maxLiteralBytes,
	// of which lit keeps the first longPrefix; longInt is set while it is
	// all digits (after an optional minus sign).
	longLen int
	longInt bool
	// maxString is the longest string accepted (maxStringBytes).
	maxString int

	// outBase is the output offset of out[0]; shifts record where a
	// rewritten literal lengthened the output, so that an offset the
	// decoder reports can be turned back into one of the input.
	outBase int64
	shifts  []shift
}

// shift says that output from offset at on is extra bytes longer than
// the input.
type shift struct{ at, extra int64 }

// inputOffset converts an offset in the converted output into the offset
// of the same byte in the input.
func (p *pyJSON) inputOffset(out int64) int64 {
	i := sort.Search(len(p.shifts), func(i int) bool { return p.shifts[i].at > out })
	if i == 0 {
		return out
	}
	return out - p.shifts[i-1].extra
}

func newPyJSON(r io.Reader) *pyJSON {
	return &pyJSON{r: r, buf: make([]byte, 256<<10), maxString: maxStringBytes}
}

// Read implements io.Reader.
func (p *pyJSON) Read(dst []byte) (int, error) {
	for p.pos == len(p.out) {
		if p.err != nil {
			return 0, p.err
		}
		n, err := p.r.Read(p.buf)
		p.outBase += int64(len(p.out))
		p.out, p.pos = p.out[:0], 0
		if n > 0 {
			if cerr := p.convert(p.buf[:n]); cerr != nil {
				// What was converted before the bad literal is still
				// returned, so the decoder fails where the literal is.
				p.err = cerr
				continue
			}
		}
		if err != nil {
			if err == io.EOF {
				p.flushLiteral()
			}
			p.err = err
		}
	}
	n := copy(dst, p.out[p.pos:])
	p.pos += n
	return n, nil
}

// convert appends in to p.out, rewriting Python literals.
func (p *pyJSON) convert(in []byte) error {
	for i := 0; i < len(in); {
		if p.inString {
			if p.escape {
				p.escape = false
				p.out = append(p.out, in[i])
				p.strLen++
				i++
				continue
			}
			j := bytes.IndexAny(in[i:], "\"\\")
			if j < 0 {
				j = len(in) - i
			}
			p.strLen += j
			if p.strLen > p.maxString {
				return fmt.Errorf("byte %d: a string longer than %d bytes; refusing to buffer it", p.offset+int64(i), p.maxString)
			}
			p.out = append(p.out, in[i:i+j]...)
			i += j
			if i == len(in) {
				break
			}
			c := in[i]
			p.out = append(p.out, c)
			i++
			if c == '\\' {
				p.escape = true
			} else {
				p.inString = false
			}
			continue
		}
		c := in[i]
		switch {
		case c == '"':
			p.flushLiteral()
			p.inString, p.strLen = true, 0
			p.out = append(p.out, c)
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
			if p.longLen > 0 {
				if !isNumberByte(c) {
					return fmt.Errorf("byte %d: a literal longer than %d bytes", p.offset+int64(i), maxLiteralBytes)
				}
				p.longLen++
				p.longInt = p.longInt && c >= '0' && c <= '9'
				break
			}
			p.lit = append(p.lit, c)
			if len(p.lit) > maxLiteralBytes {
				if !isNumberText(p.lit) {
					return fmt.Errorf("byte %d: a literal longer than %d bytes", p.offset+int64(i), maxLiteralBytes)
				}
				p.longLen = len(p.lit)
				digits := strings.TrimPrefix(string(p.lit), "-")
				p.longInt = strings.Trim(digits, "0123456789") == ""
				p.lit = p.lit[:longPrefix]
			}
		default:
			p.flushLiteral()
			p.out = append(p.out, c)
		}
		i++
	}
	p.offset += int64(len(in))
	return nil
}

// flushLiteral writes the collected literal, rewritten when it is one of
// Python's or a number too long to keep.
func (p *pyJSON) flushLiteral() {
	if len(p.lit) == 0 {
		return
	}
	in, before := len(p.lit), len(p.out)
	switch {
	case p.longLen > 0:
		in = p.longLen
		integer := "0"
		if p.longInt {
			integer = "1"
		}
		p.out = append(p.out, '"')
		p.out = append(p.out, `\u0000py:`+pyLong+strconv.Itoa(p.longLen)+":"+integer+":"...)
		p.out = append(p.out, p.lit...)
		p.out = append(p.out, '"')
		p.longLen = 0
	case string(p.lit) == "NaN" || string(p.lit) == "Infinity" || string(p.lit) == "-Infinity":
		p.out = append(p.out, '"')
		p.out = append(p.out, `\u0000py:`...)
		p.out = append(p.out, p.lit...)
		p.out = append(p.out, '"')
	default:
		p.out = append(p.out, p.lit...)
	}
	p.lit = p.lit[:0]
	if extra := int64(len(p.out) - before - in); extra != 0 {
		if n := len(p.shifts); n > 0 {
			extra += p.shifts[n-1].extra
		}
		p.shifts = append(p.shifts, shift{at: p.outBase + int64(len(p.out)), extra: extra})
	}
}

// isNumberByte reports whether c may appear in a JSON number.
func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// isNumberText reports whether lit may be the start of a JSON number: a
// digit or minus sign first, then only the bytes of a number.
func isNumberText(lit []byte) bool {
	if len(lit) == 0 || !(lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9') {
		return false
	}
	for _, c := range lit {
		if !isNumberByte(c) {
			return false
		}
	}
	return true
}
