package ingest

// This file holds what the CSV and Parquet request readers share: the column
// table, header resolution, value checks and their diagnostics, and the
// duplicate request_id pass.
//
// A row is checked column by column in file order and the first problem
// found is the one reported; then E2E_ms >= TTFT_ms; then, over the rows
// that passed everything else, request_id uniqueness (the first occurrence
// is kept, later ones are excluded). Each excluded row gives exactly one
// Diagnostic.

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// Reasons used in the Diagnostics of excluded request rows.
const (
	reasonNonNumeric = "non-numeric"
	reasonNegative   = "negative"
	reasonNaNInf     = "nan/inf"
	reasonE2EBelow   = "e2e < ttft"
	reasonDuplicate  = "duplicate request_id"
	reasonMissing    = "missing field"
	reasonBadChunks  = "bad chunk_ms"
	reasonBadPhase   = "bad phase"
	reasonOutOfRange = "out of range"
)

// reqColumn identifies a column benchnote reads from a requests file.
type reqColumn int8

const (
	colRequestID reqColumn = iota
	colPromptTokens
	colCompletionTokens
	colTTFT
	colE2E
	colTRequestSent
	colTFirstText
	colTLastText
	colStatus
	colMaxTokens
	colTextChunks
	colChunkMs
	colPhase
	numReqColumns

	// colExtra marks a column benchnote does not use.
	colExtra reqColumn = -1
)

// valueKind says how a column's values are parsed and checked.
type valueKind uint8

const (
	kindID       valueKind = iota // non-empty string
	kindCount                     // integer >= 0
	kindNumber                    // finite number >= 0
	kindStatus                    // any string
	kindChunkMs                   // list of finite numbers >= 0
	kindUnixTime                  // like kindNumber; only ever optional
	kindPhase                     // "", "measure", "warmup" or "cooldown"
)

// requestColumnInfo describes a column benchnote reads.
type requestColumnInfo struct {
	name     string
	kind     valueKind
	required bool
	// max is the largest value accepted (see ranges.go): a count's, a
	// number's, each chunk_ms value's; 0 for the text columns. The least
	// is always 0, which the non-negative check enforces.
	max int64
}

var requestColumns = [numReqColumns]requestColumnInfo{
	colRequestID:        {"request_id", kindID, true, 0},
	colPromptTokens:     {"prompt_tokens", kindCount, true, MaxTokenCount},
	colCompletionTokens: {"completion_tokens", kindCount, true, MaxTokenCount},
	colTTFT:             {"TTFT_ms", kindNumber, true, MaxLatencyMs},
	colE2E:              {"E2E_ms", kindNumber, true, MaxLatencyMs},
	colTRequestSent:     {"t_request_sent", kindUnixTime, false, MaxUnixSeconds},
	colTFirstText:       {"t_first_text", kindUnixTime, false, MaxUnixSeconds},
	colTLastText:        {"t_last_text", kindUnixTime, false, MaxUnixSeconds},
	colStatus:           {"status", kindStatus, false, 0},
	// max_tokens is only compared, never summed: clients send huge
	// sentinels, and any int64 will do.
	colMaxTokens:  {"max_tokens", kindCount, false, math.MaxInt64},
	colTextChunks: {"text_chunks", kindCount, false, MaxTokenCount},
	colChunkMs:    {"chunk_ms", kindChunkMs, false, MaxLatencyMs},
	colPhase:      {"phase", kindPhase, false, 0},
}

// The lower ends of the ranges are 0, which the checks for negative
// values enforce: a range with another lower end needs a check of its own.
const _ = -uint(MinUnixSeconds) // MinUnixSeconds must be 0

// DefaultMaxRowsPerRun is the default of ReadOptions.MaxRows: far above
// any run measured against one server, far below what would exhaust memory
// (a row costs about 50 to 100 bytes once read).
const DefaultMaxRowsPerRun = 50_000_000

