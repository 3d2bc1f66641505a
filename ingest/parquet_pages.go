package ingest

// This file decodes the pages of the column chunks the typed reader reads,
// for the encodings nearly every writer uses (PLAIN and dictionary values,
// RLE definition levels, data pages v1 and v2, uncompressed, Snappy, gzip
// or zstd pages). Arrow's column readers do the same, but allocate and
// zero fresh buffers for every chunk, page and dictionary, which cost more
// than the decoding itself on a sweep of millions of rows; here one
// chunkDecoder per column reuses its buffers from chunk to chunk. Anything
// else (another encoding or codec, encryption, a page type it does not
// know, a size it cannot bound) is errPagesUnsupported, and the column is
// read with Arrow's readers instead; a page it cannot decode is an error,
// and the file goes to the pqarrow path, whose diagnostics are the
// reference.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/thrift/lib/go/thrift"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
)

// errPagesUnsupported says a column chunk is stored in a way chunkDecoder
// does not read; Arrow's column reader reads it instead.
var errPagesUnsupported = errors.New("pages stored in a way the page decoder does not read")

// Parquet's enumerations (parquet.thrift), as stored in page headers.
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3

	encPlain          = 0
	encPlainDict      = 2
	encRLE            = 3
	encRLEDictionary  = 8
	maxBytePageLength = 256 << 20 // a BYTE_ARRAY page larger than this goes to Arrow
	zstdSlack         = 64        // bytes past a zstd page its buffer keeps spare
)

// fullPageHeader holds what decoding a page needs of its PageHeader.
type fullPageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32
	values       int32 // num_values of the data or dictionary page header
	encoding     int32
	defEncoding  int32 // v1: definition_level_encoding
	defBytes     int32 // v2: definition_levels_byte_length
	repBytes     int32 // v2: repetition_levels_byte_length
	compressedV2 bool  // v2: is_compressed (true unless the header says false)
}

// chunkDecoder decodes the pages of one column's chunks, one chunk after
// another, into buffers it keeps. After each call of next, defs[:levels]
// are the page's definition levels (when the column is optional) and the
// slice of the physical type holds its read non-null values, as Arrow's
// ReadBatch gives them.
type chunkDecoder struct {
	phys parquet.Type
	opt  bool // max definition level 1

	raw   []byte // the chunk's bytes
	at    int    // the next page header in raw
	left  int64  // values of the chunk's data pages not yet decoded
	codec compress.Compression
	page  []byte // the decompressed page
	gz    *gzip.Reader

	hasDict    bool
	dictGen    int    // counts the dictionaries read: which one the values index
	dictPage   []byte // a BYTE_ARRAY dictionary's bytes, which dictBytes view
	dictInts   []int64
	dictInt32s []int32
	dictFloats []float64
	dictBytes  []parquet.ByteArray
	indices    []uint32

	levels, read int
	defs         []int16
	values       []byte // the page's encoded values
	dictEncoded  bool   // values are dictionary indices
	// The page's values, after decodeValues.
	ints   []int64
	int32s []int32
	floats []float64
	bytes  []parquet.ByteArray

	trans sliceTransport
	proto *thrift.TCompactProtocol
}

// zstdDecoder decompresses zstd pages for every chunkDecoder (DecodeAll
// may be called concurrently). Its memory bound backs up the size check
// each page gets before it is decompressed.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBytePageLength), zstd.WithDecoderConcurrency(2))
	if err != nil {
		panic(err)
	}
	return d
})

// chunkDecoders keeps decoders, and so their buffers, from one file to
// the next: fresh buffers cost more to allocate and clear than the pages
// cost to decode.
var chunkDecoders = sync.Pool{New: func() any {
	d := &chunkDecoder{}
	d.proto = thrift.NewTCompactProtocolConf(&d.trans, &thrift.TConfiguration{MaxMessageSize: maxPageHeaderBytes})
	return d
}}

