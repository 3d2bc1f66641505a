package analyze

import (
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// req is one hand-written client record.
type req struct {
	id        string
	n         int64
	ttft, e2e float64
	status    string
	sent      float64   // unix seconds; 0 = column absent
	chunks    []float64 // ms since send
}

// makeRun builds an ingest.Run from hand-written records.
func makeRun(dir string, conc, repeat int, rs []req) *ingest.Run {
	q := &ingest.Requests{N: len(rs)}
	hasSent, hasChunks, hasStatus := false, false, false
	for _, r := range rs {
		hasSent = hasSent || r.sent != 0
		hasChunks = hasChunks || r.chunks != nil
		hasStatus = hasStatus || r.status != ""
	}
	if hasChunks {
		q.ChunkOffsets = []int32{0}
	}
	if hasStatus {
		q.Status = &ingest.StatusColumn{}
	}
	for i, r := range rs {
		q.SourceRow = append(q.SourceRow, int32(i+2))
		q.IDs.Append(r.id)
		q.PromptTokens = append(q.PromptTokens, 100)
		q.CompletionTokens = append(q.CompletionTokens, r.n)
		q.TTFTms = append(q.TTFTms, r.ttft)
		q.E2Ems = append(q.E2Ems, r.e2e)
		if hasSent {
			q.TRequestSent = append(q.TRequestSent, r.sent)
			q.TLastText = append(q.TLastText, r.sent+r.e2e/1000)
		}
		if hasStatus {
			q.Status.Append(r.status)
		}
		if hasChunks {
			q.ChunkMs = append(q.ChunkMs, r.chunks...)
			q.ChunkOffsets = append(q.ChunkOffsets, int32(len(q.ChunkMs)))
		}
	}
	return &ingest.Run{
		Dir: dir, Concurrency: conc, Repeat: repeat,
		Requests: &ingest.RequestFile{Path: dir + "/requests.csv", Format: "csv", RowsRead: len(rs), Requests: q},
		Window:   ingest.Window{Source: "unknown"},
	}
}

func noWarmupConfig() ingest.Config {
	c := ingest.DefaultConfig()
	c.Warmup.Mode = "none"
	return c
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestFiveTokenTrace is the opening trace of serving-workloads-and-metrics:
// TTFT 120, ITLs 35/37/36/37, TPOT 36.25, E2E 265, user TPS 4/0.145.
func TestFiveTokenTrace(t *testing.T) {
	run := makeRun("c1/r1", 1, 1, []req{{id: "a", n: 5, ttft: 120, e2e: 265, chunks: []float64{120, 155, 192, 228, 265}}})
	sw := &ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}}
	s := Analyze(sw)
	r := s.Runs[0]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"TTFT p50", float64(r.TTFT.P50), 120},
		{"E2E p50", float64(r.E2E.P50), 265},
		{"TPOT p50", float64(r.TPOT.P50), 36.25},
		{"TPOT mean", float64(r.TPOT.Mean), 36.25},
		{"user TPS", float64(r.UserTPS.P50), 4 / 0.145},
		{"gap-weighted ITL", float64(r.GapWeightedITL), 36.25},
		{"ITL p50 (nearest rank of 35,36,37,37)", float64(r.ITL.P50), 36},
		{"ITL max", float64(r.ITL.Max), 37},
		{"ITL mean", float64(r.ITL.Mean), 36.25},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := math.Round(float64(r.UserTPS.P50)*10) / 10; got != 27.6 {
		t.Errorf("user TPS rounded = %v, want 27.6", got)
	}
	if !r.GapDistributionKnown || r.ITL.Sample != SamplePerGap || r.ITL.N != 4 {
		t.Errorf("ITL = %+v, want a known per-gap distribution of 4 gaps", r.ITL)
	}
	if r.GapCount != 4 {
		t.Errorf("gap count = %d, want 4", r.GapCount)
	}
}

