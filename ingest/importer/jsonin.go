package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/benchnote/benchnote/internal/controls"
)

// SourceError is malformed input: the file, where in it (a JSON path such
// as $.ttfts[12], with the line or record of a JSON Lines file) and what
// was expected.
type SourceError struct {
	File string
	// Record is the 1-based line (JSON Lines) or top-level value of a
	// stream of several, or the line of the value in a file read as YAML;
	// 0 for a file holding one JSON value.
	Record int
	// Path is the JSON path, "$" for the whole value; empty when the error
	// concerns the file as a whole.
	Path string
	Msg  string
}

// Error formats the error as "file: line 3: $.ttfts[12]: message". The
// file's control characters are escaped: a newline in a name cannot start
// a line of its own.
func (e *SourceError) Error() string {
	var b strings.Builder
	b.WriteString(controls.Escape(e.File))
	if e.Record > 0 {
		fmt.Fprintf(&b, ": line %d", e.Record)
	}
	if e.Path != "" {
		b.WriteString(": " + e.Path)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// segment is one step of a JSON path: an object member or an array index.
type segment struct {
	name  string
	index int
	isIdx bool
}

// jsonIn reads one JSON file token by token, keeping the JSON path of the
// value being read so that every error can name it.
type jsonIn struct {
	dec    *jsontext.Decoder
	py     *pyJSON // the reader under dec, to report input offsets
	file   string
	record int
	stack  []segment
}

func newJSONIn(r io.Reader, file string) *jsonIn {
	py := newPyJSON(r)
	return &jsonIn{
		dec:  jsontext.NewDecoder(py, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)),
		py:   py,
		file: file,
	}
}

// path renders the current JSON path.
func (j *jsonIn) path() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range j.stack {
		if s.isIdx {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if isIdentifier(s.name) {
			b.WriteString("." + s.name)
		} else {
			b.WriteString("[" + strconv.Quote(s.name) + "]")
		}
	}
	return b.String()
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// errorf returns a *SourceError at the current path.
func (j *jsonIn) errorf(format string, args ...any) error {
	return &SourceError{File: j.file, Record: j.record, Path: j.path(), Msg: fmt.Sprintf(format, args...)}
}

// wrap turns a decoder error into a *SourceError.
func (j *jsonIn) wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *SourceError
	if errors.As(err, &se) {
		return err
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return j.errorf("unexpected end of file (truncated?)")
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		msg := syn.Err.Error()
		if errors.Is(syn.Err, io.ErrUnexpectedEOF) {
			msg = "unexpected end of file (truncated?)"
		}
		offset := syn.ByteOffset
		if j.py != nil {
			offset = j.py.inputOffset(offset)
		}
		// The decoder's pointer goes deeper than the stack inside skipped
		// values; the stack knows the index of an array element not yet
		// begun. Name the deeper of the two.
		path := pointerPath(syn.JSONPointer, j.stack)
		if n := len(slices.Collect(syn.JSONPointer.Tokens())); n < len(j.stack) {
			path = j.path()
		}
		return &SourceError{File: j.file, Record: j.record, Path: path,
			Msg: fmt.Sprintf("not valid JSON near byte %d: %s", offset, strings.TrimPrefix(msg, "jsontext: "))}
	}
	return &SourceError{File: j.file, Record: j.record, Msg: err.Error()}
}

// pointerPath renders a JSON pointer as a JSON path, using the known
// stack to tell array indices from member names.
func pointerPath(p jsontext.Pointer, stack []segment) string {
	var b strings.Builder
	b.WriteByte('$')
	k := 0
	for tok := range p.Tokens() {
		if k < len(stack) && stack[k].isIdx {
			b.WriteString("[" + tok + "]")
		} else if _, err := strconv.Atoi(tok); err == nil && k >= len(stack) {
			b.WriteString("[" + tok + "]")
		} else if isIdentifier(tok) {
			b.WriteString("." + tok)
		} else {
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
		k++
	}
	return b.String()
}

// kindName names a token kind for "expected X, got Y" messages.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "nothing"
}

// got describes the value about to be read, for an error: the text of a
// string or number, or its kind.
func (j *jsonIn) got() string {
	k := j.dec.PeekKind()
	switch k {
	case '"', '0':
		v, err := j.dec.ReadValue()
		if err != nil {
			return kindName(k)
		}
		s := string(v)
		if k == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				s = u
			}
			if lit, ok := strings.CutPrefix(s, pyLiteral); ok {
				if what, _, ok := longNumber(lit); ok {
					return what
				}
				return lit
			}
			if len(s) > 64 {
				s = s[:64] + "..."
			}
			return strconv.Quote(s)
		}
		return s
	case 'n':
		return "null"
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return kindName(k)
}

