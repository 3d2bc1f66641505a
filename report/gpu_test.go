package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// gpuSweep is three runs at concurrency 4, each with a 10 s window, 600
// output tokens on the server counter and two GPUs sampled every second
// (A at 100 W, B at 200, 500 and 800 W), one run at concurrency 8 whose
// GPU file has relative times, and an aggregates-only import reporting
// its tool's energy per token.
func gpuSweep() *ingest.Sweep {
	start := time.Unix(1_700_000_000, 0).UTC()
	nan := math.NaN()
	series := func(key, name string, power, util float64) ingest.GPUSeries {
		g := ingest.GPUSeries{Key: key, Index: -1, Name: name, MemoryTotalMiB: nan}
		for t := 0.0; t <= 10; t++ {
			g.Samples = append(g.Samples, ingest.GPUSample{Time: float64(start.Unix()) + t, PowerW: power, EnergyJ: nan,
				UtilPercent: util, MemoryUsedMiB: 1000, TemperatureC: nan})
		}
		return g
	}
	run := func(dir string, conc, repeat int, tel *ingest.GPUTelemetry) *ingest.Run {
		q := &ingest.Requests{N: 2}
		for k := range 2 {
			q.SourceRow = append(q.SourceRow, int32(k+2))
			q.IDs.Append(string(rune('a' + k)))
			q.PromptTokens = append(q.PromptTokens, 10)
			q.CompletionTokens = append(q.CompletionTokens, 300)
			q.TTFTms = append(q.TTFTms, 100)
			q.E2Ems = append(q.E2Ems, 3000)
			q.TRequestSent = append(q.TRequestSent, float64(start.Unix())+1+float64(k))
			q.TLastText = append(q.TLastText, float64(start.Unix())+4+float64(k))
		}
		return &ingest.Run{Dir: dir, Concurrency: conc, Repeat: repeat,
			Requests:    &ingest.RequestFile{Path: dir + "/requests.csv", Format: "csv", RowsRead: 2, Requests: q},
			Window:      ingest.Window{Start: start, End: start.Add(10 * time.Second), Source: "run.yaml"},
			ScrapeStart: &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 1000}},
			ScrapeEnd:   &ingest.Scrape{Counters: map[ingest.MetricRole]float64{ingest.RoleGenerationTokens: 1600}},
			GPU:         tel,
		}
	}
	var runs []*ingest.Run
	for i, p := range []float64{200, 500, 800} {
		dir := "c4/run-" + string(rune('1'+i))
		runs = append(runs, run(dir, 4, i+1, &ingest.GPUTelemetry{
			Files: []ingest.GPUFile{{Path: dir + "/gpu.csv", Format: ingest.GPUFormatNative}},
			GPUs:  []ingest.GPUSeries{series("GPU-a", "NVIDIA H100 80GB HBM3", 100, 30), series("GPU-b", "NVIDIA H100 80GB HBM3", p, 50)},
		}))
	}
	runs = append(runs, run("c8/run-1", 8, 1, &ingest.GPUTelemetry{
		Files:    []ingest.GPUFile{{Path: "c8/run-1/gpu.csv", Format: ingest.GPUFormatNvidiaDmon, Relative: true}},
		GPUs:     []ingest.GPUSeries{series("/0", "", 100, 30)},
		Unplaced: "c8/run-1/gpu.csv: times are seconds since the logger started, not wall-clock times; the samples cannot be placed in the measurement window",
	}))
	cfg := ingest.DefaultConfig()
	cfg.Warmup.Mode = "none"
	return &ingest.Sweep{Config: cfg, Runs: runs, Reported: []*ingest.ReportedRun{{
		Dir: "aiperf/c1", Load: ingest.ConcurrencyLoad(1),
		Provenance: &ingest.Provenance{Tool: "AIPerf", Reported: []ingest.ReportedFigure{
			{Key: "energy.j_per_output_token", Label: "energy per output token", Value: 2.5, Unit: "J/token", Note: "AIPerf telemetry summary, DCGM; energy = counter max − min"},
			{Key: "gpu.power_w", Label: "GPU 0 NVIDIA A100-SXM4-80GB (GPU-8962cc8a…) mean power", Value: 310.25, Unit: "W", Note: "AIPerf telemetry summary"},
			{Key: "ttft.p50", Label: "TTFT p50", Value: 12, Unit: "ms"},
		}},
	}}}
}

func TestGPUSection(t *testing.T) {
	s := analyze.Analyze(gpuSweep())
	got := gpuTable(s)
	golden := filepath.Join("testdata", "gpu-section.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("GPU section differs from %s (go test ./report -update):\n%s", golden, got)
	}
	// The figures worked out by hand (analyze's TestGPUEnergyPowerIntegral).
	for _, want := range []string{
		"| 4 | 3 | 2 ± 0 | 600 ± 300 | 40 ± 0 % | 2000 ± 0 | 10.0 ± 5.0 | 100 ± 33 | ∫ power dt |",
		"| `c4/run-2` | `GPU-b` | NVIDIA H100 80GB HBM3 | 500 | 50 | 1000 | 100 % | ∫ power dt |",
		"- `c8/run-1`: c8/run-1/gpu.csv: times are seconds since the logger started",
		"| `aiperf/c1` | concurrency 1 | energy per output token | 2.500 | J/token | as reported by AIPerf |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("GPU section lacks %q", want)
		}
	}
	if strings.Contains(got, "TTFT p50") {
		t.Error("GPU section lists a figure that is not a GPU figure")
	}
	files, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MarkdownFile, HTMLFile} {
		if !strings.Contains(string(files[f]), "GPU and energy") || !strings.Contains(string(files[f]), "output tokens/s per kW") {
			t.Errorf("%s has no GPU and energy section", f)
		}
	}
}

func TestGPUSectionWithoutTelemetry(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	if got, want := gpuTable(s), "*No run has GPU telemetry (a `gpu.csv` in the run directory): no power or energy figures.*\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
