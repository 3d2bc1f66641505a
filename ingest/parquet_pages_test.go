package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/apache/thrift/lib/go/thrift"
	"github.com/golang/snappy"
	kgzip "github.com/klauspost/compress/gzip"
	xparquet "github.com/xitongsys/parquet-go/parquet"
	"github.com/xitongsys/parquet-go/writer"
)

// The tests of the page decoder (parquet_pages.go): its run decoders on
// hand-built bytes, its page-header reader on headers encoded by hand, and
// files of every layout it reads, which it must read (rf.pageDecoded) and
// read as pqarrow does (readBothWays).

// TestDecodeHybrid decodes hand-built RLE/bit-packing hybrid runs. A run
// starts with a ULEB128 varint header h: h&1 == 0 is an RLE run of h>>1
// copies of one value, stored in ceil(width/8) little-endian bytes;
// h&1 == 1 is h>>1 groups of 8 values, packed width bits each, least
// significant bit first.
func TestDecodeHybrid(t *testing.T) {
	tests := []struct {
		name  string
		b     []byte
		width int
		want  []uint32
	}{
		// 0x0a = 5<<1: five copies of a value of no bytes.
		{"RLE width 0", []byte{0x0a}, 0, []uint32{0, 0, 0, 0, 0}},
		// 0x08 = 4<<1, value byte 5.
		{"RLE width 3", []byte{0x08, 0x05}, 3, []uint32{5, 5, 5, 5}},
		{"RLE width 8", []byte{0x06, 0xff}, 8, []uint32{255, 255, 255}},
		// Width 9 takes 2 value bytes: 0x012c = 300.
		{"RLE width 9", []byte{0x04, 0x2c, 0x01}, 9, []uint32{300, 300}},
		// Width 17 takes 3: 0x010001 = 65537.
		{"RLE width 17", []byte{0x02, 0x01, 0x00, 0x01}, 17, []uint32{65537}},
		// Width 20, 3 bytes: 0x0fffff = 1048575, the widest value.
		{"RLE width 20", []byte{0x04, 0xff, 0xff, 0x0f}, 20, []uint32{1048575, 1048575}},
		{"RLE width 32", []byte{0x02, 0xff, 0xff, 0xff, 0xff}, 32, []uint32{4294967295}},
		// A header of two varint bytes: 0x90 0x03 = 0x10 | 3<<7 = 400 =
		// 200<<1, 200 ones.
		{"RLE of 200", []byte{0x90, 0x03, 0x01}, 1, slices.Repeat([]uint32{1}, 200)},
		// Only the values asked for are taken from a longer run.
		{"RLE longer than asked", []byte{0x14, 0x07}, 3, []uint32{7, 7}},
		// 0x03 = 1<<1|1: one group. 0xb2 = 0b10110010, from bit 0 up.
		{"packed width 1", []byte{0x03, 0xb2}, 1, []uint32{0, 1, 0, 0, 1, 1, 0, 1}},
		// 0..7 in 3 bits each, Parquet's own example: bits 0-23 are
		// 000 100 010 110 001 101 011 111 (each value's low bit first),
		// bytes 0x88 0xc6 0xfa.
		{"packed width 3", []byte{0x03, 0x88, 0xc6, 0xfa}, 3, []uint32{0, 1, 2, 3, 4, 5, 6, 7}},
		// Value i starts at bit 7i. 1, 2, 4, ..., 64 set bits 0, 8, 16,
		// ..., 48 (bit i of value i), one a byte; 127 sets bits 49-55,
		// so the last byte is 0x01|0xfe.
		{"packed width 7", []byte{0x03, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0xff}, 7, []uint32{1, 2, 4, 8, 16, 32, 64, 127}},
		// Value i starts at bit 17i: 131071 sets bits 0-16 (bytes 0-1
		// and bit 0 of byte 2); 1 sets bit 17 (byte 2 bit 1); 65536
		// sets bit 34+16 = 50 (byte 6 bit 2); the last, 5, sets bits
		// 119 and 121 (byte 14 bit 7, byte 15 bit 1). The last values
		// are near the end of the buffer, read byte by byte.
		{"packed width 17",
			[]byte{0x03, 0xff, 0xff, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02, 0x00},
			17, []uint32{131071, 1, 65536, 0, 0, 0, 0, 5}},
		// Four little-endian bytes a value.
		{"packed width 32",
			append([]byte{0x03, 0xef, 0xbe, 0xad, 0xde, 0x04, 0x03, 0x02, 0x01}, make([]byte, 24)...),
			32, []uint32{0xdeadbeef, 0x01020304, 0, 0, 0, 0, 0, 0}},
		// Two groups (0x05 = 2<<1|1) of width 2: 0xe4 = 11 10 01 00 and
		// 0x1b = 00 01 10 11 (read right to left), 0x00 0x00.
		{"packed two groups", []byte{0x05, 0xe4, 0x1b, 0x00, 0x00}, 2, []uint32{0, 1, 2, 3, 3, 2, 1, 0, 0, 0}},
		// One group of width 3 declared, 2 of its 3 bytes there: the 16
		// bits hold 5 whole values (the writer cut the padding).
		{"packed, last group cut short", []byte{0x03, 0x88, 0xc6}, 3, []uint32{0, 1, 2, 3, 4}},
		// Width 17, one group declared, 3 of its 17 bytes there: the 24
		// bits hold one whole value.
		{"packed width 17 cut short", []byte{0x03, 0xff, 0xff, 0x03}, 17, []uint32{131071}},
		// RLE 3×2, one packed group (as above), RLE 2×1.
		{"mixed runs", []byte{0x06, 0x02, 0x03, 0xe4, 0x1b, 0x04, 0x01}, 2,
			[]uint32{2, 2, 2, 0, 1, 2, 3, 3, 2, 1, 0, 1, 1}},
		{"nothing asked of nothing", nil, 5, []uint32{}},
	}
	for _, tt := range tests {
		got := make([]uint32, len(tt.want))
		if err := decodeHybrid(tt.b, tt.width, got); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: decodeHybrid(% x, %d) = %v, want %v", tt.name, tt.b, tt.width, got, tt.want)
		}
	}

	bad := []struct {
		name  string
		b     []byte
		width int
		n     int
	}{
		{"no runs", nil, 3, 1},
		{"truncated varint", []byte{0x80}, 3, 1},
		{"truncated two-byte varint", []byte{0x90}, 1, 1},
		{"varint overflow", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 1, 1},
		{"zero-count RLE run", []byte{0x00, 0x01}, 1, 1},
		{"RLE count past int32", []byte{0xfe, 0xff, 0xff, 0xff, 0x1f, 0x01}, 1, 1}, // (1<<32-1)<<1
		{"zero-group packed run", []byte{0x01, 0xff}, 1, 1},
		{"RLE value missing", []byte{0x02}, 1, 1},
		{"RLE value bytes cut", []byte{0x02, 0x01, 0x00}, 17, 1},
		// 8 does not fit in 3 bits, 0x200 = 512 not in 9.
		{"RLE value wider than 3 bits", []byte{0x02, 0x08}, 3, 1},
		{"RLE value wider than 9 bits", []byte{0x02, 0x00, 0x02}, 9, 1},
		// The 16 bits there hold 5 of the values.
		{"packed, cut short of the values", []byte{0x03, 0x88, 0xc6}, 3, 6},
		// Two groups declared, one byte there.
		{"packed groups past the bytes", []byte{0x05, 0xff}, 1, 9},
		{"runs end before the values", []byte{0x04, 0x01}, 1, 3},
	}
	for _, tt := range bad {
		out := make([]uint32, tt.n)
		if err := decodeHybrid(tt.b, tt.width, out); err == nil {
			t.Errorf("%s: decodeHybrid(% x, %d) into %d values = %v, want an error", tt.name, tt.b, tt.width, tt.n, out)
		}
	}
}

