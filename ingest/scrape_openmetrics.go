package ingest

// OpenMetrics input is not given to expfmt's OpenMetrics parser. That
// parser (prometheus/common v0.73.1, expfmt/openmetrics_parse.go) checks
// every line against the whole OpenMetrics ABNF grammar with
// github.com/pandatix/go-abnf's ParseForest, which builds every parse of
// the line: for `escaped-string = *escaped-char` the number of partial
// parses grows with the square of the string's length. A 4,000-character
// label value took 40 s and 4.6 GB, and even an ordinary 100-byte sample
// line costs about 2 ms, so a 10,000-line scrape took 18 s.
//
// Instead, openMetricsToText rewrites the exposition, line for line, into
// the Prometheus text format 0.0.4, which expfmt reads with a linear state
// machine. The rewrite is itself one pass over the bytes. It gives the
// families expfmt's OpenMetrics parser gives for the same input (a test
// compares the two), except for what benchnote does not read: _created
// samples, exemplars and UNIT lines are dropped, a HELP text loses its
// leading blanks, and info and stateset families (which that parser
// refuses) are read as untyped. It is also
// more lenient: interleaved families, blank lines and comments that
// OpenMetrics forbids are accepted as the text format accepts them.

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"
)

// openMetricsToText rewrites an OpenMetrics 1.0 exposition (CRLF already
// turned into LF) as text format 0.0.4 with the same line numbers:
//
//   - "# TYPE x counter" becomes "# TYPE x_total counter" (and HELP
//     likewise), since OpenMetrics names a counter's samples x_total;
//     "unknown" becomes "untyped"; info and stateset TYPE lines are dropped
//     (their samples read as untyped); gauge histograms keep their type and
//     their _gcount and _gsum samples become _count and _sum.
//   - Timestamps in seconds become integer milliseconds, rounded as
//     expfmt's OpenMetrics parser rounds them.
//   - Exemplars, _created samples of counters, histograms and summaries,
//     UNIT lines, other comments and the "# EOF" line are dropped (left
//     blank).
//   - Escapes other than \\, \" and \n in label values and HELP text, which
//     OpenMetrics keeps as written, are doubled so that the text format
//     keeps them too.
//
// Lines it does not understand are passed through for the text parser to
// reject with their line number. Data after "# EOF" is an error.
func openMetricsToText(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data)+len(data)/8)
	st := &omState{types: omTypes(data)}
	eof := false
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if eof {
			if len(bytes.TrimSpace(line)) > 0 {
				return nil, expfmt.ParseError{Line: lineNo, Msg: "unexpected data after # EOF"}
			}
			out = append(out, '\n')
			continue
		}
		var err error
		switch {
		case len(line) > 0 && line[0] == '#':
			out, eof, err = st.comment(out, line)
		default:
			out, err = st.sample(out, line)
		}
		if err != nil {
			return nil, expfmt.ParseError{Line: lineNo, Msg: err.Error()}
		}
		out = append(out, '\n')
	}
	return out, nil
}

// omTypes maps each family name to the type its first TYPE line gives.
// HELP may come before TYPE, so the types are collected first.
func omTypes(data []byte) map[string]string {
	types := map[string]string{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		rest, ok := bytes.CutPrefix(line, []byte("# TYPE "))
		if !ok {
			continue
		}
		if name, typ, ok := omDescriptorName(rest); ok {
			if _, seen := types[name]; !seen {
				types[name] = string(typ)
			}
		}
	}
	return types
}

// omState follows which family the samples belong to, as expfmt's
// OpenMetrics parser does: a sample belongs to the current family when its
// name fits it, else to the family it names.
type omState struct {
	types map[string]string // family name -> OpenMetrics type
	// cur is the current family; curSamples says whether it has samples
	// yet (a descriptor then does not change it).
	cur        string
	curSamples bool
}

// omSuffixes are the sample name suffixes of OpenMetrics families.
var omSuffixes = []string{"_total", "_created", "_count", "_sum", "_bucket", "_gcount", "_gsum", "_info"}

// omFits reports whether a sample called sample belongs to the family fam
// of type typ ("" when fam has no TYPE line).
func omFits(fam, typ, sample string) bool {
	suffix, ok := strings.CutPrefix(sample, fam)
	if !ok {
		return false
	}
	switch typ {
	case "counter":
		return suffix == "_total" || suffix == "_created"
	case "summary":
		return suffix == "" || suffix == "_count" || suffix == "_sum" || suffix == "_created"
	case "histogram":
		return suffix == "_bucket" || suffix == "_count" || suffix == "_sum" || suffix == "_created"
	case "gaugehistogram":
		return suffix == "_bucket" || suffix == "_count" || suffix == "_sum" || suffix == "_gcount" || suffix == "_gsum" || suffix == "_created"
	case "info":
		return suffix == "_info"
	}
	return suffix == ""
}

