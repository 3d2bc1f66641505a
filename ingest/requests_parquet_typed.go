package ingest

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/benchnote/benchnote/ingest/internal/parquetpage"
)

// This file reads the common requests.parquet — flat columns stored as
// INT64, INT32, DOUBLE or BYTE_ARRAY, no chunk_ms lists, every row valid
// (or holding only the empty fields a failed request may leave) — with
// Parquet's typed column readers straight into benchnote's columns: no
// Arrow arrays, no conversion pass, one exactly sized slice per column.
// Anything else makes it step aside, and the file is read again through
// pqarrow, whose diagnostics are the reference; the result is the same
// either way, only the cost differs.

// typedColumnWorkers is how many columns of one file are decoded at once.
const typedColumnWorkers = 2

// typedBatchRows is how many levels one ReadBatch call decodes.
const typedBatchRows = 1 << 16

// typedColumn is how one column is stored in the file, when the typed
// reader can read it.
type typedColumn struct {
	c    reqColumn
	leaf int          // the leaf column index
	phys parquet.Type // INT64, INT32, DOUBLE or BYTE_ARRAY
	opt  bool         // the column may hold nulls (max definition level 1)
}

// typedLayout says how to read each used column, or false when one of
// them is stored in a way only the pqarrow path reads.
func typedLayout(pf *file.Reader, fields []pqarrow.SchemaField, l *requestLayout, used []reqColumn) ([]typedColumn, bool) {
	schema := pf.MetaData().Schema
	var cols []typedColumn
	for _, c := range used {
		f := &fields[l.pos[c]]
		if !f.IsLeaf() || c == colChunkMs {
			return nil, false
		}
		d := schema.Column(f.ColIndex)
		if d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
			return nil, false
		}
		tc := typedColumn{c: c, leaf: f.ColIndex, phys: d.PhysicalType(), opt: d.MaxDefinitionLevel() == 1}
		id := f.Field.Type.ID()
		ok := false
		switch requestColumns[c].kind {
		case kindCount, kindNumber, kindUnixTime:
			ok = tc.phys == parquet.Types.Int64 && id == arrow.INT64 ||
				tc.phys == parquet.Types.Int32 && id == arrow.INT32 ||
				tc.phys == parquet.Types.Double && id == arrow.FLOAT64
			if requestColumns[c].kind == kindCount && tc.phys == parquet.Types.Double {
				ok = false // integral floats: the pqarrow path converts them
			}
		case kindID, kindStatus, kindPhase:
			ok = tc.phys == parquet.Types.ByteArray && isStringType(f.Field.Type)
		}
		if !ok {
			return nil, false
		}
		cols = append(cols, tc)
	}
	return cols, true
}

// typedValues is one decoded column. Only the slice its kind needs is set;
// missing marks the rows whose value is null (or empty, for an id) in a
// required column, and bad the rows with a value no row may hold.
type typedValues struct {
	ints   []int64
	floats []float64
	ids    StringColumn
	hashes []uint64
	// idParts holds the ids' hashes instead, partitioned as they come,
	// when only their uniqueness is checked (ForAnalysis).
	idParts *hashParts
	// ownPages says the page decoder read the column, not Arrow's
	// column reader.
	ownPages bool
	status   *StatusColumn
	phases   []Phase
	missing  []bool
	bad      bool
	err      error
}

