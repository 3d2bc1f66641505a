package ingest

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// ReadRequestsParquet reads a requests.parquet from r (an *os.File or a
// *bytes.Reader will do). path is the file's path relative to the sweep
// root and is used only in diagnostics, where the "line" of a row is its
// 1-based row number over the whole file.
//
// Columns are the file's top-level fields, matched by name as for CSV.
// Only the columns benchnote uses are decoded, one row group at a time,
// with the columns of a row group decoded concurrently. Integer columns
// may be stored as any integer type or as floats with integral values;
// number columns as any integer or float type (t_* also as timestamps);
// request_id and status as strings or binary, plain or dictionary-encoded
// (request_id also as integers); chunk_ms as a list of numbers. A null in a
// required column excludes the row; a null in an optional one is a missing
// value, and a null chunk_ms list is a request with no chunks. NaN in an
// optional time column is a missing value too.
//
// Rows with problems are excluded and reported in RequestFile.Excluded; a
// *FileError is returned when the file as a whole is unusable: not Parquet,
// truncated or corrupt, a required column missing, named twice, or of a
// type that cannot hold its values.
func ReadRequestsParquet(r parquet.ReaderAtSeeker, path string) (rf *RequestFile, err error) {
	defer func() {
		// The Parquet decoder panics on some malformed input.
		if p := recover(); p != nil {
			rf, err = nil, fileErrorf(path, 0, 0, "", "corrupt parquet", "reading Parquet: %v", p)
		}
	}()
	// A buffered stream reads each column chunk through one modest buffer;
	// unbuffered, the reader allocates and copies every chunk whole twice.
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	props.BufferedStreamEnabled = true
	props.BufferSize = 1 << 20
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, fileErrorf(path, 0, 0, "", "corrupt parquet",
			"not a readable Parquet file (truncated or corrupt?): %v", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fileErrorf(path, 0, 0, "", "corrupt parquet", "reading the Parquet schema: %v", err)
	}

	fields := fr.Manifest.Fields
	names := make([]string, len(fields))
	for j := range fields {
		names[j] = fields[j].Field.Name
	}
	l, ferr := resolveRequestLayout(names, path, 0, "row")
	if ferr != nil {
		return nil, ferr
	}

	pr := &parquetRequests{fr: fr, l: l, path: path, leaves: map[int]bool{}}
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

	md := pf.MetaData()
	total := pf.NumRows()
	if total > math.MaxInt32 {
		return nil, fileErrorf(path, 0, 0, "", "too large", "%d rows; at most %d are supported", total, math.MaxInt32)
	}
	rf = &RequestFile{Path: path, Format: "parquet", Requests: newRequests(l, int(total))}
	pr.rf = rf
	row := 0
	for rg := range pf.NumRowGroups() {
		n := md.RowGroup(rg).NumRows()
		if n == 0 {
			continue
		}
		arrs, err := pr.decodeRowGroup(rg, n)
		if err != nil {
			return nil, err
		}
		ferr := pr.appendRows(arrs, int(n), row)
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
		if ferr != nil {
			return nil, ferr
		}
		row += int(n)
	}
	rf.RowsRead = row
	dropDuplicates(rf, l)
	return rf, nil
}

// parquetRequests is the state of one ReadRequestsParquet call.
type parquetRequests struct {
	fr     *pqarrow.FileReader
	l      *requestLayout
	path   string
	rf     *RequestFile
	used   []reqColumn  // the columns read, in column order
	leaves map[int]bool // their leaf column indices
	flags  []bool       // per row of the current row group: needs a closer look
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

// decodeRowGroup decodes the used columns of row group rg, concurrently.
// The result is indexed by reqColumn.
func (pr *parquetRequests) decodeRowGroup(rg int, n int64) ([numReqColumns]arrow.Array, error) {
	var (
		arrs [numReqColumns]arrow.Array
		errs [numReqColumns]error
		wg   sync.WaitGroup
	)
	for _, c := range pr.used {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[c] = fmt.Errorf("%v", p)
				}
			}()
			arrs[c], errs[c] = pr.decodeColumn(pr.l.pos[c], rg, n)
		}()
	}
	wg.Wait()
	var err error
	for _, c := range pr.used {
		if errs[c] != nil && err == nil {
			j := pr.l.pos[c]
			err = fileErrorf(pr.path, 0, j+1, pr.l.names[j], "corrupt parquet",
				"%s: reading row group %d: %v", pr.l.names[j], rg, errs[c])
		}
	}
	if err != nil {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
		return arrs, err
	}
	return arrs, nil
}

