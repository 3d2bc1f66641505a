package ingest

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// rangeValue is a kept row's value in column name (row i of q).
func rangeValue(q *Requests, name string, i int) any {
	switch name {
	case "prompt_tokens":
		return q.PromptTokens[i]
	case "completion_tokens":
		return q.CompletionTokens[i]
	case "max_tokens":
		return q.MaxTokens[i]
	case "text_chunks":
		return q.TextChunks[i]
	case "TTFT_ms":
		return q.TTFTms[i]
	case "E2E_ms":
		return q.E2Ems[i]
	case "t_request_sent":
		return q.TRequestSent[i]
	case "t_first_text":
		return q.TFirstText[i]
	case "t_last_text":
		return q.TLastText[i]
	case "chunk_ms":
		return fmt.Sprint(q.ChunkMs[q.ChunkOffsets[i]:q.ChunkOffsets[i+1]])
	}
	return nil
}

// rangeHeader and rangeLine are a CSV layout the plain-line parser reads,
// and a plain line of it.
const (
	rangeHeader = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_request_sent,t_first_text,t_last_text,status,max_tokens,text_chunks"
	rangeLine   = "r,100,10,50,200,1790000000,1790000000.05,1790000000.2,ok,256,10"
)

// TestRequestValueRangesCSV: each column with a range, at its bound (kept)
// and past it (excluded as out of range, with the message pinned), read
// whole and for the analysis: through the plain-line parser, the general
// parser, and the checks of the columns the analysis does not keep.
func TestRequestValueRangesCSV(t *testing.T) {
	const chunkHeader = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,chunk_ms"
	const chunkLine = "r,100,10,50,200,1"
	const (
		latency = "at most 10000000000 (ms, about 116 days)"
		seconds = "seconds since the Unix epoch, at most 253402300799 (the end of the year 9999)"
	)
	tests := []struct {
		header, col, value string
		e2e                string // E2E_ms, when not the line's
		kept               any    // the value kept, or
		reason, msg        string // the exclusion
	}{
		{rangeHeader, "prompt_tokens", "1000000000", "", int64(MaxTokenCount), "", ""},
		{rangeHeader, "prompt_tokens", "1e9", "", int64(1e9), "", ""},
		{rangeHeader, "prompt_tokens", "1000000001", "", nil, "out of range", `prompt_tokens: expected at most 1000000000, got "1000000001"`},
		{rangeHeader, "prompt_tokens", "1.000000001e9", "", nil, "out of range", `prompt_tokens: expected at most 1000000000, got "1.000000001e9"`},
		{rangeHeader, "prompt_tokens", "99999999999999999999", "", nil, "out of range", `prompt_tokens: expected at most 1000000000, got "99999999999999999999"`},
		{rangeHeader, "completion_tokens", "1000000000", "", int64(1e9), "", ""},
		{rangeHeader, "completion_tokens", "1000000001", "", nil, "out of range", `completion_tokens: expected at most 1000000000, got "1000000001"`},
		{rangeHeader, "text_chunks", "1000000000", "", int64(1e9), "", ""},
		{rangeHeader, "text_chunks", "1000000001", "", nil, "out of range", `text_chunks: expected at most 1000000000, got "1000000001"`},
		{rangeHeader, "max_tokens", "9223372036854775807", "", int64(math.MaxInt64), "", ""},
		{rangeHeader, "max_tokens", "9223372036854775808", "", nil, "non-numeric", `max_tokens: expected a non-negative integer, got "9223372036854775808"`},
		{rangeHeader, "TTFT_ms", "10000000000", "10000000000", 1e10, "", ""},
		{rangeHeader, "TTFT_ms", "10000000000.000002", "10000000000", nil, "out of range", `TTFT_ms: expected ` + latency + `, got "10000000000.000002"`},
		{rangeHeader, "E2E_ms", "10000000000", "", 1e10, "", ""},
		{rangeHeader, "E2E_ms", "10000000000.0000009", "", 1e10, "", ""}, // rounds down onto the bound
		{rangeHeader, "E2E_ms", "10000000000.000002", "", nil, "out of range", `E2E_ms: expected ` + latency + `, got "10000000000.000002"`},
		{rangeHeader, "E2E_ms", "1.797e308", "", nil, "out of range", `E2E_ms: expected ` + latency + `, got "1.797e308"`},
		{rangeHeader, "E2E_ms", "1e400", "", nil, "nan/inf", `E2E_ms: expected a finite number, got "1e400"`},
		{rangeHeader, "t_request_sent", "253402300799", "", float64(MaxUnixSeconds), "", ""},
		{rangeHeader, "t_request_sent", "253402300799.00003", "", nil, "out of range", `t_request_sent: expected ` + seconds + `, got "253402300799.00003" (milliseconds?)`},
		{rangeHeader, "t_request_sent", "1790000000000", "", nil, "out of range", `t_request_sent: expected ` + seconds + `, got "1790000000000" (milliseconds?)`},
		{rangeHeader, "t_request_sent", "253402300799000", "", nil, "out of range", `t_request_sent: expected ` + seconds + `, got "253402300799000" (milliseconds?)`},
		{rangeHeader, "t_request_sent", "253402300799001", "", nil, "out of range", `t_request_sent: expected ` + seconds + `, got "253402300799001"`},
		{rangeHeader, "t_first_text", "253402300799", "", float64(MaxUnixSeconds), "", ""},
		{rangeHeader, "t_first_text", "253402300799.00001", "", float64(MaxUnixSeconds), "", ""}, // rounds down onto the bound
		{rangeHeader, "t_first_text", "253402300800", "", nil, "out of range", `t_first_text: expected ` + seconds + `, got "253402300800" (milliseconds?)`},
		{rangeHeader, "t_last_text", "253402300799.0000", "", float64(MaxUnixSeconds), "", ""},
		{rangeHeader, "t_last_text", "1790000000000000", "", nil, "out of range", `t_last_text: expected ` + seconds + `, got "1790000000000000"`},
		{chunkHeader, "chunk_ms", "1;10000000000", "10000000000", "[1 1e+10]", "", ""},
		{chunkHeader, "chunk_ms", "1;10000000000.000002", "", nil, "out of range", `chunk_ms: expected ';'-separated numbers, each ` + latency + `, got "1;10000000000.000002"`},
		{chunkHeader, "chunk_ms", "10000000000.000002;-1", "", nil, "out of range", `chunk_ms: expected ';'-separated numbers, each ` + latency + `, got "10000000000.000002;-1"`},
		{chunkHeader, "chunk_ms", "-1;10000000000.000002", "", nil, "bad chunk_ms", `chunk_ms: expected ';'-separated non-negative numbers, got "-1;10000000000.000002"`},
	}
	for _, tt := range tests {
		t.Run(tt.col+"="+tt.value, func(t *testing.T) {
			line := rangeLine
			if tt.header == chunkHeader {
				line = chunkLine
			}
			fields := strings.Split(line, ",")
			col := slices.Index(strings.Split(tt.header, ","), tt.col)
			fields[0], fields[col] = "r1", tt.value
			if tt.e2e != "" {
				fields[4] = tt.e2e
			}
			// A plain line, then the line under test.
			data := []byte(tt.header + "\nr0" + line[1:] + "\n" + strings.Join(fields, ",") + "\n")
			for _, opts := range []ReadOptions{{}, {ForAnalysis: true}} {
				rf, err := ReadRequestsCSVWith(bytes.NewReader(data), "f.csv", opts)
				if err != nil {
					t.Fatal(err)
				}
				var want []Diagnostic
				if tt.msg != "" {
					want = []Diagnostic{reqWarn("f.csv", 3, col+1, tt.col, tt.reason, tt.msg)}
				}
				reqCheckDiags(t, rf.Excluded, want)
				if n := rf.Requests.N; n != map[bool]int{true: 2, false: 1}[tt.msg == ""] {
					t.Errorf("ForAnalysis %v: %d rows kept", opts.ForAnalysis, n)
				}
				if tt.msg == "" && !opts.ForAnalysis {
					if got := rangeValue(rf.Requests, tt.col, 1); got != tt.kept {
						t.Errorf("kept %v (%T), want %v (%T)", got, got, tt.kept, tt.kept)
					}
				}
			}
			rf, err := ReadRequestsCSV(bytes.NewReader(data), "f.csv")
			csvMatchesReference(t, data, rf, err)
		})
	}
}

