package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// reqBenchRows is the size of the generated benchmark files.
const reqBenchRows = 400_000

// reqBenchChunks is the number of chunk_ms values per row in the "all" files.
const reqBenchChunks = 8

var reqBenchInputs = sync.OnceValue(func() (files map[string][]byte) {
	files = map[string][]byte{}
	for _, all := range []bool{false, true} {
		csvName, pqName := "csv-required", "parquet-required"
		if all {
			csvName, pqName = "csv-all", "parquet-all"
		}
		files[csvName] = reqBenchCSV(all)
		data, err := reqBenchParquet(all)
		if err != nil {
			panic(err)
		}
		files[pqName] = data
	}
	return files
})

// reqBenchRow returns the values of generated row i.
func reqBenchRow(i int) (id string, prompt, completion int64, ttft, e2e float64) {
	x := uint64(i)*0x9E3779B97F4A7C15 + 12345
	prompt = int64(100 + x%1900)
	completion = int64(1 + (x>>16)%512)
	ttft = float64(50_000+(x>>24)%1_950_000) / 1000 // 50.000 .. 2000.000 ms
	e2e = ttft + float64(completion)*float64(15_000+(x>>40)%10_000)/1000
	e2e = float64(int64(e2e*1000)) / 1000
	return fmt.Sprintf("req-%07d", i), prompt, completion, ttft, e2e
}

func reqBenchCSV(all bool) []byte {
	var buf bytes.Buffer
	buf.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms")
	if all {
		buf.WriteString(",t_request_sent,t_first_text,t_last_text,status,max_tokens,text_chunks,chunk_ms")
	}
	buf.WriteString("\n")
	var b []byte
	for i := range reqBenchRows {
		id, p, c, ttft, e2e := reqBenchRow(i)
		b = append(b[:0], id...)
		b = append(b, ',')
		b = strconv.AppendInt(b, p, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, c, 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, ttft, 'f', 3, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, e2e, 'f', 3, 64)
		if all {
			t0 := 1.7e9 + float64(i)/10
			b = append(b, ',')
			b = strconv.AppendFloat(b, t0, 'f', 6, 64)
			b = append(b, ',')
			b = strconv.AppendFloat(b, t0+ttft/1000, 'f', 6, 64)
			b = append(b, ',')
			b = strconv.AppendFloat(b, t0+e2e/1000, 'f', 6, 64)
			b = append(b, ",ok,512,"...)
			b = strconv.AppendInt(b, reqBenchChunks, 10)
			b = append(b, ',')
			for k := range reqBenchChunks {
				if k > 0 {
					b = append(b, ';')
				}
				b = strconv.AppendFloat(b, ttft+(e2e-ttft)*float64(k)/(reqBenchChunks-1), 'f', 3, 64)
			}
		}
		b = append(b, '\n')
		buf.Write(b)
	}
	return buf.Bytes()
}