// readParquetTyped reads the n rows of pf with the typed column readers.
// It returns nil when the file needs the pqarrow path: a column stored
// otherwise, a value the row checks exclude, E2E_ms below TTFT_ms, a
// decoding error, or a column whose length disagrees with the footer.
func readParquetTyped(src typedSource, fields []pqarrow.SchemaField, l *requestLayout, used []reqColumn, path string, n int, opts ReadOptions) (rf *RequestFile, fe *FileError) {
	forAnalysis := opts.ForAnalysis
	cols, ok := typedLayout(src.pf, fields, l, used)
	if !ok {
		return nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			rf, fe = nil, nil // the pqarrow path reports it
		}
	}()
	vals := decodeTypedColumns(src, cols, n, forAnalysis, opts.pool)
	for _, tc := range cols {
		var cp *parquetpage.CorruptError
		if errors.As(vals[tc.c].err, &cp) {
			j := l.pos[tc.c]
			return nil, fileErrorf(path, 0, j+1, l.names[j], "corrupt parquet",
				"%s: row group %d, page %d cannot be decoded (%v); the file is corrupt", l.names[j], cp.Group, cp.Page, cp.Err)
		}
	}
	for _, tc := range cols {
		if v := &vals[tc.c]; v.err != nil || v.bad {
			return nil, nil
		}
	}

	q := &Requests{N: n, ExtraColumns: l.extras}
	q.SourceRow = opts.pool.takeInt32s(n)[:n]
	for i := range q.SourceRow {
		q.SourceRow[i] = int32(i + 1)
	}
	q.IDs = vals[colRequestID].ids
	q.PromptTokens = vals[colPromptTokens].ints
	q.CompletionTokens = vals[colCompletionTokens].ints
	q.TTFTms = vals[colTTFT].floats
	q.E2Ems = vals[colE2E].floats
	q.TRequestSent = vals[colTRequestSent].floats
	q.TFirstText = vals[colTFirstText].floats
	q.TLastText = vals[colTLastText].floats
	q.Status = vals[colStatus].status
	q.MaxTokens = vals[colMaxTokens].ints
	q.TextChunks = vals[colTextChunks].ints
	q.Phase = vals[colPhase].phases

	if !placeholdersAllowed(q, vals) {
		return nil, nil
	}
	rf = &RequestFile{Path: path, Format: "parquet", RowsRead: n, Requests: q, typed: true}
	for _, tc := range cols {
		if vals[tc.c].ownPages {
			rf.pageDecoded++
		}
	}
	if forAnalysis {
		// The ids are not kept: unique hashes prove unique ids, and any
		// two equal hashes (a duplicate, or a collision) leave the file to
		// the pqarrow path, which reports the duplicates.
		parts := vals[colRequestID].idParts
		repeat := parts.repeat()
		opts.pool.giveUint64s(parts.slots)
		if repeat {
			return nil, nil
		}
		q.trimForAnalysis(opts.pool)
		return rf, nil
	}
	var x exclusions
	dropDuplicates(q, l, path, vals[colRequestID].hashes, &x)
	x.store(rf)
	return rf, nil
}

// decodeTypedColumns decodes cols, the n rows of each, a few columns at a
// time: more goroutines than cores buy nothing, and each holds a
// decoder's buffers. A panic decoding a column is its error.
func decodeTypedColumns(src typedSource, cols []typedColumn, n int, hashOnly bool, pool *columnPool) *[numReqColumns]typedValues {
	var (
		vals [numReqColumns]typedValues
		wg   sync.WaitGroup
		seed = maphash.MakeSeed()
		next = make(chan typedColumn, len(cols))
	)
	for _, tc := range cols {
		next <- tc
	}
	close(next)
	decode := func(tc typedColumn) {
		defer func() {
			if p := recover(); p != nil {
				vals[tc.c].err = fmt.Errorf("%v", p)
			}
		}()
		vals[tc.c] = readTypedColumn(src, tc, n, seed, hashOnly, pool)
	}
	for range min(typedColumnWorkers, len(cols)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tc := range next {
				decode(tc)
			}
		}()
	}
	wg.Wait()
	return &vals
}