// newChunkDecoder returns a decoder for a column of physical type phys,
// optional (max definition level 1) or required. Give it back with
// release.
func newChunkDecoder(phys parquet.Type, opt bool) *chunkDecoder {
	d := chunkDecoders.Get().(*chunkDecoder)
	d.phys, d.opt, d.hasDict = phys, opt, false
	return d
}

// release gives d back for another column; nothing it decoded may be used
// after.
func (d *chunkDecoder) release() {
	d.trans.b, d.values = nil, nil
	chunkDecoders.Put(d)
}

// chunkUnsupported reports why the pages of column chunk cc cannot be read
// by a chunkDecoder, or nil when they can. md is the file's metadata and
// size its length in bytes.
func chunkUnsupported(md *metadata.FileMetaData, cc *metadata.ColumnChunkMetaData, size int64) error {
	if cc.CryptoMetadata() != nil || md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		return errPagesUnsupported
	}
	switch cc.Compression() {
	case compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd:
	default:
		return errPagesUnsupported
	}
	start, length := chunkSpan(cc)
	if start < 4 || length <= 0 || start+length > size || start+length < start {
		return errPagesUnsupported
	}
	return nil
}

// chunkSpan gives where column chunk cc starts in the file and its length,
// as Arrow's row group reader computes them.
func chunkSpan(cc *metadata.ColumnChunkMetaData) (start, length int64) {
	start = cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
		start = cc.DictionaryPageOffset()
	}
	return start, cc.TotalCompressedSize()
}

// reset reads column chunk cc from r (its span checked by
// chunkUnsupported) and makes it the one next decodes.
func (d *chunkDecoder) reset(r io.ReaderAt, cc *metadata.ColumnChunkMetaData) error {
	start, length := chunkSpan(cc)
	d.raw = grow(d.raw, int(length))
	if _, err := r.ReadAt(d.raw, start); err != nil {
		return fmt.Errorf("reading a column chunk: %w", err)
	}
	d.at, d.left, d.codec, d.hasDict = 0, cc.NumValues(), cc.Compression(), false
	return nil
}

// grow returns b resized to n elements, reusing its array when it is large
// enough; the contents are not kept.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// next decodes the chunk's next data page, reading a dictionary page on
// the way. It returns io.EOF after the last data page.
func (d *chunkDecoder) next() error {
	for {
		if d.left <= 0 {
			return io.EOF
		}
		h, body, err := d.header()
		if err != nil {
			return err
		}
		switch h.typ {
		case pageDictionary:
			if err := d.readDictionary(h, body); err != nil {
				return err
			}
		case pageData, pageDataV2:
			if h.values <= 0 || int64(h.values) > d.left {
				return fmt.Errorf("a data page holds %d values, more than the %d left in its chunk", h.values, d.left)
			}
			d.left -= int64(h.values)
			return d.readData(h, body)
		default:
			return errPagesUnsupported // an index page, or one Parquet does not define
		}
	}
}

// header reads the page header at d.at and returns it with the page's
// compressed body, moving d.at past the page.
func (d *chunkDecoder) header() (fullPageHeader, []byte, error) {
	d.trans.b = d.raw[d.at:]
	h, err := readFullPageHeader(d.proto)
	if err != nil {
		return h, nil, fmt.Errorf("a page header cannot be read: %v", err)
	}
	start := len(d.raw) - len(d.trans.b)
	if h.compressed < 0 || h.uncompressed < 0 || int64(h.compressed) > int64(len(d.raw)-start) {
		return h, nil, fmt.Errorf("a page of %d bytes runs past its column chunk", h.compressed)
	}
	d.at = start + int(h.compressed)
	return h, d.raw[start:d.at], nil
}

// width is the size of one PLAIN value of a fixed-width type, 0 for
// BYTE_ARRAY.
func (d *chunkDecoder) width() int {
	switch d.phys {
	case parquet.Types.Int32:
		return 4
	case parquet.Types.Int64, parquet.Types.Double:
		return 8
	}
	return 0
}

