package analyze

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// passRun is a run of 10 three-token requests at concurrency conc: the
// first pass have TTFT 50 ms, the rest 200 ms (E2E = TTFT + 20 ms).
func passRun(conc, repeat, pass int) *ingest.Run {
	var rs []req
	for i := 0; i < 10; i++ {
		ttft := 200.0
		if i < pass {
			ttft = 50
		}
		rs = append(rs, req{id: fmt.Sprint(i), n: 3, ttft: ttft, e2e: ttft + 20})
	}
	return makeRun(fmt.Sprintf("c%d/run-%d", conc, repeat), conc, repeat, rs)
}

// ttftOnly is a configuration whose only goodput target is TTFT ≤ 100 ms.
func ttftOnly() ingest.Config {
	cfg := noWarmupConfig()
	cfg.SLO = ingest.SLO{TTFTms: 100, Attainment: 0.9}
	cfg.SLOFrom = ingest.SLOSources{TTFT: ingest.FromSweepYAML, TPOT: ingest.FromSweepYAML, E2E: ingest.FromSweepYAML, Attainment: ingest.FromDefault}
	return cfg
}

func TestAnswers(t *testing.T) {
	c := func(n int) *LevelKey { return &LevelKey{Mode: "concurrency", Concurrency: n} }
	tests := []struct {
		name string
		// passes[level][run]: passing requests of 10, at concurrency 1, 2, 4.
		passes [3][3]int
		cfg    func() ingest.Config
		want   Answer // Goodput, Output and Requests are checked separately
		median float64
	}{
		{
			// Per-run goodput 90, 90, 80 %: the median, 90 %, meets the
			// 90 % target exactly; 2 of the 3 runs do.
			name:   "the highest level at the target",
			passes: [3][3]int{{10, 10, 10}, {9, 9, 8}, {5, 5, 5}},
			cfg:    ttftOnly,
			want: Answer{Mode: "concurrency", Level: c(2), RunsMeeting: 2,
				Capacity: Capacity{Level: c(2), EveryRun: c(1), SomeRun: c(2), Above: c(4), Levels: 3}},
			median: 90,
		},
		{
			name:   "a lower level below the target is named",
			passes: [3][3]int{{5, 5, 5}, {10, 10, 9}, {2, 2, 2}},
			cfg:    ttftOnly,
			want: Answer{Mode: "concurrency", Level: c(2), RunsMeeting: 3, LowerNotMeeting: []LevelKey{*c(1)},
				Capacity: Capacity{Level: c(2), EveryRun: c(2), SomeRun: c(2), Above: c(4), Levels: 3}},
			median: 100,
		},
		{
			// 80, 70 and 80 % at concurrency 1, 2, 4: none meets 90 %; of
			// the two best the higher load is named.
			name:   "no level meets the target",
			passes: [3][3]int{{8, 8, 8}, {7, 7, 7}, {8, 8, 9}},
			cfg:    ttftOnly,
			want: Answer{Mode: "concurrency", Best: c(4), RunsMeeting: 1,
				Capacity: Capacity{SomeRun: c(4), Above: c(1), Levels: 3}},
			median: 80,
		},
		{
			name:   "no target set",
			passes: [3][3]int{{10, 10, 10}, {10, 10, 10}, {10, 10, 10}},
			cfg: func() ingest.Config {
				cfg := ttftOnly()
				cfg.SLO.TTFTms = 0
				return cfg
			},
			want: Answer{Mode: "concurrency", Unavailable: "no SLO target is set"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []*ingest.Run
			for i, conc := range []int{1, 2, 4} {
				for r, pass := range tt.passes[i] {
					runs = append(runs, passRun(conc, r+1, pass))
				}
			}
			s := Analyze(&ingest.Sweep{Config: tt.cfg(), Runs: runs})
			if len(s.Answers) != 1 {
				t.Fatalf("%d answers, want 1", len(s.Answers))
			}
			a := s.Answers[0]
			if tt.want.Unavailable == "" {
				if a.Goodput.Key != "goodput.percent" || float64(a.Goodput.Median) != tt.median {
					t.Errorf("goodput %s median %v, want goodput.percent %v", a.Goodput.Key, a.Goodput.Median, tt.median)
				}
				// No scrapes and no send times: the server rate is the
				// one named, and it has no runs.
				if a.Output.Key != KeyServerOutputRate || a.Output.Runs != 0 || a.Requests.Key != "throughput.requests_per_s" {
					t.Errorf("output %s (%d runs), requests %s", a.Output.Key, a.Output.Runs, a.Requests.Key)
				}
			}
			a.Goodput, a.Output, a.Requests = AcrossRuns{}, AcrossRuns{}, AcrossRuns{}
			if !reflect.DeepEqual(a, tt.want) {
				t.Errorf("answer %+v\nwant   %+v", a, tt.want)
			}
		})
	}
}

