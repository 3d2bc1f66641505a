package parquetpage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/benchnote/benchnote/ingest/internal/parquetpage/parquetpagetest"
)

// The differential tests of the decoder: files of every layout it reads,
// written by Arrow's writer, decoded column by column both by DecodeColumn
// and by Arrow's column readers, which must give the same definition
// levels and values.

// testColumns are the columns of testRecord: every physical type the
// decoder reads, with and without nulls, unique values and few.
var testColumns = []arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String},      // unique, no nulls
	{Name: "count", Type: arrow.PrimitiveTypes.Int64}, // no nulls
	{Name: "tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "small", Type: arrow.PrimitiveTypes.Int32}, // few values, no nulls
	{Name: "ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "time", Type: arrow.PrimitiveTypes.Float64}, // no nulls
	{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "none", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, // all nulls
}

// testRecord is n rows of testColumns: a null every 7th row of tokens and
// ms (and NaN every 13th of ms), every 5th of status. With required, the
// columns without a null are written as required, the others optional.
func testRecord(n int, required bool) arrow.Record {
	fields := slices.Clone(testColumns)
	for j := range fields {
		fields[j].Nullable = fields[j].Nullable || !required
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("r%d", i))
		b.Field(1).(*array.Int64Builder).Append(int64(100 + i%37))
		if i%7 == 3 {
			b.Field(2).(*array.Int64Builder).AppendNull()
			b.Field(4).(*array.Float64Builder).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(int64(2 + i%50))
			ms := 40.5 + float64(i%29)
			if i%13 == 5 {
				ms = math.NaN()
			}
			b.Field(4).(*array.Float64Builder).Append(ms)
		}
		b.Field(3).(*array.Int32Builder).Append(int32(64 << (i % 3)))
		b.Field(5).(*array.Float64Builder).Append(1.79e9 + float64(i)/8)
		if i%5 == 1 {
			b.Field(6).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(6).(*array.StringBuilder).Append([]string{"ok", "ok", "HTTP 500", ""}[i%4])
		}
		b.Field(7).(*array.Int64Builder).AppendNull()
	}
	return b.NewRecord()
}

// testFile writes testRecord(n, required) with Arrow's writer.
func testFile(t testing.TB, n int, required bool, props ...parquet.WriterProperty) []byte {
	t.Helper()
	rec := testRecord(n, required)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// columnData is a whole column as a reader gives it: its definition
// levels (nil for a required column) and its non-null values, each as
// text (a float's bits in hex, so that NaN equals NaN).
type columnData struct {
	levels int
	defs   []int16
	values []string
}

func valueText(v any) string {
	switch v := v.(type) {
	case float64:
		return fmt.Sprintf("%016x", math.Float64bits(v))
	case parquet.ByteArray:
		return fmt.Sprintf("%q", string(v))
	}
	return fmt.Sprint(v)
}

func appendTexts[T any](dst []string, vals []T) []string {
	for _, v := range vals {
		dst = append(dst, valueText(v))
	}
	return dst
}

// fileColumn is leaf column leaf of the Parquet file data, as DecodeColumn
// reads it.
func fileColumn(t testing.TB, data []byte, leaf int) (*metadata.FileMetaData, Column) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	c := md.Schema.Column(leaf)
	return md, Column{Leaf: leaf, Type: c.PhysicalType(), Optional: c.MaxDefinitionLevel() == 1}
}

// decodePages decodes column leaf of data with DecodeColumn. With direct,
// INT64 and DOUBLE pages are decoded into the caller's slice (Int64s,
// Float64s) and dictionary-encoded BYTE_ARRAY pages through a dictionary
// of the caller's (DecodeIndexed); else every page with Values.
func decodePages(t testing.TB, data []byte, leaf int, direct bool) (columnData, error) {
	md, col := fileColumn(t, data, leaf)
	var got columnData
	err := DecodeColumn(md, bytes.NewReader(data), int64(len(data)), col, func(p *Page) error {
		levels, read := p.Levels(), p.NonNull()
		got.levels += levels
		if col.Optional {
			defs := p.Defs()
			if len(defs) != levels {
				return fmt.Errorf("%d definition levels for %d rows", len(defs), levels)
			}
			got.defs = append(got.defs, defs...)
		} else if p.Defs() != nil {
			return fmt.Errorf("definition levels %v in a required column", p.Defs())
		}
		dict, dictEncoded := p.Dictionary()
		switch {
		case direct && col.Type == parquet.Types.Int64:
			out := make([]int64, read)
			if err := p.Int64s(out); err != nil {
				return err
			}
			got.values = appendTexts(got.values, out)
		case direct && col.Type == parquet.Types.Double:
			out := make([]float64, read)
			if err := p.Float64s(out); err != nil {
				return err
			}
			got.values = appendTexts(got.values, out)
		case direct && col.Type == parquet.Types.ByteArray && dictEncoded:
			texts := appendTexts(nil, dict.ByteArrays)
			out := make([]string, read)
			if err := DecodeIndexed(p, texts, out); err != nil {
				return err
			}
			got.values = append(got.values, out...)
		default:
			v, err := p.Values()
			if err != nil {
				return err
			}
			got.values = appendTexts(got.values, v.Int64s)
			got.values = appendTexts(got.values, v.Int32s)
			got.values = appendTexts(got.values, v.Float64s)
			got.values = appendTexts(got.values, v.ByteArrays)
			if n := len(v.Int64s) + len(v.Int32s) + len(v.Float64s) + len(v.ByteArrays); n != read {
				return fmt.Errorf("%d values for %d non-null", n, read)
			}
		}
		return nil
	})
	return got, err
}

// arrowColumn reads column leaf of data with Arrow's column readers. A
// panic of theirs (on some corrupt headers) is an error, as ingest has it.
func arrowColumn(t testing.TB, data []byte, leaf int) (got columnData, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Arrow panics: %v", p)
		}
	}()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	opt := pf.MetaData().Schema.Column(leaf).MaxDefinitionLevel() == 1
	const batch = 64
	var (
		defs   = make([]int16, batch)
		ints   = make([]int64, batch)
		int32s = make([]int32, batch)
		floats = make([]float64, batch)
		bytes  = make([]parquet.ByteArray, batch)
	)
	for g := range pf.NumRowGroups() {
		ccr, err := pf.RowGroup(g).Column(leaf)
		if err != nil {
			return got, err
		}
		for {
			var levels int64
			var read int
			switch r := ccr.(type) {
			case *file.Int64ColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, ints, defs, nil)
				got.values = appendTexts(got.values, ints[:read])
			case *file.Int32ColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, int32s, defs, nil)
				got.values = appendTexts(got.values, int32s[:read])
			case *file.Float64ColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, floats, defs, nil)
				got.values = appendTexts(got.values, floats[:read])
			case *file.ByteArrayColumnChunkReader:
				levels, read, err = r.ReadBatch(batch, bytes, defs, nil)
				got.values = appendTexts(got.values, bytes[:read])
			default:
				t.Fatalf("column reader %T", ccr)
			}
			if err != nil {
				return got, err
			}
			if levels == 0 {
				break
			}
			got.levels += int(levels)
			if opt {
				got.defs = append(got.defs, defs[:levels]...)
			}
		}
		if err := ccr.Err(); err != nil {
			return got, err
		}
	}
	return got, nil
}

