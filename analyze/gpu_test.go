package analyze

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

var gpuStart = time.Unix(1_700_000_000, 0).UTC()

// gpuRun is a run with a 10 s window from gpuStart, 600 output tokens on
// the server counter in it, and the given GPUs.
func gpuRun(dir string, repeat int, gpus ...ingest.GPUSeries) *ingest.Run {
	run := makeRun(dir, 4, repeat, []req{
		{id: "A", n: 300, ttft: 100, e2e: 3000, sent: 1_700_000_001},
		{id: "B", n: 300, ttft: 100, e2e: 3000, sent: 1_700_000_002},
	})
	run.Window = ingest.Window{Start: gpuStart, End: gpuStart.Add(10 * time.Second), Source: "run.yaml"}
	run.ScrapeStart = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 1000}}
	run.ScrapeEnd = &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 1600}}
	if gpus != nil {
		run.GPU = &ingest.GPUTelemetry{Files: []ingest.GPUFile{{Path: dir + "/gpu.csv", Format: ingest.GPUFormatNative}}, GPUs: gpus}
	}
	return run
}

// sample is a GPU sample at gpuStart + t seconds; NaN fields not recorded.
func sample(t, power, energy, util, mem float64) ingest.GPUSample {
	return ingest.GPUSample{Time: float64(gpuStart.Unix()) + t, PowerW: power, EnergyJ: energy, UtilPercent: util, MemoryUsedMiB: mem, TemperatureC: math.NaN()}
}

// everySecond samples a GPU at t = from, from+step, ..., to.
func everySecond(key string, from, to, step float64, f func(t float64) ingest.GPUSample) ingest.GPUSeries {
	g := ingest.GPUSeries{Key: key, Index: -1, MemoryTotalMiB: math.NaN()}
	for t := from; t <= to+1e-9; t += step {
		g.Samples = append(g.Samples, f(t))
	}
	return g
}

// Two GPUs sampled every second over a 10 s window, A at 100 W and 30 %,
// B at P W with utilisation rising 10 %/s from 0: energy (100 + P) × 10 J,
// utilisation (30 + 50) / 2 = 40 %, memory 1,000 + 2,000 MiB. Three
// repeats with P = 200, 500, 800: 3,000, 6,000 and 9,000 J for 600 tokens
// (server counter 1,000 → 1,600), 5, 10 and 15 J/token, 200, 100 and
// 66.67 tokens/s per kW.
func TestGPUEnergyPowerIntegral(t *testing.T) {
	var runs []*ingest.Run
	for i, p := range []float64{200, 500, 800} {
		a := everySecond("GPU-a", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, 100, math.NaN(), 30, 1000) })
		b := everySecond("GPU-b", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, p, math.NaN(), 10*t, 1000+100*t) })
		runs = append(runs, gpuRun("c4/r"+string(rune('1'+i)), i+1, a, b))
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: runs})
	g := s.Runs[0].GPU
	if g == nil {
		t.Fatal("no GPU summary")
	}
	if g.Count != 2 || g.Method != EnergyFromPower || float64(g.EnergyJ) != 3000 || float64(g.PowerW) != 300 ||
		float64(g.UtilPercent) != 40 || float64(g.MemoryUsedMiB) != 3000 || float64(g.CoveragePercent) != 100 {
		t.Errorf("run 1 GPU = %+v", g)
	}
	if float64(g.OutputTokens) != 600 || !strings.HasPrefix(g.OutputTokensBasis, "server counter") ||
		float64(g.JPerOutputToken) != 5 || float64(g.OutputTokensPerSPerKW) != 200 {
		t.Errorf("run 1: %v tokens (%s), %v J/token, %v tokens/s/kW; want 600, 5, 200", g.OutputTokens, g.OutputTokensBasis, g.JPerOutputToken, g.OutputTokensPerSPerKW)
	}
	if f := g.GPUs[1]; f.Key != "GPU-b" || float64(f.PowerW) != 200 || float64(f.EnergyJ) != 2000 || float64(f.UtilPercent) != 50 || float64(f.MemoryUsedMiB) != 2000 {
		t.Errorf("GPU-b = %+v", f)
	}
	lv := s.Levels[0]
	for _, want := range []struct {
		key         string
		median, mad float64
	}{
		{KeyGPUCount, 2, 0},
		{KeyGPUPower, 600, 300},
		{KeyGPUUtil, 40, 0},
		{KeyGPUMemoryUsed, 3000, 0},
		{KeyEnergyPerToken, 10, 5},
		{KeyTokensPerSecondPKW, 100, 100.0 / 3},
	} {
		st, ok := lv.Stat(want.key)
		if !ok {
			t.Errorf("level has no %s", want.key)
			continue
		}
		if !near(float64(st.Median), want.median) || !near(float64(st.MAD), want.mad) || st.Runs != 3 {
			t.Errorf("%s = %v ± %v over %d runs, want %v ± %v over 3", want.key, st.Median, st.MAD, st.Runs, want.median, want.mad)
		}
	}
}