func TestMethodSLOSources(t *testing.T) {
	s := Analyze(&ingest.Sweep{Config: ttftOnly(), Runs: []*ingest.Run{passRun(1, 1, 10)}})
	want := SLO{TTFTms: 100, TPOTms: 0, E2Ems: 0, Attainment: 0.9,
		From: SLOFrom{TTFT: FromSweepYAML, TPOT: FromSweepYAML, E2E: FromSweepYAML, Attainment: FromDefault}}
	if s.Method.SLO != want {
		t.Errorf("method.slo = %+v, want %+v", s.Method.SLO, want)
	}
	if !s.Method.SLO.Set() || (SLO{TTFTms: 0, TPOTms: NaN, E2Ems: 0}).Set() {
		t.Error("Set: wrong for 100/0/0 or 0/NaN/0")
	}
}

// TestLevelQuality: the error and zero-output shares, the suspicions and
// the output rate a headline shows, and the zero-output finding.
func TestLevelQuality(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0).UTC()
	// 10 requests sent one per second from t0: 2 failed, 1 returned no
	// token, 7 with 3 tokens in 250 ms (TTFT 50).
	mk := func(dir string, repeat int, generated float64) *ingest.Run {
		var rs []req
		for i := 0; i < 10; i++ {
			r := req{id: fmt.Sprint(i), n: 3, ttft: 50, e2e: 250, sent: float64(t0.Unix() + int64(i))}
			switch i {
			case 3, 6:
				r.status, r.n = "HTTP 503 upstream connect error, retry 3", 0
			case 8:
				r.n = 0
			}
			rs = append(rs, r)
		}
		run := makeRun(dir, 2, repeat, rs)
		run.Window = ingest.Window{Start: t0, End: t0.Add(20 * time.Second), Source: "run.yaml"}
		run.ScrapeStart = &ingest.Scrape{Path: dir + "/metrics-start.prom", Families: 1, Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 0}}
		run.ScrapeEnd = &ingest.Scrape{Path: dir + "/metrics-end.prom", Families: 1, Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: generated}}
		return run
	}
	// The client counts 7 × 3 = 21 completion tokens in the window. Run 1's
	// counter says 21, run 2's 42 (100 % off), run 3's 21.
	sw := &ingest.Sweep{Config: ttftOnly(), Runs: []*ingest.Run{mk("c2/run-1", 1, 21), mk("c2/run-2", 2, 42), mk("c2/run-3", 3, 21)}}
	s := Analyze(sw)
	lv := s.Levels[0]
	if float64(lv.ErrorPercent) != 20 || float64(lv.ZeroOutputPercent) != 10 {
		t.Errorf("error %v %%, zero output %v %%, want 20 and 10", lv.ErrorPercent, lv.ZeroOutputPercent)
	}
	runs := []string{"c2/run-1", "c2/run-2", "c2/run-3"}
	want := []Suspicion{
		{Rule: "error-rate", Keys: latencyKeys, Runs: runs, RunsOf: 3},
		{Rule: "zero-output-requests", Keys: latencyKeys, Runs: runs, RunsOf: 3},
		{Rule: "counter-client-mismatch", Keys: serverRateKeys, Runs: []string{"c2/run-2"}, RunsOf: 3},
	}
	if !reflect.DeepEqual(lv.Suspect, want) {
		t.Errorf("suspect %+v\nwant    %+v", lv.Suspect, want)
	}
	if got := len(lv.Suspicions("ttft.p95")); got != 2 {
		t.Errorf("ttft.p95 has %d suspicions, want 2", got)
	}
	if got := len(lv.Suspicions("goodput.percent")); got != 0 {
		t.Errorf("goodput.percent has %d suspicions, want 0", got)
	}
	// The server rate is suspect in one run; the client rate (7 × 3
	// tokens over 6.25 s, from the first send to the last completion)
	// takes its place.
	if lv.OutputRateKey != KeyClientOutputRate {
		t.Errorf("output rate key %q, want the client's", lv.OutputRateKey)
	}
	var zero *Finding
	for i, f := range s.Findings {
		if f.Rule == "zero-output-requests" {
			zero = &s.Findings[i]
		}
	}
	if zero == nil || zero.Severity != "warning" || len(zero.Runs) != 3 ||
		zero.Message != "concurrency 2: 3 of 30 measured requests (10%) succeeded without any output token (n = 0), more than the error-rate threshold of 1%; 3 of 3 runs are above it. They fail goodput and are not latency samples, so latency figures describe only the requests that returned output" {
		t.Errorf("zero-output finding %+v", zero)
	}
	// Errors are grouped by class: the retry count is a number.
	if e := s.Runs[0].Errors; len(e) != 1 || e[0].Class != "HTTP 503 upstream connect error, retry <n>" || e[0].Count != 2 {
		t.Errorf("error classes %+v", e)
	}
}

