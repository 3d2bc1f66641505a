package ingest

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/benchnote/benchnote/ingest/internal/parquetpage"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// goAllocator backs every Arrow array the Parquet reader makes. It must be
// a Go allocator, whose Free does nothing: decoded value buffers become
// the returned columns without a copy.
var goAllocator = memory.NewGoAllocator()

// ReadRequestsParquet reads a requests.parquet from r (an *os.File or a
// *bytes.Reader will do). path is the file's path relative to the sweep
// root and is used only in diagnostics, where the "line" of a row is its
// 1-based row number over the whole file.
//
// Columns are the file's top-level fields, matched by name as for CSV.
// Only the columns benchnote uses are decoded, concurrently. Integer columns
// may be stored as any integer type or as floats with integral values;
// number columns as any integer or float type (t_* also as timestamps);
// request_id and status as strings or binary, plain or dictionary-encoded
// (request_id also as integers); chunk_ms as a list of numbers. A null in a
// required column excludes the row; a null in an optional one is a missing
// value, and a null chunk_ms list is a request with no chunks. NaN in an
// optional time column is a missing value too.
//
// Rows with problems are excluded and reported in RequestFile.Excluded
// (and, past MaxListedExclusions of one reason in one column, counted in
// RequestFile.Unlisted); a *FileError is returned when the file as a whole
// is unusable: not Parquet, truncated or corrupt, a required column
// missing, named twice, or of a type that cannot hold its values, a footer
// whose row count is negative, disagrees with the data or is implausible
// for the file's size (see MaxParquetRowsPerByte), more rows than
// ReadOptions.MaxRows, or a page whose CRC-32 checksum does not match (see
// parquetpage.VerifyChecksums; pages without one are not checked).
func ReadRequestsParquet(r parquet.ReaderAtSeeker, path string) (*RequestFile, error) {
	return ReadRequestsParquetWith(r, path, ReadOptions{})
}

// ReadRequestsParquetWith is ReadRequestsParquet with limits other than
// the defaults.
func ReadRequestsParquetWith(r parquet.ReaderAtSeeker, path string, opts ReadOptions) (*RequestFile, error) {
	rf, _, err := readRequestsParquet(r, path, parquetBatchRows, opts)
	return rf, err
}

// MaxParquetRowsPerByte bounds the rows a Parquet file may declare for its
// size: at least one bit per row. Honest files spend far more (a measured
// latency alone takes several bytes); even a run whose every request failed,
// with null timings and sequential ids, takes about 5 bits per row with
// zstd at its highest level. A file claiming more rows than this is a
// compression bomb or a corrupt footer: its rows would cost about 100 bytes
// each in memory, so a few kilobytes could claim gigabytes.
const MaxParquetRowsPerByte = 8

// readRequestsParquet is ReadRequestsParquet decoding at most batchRows
// rows per call into Arrow. footerRows is the row count the footer
// declares once it is read and found plausible, -1 before that or when it
// is not; it counts the rows of a file that fails later.
func readRequestsParquet(r parquet.ReaderAtSeeker, path string, batchRows int, opts ReadOptions) (rf *RequestFile, footerRows int64, err error) {
	footerRows = -1
	defer func() {
		// The Parquet decoder panics on some malformed input.
		if p := recover(); p != nil {
			rf, err = nil, fileErrorf(path, 0, 0, "", "corrupt parquet", "reading Parquet: %v", p)
		}
	}()
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, -1, fileErrorf(path, 0, 0, "", "read error", "reading Parquet: %v", err)
	}
	// Column chunks are read whole (the reader's unbuffered mode): with a
	// buffered stream, Arrow drops read errors met inside a chunk.
	pf, err := file.NewParquetReader(r, file.WithReadProps(parquet.NewReaderProperties(goAllocator)))
	if err != nil {
		return nil, -1, fileErrorf(path, 0, 0, "", "corrupt parquet",
			"not a readable Parquet file (truncated or corrupt?): %v", err)
	}
	defer pf.Close()
	total, fe := footerRowCount(pf, size, path)
	if fe != nil {
		return nil, -1, fe
	}
	footerRows = total
	if max := opts.maxRows(); total > int64(max) {
		return nil, footerRows, tooManyRows(path, 0, max)
	}
	pr, fe := openParquetRequests(pf, path, batchRows)
	if fe != nil {
		return nil, footerRows, fe
	}
	if fe := pr.checkColumns(r, size, pf, total); fe != nil {
		return nil, footerRows, fe
	}
	n := int(total)
	rf = &RequestFile{Path: path, Format: "parquet", RowsRead: n, Requests: newRequests(pr.l, 0, nil)}
	if n == 0 {
		return rf, footerRows, nil
	}
	if !opts.pqarrowOnly {
		typed, fe := readParquetTyped(typedSource{pf, r, size}, pr.fields, pr.l, pr.used, path, n, opts)
		if fe != nil {
			return nil, footerRows, fe
		}
		if typed != nil {
			return typed, footerRows, nil
		}
	}
	if fe := pr.readArrow(pf.NumRowGroups(), rf, n, opts); fe != nil {
		return nil, footerRows, fe
	}
	return rf, footerRows, nil
}