// TestDecodeLevels decodes definition levels of bit width 1 (one value
// byte an RLE run) and counts the non-null values.
func TestDecodeLevels(t *testing.T) {
	tests := []struct {
		name    string
		b       []byte
		want    []int16
		nonNull int
	}{
		{"RLE ones", []byte{0x08, 0x01}, []int16{1, 1, 1, 1}, 4},
		{"RLE zeros", []byte{0x06, 0x00}, []int16{0, 0, 0}, 0},
		{"RLE longer than asked", []byte{0x14, 0x01}, []int16{1, 1, 1}, 3},
		// 0xb2 = 0b10110010, from bit 0 up.
		{"packed", []byte{0x03, 0xb2}, []int16{0, 1, 0, 0, 1, 1, 0, 1}, 4},
		// Two groups: 0xff, then 0x01 = bit 0 only; 10 of the 16.
		{"packed two groups", []byte{0x05, 0xff, 0x01}, []int16{1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, 9},
		// 3 nulls, 0x05 = bits 0 and 2, 2 values.
		{"mixed runs", []byte{0x06, 0x00, 0x03, 0x05, 0x04, 0x01}, []int16{0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1}, 4},
		// 0x90 0x03 = 200<<1: 200 values.
		{"two-byte header", []byte{0x90, 0x03, 0x01}, slices.Repeat([]int16{1}, 200), 200},
		{"no levels", nil, []int16{}, 0},
	}
	for _, tt := range tests {
		got := make([]int16, len(tt.want))
		nonNull, err := decodeLevels(tt.b, got)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.Equal(got, tt.want) || nonNull != tt.nonNull {
			t.Errorf("%s: decodeLevels(% x) = %v, %d non-null; want %v, %d", tt.name, tt.b, got, nonNull, tt.want, tt.nonNull)
		}
	}

	bad := []struct {
		name string
		b    []byte
		n    int
	}{
		{"no runs", nil, 1},
		{"truncated varint", []byte{0x80}, 1},
		{"zero-count RLE run", []byte{0x00, 0x01}, 1},
		{"zero-group packed run", []byte{0x01, 0xff}, 1},
		{"RLE value missing", []byte{0x02}, 1},
		{"definition level 2", []byte{0x02, 0x02}, 1},
		{"definition level 255", []byte{0x08, 0xff}, 2},
		{"packed groups past the bytes", []byte{0x07, 0xff, 0xff}, 17},
		{"runs end before the levels", []byte{0x04, 0x01}, 3},
	}
	for _, tt := range bad {
		defs := make([]int16, tt.n)
		if nonNull, err := decodeLevels(tt.b, defs); err == nil {
			t.Errorf("%s: decodeLevels(% x) of %d = %v, %d non-null; want an error", tt.name, tt.b, tt.n, defs, nonNull)
		}
	}
}

// tfield is one field of a Thrift struct written by hand: val is an
// int32, int64, bool, []byte (a binary), []int32 (a list) or []tfield
// (a struct); typ may disagree with it, to write a field of the wrong
// type.
type tfield struct {
	id  int16
	typ thrift.TType
	val any
}

// compactStruct encodes fields as one struct with Thrift's compact
// protocol.
func compactStruct(t *testing.T, fields []tfield) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTCompactProtocolConf(buf, nil)
	ctx := context.Background()
	if err := writeCompact(ctx, p, fields); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeCompact(ctx context.Context, p thrift.TProtocol, fields []tfield) error {
	if err := p.WriteStructBegin(ctx, ""); err != nil {
		return err
	}
	for _, f := range fields {
		if err := p.WriteFieldBegin(ctx, "", f.typ, f.id); err != nil {
			return err
		}
		var err error
		switch v := f.val.(type) {
		case int32:
			err = p.WriteI32(ctx, v)
		case int64:
			err = p.WriteI64(ctx, v)
		case bool:
			err = p.WriteBool(ctx, v)
		case []byte:
			err = p.WriteBinary(ctx, v)
		case []int32:
			if err = p.WriteListBegin(ctx, thrift.I32, len(v)); err != nil {
				return err
			}
			for _, x := range v {
				if err = p.WriteI32(ctx, x); err != nil {
					return err
				}
			}
			err = p.WriteListEnd(ctx)
		case []tfield:
			err = writeCompact(ctx, p, v)
		default:
			err = fmt.Errorf("field %d: a value of type %T", f.id, v)
		}
		if err != nil {
			return err
		}
		if err := p.WriteFieldEnd(ctx); err != nil {
			return err
		}
	}
	if err := p.WriteFieldStop(ctx); err != nil {
		return err
	}
	return p.WriteStructEnd(ctx)
}

func i32(id int16, v int32) tfield { return tfield{id, thrift.I32, v} }

// readHeaderBytes reads one page header from b as chunkDecoder does and
// returns it with the bytes after it.
func readHeaderBytes(b []byte) (fullPageHeader, []byte, error) {
	var trans sliceTransport
	trans.b = b
	p := thrift.NewTCompactProtocolConf(&trans, &thrift.TConfiguration{MaxMessageSize: maxPageHeaderBytes})
	h, err := readFullPageHeader(p)
	return h, trans.b, err
}

// TestReadFullPageHeader reads page headers encoded by hand
// (parquet.thrift: PageHeader 1 type, 2 uncompressed_page_size, 3
// compressed_page_size, 4 crc, 5 data_page_header, 6 index_page_header,
// 7 dictionary_page_header, 8 data_page_header_v2), followed by a page
// body that must be left unread.
func TestReadFullPageHeader(t *testing.T) {
	stats := tfield{5, thrift.STRUCT, []tfield{ // Statistics
		{1, thrift.STRING, []byte("max")}, {2, thrift.STRING, []byte("min")},
		{3, thrift.I64, int64(4)}, {4, thrift.I64, int64(-7)},
		{5, thrift.STRING, []byte("zz")}, {6, thrift.STRING, []byte("aa")},
	}}
	tests := []struct {
		name   string
		fields []tfield
		want   fullPageHeader
	}{
		{"data page v1", []tfield{
			i32(1, pageData), i32(2, 100), i32(3, 60),
			{5, thrift.STRUCT, []tfield{i32(1, 10), i32(2, encRLEDictionary), i32(3, encRLE), i32(4, encRLE)}},
		}, fullPageHeader{typ: pageData, uncompressed: 100, compressed: 60, values: 10, encoding: encRLEDictionary, defEncoding: encRLE, compressedV2: true}},
		{"dictionary page", []tfield{
			i32(1, pageDictionary), i32(2, 40), i32(3, 33),
			{7, thrift.STRUCT, []tfield{i32(1, 5), i32(2, encPlainDict), {3, thrift.BOOL, false}}},
		}, fullPageHeader{typ: pageDictionary, uncompressed: 40, compressed: 33, values: 5, encoding: encPlainDict, compressedV2: true}},
		// num_nulls (field 2 of the v2 header) is not the encoding
		// (field 4).
		{"data page v2, not compressed", []tfield{
			i32(1, pageDataV2), i32(2, 80), i32(3, 80),
			{8, thrift.STRUCT, []tfield{
				i32(1, 12), i32(2, 2), i32(3, 12), i32(4, encRLEDictionary), i32(5, 3), i32(6, 0), {7, thrift.BOOL, false},
			}},
		}, fullPageHeader{typ: pageDataV2, uncompressed: 80, compressed: 80, values: 12, encoding: encRLEDictionary, defBytes: 3, compressedV2: false}},
		{"data page v2, compressed", []tfield{
			i32(1, pageDataV2), i32(2, 90), i32(3, 50),
			{8, thrift.STRUCT, []tfield{
				i32(1, 7), i32(2, 0), i32(3, 7), i32(4, encPlain), i32(5, 2), i32(6, 1), {7, thrift.BOOL, true},
			}},
		}, fullPageHeader{typ: pageDataV2, uncompressed: 90, compressed: 50, values: 7, encoding: encPlain, defBytes: 2, repBytes: 1, compressedV2: true}},
		// is_compressed is optional, true by default.
		{"data page v2 without is_compressed", []tfield{
			i32(1, pageDataV2), i32(2, 9), i32(3, 9),
			{8, thrift.STRUCT, []tfield{i32(1, 1), i32(2, 0), i32(3, 1), i32(4, encPlain), i32(5, 0), i32(6, 0)}},
		}, fullPageHeader{typ: pageDataV2, uncompressed: 9, compressed: 9, values: 1, encoding: encPlain, compressedV2: true}},
		// A crc, statistics in both page headers, an index page header,
		// and fields Parquet does not define (a list, a binary, a
		// nested struct, an i64 where an i32 is expected): all skipped.
		{"unknown and extra fields", []tfield{
			i32(1, pageData), i32(2, 100), i32(3, 60), i32(4, -12345),
			{5, thrift.STRUCT, []tfield{i32(1, 10), i32(2, encPlain), i32(3, encRLE), i32(4, encRLE), stats, {9, thrift.LIST, []int32{1, 2, 3}}}},
			{6, thrift.STRUCT, []tfield{}},
			{8, thrift.STRUCT, []tfield{{8, thrift.STRUCT, []tfield{stats}}}},
			{9, thrift.STRING, []byte("a field from a later format")},
			{10, thrift.STRUCT, []tfield{{1, thrift.STRUCT, []tfield{i32(1, 99)}}, {2, thrift.I64, int64(1 << 40)}}},
			{11, thrift.I64, int64(5)},
		}, fullPageHeader{typ: pageData, uncompressed: 100, compressed: 60, values: 10, encoding: encPlain, defEncoding: encRLE, compressedV2: true}},
		// Two sub-headers: the page type picks its own, whichever comes
		// last (a dictionary header after a data page's, as Arrow reads
		// it).
		{"data page v1 with a dictionary header after", []tfield{
			i32(1, pageData), i32(2, 100), i32(3, 60),
			{5, thrift.STRUCT, []tfield{i32(1, 100), i32(2, encPlain), i32(3, encRLE), i32(4, encRLE)}},
			{7, thrift.STRUCT, []tfield{i32(1, 5), i32(2, encPlainDict)}},
		}, fullPageHeader{typ: pageData, uncompressed: 100, compressed: 60, values: 100, encoding: encPlain, defEncoding: encRLE, compressedV2: true}},
		// The fields may come in any order.
		{"fields out of order", []tfield{
			{7, thrift.STRUCT, []tfield{i32(2, encPlain), i32(1, 3)}},
			i32(3, 24), i32(2, 24), i32(1, pageDictionary),
		}, fullPageHeader{typ: pageDictionary, uncompressed: 24, compressed: 24, values: 3, encoding: encPlain, compressedV2: true}},
	}
	body := []byte("the page body")
	for _, tt := range tests {
		b := compactStruct(t, tt.fields)
		h, rest, err := readHeaderBytes(append(b, body...))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if h != tt.want || !bytes.Equal(rest, body) {
			t.Errorf("%s: readFullPageHeader(% x) = %+v, leaving %q; want %+v, leaving %q", tt.name, b, h, rest, tt.want, body)
		}
	}

	v1 := []tfield{i32(1, 10), i32(2, encPlain), i32(3, encRLE), i32(4, encRLE)}
	whole := compactStruct(t, []tfield{i32(1, pageData), i32(2, 100), i32(3, 60), {5, thrift.STRUCT, v1}})
	bad := []struct {
		name string
		b    []byte
	}{
		{"no sizes", compactStruct(t, []tfield{i32(1, pageData), {5, thrift.STRUCT, v1}})},
		{"no compressed size", compactStruct(t, []tfield{i32(1, pageData), i32(2, 100), {5, thrift.STRUCT, v1}})},
		{"no uncompressed size", compactStruct(t, []tfield{i32(1, pageData), i32(3, 60), {5, thrift.STRUCT, v1}})},
		{"no type", compactStruct(t, []tfield{i32(2, 100), i32(3, 60), {5, thrift.STRUCT, v1}})},
		{"sizes of the wrong type", compactStruct(t, []tfield{i32(1, pageData), {2, thrift.I64, int64(100)}, {3, thrift.I64, int64(60)}, {5, thrift.STRUCT, v1}})},
		{"negative size", compactStruct(t, []tfield{i32(1, pageData), i32(2, 100), i32(3, -60), {5, thrift.STRUCT, v1}})},
		{"empty", nil},
		{"cut in the nested header", whole[:len(whole)-3]},
		{"no stop", whole[:len(whole)-1]},
	}
	for _, tt := range bad {
		if h, _, err := readHeaderBytes(tt.b); err == nil {
			t.Errorf("%s: readFullPageHeader(% x) = %+v, want an error", tt.name, tt.b, h)
		}
	}
}

// filePage is one page of a column chunk of a Parquet file, as its
// header gives it.
type filePage struct {
	group, leaf int
	column      string
	opt         bool // the column is optional
	codec       compress.Compression
	h           fullPageHeader
	header      int // the header's offset in the file
	body        int // the body's
}

// filePages walks the page headers of every column chunk of data.
func filePages(t *testing.T, data []byte) []filePage {
	t.Helper()
	var pages []filePage
	eachChunk(t, data, func(md *metadata.FileMetaData, g, c int, cc *metadata.ColumnChunkMetaData) error {
		start, length := chunkSpan(cc)
		at, values := int(start), int64(0)
		for values < cc.NumValues() {
			if at > int(start+length) {
				t.Fatalf("row group %d column %d: the pages run past the chunk", g, c)
			}
			h, rest, err := readHeaderBytes(data[at : start+length])
			if err != nil {
				t.Fatalf("row group %d column %d: the header at byte %d: %v", g, c, at, err)
			}
			body := int(start+length) - len(rest)
			col := md.Schema.Column(c)
			pages = append(pages, filePage{g, c, col.Name(), col.MaxDefinitionLevel() == 1, cc.Compression(), h, at, body})
			if h.typ == pageData || h.typ == pageDataV2 {
				values += int64(h.values)
			}
			at = body + max(0, int(h.compressed))
		}
		return nil
	})
	return pages
}

// eachChunk calls fn on every column chunk of the Parquet file data, in
// row group and column order, until fn returns an error, which it
// returns.
func eachChunk(t *testing.T, data []byte, fn func(md *metadata.FileMetaData, g, c int, cc *metadata.ColumnChunkMetaData) error) error {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := fn(md, g, c, cc); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkPageDecoded reads data as benchnote does (for the analysis too)
// and fails unless the typed reader took it and the page decoder read
// cols columns, every column the read uses.
func checkPageDecoded(t *testing.T, data []byte, cols int) {
	t.Helper()
	for _, opts := range []ReadOptions{{}, {ForAnalysis: true}} {
		rf, _, err := readRequestsParquet(bytes.NewReader(data), "run/requests.parquet", parquetBatchRows, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !rf.typed || rf.pageDecoded != cols {
			t.Errorf("ForAnalysis %v: typed %v, %d columns read by the page decoder; want typed, %d", opts.ForAnalysis, rf.typed, rf.pageDecoded, cols)
		}
	}
}

// pagesFile writes cols with Arrow's writer and the given properties;
// the columns named in required are written as required.
func pagesFile(t *testing.T, required map[string]bool, props []parquet.WriterProperty, cols ...typedCol) []byte {
	t.Helper()
	rec := typedRecord(t, required, cols...)
	defer rec.Release()
	return reqArrowParquet(t, rec, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
}

// fullColumns names the columns of cols without a null.
func fullColumns(cols []typedCol) map[string]bool {
	full := map[string]bool{}
	for _, c := range cols {
		if !slices.Contains(c.vals, nil) {
			full[c.name] = true
		}
	}
	return full
}

// typedUsed is how many of typedBase's columns a read uses: all but extra.
const typedUsed = 11

// pageLayout sums up the pages of a file.
type pageLayout struct {
	v1, v2, dict   int // pages of each type
	dictEncoded    int // data pages of dictionary indices
	plain          int // PLAIN data pages
	mostDataPages  int // the most data pages of one chunk
	chunksWithDict int
	chunks         int
	encodings      map[int32]int // data pages of each encoding
}

// layoutOf sums up pages, those of filePages.
func layoutOf(pages []filePage) pageLayout {
	l := pageLayout{encodings: map[int32]int{}}
	perChunk := map[[2]int]int{}
	dicts := map[[2]int]bool{}
	for _, p := range pages {
		k := [2]int{p.group, p.leaf}
		if _, ok := perChunk[k]; !ok {
			l.chunks++
			perChunk[k] = 0
		}
		switch p.h.typ {
		case pageDictionary:
			l.dict++
			dicts[k] = true
			continue
		case pageData:
			l.v1++
		case pageDataV2:
			l.v2++
		}
		perChunk[k]++
		l.encodings[p.h.encoding]++
		l.mostDataPages = max(l.mostDataPages, perChunk[k])
		if p.h.encoding == encPlain {
			l.plain++
		} else {
			l.dictEncoded++
		}
	}
	l.chunksWithDict = len(dicts)
	return l
}

// TestPageDecoderArrowLayouts writes typedBase with Arrow in every layout
// the page decoder reads — data pages v1 and v2, each codec it knows,
// dictionary on and off, pages of the default size and pages of a few
// rows, optional columns with nulls and required ones — and checks that
// the file is laid out so, that the page decoder reads every column, and
// that the rows are pqarrow's.
func TestPageDecoderArrowLayouts(t *testing.T) {
	const n = 300
	base := typedBase(n)
	for _, v2 := range []bool{false, true} {
		for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd} {
			for _, dict := range []bool{false, true} {
				for _, small := range []bool{false, true} {
					for _, required := range []bool{false, true} {
						version := parquet.DataPageV1
						name := fmt.Sprintf("v1-%s-%v", codec, map[bool]string{false: "plain", true: "dict"}[dict])
						if v2 {
							version = parquet.DataPageV2
							name = "v2" + name[2:]
						}
						props := []parquet.WriterProperty{
							parquet.WithCompression(codec), parquet.WithDictionaryDefault(dict),
							parquet.WithDataPageVersion(version), parquet.WithMaxRowGroupLength(128),
						}
						if small {
							name += "-small"
							props = append(props, parquet.WithDataPageSize(96), parquet.WithBatchSize(8))
						}
						var req map[string]bool
						if required {
							name += "-required"
							req = fullColumns(base)
						}
						t.Run(name, func(t *testing.T) {
							data := pagesFile(t, req, props, base...)
							l := layoutOf(filePages(t, data))
							if l.chunks != 3*len(base) {
								t.Errorf("%d column chunks, want 3 row groups of %d", l.chunks, len(base))
							}
							if v2 && (l.v1 != 0 || l.v2 == 0) || !v2 && (l.v2 != 0 || l.v1 == 0) {
								t.Errorf("%d v1 and %d v2 data pages", l.v1, l.v2)
							}
							if dict && (l.plain != 0 || l.chunksWithDict != l.chunks) || !dict && (l.dictEncoded != 0 || l.dict != 0) {
								t.Errorf("%d PLAIN and %d dictionary-encoded data pages, %d chunks of %d with a dictionary", l.plain, l.dictEncoded, l.chunksWithDict, l.chunks)
							}
							if small && l.mostDataPages < 8 || !small && l.mostDataPages != 1 {
								t.Errorf("at most %d data pages a chunk", l.mostDataPages)
							}
							if !readBothWays(t, data) {
								t.Fatal("not read by the typed reader")
							}
							checkPageDecoded(t, data, typedUsed)
						})
					}
				}
			}
		}
	}
}

// TestPageDecoderArrowEdges covers the layouts a plain run does not:
// PLAIN_DICTIONARY (format 1.0) pages, a dictionary given up for PLAIN
// pages half way through a chunk, columns of nothing but nulls, INT32
// and INT64 columns where DOUBLE or INT64 are usual, and one row.
func TestPageDecoderArrowEdges(t *testing.T) {
	const n = 300
	base := typedBase(n)
	// The status stays on the failed requests, whose null usage it
	// allows.
	allNull := base
	for i := range n {
		for _, name := range []string{"max_tokens", "t_first_text", "text_chunks"} {
			allNull = withValue(allNull, name, i, nil)
		}
		if i%7 != 3 {
			allNull = withValue(allNull, "status", i, nil)
		}
	}
	retypedBase := retyped(retyped(retyped(base, "prompt_tokens", arrow.PrimitiveTypes.Int32, func(v any) any { return int32(v.(int64)) }),
		"t_request_sent", arrow.PrimitiveTypes.Int64, func(v any) any { return int64(v.(float64)) }),
		"TTFT_ms", arrow.PrimitiveTypes.Int32, func(v any) any { return int32(v.(float64)) })
	tests := []struct {
		name  string
		cols  []typedCol
		props []parquet.WriterProperty
		check func(pageLayout) bool
	}{
		{"format 1.0 dictionary", base,
			[]parquet.WriterProperty{parquet.WithVersion(parquet.V1_0), parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Snappy)},
			func(l pageLayout) bool { return l.encodings[encPlainDict] == l.v1 }},
		{"dictionary fallback, v1", base,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(256), parquet.WithBatchSize(16)},
			func(l pageLayout) bool { return l.dictEncoded > 0 && l.plain > 0 }},
		{"dictionary fallback, v2", base,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(256), parquet.WithBatchSize(16),
				parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd)},
			func(l pageLayout) bool { return l.dictEncoded > 0 && l.plain > 0 && l.v1 == 0 }},
		{"null columns, v1 dictionary", allNull,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDataPageSize(96), parquet.WithBatchSize(8)}, nil},
		{"null columns, v2 plain", allNull,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Gzip)}, nil},
		{"null columns, v2 dictionary", allNull,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDataPageVersion(parquet.DataPageV2)}, nil},
		{"int32 and int64 columns, dictionary", retypedBase,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDataPageSize(96), parquet.WithBatchSize(8)}, nil},
		{"int32 and int64 columns, plain v2", retypedBase,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)}, nil},
		{"one row", typedBase(1),
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDataPageVersion(parquet.DataPageV2)}, nil},
	}
	for _, tt := range tests {
		for _, required := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/required=%v", tt.name, required), func(t *testing.T) {
				var req map[string]bool
				if required {
					req = fullColumns(tt.cols)
				}
				data := pagesFile(t, req, tt.props, tt.cols...)
				if l := layoutOf(filePages(t, data)); tt.check != nil && !tt.check(l) {
					t.Errorf("pages laid out as %+v", l)
				}
				if !readBothWays(t, data) {
					t.Fatal("not read by the typed reader")
				}
				checkPageDecoded(t, data, typedUsed)
			})
		}
	}
}