// A level without GPU telemetry has no GPU statistics.
func TestGPUStatsOnlyWithTelemetry(t *testing.T) {
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{gpuRun("c4/r1", 1)}})
	if _, ok := s.Levels[0].Stat(KeyEnergyPerToken); ok || s.Runs[0].GPU != nil {
		t.Error("GPU statistics without GPU telemetry")
	}
}

func TestGPUFigures(t *testing.T) {
	nan := math.NaN()
	a, b := float64(gpuStart.Unix()), float64(gpuStart.Unix())+10
	for _, tc := range []struct {
		name           string
		samples        []ingest.GPUSample
		method         string
		energy, cover  float64
		note, unavail  string
		util, memoryMi float64
	}{
		{
			// The counter read at −1, 1, 9 and 11 s: 0, 100, 900, 1,500 J,
			// interpolated at the bounds to 50 and 1,200 J. Power is
			// ignored when the counter covers the window.
			name: "counter interpolated",
			samples: []ingest.GPUSample{sample(-1, 999, 0, nan, nan), sample(1, 999, 100, nan, nan),
				sample(9, 999, 900, nan, nan), sample(11, 999, 1500, nan, nan)},
			method: EnergyFromCounter, energy: 1150, cover: 100, util: nan, memoryMi: nan,
		},
		{
			// The counter goes down (a reset): 10 s at 100 W instead.
			name: "counter goes down",
			samples: []ingest.GPUSample{sample(0, 100, 500, nan, nan), sample(5, 100, 1000, nan, nan),
				sample(10, 100, 200, nan, nan)},
			method: EnergyFromPower, energy: 1000, cover: 100, note: "goes down at 2023-11-14T22:13:30Z", util: nan, memoryMi: nan,
		},
		{
			// The counter falls in the pair ending exactly at the window's
			// start (−1 → 0 s) and in the one starting exactly at its end
			// (10 → 11 s): neither overlaps the window, so no reset; the
			// pair 0 → 10 s, exactly the largest gap allowed (10 s),
			// counts: 1,100 − 100 J.
			name: "counter falls only outside the window",
			samples: []ingest.GPUSample{sample(-1, nan, 500, nan, nan), sample(0, nan, 100, nan, nan),
				sample(10, nan, 1100, nan, nan), sample(11, nan, 50, nan, nan)},
			method: EnergyFromCounter, energy: 1000, cover: 100, util: nan, memoryMi: nan,
		},
		{
			// A fall across a pair exactly the largest gap apart is a
			// reset: power instead (10 s at 100 W).
			name:    "counter falls across the largest gap",
			samples: []ingest.GPUSample{sample(0, 100, 1000, nan, nan), sample(10, 100, 500, nan, nan)},
			method:  EnergyFromPower, energy: 1000, cover: 100, note: "goes down at 2023-11-14T22:13:30Z", util: nan, memoryMi: nan,
		},
		{
			// Power 0 → 100 W linearly from −2 to 8 s, then flat to 12 s,
			// the first pair clipped at 0 s (20 W): 8 × (20 + 100) / 2 + 2 × 100.
			name:    "trapezoid clipped",
			samples: []ingest.GPUSample{sample(-2, 0, nan, nan, 10), sample(8, 100, nan, nan, 30), sample(12, 100, nan, nan, 50)},
			method:  EnergyFromPower, energy: 680, cover: 100, util: nan, memoryMi: 30,
		},
		{
			// Samples from 0.5 s to 10 s: 95 % covered, the mean power of
			// the covered part (100 W) stands for the whole window.
			name:    "95 % covered",
			samples: everySecond("x", 0.5, 10, 0.5, func(t float64) ingest.GPUSample { return sample(t, 100, nan, 20, nan) }).Samples,
			method:  EnergyFromPower, energy: 1000, cover: 95, util: 20, memoryMi: nan,
		},
		{
			name:    "80 % covered",
			samples: everySecond("x", 0, 8, 1, func(t float64) ingest.GPUSample { return sample(t, 100, nan, 20, nan) }).Samples,
			energy:  nan, cover: 80, unavail: "cover 80.0 % of the window, less than the 90 % required", util: nan, memoryMi: nan,
		},
		{
			// Two samples 11 s apart cover nothing (more than 10 s, the
			// larger of 10 s and 10 % of the window).
			name:    "gap too wide",
			samples: []ingest.GPUSample{sample(-0.5, 100, nan, nan, nan), sample(10.5, 100, nan, nan, nan)},
			energy:  nan, cover: 0, unavail: "cover 0.0 %", util: nan, memoryMi: nan,
		},
		{
			name:    "no power",
			samples: []ingest.GPUSample{sample(0, nan, nan, 5, nan), sample(10, nan, nan, 5, nan)},
			energy:  nan, cover: nan, unavail: "no power or energy samples", util: 5, memoryMi: nan,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gpuFigures(ingest.GPUSeries{Key: "GPU-x", Samples: tc.samples}, a, b)
			if f.Method != tc.method || !sameNum(float64(f.EnergyJ), tc.energy) || !sameNum(float64(f.CoveragePercent), tc.cover) ||
				!sameNum(float64(f.UtilPercent), tc.util) || !sameNum(float64(f.MemoryUsedMiB), tc.memoryMi) {
				t.Errorf("figures = %+v; want method %q, %v J, %v %% covered, util %v, memory %v", f, tc.method, tc.energy, tc.cover, tc.util, tc.memoryMi)
			}
			if !strings.Contains(f.Note, tc.note) || !strings.Contains(f.Unavailable, tc.unavail) || (tc.unavail == "") != (f.Unavailable == "") {
				t.Errorf("note %q, unavailable %q; want %q and %q", f.Note, f.Unavailable, tc.note, tc.unavail)
			}
		})
	}
}