// TestRequestVsGapWeighted is requests A and B: mean TPOT 30 ms
// (request-weighted) against mean ITL 10.4 ms (gap-weighted).
func TestRequestVsGapWeighted(t *testing.T) {
	run := makeRun("c2/r1", 2, 1, []req{
		{id: "A", n: 100, ttft: 100, e2e: 100 + 99*10},
		{id: "B", n: 2, ttft: 100, e2e: 150},
	})
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	r := s.Runs[0]
	if !near(float64(r.TPOT.Mean), 30) || r.TPOT.MeanWeighting != WeightRequest {
		t.Errorf("TPOT mean = %v (%s), want 30 request-weighted", r.TPOT.Mean, r.TPOT.MeanWeighting)
	}
	if !near(float64(r.GapWeightedITL), 10.4) {
		t.Errorf("gap-weighted ITL = %v, want 10.4", r.GapWeightedITL)
	}
}

// twentyTTFTs are 20 TTFTs whose 10th value is 190, 19th 600 and 20th 1000
// (latency-and-throughput, Figure 4), shuffled.
var twentyTTFTs = []float64{600, 120, 1000, 150, 90, 170, 110, 190, 80, 200, 130, 210, 100, 220, 350, 300, 140, 250, 400, 500}

func TestNearestRankPercentiles(t *testing.T) {
	xs := append([]float64(nil), twentyTTFTs...)
	q := Quantiles(xs, []float64{0.50, 0.95}, NearestRank)
	if q[0] != 190 || q[1] != 600 {
		t.Fatalf("nearest rank p50, p95 = %v, want [190 600]", q)
	}
	// Linear interpolation, for comparison with other tools: p50 at h = 9.5
	// between 190 and 200; p95 at h = 18.05 between 600 and 1000.
	xs = append([]float64(nil), twentyTTFTs...)
	q = Quantiles(xs, []float64{0.50, 0.95}, Linear)
	if !near(q[0], 195) || !near(q[1], 620) {
		t.Fatalf("linear p50, p95 = %v, want [195 620]", q)
	}
}

func TestQuantilesMatchSort(t *testing.T) {
	// A deterministic pseudo-random sample with ties.
	var xs []float64
	v := uint64(12345)
	for i := 0; i < 10007; i++ {
		v = v*6364136223846793005 + 1442695040888963407
		xs = append(xs, float64(v>>54))
	}
	sorted := append([]float64(nil), xs...)
	insertionSortLarge(sorted)
	ps := cdfProbabilities()
	got := Quantiles(append([]float64(nil), xs...), ps, NearestRank)
	for i, p := range ps {
		want := sorted[oracleRankIndex(p, len(sorted))]
		if got[i] != want {
			t.Fatalf("p%v = %v, want %v", p, got[i], want)
		}
	}
}

func insertionSortLarge(xs []float64) {
	// sort.Float64s would do; kept separate so the test does not share code
	// with the implementation's selection.
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func TestMedianAndMAD(t *testing.T) {
	tests := []struct {
		xs          []float64
		median, mad float64
		scaled      bool
	}{
		{[]float64{1, 2, 3}, 2, 1, false},
		{[]float64{1, 2, 3, 4}, 2.5, 1, false},
		{[]float64{10, 12, 30}, 12, 2, false},
		{[]float64{10, 12, 30}, 12, 2 * 1.4826, true},
	}
	for _, tt := range tests {
		if m := Median(tt.xs); m != tt.median {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, m, tt.median)
		}
		if m := MAD(tt.xs, tt.scaled); !near(m, tt.mad) {
			t.Errorf("MAD(%v, %v) = %v, want %v", tt.xs, tt.scaled, m, tt.mad)
		}
	}
}

