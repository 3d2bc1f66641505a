package parquetpage

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"
)

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

// TestReadPageHeaderWalkFields reads the fields the checksum walk uses:
// the crc (field 4) and num_values of the data page header, v1 (field 5)
// or v2 (field 8), read last whatever the page type (-1 when there is
// none; a dictionary page header's count is not one).
func TestReadPageHeaderWalkFields(t *testing.T) {
	v1 := tfield{5, thrift.STRUCT, []tfield{i32(1, 10), i32(2, encPlain), i32(3, encRLE), i32(4, encRLE)}}
	v2 := tfield{8, thrift.STRUCT, []tfield{i32(1, 7), i32(2, 0), i32(3, 7), i32(4, encPlain), i32(5, 0), i32(6, 0)}}
	dict := tfield{7, thrift.STRUCT, []tfield{i32(1, 5), i32(2, encPlain)}}
	tests := []struct {
		name       string
		fields     []tfield
		crc        uint32
		hasCRC     bool
		dataValues int32
	}{
		{"v1 with a crc", []tfield{i32(1, pageData), i32(2, 9), i32(3, 9), i32(4, -2), v1}, 0xfffffffe, true, 10},
		{"v2 without", []tfield{i32(1, pageDataV2), i32(2, 9), i32(3, 9), v2}, 0, false, 7},
		{"dictionary", []tfield{i32(1, pageDictionary), i32(2, 9), i32(3, 9), i32(4, 77), dict}, 77, true, -1},
		{"v1 then v2, typed dictionary", []tfield{i32(1, pageDictionary), i32(2, 9), i32(3, 9), v1, dict, v2}, 0, false, 7},
		{"no sizes", []tfield{i32(1, pageData), v1}, 0, false, 10},
	}
	for _, tt := range tests {
		var trans sliceTransport
		trans.b = compactStruct(t, tt.fields)
		h, err := readPageHeader(thrift.NewTCompactProtocolConf(&trans, nil))
		if err != nil || h.crc != tt.crc || h.hasCRC != tt.hasCRC || h.dataValues != tt.dataValues {
			t.Errorf("%s: crc %08x (%v), data values %d, %v; want %08x (%v), %d", tt.name, h.crc, h.hasCRC, h.dataValues, err, tt.crc, tt.hasCRC, tt.dataValues)
		}
	}
}