// checkSize refuses a page whose declared uncompressed size its values
// cannot need (at most 8 bytes a value and 2 more of levels and run
// headers for a fixed-width column) or its compressed bytes cannot hold
// (more than the codec's largest expansion: Snappy about 21×, deflate
// 1032×, zstd 32768×, a 128 KiB block from a 4-byte RLE block): such a
// page is corrupt, and the claim is not allocated. A page larger than
// maxBytePageLength goes to Arrow.
func (d *chunkDecoder) checkSize(h fullPageHeader) error {
	if w := d.width(); w > 0 && int64(h.uncompressed) > int64(w+2)*int64(h.values)+64 {
		return &corruptPage{err: fmt.Errorf("a page of %d values declares %d bytes uncompressed, more than its values can need", h.values, h.uncompressed)}
	}
	expand := int64(1)
	switch d.codec {
	case compress.Codecs.Snappy:
		expand = 22
	case compress.Codecs.Gzip:
		expand = 1032
	case compress.Codecs.Zstd:
		expand = 32768
	}
	if int64(h.uncompressed) > expand*int64(h.compressed)+64 {
		return &corruptPage{err: fmt.Errorf("a page of %d bytes declares %d bytes uncompressed, more than the codec can expand it to", h.compressed, h.uncompressed)}
	}
	if h.uncompressed > maxBytePageLength {
		return errPagesUnsupported
	}
	return nil
}

// decompress returns the n bytes src holds, the page body whose
// uncompressed length the header declares as n: src itself when the chunk
// is uncompressed (it lives as long as the chunk), else *buf, reused and
// grown as needed, which it decompresses src into.
func (d *chunkDecoder) decompress(buf *[]byte, src []byte, n int) ([]byte, error) {
	if d.codec == compress.Codecs.Uncompressed {
		if len(src) != n {
			return nil, fmt.Errorf("an uncompressed page of %d bytes declares %d", len(src), n)
		}
		return src, nil
	}
	dst, err := d.decompressInto(*buf, src, n)
	if err != nil {
		return nil, err
	}
	*buf = dst
	return dst, nil
}

// decompressInto decompresses src into dst, reused when large enough.
func (d *chunkDecoder) decompressInto(dst, src []byte, n int) ([]byte, error) {
	var err error
	switch d.codec {
	case compress.Codecs.Snappy:
		if m, e := snappy.DecodedLen(src); e != nil || m != n {
			return nil, fmt.Errorf("a Snappy page does not hold the %d bytes its header declares", n)
		}
		dst, err = snappy.Decode(grow(dst, n), src)
	case compress.Codecs.Zstd:
		var zh zstd.Header
		if e := zh.Decode(src); e != nil || zh.HasFCS && zh.FrameContentSize != uint64(n) {
			return nil, fmt.Errorf("a zstd page does not hold the %d bytes its header declares", n)
		}
		// The slack past n lets the decoder copy 16 bytes at a time.
		dst, err = zstdDecoder().DecodeAll(src, grow(dst, n+zstdSlack)[:0])
	case compress.Codecs.Gzip:
		if d.gz == nil {
			d.gz, err = gzip.NewReader(bytes.NewReader(src))
		} else {
			err = d.gz.Reset(bytes.NewReader(src))
		}
		if err == nil {
			dst = grow(dst, n)
			_, err = io.ReadFull(d.gz, dst)
			if err == nil {
				// Reading on to the end checks the stream's CRC.
				var one [1]byte
				switch k, e := d.gz.Read(one[:]); {
				case k != 0:
					err = errors.New("more bytes than declared")
				case e != io.EOF:
					err = e
				}
			}
		}
	default:
		return nil, errPagesUnsupported
	}
	if err != nil {
		return nil, fmt.Errorf("decompressing a page: %v", err)
	}
	if len(dst) != n {
		return nil, fmt.Errorf("a page decompresses to %d bytes, not the %d its header declares", len(dst), n)
	}
	return dst, nil
}

