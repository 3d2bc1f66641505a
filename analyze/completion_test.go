package analyze

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// TestCompletionTime: a request ends at its t_last_text; without one, at
// t_request_sent + E2E; with neither (a file without time columns, or a
// missing value), it has no known end.
func TestCompletionTime(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		sent, last []float64
		want       float64
	}{
		{"last text", []float64{100}, []float64{101.5}, 101.5},
		{"sent + E2E", []float64{100}, nil, 100.25},
		{"last text missing: sent + E2E", []float64{100}, []float64{nan}, 100.25},
		{"no time columns", nil, nil, nan},
		{"send time missing", []float64{nan}, nil, nan},
	}
	for _, tt := range tests {
		r := &ingest.Requests{N: 1, E2Ems: []float64{250}, TRequestSent: tt.sent, TLastText: tt.last}
		if got := completionTime(r, 0); got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestChunkGapsNeedOneTokenPerChunk: per-gap ITL needs, for every request,
// as many text chunks as tokens both by the text_chunks count and by the
// chunk arrivals recorded; either one differing makes the gaps chunk
// gaps.
func TestChunkGapsNeedOneTokenPerChunk(t *testing.T) {
	tests := []struct {
		name       string
		textChunks int64
		chunks     []float64
		perGap     bool
	}{
		{"3 tokens, 3 chunks, text_chunks 3", 3, []float64{10, 20, 30}, true},
		{"text_chunks 2 for 3 arrivals", 2, []float64{10, 20, 30}, false},
		{"text_chunks 3 but 2 arrivals", 3, []float64{10, 30}, false},
	}
	for _, tt := range tests {
		q := &ingest.Requests{N: 1, CompletionTokens: []int64{3}, TextChunks: []int64{tt.textChunks},
			ChunkMs: tt.chunks, ChunkOffsets: []int32{0, int32(len(tt.chunks))}}
		d, perGap, _ := chunkGaps(q, []int{0}, []uint8{classMulti}, NearestRank)
		if perGap != tt.perGap || (d.Unavailable == "") != tt.perGap {
			t.Errorf("%s: per-gap %v (%q), want %v", tt.name, perGap, d.Unavailable, tt.perGap)
		}
	}
}

// TestEarlyStopBasis: a request stops early when it returns fewer tokens
// than its max_tokens, or the run's when it has none (0 is "none"); with
// no max_tokens known anywhere there is no basis and no percentage.
func TestEarlyStopBasis(t *testing.T) {
	rs := []req{{id: "a", n: 4, ttft: 10, e2e: 40}, {id: "b", n: 4, ttft: 10, e2e: 40}}
	none := makeRun("c1/r1", 1, 1, rs)
	withMax := makeRun("c1/r2", 1, 2, rs)
	withMax.MaxTokens = 4
	withMax.Requests.Requests.MaxTokens = []int64{0, 8} // a: the run's 4 (not early); b: 8 (early)
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{none, withMax}})
	if w := s.Runs[0].Workload; !math.IsNaN(float64(w.EarlyStopPercent)) || w.EarlyStopBasis != 0 {
		t.Errorf("no max_tokens: early stop %v %% of %d, want NaN of 0", w.EarlyStopPercent, w.EarlyStopBasis)
	}
	if w := s.Runs[1].Workload; float64(w.EarlyStopPercent) != 50 || w.EarlyStopBasis != 2 {
		t.Errorf("max_tokens 0 (the run's 4) and 8: early stop %v %% of %d, want 50 of 2", w.EarlyStopPercent, w.EarlyStopBasis)
	}
	// A level pools its runs' early stops: with a third run of four
	// requests, three of them early (75 % of 4), 1 + 3 of 2 + 4 requests
	// stopped early, 66.67 % of 6 (not the median of 50 and 75 %).
	rs4 := append(append([]req{}, rs...), req{id: "c", n: 4, ttft: 10, e2e: 40}, req{id: "d", n: 4, ttft: 10, e2e: 40})
	third := makeRun("c1/r3", 1, 3, rs4)
	third.MaxTokens = 4
	third.Requests.Requests.MaxTokens = []int64{8, 8, 8, 0}
	s = Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{none, withMax, third}})
	if w := s.Levels[0].Workload; !near(float64(w.EarlyStopPercent), 100*4.0/6) || w.EarlyStopBasis != 6 {
		t.Errorf("level: early stop %v %% of %d, want 66.67 of 6", w.EarlyStopPercent, w.EarlyStopBasis)
	}
}