// ReadOptions bounds what reading one requests file may cost.
type ReadOptions struct {
	// MaxRows is the most data rows a file may hold; a file with more is
	// refused with a "too large" *FileError. 0 means DefaultMaxRowsPerRun.
	MaxRows int

	// ForAnalysis reads a file for the analysis alone, which never looks
	// at the request ids, t_first_text, or text_chunks without chunk_ms:
	// their values are still checked (ids for uniqueness, the others as
	// any value) but not kept, so Requests.IDs is empty and TFirstText
	// (and TextChunks without ChunkMs) nil. Every value is still decoded
	// and checked: row-group statistics are not trusted to vouch for
	// values they do not see.
	ForAnalysis bool

	// pool, when not nil, lends the columns of released runs.
	pool *columnPool

	// hashIDs (CSV, ForAnalysis) keeps only a hash of each id: unique
	// hashes prove unique ids; a repeat sets RequestFile.idsRepeat, and the
	// file must be read again without it for the duplicates' diagnostics.
	hashIDs bool

	// pqarrowOnly reads Parquet through pqarrow alone, never the typed
	// column readers: the reference the tests compare the fast path with.
	pqarrowOnly bool
}

func (o ReadOptions) maxRows() int {
	if o.MaxRows <= 0 {
		return DefaultMaxRowsPerRun
	}
	return o.MaxRows
}

// tooManyRows is the error for a file with more than max rows.
func tooManyRows(path string, line, max int) *FileError {
	return fileErrorf(path, line, 0, "", "too large",
		"more than %s rows, the limit per run; raise it with --max-rows-per-run or split the run", textfmt.Thousands(max))
}

// StatusFailed reports whether a status value marks a failed request: any
// text other than empty or "ok".
func StatusFailed(s string) bool {
	if s == "ok" || s == "" {
		return false
	}
	s = strings.TrimSpace(s)
	return s != "" && !strings.EqualFold(s, "ok")
}

// emptyWhenFailed lists the required columns a failed request may leave
// empty: a request that failed has no first token, no end and no usage
// (some tools record no prompt length for it either). A failed request is
// never a latency sample nor part of the workload's token distributions,
// so nothing reads the placeholder.
var emptyWhenFailed = [numReqColumns]bool{colPromptTokens: true, colCompletionTokens: true, colTTFT: true, colE2E: true}

// mayBeEmpty reports whether required column c may be empty on a row: a
// failed request has no timings or usage, and a successful request with
// completion_tokens 0 never received a first token, so it has no TTFT or
// E2E (it is not a latency sample either way).
func mayBeEmpty(c reqColumn, failed, zeroTokens bool) bool {
	return emptyWhenFailed[c] && (failed || zeroTokens && (c == colTTFT || c == colE2E))
}

// Phase says whether the source tool counted a request in its measurement.
type Phase uint8

// The phases a requests file may mark.
const (
	// PhaseMeasured is a request inside the measurement (an empty phase).
	PhaseMeasured Phase = iota
	// PhaseWarmup is a request the source tool sent before measuring.
	PhaseWarmup
	// PhaseCooldown is a request the source tool counted after measuring.
	PhaseCooldown
)

// String returns "measure", "warmup" or "cooldown".
func (p Phase) String() string {
	switch p {
	case PhaseWarmup:
		return "warmup"
	case PhaseCooldown:
		return "cooldown"
	}
	return "measure"
}

// ParsePhase reads a phase value: empty or "measure", "warmup" or
// "cooldown" (any case, surrounding blanks ignored).
func ParsePhase(s string) (Phase, bool) {
	switch strings.ToLower(trimBlanks(s)) {
	case "", "measure":
		return PhaseMeasured, true
	case "warmup", "warm-up":
		return PhaseWarmup, true
	case "cooldown", "cool-down":
		return PhaseCooldown, true
	}
	return PhaseMeasured, false
}