func sameNum(a, b float64) bool { return near(a, b) || math.IsNaN(a) && math.IsNaN(b) }

// A run whose GPU times are relative, or whose window is unknown, or one
// of whose GPUs does not cover the window, has no energy figures, with
// the reason.
func TestGPUUnavailable(t *testing.T) {
	full := everySecond("GPU-a", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, 100, math.NaN(), 30, 1000) })
	short := everySecond("GPU-b", 0, 5, 1, func(t float64) ingest.GPUSample { return sample(t, 100, math.NaN(), 30, 1000) })
	for _, tc := range []struct {
		name, want string
		run        func() *ingest.Run
	}{
		{"relative", "gpu.csv: times are relative", func() *ingest.Run {
			r := gpuRun("c4/r1", 1, full)
			r.GPU.Unplaced = "gpu.csv: times are relative"
			return r
		}},
		{"no window", "the measurement window is unknown", func() *ingest.Run {
			r := gpuRun("c4/r1", 1, full)
			r.Window = ingest.Window{Source: "unknown"}
			return r
		}},
		{"one GPU short", "GPU GPU-b: its samples cover 50.0 % of the window", func() *ingest.Run { return gpuRun("c4/r1", 1, full, short) }},
		{"unreadable file", "no GPU file could be read: gpu.csv:1: warning: header", func() *ingest.Run {
			r := gpuRun("c4/r1", 1)
			r.GPU = &ingest.GPUTelemetry{Unread: []ingest.IgnoredFile{{Path: "gpu.csv", Reason: "gpu.csv:1: warning: header \"a,b\" is not GPU telemetry"}}}
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{tc.run()}})
			g := s.Runs[0].GPU
			if g == nil || !strings.Contains(g.Unavailable, tc.want) || g.EnergyJ.Valid() || g.JPerOutputToken.Valid() {
				t.Fatalf("GPU = %+v; want unavailable %q", g, tc.want)
			}
			st, ok := s.Levels[0].Stat(KeyEnergyPerToken)
			if !ok || st.Runs != 0 {
				t.Errorf("level %s = %+v, want present with 0 runs", KeyEnergyPerToken, st)
			}
		})
	}
}