// TestWindowFilterIsClosed: a request belongs to the window when it
// completes inside it, both bounds included.
func TestWindowFilterIsClosed(t *testing.T) {
	run := &ingest.Run{Window: ingest.Window{Start: time.Unix(1000, 0), End: time.Unix(1010, 0), Source: "run.yaml"}}
	ends := []float64{999.5, 1000, 1005, 1010, 1010.5}
	req := &ingest.Requests{N: len(ends), TLastText: ends, E2Ems: make([]float64, len(ends))}
	in := windowFilter(run, req)
	want := []bool{false, true, true, true, false}
	for i := range ends {
		if in(i) != want[i] {
			t.Errorf("completion at %v: in the window %v, want %v", ends[i], in(i), want[i])
		}
	}
}

// TestCounterMismatchIsRelative: the generation-token counter moved by 12
// while the client counted 10 tokens in the window: |12 − 10| / 10 = 0.2,
// beyond the default tolerance, so the run is named in the finding.
func TestCounterMismatchIsRelative(t *testing.T) {
	run := figure2Run(1012)
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	tp := s.Runs[0].Throughput
	if !near(float64(tp.CounterMismatch), 0.2) || tp.ClientCompletionTokens != 10 || float64(tp.GenerationTokensDelta) != 12 {
		t.Errorf("counter mismatch %v (Δ %v, client %d), want 0.2 (Δ 12, client 10)", tp.CounterMismatch, tp.GenerationTokensDelta, tp.ClientCompletionTokens)
	}
	if !hasFinding(s, "counter-client-mismatch") {
		t.Error("no counter-client-mismatch finding")
	}
}

// TestMonotonicClockCountsEveryRequest: with run.yaml's clock monotonic,
// the request times are not wall-clock time and cannot be placed in the
// window: every request counts.
func TestMonotonicClockCountsEveryRequest(t *testing.T) {
	run := &ingest.Run{Clock: "monotonic", Window: ingest.Window{Start: time.Unix(1000, 0), End: time.Unix(1010, 0), Source: "run.yaml"}}
	req := &ingest.Requests{N: 2, TLastText: []float64{5, 99999}, E2Ems: []float64{0, 0}}
	in := windowFilter(run, req)
	if !in(0) || !in(1) {
		t.Errorf("monotonic clock: in the window %v, %v; want every request", in(0), in(1))
	}
}

// TestClientThroughputNeedsASpan: one request whose last token came at its
// send time leaves T_last − T_first = 0: no client output tokens/s (not
// +Inf).
func TestClientThroughputNeedsASpan(t *testing.T) {
	run := makeRun("c1/r1", 1, 1, []req{{id: "A", n: 1, ttft: 0, e2e: 0, sent: 1_700_000_001}})
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	if tp := s.Runs[0].Throughput; !math.IsNaN(float64(tp.ClientOutputTokensPerSec)) || tp.ClientUnavailable == "" {
		t.Errorf("client output tokens/s %v (%q), want NaN with a reason", tp.ClientOutputTokensPerSec, tp.ClientUnavailable)
	}
}

// TestGoodputNeedsStreamingForEitherTarget: without streaming TTFT was not
// measured, so a TTFT target alone (no TPOT target) already makes goodput
// unavailable; an E2E target alone does not.
func TestGoodputNeedsStreamingForEitherTarget(t *testing.T) {
	var rs []req
	for i := range 10 {
		rs = append(rs, req{id: string(rune('a' + i)), n: 50, ttft: 800 + float64(i), e2e: 800 + float64(i)})
	}
	for _, tt := range []struct {
		slo         ingest.SLO
		unavailable bool
	}{
		{ingest.SLO{TTFTms: 1000}, true},
		{ingest.SLO{TPOTms: 100}, true},
		{ingest.SLO{E2Ems: 5000}, false},
	} {
		cfg := noWarmupConfig()
		cfg.SLO = tt.slo
		cfg.SLO.Attainment = 0.9
		s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, rs)}})
		if g := s.Runs[0].Goodput; strings.Contains(g.Unavailable, "not streamed") != tt.unavailable {
			t.Errorf("SLO %+v on a run not streamed: goodput unavailable %q, want unavailable %v", tt.slo, g.Unavailable, tt.unavailable)
		}
	}
}

