package ingest

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet/compress"
)

// A failed request has no first token, no end and no usage: its empty
// completion_tokens, TTFT_ms and E2E_ms do not make it a bad row, so it is
// counted as an error rather than dropped. A successful one with the same
// gaps is still a bad row.
func TestFailedRequestsMayLackTimings(t *testing.T) {
	const csv = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"a,10,3,100,140,ok\n" +
		"b,10,,,,HTTP 503: overloaded\n" +
		"c,10,2,,,timeout\n" +
		"d,10,,,,\n" +
		"e,,,,,HTTP 500\n" +
		"f,,4,30,50,ok\n"
	rf, err := ReadRequestsCSV(strings.NewReader(csv), "r/requests.csv")
	if err != nil {
		t.Fatal(err)
	}
	q := rf.Requests
	if q.N != 4 || len(rf.Excluded) != 2 || rf.Excluded[0].Line != 5 || rf.Excluded[0].Reason != "missing field" ||
		rf.Excluded[1].Line != 7 || rf.Excluded[1].Reason != "missing field" {
		t.Fatalf("accepted %d rows, excluded %v; want a, b, c, e accepted and lines 5 and 7 excluded", q.N, rf.Excluded)
	}
	if q.PromptTokens[3] != 0 || q.Status.At(3) != "HTTP 500" {
		t.Errorf("row e (failed, no prompt length) = prompt %d, status %q; want 0 and the error", q.PromptTokens[3], q.Status.At(3))
	}
	if q.CompletionTokens[1] != 0 || !math.IsNaN(q.TTFTms[1]) || !math.IsNaN(q.E2Ems[1]) || q.Status.At(1) != "HTTP 503: overloaded" {
		t.Errorf("row b = n %d, TTFT %v, E2E %v, status %q; want 0, NaN, NaN, the error", q.CompletionTokens[1], q.TTFTms[1], q.E2Ems[1], q.Status.At(1))
	}
	if q.CompletionTokens[2] != 2 || !math.IsNaN(q.TTFTms[2]) {
		t.Errorf("row c = n %d, TTFT %v; want 2 (partial output) and NaN", q.CompletionTokens[2], q.TTFTms[2])
	}

	fields := []arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	rec := reqRecordFromJSON(t, fields, `[
		{"request_id": "a", "prompt_tokens": 10, "completion_tokens": 3, "TTFT_ms": 100, "E2E_ms": 140, "status": "ok"},
		{"request_id": "b", "prompt_tokens": 10, "completion_tokens": null, "TTFT_ms": null, "E2E_ms": null, "status": "HTTP 503: overloaded"},
		{"request_id": "d", "prompt_tokens": 10, "completion_tokens": null, "TTFT_ms": null, "E2E_ms": null, "status": null},
		{"request_id": "e", "prompt_tokens": null, "completion_tokens": null, "TTFT_ms": null, "E2E_ms": null, "status": "HTTP 500"},
		{"request_id": "f", "prompt_tokens": null, "completion_tokens": 4, "TTFT_ms": 30, "E2E_ms": 50, "status": "ok"}
	]`)
	rf, err = reqReadParquetFile(t, reqWriteArrowParquet(t, rec, reqParquetOpts{codec: compress.Codecs.Snappy}))
	if err != nil {
		t.Fatal(err)
	}
	q = rf.Requests
	if q.N != 3 || len(rf.Excluded) != 2 || rf.Excluded[0].Line != 3 || rf.Excluded[0].Reason != "missing field" ||
		rf.Excluded[1].Line != 5 || rf.Excluded[1].Reason != "missing field" {
		t.Fatalf("Parquet: accepted %d rows, excluded %v; want a, b, e accepted and rows 3 and 5 excluded", q.N, rf.Excluded)
	}
	if q.PromptTokens[2] != 0 || q.Status.At(2) != "HTTP 500" {
		t.Errorf("Parquet row e (failed, no prompt length) = prompt %d, status %q; want 0 and the error", q.PromptTokens[2], q.Status.At(2))
	}
	if q.CompletionTokens[1] != 0 || !math.IsNaN(q.TTFTms[1]) || !math.IsNaN(q.E2Ems[1]) {
		t.Errorf("Parquet row b = n %d, TTFT %v, E2E %v; want 0, NaN, NaN", q.CompletionTokens[1], q.TTFTms[1], q.E2Ems[1])
	}
}