// xitongsysPagesSchema is a schema of columns the typed reader reads, for
// github.com/xitongsys/parquet-go; %[1]s is the encoding of the strings
// and %[2]s of the numbers.
const xitongsysPagesSchema = `{"Tag": "name=parquet_go_root, repetitiontype=REQUIRED", "Fields": [
	{"Tag": "name=request_id, type=BYTE_ARRAY, convertedtype=UTF8, encoding=%[1]s"},
	{"Tag": "name=prompt_tokens, type=INT64, encoding=%[2]s"},
	{"Tag": "name=completion_tokens, type=INT64, repetitiontype=OPTIONAL, encoding=%[2]s"},
	{"Tag": "name=TTFT_ms, type=DOUBLE, repetitiontype=OPTIONAL, encoding=%[2]s"},
	{"Tag": "name=E2E_ms, type=DOUBLE, repetitiontype=OPTIONAL, encoding=%[2]s"},
	{"Tag": "name=t_request_sent, type=DOUBLE, encoding=%[2]s"},
	{"Tag": "name=status, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL, encoding=%[1]s"},
	{"Tag": "name=max_tokens, type=INT32, repetitiontype=OPTIONAL, encoding=%[2]s"}
]}`

// TestPageDecoderXitongsys reads files github.com/xitongsys/parquet-go
// writes (data pages v1, its own RLE runs of levels), in small pages
// and large, PLAIN and dictionary-encoded, with each codec: the page
// decoder reads every column, and the rows are pqarrow's.
func TestPageDecoderXitongsys(t *testing.T) {
	var rows []string
	for i := range 500 {
		row := fmt.Sprintf(`{"request_id": "x%d", "prompt_tokens": %d, "completion_tokens": %d, "TTFT_ms": %g, "E2E_ms": %g,
			"t_request_sent": %g, "status": "ok", "max_tokens": %d}`, i, 100+i%37, 2+i%50, 40.5+float64(i%13), 900.25+float64(i%29), 1.79e9+float64(i)/8, 64<<(i%3))
		switch {
		case i%7 == 3:
			row = fmt.Sprintf(`{"request_id": "x%d", "prompt_tokens": 9, "completion_tokens": null, "TTFT_ms": null, "E2E_ms": null,
				"t_request_sent": %g, "status": "HTTP 500", "max_tokens": null}`, i, 1.79e9+float64(i)/8)
		case i%11 == 5:
			row = fmt.Sprintf(`{"request_id": "x%d", "prompt_tokens": 9, "completion_tokens": 0, "TTFT_ms": null, "E2E_ms": null,
				"t_request_sent": %g, "status": null, "max_tokens": 16}`, i, 1.79e9+float64(i)/8)
		}
		rows = append(rows, row)
	}
	for _, tt := range []struct {
		codec             xparquet.CompressionCodec
		strings, numbers  string
		dictPages         bool
		pageSize, rowSize int64
		minPages, groups  int // the most data pages of a chunk, at least; row groups
	}{
		{xparquet.CompressionCodec_UNCOMPRESSED, "PLAIN", "PLAIN", false, 8 << 10, 128 << 20, 1, 1},
		{xparquet.CompressionCodec_SNAPPY, "PLAIN_DICTIONARY", "PLAIN", true, 8 << 10, 128 << 20, 1, 1},
		{xparquet.CompressionCodec_GZIP, "PLAIN", "PLAIN", false, 64, 128 << 20, 8, 1},
		{xparquet.CompressionCodec_ZSTD, "RLE_DICTIONARY", "PLAIN_DICTIONARY", true, 64, 128 << 20, 8, 1},
		{xparquet.CompressionCodec_SNAPPY, "PLAIN_DICTIONARY", "RLE_DICTIONARY", true, 200, 4 << 10, 2, 10},
	} {
		name := fmt.Sprintf("%s-%s-%s-%d-%d", tt.codec, tt.strings, tt.numbers, tt.pageSize, tt.rowSize)
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "requests.parquet")
			writeXitongsys(t, path, fmt.Sprintf(xitongsysPagesSchema, tt.strings, tt.numbers), rows, func(pw *writer.JSONWriter) {
				pw.CompressionType, pw.PageSize, pw.RowGroupSize = tt.codec, tt.pageSize, tt.rowSize
			})
			data := readFile(t, path)
			l := layoutOf(filePages(t, data))
			if tt.dictPages != (l.dict > 0) || l.v2 != 0 || l.mostDataPages < tt.minPages || l.chunks < 8*tt.groups {
				t.Errorf("pages laid out as %+v", l)
			}
			if !readBothWays(t, data) {
				t.Fatal("not read by the typed reader")
			}
			checkPageDecoded(t, data, 8)
		})
	}
}