// footerRowCount returns the row count the footer of pf, a file of size
// bytes, declares, when it is plausible: not negative, the sum of its row
// groups' counts (none negative), and at most MaxParquetRowsPerByte a byte
// of the file.
func footerRowCount(pf *file.Reader, size int64, path string) (int64, *FileError) {
	total := pf.NumRows()
	if total < 0 {
		return 0, fileErrorf(path, 0, 0, "", "corrupt parquet",
			"the footer declares a negative row count (%d); expected a count of 0 or more", total)
	}
	var groupRows int64
	for k := range pf.NumRowGroups() {
		n := pf.MetaData().RowGroup(k).NumRows()
		if n < 0 {
			return 0, fileErrorf(path, 0, 0, "", "corrupt parquet",
				"the footer declares a negative row count (%d) for row group %d; expected a count of 0 or more", n, k+1)
		}
		groupRows += n
	}
	switch {
	case total != groupRows:
		return 0, fileErrorf(path, 0, 0, "", "corrupt parquet",
			"the footer declares %d rows but its row groups hold %d; expected the same count", total, groupRows)
	case total > MaxParquetRowsPerByte*size:
		return 0, fileErrorf(path, 0, 0, "", "implausible size",
			"the footer declares %s rows in a file of %s bytes, more than %d rows per byte; expected at least one bit per row (a compression bomb or a corrupt footer?)",
			textfmt.Thousands(int(total)), textfmt.Thousands(int(size)), MaxParquetRowsPerByte)
	}
	return total, nil
}

// openParquetRequests reads pf's schema through pqarrow and matches its
// top-level fields to benchnote's columns, refusing a column of a type
// that cannot hold its values.
func openParquetRequests(pf *file.Reader, path string, batchRows int) (*parquetRequests, *FileError) {
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, goAllocator)
	if err != nil {
		return nil, fileErrorf(path, 0, 0, "", "corrupt parquet", "reading the Parquet schema: %v", err)
	}
	fields := fr.Manifest.Fields
	names := make([]string, len(fields))
	for j := range fields {
		names[j] = fields[j].Field.Name
	}
	l, fe := resolveRequestLayout(names, path, 0, "row")
	if fe != nil {
		return nil, fe
	}
	pr := &parquetRequests{fr: fr, fields: fields, l: l, path: path, leaves: map[int]bool{}, batchRows: batchRows}
	for c := range numReqColumns {
		j := l.pos[c]
		if j < 0 {
			continue
		}
		dt := fields[j].Field.Type
		if !arrowTypeFits(requestColumns[c].kind, dt) {
			return nil, fileErrorf(path, 0, j+1, l.names[j], "wrong type",
				"%s: expected %s, got a column of type %s", l.names[j], kindTypeName(requestColumns[c].kind), dt)
		}
		pr.used = append(pr.used, c)
		addLeaves(&fields[j], pr.leaves)
	}
	return pr, nil
}

// checkColumns refuses a file of total rows whose used columns cannot be
// read: more rows than int32 counts, more rows than their bytes can hold
// (see MaxParquetRowsPerByte), an encoding Arrow cannot decode, or a page
// that fails its checksum. r holds the file's size bytes.
func (pr *parquetRequests) checkColumns(r io.ReaderAt, size int64, pf *file.Reader, total int64) *FileError {
	path := pr.path
	if total > math.MaxInt32 {
		return fileErrorf(path, 0, 0, "", "too large", "%d rows; at most %d are supported", total, math.MaxInt32)
	}
	// The same bound over the bytes of the columns to be decoded, so that
	// padding elsewhere in the file (a large footer) cannot buy rows.
	if colBytes := usedColumnBytes(pf, pr.leaves, size); total > MaxParquetRowsPerByte*colBytes {
		return fileErrorf(path, 0, 0, "", "implausible size",
			"the footer declares %s rows in %s bytes of the columns read, more than %d rows per byte; expected at least one bit per row (a compression bomb or a corrupt footer?)",
			textfmt.Thousands(int(total)), textfmt.Thousands(int(colBytes)), MaxParquetRowsPerByte)
	}
	if fe := unsupportedEncoding(pf, pr.l, pr.fields, pr.used, path); fe != nil {
		return fe
	}
	if err := parquetpage.VerifyChecksums(r, size, pf.MetaData(), pr.leaves); err != nil {
		return fileErrorf(path, 0, 0, "", "corrupt parquet", "%v", err)
	}
	return nil
}

// readArrow reads the n rows of the file's groups row groups through
// pqarrow into rf. Each column is decoded whole on its own goroutine,
// which also converts and checks it (and hashes the ids), so the columns
// proceed in parallel; what is left for this goroutine is cross-column
// work: the rows some column flagged are diagnosed and excluded.
func (pr *parquetRequests) readArrow(groups int, rf *RequestFile, n int, opts ReadOptions) *FileError {
	all := make([]int, groups)
	for k := range all {
		all[k] = k
	}
	var (
		cols [numReqColumns]parquetColumn
		wg   sync.WaitGroup
		seed = maphash.MakeSeed()
	)
	for _, c := range pr.used {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					cols[c].err = fmt.Errorf("%v", p)
				}
			}()
			cols[c].decode(pr, c, all, n, seed)
		}()
	}
	wg.Wait()
	var arrs [numReqColumns]arrow.Array
	for _, c := range pr.used {
		if a := cols[c].arr; a != nil {
			defer a.Release()
			arrs[c] = a
		}
	}
	l := pr.l
	for _, c := range pr.used {
		if err := cols[c].err; err != nil {
			j := l.pos[c]
			return fileErrorf(pr.path, 0, j+1, l.names[j], "corrupt parquet", "%s: decoding: %v", l.names[j], err)
		}
	}
	q := rf.Requests
	pr.fill(q, &cols, n)
	drop, x := pr.excluded(q, &cols, arrs, n)
	q.removeRows(drop)
	dropDuplicates(q, l, pr.path, removeAt(cols[colRequestID].hashes, drop), &x)
	x.store(rf)
	if opts.ForAnalysis {
		q.trimForAnalysis(opts.pool)
	}
	return nil
}

