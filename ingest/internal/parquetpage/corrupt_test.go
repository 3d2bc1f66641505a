package parquetpage

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/thrift/lib/go/thrift"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// TestCorruptPages flips bytes inside the page bodies (not the headers)
// of valid files and decodes the column both ways: the decoder may decode
// garbage, which must then be what Arrow's column reader gives, or fail
// (a *CorruptError naming the page's row group and page, or another
// error, which leaves the file to Arrow), without a panic.
//
// Two kinds of corruption have no reference to compare with, as Arrow
// Go v17 mishandles them. A page whose dictionary indices Arrow would find
// wider than 16 bits is not read with Arrow at all (see arrowIndexWidth).
// And a run of definition levels or dictionary indices that claims more
// bytes than its page holds is read by Arrow from past its end: the RLE
// decoder of the levels is given the page from the levels on
// (LevelDecoder.SetData passes data[4:], not data[4:4+nbytes]), and
// unpack32Avx2 unpacks a whole batch from a pooled bytes.Buffer whatever
// io.CopyN could copy into it, so the missing bytes are whatever the
// buffer last held and Arrow's values differ from read to read. Both the
// decoder must refuse as corrupt.
func TestCorruptPages(t *testing.T) {
	for _, o := range []struct {
		codec    compress.Compression
		dict     bool
		rowGroup int64
	}{
		{compress.Codecs.Zstd, true, 0}, {compress.Codecs.Snappy, false, 0},
		{compress.Codecs.Snappy, true, 50}, {compress.Codecs.Uncompressed, true, 0}, {compress.Codecs.Gzip, false, 0},
	} {
		props := []parquet.WriterProperty{parquet.WithCompression(o.codec), parquet.WithDictionaryDefault(o.dict)}
		if o.rowGroup > 0 {
			props = append(props, parquet.WithMaxRowGroupLength(o.rowGroup))
		}
		data := testFile(t, 120, false, props...)
		compared, decoded, wide, overrun := 0, 0, 0, 0
		for _, p := range filePages(t, data) {
			size := int(p.h.compressed)
			for _, at := range slices.Compact([]int{0, 1, size / 3, size / 2, size - 5, size - 1}) {
				if at < 0 || at >= size {
					continue
				}
				for _, flip := range []byte{0x01, 0x80, 0xff} {
					bad := bytes.Clone(data)
					bad[p.body+at] ^= flip
					name := fmt.Sprintf("%s-%v-%d/group%d/%s/page@%d/byte%d^%02x", o.codec, o.dict, o.rowGroup, p.group, p.column, p.header, at, flip)
					// Arrow is not run on the wide indices: it would ask for
					// gigabytes. The decoder must refuse them within the
					// fuzz budget.
					wideIndices := arrowIndexWidth(t, bad) > 16
					var got columnData
					var err error
					decode := func() { got, err = decodePages(t, bad, p.leaf, false) }
					if wideIndices {
						fuzzbudget.Check(t, "DecodeColumn", len(bad), decode)
					} else {
						decode()
					}
					var cp *CorruptError
					if errors.As(err, &cp) && (cp.Group != p.group+1 || p.data > 0 && cp.Page != p.data) {
						t.Errorf("%s: %v; want row group %d, page %d", name, err, p.group+1, p.data)
					}
					if wideIndices {
						wide++
						if cp == nil {
							t.Errorf("%s: %v; want a *CorruptError", name, err)
						}
						continue
					}
					if err != nil && (strings.Contains(err.Error(), "definition levels:") || strings.Contains(err.Error(), "dictionary indices:")) {
						overrun++
						if cp == nil {
							t.Errorf("%s: %v; want a *CorruptError", name, err)
						}
						continue
					}
					compared++
					if err != nil {
						continue // the caller reads the file with Arrow
					}
					decoded++
					want, arrowErr := arrowColumn(t, bad, p.leaf)
					if arrowErr != nil || !reflect.DeepEqual(got, want) {
						t.Errorf("%s: decoded %d levels, defs %v, values %v; Arrow %d, %v, %v (%v)",
							name, got.levels, got.defs, got.values, want.levels, want.defs, want.values, arrowErr)
					}
				}
			}
		}
		t.Logf("%s-%v-%d: %d corrupt columns compared with Arrow, %d of them decoded; %d with runs past their page, %d with indices too wide for Arrow",
			o.codec, o.dict, o.rowGroup, compared, decoded, overrun, wide)
	}
}

// TestPageHeaderFieldsArrowRequires changes one byte of one data or
// dictionary page header of a valid file, so that a field Arrow's page
// reader requires is missing (written as an i64 where parquet.thrift has
// an i32, which both readers skip) or the page's type names a header the
// page does not have. Arrow's reader then fails; the decoder must fail
// too, not decode the page with a default.
func TestPageHeaderFieldsArrowRequires(t *testing.T) {
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
		{"v1 encoding as an i64", "count", false, false, pageData, field(5, 2)},
		{"v1 definition_level_encoding as an i64, required column", "count", false, false, pageData, field(5, 3)},
		{"v1 repetition_level_encoding as an i64", "ms", false, true, pageData, field(5, 4)},
		{"dictionary encoding as an i64", "status", false, true, pageDictionary, field(7, 2)},
		{"v2 num_rows as an i64", "ms", true, false, pageDataV2, field(8, 3)},
		{"v2 definition_levels_byte_length as an i64, required column", "count", true, false, pageDataV2, field(8, 5)},
		{"a v1 page typed DATA_PAGE_V2, required column", "count", false, false, pageData, pageType(0x06)},
		{"a v2 page typed DATA_PAGE, required column", "count", true, false, pageDataV2, pageType(0x00)},
	} {
		t.Run(m.name, func(t *testing.T) {
			version := parquet.DataPageV1
			if m.v2 {
				version = parquet.DataPageV2
			}
			data := testFile(t, 60, true,
				parquet.WithDictionaryDefault(m.dict), parquet.WithDataPageVersion(version), parquet.WithCompression(compress.Codecs.Snappy))
			changed, leaf := 0, -1
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
				if err != nil || len(data)-len(trans.b) != p.body || h.compressed != p.h.compressed {
					t.Fatalf("the changed header reads as %+v, %v", h, err)
				}
				changed, leaf = changed+1, p.leaf
			}
			if changed == 0 {
				t.Fatal("no page to change")
			}
			if _, err := arrowColumn(t, data, leaf); err == nil {
				t.Errorf("Arrow reads the column")
			}
			if got, err := decodePages(t, data, leaf, false); err == nil {
				t.Errorf("decoded %+v; want an error", got)
			}
		})
	}
}