// TestRequestValueRangesIssue20 reads the file of issue 20: 90 bytes whose
// E2E_ms is finite and not negative, and far too long.
func TestRequestValueRangesIssue20(t *testing.T) {
	data := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\nrequest-1,128,64,35.5,1.797e308\n"
	if len(data) != 90 {
		t.Fatalf("%d bytes", len(data))
	}
	rf, err := ReadRequestsCSV(strings.NewReader(data), "requests.csv")
	if err != nil {
		t.Fatal(err)
	}
	reqCheckDiags(t, rf.Excluded, []Diagnostic{reqWarn("requests.csv", 2, 5, "E2E_ms", "out of range",
		`E2E_ms: expected at most 10000000000 (ms, about 116 days), got "1.797e308"`)})
	if rf.Requests.N != 0 || rf.RowsRead != 1 {
		t.Errorf("%d rows kept of %d", rf.Requests.N, rf.RowsRead)
	}
}

// TestRequestValueRangesParquet: each column with a range, at its bound
// and past it, stored as the typed column readers read it (INT64, INT32,
// DOUBLE; plain and dictionary pages; pages the page decoder reads and
// pages Arrow's readers do) and as only pqarrow reads it: both paths give
// the same rows and exclusions, the typed readers take the file exactly
// when the value is kept, and the exclusion is the one pinned here.
func TestRequestValueRangesParquet(t *testing.T) {
	const (
		latency = "at most 10000000000 (ms, about 116 days)"
		seconds = "seconds since the Unix epoch, at most 253402300799 (the end of the year 9999)"
	)
	next := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	toInt32 := func(v any) any { return int32(v.(int64)) }
	toFloat := func(v any) any { return float64(v.(int64)) }
	toInt64 := func(v any) any { return int64(v.(float64)) }
	base := typedBase(12)
	tests := []struct {
		col   string
		typ   arrow.DataType // the column's type, when not typedBase's
		conv  func(any) any  // converts typedBase's values to typ
		value any
		typed bool // the typed column readers take the file
		kept  any  // the value kept, or
		msg   string
		// reason is the exclusion's reason, when not "out of range".
		reason string
	}{
		{"prompt_tokens", nil, nil, int64(1e9), true, int64(1e9), "", ""},
		{"prompt_tokens", nil, nil, int64(1e9 + 1), false, nil, `prompt_tokens: expected at most 1000000000, got 1000000001`, ""},
		{"prompt_tokens", nil, nil, int64(math.MaxInt64), false, nil, `prompt_tokens: expected at most 1000000000, got 9223372036854775807`, ""},
		{"prompt_tokens", arrow.PrimitiveTypes.Int32, toInt32, int32(1e9), true, int64(1e9), "", ""},
		{"prompt_tokens", arrow.PrimitiveTypes.Int32, toInt32, int32(1e9 + 1), false, nil, `prompt_tokens: expected at most 1000000000, got 1000000001`, ""},
		{"completion_tokens", arrow.PrimitiveTypes.Float64, toFloat, 1e9, false, int64(1e9), "", ""},
		{"completion_tokens", arrow.PrimitiveTypes.Float64, toFloat, 1e9 + 1, false, nil, `completion_tokens: expected at most 1000000000, got 1.000000001e+09`, ""},
		{"completion_tokens", arrow.PrimitiveTypes.Float64, toFloat, 1e30, false, nil, `completion_tokens: expected at most 1000000000, got 1e+30`, ""},
		{"text_chunks", nil, nil, int64(1e9), true, int64(1e9), "", ""},
		{"text_chunks", nil, nil, int64(1e9 + 1), false, nil, `text_chunks: expected at most 1000000000, got 1000000001`, ""},
		{"max_tokens", nil, nil, int64(math.MaxInt64), true, int64(math.MaxInt64), "", ""},
		{"TTFT_ms", nil, nil, 1e10, true, 1e10, "", ""},
		{"TTFT_ms", nil, nil, next(1e10), false, nil, `TTFT_ms: expected ` + latency + `, got 1.0000000000000002e+10`, ""},
		{"E2E_ms", nil, nil, 1e10, true, 1e10, "", ""},
		{"E2E_ms", nil, nil, next(1e10), false, nil, `E2E_ms: expected ` + latency + `, got 1.0000000000000002e+10`, ""},
		{"E2E_ms", nil, nil, 1.797e308, false, nil, `E2E_ms: expected ` + latency + `, got 1.797e+308`, ""},
		{"E2E_ms", nil, nil, math.Inf(1), false, nil, `E2E_ms: expected a finite number, got +Inf`, "nan/inf"},
		{"t_request_sent", nil, nil, float64(MaxUnixSeconds), true, float64(MaxUnixSeconds), "", ""},
		{"t_request_sent", nil, nil, next(MaxUnixSeconds), false, nil, `t_request_sent: expected ` + seconds + `, got 2.5340230079900003e+11 (milliseconds?)`, ""},
		{"t_request_sent", nil, nil, 1.79e12, false, nil, `t_request_sent: expected ` + seconds + `, got 1.79e+12 (milliseconds?)`, ""},
		{"t_request_sent", arrow.PrimitiveTypes.Int64, toInt64, int64(MaxUnixSeconds), true, float64(MaxUnixSeconds), "", ""},
		{"t_request_sent", arrow.PrimitiveTypes.Int64, toInt64, int64(MaxUnixSeconds + 1), false, nil, `t_request_sent: expected ` + seconds + `, got 253402300800 (milliseconds?)`, ""},
		{"t_request_sent", arrow.PrimitiveTypes.Int64, toInt64, int64(1790000000000), false, nil, `t_request_sent: expected ` + seconds + `, got 1790000000000 (milliseconds?)`, ""},
		{"t_first_text", nil, nil, float64(MaxUnixSeconds), true, float64(MaxUnixSeconds), "", ""},
		{"t_first_text", nil, nil, float64(MaxUnixSeconds + 1), false, nil, `t_first_text: expected ` + seconds + `, got 2.534023008e+11 (milliseconds?)`, ""},
		{"t_last_text", nil, nil, float64(MaxUnixSeconds), true, float64(MaxUnixSeconds), "", ""},
		{"t_last_text", nil, nil, 1.79e15, false, nil, `t_last_text: expected ` + seconds + `, got 1.79e+15`, ""},
	}
	const f = "run/requests.parquet"
	for _, tt := range tests {
		cols := base
		if tt.typ != nil {
			cols = retyped(cols, tt.col, tt.typ, tt.conv)
		}
		cols = withValue(cols, tt.col, 1, tt.value)
		if tt.col == "TTFT_ms" {
			cols = withValue(cols, "E2E_ms", 1, 1e10)
		}
		col := slices.IndexFunc(cols, func(c typedCol) bool { return c.name == tt.col }) + 1
		for _, o := range []reqParquetOpts{{compress.Codecs.Zstd, true, 0}, {compress.Codecs.Snappy, false, 5}, {compress.Codecs.Brotli, true, 0}} {
			t.Run(fmt.Sprintf("%s=%v/%s/%s", tt.col, tt.value, cols[col-1].typ, o), func(t *testing.T) {
				data := typedFile(t, o, cols...)
				if typed := readBothWays(t, data); typed != tt.typed {
					t.Errorf("read by the typed column readers: %v, want %v", typed, tt.typed)
				}
				rf, err := ReadRequestsParquet(bytes.NewReader(data), f)
				if err != nil {
					t.Fatal(err)
				}
				var want []Diagnostic
				if tt.msg != "" {
					reason := tt.reason
					if reason == "" {
						reason = "out of range"
					}
					want = []Diagnostic{reqWarn(f, 2, col, tt.col, reason, tt.msg)}
				}
				reqCheckDiags(t, rf.Excluded, want)
				if tt.msg == "" {
					if got := rangeValue(rf.Requests, tt.col, 1); got != tt.kept {
						t.Errorf("kept %v (%T), want %v (%T)", got, got, tt.kept, tt.kept)
					}
				}
			})
		}
	}
}