// decodeColumn reads field j of row group rg as one array of n values.
func (pr *parquetRequests) decodeColumn(j, rg int, n int64) (arrow.Array, error) {
	cr, err := pr.fr.GetFieldReader(context.Background(), j, pr.leaves, []int{rg})
	if err != nil {
		return nil, err
	}
	defer cr.Release()
	ch, err := cr.NextBatch(n)
	if err != nil {
		return nil, err
	}
	defer ch.Release()
	if int64(ch.Len()) != n {
		return nil, fmt.Errorf("got %d values, expected %d", ch.Len(), n)
	}
	if len(ch.Chunks()) == 1 {
		a := ch.Chunk(0)
		a.Retain()
		return a, nil
	}
	return array.Concatenate(ch.Chunks(), memory.DefaultAllocator)
}

// appendRows appends the n rows of one row group, whose first row has the
// 0-based file row row0, then excludes the bad ones.
func (pr *parquetRequests) appendRows(arrs [numReqColumns]arrow.Array, n, row0 int) *FileError {
	q, l := pr.rf.Requests, pr.l
	base := q.N
	if cap(pr.flags) < n {
		pr.flags = make([]bool, n)
	}
	flags := pr.flags[:n]
	clear(flags)

	q.ID = appendStrings(q.ID, arrs[colRequestID], flags)
	q.PromptTokens = appendCounts(q.PromptTokens, arrs[colPromptTokens], true, flags)
	q.CompletionTokens = appendCounts(q.CompletionTokens, arrs[colCompletionTokens], true, flags)
	q.TTFTms = appendNumbers(q.TTFTms, arrs[colTTFT], true, flags)
	q.E2Ems = appendNumbers(q.E2Ems, arrs[colE2E], true, flags)
	if l.has(colTRequestSent) {
		q.TRequestSent = appendNumbers(q.TRequestSent, arrs[colTRequestSent], false, flags)
	}
	if l.has(colTFirstText) {
		q.TFirstText = appendNumbers(q.TFirstText, arrs[colTFirstText], false, flags)
	}
	if l.has(colTLastText) {
		q.TLastText = appendNumbers(q.TLastText, arrs[colTLastText], false, flags)
	}
	if l.has(colStatus) {
		q.Status = appendStrings(q.Status, arrs[colStatus], nil)
	}
	if l.has(colMaxTokens) {
		q.MaxTokens = appendCounts(q.MaxTokens, arrs[colMaxTokens], false, flags)
	}
	if l.has(colTextChunks) {
		q.TextChunks = appendCounts(q.TextChunks, arrs[colTextChunks], false, flags)
	}
	if l.has(colChunkMs) {
		var ok bool
		q.ChunkOffsets, q.ChunkMs, ok = appendChunks(q.ChunkOffsets, q.ChunkMs, arrs[colChunkMs], flags)
		if !ok {
			return fileErrorf(pr.path, row0+1, l.pos[colChunkMs]+1, l.name(colChunkMs), "too large",
				"%s: more than %d values in all; split the file", l.name(colChunkMs), math.MaxInt32)
		}
	}
	for i := range n {
		q.SourceRow = append(q.SourceRow, int32(row0+i+1))
	}
	ttft, e2e := q.TTFTms[base:], q.E2Ems[base:]
	for i := range flags {
		if e2e[i] < ttft[i] {
			flags[i] = true
		}
	}
	q.N += n

	var drop []int
	for i, bad := range flags {
		if !bad {
			continue
		}
		if d, ok := pr.diagnose(arrs, i, base+i, row0+i+1); ok {
			pr.rf.Excluded = append(pr.rf.Excluded, d)
			drop = append(drop, base+i)
		}
	}
	q.removeRows(drop)
	return nil
}

