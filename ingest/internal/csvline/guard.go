package csvline

import (
	"bytes"
	"fmt"
	"io"
)

// utf8BOM is the byte order mark some spreadsheet tools write first.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Guard sits between a CSV file and encoding/csv. It follows the quoting
// exactly as encoding/csv does with LazyQuotes set, without changing a byte,
// to stop two things encoding/csv lets through:
//
//   - a record longer than max bytes, reported as soon as it is seen, before
//     encoding/csv has buffered it;
//   - a quoted field still open at the end of the file, which encoding/csv
//     (with LazyQuotes) silently closes there, swallowing every line after
//     the quote into one field. It is reported at the line where the quote
//     opened.
//
// It scans with bytes.IndexByte, so a plain line costs two vectorised scans.
type Guard struct {
	r   io.Reader
	max int

	offset      int64 // bytes seen
	bomBytes    int   // bytes of a leading byte order mark seen
	line        int   // 1-based line of the next byte
	recordLine  int   // line where the current record starts
	recordBytes int   // bytes of the current record so far
	field       int   // 0-based field of the current record
	fieldStart  bool  // the next byte starts a field
	inQuotes    bool  // inside a quoted field
	afterQuote  bool  // inside a quoted field, right after a '"'
	afterQuoteR bool  // as afterQuote, then a '\r'
	quoteLine   int   // where the open quoted field starts
	quoteField  int
	// endsInNewline says whether the last byte read was a newline.
	endsInNewline bool
	err           error
}

// GuardError is a problem Guard found.
type GuardError struct {
	// Line is where the record (or the open quoted field) starts; Field
	// is 1-based, 0 when not known.
	Line, Field int
	// Reason is the short kind of problem ("too large", "unterminated
	// quote"); Msg says it in full.
	Reason, Msg string
}

// Error says where the record starts and what is wrong with it.
func (e *GuardError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// NewGuard returns a Guard over r, whose first byte is on line firstLine
// of the file, for records of at most max bytes.
func NewGuard(r io.Reader, max, firstLine int) *Guard {
	return &Guard{r: r, max: max, line: firstLine, recordLine: firstLine, fieldStart: true}
}

// Read passes the bytes of the underlying reader through, stopping with a
// *GuardError at the first problem.
func (g *Guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if k, gerr := g.scan(p[:n]); gerr != nil {
		g.err = gerr
		return k, gerr
	}
	if n > 0 {
		g.endsInNewline = p[n-1] == '\n'
	}
	if err == io.EOF && g.inQuotes && !g.afterQuote && !g.afterQuoteR {
		last := g.line
		if g.endsInNewline {
			last--
		}
		g.err = &GuardError{Line: g.quoteLine, Field: g.quoteField + 1, Reason: "unterminated quote",
			Msg: fmt.Sprintf("a quoted field opened on line %d is never closed (it runs to the end of the file, line %d); expected a closing '\"' before the end of the record", g.quoteLine, last)}
		return n, g.err
	}
	return n, err
}

// scan follows the quoting through p. It returns the number of bytes that
// are fine and an error when the current record outgrows max.
func (g *Guard) scan(p []byte) (int, error) {
	total := len(p)
	// A byte order mark is not part of the first field.
	for g.offset < int64(len(utf8BOM)) && g.offset == int64(g.bomBytes) && len(p) > 0 && p[0] == utf8BOM[g.offset] {
		p = p[1:]
		g.offset++
		g.bomBytes++
	}
	g.offset += int64(len(p))
	for len(p) > 0 {
		switch {
		case g.afterQuoteR:
			// encoding/csv reads "\r\n" as "\n".
			g.afterQuoteR = false
			if p[0] == '\n' {
				g.inQuotes = false
				g.endRecord()
				p = p[1:]
			}
		case g.afterQuote:
			g.afterQuote = false
			switch p[0] {
			case '"': // an escaped quote
				p = p[1:]
				if err := g.grow(1); err != nil {
					return total - len(p), err
				}
			case ',':
				g.inQuotes = false
				g.field++
				g.fieldStart = true
				p = p[1:]
				if err := g.grow(1); err != nil {
					return total - len(p), err
				}
			case '\n':
				g.inQuotes = false
				g.endRecord()
				p = p[1:]
			case '\r':
				g.afterQuoteR = true
				p = p[1:]
				if err := g.grow(1); err != nil {
					return total - len(p), err
				}
			default:
				// A lone quote inside a quoted field is taken literally.
			}
		case g.inQuotes:
			k := bytes.IndexByte(p, '"')
			chunk := p
			if k >= 0 {
				chunk = p[:k+1]
				g.afterQuote = true
			}
			g.line += bytes.Count(chunk, []byte{'\n'})
			p = p[len(chunk):]
			if err := g.grow(len(chunk)); err != nil {
				return total - len(p), err
			}
		default:
			end := bytes.IndexByte(p, '\n')
			seg := p
			if end >= 0 {
				seg = p[:end]
			}
			if q := bytes.IndexByte(seg, '"'); q >= 0 {
				g.plain(seg[:q])
				if g.fieldStart {
					g.inQuotes = true
					g.quoteLine, g.quoteField = g.line, g.field
				}
				g.fieldStart = false
				p = p[q+1:]
				if err := g.grow(q + 1); err != nil {
					return total - len(p), err
				}
				continue
			}
			g.plain(seg)
			p = p[len(seg):]
			if err := g.grow(len(seg)); err != nil {
				return total - len(p), err
			}
			if end >= 0 {
				g.endRecord()
				p = p[1:]
			}
		}
	}
	return total, nil
}

// plain follows unquoted bytes holding no quote and no newline.
func (g *Guard) plain(b []byte) {
	if len(b) == 0 {
		return
	}
	g.field += bytes.Count(b, []byte{','})
	g.fieldStart = b[len(b)-1] == ','
}

// endRecord follows a newline that ends a record.
func (g *Guard) endRecord() {
	g.line++
	g.recordLine, g.recordBytes, g.field, g.fieldStart = g.line, 0, 0, true
}

// grow adds n bytes to the current record.
func (g *Guard) grow(n int) error {
	g.recordBytes += n
	if g.recordBytes > g.max {
		return &GuardError{Line: g.recordLine, Reason: "too large",
			Msg: fmt.Sprintf("record longer than %d bytes (the limit for one CSV record); expected rows of a few hundred bytes: is a quote unbalanced, or is this not a requests file?", g.max)}
	}
	return nil
}