// family returns the family a sample called name belongs to.
func (st *omState) family(name string) string {
	if st.cur != "" && omFits(st.cur, st.types[st.cur], name) {
		return st.cur
	}
	if t, ok := st.types[name]; ok && omFits(name, t, name) {
		return name
	}
	for _, suffix := range omSuffixes {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if t, ok := st.types[base]; ok && omFits(base, t, name) {
				return base
			}
		}
	}
	return name
}

// comment rewrites a line starting with '#'.
func (st *omState) comment(out, line []byte) ([]byte, bool, error) {
	if string(bytes.TrimRight(line, " \t")) == "# EOF" {
		return out, true, nil
	}
	rest, ok := bytes.CutPrefix(line, []byte("# "))
	if !ok {
		return out, false, nil // not a descriptor: a comment, dropped
	}
	keyword, rest, _ := bytes.Cut(rest, []byte(" "))
	switch string(keyword) {
	case "TYPE", "HELP":
	default:
		return out, false, nil // UNIT or a comment: dropped
	}
	name, value, ok := omDescriptorName(rest)
	if !ok {
		return append(out, line...), false, nil
	}
	if st.cur == "" || !st.curSamples {
		st.cur, st.curSamples = name, false
	}
	if string(keyword) == "HELP" {
		if st.types[name] == "counter" {
			name += "_total"
		}
		out = append(out, "# HELP "...)
		out = appendMetricName(out, name)
		out = append(out, ' ')
		return appendTextEscapes(out, value), false, nil
	}
	typ := string(value)
	switch typ {
	case "counter":
		name += "_total"
	case "unknown":
		typ = "untyped"
	case "info", "stateset":
		return out, false, nil
	}
	out = append(out, "# TYPE "...)
	out = appendMetricName(out, name)
	out = append(out, ' ')
	return append(out, typ...), false, nil
}

// omDescriptorName splits "name rest" or "\"quoted name\" rest".
func omDescriptorName(b []byte) (name string, rest []byte, ok bool) {
	if len(b) > 0 && b[0] == '"' {
		end := quotedEnd(b)
		if end < 0 || end+1 < len(b) && b[end+1] != ' ' {
			return "", nil, false
		}
		name, ok := unquoteLabel(b[1:end])
		rest := b[end+1:]
		if len(rest) > 0 {
			rest = rest[1:]
		}
		return name, rest, ok
	}
	n, rest, _ := bytes.Cut(b, []byte(" "))
	if len(n) == 0 {
		return "", nil, false
	}
	return string(n), rest, true
}

