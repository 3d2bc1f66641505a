package analyze

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

var inf = math.Inf(1)

// scrapedRun is a run of three 3-token requests with a 10 s window and
// the given start and end scrapes.
func scrapedRun(dir string, start, end *ingest.Scrape) *ingest.Run {
	t0 := time.Unix(1_700_000_000, 0).UTC()
	run := makeRun(dir, 1, 1, []req{
		{id: "a", n: 3, ttft: 10, e2e: 30}, {id: "b", n: 3, ttft: 12, e2e: 32}, {id: "c", n: 3, ttft: 11, e2e: 31},
	})
	run.Window = ingest.Window{Start: t0, End: t0.Add(10 * time.Second), Source: "run.yaml"}
	run.ScrapeStart, run.ScrapeEnd = start, end
	return run
}

// e2eScrape is a scrape holding only an E2E histogram.
func e2eScrape(path string, h ingest.Histogram) *ingest.Scrape {
	return &ingest.Scrape{
		Path: path, Families: 1,
		Histograms:     map[ingest.MetricRole]ingest.Histogram{ingest.RoleE2E: h},
		HistogramNames: map[ingest.MetricRole]string{ingest.RoleE2E: "vllm:e2e_request_latency_seconds"},
	}
}

func serverRole(t *testing.T, r RunSummary, role ingest.MetricRole) ServerHistogram {
	t.Helper()
	for _, h := range r.Server {
		if h.Role == string(role) {
			return h
		}
	}
	t.Fatalf("no %s histogram in %+v", role, r.Server)
	return ServerHistogram{}
}

