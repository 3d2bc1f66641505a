package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/compress"
)

// readBothWays reads data with the typed column readers (when they take
// the file) and through pqarrow alone, and fails unless both give the same
// rows, the same exclusions and the same error. It reports whether the
// typed readers took the file. A file whose page the page decoder finds
// corrupt is refused by it, whatever pqarrow alone makes of the page: that
// is the one difference allowed.
func readBothWays(t *testing.T, data []byte) bool {
	t.Helper()
	ref, _, refErr := readRequestsParquet(bytes.NewReader(data), "run/requests.parquet", parquetBatchRows, ReadOptions{pqarrowOnly: true})
	got, _, err := readRequestsParquet(bytes.NewReader(data), "run/requests.parquet", parquetBatchRows, ReadOptions{})
	if isCorruptPage(err) {
		return false
	}
	if fmt.Sprint(err) != fmt.Sprint(refErr) {
		t.Fatalf("error %v, pqarrow alone %v", err, refErr)
	}
	if refErr != nil {
		return false
	}
	reqCheckRequests(t, got.Requests, ref.Requests)
	if got.RowsRead != ref.RowsRead || !reflect.DeepEqual(got.Excluded, ref.Excluded) || !reflect.DeepEqual(got.Unlisted, ref.Unlisted) {
		t.Errorf("rows read %d, excluded %v, unlisted %v; pqarrow alone %d, %v, %v", got.RowsRead, got.Excluded, got.Unlisted, ref.RowsRead, ref.Excluded, ref.Unlisted)
	}
	// Read for the analysis, the file gives the same rows without the
	// columns the analysis does not keep.
	lean, _, err := readRequestsParquet(bytes.NewReader(data), "run/requests.parquet", parquetBatchRows, ReadOptions{ForAnalysis: true})
	if err != nil {
		t.Fatalf("ForAnalysis: %v", err)
	}
	reqCheckLean(t, lean, ref)
	return got.typed
}

// isCorruptPage reports whether err is the page decoder's refusal of a
// corrupt page.
func isCorruptPage(err error) bool {
	var fe *FileError
	return errors.As(err, &fe) && fe.Reason == "corrupt parquet" && strings.Contains(fe.Message, " cannot be decoded (")
}