// readDictionary decodes a dictionary page (PLAIN values).
func (d *chunkDecoder) readDictionary(h fullPageHeader, body []byte) error {
	if h.encoding != encPlain && h.encoding != encPlainDict {
		return errPagesUnsupported
	}
	if d.hasDict {
		return errors.New("a column chunk with a second dictionary page") // Arrow refuses it too
	}
	if h.values < 0 || int64(h.values) > d.left {
		return fmt.Errorf("a dictionary of %d values for %d values", h.values, d.left)
	}
	if err := d.checkSize(h); err != nil {
		return err
	}
	page, err := d.decompress(&d.dictPage, body, int(h.uncompressed))
	if err != nil {
		return err
	}
	n := int(h.values)
	// Every PLAIN value takes its width (a BYTE_ARRAY value at least its
	// 4-byte length): the page's bytes, not its header, size the
	// dictionary.
	if w := max(d.width(), 4); int64(len(page)) < int64(w)*int64(n) {
		return fmt.Errorf("a dictionary page of %d bytes for %d values of at least %d bytes", len(page), n, w)
	}
	switch d.phys {
	case parquet.Types.Int64:
		d.dictInts = grow(d.dictInts, n)
		err = plainInt64s(page, d.dictInts)
	case parquet.Types.Int32:
		d.dictInt32s = grow(d.dictInt32s, n)
		err = plainInt32s(page, d.dictInt32s)
	case parquet.Types.Double:
		d.dictFloats = grow(d.dictFloats, n)
		err = plainFloat64s(page, d.dictFloats)
	case parquet.Types.ByteArray:
		d.dictBytes = grow(d.dictBytes, n)
		err = plainBytes(page, d.dictBytes)
	default:
		return errPagesUnsupported
	}
	if err != nil {
		return fmt.Errorf("the dictionary page: %v", err)
	}
	d.hasDict = true
	d.dictGen++
	return nil
}

// readData decodes a data page (v1 or v2) into defs and the values.
func (d *chunkDecoder) readData(h fullPageHeader, body []byte) error {
	if err := d.checkSize(h); err != nil {
		return err
	}
	n := int(h.values)
	var values []byte
	var defRun []byte // the definition levels' RLE runs
	if h.typ == pageData {
		page, err := d.decompress(&d.page, body, int(h.uncompressed))
		if err != nil {
			return err
		}
		values = page
		if d.opt {
			if h.defEncoding != encRLE {
				return errPagesUnsupported // BIT_PACKED levels, deprecated
			}
			if len(values) < 4 {
				return errors.New("a data page ends before its definition levels")
			}
			k := int(binary.LittleEndian.Uint32(values))
			if k < 0 || k > len(values)-4 {
				return fmt.Errorf("definition levels of %d bytes in a page of %d", k, len(values))
			}
			defRun, values = values[4:4+k], values[4+k:]
		}
	} else {
		if h.repBytes != 0 || h.defBytes < 0 || int(h.defBytes) > len(body) || h.defBytes > h.uncompressed || !d.opt && h.defBytes != 0 {
			return fmt.Errorf("a v2 data page declares %d and %d bytes of levels in a page of %d", h.repBytes, h.defBytes, len(body))
		}
		defRun = body[:h.defBytes]
		rest := int(h.uncompressed - h.defBytes)
		if h.compressedV2 {
			page, err := d.decompress(&d.page, body[h.defBytes:], rest)
			if err != nil {
				return err
			}
			values = page
		} else {
			if len(body)-int(h.defBytes) != rest {
				return fmt.Errorf("an uncompressed v2 page of %d bytes declares %d", len(body), h.uncompressed)
			}
			values = body[h.defBytes:]
		}
	}

	d.levels, d.read = n, n
	if d.opt {
		d.defs = grow(d.defs, n)
		nonNull, err := decodeLevels(defRun, d.defs)
		if err != nil {
			return &corruptPage{err: fmt.Errorf("definition levels: %v", err)}
		}
		d.read = nonNull
	}
	switch h.encoding {
	case encPlain:
	case encPlainDict, encRLEDictionary:
		if !d.hasDict {
			return errors.New("a dictionary-encoded page without a dictionary")
		}
	default:
		return errPagesUnsupported
	}
	d.values, d.dictEncoded = values, h.encoding != encPlain
	return nil
}

