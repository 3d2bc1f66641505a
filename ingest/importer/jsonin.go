package importer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// SourceError is malformed input: the file, where in it (a JSON path such
// as $.ttfts[12], with the line or record of a JSON Lines file) and what
// was expected.
type SourceError struct {
	File string
	// Record is the 1-based line (JSON Lines) or top-level value of a
	// stream of several; 0 for a file holding one JSON value.
	Record int
	// Path is the JSON path, "$" for the whole value; empty when the error
	// concerns the file as a whole.
	Path string
	Msg  string
}

// Error formats the error as "file: line 3: $.ttfts[12]: message".
func (e *SourceError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
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
			if strings.HasPrefix(s, pyLiteral) {
				return strings.TrimPrefix(s, pyLiteral)
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

// skip skips the next value.
func (j *jsonIn) skip() error { return j.wrap(j.dec.SkipValue()) }

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

// number reads a number; Python's NaN and ±Infinity are accepted.
func (j *jsonIn) number() (float64, error) {
	switch j.peek() {
	case '0':
		tok, err := j.dec.ReadToken()
		if err != nil {
			return 0, j.wrap(err)
		}
		return tok.Float(), nil
	case '"':
		v, err := j.dec.ReadValue()
		if err != nil {
			return 0, j.wrap(err)
		}
		if s := string(v); strings.HasPrefix(s, `"\u0000py:`) {
			switch s[len(`"\u0000py:`) : len(s)-1] {
			case "NaN":
				return math.NaN(), nil
			case "Infinity":
				return math.Inf(1), nil
			case "-Infinity":
				return math.Inf(-1), nil
			}
		}
		u, _ := strconv.Unquote(string(v))
		if len(u) > 64 {
			u = u[:64] + "..."
		}
		return 0, j.errorf("expected a number, got %q", u)
	}
	return 0, j.expected("a number")
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

// str reads a string; null reads as "".
func (j *jsonIn) str() (string, error) {
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
// null), for metadata values kept as environment keys.
func (j *jsonIn) scalarText() (string, error) {
	switch j.peek() {
	case '"':
		return j.str()
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
		tok, err := j.dec.ReadToken()
		if err != nil {
			return 0, j.wrap(err)
		}
		switch s := tok.String(); strings.ToLower(strings.TrimPrefix(s, pyLiteral)) {
		case "inf", "infinity":
			return math.Inf(1), nil
		default:
			if r, err := strconv.ParseFloat(s, 64); err == nil && r > 0 {
				return r, nil
			}
			return 0, j.errorf("expected a request rate (a number or \"inf\"), got %q", s)
		}
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
