package analyze

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// seriesRun is a run of series tp=<tp> at concurrency 2: 10 requests of n
// tokens sent one a second from t0, TTFT ttft (E2E = TTFT + 20 ms), inside
// a window of window seconds whose server counter counts their 10·n
// tokens, so its output rate is 10·n / window tokens/s. gpus is the
// environment's gpu_count ("" for none).
func seriesRun(t *testing.T, tp string, repeat int, n int64, ttft float64, window float64, gpus string) *ingest.Run {
	t.Helper()
	t0 := time.Unix(1_700_000_000, 0).UTC()
	var rs []req
	for i := 0; i < 10; i++ {
		rs = append(rs, req{id: fmt.Sprint(i), n: n, ttft: ttft, e2e: ttft + 20, sent: float64(t0.Unix() + int64(i))})
	}
	dir := fmt.Sprintf("tp%s/c2/run-%d", tp, repeat)
	run := makeRun(dir, 2, repeat, rs)
	ser, err := ingest.NewSeries(map[string]string{"tp": tp, "engine": "vllm"})
	if err != nil {
		t.Fatal(err)
	}
	run.Series = ser
	run.Window = ingest.Window{Start: t0, End: t0.Add(time.Duration(window * float64(time.Second))), Source: "run.yaml"}
	run.ScrapeStart = &ingest.Scrape{Path: dir + "/metrics-start.prom", Families: 1, Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 0}}
	run.ScrapeEnd = &ingest.Scrape{Path: dir + "/metrics-end.prom", Families: 1, Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: float64(10 * n)}}
	run.Env.Canonical = map[string]string{}
	if gpus != "" {
		run.Env.Canonical["gpu_count"] = gpus
	}
	return run
}

// TestConfigurations ranks two series by output tokens/s per GPU at the
// level their answer names, worked by hand:
//
//	tp=1 (1 GPU): 10 × 3 tokens over windows of 10, 12, 15 s: 3, 2.5, 2
//	  tokens/s; median 2.5, deviations 0.5, 0, 0.5, raw MAD 0.5.
//	tp=2 (2 GPUs): 10 × 9 tokens over the windows below; per GPU, each
//	  run's rate halved.
//
// Every request's TTFT is 50 ms against a 100 ms target (all pass) unless
// the case says otherwise.
func TestConfigurations(t *testing.T) {
	type series struct {
		ttft    float64
		windows [3]float64
		gpus    string
	}
	tp1 := series{50, [3]float64{10, 12, 15}, "1"}
	tests := []struct {
		name     string
		tp2      series
		tp1GPUs  string
		per      string
		within   bool
		ranks    [2]int
		medians  [2]float64 // of the figures ranked; 0 when unranked
		mads     [2]float64
		gpus     [2]int
		unknown  [2]string
		unavail  string
		tp2Level bool
	}{
		{
			// tp=2: 9, 7.5, 6 tokens/s; per GPU 4.5, 3.75, 3: median
			// 3.75, MAD 0.75. Its range [3, 4.5] touches tp=1's [2, 3]:
			// within the spread.
			name: "the runner-up's range touches the best's",
			tp2:  series{50, [3]float64{10, 12, 15}, "2"}, tp1GPUs: "1",
			per: PerGPU, within: true, ranks: [2]int{2, 1},
			medians: [2]float64{2.5, 3.75}, mads: [2]float64{0.5, 0.75}, gpus: [2]int{1, 2}, tp2Level: true,
		},
		{
			// tp=2: 9, 7.5, 7.5 tokens/s; per GPU 4.5, 3.75, 3.75:
			// median 3.75, MAD 0. 3.75 − 0 > 2.5 + 0.5: told apart.
			name: "told apart",
			tp2:  series{50, [3]float64{10, 12, 12}, "2"}, tp1GPUs: "1",
			per: PerGPU, within: false, ranks: [2]int{2, 1},
			medians: [2]float64{2.5, 3.75}, mads: [2]float64{0.5, 0}, gpus: [2]int{1, 2}, tp2Level: true,
		},
		{
			// tp=2's GPU count is not recorded: both per server, 2.5 ±
			// 0.5 against 7.5 ± 0 (9, 7.5, 7.5).
			name: "a GPU count unknown: per server",
			tp2:  series{50, [3]float64{10, 12, 12}, ""}, tp1GPUs: "1",
			per: PerServer, within: false, ranks: [2]int{2, 1},
			medians: [2]float64{2.5, 7.5}, mads: [2]float64{0.5, 0}, gpus: [2]int{1, 0},
			unknown: [2]string{"", "not recorded (no gpu_count in the environment)"}, tp2Level: true,
		},
		{
			// tp=2 misses the TTFT target (200 ms): only tp=1 is ranked,
			// so nothing to be within the spread of; its GPU count is
			// not needed, so the figures stay per GPU.
			name: "one series meets the SLOs",
			tp2:  series{200, [3]float64{10, 12, 12}, ""}, tp1GPUs: "1",
			per: PerGPU, within: false, ranks: [2]int{1, 0},
			medians: [2]float64{2.5, 0}, mads: [2]float64{0.5, 0}, gpus: [2]int{1, 0},
			unknown: [2]string{"", "not recorded (no gpu_count in the environment)"},
		},
		{
			name: "no series meets the SLOs",
			tp2:  series{200, [3]float64{10, 12, 12}, "2"}, tp1GPUs: "1",
			per: PerGPU, ranks: [2]int{0, 0}, gpus: [2]int{1, 2},
			unavail: "no series has a level meeting the SLOs",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []*ingest.Run
			for i, w := range tp1.windows {
				runs = append(runs, seriesRun(t, "1", i+1, 3, tp1.ttft, w, tt.tp1GPUs))
			}
			for i, w := range tt.tp2.windows {
				runs = append(runs, seriesRun(t, "2", i+1, 9, tt.tp2.ttft, w, tt.tp2.gpus))
			}
			if tt.unavail != "" {
				// tp=1 misses the target too.
				for i, w := range tp1.windows {
					runs[i] = seriesRun(t, "1", i+1, 3, 200, w, tt.tp1GPUs)
				}
			}
			s := Analyze(&ingest.Sweep{Config: ttftOnly(), Runs: runs})
			c := s.Configurations
			if c == nil {
				t.Fatal("no configurations for two series")
			}
			if !reflect.DeepEqual(c.Differing, []string{"tp"}) || c.Common.String() != "engine=vllm" {
				t.Errorf("differing %v, common %q; want [tp] and engine=vllm", c.Differing, c.Common)
			}
			if c.Per != tt.per || c.WithinSpread != tt.within || c.Unavailable != tt.unavail {
				t.Errorf("per %q, within spread %v, unavailable %q; want %q, %v, %q", c.Per, c.WithinSpread, c.Unavailable, tt.per, tt.within, tt.unavail)
			}
			if len(c.Series) != 2 {
				t.Fatalf("%d series, want 2", len(c.Series))
			}
			for i, r := range c.Series {
				if tp, _ := r.Series.Get("tp"); tp != fmt.Sprint(i+1) {
					t.Errorf("series %d is tp=%s, want tp=%d (series order)", i, tp, i+1)
				}
				if r.Rank != tt.ranks[i] || r.GPUs != tt.gpus[i] || r.GPUsUnknown != tt.unknown[i] {
					t.Errorf("tp=%d: rank %d, GPUs %d (%q); want %d, %d (%q)", i+1, r.Rank, r.GPUs, r.GPUsUnknown, tt.ranks[i], tt.gpus[i], tt.unknown[i])
				}
				if r.Rank == 0 {
					if r.Level != nil || r.Output.Key != "" {
						t.Errorf("tp=%d unranked but has level %v, output %q", i+1, r.Level, r.Output.Key)
					}
					continue
				}
				if r.Level == nil || *r.Level != (LevelKey{Series: r.Series, Mode: "concurrency", Concurrency: 2}) {
					t.Errorf("tp=%d: level %v, want its concurrency 2", i+1, r.Level)
				}
				if !near(float64(r.Output.Median), tt.medians[i]) || !near(float64(r.Output.MAD), tt.mads[i]) || r.Output.Runs != 3 {
					t.Errorf("tp=%d: output %v ± %v (%d runs), want %v ± %v (3 runs)", i+1, r.Output.Median, r.Output.MAD, r.Output.Runs, tt.medians[i], tt.mads[i])
				}
				wantKey := KeyServerOutputRate
				if c.Per == PerGPU {
					wantKey += PerGPUSuffix
				}
				if r.Output.Key != wantKey {
					t.Errorf("tp=%d: output key %q, want %q", i+1, r.Output.Key, wantKey)
				}
			}
			// One answer per series, each naming its series.
			if len(s.Answers) != 2 {
				t.Fatalf("%d answers, want 2", len(s.Answers))
			}
			for i, a := range s.Answers {
				if a.Series != c.Series[i].Series || a.Mode != "concurrency" {
					t.Errorf("answer %d is for %q %s, want %q concurrency", i, a.Series, a.Mode, c.Series[i].Series)
				}
			}
			if got := s.Answers[1].Level != nil; got != tt.tp2Level {
				t.Errorf("tp=2 meets the SLOs: %v, want %v", got, tt.tp2Level)
			}
		})
	}
}