// TestGoodputExample is Figure 5: ten successful requests in 10 s, A–H meet
// TTFT ≤ 1 s and TPOT ≤ 50 ms, I misses TTFT and J misses TPOT.
func TestGoodputExample(t *testing.T) {
	start := time.Unix(1_700_000_000, 0).UTC()
	var rs []req
	for i, id := range []string{"A", "B", "C", "D", "E", "F", "G", "H"} {
		rs = append(rs, req{id: id, n: 11, ttft: 500, e2e: 500 + 10*40, sent: 1_700_000_000 + float64(i)})
	}
	rs = append(rs, req{id: "I", n: 11, ttft: 1500, e2e: 1500 + 10*40, sent: 1_700_000_008})
	rs = append(rs, req{id: "J", n: 11, ttft: 500, e2e: 500 + 10*60, sent: 1_700_000_008.5})
	run := makeRun("c4/r1", 4, 1, rs)
	run.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	cfg := noWarmupConfig()
	cfg.SLO = ingest.SLO{TTFTms: 1000, TPOTms: 50}
	s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{run}})
	r := s.Runs[0]
	if r.Goodput.Passed != 8 || r.Goodput.Measured != 10 || float64(r.Goodput.Percent) != 80 {
		t.Errorf("goodput = %d/%d = %v%%, want 8/10 = 80%%", r.Goodput.Passed, r.Goodput.Measured, r.Goodput.Percent)
	}
	if !near(float64(r.Goodput.RequestsPerSec), 0.8) {
		t.Errorf("request goodput = %v req/s, want 0.8", r.Goodput.RequestsPerSec)
	}
	if !near(float64(r.Throughput.RequestsPerSec), 1) || r.Throughput.RequestsInWindow != 10 {
		t.Errorf("throughput = %v req/s over %d requests, want 1 req/s over 10", r.Throughput.RequestsPerSec, r.Throughput.RequestsInWindow)
	}
	want := []ReasonCount{{"TPOT > 50 ms", 1}, {"TTFT > 1000 ms", 1}}
	if len(r.Goodput.FailedBy) != 2 || r.Goodput.FailedBy[0] != want[0] || r.Goodput.FailedBy[1] != want[1] {
		t.Errorf("failed by = %v, want %v", r.Goodput.FailedBy, want)
	}
	if g := s.Levels[0].Goodput; g.Passed != 8 || g.Measured != 10 || len(g.FailedBy) != 2 || g.FailedBy[0] != want[0] {
		t.Errorf("level goodput counts = %+v, want 8 of 10 with %v", g, want)
	}
}

// figure2Run is Figure 2's run: requests A, B, C with 3, 5 and 2 output
// tokens in a 10 s window, the generation-token counter going from 1000
// to genEnd and the prompt-token counter from 5000 to 5300.
func figure2Run(genEnd float64) *ingest.Run {
	start := time.Unix(1_700_000_000, 0).UTC()
	run := makeRun("c3/r1", 3, 1, []req{
		{id: "A", n: 3, ttft: 100, e2e: 300, sent: 1_700_000_001},
		{id: "B", n: 5, ttft: 100, e2e: 500, sent: 1_700_000_002},
		{id: "C", n: 2, ttft: 100, e2e: 200, sent: 1_700_000_003},
	})
	run.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	run.ScrapeStart = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 1000, ingest.RolePromptTokens: 5000}}
	run.ScrapeEnd = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: genEnd, ingest.RolePromptTokens: 5300}}
	return run
}

// TestThroughputExample is Figure 2: requests A, B, C with 3, 5 and 2
// output tokens in a 10 s window: 0.3 req/s and 1 token/s; prompt tokens
// are a separate rate.
func TestThroughputExample(t *testing.T) {
	run := figure2Run(1010)
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	tp := s.Runs[0].Throughput
	if float64(tp.OutputTokensPerSec) != 1 || float64(tp.PromptTokensPerSec) != 30 || !near(float64(tp.RequestsPerSec), 0.3) {
		t.Errorf("output %v tok/s, prompt %v tok/s, %v req/s; want 1, 30, 0.3", tp.OutputTokensPerSec, tp.PromptTokensPerSec, tp.RequestsPerSec)
	}
	if float64(tp.CounterMismatch) != 0 || tp.ClientCompletionTokens != 10 {
		t.Errorf("counter mismatch %v with %d client tokens, want 0 and 10", tp.CounterMismatch, tp.ClientCompletionTokens)
	}
	// Client side: 10 tokens over T_last − T_first, from A's send (…001) to
	// C's last token (…003 + 0.2 s) = 2.2 s, labelled separately.
	if !(math.Abs(float64(tp.ClientSpanSeconds)-2.2) <= 1e-6) || !(math.Abs(float64(tp.ClientOutputTokensPerSec)-10/2.2) <= 1e-5) {
		t.Errorf("client span %v s, %v tok/s; want 2.2 s and %v", tp.ClientSpanSeconds, tp.ClientOutputTokensPerSec, 10/2.2)
	}
}

