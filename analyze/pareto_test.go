package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// paretoRun is a run at concurrency 2 of the given requests, sent one a
// second from t0, in a 10 s window over which the server counted tokens
// output tokens, on a machine recording gpus GPUs ("" for none).
func paretoRun(t *testing.T, series map[string]string, repeat int, tokens float64, gpus string, rs []req) *ingest.Run {
	t.Helper()
	const t0 = 1_700_000_000
	for i := range rs {
		rs[i].sent = t0 + 1 + float64(i)
	}
	ser, err := ingest.NewSeries(series)
	if err != nil {
		t.Fatal(err)
	}
	r := makeRun(fmt.Sprintf("%s/c2/run-%d", ser, repeat), 2, repeat, rs)
	// The counters count far more tokens than these few requests: the
	// tests raise the counter tolerance (paretoConfig) to keep them.
	r.Series = ser
	start := time.Unix(t0, 0).UTC()
	r.Window = ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"}
	r.ScrapeStart = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 0}}
	r.ScrapeEnd = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: tokens}}
	r.Env.Canonical = map[string]string{}
	if gpus != "" {
		r.Env.Canonical["gpu_count"] = gpus
	}
	return r
}

// paretoRequests are the three runs' requests of TestParetoPoints, each
// request's TTFT and E2E moved later by late ms. User TPS = (n − 1) /
// (E2E − TTFT):
//
//	run 1: 4/0.4 s = 10, 2/0.1 = 20, 8/0.4 = 20, and n = 1 (no sample):
//	       median 20 (with the n = 1 request as 0 it would be 10)
//	run 2: 4/0.16 = 25, 1/0.04 = 25, 10/0.5 = 20: median 25
//	run 3: 4/0.1 = 40, 2/0.05 = 40, 3/0.3 = 10: median 40
//
// Across runs: median 25, raw MAD median(5, 0, 15) = 5.
func paretoRequests(late float64) [3][]req {
	rs := [3][]req{
		{{id: "a", n: 5, ttft: 100, e2e: 500}, {id: "b", n: 3, ttft: 100, e2e: 200}, {id: "c", n: 1, ttft: 100, e2e: 100}, {id: "d", n: 9, ttft: 140, e2e: 540}},
		{{id: "a", n: 5, ttft: 100, e2e: 260}, {id: "b", n: 2, ttft: 100, e2e: 140}, {id: "c", n: 11, ttft: 100, e2e: 600}},
		{{id: "a", n: 5, ttft: 100, e2e: 200}, {id: "b", n: 3, ttft: 50, e2e: 100}, {id: "c", n: 4, ttft: 100, e2e: 400}},
	}
	for _, run := range rs {
		for i := range run {
			run[i].ttft += late
			run[i].e2e += late
		}
	}
	return rs
}

// paretoConfig tolerates the counters' disagreement with the client's
// token count (see paretoRun), so the server rate is the output rate.
func paretoConfig() ingest.Config {
	cfg := noWarmupConfig()
	cfg.CounterTolerance = 1e6
	return cfg
}