// An imported run's reported GPU figures are set beside benchnote's: the
// run's total, or one GPU's mean power when the label names the GPU.
func TestGPUReportedFigures(t *testing.T) {
	a := everySecond("GPU-8962cc8a-0000", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, 100, math.NaN(), 30, 1000) })
	a.Index = 0
	b := everySecond("GPU-1111aaaa-0000", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, 200, math.NaN(), 50, 1000) })
	b.Index = 1
	run := gpuRun("c4/r1", 1, a, b)
	run.Provenance = &ingest.Provenance{Tool: "AIPerf", Reported: []ingest.ReportedFigure{
		{Key: KeyEnergyPerToken, Label: "energy per output token", Value: 4, Unit: "J/token"},
		{Key: KeyGPUPower, Label: "GPU 0 NVIDIA A100-SXM4-80GB (GPU-8962cc8a…) mean power", Value: 99, Unit: "W"},
		{Key: KeyGPUPower, Label: "GPU 1 NVIDIA A100-SXM4-80GB mean power", Value: 199, Unit: "W"},
		{Key: KeyGPUPower, Label: "all GPUs", Value: 299, Unit: "W"},
	}}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}})
	figs := s.Runs[0].Import.Figures
	// (100 + 200) W × 10 s / 600 tokens = 5 J/token.
	for i, want := range []float64{5, 100, 200, 300} {
		if float64(figs[i].Benchnote) != want {
			t.Errorf("figure %q: benchnote %v (%s), want %v", figs[i].Label, figs[i].Benchnote, figs[i].Basis, want)
		}
	}
}

// TestGPUMethodOfTheRun: the run's method is the counter when every GPU's
// energy came from its counter, ∫ power dt when none did, and both with
// their counts when the GPUs differ. A counts 1000 J/s from 0 (counter),
// B has power only.
func TestGPUMethodOfTheRun(t *testing.T) {
	counter := everySecond("GPU-a", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, 100, 1000*t, 30, 1000) })
	power := everySecond("GPU-b", 0, 10, 1, func(t float64) ingest.GPUSample { return sample(t, 200, math.NaN(), 30, 1000) })
	for _, tt := range []struct {
		gpus []ingest.GPUSeries
		want string
	}{
		{[]ingest.GPUSeries{counter}, EnergyFromCounter},
		{[]ingest.GPUSeries{power}, EnergyFromPower},
		{[]ingest.GPUSeries{counter, power}, EnergyFromCounter + " (1 GPU), " + EnergyFromPower + " (1 GPU)"},
	} {
		s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{gpuRun("c4/r1", 1, tt.gpus...)}})
		if g := s.Runs[0].GPU; g == nil || g.Method != tt.want {
			t.Errorf("%d GPUs: method %q, want %q", len(tt.gpus), g.Method, tt.want)
		}
	}
}
