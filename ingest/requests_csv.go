package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/benchnote/benchnote/ingest/internal/csvline"
)

// utf8BOM is the byte order mark some spreadsheet tools write first.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// MaxCSVRecordBytes bounds one CSV record: a line, or several lines joined
// by a quoted field. A request row is a few hundred bytes, or a few
// kilobytes with chunk_ms lists; encoding/csv itself has no bound and holds
// a whole record (several copies of it) in memory.
const MaxCSVRecordBytes = csvline.MaxRecordBytes

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
	// Read for the analysis from a file it can read again, the ids are
	// only hashed; the rare file where two hashes meet (a duplicate id, or
	// a collision) is read again, keeping them, for the diagnostics.
	seeker, canSeek := r.(io.Seeker)
	var start int64
	if canSeek && opts.ForAnalysis {
		var err error
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			canSeek = false // read once, keeping the ids
		}
	}
	if opts.ForAnalysis && canSeek {
		hashed := opts
		hashed.hashIDs = true
		rf, err := readCSVFast(r, path, hashed)
		if err != nil || !rf.idsRepeat {
			return rf, err
		}
		rf.Requests.trimForAnalysis(opts.pool)
		opts.pool.giveRequests(rf.Requests)
		if _, err := seeker.Seek(start, io.SeekStart); err != nil {
			return nil, fileErrorf(path, 0, 0, "", "read error", "reading CSV again: %v", err)
		}
	}
	rf, err := readCSVFast(r, path, opts)
	if err != nil {
		return nil, err
	}
	if opts.ForAnalysis {
		rf.Requests.trimForAnalysis(opts.pool)
	}
	return rf, nil
}

// csvState is a CSV read in progress: what the lines so far gave.
type csvState struct {
	rf       *RequestFile
	p        csvRowParser
	x        exclusions
	lastLine int // the line of the last record (the header's at first)
	maxRows  int
	fields   []string    // the fields of the line recordLine splits
	pool     *columnPool // lends the id hashes, with hashIDs
}

// newCSVState starts reading the records of a file whose header, on
// headerLine, gave layout l, with room for about capHint rows.
func newCSVState(l *requestLayout, path string, headerLine, capHint int, opts ReadOptions) *csvState {
	st := &csvState{rf: &RequestFile{Path: path, Format: "csv", Requests: newRequests(l, capHint, opts.pool)},
		lastLine: headerLine, maxRows: opts.maxRows()}
	st.p = csvRowParser{l: l, q: st.rf.Requests, path: path}
	if opts.ForAnalysis {
		st.p.forAnalysis()
	}
	st.p.plain = newPlainParser(l, &st.p.checkOnly)
	if opts.hashIDs {
		st.p.hashes, st.p.seed, st.pool = opts.pool.takeUint64s(capHint), maphash.MakeSeed(), opts.pool
	}
	return st
}

// record takes one record that starts on line.
func (st *csvState) record(rec []string, line int) error {
	if err := st.count(line); err != nil {
		return err
	}
	if d, value, bad := st.p.parse(rec, line); bad {
		st.x.add(d, value)
	}
	return nil
}

// recordLine takes one record that is the whole of line number lineNo
// (without its line end, and without quotes): the plain-line parser
// takes it when it can, the general parser otherwise.
func (st *csvState) recordLine(line []byte, lineNo int) error {
	if err := st.count(lineNo); err != nil {
		return err
	}
	if st.p.plain != nil && st.p.parsePlain(line, lineNo) {
		return nil
	}
	st.fields = csvline.Split(st.fields[:0], line)
	if d, value, bad := st.p.parse(st.fields, lineNo); bad {
		st.x.add(d, value)
	}
	return nil
}

// count counts the record that starts on line, or fails when there is
// one too many.
func (st *csvState) count(line int) error {
	st.lastLine = line
	if line > math.MaxInt32 {
		return fileErrorf(st.p.path, line, 0, "", "too large", "more than %d lines; split the file", math.MaxInt32)
	}
	if st.rf.RowsRead == st.maxRows {
		return tooManyRows(st.p.path, line, st.maxRows)
	}
	st.rf.RowsRead++
	return nil
}

// finish drops duplicate ids and stores the exclusions. With hashed ids
// it only checks that no two hashes are equal.
func (st *csvState) finish() *RequestFile {
	if st.p.hashes != nil {
		st.rf.idsRepeat = hashesRepeat(st.p.hashes)
		st.pool.giveUint64s(st.p.hashes)
		st.p.hashes = nil
	} else {
		dropDuplicates(st.rf.Requests, st.p.l, st.p.path, nil, &st.x)
	}
	st.x.store(st.rf)
	return st.rf
}

// emptyCSVError is the error for a file without a header.
func emptyCSVError(path string) *FileError {
	return fileErrorf(path, 0, 0, "", "empty file",
		"empty file; expected a header line naming request_id, prompt_tokens, completion_tokens, TTFT_ms and E2E_ms")
}

