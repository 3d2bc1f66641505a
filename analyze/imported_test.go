package analyze

import (
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// Requests the source tool marked as warm-up or cool-down are not
// measured and are counted apart; a source that lost the send order gets
// no warm-up rule; the tool's figures are set beside benchnote's.
func TestImportedRun(t *testing.T) {
	run := makeRun("rate16/run-1", 4, 1, []req{
		{id: "w", n: 3, ttft: 900, e2e: 1000},
		{id: "a", n: 3, ttft: 100, e2e: 140},
		{id: "b", n: 2, ttft: 200, e2e: 230},
		{id: "c", n: 0, ttft: 0, e2e: 0},
		{id: "d", n: 5, ttft: 300, e2e: 380},
		{id: "z", n: 3, ttft: 50, e2e: 60},
	})
	run.Requests.Requests.Phase = []ingest.Phase{ingest.PhaseWarmup, 0, 0, 0, 0, ingest.PhaseCooldown}
	run.Provenance = &ingest.Provenance{Tool: "LLMPerf", Version: "summary 2023-08-31",
		Unavailable: []string{ingest.UnavailableSendOrder, ingest.UnavailableRequestIDs},
		TokenCounts: "tokenizer:hf-internal-testing/llama-tokenizer",
		Reported: []ingest.ReportedFigure{
			{Key: "ttft.p50", Label: "median TTFT", Value: 150, Unit: "ms"},
			{Key: "ttft.p25", Label: "p25 TTFT", Value: 90, Unit: "ms"},
			{Key: "e2e.n", Label: "count", Value: 4, Unit: "requests"},
			{Key: "ttft.sum", Label: "sum TTFT", Value: 600, Unit: "ms"},
			{Key: "duration_s", Label: "duration", Value: 9, Unit: "s"},
		}}
	sw := &ingest.Sweep{Config: ingest.DefaultConfig(), Runs: []*ingest.Run{run}}
	s := Analyze(sw)
	rs := s.Runs[0]
	c := rs.Counts
	if c.Accepted != 6 || c.WarmUp != 1 || c.CoolDown != 1 || c.Measured != 4 || c.ZeroToken != 1 || c.MultiToken != 3 {
		t.Errorf("counts %+v; want 6 accepted, 1 warm-up, 1 cool-down, 4 measured (1 zero-token, 3 multi)", c)
	}
	if rs.TTFT.N != 3 || rs.TTFT.P50 != 200 || rs.TTFT.Max != 300 {
		t.Errorf("TTFT over the measured requests: n %d, p50 %v, max %v; want 3, 200, 300", rs.TTFT.N, rs.TTFT.P50, rs.TTFT.Max)
	}
	if rs.Warmup.Outcome != WarmupUnavailable || rs.Warmup.Discarded != 0 || rs.Warmup.MarkedWarmup != 1 || rs.Warmup.MarkedCooldown != 1 || !strings.Contains(rs.Warmup.Note, "not in send order") {
		t.Errorf("warm-up %+v", rs.Warmup)
	}
	if hasFinding(s, "warm-up-never-stabilised") {
		t.Error("a run without send order is flagged for never stabilising")
	}
	for _, reason := range []string{"warm-up (marked by the source tool): not measured", "cool-down (marked by the source tool): not measured"} {
		if exclusionCount(s, reason) != 1 {
			t.Errorf("exclusion %q counted %d times, want 1", reason, exclusionCount(s, reason))
		}
	}
	imp := rs.Import
	if imp == nil || imp.Tool != "LLMPerf" || len(imp.Unavailable) != 2 || imp.Unavailable[0].Text != ingest.UnavailableAnalyses[ingest.UnavailableSendOrder] {
		t.Fatalf("import summary %+v", imp)
	}
	want := []struct {
		benchnote float64
		valid     bool
		basis     string
	}{
		{200, true, "p50, nearest-rank, per-request, 3 requests"},
		{0, false, "benchnote does not compute p25"},
		{3, true, "samples: per-request, 3 requests"},
		{600, true, "sum over per-request, 3 requests"},
		{0, false, "no benchnote counterpart"},
	}
	for i, w := range want {
		f := imp.Figures[i]
		if f.Benchnote.Valid() != w.valid || w.valid && !near(float64(f.Benchnote), w.benchnote) || f.Basis != w.basis {
			t.Errorf("figure %s: benchnote %v (%s), want %v (%s)", f.Key, f.Benchnote, f.Basis, w.benchnote, w.basis)
		}
	}
}

// Send times on a monotonic clock cannot be placed in a wall-clock window:
// every request counts for the window's rates, as without timestamps.
func TestMonotonicClockIgnoresWindowPlacement(t *testing.T) {
	run := makeRun("c1/run-1", 1, 1, []req{
		{id: "a", n: 3, ttft: 100, e2e: 140, sent: 5000},
		{id: "b", n: 3, ttft: 100, e2e: 140, sent: 5001},
	})
	run.Clock = "monotonic"
	run.Window = ingest.Window{Start: time.Unix(1700000000, 0), End: time.Unix(1700000010, 0), Source: "run.yaml"}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	th := s.Runs[0].Throughput
	if th.RequestsInWindow != 2 || !strings.HasPrefix(th.RequestsBasis, "every accepted request (no wall-clock timestamps") {
		t.Errorf("requests in window %d (%s), want 2, every accepted request", th.RequestsInWindow, th.RequestsBasis)
	}
}

// A sweep's reported-only runs are summarised apart, never in a level.
func TestReportedRunsStayOutOfLevels(t *testing.T) {
	run := makeRun("c1/run-1", 1, 1, []req{{id: "a", n: 3, ttft: 100, e2e: 140}})
	sw := &ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}, Reported: []*ingest.ReportedRun{{
		Dir: "c1/reported-1", Load: ingest.ConcurrencyLoad(1), Repeat: 1,
		Provenance: &ingest.Provenance{Tool: "SGLang bench_serving", Reported: []ingest.ReportedFigure{{Key: "ttft.p50", Label: "median TTFT", Value: 85.7, Unit: "ms"}}},
	}}}
	s := Analyze(sw)
	if len(s.Levels) != 1 || len(s.Levels[0].Runs) != 1 || s.Accounting.Runs != 1 {
		t.Fatalf("levels %d, runs in level %v, runs %d; the reported run must not count", len(s.Levels), s.Levels[0].Runs, s.Accounting.Runs)
	}
	if len(s.Reported) != 1 || s.Reported[0].Load().Describe() != "concurrency 1" || s.Reported[0].Import.Figures[0].Reported != 85.7 || s.Reported[0].Import.Figures[0].Benchnote.Valid() {
		t.Errorf("reported %+v", s.Reported)
	}
	if exclusionCount(s, "tool's aggregates only: shown as reported, not recomputed, in no level") != 1 {
		t.Errorf("the reported run is not listed among the exclusions")
	}
}