// fill sets q's n rows to the decoded columns.
func (pr *parquetRequests) fill(q *Requests, cols *[numReqColumns]parquetColumn, n int) {
	l := pr.l
	q.N = n
	q.SourceRow = make([]int32, n)
	for i := range q.SourceRow {
		q.SourceRow[i] = int32(i + 1)
	}
	q.IDs = cols[colRequestID].ids
	q.PromptTokens = cols[colPromptTokens].ints
	q.CompletionTokens = cols[colCompletionTokens].ints
	q.TTFTms = cols[colTTFT].floats
	q.E2Ems = cols[colE2E].floats
	if l.has(colTRequestSent) {
		q.TRequestSent = cols[colTRequestSent].floats
	}
	if l.has(colTFirstText) {
		q.TFirstText = cols[colTFirstText].floats
	}
	if l.has(colTLastText) {
		q.TLastText = cols[colTLastText].floats
	}
	if l.has(colStatus) {
		q.Status = StatusColumnOf(cols[colStatus].strs...)
	}
	if l.has(colMaxTokens) {
		q.MaxTokens = cols[colMaxTokens].ints
	}
	if l.has(colTextChunks) {
		q.TextChunks = cols[colTextChunks].ints
	}
	if l.has(colChunkMs) {
		q.ChunkOffsets, q.ChunkMs = cols[colChunkMs].offsets, cols[colChunkMs].floats
	}
	if l.has(colPhase) {
		q.Phase = cols[colPhase].phases
	}
}

// excluded diagnoses the rows some column flagged, or with E2E_ms <
// TTFT_ms, and returns those with a problem, in order, and the problems.
func (pr *parquetRequests) excluded(q *Requests, cols *[numReqColumns]parquetColumn, arrs [numReqColumns]arrow.Array, n int) ([]int, exclusions) {
	var flagged []bool
	for _, c := range pr.used {
		if f := cols[c].flags; f != nil {
			if flagged == nil {
				flagged = f
				continue
			}
			for i, bad := range f {
				if bad {
					flagged[i] = true
				}
			}
		}
	}
	var drop []int
	var x exclusions
	ttft, e2e := q.TTFTms, q.E2Ems
	for i := range n {
		if e2e[i] < ttft[i] || flagged != nil && flagged[i] {
			if d, value, ok := pr.diagnose(q, arrs, i, i, i+1); ok {
				x.add(d, value)
				drop = append(drop, i)
			}
		}
	}
	return drop, x
}

// parquetRequests is the state of one ReadRequestsParquet call.
type parquetRequests struct {
	fr        *pqarrow.FileReader
	fields    []pqarrow.SchemaField // the file's top-level fields
	l         *requestLayout
	path      string
	used      []reqColumn  // the columns read, in column order
	leaves    map[int]bool // their leaf column indices
	batchRows int          // the most rows decoded at once
}

// byteStreamSplit is the Parquet encoding BYTE_STREAM_SPLIT (9), which
// Arrow Go v17 lists as known but cannot decode.
const byteStreamSplit = parquet.Encoding(9)

// unsupportedEncoding refuses a file whose used columns are encoded in a
// way the reader cannot decode, naming the column, before decoding finds
// "no values" and says only that.
func unsupportedEncoding(pf *file.Reader, l *requestLayout, fields []pqarrow.SchemaField, used []reqColumn, path string) *FileError {
	md := pf.MetaData()
	for _, c := range used {
		j := l.pos[c]
		var leaves []int
		collectLeaves(&fields[j], &leaves)
		for g := range pf.NumRowGroups() {
			for _, leaf := range leaves {
				cc, err := md.RowGroup(g).ColumnChunk(leaf)
				if err != nil {
					continue
				}
				if slices.Contains(cc.Encodings(), byteStreamSplit) {
					return fileErrorf(path, 0, j+1, l.names[j], "unsupported encoding",
						"%s: the pages are encoded BYTE_STREAM_SPLIT, which benchnote's Parquet reader (Apache Arrow Go v17) cannot decode; expected PLAIN, dictionary or DELTA encodings (write the file again without it: DuckDB PARQUET_VERSION v1, pyarrow use_byte_stream_split=False)", l.names[j])
				}
			}
		}
	}
	return nil
}

// collectLeaves appends the leaf column indices under f.
func collectLeaves(f *pqarrow.SchemaField, leaves *[]int) {
	if f.IsLeaf() {
		*leaves = append(*leaves, f.ColIndex)
	}
	for k := range f.Children {
		collectLeaves(&f.Children[k], leaves)
	}
}