// requestLayout maps a file's columns (CSV header fields or top-level
// Parquet fields) to the columns benchnote reads.
type requestLayout struct {
	// names are the column names as written, one per file column.
	names []string
	// cols is the role of each file column, colExtra when unused.
	cols []reqColumn
	// pos is the 0-based file column of each role, -1 when absent.
	pos [numReqColumns]int
	// extras are the unused column names in file order.
	extras []string
	// unit is "line" (CSV) or "row" (Parquet), for messages.
	unit string
}

// resolveRequestLayout matches column names case-insensitively (ignoring
// surrounding blanks) against the known columns. line is the header line
// for CSV and 0 for Parquet.
func resolveRequestLayout(names []string, path string, line int, unit string) (*requestLayout, *FileError) {
	l := &requestLayout{names: make([]string, len(names)), cols: make([]reqColumn, len(names)), unit: unit}
	for c := range l.pos {
		l.pos[c] = -1
	}
	for j, raw := range names {
		name := strings.TrimSpace(raw)
		l.names[j] = name
		l.cols[j] = colExtra
		for c := range requestColumns {
			if !strings.EqualFold(name, requestColumns[c].name) {
				continue
			}
			if prev := l.pos[c]; prev >= 0 {
				return nil, fileErrorf(path, line, j+1, name, "duplicate column",
					"column %q appears twice (columns %d and %d); expected each column once", name, prev+1, j+1)
			}
			l.pos[c] = j
			l.cols[j] = reqColumn(c)
			break
		}
		if l.cols[j] == colExtra {
			l.extras = append(l.extras, name)
		}
	}
	var missing []string
	for c := range requestColumns {
		if requestColumns[c].required && l.pos[c] < 0 {
			missing = append(missing, requestColumns[c].name)
		}
	}
	if len(missing) > 0 {
		what := "missing required column " + missing[0]
		if len(missing) > 1 {
			what = "missing required columns " + strings.Join(missing, ", ")
		}
		found := "no columns"
		if len(l.names) > 0 {
			q := make([]string, len(l.names))
			for j, n := range l.names {
				q[j] = quoteValue(n)
			}
			found = strings.Join(q, ", ")
		}
		return nil, fileErrorf(path, line, 0, missing[0], "missing column",
			"%s; expected columns request_id, prompt_tokens, completion_tokens, TTFT_ms and E2E_ms (any case), found %s", what, found)
	}
	return l, nil
}

// has reports whether the file has column c.
func (l *requestLayout) has(c reqColumn) bool { return l.pos[c] >= 0 }

// name is column c's name as written in the file.
func (l *requestLayout) name(c reqColumn) string { return l.names[l.pos[c]] }

// rowDiag builds the Warning for an excluded row. c may be colExtra with
// column set explicitly through fileCol (1-based; 0 for none).
func (l *requestLayout) rowDiag(path string, line int, c reqColumn, reason, format string, args ...any) Diagnostic {
	d := Diagnostic{Severity: Warning, File: path, Line: line, Reason: reason, Message: fmt.Sprintf(format, args...)}
	if c >= 0 && l.pos[c] >= 0 {
		d.Column = l.pos[c] + 1
		d.ColumnName = l.names[l.pos[c]]
	}
	return d
}

// problem is what is wrong with one value.
type problem uint8

const (
	probNone       problem = iota
	probMissing            // empty field or null in a required column
	probNonNumeric         // not a number at all
	probNotInteger         // a number, but not an integer where one is needed
	probNegative           // below zero
	probNaNInf             // NaN, ±Inf or out of float64 range
	probBadPhase           // a phase other than measure, warmup or cooldown
	probOutOfRange         // finite and not negative, but above the column's max
)