// placeholdersAllowed reports whether every null in a required column of
// q (as vals marks them missing) is one the pqarrow path would give a
// placeholder, which it then gives it: a null is allowed only where a
// failed request (or one without output tokens) leaves nothing to record.
// Anything else, or E2E_ms below TTFT_ms, excludes the row, which the
// pqarrow path reports: the typed reader then steps aside.
func placeholdersAllowed(q *Requests, vals *[numReqColumns]typedValues) bool {
	if vals[colRequestID].missing != nil || vals[colPromptTokens].missing != nil {
		return false
	}
	compMissing, ttftMissing, e2eMissing := vals[colCompletionTokens].missing, vals[colTTFT].missing, vals[colE2E].missing
	for i := range q.N {
		if compMissing != nil && compMissing[i] || ttftMissing != nil && ttftMissing[i] || e2eMissing != nil && e2eMissing[i] {
			failed := q.Status != nil && StatusFailed(q.Status.At(i))
			zero := (compMissing == nil || !compMissing[i]) && q.CompletionTokens[i] == 0
			if compMissing != nil && compMissing[i] {
				if !mayBeEmpty(colCompletionTokens, failed, zero) {
					return false
				}
				q.CompletionTokens[i] = 0
			}
			if ttftMissing != nil && ttftMissing[i] && !mayBeEmpty(colTTFT, failed, zero) ||
				e2eMissing != nil && e2eMissing[i] && !mayBeEmpty(colE2E, failed, zero) {
				return false
			}
		}
		if q.E2Ems[i] < q.TTFTms[i] {
			return false
		}
	}
	return true
}

// typedSource is the file the typed reader reads: its Arrow reader, and
// its bytes for the page decoder.
type typedSource struct {
	pf   *file.Reader
	r    io.ReaderAt
	size int64
}

// readTypedColumn decodes every row group of one column: with the page
// decoder when it reads the column's chunks, else with Arrow's column
// reader.
func readTypedColumn(src typedSource, tc typedColumn, n int, seed maphash.Seed, hashOnly bool, pool *columnPool) typedValues {
	c := newColumnFill(tc, n, seed, hashOnly, pool)
	// The one place the page decoder's refusal is taken: Arrow's column
	// reader reads the column instead, from its first row.
	err := c.fromPages(src)
	if errors.Is(err, parquetpage.ErrUnsupported) {
		c = newColumnFill(tc, n, seed, hashOnly, pool)
		err = c.fromArrow(src.pf)
	}
	if err == nil && c.row != n {
		err = fmt.Errorf("the column holds %d values, not the %d rows the footer declares", c.row, n)
	}
	c.v.err = err
	return c.v
}

// columnFill builds one column's typedValues from decoded batches of
// definition levels and values.
type columnFill struct {
	v        typedValues
	tc       typedColumn
	info     requestColumnInfo
	n        int // the rows the footer declares
	row      int // rows filled
	seed     maphash.Seed
	hashOnly bool
	// dictCodes are the status codes of the values of the dictionary
	// dictGen names, for dictionary-encoded status pages.
	dictCodes []uint32
	dictGen   int
	// checkedGen names the dictionary dictValid was worked out for.
	checkedGen int
	dictValid  bool
}

// newColumnFill returns an empty fill of n rows, its columns taken from
// pool.
func newColumnFill(tc typedColumn, n int, seed maphash.Seed, hashOnly bool, pool *columnPool) *columnFill {
	c := &columnFill{tc: tc, info: requestColumns[tc.c], n: n, seed: seed, hashOnly: hashOnly, dictGen: -1, checkedGen: -1}
	switch c.info.kind {
	case kindCount:
		c.v.ints = pool.takeInts(n)
	case kindNumber, kindUnixTime:
		c.v.floats = pool.takeFloats(n)
	case kindID:
		if !hashOnly {
			c.v.ids.grow(n, 12*n)
		}
		if hashOnly {
			c.v.idParts = newHashParts(n, pool)
		} else {
			c.v.hashes = pool.takeUint64s(n)
		}
	case kindStatus:
		c.v.status = pool.takeStatus(n)
	case kindPhase:
		c.v.phases = make([]Phase, 0, n)
	}
	return c
}

// fromPages reads the column with the page decoder. It returns
// parquetpage.ErrUnsupported, having filled nothing or not, when a chunk
// is stored in a way the decoder does not read.
func (c *columnFill) fromPages(src typedSource) error {
	col := parquetpage.Column{Leaf: c.tc.leaf, Type: c.tc.phys, Optional: c.tc.opt}
	err := parquetpage.DecodeColumn(src.pf.MetaData(), src.r, src.size, col, func(p *parquetpage.Page) error {
		if done, err := c.addDirect(p); done || err != nil {
			return err
		}
		v, err := p.Values()
		if err != nil {
			return err
		}
		return c.add(p.Levels(), p.NonNull(), p.Defs(), v.Int64s, v.Int32s, v.Float64s, v.ByteArrays)
	})
	if err == nil {
		c.v.ownPages = true
	}
	return err
}