func TestHashesRepeat(t *testing.T) {
	tests := []struct {
		hashes []uint64
		want   bool
	}{
		{nil, false},
		{[]uint64{7}, false},
		{[]uint64{1, 2, 3, 1 << 63, 1<<63 | 1}, false},
		{[]uint64{5, 9, 5}, true},
		{[]uint64{1<<63 | 4, 3, 1<<63 | 4}, true},        // same top bits, equal
		{[]uint64{1<<63 | 4, 1<<63 | 5, 1 << 62}, false}, // same top bits, different
		{[]uint64{0, 1, 0}, true},                        // 0 is a hash like any other
		{[]uint64{0, 1, 2}, false},
	}
	// Large sets: distinct, then with one repeat far apart.
	big := make([]uint64, 300_000)
	for i := range big {
		big[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	tests = append(tests, struct {
		hashes []uint64
		want   bool
	}{big, false})
	repeated := append(slices.Clone(big), big[12345])
	tests = append(tests, struct {
		hashes []uint64
		want   bool
	}{repeated, true})
	for _, tt := range tests {
		if got := hashesRepeat(tt.hashes); got != tt.want {
			t.Errorf("hashesRepeat(%d hashes from %x) = %v, want %v", len(tt.hashes), tt.hashes[:min(len(tt.hashes), 3)], got, tt.want)
		}
	}
}

// TestTypedParquetForAnalysisChecksUnusedColumns checks that a file read
// for the analysis has a bad t_first_text found and its row excluded,
// although the column is not kept: a row-group statistic is not trusted
// to vouch for values it does not see (a file whose data disagrees with
// its statistics is caught).
func TestTypedParquetForAnalysisChecksUnusedColumns(t *testing.T) {
	o := reqParquetOpts{compress.Codecs.Zstd, true, 0}
	for _, tt := range []struct {
		name           string
		data           []byte
		rows, excluded int
	}{
		{"valid", typedFile(t, o, typedBase(50)...), 50, 0},
		{"a negative t_first_text", typedFile(t, o, withValue(typedBase(50), "t_first_text", 4, -1.0)...), 50, 1},
		{"a bad text_chunks", typedFile(t, o, withValue(typedBase(50), "text_chunks", 4, int64(-2))...), 50, 1},
	} {
		rf, _, err := readRequestsParquet(bytes.NewReader(tt.data), "r.parquet", parquetBatchRows, ReadOptions{ForAnalysis: true})
		if err != nil {
			t.Fatal(err)
		}
		if rf.RowsRead != tt.rows || rf.ExcludedRows() != tt.excluded || rf.Requests.TFirstText != nil || rf.Requests.IDs.Len() != 0 {
			t.Errorf("%s: %d rows read, %d excluded, t_first_text kept %v, %d ids kept; want %d, %d, none, none",
				tt.name, rf.RowsRead, rf.ExcludedRows(), rf.Requests.TFirstText != nil, rf.Requests.IDs.Len(), tt.rows, tt.excluded)
		}
	}
}

// typedCol is one column of a generated file: values are int64, int32,
// float64 or string, nil for null.
type typedCol struct {
	name string
	typ  arrow.DataType
	vals []any
}

// typedFile writes cols as one Parquet file with Arrow's writer.
func typedFile(t *testing.T, o reqParquetOpts, cols ...typedCol) []byte {
	t.Helper()
	rec := typedRecord(t, nil, cols...)
	defer rec.Release()
	data, err := os.ReadFile(reqWriteArrowParquet(t, rec, o))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// typedRecord builds cols as one record, every column nullable but those
// named in required.
func typedRecord(t *testing.T, required map[string]bool, cols ...typedCol) arrow.Record {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for j, c := range cols {
		fields[j] = arrow.Field{Name: c.name, Type: c.typ, Nullable: !required[c.name]}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for j, c := range cols {
		for _, v := range c.vals {
			fb := b.Field(j)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int64Builder:
				fb.Append(v.(int64))
			case *array.Int32Builder:
				fb.Append(v.(int32))
			case *array.Float64Builder:
				fb.Append(v.(float64))
			case *array.StringBuilder:
				fb.Append(v.(string))
			case *array.BinaryDictionaryBuilder:
				if err := fb.AppendString(v.(string)); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatalf("column %s: builder %T", c.name, fb)
			}
		}
	}
	return b.NewRecord()
}

// typedBase is a clean run of n requests with every column, a failed
// request (null usage and timings) every 7th row and a request without
// output tokens (null timings) every 11th.
func typedBase(n int) []typedCol {
	cols := []typedCol{
		{"request_id", arrow.BinaryTypes.String, nil},
		{"prompt_tokens", arrow.PrimitiveTypes.Int64, nil},
		{"completion_tokens", arrow.PrimitiveTypes.Int64, nil},
		{"TTFT_ms", arrow.PrimitiveTypes.Float64, nil},
		{"E2E_ms", arrow.PrimitiveTypes.Float64, nil},
		{"t_request_sent", arrow.PrimitiveTypes.Float64, nil},
		{"t_first_text", arrow.PrimitiveTypes.Float64, nil},
		{"t_last_text", arrow.PrimitiveTypes.Float64, nil},
		{"status", arrow.BinaryTypes.String, nil},
		{"max_tokens", arrow.PrimitiveTypes.Int64, nil},
		{"text_chunks", arrow.PrimitiveTypes.Int64, nil},
		{"extra", arrow.BinaryTypes.String, nil},
	}
	for i := range n {
		sent := 1.79e9 + float64(i)/8
		row := []any{fmt.Sprintf("r%d", i), int64(100 + i%37), int64(2 + i%50), 40.5 + float64(i%13), 900.25 + float64(i%29),
			sent, sent + 0.04, sent + 0.9, "ok", int64(256), int64(2 + i%50), "x"}
		switch {
		case i%7 == 3:
			row[2], row[3], row[4], row[6], row[7], row[10] = nil, nil, nil, nil, nil, nil
			row[8] = "HTTP 500: internal server error"
		case i%11 == 5:
			row[2], row[3], row[4], row[6], row[7], row[10] = int64(0), nil, nil, nil, nil, int64(0)
		}
		for j := range cols {
			cols[j].vals = append(cols[j].vals, row[j])
		}
	}
	return cols
}

// withValue returns cols with column name's value at row set to v.
func withValue(cols []typedCol, name string, row int, v any) []typedCol {
	out := make([]typedCol, len(cols))
	for j, c := range cols {
		out[j] = typedCol{c.name, c.typ, append([]any(nil), c.vals...)}
		if c.name == name {
			out[j].vals[row] = v
		}
	}
	return out
}

// retyped returns cols with column name stored as typ, its values
// converted by conv.
func retyped(cols []typedCol, name string, typ arrow.DataType, conv func(any) any) []typedCol {
	out := make([]typedCol, len(cols))
	for j, c := range cols {
		out[j] = c
		if c.name == name {
			out[j] = typedCol{c.name, typ, make([]any, len(c.vals))}
			for i, v := range c.vals {
				if v != nil {
					out[j].vals[i] = conv(v)
				}
			}
		}
	}
	return out
}

// TestTypedParquetMatchesPqarrow reads files that the typed column
// readers take, and files they must leave to pqarrow, both ways: the
// rows, exclusions and errors must be the same, and each file must go the
// way the case says.
func TestTypedParquetMatchesPqarrow(t *testing.T) {
	const n = 200
	base := typedBase(n)
	tests := []struct {
		name  string
		cols  []typedCol
		typed bool
	}{
		{"clean, failed requests and zero outputs", base, true},
		{"duplicate ids", withValue(base, "request_id", 9, "r2"), true},
		{"null optional values", withValue(withValue(withValue(base, "t_first_text", 1, nil), "max_tokens", 2, nil), "status", 4, nil), true},
		{"NaN in an optional time", withValue(base, "t_last_text", 8, math.NaN()), true},
		{"counts as int32", retyped(base, "prompt_tokens", arrow.PrimitiveTypes.Int32, func(v any) any { return int32(v.(int64)) }), true},
		{"send times as int64", retyped(base, "t_request_sent", arrow.PrimitiveTypes.Int64, func(v any) any { return int64(v.(float64)) }), true},
		{"status as a dictionary", retyped(base, "status", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, func(v any) any { return v }), true},
		{"negative prompt", withValue(base, "prompt_tokens", 6, int64(-1)), false},
		{"NaN TTFT on a success", withValue(base, "TTFT_ms", 6, math.NaN()), false},
		{"null TTFT on a success with output", withValue(base, "TTFT_ms", 6, nil), false},
		{"infinite send time", withValue(base, "t_request_sent", 6, math.Inf(1)), false},
		{"negative optional time", withValue(base, "t_first_text", 6, -2.0), false},
		{"E2E below TTFT", withValue(base, "E2E_ms", 6, 1.0), false},
		{"prompt at its bound", withValue(base, "prompt_tokens", 6, int64(MaxTokenCount)), true},
		{"prompt past its bound", withValue(base, "prompt_tokens", 6, int64(MaxTokenCount+1)), false},
		{"E2E at its bound", withValue(base, "E2E_ms", 6, float64(MaxLatencyMs)), true},
		{"E2E past its bound", withValue(base, "E2E_ms", 6, math.Nextafter(MaxLatencyMs, math.Inf(1))), false},
		{"send time in milliseconds", withValue(base, "t_request_sent", 6, 1.79e12), false},
		{"text chunks past their bound", withValue(base, "text_chunks", 6, int64(MaxTokenCount+1)), false},
		{"empty id", withValue(base, "request_id", 6, ""), false},
		{"null id", withValue(base, "request_id", 6, nil), false},
		{"null prompt", withValue(base, "prompt_tokens", 6, nil), false},
		{"counts as floats", retyped(base, "completion_tokens", arrow.PrimitiveTypes.Float64, func(v any) any { return float64(v.(int64)) }), false},
		{"ids as integers", retyped(base, "request_id", arrow.PrimitiveTypes.Int64, func(v any) any { var k int64; fmt.Sscanf(v.(string), "r%d", &k); return k }), false},
	}
	phases := append(base[:len(base):len(base)], typedCol{"phase", arrow.BinaryTypes.String, make([]any, n)})
	for i := range n {
		phases[len(phases)-1].vals[i] = []string{"warmup", "measure", "", "cooldown"}[min(i/50, 3)]
	}
	tests = append(tests, struct {
		name  string
		cols  []typedCol
		typed bool
	}{"phases", phases, true}, struct {
		name  string
		cols  []typedCol
		typed bool
	}{"bad phase", withValue(phases, "phase", 3, "later"), false})

	for _, tt := range tests {
		// Brotli pages are not the page decoder's: Arrow's typed column
		// readers read them, into the same columns.
		for _, o := range []reqParquetOpts{{compress.Codecs.Zstd, true, 0}, {compress.Codecs.Snappy, false, 0}, {compress.Codecs.Uncompressed, true, 37}, {compress.Codecs.Brotli, true, 0}} {
			t.Run(tt.name+"/"+o.String(), func(t *testing.T) {
				data := typedFile(t, o, tt.cols...)
				if typed := readBothWays(t, data); typed != tt.typed {
					t.Errorf("read by the typed column readers: %v, want %v", typed, tt.typed)
				}
				if o.codec != compress.Codecs.Brotli || !tt.typed {
					return
				}
				rf, _, err := readRequestsParquet(bytes.NewReader(data), "run/requests.parquet", parquetBatchRows, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !rf.typed || rf.pageDecoded != 0 {
					t.Errorf("Brotli: typed %v, %d columns by the page decoder; want typed, by Arrow's readers alone", rf.typed, rf.pageDecoded)
				}
			})
		}
	}
}

// TestTypedParquetRandom compares the two paths on random files with
// random nulls and bad values.
func TestTypedParquetRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 40 {
		n := 1 + rng.IntN(300)
		cols := typedBase(n)
		for range rng.IntN(4) {
			c := &cols[rng.IntN(len(cols)-1)]
			i := rng.IntN(n)
			switch c.typ.ID() {
			case arrow.INT64:
				c.vals[i] = []any{nil, int64(0), int64(-3), int64(7), int64(MaxTokenCount), int64(MaxTokenCount + 1)}[rng.IntN(6)]
			case arrow.FLOAT64:
				c.vals[i] = []any{nil, math.NaN(), -1.0, 0.0, 1e9, math.Inf(1), 1e10, 1e10 + 1, 1.797e308, 1.79e12}[rng.IntN(10)]
			case arrow.STRING:
				c.vals[i] = []any{nil, "", "r1", "error: timeout", "ok"}[rng.IntN(5)]
			}
		}
		o := reqParquetOpts{compress.Codecs.Zstd, rng.IntN(2) == 0, int64(1 + rng.IntN(n))}
		t.Run(fmt.Sprint(k), func(t *testing.T) { readBothWays(t, typedFile(t, o, cols...)) })
	}
}

// TestDuckDBParquet reads files DuckDB 1.5.6 wrote from runs/example's
// c1/run-1 (its chunk_ms column left out): the default (format v1, PLAIN,
// dictionary and DELTA encodings) gives the CSV's rows value for value;
// PARQUET_VERSION v2 encodes its doubles BYTE_STREAM_SPLIT, which Arrow Go
// v17 cannot decode, and is refused naming the column.
func TestDuckDBParquet(t *testing.T) {
	csvFile, err := os.Open(filepath.Join("..", "runs", "example", "c1", "run-1", "requests.csv"))
	if err != nil {
		t.Skipf("runs/example not here: %v", err)
	}
	defer csvFile.Close()
	want, err := ReadRequestsCSV(csvFile, "requests.csv")
	if err != nil {
		t.Fatal(err)
	}
	v1, err := reqReadParquetFile(t, filepath.Join("testdata", "requests", "duckdb_v1.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	got, w := v1.Requests, want.Requests
	if got.N != 240 || got.N != w.N || !reflect.DeepEqual(reqComparable(got).TTFTms, reqComparable(w).TTFTms) ||
		!reflect.DeepEqual(got.PromptTokens, w.PromptTokens) || !reflect.DeepEqual(got.IDs.Strings(), w.IDs.Strings()) {
		t.Errorf("DuckDB v1 file: %d rows; want the CSV's %d rows with the same ids, prompt tokens and TTFT", got.N, w.N)
	}
	_, err = reqReadParquetFile(t, filepath.Join("testdata", "requests", "duckdb_v2_byte_stream_split.parquet"))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Reason != "unsupported encoding" || fe.ColumnName != "TTFT_ms" || !strings.Contains(err.Error(), "BYTE_STREAM_SPLIT") {
		t.Errorf("DuckDB v2 file: %v, want an unsupported-encoding error naming TTFT_ms", err)
	}
}

// TestHashParts checks the partitioned hash set of a read for the
// analysis against hashesRepeat: random hashes with and without a repeat,
// hashes all in one part (which overflows it, and the check partitions
// them afresh), and two zero hashes.
func TestHashParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	random := func(n int) []uint64 {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = rng.Uint64()
		}
		return hs
	}
	onePart := random(5000)
	for i := range onePart {
		onePart[i] >>= 20 // top bits zero: all in part 0
	}
	withRepeat := random(5000)
	withRepeat[4321] = withRepeat[17]
	onePartRepeat := slices.Clone(onePart)
	onePartRepeat[4999] = onePartRepeat[0]
	for _, tt := range []struct {
		name   string
		hashes []uint64
		want   bool
	}{
		{"random, unique", random(5000), false},
		{"random, one repeat", withRepeat, true},
		{"one part, unique", onePart, false},
		{"one part, one repeat", onePartRepeat, true},
		{"two zeros", []uint64{0, 5, 0}, true},
		{"one zero", []uint64{0, 5, 7}, false},
	} {
		hp := newHashParts(len(tt.hashes), nil)
		for _, h := range tt.hashes {
			hp.add(h)
		}
		if got := hp.repeat(); got != tt.want || hashesRepeat(tt.hashes) != tt.want {
			t.Errorf("%s: repeat %v (hashesRepeat %v), want %v", tt.name, got, hashesRepeat(tt.hashes), tt.want)
		}
	}
}