// TestRequestGoodputExcludesWarmup: request goodput counts measured
// requests only; requests/s counts every successful request in the window.
func TestRequestGoodputExcludesWarmup(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0).UTC()
	var rs []req
	for i := 0; i < 10; i++ {
		rs = append(rs, req{id: fmt.Sprint(i), n: 3, ttft: 50, e2e: 100, sent: float64(t0.Unix() + int64(i))})
	}
	run := makeRun("c1/run-1", 1, 1, rs)
	run.Window = ingest.Window{Start: t0, End: t0.Add(20 * time.Second), Source: "run.yaml"}
	cfg := ttftOnly()
	cfg.Warmup = ingest.WarmupConfig{Mode: ingest.WarmupFixed, Count: 4}
	s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{run}})
	r := s.Runs[0]
	// 10 in the window, 4 of them warm-up: 10 / 20 s and 6 / 20 s.
	if float64(r.Throughput.RequestsPerSec) != 0.5 || r.Goodput.PassedInWindow != 6 || float64(r.Goodput.RequestsPerSec) != 0.3 {
		t.Errorf("requests/s %v, passed in window %d, request goodput %v; want 0.5, 6, 0.3",
			r.Throughput.RequestsPerSec, r.Goodput.PassedInWindow, r.Goodput.RequestsPerSec)
	}
	if r.Goodput.RateBasis != "measured requests completing inside the window; warm-up excluded" {
		t.Errorf("rate basis %q", r.Goodput.RateBasis)
	}
}

func TestCapacityOf(t *testing.T) {
	c := func(n int) *LevelKey { return &LevelKey{Mode: "concurrency", Concurrency: n} }
	// level is concurrency n with per-run goodput g (NaN for a run
	// without a figure); the median is the middle value given.
	level := func(n int, median float64, g ...float64) Level {
		per := make([]Num, len(g))
		runs := 0
		for i, v := range g {
			per[i] = Num(v)
			if per[i].Valid() {
				runs++
			}
		}
		return Level{LevelKey: *c(n), Stats: []AcrossRuns{{Key: "goodput.percent", Median: Num(median), Runs: runs, PerRun: per}}}
	}
	nan := math.NaN()
	tests := []struct {
		name   string
		levels []Level
		want   Capacity
	}{
		{
			name:   "the example: 1 and 4 meet in every run, 16 fails in every run",
			levels: []Level{level(1, 99.5, 99.5, 99.4, 99.6), level(4, 98.9, 98.9, 98.4, 99.3), level(16, 0, 0, 0, 0)},
			want:   Capacity{Level: c(4), EveryRun: c(4), SomeRun: c(4), Above: c(16), Levels: 3},
		},
		{
			name:   "the median meets at 8, not every run; one run meets at 16",
			levels: []Level{level(4, 95, 95, 96, 94), level(8, 91, 91, 85, 92), level(16, 80, 80, 90, 70), level(32, 10, 10, 10, 10)},
			want:   Capacity{Level: c(8), EveryRun: c(4), SomeRun: c(16), Above: c(16), Levels: 4},
		},
		{
			name:   "goodput rises again: the highest meeting level counts, the level above it bounds",
			levels: []Level{level(1, 50, 50, 50, 50), level(2, 95, 95, 95, 95), level(4, 20, 20, 20, 20)},
			want:   Capacity{Level: c(2), EveryRun: c(2), SomeRun: c(2), Above: c(4), Levels: 3},
		},
		{
			name:   "the highest level meets: no level above",
			levels: []Level{level(1, 100, 100), level(2, 90, 90)},
			want:   Capacity{Level: c(2), EveryRun: c(2), SomeRun: c(2), Levels: 2},
		},
		{
			name:   "none meets: the lowest level bounds from above",
			levels: []Level{level(2, 80, 80, 80, 80), level(4, 70, 70, 70, 70)},
			want:   Capacity{Above: c(2), Levels: 2},
		},
		{
			name:   "a level without a goodput figure is skipped, a run without one does not count",
			levels: []Level{level(1, 100, 100, nan, 100), {LevelKey: *c(2)}, level(4, 10, 10, 10, 10)},
			want:   Capacity{Level: c(1), EveryRun: c(1), SomeRun: c(1), Above: c(4), Levels: 2},
		},
		{
			name: "no level",
			want: Capacity{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CapacityOf(tt.levels, 90); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CapacityOf = %+v\nwant        %+v", got, tt.want)
			}
		})
	}
}