// TestServerHistogramRepairsAndOmissions: what happens to a server
// histogram that histogram_quantile must repair or cannot use.
func TestServerHistogramRepairsAndOmissions(t *testing.T) {
	zero := func(bounds ...float64) ingest.Histogram {
		h := ingest.Histogram{}
		for _, b := range bounds {
			h.Buckets = append(h.Buckets, ingest.Bucket{UpperBound: b})
		}
		return h
	}
	tests := []struct {
		name          string
		start, end    ingest.Histogram
		p50, p95, p99 float64 // ms; NaN when omitted
		omitted       string
		raised        []RaisedBucket
		merged        []string
		rule          string // a finding expected
		runs          []string
	}{
		{
			// 4 observations ≤ 50 ms, 10 ≤ 100 ms, 20 in all; the 250 ms
			// bucket went from 0 to 7, below the 100 ms bucket's 10: it is
			// raised to 10. p50: rank 10 in (50, 100] → 100 ms; p95: rank 19
			// in (250, 500] → 250 + 250·9/10 = 475 ms; p99: 250 + 250·9.8/10.
			name:  "non-monotone buckets are raised",
			start: zero(0.05, 0.1, 0.25, 0.5, inf),
			end:   ingest.Histogram{Buckets: buckets(0.05, 4, 0.1, 10, 0.25, 7, 0.5, 20, inf, 20), Count: 20, Sum: 4},
			p50:   100, p95: 475, p99: 495,
			raised: []RaisedBucket{{Le: "0.25", Count: 7, RaisedTo: 10}},
			rule:   "histogram-not-monotonic",
			runs:   []string{`c1/r1: vllm:e2e_request_latency_seconds le="0.25" 7 raised to 10`},
		},
		{
			// histograms.test's mixed_bucket: ingest merged le="0.2",
			// "2e-1" and "2.0e-1" into one bucket of 3 and said so.
			name:  "merged bounds are reported",
			start: zero(0.1, 0.2, inf),
			end:   ingest.Histogram{Buckets: buckets(0.1, 1, 0.2, 3, inf, 4), Count: 4, Sum: 0.6, MergedBounds: []float64{0.2}},
			p50:   150, p95: 200, p99: 200,
			merged: []string{"0.2"},
			rule:   "histogram-bounds-merged",
			runs:   []string{"c1/r1: vllm:e2e_request_latency_seconds le=0.2"},
		},
		{
			name:  "no +Inf bucket gives no quantile",
			start: zero(0.1, 0.5),
			end:   ingest.Histogram{Buckets: buckets(0.1, 1, 0.5, 2), Count: 3, Sum: 0.9},
			p50:   math.NaN(), p95: math.NaN(), p99: math.NaN(),
			omitted: "no +Inf bucket: not a valid Prometheus histogram",
			rule:    "histogram-without-inf-bucket",
			runs:    []string{"c1/r1: vllm:e2e_request_latency_seconds"},
		},
		{
			name:  "only a +Inf bucket gives no quantile",
			start: zero(inf),
			end:   ingest.Histogram{Buckets: buckets(inf, 5), Count: 5, Sum: 2},
			p50:   math.NaN(), p95: math.NaN(), p99: math.NaN(),
			omitted: "only a +Inf bucket: no finite bound to interpolate in",
		},
		{
			name:  "no observation in the window",
			start: ingest.Histogram{Buckets: buckets(0.1, 2, inf, 2), Count: 2},
			end:   ingest.Histogram{Buckets: buckets(0.1, 2, inf, 2), Count: 2},
			p50:   math.NaN(), p95: math.NaN(), p99: math.NaN(),
			omitted: "no observations in the window",
		},
		{
			name:  "count rose but the buckets did not",
			start: ingest.Histogram{Buckets: buckets(0.1, 2, inf, 2), Count: 2},
			end:   ingest.Histogram{Buckets: buckets(0.1, 2, inf, 2), Count: 5},
			p50:   math.NaN(), p95: math.NaN(), p99: math.NaN(),
			omitted: "no observations in the window's +Inf bucket, although the count rose by 3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := scrapedRun("c1/r1", e2eScrape("c1/r1/metrics-start.prom", tt.start), e2eScrape("c1/r1/metrics-end.prom", tt.end))
			s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
			h := serverRole(t, s.Runs[0], ingest.RoleE2E)
			for _, q := range []struct {
				name      string
				got, want float64
			}{{"p50", float64(h.P50), tt.p50}, {"p95", float64(h.P95), tt.p95}, {"p99", float64(h.P99), tt.p99}} {
				if !sameFloat(q.got, q.want) {
					t.Errorf("%s = %v ms, want %v", q.name, q.got, q.want)
				}
			}
			if h.Omitted != tt.omitted {
				t.Errorf("omitted = %q, want %q", h.Omitted, tt.omitted)
			}
			if tt.omitted != "" && exclusionCount(s, "server histogram not shown: "+tt.omitted) != 1 {
				t.Errorf("no exclusion for %q in %v", tt.omitted, s.Exclusions)
			}
			if !reflect.DeepEqual(h.RaisedBuckets, tt.raised) || !reflect.DeepEqual(h.MergedBounds, tt.merged) {
				t.Errorf("raised %v, merged %v; want %v, %v", h.RaisedBuckets, h.MergedBounds, tt.raised, tt.merged)
			}
			if tt.rule != "" {
				f, ok := finding(s, tt.rule)
				if !ok || f.Severity != "warning" || !reflect.DeepEqual(f.Runs, tt.runs) {
					t.Errorf("finding %s = %+v (found %v), want a warning with runs %q", tt.rule, f, ok, tt.runs)
				}
			}
		})
	}
}

