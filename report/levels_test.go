package report

import (
	"math"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

// levelSummary is a sweep with the given levels, each holding one
// statistic, ttft.p95 = 100 × (its position + 1) ms over 3 runs.
func levelSummary(keys ...analyze.LevelKey) *analyze.Summary {
	s := &analyze.Summary{Method: analyze.Method{Percentile: "nearest-rank", MAD: "raw"}}
	for i, k := range keys {
		s.Levels = append(s.Levels, analyze.Level{LevelKey: k, Runs: []string{"a", "b", "c"}, Stats: []analyze.AcrossRuns{{
			Key: "ttft.p95", Metric: "TTFT", Statistic: "p95", Unit: "ms", Sample: "per-request",
			Median: analyze.Num(100 * (i + 1)), MAD: 1, Runs: 3}}})
	}
	return s
}

var (
	c4   = analyze.LevelKey{Mode: "concurrency", Concurrency: 4}
	c16  = analyze.LevelKey{Mode: "concurrency", Concurrency: 16}
	r2   = analyze.LevelKey{Mode: "rate", Rate: 2}
	r16p = analyze.LevelKey{Mode: "rate", Rate: 16, Arrival: "poisson"}
	r16c = analyze.LevelKey{Mode: "rate", Rate: 16, Arrival: "constant"}
	rInf = analyze.LevelKey{Mode: "rate", Rate: analyze.Rate(math.Inf(1))}
)

func TestLevelCells(t *testing.T) {
	tests := []struct {
		name   string
		s      *analyze.Summary
		cell   string
		want   string
		errMsg string
	}{
		{"concurrency default", levelSummary(c4, c16), "value ttft.p95", "200.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 16)", ""},
		{"c=min", levelSummary(c4, c16), "value ttft.p95 c=min", "100.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 4)", ""},
		{"rate=16 in a rate sweep", levelSummary(r2, r16p, rInf), "value ttft.p95 rate=16", "200.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at 16 req/s)", ""},
		{"rate=inf", levelSummary(r2, r16p, rInf), "value ttft.p95 rate=inf", "300.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at rate inf)", ""},
		{"level=max in a mixed sweep", levelSummary(c4, r2, rInf), "value ttft.p95 level=max", "300.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at rate inf)", ""},
		{"c=max in a mixed sweep", levelSummary(c4, r2, rInf), "value ttft.p95 c=max", "100.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 4)", ""},
		{"arrival disambiguates", levelSummary(r16c, r16p), "value ttft.p95 rate=16:poisson", "200.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at 16 req/s, poisson arrivals)", ""},
		{"two rate=16 levels", levelSummary(r16c, r16p), "value ttft.p95 rate=16", "", "rate=16 matches 2 levels (16 req/s, constant arrivals; 16 req/s, poisson arrivals): add the arrival process, e.g. rate=16:constant"},
		{"c=max without concurrency levels", levelSummary(r2, rInf), "value ttft.p95 c=max", "", "c=max: the sweep has no concurrency level (its levels: 2 req/s, rate inf); use level=max"},
		{"missing rate", levelSummary(r2, rInf), "value ttft.p95 rate=8", "", "no level 8 req/s in the sweep (have 2 req/s, rate inf); did you mean rate=2?"},
		{"missing concurrency", levelSummary(c4, c16), "value ttft.p95 c=8", "", "no concurrency level 8 in the sweep (have 4, 16); did you mean c=4?"},
		{"levels, concurrency", levelSummary(c4, c16), "levels", "4, 16", ""},
		{"levels, rates", levelSummary(r2, rInf), "levels", "2 req/s, rate inf", ""},
		{"load, mixed", levelSummary(c4, r2), "load", "load", ""},
		{"load, rates", levelSummary(r2), "load", "request rate", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &render{ctx: &cellContext{s: tt.s}, footIndex: map[string]int{}}
			got, err := r.inline(strings.Fields(tt.cell))
			if tt.errMsg != "" {
				if err == nil || err.Error() != tt.errMsg {
					t.Errorf("error %v, want %q", err, tt.errMsg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
}

// Tables name each level with its mode: a concurrency sweep keeps its
// "concurrency" column of numbers, a rate sweep names rates, a mixed
// sweep names every level in full.
func TestLevelColumns(t *testing.T) {
	for _, tt := range []struct {
		s    *analyze.Summary
		want string
	}{
		{levelSummary(c4, c16), "| concurrency | runs |"},
		{levelSummary(r2, rInf), "| request rate | runs |"},
		{levelSummary(c4, r2), "| load level | runs |"},
	} {
		tab := headlineTable(tt.s)
		if !strings.Contains(tab, tt.want) {
			t.Errorf("headline table lacks %q:\n%s", tt.want, tab)
		}
	}
	tab := headlineTable(levelSummary(c4, r16p, rInf))
	for _, row := range []string{"| concurrency 4 |", "| 16 req/s |", "| rate inf |"} {
		if !strings.Contains(tab, row) {
			t.Errorf("mixed table lacks %q:\n%s", row, tab)
		}
	}
}

// Rate inf sits at twice the highest finite level on a chart's axis.
func TestAxisX(t *testing.T) {
	s := levelSummary(r2, r16p, rInf)
	for _, tt := range []struct {
		k    analyze.LevelKey
		want float64
	}{{r2, 2}, {r16p, 16}, {rInf, 32}} {
		if got := axisX(s, tt.k.Load()); got != tt.want {
			t.Errorf("axisX(%s) = %v, want %v", tt.k.Load().Describe(), got, tt.want)
		}
	}
	if got := axisX(levelSummary(rInf), rInf.Load()); got != 1 {
		t.Errorf("a lone rate inf at %v, want 1", got)
	}
}