// arrowIndexWidth is the widest bit width of dictionary indices that
// Arrow's reader finds in the dictionary-encoded data pages of data,
// where it looks for it, in the bytes its codecs decompress (gzip without
// its CRC checked); 0 when there is none.
//
// Arrow Go v17 makes a slice as long as the largest dictionary index it
// decodes before it checks the index (Int64DictConverter.ensure, called
// by IsValid), so that indices of 4 bytes can ask for gigabytes: a page
// whose corrupt bit width is above 16 is no test of the page decoder but
// of the machine's memory.
func arrowIndexWidth(t *testing.T, data []byte) int {
	t.Helper()
	width := 0
	for _, p := range filePages(t, data) {
		if p.h.typ == pageDictionary || p.h.encoding == encPlain {
			continue
		}
		body := data[p.body : p.body+int(p.h.compressed)]
		var page []byte
		if p.h.typ == pageDataV2 {
			if p.h.defBytes < 0 || int(p.h.defBytes) > len(body) {
				continue
			}
			page = body[p.h.defBytes:]
			if p.h.compressedV2 {
				page = arrowDecompress(p.codec, page, int(p.h.uncompressed-p.h.defBytes))
			}
		} else {
			page = arrowDecompress(p.codec, body, int(p.h.uncompressed))
			if p.opt {
				if len(page) < 4 {
					continue
				}
				k := int64(binary.LittleEndian.Uint32(page))
				if 4+k >= int64(len(page)) {
					continue
				}
				page = page[4+k:]
			}
		}
		if len(page) > 0 {
			width = max(width, int(page[0]))
		}
	}
	return width
}