// checkMatchesArrow decodes every column of data both ways, and fails
// unless the decoder reads each (both with Values and directly) as Arrow
// does.
func checkMatchesArrow(t *testing.T, data []byte) {
	t.Helper()
	for leaf := range testColumns {
		want, err := arrowColumn(t, data, leaf)
		if err != nil {
			t.Fatalf("column %s: Arrow: %v", testColumns[leaf].Name, err)
		}
		for _, direct := range []bool{false, true} {
			got, err := decodePages(t, data, leaf, direct)
			if err != nil {
				t.Fatalf("column %s (direct %v): %v", testColumns[leaf].Name, direct, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("column %s (direct %v): %d levels, defs %v, values %v; Arrow %d, %v, %v",
					testColumns[leaf].Name, direct, got.levels, got.defs, got.values, want.levels, want.defs, want.values)
			}
		}
	}
}

// TestDecoderMatchesArrowLayouts writes testRecord with Arrow in every
// layout the decoder reads — data pages v1 and v2, each codec it knows,
// dictionary on and off, pages of the default size and pages of a few
// rows, optional columns and required ones — checks that the file is laid
// out so, and that the decoder reads every column as Arrow does.
func TestDecoderMatchesArrowLayouts(t *testing.T) {
	const n = 300
	for _, layout := range parquetpagetest.Layouts() {
		t.Run(layout.Name, func(t *testing.T) {
			data := testFile(t, n, layout.Required, layout.Props...)
			if err := layout.Check(parquetpagetest.Summarize(t, data), len(testColumns), n/parquetpagetest.RowGroupRows+1); err != nil {
				t.Error(err)
			}
			checkMatchesArrow(t, data)
		})
	}
}

// TestDecoderMatchesArrowEdges covers the layouts a plain run does not:
// PLAIN_DICTIONARY (format 1.0) pages, a dictionary given up for PLAIN
// pages half way through a chunk, and one row.
func TestDecoderMatchesArrowEdges(t *testing.T) {
	tests := []struct {
		name  string
		rows  int
		props []parquet.WriterProperty
		check func(parquetpagetest.Summary) bool
	}{
		{"format 1.0 dictionary", 300,
			[]parquet.WriterProperty{parquet.WithVersion(parquet.V1_0), parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Snappy)},
			func(l parquetpagetest.Summary) bool { return l.Encodings[parquet.Encodings.PlainDict] == l.V1 }},
		{"dictionary fallback, v1", 300,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(256), parquet.WithBatchSize(16)},
			func(l parquetpagetest.Summary) bool { return l.DictEncoded > 0 && l.Plain > 0 }},
		{"dictionary fallback, v2", 300,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(256), parquet.WithBatchSize(16),
				parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd)},
			func(l parquetpagetest.Summary) bool { return l.DictEncoded > 0 && l.Plain > 0 && l.V1 == 0 }},
		{"one row", 1,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDataPageVersion(parquet.DataPageV2)},
			func(l parquetpagetest.Summary) bool { return l.V2 == len(testColumns) }},
	}
	for _, tt := range tests {
		for _, required := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/required=%v", tt.name, required), func(t *testing.T) {
				data := testFile(t, tt.rows, required, tt.props...)
				if l := parquetpagetest.Summarize(t, data); !tt.check(l) {
					t.Errorf("pages laid out as %+v", l)
				}
				checkMatchesArrow(t, data)
			})
		}
	}
}

// TestDecoderUnsupported checks that what the decoder does not read is
// ErrUnsupported, which leaves the column to Arrow's readers: a codec it
// does not know (told by the footer, before any page) and an encoding it
// does not decode (told by the first page of it).
func TestDecoderUnsupported(t *testing.T) {
	for _, tt := range []struct {
		name  string
		props []parquet.WriterProperty
		pages int // the pages seen before ErrUnsupported
	}{
		{"Brotli", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Brotli)}, 0},
		{"DELTA_BINARY_PACKED", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithEncodingFor("count", parquet.Encodings.DeltaBinaryPacked)}, 0},
	} {
		data := testFile(t, 50, false, tt.props...)
		md, col := fileColumn(t, data, 1) // count
		pages := 0
		err := DecodeColumn(md, bytes.NewReader(data), int64(len(data)), col, func(*Page) error { pages++; return nil })
		if !errors.Is(err, ErrUnsupported) || pages != tt.pages {
			t.Errorf("%s: %v after %d pages; want ErrUnsupported after %d", tt.name, err, pages, tt.pages)
		}
	}
}
