package parquetpage

// This file holds the chunk decoder: page by page, a chunk's dictionary,
// definition levels and values, decompressed into buffers it keeps from
// chunk to chunk.

import (
	"bytes"
	"compress/gzip"
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

const (
	maxBytePageLength = 256 << 20 // a page larger than this is ErrUnsupported
	zstdSlack         = 64        // bytes past a zstd page its buffer keeps spare
)

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
		return ErrUnsupported
	}
	switch cc.Compression() {
	case compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd:
	default:
		return ErrUnsupported
	}
	start, length := chunkSpan(cc)
	if start < 4 || length <= 0 || start+length > size || start+length < start {
		return ErrUnsupported
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
			return ErrUnsupported // an index page, or one Parquet does not define
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
		return &CorruptError{Err: fmt.Errorf("a page of %d values declares %d bytes uncompressed, more than its values can need", h.values, h.uncompressed)}
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
		return &CorruptError{Err: fmt.Errorf("a page of %d bytes declares %d bytes uncompressed, more than the codec can expand it to", h.compressed, h.uncompressed)}
	}
	if h.uncompressed > maxBytePageLength {
		return ErrUnsupported
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
		return nil, ErrUnsupported
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
		return ErrUnsupported
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
		return ErrUnsupported
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
				return ErrUnsupported // BIT_PACKED levels, deprecated
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
			return &CorruptError{Err: fmt.Errorf("definition levels: %v", err)}
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
		return ErrUnsupported
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
		return ErrUnsupported
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
		return &CorruptError{Err: errors.New("a dictionary-encoded page without its bit width")}
	}
	width := int(b[0])
	if width > 32 {
		return &CorruptError{Err: fmt.Errorf("dictionary indices of %d bits", width)}
	}
	if err := decodeHybrid(b[1:], width, d.indices); err != nil {
		return &CorruptError{Err: fmt.Errorf("dictionary indices: %v", err)}
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
	return ErrUnsupported
}

// lookUp sets out[i] to dict[indices[i]].
func lookUp[T any](dict []T, indices []uint32, out []T) error {
	for i, k := range indices {
		if int(k) >= len(dict) {
			return &CorruptError{Err: fmt.Errorf("dictionary index %d of a dictionary of %d values", k, len(dict))}
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