// usedColumnBytes adds up the compressed sizes the footer gives the
// chunks of the leaf columns in leaves, each at most the file's size.
func usedColumnBytes(pf *file.Reader, leaves map[int]bool, size int64) int64 {
	var n int64
	md := pf.MetaData()
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		for leaf := range leaves {
			cc, err := rg.ColumnChunk(leaf)
			if err != nil {
				continue
			}
			n += min(max(cc.TotalCompressedSize(), 0), size)
		}
	}
	return n
}

// addLeaves collects the leaf column indices under f.
func addLeaves(f *pqarrow.SchemaField, leaves map[int]bool) {
	if f.IsLeaf() {
		leaves[f.ColIndex] = true
	}
	for k := range f.Children {
		addLeaves(&f.Children[k], leaves)
	}
}

// parquetBatchRows bounds the rows decoded by one call into Arrow; a
// column of more rows is decoded in batches and concatenated.
const parquetBatchRows = 1 << 20

// parquetColumn is one decoded column, converted to benchnote's types.
type parquetColumn struct {
	arr     arrow.Array
	err     error
	strs    []string
	ids     StringColumn // request_id
	ints    []int64
	floats  []float64 // numbers, or chunk_ms values
	offsets []int32   // chunk_ms
	hashes  []uint64  // request_id
	phases  []Phase   // phase
	flags   []bool    // rows to look at again; nil when none
}

// decode reads column c (all n rows of the given row groups) and converts
// it. Columns already of the target type (int64 counts, float64 numbers)
// are used in place: the arrays come from goAllocator, so nothing frees
// or reuses their memory under us.
func (col *parquetColumn) decode(pr *parquetRequests, c reqColumn, groups []int, n int, seed maphash.Seed) {
	cr, err := pr.fr.GetFieldReader(context.Background(), pr.l.pos[c], pr.leaves, groups)
	if err != nil {
		col.err = err
		return
	}
	defer cr.Release()
	// Read in bounded batches, so that a corrupt footer claiming billions
	// of rows fails on the missing data instead of reserving memory for them.
	var chunks []arrow.Array
	defer func() {
		for _, a := range chunks {
			a.Release()
		}
	}()
	for got := 0; got < n; {
		ch, err := cr.NextBatch(int64(min(pr.batchRows, n-got)))
		if err != nil {
			col.err = err
			return
		}
		if ch.Len() == 0 {
			ch.Release()
			col.err = fmt.Errorf("the column holds %d values, fewer than the %d rows the footer declares", got, n)
			return
		}
		got += ch.Len()
		for _, a := range ch.Chunks() {
			a.Retain()
			chunks = append(chunks, a)
		}
		ch.Release()
	}
	// Values beyond the footer's count would otherwise go unread.
	if extra, err := cr.NextBatch(1); err == nil {
		more := extra.Len()
		extra.Release()
		if more > 0 {
			col.err = fmt.Errorf("the column holds more values than the %d rows the footer declares", n)
			return
		}
	}
	if len(chunks) == 1 {
		col.arr, chunks = chunks[0], nil
	} else if col.arr, err = array.Concatenate(chunks, goAllocator); err != nil {
		col.err = err
		return
	}
	if col.arr.Len() != n {
		col.err = fmt.Errorf("the column holds %d values, not the %d rows the footer declares", col.arr.Len(), n)
		return
	}
	a := col.arr
	flags := make([]bool, n)
	required, limit := requestColumns[c].required, requestColumns[c].max
	switch requestColumns[c].kind {
	case kindID:
		if col.ids, err = idColumn(a, flags); err != nil {
			col.err = err
			return
		}
		col.hashes = make([]uint64, n)
		for i := range n {
			col.hashes[i] = maphash.String(seed, col.ids.view(i))
		}
	case kindStatus:
		col.strs = appendStrings(nil, a, nil)
	case kindPhase:
		col.phases = make([]Phase, n)
		for i, v := range appendStrings(nil, a, nil) {
			var ok bool
			if col.phases[i], ok = ParsePhase(v); !ok {
				flags[i] = true
			}
		}
	case kindCount:
		col.ints = appendCounts(nil, a, required, limit, flags)
	case kindNumber, kindUnixTime:
		col.floats = appendNumbers(nil, a, required, float64(limit), flags)
	case kindChunkMs:
		var ok bool
		col.offsets, col.floats, ok = appendChunks(make([]int32, 1, n+1), nil, a, flags)
		if !ok {
			col.err = fmt.Errorf("more than %d values in all; split the file", math.MaxInt32)
			return
		}
		if col.floats == nil {
			col.floats = []float64{}
		}
	}
	if slices.Contains(flags, true) {
		col.flags = flags
	}
}

