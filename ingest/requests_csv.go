package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
)

// utf8BOM is the byte order mark some spreadsheet tools write first.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadRequestsCSV reads a requests.csv from r, streaming. path is the file's
// path relative to the sweep root and is used only in diagnostics.
//
// The first line is the header; a UTF-8 byte order mark, CRLF line ends
// and quoted fields (RFC 4180, with stray quotes inside unquoted fields
// taken literally) are accepted, blank lines are skipped. Numbers may carry
// surrounding spaces. Integer columns accept integral decimals such as
// "12.0". An empty optional field is a missing value (NaN, -1 or ""); an
// empty chunk_ms field is a request with no chunks, otherwise chunk_ms is
// a ';'-separated list of numbers. A literal NaN in an optional time
// column is also taken as missing.
//
// Rows with problems are excluded and reported in RequestFile.Excluded
// (and, past MaxListedExclusions of one reason in one column, counted in
// RequestFile.Unlisted); a *FileError is returned only when the file as a
// whole is unusable: it cannot be read, it is empty, its header lacks a
// required column or names one twice, a record (a line, or the lines a
// quoted field joins) is longer than MaxCSVRecordBytes, or a quoted field
// is still open at the end of the file (the error names the line where the
// quote opened).
func ReadRequestsCSV(r io.Reader, path string) (*RequestFile, error) {
	return ReadRequestsCSVWith(r, path, ReadOptions{})
}

// ReadRequestsCSVWith is ReadRequestsCSV with limits other than the
// defaults.
func ReadRequestsCSVWith(r io.Reader, path string, opts ReadOptions) (*RequestFile, error) {
	maxRows := opts.maxRows()
	br := bufio.NewReaderSize(newCSVGuard(r, MaxCSVRecordBytes), 64<<10)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	capHint := csvRowsHint(r, br)
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true

	header, err := cr.Read()
	if err == io.EOF {
		return nil, fileErrorf(path, 0, 0, "", "empty file",
			"empty file; expected a header line naming request_id, prompt_tokens, completion_tokens, TTFT_ms and E2E_ms")
	}
	if err != nil {
		return nil, csvReadError(path, 1, err, nil)
	}
	headerLine, _ := cr.FieldPos(0)
	l, ferr := resolveRequestLayout(header, path, headerLine, "line")
	if ferr != nil {
		return nil, ferr
	}

	rf := &RequestFile{Path: path, Format: "csv", Requests: newRequests(l, capHint)}
	p := csvRowParser{l: l, q: rf.Requests, path: path}
	var x exclusions
	lastLine := headerLine
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvReadError(path, lastLine+1, err, l)
		}
		line, _ := cr.FieldPos(0)
		lastLine = line
		if line > math.MaxInt32 {
			return nil, fileErrorf(path, line, 0, "", "too large", "more than %d lines; split the file", math.MaxInt32)
		}
		if rf.RowsRead == maxRows {
			return nil, tooManyRows(path, line, maxRows)
		}
		rf.RowsRead++
		if d, value, bad := p.parse(rec, line); bad {
			x.add(d, value)
		}
	}
	dropDuplicates(rf.Requests, l, path, nil, &x)
	x.store(rf)
	if opts.ForAnalysis {
		rf.Requests.trimForAnalysis()
	}
	return rf, nil
}

// csvRowsHint estimates the number of rows of a file from its size and the
// line length of its first 64 KiB, so the columns are allocated once
// instead of grown by doubling (which would leave the outgrown copies to
// the garbage collector and raise peak memory). It returns 1024 when the
// reader has no size.
func csvRowsHint(r io.Reader, br *bufio.Reader) int {
	const fallback = 1024
	st, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return fallback
	}
	fi, err := st.Stat()
	if err != nil || fi.Size() <= 0 {
		return fallback
	}
	sample, _ := br.Peek(64 << 10)
	lines := bytes.Count(sample, []byte{'\n'})
	if lines < 2 {
		return fallback
	}
	hint := float64(fi.Size()) / (float64(len(sample)) / float64(lines)) * 1.05
	if hint > 1<<27 {
		hint = 1 << 27
	}
	return int(hint) + 16
}

// csvReadError wraps a failure of the underlying reader. l, when not nil,
// names the columns.
func csvReadError(path string, line int, err error, l *requestLayout) *FileError {
	var ge *csvGuardError
	if errors.As(err, &ge) {
		name := ""
		if l != nil && ge.field >= 1 && ge.field <= len(l.names) {
			name = l.names[ge.field-1]
		}
		return fileErrorf(path, ge.line, ge.field, name, ge.reason, "%s", ge.msg)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileErrorf(path, pe.Line, pe.Column, "", "malformed csv", "malformed CSV: %v", pe.Err)
	}
	return fileErrorf(path, line, 0, "", "read error", "reading line %d: %v", line, err)
}

// csvRowParser turns CSV records into rows of q.
type csvRowParser struct {
	l    *requestLayout
	q    *Requests
	path string
}