// addDirect decodes a page of a count column stored as INT64, or of a
// number column stored as DOUBLE, straight into the column, and checks its
// values there; the nulls of an optional column are then spread in place,
// from the end. Pages of ids and statuses get loops of their own. It
// reports false, decoding nothing, for any other page.
func (c *columnFill) addDirect(p *parquetpage.Page) (bool, error) {
	levels, read := p.Levels(), p.NonNull()
	if c.row+levels > c.n {
		return false, nil
	}
	v, info, phys := &c.v, c.info, c.tc.phys
	dict, dictEncoded := p.Dictionary()
	switch {
	case info.kind == kindCount && phys == parquet.Types.Int64 && cap(v.ints) >= c.n:
		start := len(v.ints)
		v.ints = v.ints[:start+levels]
		page := v.ints[start:]
		if err := p.Int64s(page[:read]); err != nil {
			return true, err
		}
		if !c.dictVouches(dict, dictEncoded) && !countsValid(page[:read], info.max) {
			v.bad = true
		}
		if read < levels {
			spreadNulls(page, read, p.Defs(), int64(-1), c.nullAt(info))
		}
	case (info.kind == kindNumber || info.kind == kindUnixTime) && phys == parquet.Types.Double && cap(v.floats) >= c.n:
		start := len(v.floats)
		v.floats = v.floats[:start+levels]
		page := v.floats[start:]
		if err := p.Float64s(page[:read]); err != nil {
			return true, err
		}
		if !c.dictVouches(dict, dictEncoded) && !numbersValid(page[:read], info.required, float64(info.max)) {
			v.bad = true
		}
		if read < levels {
			spreadNulls(page, read, p.Defs(), math.NaN(), c.nullAt(info))
		}
	case info.kind == kindID && c.hashOnly && phys == parquet.Types.ByteArray:
		vals, err := p.Values()
		if err != nil {
			return true, err
		}
		defs := p.Defs()
		k := 0
		for j := range levels {
			var s string
			if read == levels || defs[j] != 0 {
				s = byteString(vals.ByteArrays[k])
				k++
			}
			if s == "" {
				c.markMissing(c.row + j)
			}
			v.idParts.add(maphash.String(c.seed, s))
		}
	case info.kind == kindStatus && phys == parquet.Types.ByteArray && dictEncoded && cap(v.status.Codes) >= c.n:
		// A code per dictionary value, then the page's codes decoded as
		// a dictionary of codes, straight into the column.
		if c.dictGen != dict.ID {
			c.dictCodes = c.dictCodes[:0]
			for _, b := range dict.ByteArrays {
				c.dictCodes = append(c.dictCodes, v.status.code(byteString(b)))
			}
			c.dictGen = dict.ID
		}
		start := len(v.status.Codes)
		v.status.Codes = v.status.Codes[:start+levels]
		page := v.status.Codes[start:]
		if err := parquetpage.DecodeIndexed(p, c.dictCodes, page[:read]); err != nil {
			return true, err
		}
		if read < levels {
			spreadNulls(page, read, p.Defs(), v.status.code(""), nil)
		}
	case info.kind == kindStatus && phys == parquet.Types.ByteArray:
		vals, err := p.Values()
		if err != nil {
			return true, err
		}
		defs := p.Defs()
		k := 0
		for j := range levels {
			var s string
			if read == levels || defs[j] != 0 {
				s = byteString(vals.ByteArrays[k])
				k++
			}
			v.status.Append(s)
		}
	default:
		return false, nil
	}
	c.row += levels
	return true, nil
}