// csvFastBuffer is how much of a file the fast path holds at once.
const csvFastBuffer = 1 << 20

// readCSVFast reads a requests.csv line by line from a buffer it reuses,
// splitting each line at its commas without copying it: what encoding/csv
// does for a line without quotes, at a fraction of the cost. At the first
// line holding a quote (a quoted field may span lines), or longer than a
// record may be, the rest of the file goes to readCSVSlow, the reference,
// which takes over with the same state and line numbers.
func readCSVFast(r io.Reader, path string, opts ReadOptions) (*RequestFile, error) {
	buf := make([]byte, csvFastBuffer)
	// readErr is a read failure: the complete lines before it still count,
	// and it is reported on the line after the last record, as encoding/csv
	// reports it.
	var readErr error
	n, err := fill(r, buf)
	if err != nil && err != io.EOF {
		readErr = err
	}
	data, eof := buf[:n], n < len(buf) && readErr == nil
	bom := 0
	if bytes.HasPrefix(data, utf8BOM) {
		bom = len(utf8BOM)
	}
	pos := bom
	line := 1         // of data[pos]
	fileStart := true // data[0] is the file's first byte
	var st *csvState
	for {
		nl := bytes.IndexByte(data[pos:], '\n')
		if nl < 0 && readErr != nil {
			next := 1
			if st != nil {
				next = st.lastLine + 1
			}
			return nil, fileErrorf(path, next, 0, "", "read error", "reading line %d: %v", next, readErr)
		}
		if nl < 0 && !eof {
			// Keep the partial line and read on.
			if pos == 0 && len(data) == len(buf) {
				// A line longer than the buffer: let the reference judge it.
				return readCSVRest(data, pos, fileStart, r, path, opts, st, line)
			}
			copy(buf, data[pos:])
			k := len(data) - pos
			m, err := fill(r, buf[k:])
			switch {
			case err == io.EOF:
				eof = true
			case err != nil:
				readErr = err
			}
			data, pos, fileStart = buf[:k+m], 0, false
			continue
		}
		var raw []byte
		next := len(data)
		if nl >= 0 {
			raw, next = data[pos:pos+nl], pos+nl+1
		} else {
			raw = data[pos:]
			if len(raw) == 0 {
				break // the end of the file
			}
		}
		if len(raw) > 0 && raw[len(raw)-1] == '\r' {
			raw = raw[:len(raw)-1]
		}
		if !csvline.Splittable(raw) {
			return readCSVRest(data, pos, fileStart, r, path, opts, st, line)
		}
		if len(raw) > 0 {
			if st == nil {
				fields := csvline.Split(nil, raw)
				// The header: its names outlive the buffer.
				names := make([]string, len(fields))
				for j, f := range fields {
					names[j] = strings.Clone(f)
				}
				l, ferr := resolveRequestLayout(names, path, line, "line")
				if ferr != nil {
					return nil, ferr
				}
				capHint := csvRowsHintFrom(r, data[next:])
				st = newCSVState(l, path, line, capHint, opts)
			} else if err := st.recordLine(raw, line); err != nil {
				return nil, err
			}
		}
		if nl < 0 {
			break
		}
		pos = next
		line++
	}
	if st == nil {
		return nil, emptyCSVError(path)
	}
	return st.finish(), nil
}

// fill reads from r until buf is full or r fails, and returns r's error
// as it is: io.EOF only at the end of the data. (io.ReadFull would report
// a reader's own io.ErrUnexpectedEOF — a cut gzip stream, say — the way
// it reports a short read at the end, and the cut would pass for the end
// of the file.)
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readCSVRest reads the rest of a file with encoding/csv: data[pos:] is
// what the fast path holds from line on, r what it has not read yet, st
// its state (nil when the header is still to come). fileStart says data
// begins at the file's first byte: falling back on the first line, the
// reference then sees the byte order mark too, as it would have.
func readCSVRest(data []byte, pos int, fileStart bool, r io.Reader, path string, opts ReadOptions, st *csvState, line int) (*RequestFile, error) {
	held := data[pos:]
	if st == nil && line == 1 && fileStart {
		held = data
	}
	return readCSVSlow(io.MultiReader(bytes.NewReader(held), r), r, path, opts, st, line)
}