// TestParetoPoints: two series of three runs at one level. max_num_seqs
// 128 outputs 100, 120 and 150 tokens/s on 2 GPUs (50, 60, 75 per GPU:
// median 60, MAD 10) and meets the SLO (TTFT ≤ 150 ms); max_num_seqs 256
// outputs twice as much (median 120, MAD 20 per GPU) with the same user
// TPS, but each request starts 100 ms later and fails it. 256 dominates
// 128 (higher throughput, the same user TPS), so only 256 is on the
// frontier, though it fails the SLO.
func TestParetoPoints(t *testing.T) {
	cfg := paretoConfig()
	cfg.SLO = ingest.SLO{TTFTms: 150, Attainment: 0.9}
	var runs []*ingest.Run
	for _, sr := range []struct {
		seqs  string
		scale float64
		late  float64
	}{{"128", 1, 0}, {"256", 2, 100}} {
		for i, rs := range paretoRequests(sr.late) {
			tokens := []float64{1000, 1200, 1500}[i] * sr.scale
			runs = append(runs, paretoRun(t, map[string]string{"max_num_seqs": sr.seqs}, i+1, tokens, "2", rs))
		}
	}
	s := Analyze(&ingest.Sweep{Config: cfg, Runs: runs})
	p := s.Pareto
	if p.Per != ParetoPerGPU || p.PerNote != "" || p.Unavailable != "" || len(p.Points) != 2 {
		t.Fatalf("pareto = %+v, want two points per GPU", p)
	}
	yes, no := true, false
	for i, want := range []struct {
		seqs             string
		x, xMAD          float64
		perRun           string
		frontier         bool
		meets            *bool
		y, yMAD, yPerRun string
	}{
		{"128", 60, 10, "[50,60,75]", false, &yes, "25", "5", "[20,25,40]"},
		{"256", 120, 20, "[100,120,150]", true, &no, "25", "5", "[20,25,40]"},
	} {
		pt := p.Points[i]
		if v, _ := pt.Series.Get("max_num_seqs"); v != want.seqs || pt.Concurrency != 2 || pt.GPUs != 2 {
			t.Errorf("point %d: series %s, concurrency %d, %d GPUs; want max_num_seqs=%s, 2, 2", i, pt.Series, pt.Concurrency, pt.GPUs, want.seqs)
		}
		x := pt.Throughput
		perRun, _ := json.Marshal(x.PerRun)
		if float64(x.Median) != want.x || float64(x.MAD) != want.xMAD || string(perRun) != want.perRun || x.Runs != 3 ||
			x.Key != "throughput.output_tokens_per_s_per_gpu" || x.Metric != "output tokens/s per GPU" || x.Unit != "tokens/s" {
			t.Errorf("point %d throughput = %+v, want median %v, MAD %v, per run %s", i, x, want.x, want.xMAD, want.perRun)
		}
		y := pt.UserTPS
		yPerRun, _ := json.Marshal(y.PerRun)
		if fmt.Sprint(y.Median) != want.y || fmt.Sprint(y.MAD) != want.yMAD || string(yPerRun) != want.yPerRun || y.Key != KeyUserTPSMedian {
			t.Errorf("point %d user TPS = %+v, want median %s, MAD %s, per run %s", i, y, want.y, want.yMAD, want.yPerRun)
		}
		if pt.OnFrontier != want.frontier || pt.MeetsSLO == nil || *pt.MeetsSLO != *want.meets || pt.Unavailable != "" {
			t.Errorf("point %d: on frontier %v, meets SLO %v, unavailable %q; want %v, %v", i, pt.OnFrontier, pt.MeetsSLO, pt.Unavailable, want.frontier, *want.meets)
		}
	}
	js, err := json.Marshal(p.Points[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"series":{"max_num_seqs":"128"}`, `"gpus":2`, `"on_frontier":false`, `"meets_slo":true`, `"throughput":{"key":"throughput.output_tokens_per_s_per_gpu"`} {
		if !strings.Contains(string(js), w) {
			t.Errorf("point JSON %s lacks %s", js, w)
		}
	}
}

// TestParetoFrontier: the points no other point beats on both
// coordinates, with ties and dominated points.
func TestParetoFrontier(t *testing.T) {
	pts := []struct {
		name  string
		x, y  float64
		front bool
	}{
		{"a", 10, 50, true},           // the highest user TPS of all
		{"b", 20, 40, true},           // beaten on y only by a, which has less throughput
		{"c", 20, 30, false},          // b: the same throughput, more user TPS
		{"d", 15, 40, false},          // b: more throughput, the same user TPS
		{"e", 30, 10, true},           // the highest throughput
		{"f", 30, 10, true},           // equal to e: neither dominates the other
		{"g", 25, 10, false},          // e
		{"h", math.NaN(), 60, false},  // no throughput: not a point of the frontier
		{"i", 5, 50, false},           // a: more throughput, the same user TPS
		{"j", 40, math.NaN(), false},  // no user TPS
		{"k", 0, 0, false},            // everything
		{"l", 19.999, 39.999, false},  // b, by a hair
		{"m", 29.999, 10.001, true},   // just above e's user TPS
		{"n", 10, 49.9999999, false},  // a: the same throughput
		{"o", 35, math.Inf(1), false}, // not finite: not a point
	}
	var in []ParetoPoint
	for _, p := range pts {
		in = append(in, ParetoPoint{Throughput: AcrossRuns{Median: Num(p.x)}, UserTPS: AcrossRuns{Median: Num(p.y)}})
	}
	markFrontier(in)
	for i, p := range pts {
		if in[i].OnFrontier != p.front {
			t.Errorf("point %s (%v, %v): on frontier %v, want %v", p.name, p.x, p.y, in[i].OnFrontier, p.front)
		}
	}
	// One point is its own frontier; none, none.
	one := []ParetoPoint{{Throughput: AcrossRuns{Median: 3}, UserTPS: AcrossRuns{Median: 0}}}
	markFrontier(one)
	markFrontier(nil)
	if !one[0].OnFrontier {
		t.Error("a single point is not on the frontier")
	}
}

// TestParetoDegenerate: a chart per server when a GPU count is missing or
// differs, and the reason when no level has a user TPS.
func TestParetoDegenerate(t *testing.T) {
	rs := paretoRequests(0)
	s := Analyze(&ingest.Sweep{Config: paretoConfig(), Runs: []*ingest.Run{
		paretoRun(t, nil, 1, 1000, "2", rs[0]), paretoRun(t, nil, 2, 1200, "", rs[1]), paretoRun(t, nil, 3, 1500, "2", rs[2]),
	}})
	p := s.Pareto
	if p.Per != ParetoPerServer || p.PerNote != "GPU count (environment gpu_count) not recorded, or not the same in every run, for concurrency 2 (1 of 1 levels)" {
		t.Errorf("per %q, note %q", p.Per, p.PerNote)
	}
	x := p.Points[0].Throughput
	if float64(x.Median) != 120 || float64(x.MAD) != 20 || x.Key != KeyServerOutputRate || x.Metric != "output tokens/s per server" || p.Points[0].GPUs != 0 || !p.Points[0].OnFrontier {
		t.Errorf("per-server point = %+v", p.Points[0])
	}
	if m := p.Points[0].MeetsSLO; m == nil || !*m {
		t.Errorf("meets SLO %v: the default targets are met by every request", m)
	}

	s = Analyze(&ingest.Sweep{Config: paretoConfig(), Runs: []*ingest.Run{
		paretoRun(t, nil, 1, 1000, "2", rs[0]), paretoRun(t, nil, 2, 1200, "4", rs[1]), paretoRun(t, nil, 3, 1500, "2", rs[2]),
	}})
	if s.Pareto.Per != ParetoPerServer || s.Pareto.Points[0].GPUs != 0 {
		t.Errorf("runs with 2 and 4 GPUs: per %q, GPUs %d; want per server", s.Pareto.Per, s.Pareto.Points[0].GPUs)
	}

	one := func(n int64, ttft, e2e float64) []req {
		return []req{{id: "a", n: n, ttft: ttft, e2e: e2e}, {id: "b", n: n, ttft: ttft, e2e: e2e}}
	}
	for _, tc := range []struct {
		name string
		rs   []req
		want string
	}{
		{"one token each", one(1, 100, 100), "no level has a user TPS: every measured request had fewer than 2 output tokens, and user TPS = (n − 1) / (E2E − TTFT) needs n ≥ 2"},
		{"not streamed", one(5, 300, 300), "no level has a user TPS: the responses were not streamed (TTFT = E2E), so no request has a decode time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := paretoConfig()
			cfg.SLO = ingest.SLO{}
			s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{paretoRun(t, nil, 1, 1000, "1", tc.rs)}})
			p := s.Pareto
			if p.Unavailable != tc.want || len(p.Points) != 1 || p.Points[0].Drawable() || p.Points[0].MeetsSLO != nil {
				t.Errorf("pareto = %+v\nwant unavailable %q, one point without a user TPS, no SLO verdict", p, tc.want)
			}
			if !strings.HasPrefix(p.Points[0].Unavailable, "no user TPS: ") {
				t.Errorf("point unavailable %q", p.Points[0].Unavailable)
			}
		})
	}
	if got := Analyze(&ingest.Sweep{Config: paretoConfig()}).Pareto; got.Unavailable != "the sweep has no load level" || got.Points == nil {
		t.Errorf("empty sweep: %+v", got)
	}
}