// TestCounterDecreaseInvalidatesServerThroughput: a counter that went down
// shows a restarted server, so neither counter's delta is a measurement of
// the window and the run has no server throughput.
func TestCounterDecreaseInvalidatesServerThroughput(t *testing.T) {
	start := time.Unix(1_700_000_000, 0).UTC()
	run := makeRun("c1/r1", 1, 1, []req{{id: "a", n: 3, ttft: 10, e2e: 30}})
	run.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	run.ScrapeStart = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 1000, ingest.RolePromptTokens: 50}}
	run.ScrapeEnd = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 3, ingest.RolePromptTokens: 60},
		CounterNames: map[ingest.MetricRole]string{ingest.RoleGenerationTokens: "vllm:generation_tokens_total"}}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	tp := s.Runs[0].Throughput
	if tp.OutputTokensPerSec.Valid() || tp.PromptTokensPerSec.Valid() {
		t.Errorf("output %v, prompt %v tokens/s after a counter decrease, want both unavailable", tp.OutputTokensPerSec, tp.PromptTokensPerSec)
	}
	const why = "the start and end scrapes cannot come from one server process: counter vllm:generation_tokens_total decreased from 1000 to 3"
	if tp.ServerUnavailable != why {
		t.Errorf("reason = %q, want %q", tp.ServerUnavailable, why)
	}
	f, ok := finding(s, "scrapes-not-one-process")
	if !ok || f.Severity != "error" || len(f.Runs) != 1 || f.Runs[0] != "c1/r1: counter vllm:generation_tokens_total decreased from 1000 to 3" {
		t.Errorf("finding = %+v, %v; want an error naming c1/r1 and the counter", f, ok)
	}
}

// finding returns the finding of a rule.
func finding(s *Summary, rule string) (Finding, bool) {
	for _, f := range s.Findings {
		if f.Rule == rule {
			return f, true
		}
	}
	return Finding{}, false
}

func hasFinding(s *Summary, rule string) bool {
	for _, f := range s.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func exclusionCount(s *Summary, reason string) int {
	for _, e := range s.Exclusions {
		if e.Reason == reason {
			return e.Count
		}
	}
	return 0
}

// TestZeroOneTokenAndErrors checks the per-request classes: an error is not a
// latency sample, n = 0 is not a latency sample, n = 1 is a TTFT/E2E sample
// without TPOT, and every class is counted.
func TestZeroOneTokenAndErrors(t *testing.T) {
	run := makeRun("c1/r1", 1, 1, []req{
		{id: "multi", n: 3, ttft: 100, e2e: 140, status: "ok"},
		{id: "one", n: 1, ttft: 90, e2e: 90},
		{id: "zero", n: 0, ttft: 0, e2e: 50},
		{id: "err1", n: 0, ttft: 0, e2e: 10, status: "HTTP 503: overloaded"},
		{id: "err2", n: 2, ttft: 5, e2e: 10, status: "HTTP 503: overloaded"},
	})
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	r := s.Runs[0]
	want := Counts{RowsRead: 5, Accepted: 5, Measured: 5, Errors: 2, ZeroToken: 1, OneToken: 1, MultiToken: 1}
	if r.Counts != want {
		t.Errorf("counts = %+v, want %+v", r.Counts, want)
	}
	if r.TTFT.N != 2 || r.E2E.N != 2 || r.TPOT.N != 1 || r.UserTPS.N != 1 {
		t.Errorf("sample sizes TTFT %d E2E %d TPOT %d userTPS %d, want 2 2 1 1", r.TTFT.N, r.E2E.N, r.TPOT.N, r.UserTPS.N)
	}
	if float64(r.TPOT.P50) != 20 {
		t.Errorf("TPOT = %v, want 20 (40 ms over 2 gaps)", r.TPOT.P50)
	}
	if float64(r.TTFT.P50) != 90 || float64(r.TTFT.Max) != 100 {
		t.Errorf("TTFT p50 %v max %v, want 90 and 100", r.TTFT.P50, r.TTFT.Max)
	}
	if got := exclusionCount(s, "request error (not a latency sample): HTTP 503: overloaded"); got != 2 {
		t.Errorf("error exclusions = %d, want 2 (exclusions %v)", got, s.Exclusions)
	}
	if got := exclusionCount(s, "no output tokens, n = 0 (not a latency sample)"); got != 1 {
		t.Errorf("n = 0 exclusions = %d, want 1", got)
	}
	// Goodput: errors and n = 0 fail; 3 of 5 pass the default SLO.
	if r.Goodput.Passed != 2 || r.Goodput.Measured != 5 || float64(r.Goodput.Percent) != 40 {
		t.Errorf("goodput %d/%d = %v%%, want 2/5 = 40%%", r.Goodput.Passed, r.Goodput.Measured, r.Goodput.Percent)
	}
	// The server TPOT histogram would hold 0 s samples for these: omitted.
	end := ingest.Histogram{Buckets: buckets(0.01, 3, math.Inf(1), 5), Count: 5}
	run.ScrapeEnd = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RoleRequestTPOT: end}}
	run.ScrapeStart = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{}}
	s = Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	for _, h := range s.Runs[0].Server {
		if h.Role == string(ingest.RoleRequestTPOT) && h.Omitted != "omitted: the run has successful requests with 0 or 1 output tokens (warm-up included), which the server histogram records as 0 s TPOT" {
			t.Errorf("server TPOT histogram omitted = %q", h.Omitted)
		}
	}
}