// TestConfigurationsOneSeries: a sweep of one series has no ranking, and
// its answers carry no series (summary.json unchanged).
func TestConfigurationsOneSeries(t *testing.T) {
	s := Analyze(&ingest.Sweep{Config: ttftOnly(), Runs: []*ingest.Run{passRun(1, 1, 10), passRun(1, 2, 10)}})
	if s.Configurations != nil {
		t.Errorf("configurations %+v for one series", s.Configurations)
	}
	if len(s.Answers) != 1 || !s.Answers[0].Series.IsZero() {
		t.Errorf("answers %+v", s.Answers)
	}
}

// TestSeriesGPUs: a series' GPU count is known only when every usable
// run records the same one.
func TestSeriesGPUs(t *testing.T) {
	ser, _ := ingest.NewSeries(map[string]string{"tp": "2"})
	tests := []struct {
		counts []string // per run; "" = not recorded
		n      int
		why    string
	}{
		{[]string{"2", "2"}, 2, ""},
		{[]string{"", ""}, 0, "not recorded (no gpu_count in the environment)"},
		{[]string{"2", ""}, 0, "recorded for some of its runs only"},
		{[]string{"4", "2"}, 0, "its runs disagree (2, 4)"},
		{[]string{"eight"}, 0, `not a GPU count: "eight"`},
	}
	for _, tt := range tests {
		sw := &ingest.Sweep{}
		for _, c := range tt.counts {
			r := &ingest.Run{Series: ser, Env: ingest.Environment{Canonical: map[string]string{}}}
			if c != "" {
				r.Env.Canonical["gpu_count"] = c
			}
			sw.Runs = append(sw.Runs, r)
		}
		n, why := gpuCounts(sw).of(ser)
		if n != tt.n || why != tt.why {
			t.Errorf("%q: %d (%q), want %d (%q)", tt.counts, n, why, tt.n, tt.why)
		}
	}
}