// TestRequestValueRangesParquetLists: chunk_ms lists and timestamps, which
// only pqarrow reads.
func TestRequestValueRangesParquetLists(t *testing.T) {
	rec := reqRecordFromJSON(t, []arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64},
		{Name: "t_request_sent", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "chunk_ms", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
	}, `[
		{"request_id": "a", "prompt_tokens": 1, "completion_tokens": 2, "TTFT_ms": 1, "E2E_ms": 10000000000,
		 "t_request_sent": 253402300799000, "chunk_ms": [1, 10000000000]},
		{"request_id": "b", "prompt_tokens": 1, "completion_tokens": 2, "TTFT_ms": 1, "E2E_ms": 2,
		 "t_request_sent": null, "chunk_ms": [1, 10000000000.000002]},
		{"request_id": "c", "prompt_tokens": 1, "completion_tokens": 2, "TTFT_ms": 1, "E2E_ms": 2,
		 "t_request_sent": null, "chunk_ms": [-1, 1e11]},
		{"request_id": "d", "prompt_tokens": 1, "completion_tokens": 2, "TTFT_ms": 1, "E2E_ms": 2,
		 "t_request_sent": 253402300800000, "chunk_ms": [1, 2]}
	]`)
	data := reqArrowParquet(t, rec, []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}, pqarrow.DefaultWriterProps())
	readBothWays(t, data)
	const f = "run/requests.parquet"
	rf, err := ReadRequestsParquet(bytes.NewReader(data), f)
	if err != nil {
		t.Fatal(err)
	}
	reqCheckDiags(t, rf.Excluded, []Diagnostic{
		reqWarn(f, 2, 7, "chunk_ms", "out of range", `chunk_ms: expected numbers, each at most 10000000000 (ms, about 116 days), got 1.0000000000000002e+10 at element 2`),
		reqWarn(f, 3, 7, "chunk_ms", "bad chunk_ms", `chunk_ms: expected non-negative finite numbers, got -1 at element 1`),
		reqWarn(f, 4, 6, "t_request_sent", "out of range", `t_request_sent: expected seconds since the Unix epoch, at most 253402300799 (the end of the year 9999), got 253402300800000 ms`),
	})
	q := rf.Requests
	if q.N != 1 || q.TRequestSent[0] != MaxUnixSeconds || !slices.Equal(q.ChunkMs, []float64{1, 1e10}) {
		t.Errorf("kept %d rows: sent %v, chunks %v", q.N, q.TRequestSent, q.ChunkMs)
	}
}