// expected returns the error for a value that is not what was expected
// (what): its text or kind, or, when the next bytes are not JSON at all
// (PeekKind reports 0 or an invalid kind), the decoder's syntax error with
// its byte offset.
func (j *jsonIn) expected(what string) error {
	switch j.dec.PeekKind() {
	case 'n', 't', 'f', '"', '0', '{', '[', '}', ']':
	default:
		_, err := j.dec.ReadToken()
		if err == nil || err == io.EOF {
			return j.errorf("expected %s, got the end of the file (truncated?)", what)
		}
		return j.wrap(err)
	}
	return j.errorf("expected %s, got %s", what, j.got())
}

// peek returns the kind of the next value.
func (j *jsonIn) peek() jsontext.Kind { return j.dec.PeekKind() }

// more reports whether another top-level value follows (JSON Lines).
func (j *jsonIn) more() (bool, error) {
	k := j.dec.PeekKind()
	if k != 0 {
		return true, nil
	}
	// PeekKind reports 0 at EOF and on a syntax error; tell them apart.
	_, err := j.dec.ReadToken()
	if err == io.EOF {
		return false, nil
	}
	return false, j.wrap(err)
}

// end checks that nothing but white space follows the one JSON document
// of a file: a second value is an error naming its byte offset and
// start, as is anything that is not JSON at all.
func (j *jsonIn) end() error {
	more, err := j.more()
	if err != nil || !more {
		return err
	}
	buf := j.dec.UnreadBuffer()
	rest := bytes.TrimLeft(buf, " \t\r\n")
	at := j.dec.InputOffset() + int64(len(buf)-len(rest))
	if j.py != nil {
		at = j.py.inputOffset(at)
	}
	if len(rest) > 32 {
		rest = rest[:32]
	}
	return &SourceError{File: j.file, Msg: fmt.Sprintf("unexpected data after the JSON document, at byte %d: %s (the file must hold one document)", at, strconv.Quote(string(rest)))}
}

// skip skips the next value.
func (j *jsonIn) skip() error { return j.wrap(j.dec.SkipValue()) }

// optObject reads an object as object does, or skips a null.
func (j *jsonIn) optObject(member func(name string) error) error {
	if j.peek() == 'n' {
		return j.skip()
	}
	return j.object(member)
}

// object reads an object, calling member for each member name with the
// decoder positioned at its value; member must consume the value.
func (j *jsonIn) object(member func(name string) error) error {
	if k := j.peek(); k != '{' {
		return j.expected("an object")
	}
	if _, err := j.dec.ReadToken(); err != nil {
		return j.wrap(err)
	}
	j.stack = append(j.stack, segment{})
	for j.peek() != '}' {
		tok, err := j.dec.ReadToken()
		if err != nil {
			return j.wrap(err)
		}
		name := tok.String()
		j.stack[len(j.stack)-1] = segment{name: name}
		if err := member(name); err != nil {
			return err
		}
	}
	j.stack = j.stack[:len(j.stack)-1]
	_, err := j.dec.ReadToken()
	return j.wrap(err)
}