func TestNonStreamedTTFTIsNotReported(t *testing.T) {
	var rs []req
	for i := 0; i < 10; i++ {
		rs = append(rs, req{id: string(rune('a' + i)), n: 50, ttft: 800 + float64(i), e2e: 800 + float64(i)})
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, rs)}})
	r := s.Runs[0]
	if r.Streamed || r.TTFT.P50.Valid() || r.TPOT.P50.Valid() ||
		r.TTFT.Unavailable != "not measured: TTFT equals E2E for 10 of 10 requests, so the response was not streamed" {
		t.Errorf("streamed %v, TTFT %+v: want TTFT not reported", r.Streamed, r.TTFT)
	}
	if float64(r.E2E.P50) != 804 {
		t.Errorf("E2E p50 = %v, want 804 (still reported)", r.E2E.P50)
	}
	if !hasFinding(s, "non-streamed-ttft") {
		t.Error("no non-streamed-ttft finding")
	}
}

func TestChunkedStreamingGivesChunkGaps(t *testing.T) {
	run := makeRun("c1/r1", 1, 1, []req{
		{id: "a", n: 4, ttft: 100, e2e: 160, chunks: []float64{100, 130, 160}}, // 3 chunks, 4 tokens
	})
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	r := s.Runs[0]
	if r.GapDistributionKnown || r.ITL.Sample != SampleChunkGap || r.ITL.N != 2 || float64(r.ITL.Max) != 30 {
		t.Errorf("ITL = %+v, want chunk-arrival gaps [30 30]", r.ITL)
	}
	if r.ITL.Unavailable != "per-gap distribution unknown: chunks carry several tokens" {
		t.Errorf("ITL note = %q", r.ITL.Unavailable)
	}
	if !near(float64(r.TPOT.P50), 20) {
		t.Errorf("TPOT = %v, want 20 (endpoint average over n−1 = 3 gaps)", r.TPOT.P50)
	}
	if !hasFinding(s, "chunked-streaming") {
		t.Error("no chunked-streaming finding")
	}
}

func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(1)
	h := ingest.Histogram{Buckets: buckets(0.1, 10, 0.2, 30, 0.4, 40, inf, 40), Count: 40, Sum: 7}
	tests := []struct {
		q, want float64
	}{
		{0.5, 0.15},   // rank 20: 10 into bucket (0.1, 0.2] of 20 → 0.1 + 0.1·10/20
		{0.25, 0.1},   // rank 10: top of the first bucket
		{0.125, 0.05}, // rank 5 in (0, 0.1]
		{0.95, 0.36},  // rank 38: 8 of the 10 in (0.2, 0.4] → 0.2 + 0.2·0.8
	}
	for _, tt := range tests {
		if got := HistogramQuantile(tt.q, h); !near(got, tt.want) {
			t.Errorf("q %v = %v, want %v", tt.q, got, tt.want)
		}
	}
	tail := ingest.Histogram{Buckets: buckets(0.1, 1, 0.2, 2, inf, 10), Count: 10}
	if got := HistogramQuantile(0.99, tail); got != 0.2 {
		t.Errorf("rank in +Inf bucket = %v, want the highest finite bound 0.2", got)
	}
	if got := HistogramQuantile(0.5, ingest.Histogram{Buckets: buckets(1, 0, inf, 0)}); !math.IsNaN(got) {
		t.Errorf("empty histogram = %v, want NaN", got)
	}
	start := ingest.Histogram{Buckets: buckets(0.1, 5, 0.2, 5, 0.4, 5, inf, 5), Count: 5, Sum: 0.2}
	d, why := HistogramDelta(&start, h)
	if why != "" || d.Count != 35 || !near(d.Sum, 6.8) || d.Buckets[0].Count != 5 || d.Buckets[1].Count != 25 {
		t.Errorf("delta = %+v (%s)", d, why)
	}
	if _, why := HistogramDelta(&h, start); why != "a bucket count decreased between the scrapes (server restart?)" {
		t.Errorf("a decreasing histogram gave the reason %q", why)
	}
}

