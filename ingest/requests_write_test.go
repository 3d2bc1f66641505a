package ingest

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/xitongsys/parquet-go-source/buffer"
	"github.com/xitongsys/parquet-go/reader"
)

// writeSample is a run with every optional column and every kind of row:
// a streamed request, a failed one without timings or usage, a zero-token
// one without TTFT, a one-token one, and warm-up and cool-down marks.
func writeSample() *Requests {
	nan := math.NaN()
	q := &Requests{
		N:                5,
		IDs:              StringColumnOf("r1", "r2", "r3", "r4", "r5"),
		PromptTokens:     []int64{100, 200, 300, 5, 7},
		CompletionTokens: []int64{3, -1, 0, 1, 2},
		TTFTms:           []float64{50, nan, nan, 20.5, 30},
		E2Ems:            []float64{250, nan, nan, 20.5, 31.25},
		TRequestSent:     []float64{1700000000.5, 1700000001, nan, 1700000002, 1700000003},
		TFirstText:       []float64{1700000000.55, nan, nan, 1700000002.0205, nan},
		TLastText:        []float64{1700000000.75, nan, nan, 1700000002.0205, nan},
		Status:           StatusColumnOf("", "error: timeout", "", "ok", ""),
		MaxTokens:        []int64{3, 16, 16, -1, 2},
		TextChunks:       []int64{3, 0, 0, 1, -1},
		ChunkOffsets:     []int32{0, 3, 3, 3, 4, 4},
		ChunkMs:          []float64{50, 150, 250, 20.5},
		Phase:            []Phase{PhaseWarmup, PhaseMeasured, PhaseMeasured, PhaseMeasured, PhaseCooldown},
	}
	return q
}

func TestWriteRequestsParquetRoundTrip(t *testing.T) {
	q := writeSample()
	var buf bytes.Buffer
	if err := WriteRequestsParquet(&buf, q); err != nil {
		t.Fatal(err)
	}
	rf, err := ReadRequestsParquet(bytes.NewReader(buf.Bytes()), "requests.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(rf.Excluded) != 0 {
		t.Fatalf("excluded rows: %v", rf.Excluded)
	}
	got := rf.Requests
	// The reader reports a failed request's missing usage as 0 tokens.
	want := writeSample()
	want.CompletionTokens[1] = 0
	want.SourceRow = []int32{1, 2, 3, 4, 5}
	if got.N != want.N || !reflect.DeepEqual(got.IDs.Strings(), want.IDs.Strings()) {
		t.Fatalf("ids %v, want %v", got.IDs.Strings(), want.IDs.Strings())
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"SourceRow", got.SourceRow, want.SourceRow},
		{"PromptTokens", got.PromptTokens, want.PromptTokens},
		{"CompletionTokens", got.CompletionTokens, want.CompletionTokens},
		{"Status", got.Status, want.Status},
		{"MaxTokens", got.MaxTokens, want.MaxTokens},
		{"TextChunks", got.TextChunks, want.TextChunks},
		{"ChunkOffsets", got.ChunkOffsets, want.ChunkOffsets},
		{"ChunkMs", got.ChunkMs, want.ChunkMs},
		{"Phase", got.Phase, want.Phase},
		{"TTFTms", floatsText(got.TTFTms), floatsText(want.TTFTms)},
		{"E2Ems", floatsText(got.E2Ems), floatsText(want.E2Ems)},
		{"TRequestSent", floatsText(got.TRequestSent), floatsText(want.TRequestSent)},
		{"TFirstText", floatsText(got.TFirstText), floatsText(want.TFirstText)},
		{"TLastText", floatsText(got.TLastText), floatsText(want.TLastText)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// floatsText renders floats so NaN compares equal to NaN.
func floatsText(vs []float64) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = formatNumber(v)
	}
	return out
}