// diagnose finds the first problem of row i of arrs (row k of q, file row
// line) in column order, as for CSV, and the offending value as text.
func (pr *parquetRequests) diagnose(q *Requests, arrs [numReqColumns]arrow.Array, i, k, line int) (Diagnostic, string, bool) {
	l := pr.l
	for _, c := range l.cols {
		if c == colExtra {
			continue
		}
		a := arrs[c]
		if c == colChunkMs {
			if elem, got, p := chunkProblem(a, i); p == probOutOfRange {
				return l.rowDiag(pr.path, line, c, reasonOutOfRange,
					"%s: expected numbers, each %s, got %s at element %d", l.name(c), rangeText(c), got, elem), got, true
			} else if p != probNone {
				return l.rowDiag(pr.path, line, c, reasonBadChunks,
					"%s: expected non-negative finite numbers, got %s at element %d", l.name(c), got, elem), got, true
			}
			continue
		}
		if p, got, v := arrowValueProblem(a, i, c); p != probNone {
			failed := q.Status != nil && StatusFailed(q.Status.At(k))
			if p == probMissing && mayBeEmpty(c, failed, zeroAt(arrs[colCompletionTokens], i)) {
				// A failed request has no timings or usage to record,
				// a request without output tokens no first token.
				switch c {
				case colPromptTokens:
					q.PromptTokens[k] = 0
				case colCompletionTokens:
					q.CompletionTokens[k] = 0
				case colTTFT:
					q.TTFTms[k] = math.NaN()
				case colE2E:
					q.E2Ems[k] = math.NaN()
				}
				continue
			}
			value := got
			if p == probMissing {
				value = ""
			}
			return l.valueDiag(pr.path, line, c, p, got, v), value, true
		}
	}
	if q.E2Ems[k] < q.TTFTms[k] {
		return l.e2eDiag(pr.path, line, q.TTFTms[k], q.E2Ems[k]), "", true
	}
	return Diagnostic{}, "", false
}

// arrowTypeFits reports whether a column of type dt can hold kind's values.
// A column of the null type (all values missing, as pandas writes an
// all-None column) fits any kind.
func arrowTypeFits(kind valueKind, dt arrow.DataType) bool {
	if dt.ID() == arrow.NULL {
		return true
	}
	switch kind {
	case kindID:
		return isStringType(dt) || arrow.IsInteger(dt.ID())
	case kindStatus, kindPhase:
		return isStringType(dt)
	case kindCount, kindNumber:
		return arrow.IsInteger(dt.ID()) || arrow.IsFloating(dt.ID()) && dt.ID() != arrow.FLOAT16
	case kindUnixTime:
		return arrow.IsInteger(dt.ID()) || arrow.IsFloating(dt.ID()) && dt.ID() != arrow.FLOAT16 ||
			dt.ID() == arrow.TIMESTAMP
	case kindChunkMs:
		var elem arrow.DataType
		switch t := dt.(type) {
		case *arrow.ListType:
			elem = t.Elem()
		case *arrow.LargeListType:
			elem = t.Elem()
		default:
			return false
		}
		return arrowTypeFits(kindNumber, elem)
	}
	return false
}

func isStringType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return true
	case arrow.DICTIONARY:
		return isStringType(dt.(*arrow.DictionaryType).ValueType)
	}
	return false
}

// kindTypeName says, for a wrong-type message, what a column must be.
func kindTypeName(kind valueKind) string {
	switch kind {
	case kindID:
		return "a string or integer column"
	case kindStatus, kindPhase:
		return "a string column"
	case kindCount, kindNumber:
		return "a numeric column"
	case kindUnixTime:
		return "a numeric or timestamp column"
	case kindChunkMs:
		return "a list of numbers"
	}
	return "?"
}

// idColumn converts the request_id column. Plain string and binary arrays
// without nulls are copied in one piece; dictionary, integer and null-bearing
// arrays go value by value. Empty ids are flagged.
func idColumn(a arrow.Array, flags []bool) (StringColumn, error) {
	var c StringColumn
	var err error
	switch arr := a.(type) {
	case *array.String:
		if a.NullN() == 0 {
			err = appendOffsets(&c, arr.ValueBytes(), arr.ValueOffsets())
			break
		}
		c = StringColumnOf(appendStrings(nil, a, nil)...)
	case *array.Binary:
		if a.NullN() == 0 {
			err = appendOffsets(&c, arr.ValueBytes(), arr.ValueOffsets())
			break
		}
		c = StringColumnOf(appendStrings(nil, a, nil)...)
	case *array.LargeString:
		if a.NullN() == 0 {
			err = appendOffsets(&c, arr.ValueBytes(), arr.ValueOffsets())
			break
		}
		c = StringColumnOf(appendStrings(nil, a, nil)...)
	default:
		c = StringColumnOf(appendStrings(nil, a, nil)...)
	}
	if err != nil {
		return c, err
	}
	for i := range c.Len() {
		if c.offsets[i] == c.offsets[i+1] {
			flags[i] = true
		}
	}
	return c, nil
}

// appendStrings appends a string-like (or, for ids, integer) column to dst
// without a per-row allocation: the values share one string per array.
// When flags is non-nil, nulls and empty strings are flagged.
func appendStrings(dst []string, a arrow.Array, flags []bool) []string {
	base := len(dst)
	dst = slices.Grow(dst, a.Len())
	switch a := a.(type) {
	case *array.String:
		dst = appendOffsetStrings(dst, string(a.ValueBytes()), a.ValueOffsets())
	case *array.Binary:
		dst = appendOffsetStrings(dst, string(a.ValueBytes()), a.ValueOffsets())
	case *array.LargeString:
		dst = appendOffsetStrings(dst, string(a.ValueBytes()), a.ValueOffsets())
	case *array.LargeBinary:
		dst = appendOffsetStrings(dst, string(a.ValueBytes()), a.ValueOffsets())
	case *array.Null:
		dst = append(dst, make([]string, a.Len())...)
	case *array.Dictionary:
		dict := appendStrings(nil, a.Dictionary(), nil)
		for i := range a.Len() {
			if a.IsNull(i) {
				dst = append(dst, "")
				continue
			}
			dst = append(dst, dict[a.GetValueIndex(i)])
		}
	default: // an integer id
		for i := range a.Len() {
			dst = append(dst, integerText(a, i))
		}
	}
	out := dst[base:]
	if a.NullN() > 0 {
		for i := range out {
			if nullAt(a, i) {
				out[i] = ""
			}
		}
	}
	if flags != nil {
		for i, s := range out {
			if s == "" {
				flags[i] = true
			}
		}
	}
	return dst
}