func TestStabilisationCut(t *testing.T) {
	rule := WarmupRule{Window: 10, Tolerance: 0.02, Consecutive: 3}
	// 30 slow values (medians 300, 200, 150), then steady at 100.
	var xs []float64
	for _, level := range []float64{300, 200, 150, 100, 100, 100, 100, 100} {
		for i := 0; i < 10; i++ {
			xs = append(xs, level)
		}
	}
	cut, ok := StabilisationCut(xs, rule)
	if !ok || cut != 30 {
		t.Errorf("cut = %d, %v; want 30, true", cut, ok)
	}
	// Never stable: alternating block medians.
	xs = xs[:0]
	for k := 0; k < 8; k++ {
		for i := 0; i < 10; i++ {
			xs = append(xs, 100+float64(k%2)*10)
		}
	}
	if cut, ok := StabilisationCut(xs, rule); ok || cut != 0 {
		t.Errorf("alternating: cut = %d, %v; want 0, false", cut, ok)
	}
	// Stable from the start: nothing cut.
	xs = xs[:0]
	for i := 0; i < 40; i++ {
		xs = append(xs, 50)
	}
	if cut, ok := StabilisationCut(xs, rule); !ok || cut != 0 {
		t.Errorf("steady: cut = %d, %v; want 0, true", cut, ok)
	}
}

// TestAcrossRunsMedianMAD checks that per-run statistics are summarised by
// median ± MAD, never by averaging, and that fewer than 3 runs is flagged.
func TestAcrossRunsMedianMAD(t *testing.T) {
	var runs []*ingest.Run
	for i, ttft := range []float64{100, 120, 180} {
		runs = append(runs, makeRun("c8/r"+string(rune('1'+i)), 8, i+1, []req{{id: "x", n: 2, ttft: ttft, e2e: ttft + 10}}))
	}
	runs = append(runs, makeRun("c16/r1", 16, 1, []req{{id: "x", n: 2, ttft: 50, e2e: 60}}))
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: runs})
	if len(s.Levels) != 2 {
		t.Fatalf("levels = %d, want 2", len(s.Levels))
	}
	st, _ := s.Levels[0].Stat("ttft.p95")
	if float64(st.Median) != 120 || float64(st.MAD) != 20 || st.Runs != 3 || st.FewRuns {
		t.Errorf("c8 ttft.p95 = %v ± %v over %d runs (few %v), want 120 ± 20 over 3", st.Median, st.MAD, st.Runs, st.FewRuns)
	}
	if float64(s.Levels[0].PooledTTFT.P50) != 120 || s.Levels[0].PooledTTFT.Sample != SamplePooled {
		t.Errorf("pooled TTFT = %+v", s.Levels[0].PooledTTFT)
	}
	st, _ = s.Levels[1].Stat("ttft.p95")
	if !st.FewRuns {
		t.Error("a one-run level is not flagged")
	}
	if !hasFinding(s, "fewer-than-3-runs") {
		t.Error("no fewer-than-3-runs finding")
	}
}

// buckets builds cumulative buckets from (upper bound, count) pairs.
func buckets(pairs ...float64) []ingest.Bucket {
	var out []ingest.Bucket
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, ingest.Bucket{UpperBound: pairs[i], Count: pairs[i+1]})
	}
	return out
}