// readCSVSlow reads CSV records with encoding/csv (behind csvline.Guard) from
// src, whose first byte is on the file's line firstLine. st carries the
// records read before; nil means the header comes first. sizer, when it
// has a size, is the file, for the rows hint.
func readCSVSlow(src, sizer io.Reader, path string, opts ReadOptions, st *csvState, firstLine int) (*RequestFile, error) {
	br := bufio.NewReaderSize(csvline.NewGuard(src, MaxCSVRecordBytes, firstLine), 64<<10)
	if st == nil && firstLine == 1 {
		if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
			br.Discard(len(utf8BOM))
		}
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	offset := firstLine - 1

	if st == nil {
		capHint := csvRowsHint(sizer, br)
		header, err := cr.Read()
		if err == io.EOF {
			return nil, emptyCSVError(path)
		}
		if err != nil {
			return nil, csvReadError(path, firstLine, offset, err, nil)
		}
		headerLine, _ := cr.FieldPos(0)
		headerLine += offset
		l, ferr := resolveRequestLayout(header, path, headerLine, "line")
		if ferr != nil {
			return nil, ferr
		}
		st = newCSVState(l, path, headerLine, capHint, opts)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvReadError(path, st.lastLine+1, offset, err, st.p.l)
		}
		line, _ := cr.FieldPos(0)
		if err := st.record(rec, line+offset); err != nil {
			return nil, err
		}
	}
	return st.finish(), nil
}

// csvRowsHint estimates the number of rows of a file from its size and the
// line length of its first 64 KiB, so the columns are allocated once
// instead of grown by doubling (which would leave the outgrown copies to
// the garbage collector and raise peak memory). It returns 1024 when the
// reader has no size.
func csvRowsHint(r io.Reader, br *bufio.Reader) int {
	sample, _ := br.Peek(64 << 10)
	return csvRowsHintFrom(r, sample)
}

// csvRowsHintFrom is csvRowsHint over the line length of sample (its
// first 64 KiB are used).
func csvRowsHintFrom(r io.Reader, sample []byte) int {
	const fallback = 1024
	st, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return fallback
	}
	fi, err := st.Stat()
	if err != nil || fi.Size() <= 0 {
		return fallback
	}
	sample = sample[:min(len(sample), 64<<10)]
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
func csvReadError(path string, line, offset int, err error, l *requestLayout) *FileError {
	var ge *csvline.GuardError
	if errors.As(err, &ge) {
		name := ""
		if l != nil && ge.Field >= 1 && ge.Field <= len(l.names) {
			name = l.names[ge.Field-1]
		}
		return fileErrorf(path, ge.Line, ge.Field, name, ge.Reason, "%s", ge.Msg)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileErrorf(path, pe.Line+offset, pe.Column, "", "malformed csv", "malformed CSV: %v", pe.Err)
	}
	return fileErrorf(path, line, 0, "", "read error", "reading line %d: %v", line, err)
}

// csvRowParser turns CSV records into rows of q.
type csvRowParser struct {
	l    *requestLayout
	q    *Requests
	path string
	// checkOnly marks the columns read ForAnalysis that are checked but
	// not kept: a plain decimal there needs no conversion.
	checkOnly [numReqColumns]bool
	// hashes, when not nil, holds the hash of each accepted row's id
	// instead of the id (ReadOptions.hashIDs).
	hashes []uint64
	seed   maphash.Seed
	// plain is the plain-line parser (parsePlain), nil when the layout
	// has a column it does not read.
	plain *plainParser
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

	r := csvRow{phase: PhaseMeasured}
	r.num[colTRequestSent], r.num[colTFirstText], r.num[colTLastText] = math.NaN(), math.NaN(), math.NaN()
	r.count[colMaxTokens], r.count[colTextChunks] = -1, -1
	chunkMark := len(q.ChunkMs)
	failed := l.pos[colStatus] >= 0 && StatusFailed(rec[l.pos[colStatus]])
	zeroTokens := false
	if s := trimBlanks(rec[l.pos[colCompletionTokens]]); s != "" {
		n, pr := parseCount(s, requestColumns[colCompletionTokens].max)
		zeroTokens = pr == probNone && n == 0
	}
	if failed || zeroTokens {
		r.num[colTTFT], r.num[colE2E] = math.NaN(), math.NaN()
	}
	for j, raw := range rec {
		c := l.cols[j]
		var pr problem
		var v float64 // a number read, for the message when it is out of range
		switch c {
		case colExtra:
			continue
		case colRequestID:
			if raw == "" {
				pr = probMissing
			}
			r.id = raw
		case colStatus:
			r.status = raw
		case colPhase:
			var ok bool
			if r.phase, ok = ParsePhase(raw); !ok {
				pr = probBadPhase
			}
		case colChunkMs:
			switch p.parseChunks(raw) {
			case probNone:
			case probOutOfRange:
				q.ChunkMs = q.ChunkMs[:chunkMark]
				return l.rowDiag(p.path, line, colChunkMs, reasonOutOfRange,
					"%s: expected ';'-separated numbers, each %s, got %s", l.name(colChunkMs), rangeText(colChunkMs), quoteValue(raw)), raw, true
			default:
				q.ChunkMs = q.ChunkMs[:chunkMark]
				return l.rowDiag(p.path, line, colChunkMs, reasonBadChunks,
					"%s: expected ';'-separated non-negative numbers, got %s", l.name(colChunkMs), quoteValue(raw)), raw, true
			}
		default:
			s := trimBlanks(raw)
			info := &requestColumns[c]
			if p.checkOnly[c] && csvline.CheckDecimal(s, info.kind == kindCount, uint64(info.max)) {
				continue
			}
			if s == "" {
				if info.required && !mayBeEmpty(c, failed, zeroTokens) {
					pr = probMissing
				}
				break
			}
			if info.kind == kindCount {
				var n int64
				if n, pr = parseCount(s, info.max); pr == probNone {
					r.count[c] = n
				}
				break
			}
			v, pr = parseNumber(s)
			switch {
			case pr == probNaNInf && !info.required && strings.EqualFold(s, "nan"):
				v, pr = math.NaN(), probNone
			case pr == probNone && v > float64(info.max):
				pr = probOutOfRange
			}
			if pr == probNone {
				r.num[c] = v
			}
		}
		if pr != probNone {
			q.ChunkMs = q.ChunkMs[:chunkMark]
			got, value := "an empty field", ""
			if pr != probMissing {
				got, value = quoteValue(raw), raw
			}
			return l.valueDiag(p.path, line, c, pr, got, v), value, true
		}
	}
	if r.num[colE2E] < r.num[colTTFT] {
		q.ChunkMs = q.ChunkMs[:chunkMark]
		return l.e2eDiag(p.path, line, r.num[colTTFT], r.num[colE2E]), "", true
	}
	p.appendRow(&r, line)
	return Diagnostic{}, "", false
}