// arrowDecompress decompresses a page body of n bytes as Arrow's codecs
// do, nil when they fail.
func arrowDecompress(codec compress.Compression, body []byte, n int) []byte {
	switch codec {
	case compress.Codecs.Uncompressed:
		return body
	case compress.Codecs.Snappy:
		b, err := snappy.Decode(nil, body)
		if err != nil {
			return nil
		}
		return b
	case compress.Codecs.Gzip:
		r, err := kgzip.NewReader(bytes.NewReader(body))
		if err != nil || n < 0 {
			return nil
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil
		}
		return b
	case compress.Codecs.Zstd:
		b, err := zstdDecoder().DecodeAll(body, nil)
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}

// pageDecoderError decodes every column chunk of data the page decoder
// reads and returns the first error it finds on a page, nil when it
// finds none.
func pageDecoderError(t *testing.T, data []byte) error {
	t.Helper()
	return eachChunk(t, data, func(md *metadata.FileMetaData, g, c int, cc *metadata.ColumnChunkMetaData) error {
		if chunkUnsupported(md, cc, int64(len(data))) != nil {
			return nil
		}
		col := md.Schema.Column(c)
		if err := chunkError(data, cc, col.PhysicalType(), col.MaxDefinitionLevel() == 1); err != nil && !errors.Is(err, errPagesUnsupported) {
			return fmt.Errorf("row group %d, column %s: %w", g, col.Name(), err)
		}
		return nil
	})
}

// chunkError decodes the pages of column chunk cc with a chunkDecoder.
func chunkError(data []byte, cc *metadata.ColumnChunkMetaData, phys parquet.Type, opt bool) error {
	d := newChunkDecoder(phys, opt)
	defer d.release()
	if err := d.reset(bytes.NewReader(data), cc); err != nil {
		return err
	}
	for {
		err := d.next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = d.decodeValues()
		}
		if err != nil {
			return err
		}
	}
}