// member reads an object, calling read for its member named want (with
// the decoder positioned at its value) and skipping every other member.
func (j *jsonIn) member(want string, read func() error) error {
	return j.object(func(name string) error {
		if name != want {
			return j.skip()
		}
		return read()
	})
}

// array reads an array, calling elem for each element index with the
// decoder positioned at it; elem must consume the element.
func (j *jsonIn) array(elem func(i int) error) error {
	if k := j.peek(); k != '[' {
		return j.expected("an array")
	}
	if _, err := j.dec.ReadToken(); err != nil {
		return j.wrap(err)
	}
	j.stack = append(j.stack, segment{isIdx: true})
	top := len(j.stack) - 1
	for i := 0; j.peek() != ']'; i++ {
		j.stack[top].index = i
		if err := elem(i); err != nil {
			return err
		}
	}
	j.stack = j.stack[:top]
	_, err := j.dec.ReadToken()
	return j.wrap(err)
}

// number reads a number; Python's NaN and ±Infinity are accepted. A
// number beyond float64's range (1e400, a 600-digit integer) is refused
// at its path: the decoder would round it to ±MaxFloat64.
func (j *jsonIn) number() (float64, error) {
	switch j.peek() {
	case '0':
		tok, err := j.dec.ReadToken()
		if err != nil {
			return 0, j.wrap(err)
		}
		v := tok.Float()
		if math.Abs(v) == math.MaxFloat64 {
			text := tok.String()
			if _, perr := strconv.ParseFloat(text, 64); perr != nil {
				return 0, j.errorf("%s is not a finite number", shorten(text))
			}
		}
		return v, nil
	case '"':
		v, err := j.dec.ReadValue()
		if err != nil {
			return 0, j.wrap(err)
		}
		u, uerr := strconv.Unquote(string(v))
		if uerr != nil {
			u = string(v) // a JSON escape Go does not know ("\/"): shown as written
		}
		if lit, ok := strings.CutPrefix(u, pyLiteral); ok {
			switch lit {
			case "NaN":
				return math.NaN(), nil
			case "Infinity":
				return math.Inf(1), nil
			case "-Infinity":
				return math.Inf(-1), nil
			}
			if what, wrong, ok := longNumber(lit); ok {
				return 0, j.errorf("%s %s", what, wrong)
			}
		}
		return 0, j.errorf("expected a number, got %q", shorten(u))
	}
	return 0, j.expected("a number")
}

// longNumber describes a number pyJSON could not keep (lit follows
// pyLiteral) and says what is wrong with it: an integer of more digits
// than float64 reaches is not a finite number; a longer fraction is more
// than benchnote reads.
func longNumber(lit string) (what, wrong string, ok bool) {
	rest, ok := strings.CutPrefix(lit, pyLong)
	if !ok {
		return "", "", false
	}
	n, rest, _ := strings.Cut(rest, ":")
	integer, prefix, _ := strings.Cut(rest, ":")
	if integer == "1" {
		digits, _ := strconv.Atoi(n)
		if strings.HasPrefix(prefix, "-") {
			digits--
		}
		return fmt.Sprintf("a %d-digit integer (%s...)", digits, prefix), "is not a finite number", true
	}
	return fmt.Sprintf("a number of %s characters (%s...)", n, prefix), fmt.Sprintf("is longer than the %d characters benchnote reads", maxLiteralBytes), true
}