func TestWriteRequestsParquetDeterministicZstd(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteRequestsParquet(&a, writeSample()); err != nil {
		t.Fatal(err)
	}
	if err := WriteRequestsParquet(&b, writeSample()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two writes of the same requests differ")
	}
	pf, err := file.NewParquetReader(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if got := md.GetCreatedBy(); got != "benchnote" {
		t.Errorf("created_by %q, want benchnote", got)
	}
	rg := md.RowGroup(0)
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Compression() != compress.Codecs.Zstd {
			t.Errorf("column %s compressed with %v, want zstd", cc.PathInSchema(), cc.Compression())
		}
	}
	var names []string
	for c := 0; c < md.Schema.NumColumns(); c++ {
		names = append(names, md.Schema.Column(c).Path())
	}
	want := "request_id prompt_tokens completion_tokens TTFT_ms E2E_ms t_request_sent t_first_text t_last_text status max_tokens text_chunks chunk_ms.list.element phase"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("columns\n got %s\nwant %s", got, want)
	}
}

// TestWriteRequestsParquetXitongsysReads checks the file with a Parquet
// implementation that shares no code with Arrow's.
func TestWriteRequestsParquetXitongsysReads(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteRequestsParquet(&buf, writeSample()); err != nil {
		t.Fatal(err)
	}
	bf, err := buffer.NewBufferFile(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	pr, err := reader.NewParquetReader(bf, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.ReadStop()
	if n := pr.GetNumRows(); n != 5 {
		t.Fatalf("xitongsys reads %d rows, want 5", n)
	}
	rows, err := pr.ReadByNumber(5)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	// Each row comes back as a one-element list holding the record.
	var wrapped [][]map[string]any
	if err := json.Unmarshal(js, &wrapped); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	var got []map[string]any
	for _, w := range wrapped {
		if len(w) != 1 {
			t.Fatalf("row of %d records: %s", len(w), js)
		}
		got = append(got, w[0])
	}
	// xitongsys names fields after the columns, capitalised.
	field := func(row map[string]any, name string) any {
		for k, v := range row {
			if strings.EqualFold(k, name) {
				return v
			}
		}
		t.Fatalf("no field %s in %v", name, row)
		return nil
	}
	for i, want := range []struct {
		id      string
		ttft    any
		tokens  any
		status  string
		phase   string
		chunkMs []any
	}{
		{"r1", 50.0, 3.0, "", "warmup", []any{50.0, 150.0, 250.0}},
		{"r2", nil, nil, "error: timeout", "", nil},
		{"r3", nil, 0.0, "", "", nil},
		{"r4", 20.5, 1.0, "ok", "", []any{20.5}},
		{"r5", 30.0, 2.0, "", "cooldown", nil},
	} {
		row := got[i]
		if v := field(row, "request_id"); v != want.id {
			t.Errorf("row %d request_id %v, want %s", i, v, want.id)
		}
		if v := field(row, "TTFT_ms"); !reflect.DeepEqual(v, want.ttft) {
			t.Errorf("row %d TTFT_ms %v, want %v", i, v, want.ttft)
		}
		if v := field(row, "completion_tokens"); !reflect.DeepEqual(v, want.tokens) {
			t.Errorf("row %d completion_tokens %v, want %v", i, v, want.tokens)
		}
		if v := field(row, "status"); v != want.status {
			t.Errorf("row %d status %v, want %q", i, v, want.status)
		}
		if v := field(row, "phase"); v != want.phase {
			t.Errorf("row %d phase %v, want %q", i, v, want.phase)
		}
		elems, _ := field(row, "chunk_ms").([]any)
		if len(elems) == 0 {
			elems = nil
		}
		if !reflect.DeepEqual(elems, want.chunkMs) {
			t.Errorf("row %d chunk_ms %v, want %v", i, elems, want.chunkMs)
		}
	}
}

func TestWriteRequestsParquetRejectsRaggedColumns(t *testing.T) {
	q := writeSample()
	q.Status.Codes = q.Status.Codes[:4]
	err := WriteRequestsParquet(&bytes.Buffer{}, q)
	if err == nil || !strings.Contains(err.Error(), "column status has 4 values for 5 rows") {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteRequestsParquetEmpty(t *testing.T) {
	q := &Requests{}
	var buf bytes.Buffer
	if err := WriteRequestsParquet(&buf, q); err != nil {
		t.Fatal(err)
	}
	rf, err := ReadRequestsParquet(bytes.NewReader(buf.Bytes()), "requests.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if rf.RowsRead != 0 || rf.Requests.N != 0 {
		t.Fatalf("read %d rows", rf.RowsRead)
	}
}

var _ parquet.ReaderAtSeeker = (*bytes.Reader)(nil)