// TestPageDecoderCorruptPages flips bytes inside the page bodies (not the
// headers) of valid files: the page decoder may decode garbage, which
// must then be what pqarrow alone gives (the same rows or the same
// error), or refuse the page as corrupt (readBothWays allows it), without
// a panic.
//
// Two kinds of corruption have no reference to compare with, as Arrow
// Go v17 mishandles them. A page whose dictionary indices Arrow would find
// wider than 16 bits is not read at all (see arrowIndexWidth). And a run
// of definition levels or dictionary indices that claims more bytes than
// its page holds is read by Arrow from past its end: the RLE decoder of
// the levels is given the page from the levels on (LevelDecoder.SetData
// passes data[4:], not data[4:4+nbytes]), and unpack32Avx2 unpacks a whole
// batch from a pooled bytes.Buffer whatever io.CopyN could copy into it,
// so the missing bytes are whatever the buffer last held and pqarrow's
// rows differ from read to read. Both the page decoder must refuse, and
// the file is refused with its error, never left to Arrow's readers.
func TestPageDecoderCorruptPages(t *testing.T) {
	base := typedBase(120)
	for _, o := range []reqParquetOpts{
		{compress.Codecs.Zstd, true, 0}, {compress.Codecs.Snappy, false, 0},
		{compress.Codecs.Snappy, true, 50}, {compress.Codecs.Uncompressed, true, 0}, {compress.Codecs.Gzip, false, 0},
	} {
		data := typedFile(t, o, base...)
		compared, typed, wide, overrun := 0, 0, 0, 0
		for _, p := range filePages(t, data) {
			if p.column == "extra" {
				continue // not read
			}
			size := int(p.h.compressed)
			for _, at := range slices.Compact([]int{0, 1, size / 3, size / 2, size - 5, size - 1}) {
				if at < 0 || at >= size {
					continue
				}
				for _, flip := range []byte{0x01, 0x80, 0xff} {
					bad := bytes.Clone(data)
					bad[p.body+at] ^= flip
					name := fmt.Sprintf("%s-%d/group%d/%s/page@%d/byte%d^%02x", o, o.rowGroup, p.group, p.column, p.header, at, flip)
					// The pages Arrow mishandles are refused by the page
					// decoder, with the row group and page, before Arrow's
					// readers see them (pqarrow alone is not run on the
					// wide indices: it would ask for gigabytes).
					if arrowIndexWidth(t, bad) > 16 {
						wide++
						t.Run(name, func(t *testing.T) {
							withinBudget(t, "ReadRequestsParquet", len(bad), func() {
								if _, err := ReadRequestsParquet(bytes.NewReader(bad), "run/requests.parquet"); !isCorruptPage(err) {
									t.Errorf("error %v; want the page decoder's refusal", err)
								}
							})
						})
						continue
					}
					if err := pageDecoderError(t, bad); err != nil && (strings.Contains(err.Error(), "definition levels:") || strings.Contains(err.Error(), "dictionary indices:")) {
						overrun++
						t.Run(name, func(t *testing.T) {
							if _, readErr := ReadRequestsParquet(bytes.NewReader(bad), "run/requests.parquet"); !isCorruptPage(readErr) {
								t.Errorf("error %v, although the page decoder finds %v", readErr, err)
							}
						})
						continue
					}
					compared++
					t.Run(name, func(t *testing.T) {
						if readBothWays(t, bad) {
							typed++
						}
					})
				}
			}
		}
		t.Logf("%s-%d: %d corrupt files compared with pqarrow, %d of them read by the typed reader; %d with runs past their page, %d with indices too wide for Arrow",
			o, o.rowGroup, compared, typed, overrun, wide)
	}
}