func appendOffsetStrings[O int32 | int64](dst []string, data string, offsets []O) []string {
	first := offsets[0]
	for i := 0; i+1 < len(offsets); i++ {
		dst = append(dst, data[offsets[i]-first:offsets[i+1]-first])
	}
	return dst
}

// integerText renders value i of an integer array.
func integerText(a arrow.Array, i int) string {
	if u, ok := a.(*array.Uint64); ok {
		return strconv.FormatUint(u.Value(i), 10)
	}
	v, _ := integerAt(a, i)
	return strconv.FormatInt(v, 10)
}

// integerAt returns value i of a signed or unsigned integer array below 2^63.
func integerAt(a arrow.Array, i int) (int64, bool) {
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i), true
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Int8:
		return int64(a.Value(i)), true
	case *array.Uint64:
		v := a.Value(i)
		return int64(v), v <= math.MaxInt64
	case *array.Uint32:
		return int64(a.Value(i)), true
	case *array.Uint16:
		return int64(a.Value(i)), true
	case *array.Uint8:
		return int64(a.Value(i)), true
	}
	return 0, false
}

// appendCounts appends an integer (or integral float) column. Values that
// are negative, not integers, above limit, or null (or NaN) in a required
// column are flagged; they keep a placeholder value until the row is
// removed. In an optional column a null or a NaN is -1. With an empty
// dst, an int64 column is used in place, without a copy (see goAllocator).
func appendCounts(dst []int64, a arrow.Array, required bool, limit int64, flags []bool) []int64 {
	// Flag from the stored values, before any conversion.
	switch a := a.(type) {
	case *array.Int64:
		flagOutside(a.Int64Values(), limit, flags)
	case *array.Int32:
		flagOutside(a.Int32Values(), limit, flags)
	case *array.Int16:
		flagOutside(a.Int16Values(), limit, flags)
	case *array.Int8:
		flagOutside(a.Int8Values(), limit, flags)
	case *array.Uint64:
		flagAbove(a.Uint64Values(), limit, flags)
	case *array.Uint32:
		flagAbove(a.Uint32Values(), limit, flags)
	case *array.Float64:
		flagFloatCounts(a.Float64Values(), required, limit, flags)
	case *array.Float32:
		flagFloatCounts(a.Float32Values(), required, limit, flags)
	}
	if a.NullN() > 0 {
		// What lies under a null is undefined: only the null counts.
		for i := range flags {
			if nullAt(a, i) {
				flags[i] = required
			}
		}
	}

	base := len(dst)
	n := a.Len()
	if _, same := a.(*array.Int64); !same || base > 0 {
		dst = slices.Grow(dst, n)
	}
	switch a := a.(type) {
	case *array.Int64:
		if base == 0 {
			dst = a.Int64Values() // in place; see goAllocator
		} else {
			dst = append(dst, a.Int64Values()...)
		}
	case *array.Int32:
		dst = appendConverted(dst, a.Int32Values())
	case *array.Uint32:
		dst = appendConverted(dst, a.Uint32Values())
	case *array.Int16:
		dst = appendConverted(dst, a.Int16Values())
	case *array.Uint16:
		dst = appendConverted(dst, a.Uint16Values())
	case *array.Int8:
		dst = appendConverted(dst, a.Int8Values())
	case *array.Uint8:
		dst = appendConverted(dst, a.Uint8Values())
	case *array.Uint64:
		for _, v := range a.Uint64Values() {
			dst = append(dst, int64(min(v, math.MaxInt64)))
		}
	case *array.Float64:
		dst = appendFloatCounts(dst, a.Float64Values())
	case *array.Float32:
		dst = appendFloatCounts(dst, a.Float32Values())
	case *array.Null:
		dst = append(dst, make([]int64, n)...)
	default:
		panic(fmt.Sprintf("appendCounts: unexpected %s", a.DataType()))
	}
	if a.NullN() > 0 {
		out := dst[base : base+n]
		for i := range out {
			if nullAt(a, i) {
				out[i] = -1
			}
		}
	}
	return dst
}

// flagOutside flags the values below 0 or above limit (>= 0): one
// unsigned compare does both.
func flagOutside[T int8 | int16 | int32 | int64](vals []T, limit int64, flags []bool) {
	for i, v := range vals {
		if uint64(int64(v)) > uint64(limit) {
			flags[i] = true
		}
	}
}

// flagAbove flags the values above limit (>= 0).
func flagAbove[T uint32 | uint64](vals []T, limit int64, flags []bool) {
	for i, v := range vals {
		if uint64(v) > uint64(limit) {
			flags[i] = true
		}
	}
}