// valueDiag describes problem p with column c's value got (already
// rendered: quoted text for CSV, a plain number or "null" for Parquet).
// v is the value read, used only for probOutOfRange.
func (l *requestLayout) valueDiag(path string, line int, c reqColumn, p problem, got string, v float64) Diagnostic {
	name := l.name(c)
	expected := "a non-negative number"
	if requestColumns[c].kind == kindCount {
		expected = "a non-negative integer"
	}
	switch p {
	case probMissing:
		if requestColumns[c].kind == kindID {
			expected = "a request id"
		}
		return l.rowDiag(path, line, c, reasonMissing, "%s: expected %s, got %s", name, expected, got)
	case probNotInteger:
		return l.rowDiag(path, line, c, reasonNonNumeric, "%s: expected an integer, got %s", name, got)
	case probNegative:
		return l.rowDiag(path, line, c, reasonNegative, "%s: expected %s, got %s", name, expected, got)
	case probNaNInf:
		return l.rowDiag(path, line, c, reasonNaNInf, "%s: expected a finite number, got %s", name, got)
	case probBadPhase:
		return l.rowDiag(path, line, c, reasonBadPhase, "%s: expected measure, warmup, cooldown or an empty field, got %s", name, got)
	case probOutOfRange:
		return l.rowDiag(path, line, c, reasonOutOfRange, "%s: expected %s, got %s%s", name, rangeText(c), got, millisecondsHint(c, v))
	}
	return l.rowDiag(path, line, c, reasonNonNumeric, "%s: expected %s, got %s", name, expected, got)
}

// rangeText says what column c accepts at most, for a message.
func rangeText(c reqColumn) string {
	limit := requestColumns[c].max
	switch requestColumns[c].kind {
	case kindUnixTime:
		return fmt.Sprintf("seconds since the Unix epoch, at most %d (the end of the year 9999)", limit)
	case kindNumber, kindChunkMs:
		const msPerDay = 24 * 3600 * 1000
		return fmt.Sprintf("at most %d (ms, about %d days)", limit, (limit+msPerDay/2)/msPerDay)
	}
	return fmt.Sprintf("at most %d", limit)
}

// millisecondsHint is " (milliseconds?)" when v, out of range in time
// column c, would be a time from 1970 to 9999 in milliseconds.
func millisecondsHint(c reqColumn, v float64) string {
	if requestColumns[c].kind == kindUnixTime && v > MaxUnixSeconds && v <= 1000*MaxUnixSeconds {
		return " (milliseconds?)"
	}
	return ""
}

// e2eDiag reports E2E_ms < TTFT_ms.
func (l *requestLayout) e2eDiag(path string, line int, ttft, e2e float64) Diagnostic {
	return l.rowDiag(path, line, colE2E, reasonE2EBelow, "%s: expected at least %s (%s), got %s",
		l.name(colE2E), l.name(colTTFT), formatNumber(ttft), formatNumber(e2e))
}

// maxQuoted is the longest value quoted in full in a message.
const maxQuoted = 64

