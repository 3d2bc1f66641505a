package ingest

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet/compress"
)

// A successful request with completion_tokens 0 never received a first
// token: empty TTFT_ms and E2E_ms are accepted for it (it is a zero-token
// request, not a latency sample). With n ≥ 1 they are still required. The
// phase column marks the source tool's warm-up and cool-down requests.
func TestZeroTokenRowsAndPhases(t *testing.T) {
	const csv = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,phase\n" +
		"a,10,3,100,140,warmup\n" +
		"b,10,0,,,\n" +
		"c,10,1,,,\n" +
		"d,10, ,,,\n" +
		"e,10,2,50,60,Cool-Down\n" +
		"f,10,2,50,60,later\n" +
		"g,10,2,50,60,measure\n"
	rf, err := ReadRequestsCSV(strings.NewReader(csv), "r/requests.csv")
	if err != nil {
		t.Fatal(err)
	}
	q := rf.Requests
	if got := strings.Join(q.IDs.Strings(), ","); got != "a,b,e,g" {
		t.Fatalf("accepted %s, want a,b,e,g; excluded %v", got, rf.Excluded)
	}
	wantExcl := []struct {
		line   int
		reason string
		msg    string
	}{
		{4, "missing field", "TTFT_ms: expected a non-negative number, got an empty field"},
		{5, "missing field", "completion_tokens: expected a non-negative integer, got an empty field"},
		{7, "bad phase", `phase: expected measure, warmup, cooldown or an empty field, got "later"`},
	}
	if len(rf.Excluded) != len(wantExcl) {
		t.Fatalf("excluded %v", rf.Excluded)
	}
	for i, w := range wantExcl {
		d := rf.Excluded[i]
		if d.Line != w.line || d.Reason != w.reason || d.Message != w.msg {
			t.Errorf("excluded[%d] = line %d %q %q, want line %d %q %q", i, d.Line, d.Reason, d.Message, w.line, w.reason, w.msg)
		}
	}
	if !math.IsNaN(q.TTFTms[1]) || !math.IsNaN(q.E2Ems[1]) || q.CompletionTokens[1] != 0 {
		t.Errorf("row b: TTFT %v E2E %v n %d; want NaN NaN 0", q.TTFTms[1], q.E2Ems[1], q.CompletionTokens[1])
	}
	if want := []Phase{PhaseWarmup, PhaseMeasured, PhaseCooldown, PhaseMeasured}; !slices.Equal(q.Phase, want) {
		t.Errorf("phases %v, want %v", q.Phase, want)
	}

	fields := []arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "phase", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	rec := reqRecordFromJSON(t, fields, `[
		{"request_id": "a", "prompt_tokens": 10, "completion_tokens": 3, "TTFT_ms": 100, "E2E_ms": 140, "phase": "warmup"},
		{"request_id": "b", "prompt_tokens": 10, "completion_tokens": 0, "TTFT_ms": null, "E2E_ms": null, "phase": null},
		{"request_id": "c", "prompt_tokens": 10, "completion_tokens": 1, "TTFT_ms": null, "E2E_ms": null, "phase": ""},
		{"request_id": "f", "prompt_tokens": 10, "completion_tokens": 2, "TTFT_ms": 50, "E2E_ms": 60, "phase": "later"},
		{"request_id": "e", "prompt_tokens": 10, "completion_tokens": 2, "TTFT_ms": 50, "E2E_ms": 60, "phase": "cooldown"}
	]`)
	rf, err = reqReadParquetFile(t, reqWriteArrowParquet(t, rec, reqParquetOpts{codec: compress.Codecs.Snappy}))
	if err != nil {
		t.Fatal(err)
	}
	q = rf.Requests
	if got := strings.Join(q.IDs.Strings(), ","); got != "a,b,e" {
		t.Fatalf("Parquet: accepted %s, want a,b,e; excluded %v", got, rf.Excluded)
	}
	if len(rf.Excluded) != 2 || rf.Excluded[0].Line != 3 || rf.Excluded[0].Reason != "missing field" ||
		rf.Excluded[1].Line != 4 || rf.Excluded[1].Message != `phase: expected measure, warmup, cooldown or an empty field, got "later"` {
		t.Fatalf("Parquet excluded %v", rf.Excluded)
	}
	if !math.IsNaN(q.TTFTms[1]) || q.Phase[0] != PhaseWarmup || q.Phase[1] != PhaseMeasured || q.Phase[2] != PhaseCooldown {
		t.Errorf("Parquet rows: TTFT[1] %v phases %v", q.TTFTms[1], q.Phase)
	}
}

func TestParsePhase(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Phase
		ok   bool
	}{
		{"", PhaseMeasured, true}, {" measure ", PhaseMeasured, true}, {"WARMUP", PhaseWarmup, true},
		{"warm-up", PhaseWarmup, true}, {"cooldown", PhaseCooldown, true}, {"profiling", PhaseMeasured, false},
	} {
		got, ok := ParsePhase(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParsePhase(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