// decodeValues decodes the page's d.read values into the decoder's slice
// of the column's physical type.
func (d *chunkDecoder) decodeValues() error {
	if d.dictEncoded {
		return d.dictValues(d.values)
	}
	return d.plainValues(d.values)
}

// decodeFloats decodes the page's values, of a DOUBLE column, into out
// (of length d.read).
func (d *chunkDecoder) decodeFloats(out []float64) error {
	if !d.dictEncoded {
		return plainFloat64s(d.values, out)
	}
	return decodeDictionary(d.values, d.dictFloats, out)
}

// decodeInts decodes the page's values, of an INT64 column, into out (of
// length d.read).
func (d *chunkDecoder) decodeInts(out []int64) error {
	if !d.dictEncoded {
		return plainInt64s(d.values, out)
	}
	return decodeDictionary(d.values, d.dictInts, out)
}

// plainValues decodes d.read PLAIN values.
func (d *chunkDecoder) plainValues(b []byte) error {
	n := d.read
	var err error
	switch d.phys {
	case parquet.Types.Int64:
		d.ints = grow(d.ints, n)
		err = plainInt64s(b, d.ints)
	case parquet.Types.Int32:
		d.int32s = grow(d.int32s, n)
		err = plainInt32s(b, d.int32s)
	case parquet.Types.Double:
		d.floats = grow(d.floats, n)
		err = plainFloat64s(b, d.floats)
	case parquet.Types.ByteArray:
		d.bytes = grow(d.bytes, n)
		err = plainBytes(b, d.bytes)
	default:
		return errPagesUnsupported
	}
	return err
}

// readIndices decodes the page's d.read dictionary indices from b, a bit
// width and RLE runs, into d.indices.
func (d *chunkDecoder) readIndices(b []byte) error {
	n := d.read
	d.indices = grow(d.indices, n)
	if len(b) < 1 {
		if n == 0 {
			return nil
		}
		return &corruptPage{err: errors.New("a dictionary-encoded page without its bit width")}
	}
	width := int(b[0])
	if width > 32 {
		return &corruptPage{err: fmt.Errorf("dictionary indices of %d bits", width)}
	}
	if err := decodeHybrid(b[1:], width, d.indices); err != nil {
		return &corruptPage{err: fmt.Errorf("dictionary indices: %v", err)}
	}
	return nil
}

// dictValues decodes d.read dictionary indices and looks them up.
func (d *chunkDecoder) dictValues(b []byte) error {
	n := d.read
	if err := d.readIndices(b); err != nil {
		return err
	}
	switch d.phys {
	case parquet.Types.Int64:
		d.ints = grow(d.ints, n)
		return lookUp(d.dictInts, d.indices, d.ints)
	case parquet.Types.Int32:
		d.int32s = grow(d.int32s, n)
		return lookUp(d.dictInt32s, d.indices, d.int32s)
	case parquet.Types.Double:
		d.floats = grow(d.floats, n)
		return lookUp(d.dictFloats, d.indices, d.floats)
	case parquet.Types.ByteArray:
		d.bytes = grow(d.bytes, n)
		return lookUp(d.dictBytes, d.indices, d.bytes)
	}
	return errPagesUnsupported
}

// lookUp sets out[i] to dict[indices[i]].
func lookUp[T any](dict []T, indices []uint32, out []T) error {
	for i, k := range indices {
		if int(k) >= len(dict) {
			return &corruptPage{err: fmt.Errorf("dictionary index %d of a dictionary of %d values", k, len(dict))}
		}
		out[i] = dict[k]
	}
	return nil
}

// plainInt64s, plainInt32s and plainFloat64s decode len(out) PLAIN values
// (little-endian, 8 or 4 bytes each) from b.
func plainInt64s(b []byte, out []int64) error {
	if len(b) < 8*len(out) {
		return fmt.Errorf("%d bytes for %d values of 8 bytes", len(b), len(out))
	}
	b = b[:8*len(out)]
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return nil
}