// quoteValue quotes s for a message, shortening long values.
func quoteValue(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// formatNumber renders a float the shortest way that reads back exactly.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// trimBlanks removes surrounding spaces and tabs.
func trimBlanks(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseNumber parses a finite number >= 0. s must already be trimmed and
// non-empty.
func parseNumber(s string) (float64, problem) {
	// Fast path for plain decimals ("123", "12.75"): when the digits form an
	// integer below 2^53 and at most 22 follow the point, one division of
	// two exact values is correctly rounded, as ParseFloat would be. Runs
	// of eight digits are converted at once.
	if len(s) <= 19 {
		b := unsafe.Slice(unsafe.StringData(s), len(s))
		var mant uint64
		digits, dot := 0, -1
		i := 0
		for i < len(s) {
			if i+8 <= len(s) {
				if x := binary.LittleEndian.Uint64(b[i:]); eightDigits(x) {
					mant = mant*100_000_000 + eightDigitsValue(x)
					digits += 8
					i += 8
					continue
				}
			}
			if d := s[i] - '0'; d <= 9 {
				mant = mant*10 + uint64(d)
				digits++
			} else if s[i] == '.' && dot < 0 {
				dot = i
			} else {
				break
			}
			i++
		}
		if i == len(s) && digits > 0 && mant < 1<<53 {
			if dot < 0 {
				return float64(mant), probNone
			}
			return float64(mant) / pow10[len(s)-dot-1], probNone
		}
	}
	return parseFloatChecked(s)
}

// eightDigits reports whether the eight bytes of x (the first in the low
// byte) are all ASCII digits.
func eightDigits(x uint64) bool {
	return (x&0xF0F0F0F0F0F0F0F0)|((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4 == 0x3333333333333333
}

// eightDigitsValue is the number eight ASCII digits in x spell, the first
// digit in the low byte.
func eightDigitsValue(x uint64) uint64 {
	x -= 0x3030303030303030
	x = x*10 + x>>8 // pairs of digits in every other byte
	x = ((x&0x000000FF000000FF)*(100+1000000<<32) + (x>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return x & 0xFFFFFFFF
}

// parseFloatChecked is the slow path of parseNumber and parseCount: any
// number strconv accepts, checked to be finite and non-negative.
func parseFloatChecked(s string) (float64, problem) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && err.(*strconv.NumError).Err == strconv.ErrRange:
		return 0, probNaNInf
	case err != nil:
		return 0, probNonNumeric
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, probNaNInf
	case v < 0:
		return 0, probNegative
	}
	return v + 0, probNone // + 0 turns -0 into 0
}

// parseCount parses an integer from 0 to limit, also accepting integral
// decimals such as "12.0". s must already be trimmed and non-empty.
func parseCount(s string, limit int64) (int64, problem) {
	if len(s) <= 18 {
		var n int64
		i := 0
		for ; i < len(s); i++ {
			ch := s[i]
			if ch < '0' || ch > '9' {
				break
			}
			n = n*10 + int64(ch-'0')
		}
		if i == len(s) {
			if n > limit {
				return 0, probOutOfRange
			}
			return n, probNone
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, probNegative
		case n > limit:
			return 0, probOutOfRange
		}
		return n, probNone
	}
	v, pr := parseFloatChecked(s)
	if pr != probNone {
		return 0, pr
	}
	return floatToCount(v, limit)
}

// floatToCount converts a finite, non-negative float to a count of at
// most limit. An integer beyond int64 is out of range when limit is below
// math.MaxInt64, and not a number the column can hold (non-numeric) when
// the column takes any int64.
func floatToCount(v float64, limit int64) (int64, problem) {
	switch {
	case v != math.Trunc(v):
		return 0, probNotInteger
	case v >= 1<<63 && limit == math.MaxInt64:
		return 0, probNonNumeric
	case v >= 1<<63 || int64(v) > limit:
		return 0, probOutOfRange
	}
	return int64(v), probNone
}

// newRequests allocates the columns a file with layout l has, with room
// for capHint rows, from pool when it is not nil.
func newRequests(l *requestLayout, capHint int, pool *columnPool) *Requests {
	q := &Requests{
		SourceRow:        pool.takeInt32s(capHint),
		PromptTokens:     pool.takeInts(capHint),
		CompletionTokens: pool.takeInts(capHint),
		TTFTms:           pool.takeFloats(capHint),
		E2Ems:            pool.takeFloats(capHint),
		ExtraColumns:     l.extras,
	}
	q.IDs.grow(capHint, 12*capHint)
	if l.has(colTRequestSent) {
		q.TRequestSent = pool.takeFloats(capHint)
	}
	if l.has(colTFirstText) {
		q.TFirstText = pool.takeFloats(capHint)
	}
	if l.has(colTLastText) {
		q.TLastText = pool.takeFloats(capHint)
	}
	if l.has(colStatus) {
		q.Status = pool.takeStatus(capHint)
	}
	if l.has(colMaxTokens) {
		q.MaxTokens = pool.takeInts(capHint)
	}
	if l.has(colTextChunks) {
		q.TextChunks = pool.takeInts(capHint)
	}
	if l.has(colChunkMs) {
		q.ChunkOffsets = make([]int32, 1, capHint+1)
		q.ChunkMs = []float64{}
	}
	if l.has(colPhase) {
		q.Phase = make([]Phase, 0, capHint)
	}
	return q
}

// trimForAnalysis drops the columns a file read ForAnalysis does not keep.
// Their slices go to pool (when not nil) for the next runs.
func (q *Requests) trimForAnalysis(pool *columnPool) {
	q.IDs = StringColumn{}
	pool.giveFloats(q.TFirstText)
	q.TFirstText = nil
	if q.ChunkOffsets == nil {
		pool.giveInts(q.TextChunks)
		q.TextChunks = nil
	}
}

// removeRows deletes the rows at the given indices, which must be sorted
// and distinct, from every present column.
func (q *Requests) removeRows(rows []int) {
	if len(rows) == 0 {
		return
	}
	q.SourceRow = removeAt(q.SourceRow, rows)
	q.IDs.removeRows(rows)
	q.PromptTokens = removeAt(q.PromptTokens, rows)
	q.CompletionTokens = removeAt(q.CompletionTokens, rows)
	q.TTFTms = removeAt(q.TTFTms, rows)
	q.E2Ems = removeAt(q.E2Ems, rows)
	q.TRequestSent = removeAt(q.TRequestSent, rows)
	q.TFirstText = removeAt(q.TFirstText, rows)
	q.TLastText = removeAt(q.TLastText, rows)
	if q.Status != nil {
		q.Status.removeRows(rows)
	}
	q.MaxTokens = removeAt(q.MaxTokens, rows)
	q.TextChunks = removeAt(q.TextChunks, rows)
	q.Phase = removeAt(q.Phase, rows)
	if q.ChunkOffsets != nil {
		// Rebuild the flat chunk layout from the first removed row on.
		first := rows[0]
		w := int(q.ChunkOffsets[first])
		next := 0
		out := first
		for i := first; i+1 < len(q.ChunkOffsets); i++ {
			if next < len(rows) && rows[next] == i {
				next++
				continue
			}
			lo, hi := int(q.ChunkOffsets[i]), int(q.ChunkOffsets[i+1])
			w += copy(q.ChunkMs[w:], q.ChunkMs[lo:hi])
			q.ChunkOffsets[out+1] = int32(w)
			out++
		}
		q.ChunkOffsets = q.ChunkOffsets[:out+1]
		q.ChunkMs = q.ChunkMs[:w]
	}
	q.N = q.IDs.Len()
}

// removeAt deletes s[rows[k]] for every k; rows are sorted and distinct.
func removeAt[T any](s []T, rows []int) []T {
	if s == nil || len(rows) == 0 {
		return s
	}
	w := rows[0]
	next := 0
	for i := rows[0]; i < len(s); i++ {
		if next < len(rows) && rows[next] == i {
			next++
			continue
		}
		s[w] = s[i]
		w++
	}
	clear(s[w:])
	return s[:w]
}

// duplicate is a row whose id already appeared on an earlier row.
type duplicate struct{ row, first int }

// findDuplicates returns, in row order, every row whose id equals an
// earlier row's. hashes, when not nil, holds maphash.String of each id
// under one seed.
//
// It is the costliest step of reading a large Parquet file, so it avoids a
// map[string]int (a cache miss per row): ids are hashed in one sequential
// pass, the rows are bucketed by the top hash bits into partitions of about
// a thousand, and each partition is checked with a small open-addressing
// table that stays in cache. Entries pack the hash's high bits above row+1;
// ids are compared only when those bits match.
func findDuplicates(ids *StringColumn, hashes []uint64) []duplicate {
	n := ids.Len()
	if n < 2 {
		return nil
	}
	rowBits := bits.Len(uint(n))
	rowMask := uint64(1)<<rowBits - 1
	partBits := bits.Len(uint(n >> 10))

	if hashes == nil {
		seed := maphash.MakeSeed()
		hashes = make([]uint64, n)
		for i := range n {
			hashes[i] = maphash.String(seed, ids.view(i))
		}
	}
	packed, starts, largest := partitionHashes(hashes, partBits, rowMask)

	table := make([]uint64, 1<<bits.Len(uint(2*largest-1))) // load factor <= 1/2
	var dups []duplicate
	for p := range 1 << partBits {
		part := packed[starts[p]:starts[p+1]]
		if len(part) < 2 {
			continue
		}
		dups = appendPartDuplicates(dups, ids, part, table[:1<<bits.Len(uint(2*len(part)-1))], rowBits, rowMask)
	}
	slices.SortFunc(dups, func(a, b duplicate) int { return a.row - b.row })
	return dups
}

// appendPartDuplicates appends the duplicates among one partition's
// packed entries (hash bits above rowBits, row+1 in rowMask), found with
// the open-addressing table t, a power of two at least twice as long as
// part.
func appendPartDuplicates(dups []duplicate, ids *StringColumn, part, t []uint64, rowBits int, rowMask uint64) []duplicate {
	clear(t)
	mask := uint64(len(t) - 1)
	for _, e := range part {
		for s := (e >> rowBits) & mask; ; s = (s + 1) & mask {
			f := t[s]
			if f == 0 {
				t[s] = e
				break
			}
			if (f^e)&^rowMask == 0 {
				row, first := int(e&rowMask)-1, int(f&rowMask)-1
				if ids.view(row) == ids.view(first) {
					dups = append(dups, duplicate{row, first})
					break
				}
			}
		}
	}
	return dups
}

// partitionHashes places every hashes[i] in the partition the top partBits
// bits of it name, in one counting pass: partition p is
// packed[starts[p]:starts[p+1]], largest the largest partition. With a
// rowMask, an entry's low bits are replaced by its row + 1.
func partitionHashes(hashes []uint64, partBits int, rowMask uint64) (packed []uint64, starts []int, largest int) {
	partShift := 64 - partBits // x >> 64 is 0: one partition
	starts = make([]int, 1<<partBits+1)
	for _, h := range hashes {
		starts[h>>partShift+1]++
	}
	for p := range 1 << partBits {
		largest = max(largest, starts[p+1])
		starts[p+1] += starts[p]
	}
	packed = make([]uint64, len(hashes))
	next := slices.Clone(starts[:1<<partBits])
	for i, h := range hashes {
		p := h >> partShift
		if rowMask != 0 {
			h = h&^rowMask | uint64(i+1)
		}
		packed[next[p]] = h
		next[p]++
	}
	return packed, starts, largest
}

// dropDuplicates excludes every accepted row whose id repeats an earlier
// accepted one and adds them to x. hashes are the ids' hashes, or nil.
func dropDuplicates(q *Requests, l *requestLayout, path string, hashes []uint64, x *exclusions) {
	dups := findDuplicates(&q.IDs, hashes)
	if len(dups) == 0 {
		return
	}
	rows := make([]int, len(dups))
	col := l.pos[colRequestID] + 1
	for k, d := range dups {
		rows[k] = d.row
		diag := Diagnostic{Severity: Warning, File: path, Line: int(q.SourceRow[d.row]), Column: col,
			ColumnName: l.name(colRequestID), Reason: reasonDuplicate}
		if x.lists(reasonDuplicate, col) {
			diag.Message = fmt.Sprintf("%s: expected a unique id, got %s, already on %s %d",
				l.name(colRequestID), quoteValue(q.IDs.view(d.row)), l.unit, q.SourceRow[d.first])
		}
		x.add(diag, q.IDs.view(d.row))
	}
	q.removeRows(rows)
}