func TestServerQuantileResolution(t *testing.T) {
	inf := math.Inf(1)
	start := time.Unix(1_700_000_000, 0).UTC()
	run := makeRun("c1/r1", 1, 1, []req{{id: "a", n: 3, ttft: 10, e2e: 30}})
	run.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	// 10 observations in (0, 0.3], 10 in (0.3, 0.5]: p50 is interpolated
	// from 0 in the lowest bucket, p95 in the narrower second one.
	end := ingest.Histogram{Buckets: buckets(0.3, 10, 0.5, 20, inf, 20), Count: 20, Sum: 5}
	run.ScrapeStart = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RolePrefill: {Buckets: buckets(0.3, 0, 0.5, 0, inf, 0)}}}
	run.ScrapeEnd = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RolePrefill: end}}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	for _, h := range s.Runs[0].Server {
		if h.Role != string(ingest.RolePrefill) {
			continue
		}
		if float64(h.P50) != 300 || !near(float64(h.P95), 480) || float64(h.Mean) != 250 {
			t.Errorf("prefill p50 %v p95 %v mean %v, want 300, 480, 250", h.P50, h.P95, h.Mean)
		}
		want := []QuantileBucket{{"p50", 0, 300, true}, {"p95", 300, 500, false}, {"p99", 300, 500, false}}
		if len(h.Resolution) != 3 {
			t.Fatalf("resolution = %v", h.Resolution)
		}
		for i, w := range want {
			g := h.Resolution[i]
			if g.Quantile != w.Quantile || !near(float64(g.LoMs), float64(w.LoMs)) || !near(float64(g.HiMs), float64(w.HiMs)) || g.Coarse != w.Coarse {
				t.Errorf("resolution[%d] = %+v, want %+v", i, g, w)
			}
		}
	}
}

// TestAccountingAddsUp checks that every input row lands in exactly one
// bucket of the accounting, failed runs and bad rows included.
func TestAccountingAddsUp(t *testing.T) {
	good := makeRun("c2/r1", 2, 1, []req{
		{id: "a", n: 5, ttft: 10, e2e: 50}, {id: "b", n: 1, ttft: 10, e2e: 10},
		{id: "c", n: 0, ttft: 0, e2e: 3}, {id: "d", n: 4, ttft: 1, e2e: 2, status: "timeout"},
	})
	good.Requests.RowsRead = 6
	good.Requests.Excluded = []ingest.Diagnostic{
		{Severity: ingest.Warning, File: "c2/r1/requests.csv", Line: 3, Column: 4, Reason: "non-numeric", Message: "TTFT_ms: expected a non-negative number, got \"x\""},
		{Severity: ingest.Warning, File: "c2/r1/requests.csv", Line: 5, Column: 1, Reason: "duplicate request_id", Message: "dup"},
	}
	failed := makeRun("x", 0, 1, []req{{id: "a", n: 2, ttft: 1, e2e: 2}, {id: "b", n: 2, ttft: 1, e2e: 2}})
	failed.Failed = true
	failed.Diagnostics = []ingest.Diagnostic{{Severity: ingest.Error, File: "x", Reason: "no concurrency", Message: "cannot tell the concurrency"}}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{good, failed}})
	want := Counts{RowsRead: 8, FailedRunRows: 2, BadRows: 2, Accepted: 4, Measured: 4, Errors: 1, ZeroToken: 1, OneToken: 1, MultiToken: 1}
	if s.Accounting.Requests != want || s.Accounting.Runs != 2 || s.Accounting.FailedRuns != 1 {
		t.Errorf("accounting = %+v (%d runs, %d failed), want %+v (2 runs, 1 failed)", s.Accounting.Requests, s.Accounting.Runs, s.Accounting.FailedRuns, want)
	}
	if len(s.Levels) != 1 || s.Levels[0].Concurrency != 2 {
		t.Errorf("levels = %v, want only concurrency 2 (a run without a level forms none)", s.Levels)
	}
	for reason, n := range map[string]int{
		"bad row: non-numeric": 1, "bad row: duplicate request_id": 1, "row of a failed run": 2,
		"run failed: no concurrency": 1, "request error (not a latency sample): timeout": 1,
	} {
		if got := exclusionCount(s, reason); got != n {
			t.Errorf("exclusion %q = %d, want %d", reason, got, n)
		}
	}
}