func TestToolMeasured(t *testing.T) {
	fig := func(key string, v float64) FigureComparison { return FigureComparison{Key: key, Reported: Num(v)} }
	lv := Level{LevelKey: LevelKey{Mode: "rate", Rate: 16}}
	run := func(dir string, figs ...FigureComparison) RunSummary {
		return RunSummary{Dir: dir, LevelKey: lv.LevelKey, Import: &ImportSummary{Tool: "vLLM benchmark_serving.py", Figures: figs}}
	}
	tests := []struct {
		name string
		runs []RunSummary
		want *ToolMeasured
	}{
		{
			name: "one vLLM run",
			runs: []RunSummary{run("a", fig("duration_s", 100.66741408899998), fig("throughput.requests_per_s", 9.933701079436696), fig(KeyClientOutputRate, 1198.8884495761356))},
			want: &ToolMeasured{Tool: "vLLM", Runs: 1, DurationS: 100.66741408899998, Output: 1198.8884495761356, Requests: 9.933701079436696},
		},
		{
			name: "medians of three; a run without a duration is left out",
			runs: []RunSummary{
				run("a", fig("duration_s", 100), fig(KeyClientOutputRate, 1000)),
				run("b", fig("duration_s", 90), fig(KeyClientOutputRate, 1200)),
				run("c", fig("duration_s", 110), fig(KeyClientOutputRate, 1100)),
				run("d", fig(KeyClientOutputRate, 5000)),
			},
			want: &ToolMeasured{Tool: "vLLM", Runs: 3, DurationS: 100, Output: 1100, Requests: NaN},
		},
		{
			name: "a duration without a rate",
			runs: []RunSummary{run("a", fig("duration_s", 100))},
		},
		{
			name: "not imported",
			runs: []RunSummary{{Dir: "a", LevelKey: lv.LevelKey}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolMeasured(&Summary{Runs: tt.runs}, &lv)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("toolMeasured = %+v\nwant           %+v", got, tt.want)
			}
		})
	}
}