// dictVouches reports whether every value of a page is known valid
// without looking at it: the page is dictionary-encoded (dictEncoded) and
// every value of its dictionary (an INT64 or DOUBLE one) is valid, which
// is checked once per dictionary.
func (c *columnFill) dictVouches(dict parquetpage.Dictionary, dictEncoded bool) bool {
	if !dictEncoded {
		return false
	}
	if c.checkedGen != dict.ID {
		switch c.tc.phys {
		case parquet.Types.Int64:
			c.dictValid = countsValid(dict.Int64s, c.info.max)
		case parquet.Types.Double:
			c.dictValid = numbersValid(dict.Float64s, c.info.required, float64(c.info.max))
		default:
			c.dictValid = false
		}
		c.checkedGen = dict.ID
	}
	return c.dictValid
}

// countsValid reports whether every count of xs lies from 0 to limit
// (>= 0): one unsigned compare checks both ends.
func countsValid(xs []int64, limit int64) bool {
	ok := true
	for _, x := range xs {
		if uint64(x) > uint64(limit) {
			ok = false
		}
	}
	return ok
}

// numbersValid reports whether every number of xs (none null) is one a
// number column whose range ends at limit may hold: see validNumber.
func numbersValid(xs []float64, required bool, limit float64) bool {
	ok := true
	if required {
		for _, x := range xs {
			if !(x >= 0 && x <= limit) {
				ok = false
			}
		}
	} else {
		for _, x := range xs {
			if x < 0 || x > limit {
				ok = false
			}
		}
	}
	return ok
}

// nullAt returns what spreadNulls calls for a null at row j of the page:
// markMissing in a required column, nothing in an optional one.
func (c *columnFill) nullAt(info requestColumnInfo) func(j int) {
	if !info.required {
		return nil
	}
	row := c.row
	return func(j int) { c.markMissing(row + j) }
}

// spreadNulls moves the read non-null values at the start of page to the
// rows defs gives them (1 for a value, 0 for a null), from the end so that
// nothing is overwritten before it moves, and sets each null row to null,
// calling missing (unless nil) with its index.
func spreadNulls[T any](page []T, read int, defs []int16, null T, missing func(j int)) {
	k := read
	for j := len(page) - 1; j >= 0; j-- {
		if defs[j] != 0 {
			k--
			page[j] = page[k]
			continue
		}
		page[j] = null
		if missing != nil {
			missing(j)
		}
	}
}

// fromArrow reads the column with Arrow's typed column readers.
func (c *columnFill) fromArrow(pf *file.Reader) error {
	var (
		defs   = make([]int16, typedBatchRows)
		ints   []int64
		int32s []int32
		floats []float64
		bytes  []parquet.ByteArray
	)
	switch c.tc.phys {
	case parquet.Types.Int64:
		ints = make([]int64, typedBatchRows)
	case parquet.Types.Int32:
		int32s = make([]int32, typedBatchRows)
	case parquet.Types.Double:
		floats = make([]float64, typedBatchRows)
	case parquet.Types.ByteArray:
		bytes = make([]parquet.ByteArray, typedBatchRows)
	}
	for g := range pf.NumRowGroups() {
		rg := pf.RowGroup(g)
		want := rg.NumRows()
		ccr, err := rg.Column(c.tc.leaf)
		if err != nil {
			return err
		}
		var got int64
		for got < want {
			batch := min(int64(typedBatchRows), want-got)
			var levels int64
			var read int
			switch r := ccr.(type) {
			case *file.Int64ColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, ints, defs, nil)
			case *file.Int32ColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, int32s, defs, nil)
			case *file.Float64ColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, floats, defs, nil)
			case *file.ByteArrayColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, bytes, defs, nil)
			default:
				err = fmt.Errorf("unexpected column reader %T", ccr)
			}
			if err != nil {
				return err
			}
			if levels == 0 {
				return fmt.Errorf("the column holds fewer values than the footer declares")
			}
			if err := c.add(int(levels), read, defs, ints, int32s, floats, bytes); err != nil {
				return err
			}
			got += levels
		}
		if ccr.HasNext() {
			return fmt.Errorf("the column holds more values than the footer declares")
		}
		if err := ccr.Err(); err != nil {
			return err
		}
	}
	return nil
}