// shorten cuts s to 64 bytes for a message.
func shorten(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// optNumber reads a number or null (NaN).
func (j *jsonIn) optNumber() (float64, error) {
	if j.peek() == 'n' {
		return math.NaN(), j.skip()
	}
	return j.number()
}

// finite reads a finite number at least lo.
func (j *jsonIn) finite(lo float64) (float64, error) {
	v, err := j.number()
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo {
		return 0, j.errorf("expected a finite number ≥ %g, got %s", lo, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return v, nil
}

// count reads a non-negative integer (integral floats such as 12.0 too).
func (j *jsonIn) count() (int64, error) {
	v, err := j.number()
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || v < 0 || v != math.Trunc(v) || v >= 1<<53 {
		return 0, j.errorf("expected a non-negative integer, got %s", strconv.FormatFloat(v, 'g', -1, 64))
	}
	return int64(v), nil
}

// optCount reads a count or null (-1).
func (j *jsonIn) optCount() (int64, error) {
	if j.peek() == 'n' {
		return -1, j.skip()
	}
	return j.count()
}

// str reads a string; null reads as "". Python's NaN and Infinity, and
// numbers too long to keep, are numbers, not strings.
func (j *jsonIn) str() (string, error) {
	s, err := j.rawString()
	if lit, ok := strings.CutPrefix(s, pyLiteral); ok && err == nil {
		if what, _, ok := longNumber(lit); ok {
			lit = what
		}
		return "", j.errorf("expected a string, got %s", lit)
	}
	return s, err
}

// rawString is str, except that a string standing for a Python literal
// or a long number is returned as it is (pyLiteral first).
func (j *jsonIn) rawString() (string, error) {
	switch j.peek() {
	case 'n':
		return "", j.skip()
	case '"':
		tok, err := j.dec.ReadToken()
		if err != nil {
			return "", j.wrap(err)
		}
		return tok.String(), nil
	}
	return "", j.expected("a string")
}

// scalarText reads a string, number, boolean or null as text ("" for
// null), for metadata values kept as environment keys. Python's NaN and
// Infinity read as written; a number too long to keep is refused.
func (j *jsonIn) scalarText() (string, error) {
	switch j.peek() {
	case '"':
		s, err := j.rawString()
		if lit, ok := strings.CutPrefix(s, pyLiteral); ok && err == nil {
			if what, wrong, ok := longNumber(lit); ok {
				return "", j.errorf("%s %s", what, wrong)
			}
			return lit, nil
		}
		return s, err
	case 'n':
		return "", j.skip()
	case '0', 't', 'f':
		v, err := j.dec.ReadValue()
		return string(v), j.wrap(err)
	}
	return "", j.expected("a string or number")
}

// boolean reads true or false (null reads as false).
func (j *jsonIn) boolean() (bool, error) {
	switch j.peek() {
	case 't', 'f':
		tok, err := j.dec.ReadToken()
		if err != nil {
			return false, j.wrap(err)
		}
		return tok.Bool(), nil
	case 'n':
		return false, j.skip()
	}
	return false, j.expected("true or false")
}

// rate reads a request rate: a number, "inf" or Python's Infinity.
func (j *jsonIn) rate() (float64, error) {
	if j.peek() == '"' {
		s, err := j.rawString()
		if err != nil {
			return 0, err
		}
		lit, py := strings.CutPrefix(s, pyLiteral)
		if what, wrong, ok := longNumber(lit); py && ok {
			return 0, j.errorf("%s %s", what, wrong)
		}
		switch strings.ToLower(lit) {
		case "inf", "infinity":
			return math.Inf(1), nil
		}
		if r, err := strconv.ParseFloat(lit, 64); err == nil && r > 0 && !py {
			return r, nil
		}
		if py {
			return 0, j.errorf("expected a request rate (a number or \"inf\"), got %s", lit)
		}
		return 0, j.errorf("expected a request rate (a number or \"inf\"), got %q", shorten(s))
	}
	return j.number()
}

// bigCount reads a non-negative integer exactly, up to 2⁶³ − 1: epoch
// nanoseconds do not fit a float64's 53-bit mantissa.
func (j *jsonIn) bigCount() (int64, error) {
	if j.peek() != '0' {
		return 0, j.expected("a non-negative integer")
	}
	v, err := j.dec.ReadValue()
	if err != nil {
		return 0, j.wrap(err)
	}
	n, perr := strconv.ParseInt(string(v), 10, 64)
	if perr != nil || n < 0 {
		return 0, j.errorf("expected a non-negative integer, got %s", string(v))
	}
	return n, nil
}