// TestUnrecognisedEnvironmentLogIsExcluded: an environment log benchnote
// cannot read is counted among the exclusions, with its file; other
// diagnostics of the sweep are not.
func TestUnrecognisedEnvironmentLogIsExcluded(t *testing.T) {
	sw := &ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, []req{{id: "a", n: 3, ttft: 10, e2e: 30}})},
		Diagnostics: []ingest.Diagnostic{
			{Severity: ingest.Warning, File: "c1/r1/env.log", Reason: "unrecognised environment log"},
			{Severity: ingest.Warning, File: "sweep.yaml", Reason: "unknown setting"},
		}}
	var got []string
	for _, e := range Analyze(sw).Exclusions {
		if e.Scope == ScopeFile {
			got = append(got, e.Reason+" "+strings.Join(e.Examples, ","))
		}
	}
	if want := []string{"environment log not recognised c1/r1/env.log"}; !slices.Equal(got, want) {
		t.Errorf("file exclusions %q, want %q", got, want)
	}
}

// TestFindingsOnlyWhenSomethingMatches: a run whose server histograms are
// all fine is not named by a histogram rule, and a sweep without 0- or
// 1-token outputs gets no finding saying "0 measured requests".
func TestFindingsOnlyWhenSomethingMatches(t *testing.T) {
	match := serverHistogramMatch(func(h ServerHistogram) string { return "" })
	if _, ok := match(RunSummary{Dir: "c1/r1", Server: []ServerHistogram{{}}}); ok {
		t.Error("a run whose histograms match nothing is named")
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, []req{{id: "a", n: 3, ttft: 10, e2e: 30}})}})
	if hasFinding(s, "zero-and-one-token-outputs") {
		t.Error("a zero-and-one-token finding without such outputs")
	}
}

// TestParetoUnavailableSaysWhich: the Pareto chart's reason names the
// coordinate no level has — user TPS, or else the output token rate.
func TestParetoUnavailableSaysWhich(t *testing.T) {
	valid := AcrossRuns{Median: 10, Runs: 3}
	none := AcrossRuns{Median: NaN}
	s := &Summary{Levels: make([]Level, 2)}
	for _, tt := range []struct {
		pts  []ParetoPoint
		want string
	}{
		{[]ParetoPoint{{UserTPS: none, Throughput: valid}, {UserTPS: valid, Throughput: none}}, "no level has both a user TPS and an output token rate"},
		{[]ParetoPoint{{UserTPS: none, Throughput: none}, {UserTPS: valid, Throughput: none}}, "no level has an output token rate: neither server counters nor client timings give one"},
	} {
		if got := paretoUnavailable(s, tt.pts); got != tt.want {
			t.Errorf("paretoUnavailable = %q, want %q", got, tt.want)
		}
	}
}

// TestEnvironmentOfTheFirstUsableRun: a sweep's canonical environment is
// its first run that did not fail, not a failed one before it nor the
// last one.
func TestEnvironmentOfTheFirstUsableRun(t *testing.T) {
	run := func(failed bool, gpu string) *ingest.Run {
		return &ingest.Run{Failed: failed, Env: ingest.Environment{Canonical: map[string]string{"gpu": gpu}}}
	}
	e := environment(&ingest.Sweep{Runs: []*ingest.Run{run(true, "A100"), run(false, "L40S"), run(false, "H100")}})
	if want := []EnvField{{Key: "gpu", Value: "L40S"}}; !reflect.DeepEqual(e.Canonical, want) {
		t.Errorf("canonical %+v, want %+v", e.Canonical, want)
	}
	// When every run failed, the first one's.
	e = environment(&ingest.Sweep{Runs: []*ingest.Run{run(true, "A100"), run(true, "L40S")}})
	if want := []EnvField{{Key: "gpu", Value: "A100"}}; !reflect.DeepEqual(e.Canonical, want) {
		t.Errorf("every run failed: canonical %+v, want %+v", e.Canonical, want)
	}
}