func reqBenchParquet(all bool) ([]byte, error) {
	fields := []arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64},
	}
	if all {
		fields = append(fields,
			arrow.Field{Name: "t_request_sent", Type: arrow.PrimitiveTypes.Float64},
			arrow.Field{Name: "t_first_text", Type: arrow.PrimitiveTypes.Float64},
			arrow.Field{Name: "t_last_text", Type: arrow.PrimitiveTypes.Float64},
			arrow.Field{Name: "status", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "max_tokens", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "text_chunks", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "chunk_ms", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		)
	}
	sc := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	for i := range reqBenchRows {
		id, p, c, ttft, e2e := reqBenchRow(i)
		rb.Field(0).(*array.StringBuilder).Append(id)
		rb.Field(1).(*array.Int64Builder).Append(p)
		rb.Field(2).(*array.Int64Builder).Append(c)
		rb.Field(3).(*array.Float64Builder).Append(ttft)
		rb.Field(4).(*array.Float64Builder).Append(e2e)
		if all {
			t0 := 1.7e9 + float64(i)/10
			rb.Field(5).(*array.Float64Builder).Append(t0)
			rb.Field(6).(*array.Float64Builder).Append(t0 + ttft/1000)
			rb.Field(7).(*array.Float64Builder).Append(t0 + e2e/1000)
			rb.Field(8).(*array.StringBuilder).Append("ok")
			rb.Field(9).(*array.Int64Builder).Append(512)
			rb.Field(10).(*array.Int64Builder).Append(reqBenchChunks)
			lb := rb.Field(11).(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			for k := range reqBenchChunks {
				vb.Append(ttft + (e2e-ttft)*float64(k)/(reqBenchChunks-1))
			}
		}
	}
	rec := rb.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(reqBenchRowGroup),
	)
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// reqBenchRowGroup is the row group length of the generated Parquet files.
const reqBenchRowGroup = 128 * 1024

// reqBenchPath writes the named input into a temporary directory.
func reqBenchPath(b *testing.B, name string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, reqBenchInputs()[name], 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

func BenchmarkReadRequestsCSV(b *testing.B) {
	for _, cols := range []string{"required", "all"} {
		b.Run(cols, func(b *testing.B) {
			path := reqBenchPath(b, "csv-"+cols)
			b.SetBytes(int64(len(reqBenchInputs()["csv-"+cols])))
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				rf, err := ReadRequestsCSV(f, "requests.csv")
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				if rf.Requests.N != reqBenchRows {
					b.Fatalf("read %d rows, want %d; first problem: %v", rf.Requests.N, reqBenchRows, reqFirstDiag(rf))
				}
			}
			b.ReportMetric(float64(reqBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func BenchmarkReadRequestsParquet(b *testing.B) {
	for _, cols := range []string{"required", "all"} {
		b.Run(cols, func(b *testing.B) {
			path := reqBenchPath(b, "parquet-"+cols)
			b.SetBytes(int64(len(reqBenchInputs()["parquet-"+cols])))
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				rf, err := ReadRequestsParquet(f, "requests.parquet")
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				if rf.Requests.N != reqBenchRows {
					b.Fatalf("read %d rows, want %d; first problem: %v", rf.Requests.N, reqBenchRows, reqFirstDiag(rf))
				}
			}
			b.ReportMetric(float64(reqBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkFindDuplicates measures the duplicate request_id pass alone.
func BenchmarkFindDuplicates(b *testing.B) {
	ids := make([]string, reqBenchRows)
	for i := range ids {
		ids[i], _, _, _, _ = reqBenchRow(i)
	}
	col := StringColumnOf(ids...)
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			if d := findDuplicates(&col, nil); len(d) != 0 {
				b.Fatal(d)
			}
		}
		b.ReportMetric(float64(reqBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			seen := make(map[string]int32, len(ids))
			for i, id := range ids {
				if _, dup := seen[id]; dup {
					b.Fatal(id)
				}
				seen[id] = int32(i)
			}
		}
		b.ReportMetric(float64(reqBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

func reqFirstDiag(rf *RequestFile) string {
	if len(rf.Excluded) == 0 {
		return "none"
	}
	return strings.TrimSpace(rf.Excluded[0].String())
}

// reqBenchClientCSV is the "all" CSV without chunk_ms: the columns a
// client writes when it records no chunk arrivals, every line of which the
// plain-line parser takes.
var reqBenchClientCSV = sync.OnceValue(func() []byte {
	var out bytes.Buffer
	for line := range bytes.Lines(reqBenchCSV(true)) {
		out.Write(line[:bytes.LastIndexByte(line, ',')])
		out.WriteByte('\n')
	}
	return out.Bytes()
})

// BenchmarkReadRequestsCSVClient reads the client CSV whole and for the
// analysis (ids hashed, t_first_text and text_chunks checked only).
func BenchmarkReadRequestsCSVClient(b *testing.B) {
	data := reqBenchClientCSV()
	for _, lean := range []bool{false, true} {
		b.Run(map[bool]string{false: "whole", true: "analysis"}[lean], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				rf, err := ReadRequestsCSVWith(bytes.NewReader(data), "requests.csv", ReadOptions{ForAnalysis: lean})
				if err != nil {
					b.Fatal(err)
				}
				if rf.Requests.N != reqBenchRows {
					b.Fatalf("read %d rows, want %d; first problem: %v", rf.Requests.N, reqBenchRows, reqFirstDiag(rf))
				}
			}
			b.ReportMetric(float64(reqBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