// add appends a batch of levels rows, whose read non-null values are in
// the slice of the column's physical type (defs gives the nulls of an
// optional column), checking each value.
func (c *columnFill) add(levels, read int, defs []int16, ints []int64, int32s []int32, floats []float64, bytes []parquet.ByteArray) error {
	if c.row+levels > c.n {
		return fmt.Errorf("the column holds more values than the footer declares")
	}
	if !c.tc.opt && levels != read {
		return fmt.Errorf("definition levels disagree with the values read")
	}
	if c.appendTyped(levels, read, defs, ints, floats) {
		c.row += levels
		return nil
	}
	v, info := &c.v, c.info
	k := 0 // the next physical value
	for j := range levels {
		null := c.tc.opt && defs[j] == 0
		switch info.kind {
		case kindCount:
			x := int64(-1)
			switch {
			case null && info.required:
				c.markMissing(c.row)
			case null:
			case ints != nil:
				x = ints[k]
			default:
				x = int64(int32s[k])
			}
			if uint64(x) > uint64(info.max) && !null {
				v.bad = true // below 0 or above the range
			}
			v.ints = append(v.ints, x)
		case kindNumber, kindUnixTime:
			x := math.NaN()
			switch {
			case null && info.required:
				c.markMissing(c.row)
			case null:
			case floats != nil:
				x = floats[k]
			case ints != nil:
				x = float64(ints[k])
			default:
				x = float64(int32s[k])
			}
			if !null && !validNumber(info, x) {
				v.bad = true
			}
			v.floats = append(v.floats, x)
		case kindID:
			var s string
			if !null {
				s = byteString(bytes[k])
			}
			if s == "" {
				c.markMissing(c.row)
			}
			if !c.hashOnly {
				if !v.ids.fits(len(s)) {
					return fmt.Errorf("more than %d bytes of strings; split the file", math.MaxInt32)
				}
				v.ids.Append(s)
			}
			if v.idParts != nil {
				v.idParts.add(maphash.String(c.seed, s))
			} else {
				v.hashes = append(v.hashes, maphash.String(c.seed, s))
			}
		case kindStatus, kindPhase:
			var s string
			if !null {
				s = byteString(bytes[k])
			}
			if info.kind == kindStatus {
				v.status.Append(s) // copies each new text
				break
			}
			p, ok := ParsePhase(s)
			if !ok {
				v.bad = true
			}
			v.phases = append(v.phases, p)
		}
		if !null {
			k++
		}
		c.row++
	}
	if k != read {
		return fmt.Errorf("definition levels disagree with the values read")
	}
	return nil
}

// appendTyped appends a batch of a count column stored as INT64, or of a
// number column stored as DOUBLE, whose read non-null values are in ints
// or floats: they are copied to the column, checked there, and the nulls
// defs gives spread in place, as addDirect does with a decoded page. It
// reports false, appending nothing, for any other column, or when defs
// does not hold read values (the general loop of add reports it).
func (c *columnFill) appendTyped(levels, read int, defs []int16, ints []int64, floats []float64) bool {
	if read < levels {
		nonNull := 0
		for _, d := range defs[:levels] {
			nonNull += int(d)
		}
		if nonNull != read {
			return false
		}
	}
	v, info := &c.v, c.info
	switch {
	case info.kind == kindCount && ints != nil:
		page := extend(&v.ints, levels)
		copy(page, ints[:read])
		if !countsValid(page[:read], info.max) {
			v.bad = true
		}
		if read < levels {
			spreadNulls(page, read, defs[:levels], int64(-1), c.nullAt(info))
		}
	case (info.kind == kindNumber || info.kind == kindUnixTime) && floats != nil:
		page := extend(&v.floats, levels)
		copy(page, floats[:read])
		if !numbersValid(page[:read], info.required, float64(info.max)) {
			v.bad = true
		}
		if read < levels {
			spreadNulls(page, read, defs[:levels], math.NaN(), c.nullAt(info))
		}
	default:
		return false
	}
	return true
}

// extend lengthens *s by n elements and returns them.
func extend[T any](s *[]T, n int) []T {
	start := len(*s)
	*s = slices.Grow(*s, n)[:start+n]
	return (*s)[start:]
}