// diagnose finds the first problem of row group row i (row k of q, file
// row line) in column order, as for CSV.
func (pr *parquetRequests) diagnose(arrs [numReqColumns]arrow.Array, i, k, line int) (Diagnostic, bool) {
	l, q := pr.l, pr.rf.Requests
	for _, c := range l.cols {
		if c == colExtra {
			continue
		}
		a := arrs[c]
		if c == colChunkMs {
			if elem, got, bad := chunkProblem(a, i); bad {
				return l.rowDiag(pr.path, line, c, reasonBadChunks,
					"%s: expected non-negative finite numbers, got %s at element %d", l.name(c), got, elem), true
			}
			continue
		}
		if p, got := arrowValueProblem(a, i, c); p != probNone {
			return l.valueDiag(pr.path, line, c, p, got), true
		}
	}
	if q.E2Ems[k] < q.TTFTms[k] {
		return l.e2eDiag(pr.path, line, q.TTFTms[k], q.E2Ems[k]), true
	}
	return Diagnostic{}, false
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
	case kindStatus:
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
	case kindStatus:
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

// appendStrings appends a string-like (or, for ids, integer) column to dst
// without a per-row allocation: the values share one string per row
// group. When flags is non-nil, nulls and empty strings are flagged.
func appendStrings(dst []string, a arrow.Array, flags []bool) []string {
	base := len(dst)
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
// are negative, not integers or null in a required column are flagged;
// they keep a placeholder value until the row is removed. A null in an
// optional column is -1.
func appendCounts(dst []int64, a arrow.Array, required bool, flags []bool) []int64 {
	base := len(dst)
	n := a.Len()
	switch a := a.(type) {
	case *array.Int64:
		dst = append(dst, a.Int64Values()...)
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
			dst = append(dst, int64(min(v, 1<<63)))
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
	out := dst[base : base+n]
	if a.NullN() == 0 {
		for i, v := range out {
			if v < 0 {
				flags[i] = true
			}
		}
		return dst
	}
	for i, v := range out {
		switch {
		case nullAt(a, i):
			out[i] = -1
			if required {
				flags[i] = true
			}
		case v < 0:
			flags[i] = true
		}
	}
	return dst
}

func appendConverted[T int8 | int16 | int32 | uint8 | uint16 | uint32](dst []int64, vals []T) []int64 {
	for _, v := range vals {
		dst = append(dst, int64(v))
	}
	return dst
}

// appendFloatCounts converts integral floats; anything else becomes -1.
func appendFloatCounts[T float32 | float64](dst []int64, vals []T) []int64 {
	for _, v := range vals {
		n, p := int64(-1), problem(probNonNumeric)
		if f := float64(v); f >= 0 {
			n, p = floatToCount(f)
		}
		if p != probNone {
			n = -1
		}
		dst = append(dst, n)
	}
	return dst
}

// appendNumbers appends a numeric (or timestamp) column as float64. Values
// that are negative or ±Inf are flagged; so are NaN and null in a required
// column. In an optional column a null is NaN.
func appendNumbers(dst []float64, a arrow.Array, required bool, flags []bool) []float64 {
	base := len(dst)
	n := a.Len()
	switch a := a.(type) {
	case *array.Float64:
		dst = append(dst, a.Float64Values()...)
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
			if !(v >= 0 && v <= math.MaxFloat64) {
				flags[i] = true
			}
		}
	} else {
		for i, v := range out {
			if v < 0 || v > math.MaxFloat64 {
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
// element are flagged (their chunks stay until the row is removed). It
// reports false when the layout would outgrow its int32 offsets.
func appendChunks(offsets []int32, ms []float64, col arrow.Array, flags []bool) ([]int32, []float64, bool) {
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
		vals = appendNumbers(nil, sl, true, make([]bool, hi-lo))
	}
	bad := false
	for _, v := range vals {
		if !(v >= 0 && v <= math.MaxFloat64) {
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
			if !(v >= 0 && v <= math.MaxFloat64) {
				flags[i] = true
			}
		}
	}
	return offsets, ms, true
}

// chunkProblem finds the first bad element of list i: its 1-based
// position and the value rendered.
func chunkProblem(col arrow.Array, i int) (elem int, got string, bad bool) {
	a, ok := col.(array.ListLike)
	if !ok || a.IsNull(i) {
		return 0, "", false
	}
	vals := a.ListValues()
	lo, hi := a.ValueOffsets(i)
	for k := lo; k < hi; k++ {
		if nullAt(vals, int(k)) {
			return int(k-lo) + 1, "null", true
		}
		if v, text := numberAt(vals, int(k)); !(v >= 0 && v <= math.MaxFloat64) {
			return int(k-lo) + 1, text, true
		}
	}
	return 0, "", false
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
		s := appendNumbers(nil, array.NewSlice(a, int64(i), int64(i+1)), false, make([]bool, 1))[0]
		return s, strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Uint64:
		return float64(a.Value(i)), strconv.FormatUint(a.Value(i), 10)
	}
	v, _ := integerAt(a, i)
	return float64(v), strconv.FormatInt(v, 10)
}

// arrowValueProblem checks value i of the column holding c.
func arrowValueProblem(a arrow.Array, i int, c reqColumn) (problem, string) {
	info := requestColumns[c]
	if nullAt(a, i) {
		if info.required {
			return probMissing, "null"
		}
		return probNone, ""
	}
	switch info.kind {
	case kindID:
		if s, ok := stringAt(a, i); ok && s == "" {
			return probMissing, `""`
		}
		return probNone, ""
	case kindStatus, kindChunkMs:
		return probNone, ""
	}
	v, text := numberAt(a, i)
	isFloat := arrow.IsFloating(a.DataType().ID())
	switch {
	case math.IsNaN(v) && !info.required:
		return probNone, ""
	case math.IsNaN(v) || math.IsInf(v, 0):
		return probNaNInf, text
	case v < 0:
		return probNegative, text
	case info.kind != kindCount:
		return probNone, ""
	case !isFloat:
		if u, ok := a.(*array.Uint64); ok && u.Value(i) > math.MaxInt64 {
			return probNonNumeric, text
		}
		return probNone, ""
	}
	_, p := floatToCount(v)
	return p, text
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