// TestLevelServerResolution: a level's server observations add up its
// runs' role by role, and its server buckets join each quantile's
// buckets over its runs, role by role: the lowest lower bound, the highest
// upper bound (+Inf, null, when a run's quantile fell in the +Inf bucket), coarse
// when it is in one run. Both runs have the prefill and queue histograms
// (20 and 10 observations in the window):
//
//	prefill r1: 10 in (0, 0.3], 10 in (0.3, 0.5]: p50 0.3 in (0, 0.3] (coarse: from 0),
//	            p95 0.48 and p99 0.496 in (0.3, 0.5] (width 0.2, under half the value)
//	prefill r2: 20 in (1, 1.2]: p50 1.1, p95 1.19, p99 1.198, none coarse
//	queue r1:   10 in (2, 4]: p50 3, p95 3.9, p99 3.98, all coarse (width 2)
//	queue r2:   9 in (2, 4], 1 above: p50 3.11 in (2, 4], p95 and p99 in (4, +Inf)
func TestLevelServerResolution(t *testing.T) {
	inf := math.Inf(1)
	start := time.Unix(1_700_000_000, 0).UTC()
	run := func(repeat int, prefill, queue []ingest.Bucket) *ingest.Run {
		r := makeRun(fmt.Sprintf("c1/r%d", repeat), 1, repeat, []req{{id: "a", n: 3, ttft: 10, e2e: 30}})
		r.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
		zero := func(b []ingest.Bucket) ingest.Histogram {
			z := ingest.Histogram{}
			for _, x := range b {
				z.Buckets = append(z.Buckets, ingest.Bucket{UpperBound: x.UpperBound})
			}
			return z
		}
		full := func(b []ingest.Bucket) ingest.Histogram {
			return ingest.Histogram{Buckets: b, Count: b[len(b)-1].Count, Sum: 1}
		}
		// The TTFT histogram's count rose by 5 with no observation in its
		// buckets: omitted, its count not shown.
		ttft := buckets(0.1, 0, inf, 0)
		noObs := ingest.Histogram{Buckets: ttft, Count: 5, Sum: 1}
		r.ScrapeStart = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RolePrefill: zero(prefill), ingest.RoleQueue: zero(queue), ingest.RoleTTFT: zero(ttft)}}
		r.ScrapeEnd = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RolePrefill: full(prefill), ingest.RoleQueue: full(queue), ingest.RoleTTFT: noObs}}
		return r
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{
		run(1, buckets(0.3, 10, 0.5, 20, inf, 20), buckets(2, 0, 4, 10, inf, 10)),
		run(2, buckets(1, 0, 1.2, 20, inf, 20), buckets(2, 0, 4, 9, inf, 10)),
	}})
	for _, h := range s.Runs[0].Server {
		if h.Role == string(ingest.RoleTTFT) && (h.Omitted == "" || float64(h.Count) != 5) {
			t.Errorf("TTFT histogram %+v, want omitted with count 5", h)
		}
	}
	// The level's observations: prefill 20 + 20, queue 10 + 10.
	wantObs := []RoleCount{{Role: string(ingest.RolePrefill), Count: 40}, {Role: string(ingest.RoleQueue), Count: 20}}
	if got := s.Levels[0].ServerObservations; !reflect.DeepEqual(got, wantObs) {
		t.Errorf("server observations %+v, want %+v", got, wantObs)
	}
	want := []LevelBucket{
		{"server.prefill.p50", true, 0, 1200},
		{"server.prefill.p95", false, 300, 1200},
		{"server.prefill.p99", false, 300, 1200},
		{"server.queue.p50", true, 2000, 4000},
		{"server.queue.p95", true, 2000, NaN}, // +Inf, null in summary.json
		{"server.queue.p99", true, 2000, NaN},
	}
	got := s.Levels[0].ServerResolution
	if len(got) != len(want) {
		t.Fatalf("server resolution %+v, want %+v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.Key != w.Key || g.Coarse != w.Coarse || !near(float64(g.LoMs), float64(w.LoMs)) || !sameNum(float64(g.HiMs), float64(w.HiMs)) {
			t.Errorf("bucket %d = %+v, want %+v", i, g, w)
		}
	}
}

// TestLevelServerResolutionNeedsAQuantile: a level has a server bucket
// only for a quantile some run has. Ten observations in (10⁶ s, 10⁸ s]:
// the p50, 5.05·10⁷ s, is 5.05·10¹⁰ ms, beyond MaxLatencyMs (10¹⁰) and
// written as null, while its bucket's lower bound, 10⁹ ms, is in range.
func TestLevelServerResolutionNeedsAQuantile(t *testing.T) {
	inf := math.Inf(1)
	start := time.Unix(1_700_000_000, 0).UTC()
	r := makeRun("c1/r1", 1, 1, []req{{id: "a", n: 3, ttft: 10, e2e: 30}})
	r.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	b := buckets(1e6, 0, 1e8, 10, inf, 10)
	r.ScrapeStart = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RolePrefill: {Buckets: buckets(1e6, 0, 1e8, 0, inf, 0)}}}
	r.ScrapeEnd = &ingest.Scrape{Histograms: map[ingest.MetricRole]ingest.Histogram{ingest.RolePrefill: {Buckets: b, Count: 10, Sum: 1e7}}}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{r}})
	for _, h := range s.Runs[0].Server {
		if h.Role == string(ingest.RolePrefill) && (h.P50.Valid() || len(h.Resolution) == 0 || float64(h.Resolution[0].LoMs) != 1e9) {
			t.Errorf("prefill histogram %+v, want a null p50 in a bucket from 10⁹ ms", h)
		}
	}
	if st, ok := s.Levels[0].Stat("server.prefill.p50"); !ok || st.Runs != 0 {
		t.Errorf("server.prefill.p50 %+v (listed %v), want listed with no run", st, ok)
	}
	if got := s.Levels[0].ServerResolution; len(got) != 0 {
		t.Errorf("server resolution %+v, want none", got)
	}
}
