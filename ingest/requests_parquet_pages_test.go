package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/benchnote/benchnote/ingest/internal/parquetpage/parquetpagetest"
	xparquet "github.com/xitongsys/parquet-go/parquet"
	"github.com/xitongsys/parquet-go/writer"
)

// The tests of the typed reader's use of the page decoder
// (internal/parquetpage, whose own tests compare it with Arrow's column
// readers): files of every layout it reads, which the typed reader must
// read with it (rf.pageDecoded) and read as pqarrow does (readBothWays).

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

// TestPageDecoderArrowLayouts writes typedBase with Arrow in every layout
// the page decoder reads — data pages v1 and v2, each codec it knows,
// dictionary on and off, pages of the default size and pages of a few
// rows, optional columns with nulls and required ones — and checks that
// the file is laid out so, that the page decoder reads every column, and
// that the rows are pqarrow's.
func TestPageDecoderArrowLayouts(t *testing.T) {
	const n = 300
	base := typedBase(n)
	for _, layout := range parquetpagetest.Layouts() {
		var req map[string]bool
		if layout.Required {
			req = fullColumns(base)
		}
		t.Run(layout.Name, func(t *testing.T) {
			data := pagesFile(t, req, layout.Props, base...)
			if err := layout.Check(parquetpagetest.Summarize(t, data), len(base), n/parquetpagetest.RowGroupRows+1); err != nil {
				t.Error(err)
			}
			if !readBothWays(t, data) {
				t.Fatal("not read by the typed reader")
			}
			checkPageDecoded(t, data, typedUsed)
		})
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
		check func(parquetpagetest.Summary) bool
	}{
		{"format 1.0 dictionary", base,
			[]parquet.WriterProperty{parquet.WithVersion(parquet.V1_0), parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Snappy)},
			func(l parquetpagetest.Summary) bool { return l.Encodings[parquet.Encodings.PlainDict] == l.V1 }},
		{"dictionary fallback, v1", base,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(256), parquet.WithBatchSize(16)},
			func(l parquetpagetest.Summary) bool { return l.DictEncoded > 0 && l.Plain > 0 }},
		{"dictionary fallback, v2", base,
			[]parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(256), parquet.WithBatchSize(16),
				parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd)},
			func(l parquetpagetest.Summary) bool { return l.DictEncoded > 0 && l.Plain > 0 && l.V1 == 0 }},
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
				if l := parquetpagetest.Summarize(t, data); tt.check != nil && !tt.check(l) {
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
			l := parquetpagetest.Summarize(t, data)
			if tt.dictPages != (l.Dict > 0) || l.V2 != 0 || l.MostDataPages < tt.minPages || l.Chunks < 8*tt.groups {
				t.Errorf("pages laid out as %+v", l)
			}
			if !readBothWays(t, data) {
				t.Fatal("not read by the typed reader")
			}
			checkPageDecoded(t, data, 8)
		})
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

// TestTypedParquetRefusesCorruptPage changes the definition level of the
// request_id column (optional, without a null: one RLE run of 200 ones,
// after the levels' 4-byte length) to 2, which the levels' bit width of 1
// cannot hold: the page decoder finds the page corrupt, and the file is refused naming the
// column, the row group and the page, whatever Arrow's readers would make
// of it.
func TestTypedParquetRefusesCorruptPage(t *testing.T) {
	data := pagesFile(t, nil, []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Uncompressed)}, typedBase(200)...)
	run := []byte{3, 0, 0, 0, 0x90, 0x03, 0x01} // 3 bytes of levels: 200<<1 as a varint, the value 1
	at := bytes.Index(data, run)
	if at < 0 {
		t.Fatal("no run of 200 definition levels of 1")
	}
	data[at+len(run)-1] = 2
	_, _, err := readRequestsParquet(bytes.NewReader(data), "run/requests.parquet", parquetBatchRows, ReadOptions{})
	want := "request_id: row group 1, page 1 cannot be decoded (definition levels: an RLE value of more than 1 bits); the file is corrupt"
	var fe *FileError
	if !errors.As(err, &fe) || fe.Reason != "corrupt parquet" || fe.ColumnName != "request_id" || fe.Message != want {
		t.Errorf("error %#v;\nwant the message %q", err, want)
	}
}