// csvRow is the values of one accepted record, before they are appended.
type csvRow struct {
	id, status string
	count      [numReqColumns]int64   // by column: the counts
	num        [numReqColumns]float64 // by column: the numbers
	phase      Phase
}

// appendRow appends the accepted record r, which starts on line, to q
// (its chunk_ms values are appended already).
func (p *csvRowParser) appendRow(r *csvRow, line int) {
	q := p.q
	q.SourceRow = append(q.SourceRow, int32(line))
	if p.hashes != nil {
		p.hashes = append(p.hashes, maphash.String(p.seed, r.id))
	} else {
		q.IDs.Append(r.id) // a copy: the record is a view of the file's buffer
	}
	q.PromptTokens = append(q.PromptTokens, r.count[colPromptTokens])
	q.CompletionTokens = append(q.CompletionTokens, r.count[colCompletionTokens])
	q.TTFTms = append(q.TTFTms, r.num[colTTFT])
	q.E2Ems = append(q.E2Ems, r.num[colE2E])
	if q.TRequestSent != nil {
		q.TRequestSent = append(q.TRequestSent, r.num[colTRequestSent])
	}
	if q.TFirstText != nil {
		q.TFirstText = append(q.TFirstText, r.num[colTFirstText])
	}
	if q.TLastText != nil {
		q.TLastText = append(q.TLastText, r.num[colTLastText])
	}
	if q.Status != nil {
		// A view of the line: the column copies each new text once.
		q.Status.Append(r.status)
	}
	if q.MaxTokens != nil {
		q.MaxTokens = append(q.MaxTokens, r.count[colMaxTokens])
	}
	if q.TextChunks != nil {
		q.TextChunks = append(q.TextChunks, r.count[colTextChunks])
	}
	if q.ChunkOffsets != nil {
		q.ChunkOffsets = append(q.ChunkOffsets, int32(len(q.ChunkMs)))
	}
	if q.Phase != nil {
		q.Phase = append(q.Phase, r.phase)
	}
	q.N++
}

// forAnalysis sets p up to read a file ForAnalysis: the columns that are
// only checked are not allocated.
func (p *csvRowParser) forAnalysis() {
	p.checkOnly[colTFirstText] = true
	p.q.TFirstText = nil
	if !p.l.has(colChunkMs) {
		p.checkOnly[colTextChunks] = true
		p.q.TextChunks = nil
	}
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

// parseChunks appends the ';'-separated numbers of field s to q.ChunkMs.
// On a bad element it reports the element's problem (probMissing for an
// empty one), and the caller truncates ChunkMs.
func (p *csvRowParser) parseChunks(s string) problem {
	s = trimBlanks(s)
	if s == "" {
		return probNone
	}
	for {
		elem, rest, more := strings.Cut(s, ";")
		elem = trimBlanks(elem)
		if elem == "" {
			return probMissing
		}
		v, pr := parseNumber(elem)
		if pr == probNone && v > float64(requestColumns[colChunkMs].max) {
			pr = probOutOfRange
		}
		if pr != probNone {
			return pr
		}
		p.q.ChunkMs = append(p.q.ChunkMs, v)
		if !more {
			return probNone
		}
		s = rest
	}
}