// appendMetricName writes name bare when it is a legacy metric name, else
// quoted.
func appendMetricName(out []byte, name string) []byte {
	legacy := name != ""
	for i := 0; i < len(name) && legacy; i++ {
		c := name[i]
		legacy = c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9'
	}
	if legacy {
		return append(out, name...)
	}
	// Quoted as the exposition formats quote, escaping only backslash,
	// double quote and newline.
	out = append(out, '"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '\\', '"':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// sample rewrites a sample line: name and labels, value, optional
// timestamp, optional exemplar.
func (st *omState) sample(out, line []byte) ([]byte, error) {
	if len(line) == 0 {
		return out, nil
	}
	// The name, bare or (UTF-8 names) quoted inside the braces.
	nameEnd := bytes.IndexAny(line, "{ ")
	if nameEnd < 0 {
		return append(out, line...), nil
	}
	name := string(line[:nameEnd])
	labelsEnd := nameEnd
	if line[nameEnd] == '{' {
		end := labelSetEnd(line[nameEnd:])
		if end < 0 {
			return append(out, line...), nil
		}
		labelsEnd = nameEnd + end + 1
		if name == "" {
			name = quotedNameInBraces(line[nameEnd:labelsEnd])
		}
	}
	// Samples benchnote never reads, and that the text format would read
	// as families of their own.
	fam := st.family(name)
	st.cur, st.curSamples = fam, true
	typ := st.types[fam]
	// As in expfmt's OpenMetrics parser, a counter's or histogram's sample
	// needs its suffix.
	if name == fam {
		switch typ {
		case "counter":
			return nil, fmt.Errorf("sample %q missing required suffix for type COUNTER", name)
		case "histogram":
			return nil, fmt.Errorf("sample %q missing required suffix for type HISTOGRAM", name)
		case "gaugehistogram":
			return nil, fmt.Errorf("sample %q missing required suffix for type GAUGE_HISTOGRAM", name)
		}
	}
	// Created timestamps, which benchnote does not read and the text format
	// would read as families of their own.
	if name == fam+"_created" {
		return out, nil
	}
	rename := ""
	if typ == "gaugehistogram" {
		switch name {
		case fam + "_gcount":
			rename = fam + "_count"
		case fam + "_gsum":
			rename = fam + "_sum"
		}
	}

	fields := bytes.Split(line[labelsEnd:], []byte(" "))
	// fields[0] is what follows the labels directly: "" when a space follows.
	if len(fields) < 2 || len(fields[0]) != 0 {
		return append(out, line...), nil
	}
	value := fields[1]
	var ts []byte
	if len(fields) > 2 && string(fields[2]) != "#" {
		ts = fields[2]
		if len(fields) > 3 && string(fields[3]) != "#" {
			return append(out, line...), nil
		}
	}

	if rename != "" && line[0] != '{' {
		out = appendMetricName(out, rename)
	} else {
		out = append(out, line[:nameEnd]...)
	}
	if labelsEnd > nameEnd {
		out = appendLabelSet(out, line[nameEnd:labelsEnd])
	}
	out = append(out, ' ')
	out = append(out, value...)
	if ts != nil {
		ms, err := omTimestampMs(string(ts))
		if err != nil {
			return nil, err
		}
		out = append(out, ' ')
		out = strconv.AppendInt(out, ms, 10)
	}
	return out, nil
}

// omTimestampMs converts an OpenMetrics timestamp (seconds) to
// milliseconds exactly as expfmt's OpenMetrics parser does.
func omTimestampMs(s string) (int64, error) {
	if strings.ContainsAny(s, "pP_") {
		return 0, fmt.Errorf("invalid timestamp %q: unsupported character", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid timestamp %q", s)
	}
	return int64(math.Round(f * 1000)), nil
}

// labelSetEnd returns the index of the '}' closing the label set b starts
// with, or -1.
func labelSetEnd(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := quotedEnd(b[i:])
			if end < 0 {
				return -1
			}
			i += end
		case '}':
			return i
		}
	}
	return -1
}

// quotedEnd returns the index of the quote closing the quoted string b
// starts with, or -1.
func quotedEnd(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// quotedNameInBraces returns the metric name of a label set written
// {"name", a="b"}: the first quoted string not followed by '='.
func quotedNameInBraces(b []byte) string {
	for i := 1; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := quotedEnd(b[i:])
		if end < 0 {
			return ""
		}
		after := bytes.TrimLeft(b[i+end+1:], " ")
		if len(after) == 0 || after[0] != '=' {
			name, _ := unquoteLabel(b[i+1 : i+end])
			return name
		}
		i += end
	}
	return ""
}

// unquoteLabel undoes OpenMetrics escapes: \\, \" and \n; any other
// backslash is kept as written.
func unquoteLabel(b []byte) (string, bool) {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b), true
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			switch b[i+1] {
			case '\\', '"':
				sb.WriteByte(b[i+1])
				i++
				continue
			case 'n':
				sb.WriteByte('\n')
				i++
				continue
			}
		}
		sb.WriteByte(b[i])
	}
	return sb.String(), true
}

// appendLabelSet copies a label set, doubling the backslash of escapes the
// text format does not know inside quoted strings.
func appendLabelSet(out, b []byte) []byte {
	inQuotes := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			inQuotes = !inQuotes
		case c == '\\' && inQuotes && i+1 < len(b):
			switch b[i+1] {
			case '\\', '"', 'n':
				out = append(out, c, b[i+1])
			default:
				out = append(out, '\\', '\\')
				continue
			}
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// appendTextEscapes copies HELP text, doubling the backslash of escapes
// the text format does not know.
func appendTextEscapes(out, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\\' {
			if i+1 < len(b) && (b[i+1] == '\\' || b[i+1] == '"' || b[i+1] == 'n') {
				out = append(out, c, b[i+1])
				i++
				continue
			}
			out = append(out, '\\', '\\')
			continue
		}
		out = append(out, c)
	}
	return out
}