// flagFloatCounts flags what floatToCount refuses; NaN only when required.
func flagFloatCounts[T float32 | float64](vals []T, required bool, limit int64, flags []bool) {
	for i, v := range vals {
		f := float64(v)
		if f != f {
			if required {
				flags[i] = true
			}
			continue
		}
		if _, p := floatToCount(f, limit); p != probNone || f < 0 {
			flags[i] = true
		}
	}
}

func appendConverted[T int8 | int16 | int32 | uint8 | uint16 | uint32](dst []int64, vals []T) []int64 {
	for _, v := range vals {
		dst = append(dst, int64(v))
	}
	return dst
}

// appendFloatCounts converts integral floats; anything else (flagged, or
// NaN for missing) becomes -1.
func appendFloatCounts[T float32 | float64](dst []int64, vals []T) []int64 {
	for _, v := range vals {
		n, p := int64(-1), problem(probNonNumeric)
		if f := float64(v); f >= 0 {
			n, p = floatToCount(f, math.MaxInt64)
		}
		if p != probNone {
			n = -1
		}
		dst = append(dst, n)
	}
	return dst
}

// appendNumbers appends a numeric (or timestamp) column as float64. Values
// that are negative, above limit or ±Inf are flagged; so are NaN and null
// in a required column. In an optional column a null is NaN. With an empty
// dst, a float64 column is used in place, without a copy (see goAllocator).
func appendNumbers(dst []float64, a arrow.Array, required bool, limit float64, flags []bool) []float64 {
	base := len(dst)
	n := a.Len()
	if _, same := a.(*array.Float64); !same || base > 0 {
		dst = slices.Grow(dst, n)
	}
	switch a := a.(type) {
	case *array.Float64:
		if base == 0 {
			dst = a.Float64Values() // in place; see goAllocator
		} else {
			dst = append(dst, a.Float64Values()...)
		}
	case *array.Float32:
		dst = appendAsFloat(dst, a.Float32Values())
	case *array.Int64:
		dst = appendAsFloat(dst, a.Int64Values())
	case *array.Int32:
		dst = appendAsFloat(dst, a.Int32Values())
	case *array.Int16:
		dst = appendAsFloat(dst, a.Int16Values())
	case *array.Int8:
		dst = appendAsFloat(dst, a.Int8Values())
	case *array.Uint64:
		dst = appendAsFloat(dst, a.Uint64Values())
	case *array.Uint32:
		dst = appendAsFloat(dst, a.Uint32Values())
	case *array.Uint16:
		dst = appendAsFloat(dst, a.Uint16Values())
	case *array.Uint8:
		dst = appendAsFloat(dst, a.Uint8Values())
	case *array.Timestamp:
		perSecond := float64(time.Second / a.DataType().(*arrow.TimestampType).Unit.Multiplier())
		for _, v := range a.TimestampValues() {
			dst = append(dst, float64(v)/perSecond)
		}
	case *array.Null:
		dst = append(dst, make([]float64, n)...)
	default:
		panic(fmt.Sprintf("appendNumbers: unexpected %s", a.DataType()))
	}
	out := dst[base : base+n]
	if a.NullN() > 0 {
		for i := range out {
			if nullAt(a, i) {
				out[i] = math.NaN()
			}
		}
	}
	if required {
		for i, v := range out {
			if !(v >= 0 && v <= limit) {
				flags[i] = true
			}
		}
	} else {
		for i, v := range out {
			if v < 0 || v > limit {
				flags[i] = true
			}
		}
	}
	return dst
}

func appendAsFloat[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32](dst []float64, vals []T) []float64 {
	for _, v := range vals {
		dst = append(dst, float64(v))
	}
	return dst
}

// appendChunks appends a list column to the flat chunk layout; a null list
// is a request without chunks. Rows with a null, negative, NaN or ±Inf
// element, or one above chunk_ms's range, are flagged (their chunks stay
// until the row is removed). It reports false when the layout would
// outgrow its int32 offsets.
func appendChunks(offsets []int32, ms []float64, col arrow.Array, flags []bool) ([]int32, []float64, bool) {
	limit := float64(requestColumns[colChunkMs].max)
	n := col.Len()
	a, ok := col.(array.ListLike)
	if !ok || n == 0 { // the null type, or nothing to do
		for range n {
			offsets = append(offsets, int32(len(ms)))
		}
		return offsets, ms, true
	}
	lo, _ := a.ValueOffsets(0)
	_, hi := a.ValueOffsets(n - 1)
	if len(ms)+int(hi-lo) > math.MaxInt32 {
		return offsets, ms, false
	}
	var vals []float64 // the values of rows 0..n-1; null elements are NaN
	if f, ok := a.ListValues().(*array.Float64); ok && f.NullN() == 0 {
		vals = f.Float64Values()[lo:hi]
	} else {
		sl := array.NewSlice(a.ListValues(), lo, hi)
		defer sl.Release()
		vals = appendNumbers(nil, sl, true, limit, make([]bool, hi-lo))
	}
	bad := false
	for _, v := range vals {
		if !(v >= 0 && v <= limit) {
			bad = true
			break
		}
	}
	nulls := a.NullN() > 0
	if !nulls {
		// One copy: the lists are contiguous in vals.
		base := len(ms) - int(lo)
		ms = append(ms, vals...)
		for i := range n {
			_, e := a.ValueOffsets(i)
			offsets = append(offsets, int32(base+int(e)))
		}
	}
	for i := range n {
		s, e := a.ValueOffsets(i)
		if nulls {
			if a.IsNull(i) {
				s, e = lo, lo
			}
			ms = append(ms, vals[s-lo:e-lo]...)
			offsets = append(offsets, int32(len(ms)))
		} else if !bad {
			break
		}
		for _, v := range vals[s-lo : e-lo] {
			if !(v >= 0 && v <= limit) {
				flags[i] = true
			}
		}
	}
	return offsets, ms, true
}