// TestScrapePairChecks: start and end scrapes that cannot bracket one
// window of one server process.
func TestScrapePairChecks(t *testing.T) {
	counters := func(path string, gen float64, series string, started float64) *ingest.Scrape {
		return &ingest.Scrape{
			Path: path, Families: 3, ProcessStartTime: started,
			Counters:     map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: gen, ingest.RolePromptTokens: 300},
			CounterNames: map[ingest.MetricRole]string{ingest.RoleGenerationTokens: "vllm:generation_tokens_total", ingest.RolePromptTokens: "vllm:prompt_tokens_total"},
			Series:       map[ingest.MetricRole]string{ingest.RoleGenerationTokens: series, ingest.RolePromptTokens: series},
		}
	}
	const a, b = `{model_name="a"}`, `{model_name="b"}`
	identical := func(path string) *ingest.Scrape {
		s := counters(path, 100, a, 1.7e9)
		s.Digest = [32]byte{1, 2, 3}
		return s
	}
	tests := []struct {
		name       string
		start, end *ingest.Scrape
		want       ScrapeCheck
		rule, sev  string
		runs       []string
		outputRate float64 // tokens/s; NaN when unavailable
	}{
		{
			name:  "one process",
			start: counters("s.prom", 100, a, 1.7e9), end: counters("e.prom", 109, a, 1.7e9),
			outputRate: 0.9,
		},
		{
			name:  "process restarted",
			start: counters("s.prom", 100, a, 1_700_000_000), end: counters("e.prom", 109, a, 1_700_000_005),
			want: ScrapeCheck{NotOneProcess: []string{"process_start_time_seconds is 2023-11-14T22:13:20Z in the start scrape and 2023-11-14T22:13:25Z in the end scrape"}},
			rule: "scrapes-not-one-process", sev: "error",
			runs:       []string{"c1/r1: process_start_time_seconds is 2023-11-14T22:13:20Z in the start scrape and 2023-11-14T22:13:25Z in the end scrape"},
			outputRate: math.NaN(),
		},
		{
			name:  "another model",
			start: counters("s.prom", 100, a, 0), end: counters("e.prom", 109, b, 0),
			want: ScrapeCheck{NotOneProcess: []string{
				`labels {model_name="a"} in the start scrape and {model_name="b"} in the end scrape (vllm:generation_tokens_total, vllm:prompt_tokens_total)`,
			}},
			rule: "scrapes-not-one-process", sev: "error",
			runs:       []string{`c1/r1: labels {model_name="a"} in the start scrape and {model_name="b"} in the end scrape (vllm:generation_tokens_total, vllm:prompt_tokens_total)`},
			outputRate: math.NaN(),
		},
		{
			name:  "identical files",
			start: identical("c1/r1/metrics-start.prom"), end: identical("c1/r1/metrics-end.prom"),
			want: ScrapeCheck{Identical: true},
			rule: "identical-scrapes", sev: "error", runs: []string{"c1/r1"},
			outputRate: math.NaN(),
		},
		{
			name:  "nothing counted",
			start: counters("s.prom", 100, a, 1.7e9), end: counters("e.prom", 100, a, 1.7e9),
			want: ScrapeCheck{Unchanged: true},
			rule: "scrapes-unchanged", sev: "warning", runs: []string{"c1/r1"},
			outputRate: 0,
		},
		{
			name:  "empty end scrape",
			start: counters("s.prom", 100, a, 1.7e9), end: &ingest.Scrape{Path: "c1/r1/metrics-end.prom"},
			want: ScrapeCheck{Empty: []string{"c1/r1/metrics-end.prom"}},
			rule: "empty-scrape", sev: "warning", runs: []string{"c1/r1: c1/r1/metrics-end.prom"},
			outputRate: math.NaN(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{scrapedRun("c1/r1", tt.start, tt.end)}})
			r := s.Runs[0]
			if !reflect.DeepEqual(r.Scrapes, tt.want) {
				t.Errorf("scrape check = %+v, want %+v", r.Scrapes, tt.want)
			}
			if got := float64(r.Throughput.OutputTokensPerSec); !sameFloat(got, tt.outputRate) {
				t.Errorf("output tokens/s = %v, want %v (%s)", got, tt.outputRate, r.Throughput.ServerUnavailable)
			}
			for _, rule := range []string{"scrapes-not-one-process", "identical-scrapes", "scrapes-unchanged", "empty-scrape"} {
				f, ok := finding(s, rule)
				switch {
				case rule != tt.rule && ok:
					t.Errorf("unexpected finding %+v", f)
				case rule == tt.rule && (!ok || f.Severity != tt.sev || !reflect.DeepEqual(f.Runs, tt.runs)):
					t.Errorf("finding %s = %+v (found %v), want %s with runs %q", rule, f, ok, tt.sev, tt.runs)
				}
			}
		})
	}
}