func plainInt32s(b []byte, out []int32) error {
	if len(b) < 4*len(out) {
		return fmt.Errorf("%d bytes for %d values of 4 bytes", len(b), len(out))
	}
	b = b[:4*len(out)]
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

func plainFloat64s(b []byte, out []float64) error {
	if len(b) < 8*len(out) {
		return fmt.Errorf("%d bytes for %d values of 8 bytes", len(b), len(out))
	}
	b = b[:8*len(out)]
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return nil
}

// plainBytes decodes len(out) PLAIN BYTE_ARRAY values from b, each a
// 4-byte length and its bytes; the values view b.
func plainBytes(b []byte, out []parquet.ByteArray) error {
	for i := range out {
		if len(b) < 4 {
			return fmt.Errorf("the values end after %d of %d", i, len(out))
		}
		k := binary.LittleEndian.Uint32(b)
		if uint64(k) > uint64(len(b)-4) {
			return fmt.Errorf("value %d declares %d bytes, %d are left", i+1, k, len(b)-4)
		}
		out[i] = parquet.ByteArray(b[4 : 4+k : 4+k])
		b = b[4+k:]
	}
	return nil
}

// decodeLevels decodes len(defs) definition levels (bit width 1) from RLE
// runs and returns how many are 1.
func decodeLevels(b []byte, defs []int16) (int, error) {
	var run runDecoder
	run.b, run.width = b, 1
	nonNull := 0
	for i := 0; i < len(defs); {
		if err := run.nextRun(); err != nil {
			return 0, err
		}
		k := min(run.count, len(defs)-i)
		out := defs[i : i+k]
		if run.packed {
			for j := range out {
				bit := run.at + j
				out[j] = int16(run.b[bit>>3] >> (bit & 7) & 1)
				nonNull += int(out[j])
			}
		} else {
			if run.value > 1 {
				return 0, fmt.Errorf("definition level %d; the column's maximum is 1", run.value)
			}
			for j := range out {
				out[j] = int16(run.value)
			}
			nonNull += k * int(run.value)
		}
		run.done(k)
		i += k
	}
	return nonNull, nil
}

// decodeHybrid decodes len(out) values of width bits from RLE and
// bit-packed runs (Parquet's RLE/bit-packing hybrid, without a length
// prefix).
func decodeHybrid(b []byte, width int, out []uint32) error {
	var run runDecoder
	run.b, run.width = b, width
	mask := uint64(1)<<width - 1
	for i := 0; i < len(out); {
		if err := run.nextRun(); err != nil {
			return err
		}
		k := min(run.count, len(out)-i)
		dst := out[i : i+k]
		if !run.packed {
			for j := range dst {
				dst[j] = run.value
			}
		} else {
			for j := range dst {
				dst[j] = packedValue(run.b, (run.at+j)*width, mask)
			}
		}
		run.done(k)
		i += k
	}
	return nil
}

// packedValue is the value of the bits mask selects at bit of b: read
// eight bytes at a time while they are there, byte by byte at the end of
// the buffer.
func packedValue(b []byte, bit int, mask uint64) uint32 {
	p := bit >> 3
	var w uint64
	if p+8 <= len(b) {
		w = binary.LittleEndian.Uint64(b[p:])
	} else {
		for q := len(b) - 1; q >= p; q-- {
			w = w<<8 | uint64(b[q])
		}
	}
	return uint32(w >> (bit & 7) & mask)
}

// decodeDictionary decodes len(out) dictionary-encoded values from b, a
// bit width and RLE/bit-packed runs of indices, looking each index up in
// dict as it is decoded (the indices are never stored).
func decodeDictionary[T any](b []byte, dict []T, out []T) error {
	if len(b) < 1 {
		if len(out) == 0 {
			return nil
		}
		return &corruptPage{err: errors.New("a dictionary-encoded page without its bit width")}
	}
	width := int(b[0])
	if width > 32 {
		return &corruptPage{err: fmt.Errorf("dictionary indices of %d bits", width)}
	}
	var run runDecoder
	run.b, run.width = b[1:], width
	mask := uint64(1)<<width - 1
	for i := 0; i < len(out); {
		if err := run.nextRun(); err != nil {
			return &corruptPage{err: fmt.Errorf("dictionary indices: %v", err)}
		}
		k := min(run.count, len(out)-i)
		dst := out[i : i+k]
		if !run.packed {
			if int(run.value) >= len(dict) {
				return &corruptPage{err: fmt.Errorf("dictionary index %d of a dictionary of %d values", run.value, len(dict))}
			}
			v := dict[run.value]
			for j := range dst {
				dst[j] = v
			}
		} else {
			for j := range dst {
				x := packedValue(run.b, (run.at+j)*width, mask)
				if int(x) >= len(dict) {
					return &corruptPage{err: fmt.Errorf("dictionary index %d of a dictionary of %d values", x, len(dict))}
				}
				dst[j] = dict[x]
			}
		}
		run.done(k)
		i += k
	}
	return nil
}

// runDecoder walks the runs of Parquet's RLE/bit-packing hybrid encoding.
// After nextRun, a run of count values is either one value repeated or
// count values packed width bits each from bit at of b.
type runDecoder struct {
	b      []byte
	width  int
	packed bool
	count  int    // values of the run not yet taken
	at     int    // packed: the index of the run's next value, from b's start
	value  uint32 // RLE: the repeated value
	next   int    // the byte after the current run
}

// nextRun moves to the next run, unless values of the current one are
// left.
func (r *runDecoder) nextRun() error {
	if r.count > 0 {
		return nil
	}
	r.b = r.b[r.next:]
	r.next = 0
	header, k := binary.Uvarint(r.b)
	if k <= 0 {
		return errors.New("the runs end before the values")
	}
	r.b = r.b[k:]
	if header&1 == 0 {
		count := header >> 1
		nb := (r.width + 7) / 8
		if count == 0 || count > math.MaxInt32 || len(r.b) < nb {
			return errors.New("a corrupt RLE run")
		}
		var v uint64
		for q := nb - 1; q >= 0; q-- {
			v = v<<8 | uint64(r.b[q])
		}
		if r.width < 32 && v>>r.width != 0 {
			return fmt.Errorf("an RLE value of more than %d bits", r.width)
		}
		r.packed, r.count, r.value, r.next = false, int(count), uint32(v), nb
		return nil
	}
	groups := header >> 1
	switch {
	case groups == 0 || groups > math.MaxInt32/8:
		return errors.New("a corrupt bit-packed run") // Arrow refuses it too
	case r.width == 0:
		// Values of no bits take no bytes: a run may hold more groups
		// than its page has bytes.
	case groups > uint64(len(r.b)):
		return errors.New("a corrupt bit-packed run")
	}
	nbytes := int(groups) * r.width
	if nbytes > len(r.b) {
		// A writer may cut the last run's padding short.
		nbytes = len(r.b)
	}
	values := int(groups) * 8
	if r.width > 0 {
		values = min(values, nbytes*8/r.width)
	}
	if values == 0 {
		return errors.New("an empty bit-packed run")
	}
	r.packed, r.count, r.at, r.next = true, values, 0, nbytes
	return nil
}

// done takes k values of the current run.
func (r *runDecoder) done(k int) {
	r.count -= k
	r.at += k
}

// sliceTransport is the Thrift transport chunkDecoder reads page headers
// through: the bytes after the header are what is left of b.
type sliceTransport struct{ b []byte }

func (s *sliceTransport) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

func (s *sliceTransport) ReadByte() (byte, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c, nil
}

func (s *sliceTransport) Write([]byte) (int, error)   { return 0, errors.New("read only") }
func (s *sliceTransport) Close() error                { return nil }
func (s *sliceTransport) Flush(context.Context) error { return nil }
func (s *sliceTransport) Open() error                 { return nil }
func (s *sliceTransport) IsOpen() bool                { return true }
func (s *sliceTransport) RemainingBytes() uint64      { return uint64(len(s.b)) }

// readFullPageHeader reads one Thrift PageHeader with the fields decoding
// the page needs. As Arrow's reader does, it refuses a header without a
// field parquet.thrift requires: the page type and sizes, the sub-header
// the type names, and that sub-header's required fields (a field of the
// wrong Thrift type counts as absent).
func readFullPageHeader(p thrift.TProtocol) (fullPageHeader, error) {
	h := fullPageHeader{typ: -1, uncompressed: -1, compressed: -1, values: -1, compressedV2: true}
	ctx := context.Background()
	var seen [9]uint16            // seen[id]: the fields read of the struct with field id (0: the header)
	var values, encoding [9]int32 // by sub-header: the page type picks one
	err := readStruct(p, func(id int16, typ thrift.TType) (bool, error) {
		var err error
		switch {
		case id == 1 && typ == thrift.I32:
			h.typ, err = p.ReadI32(ctx)
		case id == 2 && typ == thrift.I32:
			h.uncompressed, err = p.ReadI32(ctx)
		case id == 3 && typ == thrift.I32:
			h.compressed, err = p.ReadI32(ctx)
		case (id == 5 || id == 7 || id == 8) && typ == thrift.STRUCT:
			err = readStruct(p, func(f int16, typ thrift.TType) (bool, error) {
				var err error
				switch {
				case typ == thrift.I32 && f == 1:
					values[id], err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 2 && id != 8, typ == thrift.I32 && f == 4 && id == 8:
					encoding[id], err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 3 && id == 5:
					h.defEncoding, err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 5 && id == 8:
					h.defBytes, err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 6 && id == 8:
					h.repBytes, err = p.ReadI32(ctx)
				case typ == thrift.BOOL && f == 7 && id == 8:
					h.compressedV2, err = p.ReadBool(ctx)
				case typ == thrift.I32 && (f == 4 && id == 5 || (f == 2 || f == 3) && id == 8):
					// repetition_level_encoding, num_nulls, num_rows:
					// required, not needed.
					_, err = p.ReadI32(ctx)
				default:
					return false, nil
				}
				seen[id] |= 1 << f
				return true, err
			})
		default:
			return false, nil
		}
		seen[0] |= 1 << id
		return true, err
	})
	if err != nil {
		return h, err
	}
	if seen[0]&0b1110 != 0b1110 || h.compressed < 0 || h.uncompressed < 0 {
		return h, errors.New("a page header without its type or sizes")
	}
	// The sub-header each page type requires, and its required fields.
	var sub int
	var fields uint16
	switch h.typ {
	case pageData:
		sub, fields = 5, 0b11110 // num_values, encoding, both level encodings
	case pageDictionary:
		sub, fields = 7, 0b110 // num_values, encoding
	case pageDataV2:
		sub, fields = 8, 0b1111110 // num_values, num_nulls, num_rows, encoding, both level lengths
	default:
		return h, nil // a page next refuses to decode
	}
	if seen[0]&(1<<sub) == 0 || seen[sub]&fields != fields {
		return h, fmt.Errorf("a page header of type %d without the required fields of its sub-header", h.typ)
	}
	h.values, h.encoding = values[sub], encoding[sub]
	return h, nil
}

// readStruct reads one Thrift struct from p, calling field for each of its
// fields; the fields it does not read (it returns false) are skipped.
func readStruct(p thrift.TProtocol, field func(id int16, typ thrift.TType) (bool, error)) error {
	ctx := context.Background()
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return err
	}
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return err
		}
		if typ == thrift.STOP {
			break
		}
		read, err := field(id, typ)
		if err == nil && !read {
			err = p.Skip(ctx, typ)
		}
		if err != nil {
			return err
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	return p.ReadStructEnd(ctx)
}