// markMissing marks row as null (or empty) in a required column.
func (c *columnFill) markMissing(row int) {
	if c.v.missing == nil {
		c.v.missing = make([]bool, c.n)
	}
	c.v.missing[row] = true
}

// validNumber reports whether x, not null, is a value the number column
// info may hold: from 0 to info.max when it is required; from 0 to
// info.max, or NaN, when it is optional.
func validNumber(info requestColumnInfo, x float64) bool {
	if info.required {
		return x >= 0 && x <= float64(info.max)
	}
	return !(x < 0 || x > float64(info.max))
}

// byteString views b as a string, without a copy.
func byteString(b parquet.ByteArray) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// hashesRepeat reports whether two of hashes are equal. As findDuplicates
// does, it partitions the hashes by their top bits into parts of about a
// thousand, in one pass, and checks each part with a small open-addressing
// table that stays in cache.
func hashesRepeat(hashes []uint64) bool {
	n := len(hashes)
	if n < 2 {
		return false
	}
	partBits := bits.Len(uint(n >> 10))
	parted, starts, largest := partitionHashes(hashes, partBits, 0)
	table := make([]uint64, 1<<bits.Len(uint(2*largest-1))) // load factor <= 1/2
	for p := range 1 << partBits {
		if partRepeats(parted[starts[p]:starts[p+1]], table) {
			return true
		}
	}
	return false
}

// partRepeats reports whether two hashes of part are equal, with table
// (at least twice as long as part, rounded up to a power of two) as an
// open-addressing set.
func partRepeats(part, table []uint64) bool {
	if len(part) < 2 {
		return false
	}
	t := table[:1<<bits.Len(uint(2*len(part)-1))]
	clear(t)
	mask := uint64(len(t) - 1)
	zero := false // 0 marks an empty slot: a hash of 0 is tracked apart
	for _, h := range part {
		if h == 0 {
			if zero {
				return true
			}
			zero = true
			continue
		}
		for i := h & mask; ; i = (i + 1) & mask {
			if t[i] == 0 {
				t[i] = h
				break
			}
			if t[i] == h {
				return true
			}
		}
	}
	return false
}

// hashParts holds hashes partitioned by their top bits as they are added,
// so that checking them needs no partitioning pass: part p is
// slots[p*per:p*per+fill[p]]. Parts have room for a quarter more than
// their share (with random hashes a part all but never fills); hashes
// past a full part go to overflow, and the check then partitions them all
// afresh.
type hashParts struct {
	shift    uint // 64 − the partition bits
	per      int
	fill     []int32
	slots    []uint64
	overflow []uint64
}

// newHashParts makes room for n hashes, its slots taken from pool.
func newHashParts(n int, pool *columnPool) *hashParts {
	partBits := bits.Len(uint(n >> 10))
	parts := 1 << partBits
	per := n/parts + n/parts/4 + 16
	return &hashParts{shift: uint(64 - partBits), per: per, fill: make([]int32, parts), slots: pool.takeUint64s(parts * per)[:parts*per]}
}

// add adds hash h.
func (hp *hashParts) add(h uint64) {
	p := int(h >> hp.shift) // h >> 64 is 0: one part
	if f := int(hp.fill[p]); f < hp.per {
		hp.slots[p*hp.per+f] = h
		hp.fill[p]++
		return
	}
	hp.overflow = append(hp.overflow, h)
}

// repeat reports whether two of the hashes added are equal.
func (hp *hashParts) repeat() bool {
	if len(hp.overflow) > 0 {
		all := append([]uint64(nil), hp.overflow...)
		for p, f := range hp.fill {
			all = append(all, hp.slots[p*hp.per:p*hp.per+int(f)]...)
		}
		return hashesRepeat(all)
	}
	largest := 1
	for _, f := range hp.fill {
		largest = max(largest, int(f))
	}
	table := make([]uint64, 1<<bits.Len(uint(2*largest-1)))
	for p, f := range hp.fill {
		if partRepeats(hp.slots[p*hp.per:p*hp.per+int(f)], table) {
			return true
		}
	}
	return false
}