// TestSeveralSeriesAreNamed: a metric with two engine series and no
// selector is not "missing": the reason says it has several series.
func TestSeveralSeriesAreNamed(t *testing.T) {
	ambiguous := func(path string) *ingest.Scrape {
		return &ingest.Scrape{
			Path: path, Families: 2,
			Counters:       map[ingest.MetricRole]float64{ingest.RolePromptTokens: 10},
			Histograms:     map[ingest.MetricRole]ingest.Histogram{},
			HistogramNames: map[ingest.MetricRole]string{},
			Unread: map[ingest.MetricRole]string{
				ingest.RoleGenerationTokens: "vllm:generation_tokens_total has 2 series and no label_selector chooses one",
				ingest.RoleTTFT:             "vllm:time_to_first_token_seconds has 2 series and no label_selector chooses one",
			},
		}
	}
	start, end := ambiguous("s.prom"), ambiguous("e.prom")
	start.Counters[ingest.RoleGenerationTokens] = 5
	delete(start.Unread, ingest.RoleGenerationTokens)
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{scrapedRun("c1/r1", start, end)}})
	r := s.Runs[0]
	const why = "counter generation_tokens not read: vllm:generation_tokens_total has 2 series and no label_selector chooses one (end scrape)"
	if r.Throughput.ServerUnavailable != why {
		t.Errorf("server throughput unavailable: %q, want %q", r.Throughput.ServerUnavailable, why)
	}
	// Both scrapes have two TTFT series: the reason says so, not "end scrape".
	if h := serverRole(t, r, ingest.RoleTTFT); h.Omitted != "vllm:time_to_first_token_seconds has 2 series and no label_selector chooses one (both scrapes)" {
		t.Errorf("ttft omitted = %q", h.Omitted)
	}
	// Only the end scrape has two: it is named alone.
	start, end = ambiguous("s.prom"), ambiguous("e.prom")
	delete(start.Unread, ingest.RoleTTFT)
	start.Histograms[ingest.RoleTTFT] = ingest.Histogram{Buckets: []ingest.Bucket{{UpperBound: math.Inf(1), Count: 1}}, Count: 1}
	s = Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{scrapedRun("c1/r1", start, end)}})
	if h := serverRole(t, s.Runs[0], ingest.RoleTTFT); h.Omitted != "vllm:time_to_first_token_seconds has 2 series and no label_selector chooses one (end scrape)" {
		t.Errorf("ttft omitted with one ambiguous scrape = %q", h.Omitted)
	}
}