// readFile returns the bytes of the file at path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fieldAt returns the offset in the Thrift compact struct b of the header
// of the field at path (a field id, then ids of fields nested in it), or
// -1.
func fieldAt(t *testing.T, b []byte, path ...int16) int {
	t.Helper()
	var trans sliceTransport
	trans.b = b
	p := thrift.NewTCompactProtocolConf(&trans, nil)
	ctx := context.Background()
	for depth := range path {
		if _, err := p.ReadStructBegin(ctx); err != nil {
			t.Fatal(err)
		}
		for {
			at := len(b) - len(trans.b)
			_, typ, id, err := p.ReadFieldBegin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if typ == thrift.STOP {
				return -1
			}
			if id == path[depth] {
				if depth == len(path)-1 {
					return at
				}
				break
			}
			if err := p.Skip(ctx, typ); err != nil {
				t.Fatal(err)
			}
		}
	}
	return -1
}

// TestPageHeaderFieldsArrowRequires changes one byte of one data or
// dictionary page header of a valid file, so that a field Arrow's page
// reader requires is missing (written as an i64 where parquet.thrift has
// an i32, which both readers skip) or the page's type names a header the
// page does not have. Arrow's reader then fails, and so does the pqarrow
// path; the page decoder must fail too (the file then goes to pqarrow),
// not decode the page with a default.
func TestPageHeaderFieldsArrowRequires(t *testing.T) {
	base := typedBase(60)
	asI64 := func(b []byte, at int) { b[at] = b[at]&0xf0 | 0x06 } // a short-form field header: id delta, type
	type mutation struct {
		name   string
		column string
		v2     bool // a file of data pages v2
		dict   bool
		typ    int32 // the page type to change
		change func(t *testing.T, hdr []byte)
	}
	field := func(path ...int16) func(*testing.T, []byte) {
		return func(t *testing.T, hdr []byte) {
			at := fieldAt(t, hdr, path...)
			if at < 0 {
				t.Fatalf("no field %v in the header % x", path, hdr)
			}
			asI64(hdr, at)
		}
	}
	pageType := func(to byte) func(*testing.T, []byte) {
		return func(t *testing.T, hdr []byte) {
			at := fieldAt(t, hdr, 1)
			if at != 0 || hdr[0] != 0x15 {
				t.Fatalf("the header % x does not start with its type", hdr)
			}
			hdr[1] = to // zigzag: 0 DATA_PAGE, 6 DATA_PAGE_V2
		}
	}
	for _, m := range []mutation{
		{"v1 encoding as an i64", "prompt_tokens", false, false, pageData, field(5, 2)},
		{"v1 definition_level_encoding as an i64, required column", "prompt_tokens", false, false, pageData, field(5, 3)},
		{"v1 repetition_level_encoding as an i64", "TTFT_ms", false, true, pageData, field(5, 4)},
		{"dictionary encoding as an i64", "status", false, true, pageDictionary, field(7, 2)},
		{"v2 num_rows as an i64", "TTFT_ms", true, false, pageDataV2, field(8, 3)},
		{"v2 definition_levels_byte_length as an i64, required column", "prompt_tokens", true, false, pageDataV2, field(8, 5)},
		{"a v1 page typed DATA_PAGE_V2, required column", "prompt_tokens", false, false, pageData, pageType(0x06)},
		{"a v2 page typed DATA_PAGE, required column", "prompt_tokens", true, false, pageDataV2, pageType(0x00)},
	} {
		t.Run(m.name, func(t *testing.T) {
			version := parquet.DataPageV1
			if m.v2 {
				version = parquet.DataPageV2
			}
			data := pagesFile(t, fullColumns(base), []parquet.WriterProperty{
				parquet.WithDictionaryDefault(m.dict), parquet.WithDataPageVersion(version), parquet.WithCompression(compress.Codecs.Snappy),
			}, base...)
			changed := 0
			for _, p := range filePages(t, data) {
				if p.column != m.column || p.h.typ != m.typ {
					continue
				}
				m.change(t, data[p.header:p.body])
				// The header keeps its length and page size, as the
				// checksum walk reads it.
				var trans sliceTransport
				trans.b = data[p.header:]
				h, err := readPageHeader(thrift.NewTCompactProtocolConf(&trans, nil))
				if err != nil || len(data)-len(trans.b) != p.body || h.size != p.h.compressed {
					t.Fatalf("the changed header reads as %+v, %v", h, err)
				}
				changed++
			}
			if changed == 0 {
				t.Fatal("no page to change")
			}
			readBothWays(t, data)
		})
	}
}