// parse checks one record (starting on line) and appends it to q, or
// returns the diagnostic that excludes it and the offending value.
func (p *csvRowParser) parse(rec []string, line int) (Diagnostic, string, bool) {
	l, q := p.l, p.q
	if len(rec) != len(l.cols) {
		d := l.rowDiag(p.path, line, colExtra, reasonMissing,
			"expected %d fields as in the header, got %d%s", len(l.cols), len(rec), quotedNewlineHint(rec, line))
		if len(rec) < len(l.cols) {
			d.Column = len(rec) + 1
			d.ColumnName = l.names[len(rec)]
		}
		return d, "", true
	}

	var (
		id               string
		prompt, complete int64
		ttft, e2e        float64
		tSent            = math.NaN()
		tFirst           = math.NaN()
		tLast            = math.NaN()
		status           string
		maxTok, chunks   int64 = -1, -1
		lineLen          int
		chunkMark        = len(q.ChunkMs)
	)
	failed := l.pos[colStatus] >= 0 && StatusFailed(rec[l.pos[colStatus]])
	zeroTokens := false
	if s := trimBlanks(rec[l.pos[colCompletionTokens]]); s != "" {
		n, pr := parseCount(s)
		zeroTokens = pr == probNone && n == 0
	}
	if failed || zeroTokens {
		ttft, e2e = math.NaN(), math.NaN()
	}
	phase := PhaseMeasured
	for j, raw := range rec {
		lineLen += len(raw)
		c := l.cols[j]
		var pr problem
		switch c {
		case colExtra:
			continue
		case colRequestID:
			if raw == "" {
				pr = probMissing
			}
			id = raw
		case colStatus:
			status = raw
		case colPhase:
			var ok bool
			if phase, ok = ParsePhase(raw); !ok {
				pr = probBadPhase
			}
		case colChunkMs:
			if !p.parseChunks(raw) {
				q.ChunkMs = q.ChunkMs[:chunkMark]
				return l.rowDiag(p.path, line, colChunkMs, reasonBadChunks,
					"%s: expected ';'-separated non-negative numbers, got %s", l.name(colChunkMs), quoteValue(raw)), raw, true
			}
		default:
			s := trimBlanks(raw)
			info := requestColumns[c]
			if s == "" {
				if info.required && !mayBeEmpty(c, failed, zeroTokens) {
					pr = probMissing
				}
				break
			}
			if info.kind == kindCount {
				var n int64
				if n, pr = parseCount(s); pr == probNone {
					switch c {
					case colPromptTokens:
						prompt = n
					case colCompletionTokens:
						complete = n
					case colMaxTokens:
						maxTok = n
					case colTextChunks:
						chunks = n
					}
				}
				break
			}
			var v float64
			v, pr = parseNumber(s)
			if pr == probNaNInf && !info.required && strings.EqualFold(s, "nan") {
				v, pr = math.NaN(), probNone
			}
			if pr == probNone {
				switch c {
				case colTTFT:
					ttft = v
				case colE2E:
					e2e = v
				case colTRequestSent:
					tSent = v
				case colTFirstText:
					tFirst = v
				case colTLastText:
					tLast = v
				}
			}
		}
		if pr != probNone {
			q.ChunkMs = q.ChunkMs[:chunkMark]
			got, value := "an empty field", ""
			if pr != probMissing {
				got, value = quoteValue(raw), raw
			}
			return l.valueDiag(p.path, line, c, pr, got), value, true
		}
	}
	if e2e < ttft {
		q.ChunkMs = q.ChunkMs[:chunkMark]
		return l.e2eDiag(p.path, line, ttft, e2e), "", true
	}

	// The record's fields share one string per line; keep only the id's
	// bytes alive when the rest of the line is much longer.
	if lineLen > 2*len(id)+64 {
		id = strings.Clone(id)
	}
	q.SourceRow = append(q.SourceRow, int32(line))
	q.IDs.Append(id)
	q.PromptTokens = append(q.PromptTokens, prompt)
	q.CompletionTokens = append(q.CompletionTokens, complete)
	q.TTFTms = append(q.TTFTms, ttft)
	q.E2Ems = append(q.E2Ems, e2e)
	if q.TRequestSent != nil {
		q.TRequestSent = append(q.TRequestSent, tSent)
	}
	if q.TFirstText != nil {
		q.TFirstText = append(q.TFirstText, tFirst)
	}
	if q.TLastText != nil {
		q.TLastText = append(q.TLastText, tLast)
	}
	if q.Status != nil {
		if lineLen > 2*len(status)+64 {
			status = strings.Clone(status)
		}
		q.Status = append(q.Status, status)
	}
	if q.MaxTokens != nil {
		q.MaxTokens = append(q.MaxTokens, maxTok)
	}
	if q.TextChunks != nil {
		q.TextChunks = append(q.TextChunks, chunks)
	}
	if q.ChunkOffsets != nil {
		q.ChunkOffsets = append(q.ChunkOffsets, int32(len(q.ChunkMs)))
	}
	if q.Phase != nil {
		q.Phase = append(q.Phase, phase)
	}
	q.N++
	return Diagnostic{}, "", false
}

// quotedNewlineHint explains a wrong field count on a record that a quoted
// field stretches over several lines: the usual cause is a quote opened
// by mistake and closed, much later, by another.
func quotedNewlineHint(rec []string, line int) string {
	for j, f := range rec {
		if strings.IndexByte(f, '\n') >= 0 {
			return fmt.Sprintf("; field %d is a quoted field that starts on line %d and runs over %d more lines: is a quote unbalanced?",
				j+1, line, strings.Count(f, "\n"))
		}
		line += strings.Count(f, "\n")
	}
	return ""
}

// parseChunks appends the ';'-separated numbers of field s to q.ChunkMs;
// it reports false on a bad element (the caller truncates ChunkMs).
func (p *csvRowParser) parseChunks(s string) bool {
	s = trimBlanks(s)
	if s == "" {
		return true
	}
	for {
		elem, rest, more := strings.Cut(s, ";")
		elem = trimBlanks(elem)
		if elem == "" {
			return false
		}
		v, pr := parseNumber(elem)
		if pr != probNone {
			return false
		}
		p.q.ChunkMs = append(p.q.ChunkMs, v)
		if !more {
			return true
		}
		s = rest
	}
}