// TestLargeSampleQuantiles checks the binned selection used for large
// samples against a full sort, with ties, a far outlier and negative values.
func TestLargeSampleQuantiles(t *testing.T) {
	tests := map[string]func(i int, v uint64) float64{
		"ties": func(i int, v uint64) float64 { return float64(v >> 58) },
		"outlier": func(i int, v uint64) float64 {
			if i == 777 {
				return 1e12
			}
			return float64(v>>40) / 1e3
		},
		"spread": func(i int, v uint64) float64 { return float64(int64(v)) / 1e6 },
	}
	for name, gen := range tests {
		var xs []float64
		v := uint64(99)
		for i := 0; i < 200_003; i++ {
			v = v*6364136223846793005 + 1442695040888963407
			xs = append(xs, gen(i, v))
		}
		sorted := append([]float64(nil), xs...)
		sort.Float64s(sorted)
		ps := cdfProbabilities()
		got := Quantiles(append([]float64(nil), xs...), ps, NearestRank)
		for i, p := range ps {
			if want := sorted[oracleRankIndex(p, len(sorted))]; got[i] != want {
				t.Errorf("%s: p%v = %v, want %v", name, p, got[i], want)
			}
		}
		lin := Quantiles(append([]float64(nil), xs...), []float64{0.5, 0.999}, Linear)
		h := 0.999 * float64(len(sorted)-1)
		lo := int(h)
		if want := sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo]); !near(lin[1], want) {
			t.Errorf("%s: linear p99.9 = %v, want %v", name, lin[1], want)
		}
	}
}

// TestWindowedRatesShareOneSet checks that requests/s, request goodput and
// the counter cross-check all count the requests completing inside the
// window, so request goodput can never exceed requests/s, while the
// percentage is over every measured request.
func TestWindowedRatesShareOneSet(t *testing.T) {
	start := time.Unix(1_700_000_000, 0).UTC()
	run := makeRun("c2/r1", 2, 1, []req{
		{id: "in1", n: 4, ttft: 100, e2e: 400, sent: 1_700_000_001},
		{id: "in2", n: 6, ttft: 100, e2e: 600, sent: 1_700_000_002},
		{id: "late", n: 5, ttft: 100, e2e: 500, sent: 1_700_000_009.8}, // ends at 10.3 s, after the window
		{id: "err", n: 2, ttft: 50, e2e: 80, sent: 1_700_000_003, status: "timeout"},
	})
	run.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	run.ScrapeStart = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 0, ingest.RolePromptTokens: 0}}
	run.ScrapeEnd = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 12, ingest.RolePromptTokens: 300}}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	r := s.Runs[0]
	if got := exclusionCount(s, "successful request completing outside the window: not in requests/s or request goodput"); got != 1 {
		t.Errorf("requests outside the window in the exclusions = %d, want 1 (late)", got)
	}
	if r.Throughput.RequestsInWindow != 2 || !near(float64(r.Throughput.RequestsPerSec), 0.2) {
		t.Errorf("requests in window %d (%v req/s), want 2 (0.2 req/s)", r.Throughput.RequestsInWindow, r.Throughput.RequestsPerSec)
	}
	if r.Goodput.PassedInWindow != 2 || !near(float64(r.Goodput.RequestsPerSec), 0.2) || float64(r.Goodput.Percent) != 75 {
		t.Errorf("goodput %v%%, %d passing in window (%v req/s); want 75%%, 2, 0.2", r.Goodput.Percent, r.Goodput.PassedInWindow, r.Goodput.RequestsPerSec)
	}
	// In the window: in1 (4) + in2 (6) + the timeout's partial output (2).
	if r.Throughput.ClientCompletionTokens != 12 || float64(r.Throughput.CounterMismatch) != 0 {
		t.Errorf("client tokens in window %d, mismatch %v; want 12 and 0", r.Throughput.ClientCompletionTokens, r.Throughput.CounterMismatch)
	}
}

// TestOneTokenOutputsDoNotLookUnstreamed: n = 1 requests have TTFT = E2E
// whether streamed or not, so they do not count toward the check.
func TestOneTokenOutputsDoNotLookUnstreamed(t *testing.T) {
	rs := []req{{id: "multi", n: 3, ttft: 100, e2e: 160}}
	for i := 0; i < 40; i++ {
		rs = append(rs, req{id: fmt.Sprint("one", i), n: 1, ttft: 90, e2e: 90})
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, rs)}})
	if r := s.Runs[0]; !r.Streamed || r.TTFT.N != 41 || float64(r.TPOT.P50) != 30 {
		t.Errorf("streamed %v, TTFT n %d, TPOT %v; want streamed, 41, 30", r.Streamed, r.TTFT.N, r.TPOT.P50)
	}
}