// TestErrorRate: a share of failed measured requests above the threshold,
// in a level or in one of its runs, is an error finding.
func TestErrorRate(t *testing.T) {
	// run makes n requests of which failed have failed.
	run := func(dir string, conc, repeat, n, failed int) *ingest.Run {
		var rs []req
		for i := 0; i < n; i++ {
			r := req{id: string(rune('A' + i)), n: 3, ttft: 10, e2e: 30}
			if i < failed {
				r.status = "HTTP 500"
			}
			rs = append(rs, r)
		}
		return makeRun(dir, conc, repeat, rs)
	}
	tests := []struct {
		name      string
		threshold float64
		runs      []*ingest.Run
		want      []Finding
	}{
		{
			name:      "at the threshold is fine",
			threshold: 0.25,
			runs:      []*ingest.Run{run("c1/r1", 1, 1, 4, 1), run("c1/r2", 1, 2, 4, 1)},
		},
		{
			name:      "one run above, level below",
			threshold: 0.25,
			runs:      []*ingest.Run{run("c1/r1", 1, 1, 4, 2), run("c1/r2", 1, 2, 10, 0)},
			want: []Finding{{Severity: "error", Rule: "error-rate", Source: "serving-workloads §2.5: failed requests are not latency samples; latency describes only the requests that succeeded",
				Message: "concurrency 1: 1 of 2 runs has more failed requests than the error-rate threshold of 25% of its measured requests (the level as a whole: 2 of 14, 14.29%). Latency and throughput figures describe only the requests that succeeded",
				Runs:    []string{"c1/r1 (2 of 4 measured requests failed, 50%)"}}},
		},
		{
			name:      "default threshold of 1 %, per level",
			threshold: 0.01,
			runs:      []*ingest.Run{run("c1/r1", 1, 1, 20, 20), run("c2/r1", 2, 1, 20, 0)},
			want: []Finding{{Severity: "error", Rule: "error-rate", Source: "serving-workloads §2.5: failed requests are not latency samples; latency describes only the requests that succeeded",
				Message: "concurrency 1: 20 of 20 measured requests failed (100%), above the error-rate threshold of 1%; 1 of 1 run is above it. Latency and throughput figures describe only the requests that succeeded",
				Runs:    []string{"c1/r1 (20 of 20 measured requests failed, 100%)"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := noWarmupConfig()
			cfg.ErrorRateThreshold = tt.threshold
			s := Analyze(&ingest.Sweep{Config: cfg, Runs: tt.runs})
			var got []Finding
			for _, f := range s.Findings {
				if f.Rule == "error-rate" {
					got = append(got, f)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings\n%+v\nwant\n%+v", got, tt.want)
			}
			if s.Method.ErrorRateThreshold != tt.threshold {
				t.Errorf("method threshold = %v, want %v", s.Method.ErrorRateThreshold, tt.threshold)
			}
		})
	}
}

// TestRunLevelFindings: failed runs, runs without a request and unknown
// settings are findings, not silence.
func TestRunLevelFindings(t *testing.T) {
	failed := &ingest.Run{Dir: "c1/bad", Concurrency: 1, Repeat: 2, Failed: true, Diagnostics: []ingest.Diagnostic{
		{Severity: ingest.Error, File: "c1/bad/requests.csv", Line: 1, Reason: "missing column", Message: "missing required column completion_tokens"},
	}}
	headerOnly := makeRun("c1/empty", 1, 3, nil)
	headerOnly.Diagnostics = []ingest.Diagnostic{{Severity: ingest.Warning, File: "c1/empty/run.yaml", Line: 2, Column: 1, ColumnName: "windw", Reason: "unknown setting", Message: `unknown setting "windw" is ignored`}}
	sw := &ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{makeRun("c1/ok", 1, 1, []req{{id: "a", n: 3, ttft: 10, e2e: 30}}), failed, headerOnly},
		Diagnostics: []ingest.Diagnostic{{Severity: ingest.Warning, File: "sweep.yaml", Line: 4, Column: 1, ColumnName: "colour", Reason: "unknown setting", Message: `unknown setting "colour" is ignored`}}}
	s := Analyze(sw)
	wantIgnored := []IgnoredSetting{{File: "c1/empty/run.yaml", Line: 2, Column: 1, Setting: "windw"}, {File: "sweep.yaml", Line: 4, Column: 1, Setting: "colour"}}
	if !reflect.DeepEqual(s.Method.IgnoredSettings, wantIgnored) {
		t.Errorf("ignored settings = %+v, want %+v", s.Method.IgnoredSettings, wantIgnored)
	}
	tests := []struct {
		rule, severity, message string
		runs                    []string
	}{
		{"run-failed", "error", "1 run left out of every figure: it could not be used",
			[]string{"c1/bad/requests.csv:1: error: missing required column completion_tokens"}},
		{"empty-run", "warning", "1 run has no usable request: nothing measured, nothing added to any figure",
			[]string{"c1/empty: the requests file has no data row (header only?)"}},
		{"unknown-settings", "warning", "2 settings benchnote does not know were ignored (a misspelt key?): c1/empty/run.yaml:2:1 windw, sweep.yaml:4:1 colour", nil},
	}
	for _, tt := range tests {
		f, ok := finding(s, tt.rule)
		if !ok || f.Severity != tt.severity || f.Message != tt.message || !reflect.DeepEqual(f.Runs, tt.runs) {
			t.Errorf("finding %s = %+v (found %v), want %s %q %q", tt.rule, f, ok, tt.severity, tt.message, tt.runs)
		}
	}
	if s.Findings[0].Severity != "error" {
		t.Errorf("findings not most severe first: %+v", s.Findings)
	}
}

// TestWarmupInWindowNeedsScrapes: warm-up completing inside the window
// only matters to server counters, so a run without scrapes (an import of
// a tool's results) is not warned about it; missing-scrape says why there
// are no server figures instead.
func TestWarmupInWindowNeedsScrapes(t *testing.T) {
	sw := &ingest.Sweep{Config: ingest.DefaultConfig()}
	s := &Summary{Runs: []RunSummary{
		{Dir: "c1/scraped", Warmup: WarmupResult{OverlapsWindow: true}},
		{Dir: "c1/unscraped", Warmup: WarmupResult{OverlapsWindow: true},
			Throughput: Throughput{ServerUnavailable: "metrics-start.prom or metrics-end.prom missing or unreadable"}},
	}}
	var got []string
	for _, f := range lint(sw, s) {
		if f.Rule == "window-overlaps-warm-up" {
			got = append(got, f.Message+" "+strings.Join(f.Runs, ";"))
		}
	}
	want := []string{"1 run has warm-up requests completing inside the scrape window: server counters and histograms include warm-up c1/scraped"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("window-overlaps-warm-up findings %q, want %q", got, want)
	}
}