// TestDecodeHybridRunsOfNothing decodes runs that hold no bytes: a
// bit-packed run of width 0 (header 0x05: two groups, sixteen zeros, no
// bytes), which a writer may emit for a one-value dictionary, is not
// corrupt; an empty bit-packed run (header 0x01: zero groups) is, as
// Arrow's decoder has it.
func TestDecodeHybridRunsOfNothing(t *testing.T) {
	out := make([]uint32, 3)
	if err := decodeHybrid([]byte{0x01, 0x06, 0x02}, 2, out); err == nil {
		t.Errorf("empty run then RLE: %v; want an error", out)
	}
	out = make([]uint32, 10)
	for i := range out {
		out[i] = 9
	}
	if err := decodeHybrid([]byte{0x05}, 0, out); err != nil || !slices.Equal(out, make([]uint32, 10)) {
		t.Errorf("width-0 bit-packed run: %v, %v; want ten zeros", out, err)
	}
}

// TestCheckSize checks the page sizes the page decoder believes before it
// allocates them: a fixed-width page may need at most 10 bytes a value
// (+64), and no page may claim more than its codec can expand its
// compressed bytes to (Snappy 22×, deflate 1032×, zstd 32768×, +64); a
// claim beyond either is a corrupt page. A page of more than
// maxBytePageLength is left to Arrow.
func TestCheckSize(t *testing.T) {
	tests := []struct {
		name  string
		phys  parquet.Type
		codec compress.Compression
		h     fullPageHeader
		want  string // "", "corrupt" or "unsupported"
	}{
		{"doubles within 10 bytes a value", parquet.Types.Double, compress.Codecs.Zstd, fullPageHeader{values: 100, uncompressed: 1064, compressed: 500}, ""},
		{"doubles beyond", parquet.Types.Double, compress.Codecs.Zstd, fullPageHeader{values: 100, uncompressed: 1065, compressed: 500}, "corrupt"},
		{"snappy at 22×", parquet.Types.ByteArray, compress.Codecs.Snappy, fullPageHeader{values: 1, uncompressed: 22*100 + 64, compressed: 100}, ""},
		{"snappy beyond", parquet.Types.ByteArray, compress.Codecs.Snappy, fullPageHeader{values: 1, uncompressed: 22*100 + 65, compressed: 100}, "corrupt"},
		{"zstd 256 MiB from 100 bytes", parquet.Types.ByteArray, compress.Codecs.Zstd, fullPageHeader{values: 1, uncompressed: 256 << 20, compressed: 100}, "corrupt"},
		{"gzip at 1032×", parquet.Types.ByteArray, compress.Codecs.Gzip, fullPageHeader{values: 1, uncompressed: 1032 * 1000, compressed: 1000}, ""},
		{"uncompressed, one byte more", parquet.Types.ByteArray, compress.Codecs.Uncompressed, fullPageHeader{values: 1, uncompressed: 1065, compressed: 1000}, "corrupt"},
		{"a page over 256 MiB", parquet.Types.ByteArray, compress.Codecs.Zstd, fullPageHeader{values: 1, uncompressed: 256<<20 + 1, compressed: 64 << 20}, "unsupported"},
	}
	for _, tt := range tests {
		d := &chunkDecoder{phys: tt.phys, codec: tt.codec}
		err := d.checkSize(tt.h)
		var cp *corruptPage
		got := ""
		switch {
		case errors.As(err, &cp):
			got = "corrupt"
		case errors.Is(err, errPagesUnsupported):
			got = "unsupported"
		case err != nil:
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDictionarySizedByItsBytes checks that a dictionary page whose
// header claims more values than its bytes hold is refused before the
// dictionary is allocated: 16 bytes hold 2 doubles (or 4 BYTE_ARRAY
// lengths), not the 2^28 the header claims.
func TestDictionarySizedByItsBytes(t *testing.T) {
	for _, phys := range []parquet.Type{parquet.Types.Double, parquet.Types.Int64, parquet.Types.Int32, parquet.Types.ByteArray} {
		d := newChunkDecoder(phys, false)
		d.codec, d.left = compress.Codecs.Uncompressed, 1<<28
		h := fullPageHeader{typ: pageDictionary, uncompressed: 16, compressed: 16, values: 1 << 28, encoding: encPlain}
		err := d.readDictionary(h, make([]byte, 16))
		if err == nil || !strings.Contains(err.Error(), "a dictionary page of 16 bytes for 268435456 values") {
			t.Errorf("%v: error %v", phys, err)
		}
		if c := cap(d.dictFloats) + cap(d.dictInts) + cap(d.dictInt32s) + cap(d.dictBytes); c > 16 {
			t.Errorf("%v: %d values allocated for the dictionary", phys, c)
		}
		d.release()
	}
}