// chunkProblem finds the first bad element of list i: its 1-based
// position, the value rendered, and probOutOfRange when it is a finite
// number above chunk_ms's range (another problem for any other bad value,
// probNone when there is none).
func chunkProblem(col arrow.Array, i int) (elem int, got string, p problem) {
	a, ok := col.(array.ListLike)
	if !ok || a.IsNull(i) {
		return 0, "", probNone
	}
	limit := float64(requestColumns[colChunkMs].max)
	vals := a.ListValues()
	lo, hi := a.ValueOffsets(i)
	for k := lo; k < hi; k++ {
		if nullAt(vals, int(k)) {
			return int(k-lo) + 1, "null", probMissing
		}
		switch v, text := numberAt(vals, int(k)); {
		case v > limit && v <= math.MaxFloat64:
			return int(k-lo) + 1, text, probOutOfRange
		case !(v >= 0 && v <= limit):
			return int(k-lo) + 1, text, probNonNumeric
		}
	}
	return 0, "", probNone
}

// numberAt returns value i of a numeric or timestamp array as a float and
// as text for messages.
func numberAt(a arrow.Array, i int) (float64, string) {
	switch a := a.(type) {
	case *array.Float64:
		return a.Value(i), formatNumber(a.Value(i))
	case *array.Float32:
		v := float64(a.Value(i))
		return v, strconv.FormatFloat(v, 'g', -1, 32)
	case *array.Timestamp:
		s := appendNumbers(nil, array.NewSlice(a, int64(i), int64(i+1)), false, math.MaxFloat64, make([]bool, 1))[0]
		return s, strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Uint64:
		return float64(a.Value(i)), strconv.FormatUint(a.Value(i), 10)
	}
	v, _ := integerAt(a, i)
	return float64(v), strconv.FormatInt(v, 10)
}

// arrowValueProblem checks value i of the column holding c. It returns
// the problem, the value as text and, for probOutOfRange, as a number
// (NaN for a timestamp, whose text names its unit: no hint at
// milliseconds).
func arrowValueProblem(a arrow.Array, i int, c reqColumn) (problem, string, float64) {
	info := requestColumns[c]
	if nullAt(a, i) {
		if info.required {
			return probMissing, "null", 0
		}
		return probNone, "", 0
	}
	switch info.kind {
	case kindID:
		if s, ok := stringAt(a, i); ok && s == "" {
			return probMissing, `""`, 0
		}
		return probNone, "", 0
	case kindStatus, kindChunkMs:
		return probNone, "", 0
	case kindPhase:
		if s, ok := stringAt(a, i); ok {
			if _, valid := ParsePhase(s); !valid {
				return probBadPhase, quoteValue(s), 0
			}
		}
		return probNone, "", 0
	}
	v, text := numberAt(a, i)
	isFloat := arrow.IsFloating(a.DataType().ID())
	switch {
	case math.IsNaN(v) && !info.required:
		return probNone, "", 0
	case math.IsNaN(v) || math.IsInf(v, 0):
		return probNaNInf, text, 0
	case v < 0:
		return probNegative, text, 0
	case info.kind != kindCount:
		if v > float64(info.max) {
			if ts, ok := a.DataType().(*arrow.TimestampType); ok {
				text, v = text+" "+ts.Unit.String(), math.NaN()
			}
			return probOutOfRange, text, v
		}
		return probNone, "", 0
	case !isFloat:
		n, ok := integerAt(a, i)
		switch {
		case !ok && info.max == math.MaxInt64:
			return probNonNumeric, text, 0 // beyond int64
		case !ok || n > info.max:
			return probOutOfRange, text, v
		}
		return probNone, "", 0
	}
	_, p := floatToCount(v, info.max)
	return p, text, v
}

// zeroAt reports whether value i of a numeric column is present and 0.
func zeroAt(a arrow.Array, i int) bool {
	if a == nil || nullAt(a, i) {
		return false
	}
	v, _ := numberAt(a, i)
	return v == 0
}

// nullAt reports whether value i of a is null. Arrays of the null type
// have no validity bitmap, so IsNull alone says false for them.
func nullAt(a arrow.Array, i int) bool { return a.DataType().ID() == arrow.NULL || a.IsNull(i) }

// stringAt returns value i of a string-like column.
func stringAt(a arrow.Array, i int) (string, bool) {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i), true
	case *array.LargeString:
		return a.Value(i), true
	case *array.Binary:
		return a.ValueString(i), true
	case *array.LargeBinary:
		return a.ValueString(i), true
	case *array.Dictionary:
		return stringAt(a.Dictionary(), a.GetValueIndex(i))
	}
	return "", false
}
