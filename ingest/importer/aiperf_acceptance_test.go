package importer

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// The AIPerf 0.2-era fixture (Llama 3 8B on an RTX 6000 Ada, concurrency
// 4, 64 requests, Apache-2.0, copied into testdata/real): with its summary
// beside it, the records import at concurrency 4 without --level; every
// TTFT is the record's time_to_first_token; one request's
// inter_chunk_latency list is 187 long for 200 tokens, and provenance says
// so; the summary's two DCGM endpoints report one GPU, counted once, and
// its energy counter rose 11,348.237 J over 12,800 output tokens.
func TestAcceptanceAIPerf02(t *testing.T) {
	dir := filepath.Join("testdata", "real", "aiperf0.2-era-vllm-llama3-8b-rtx6000ada-c4-64req")
	records := filepath.Join(dir, "profile_export.jsonl")
	for _, in := range [][]string{{dir}, {records, filepath.Join(dir, "profile_export_aiperf.json")}} {
		run := importOne(t, in...)
		q := run.Requests
		if q.N != 64 || run.Config.Load != ingest.ConcurrencyLoad(4) {
			t.Fatalf("%v: %d requests at %s, want 64 at concurrency 4", in, q.N, run.Config.Load.Describe())
		}
		want := recordTTFTs(t, records)
		for i := range q.N {
			if id := q.ID(i); q.TTFTms[i] != want[id] {
				t.Errorf("request %s: TTFT %v ms, the record's %v", id, q.TTFTms[i], want[id])
			}
		}
		p := run.Config.Provenance
		if !slices.ContainsFunc(p.Approximate, func(s string) bool {
			return strings.Contains(s, "1 of 64 requests' lists are not output_token_count − 1 long")
		}) {
			t.Errorf("approximate %q does not say that one request's chunk gaps are fewer than its tokens", p.Approximate)
		}
		for _, kv := range []ingest.KV{{Key: "model", Value: "meta-llama/Meta-Llama-3-8B-Instruct"}, {Key: "streaming", Value: "true"}, {Key: "endpoint", Value: "/v1/chat/completions"}} {
			if !slices.Contains(run.Env, kv) {
				t.Errorf("environment %v lacks %v", run.Env, kv)
			}
		}
		if got := figure(t, p, "gpu.count"); got != 1 {
			t.Errorf("gpu.count %v, want 1 (one UUID under two endpoints)", got)
		}
		if got := figure(t, p, "energy.j_per_output_token"); math.Abs(got-0.8865810156) > 1e-9 {
			t.Errorf("J/token %v, want 0.8865810156", got)
		}
		if got := figure(t, p, "ttft.max"); got != 51.189249999999994 {
			t.Errorf("AIPerf's own TTFT max %v", got)
		}
	}
	// Read back as report reads it, AIPerf's J/token is shown beside the
	// run (benchnote has no counterpart until it reads gpu.csv).
	s := analyzeImport(t, "warmup: none\n", dir)
	if f := runFigure(t, s, "energy.j_per_output_token"); math.Abs(float64(f.Reported)-0.8865810156) > 1e-9 {
		t.Errorf("J/token beside the run: %+v", f)
	}
	// The records alone still import, with --level.
	imp, err := ImportFiles([]string{records}, Options{Level: ingest.ConcurrencyLoad(4)})
	if err != nil || len(imp.Runs) != 1 || imp.Runs[0].Requests.N != 64 {
		t.Fatalf("records alone: %v", err)
	}
}

// recordTTFTs reads each record's time_to_first_token (ms) by request id,
// independently of the importer.
func recordTTFTs(t *testing.T, path string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Metadata struct {
				ID string `json:"x_request_id"`
			} `json:"metadata"`
			Metrics struct {
				TTFT struct {
					Value float64 `json:"value"`
					Unit  string  `json:"unit"`
				} `json:"time_to_first_token"`
			} `json:"metrics"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Metrics.TTFT.Unit != "ms" {
			t.Fatalf("unit %q", rec.Metrics.TTFT.Unit)
		}
		out[rec.Metadata.ID] = rec.Metrics.TTFT.Value
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The January 2026 AIPerf summary (gpt-oss-20b, 8 × A100, no licence: read
// from shared/realdata): mean power for each of the 8 GPUs and in total,
// and J per output token from the energy counters (max − min per GPU, MJ
// to J, summed: 282,999.053 J) over total_output_tokens 2,781.
func TestAcceptanceAIPerfTelemetry(t *testing.T) {
	run := importOne(t, realData(t, "aiperf/aiperf-pypi-jan2026-vllm-gpt-oss-20b-a100-c1-100req-dcgm-profile_export_aiperf.json"))
	p := run.Config.Provenance
	if run.Requests != nil || run.Config.Load != ingest.ConcurrencyLoad(1) {
		t.Fatalf("want aggregates at concurrency 1, got %s", run.Config.Load.Describe())
	}
	var perGPU []ingest.ReportedFigure
	for _, f := range p.Reported {
		if f.Key == "gpu.power_w" && strings.HasPrefix(f.Label, "GPU ") {
			perGPU = append(perGPU, f)
		}
	}
	if len(perGPU) != 8 || perGPU[0].Label != "GPU 0 NVIDIA A100-SXM4-80GB (GPU-8962cc8a…) mean power" || perGPU[0].Value != 94.61787741935483 {
		t.Errorf("per-GPU power: %+v", perGPU)
	}
	// Read back as report reads it: the figures travel with the reported
	// run.
	sum := analyzeImport(t, "", realData(t, "aiperf/aiperf-pypi-jan2026-vllm-gpt-oss-20b-a100-c1-100req-dcgm-profile_export_aiperf.json"))
	if len(sum.Reported) != 1 || !slices.ContainsFunc(sum.Reported[0].Import.Figures, func(f analyze.FigureComparison) bool {
		return f.Key == "energy.j_per_output_token" && math.Abs(float64(f.Reported)-101.761615606) < 1e-6
	}) {
		t.Errorf("the reported run does not carry AIPerf's J/token")
	}
	for _, c := range []struct {
		key  string
		want float64
	}{
		{"gpu.count", 8},
		{"gpu.power_w", 495.3661832258064},
		{"energy.j_per_output_token", 101.761615606},
		{"energy.output_tokens_per_s_per_kw", 9.82688800728},
	} {
		if got := figure(t, p, c.key); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s %v, want %v", c.key, got, c.want)
		}
	}
}

// The AIPerf 0.4.0 summary (schema_version 1.0, a non-streaming multi-turn
// run against a mock server): imports at concurrency 1 with AIPerf's
// version, its tokenizer, and no TTFT, said so.
func TestAcceptanceAIPerf040(t *testing.T) {
	run := importOne(t, filepath.Join("testdata", "real", "aiperf0.4.0-mock-server-deepseek-r1-multiturn-c1-10req-profile_export_aiperf.json"))
	p := run.Config.Provenance
	if run.Config.Load != ingest.ConcurrencyLoad(1) || p.Tool != "AIPerf" || p.Version != "0.4.0" || p.TokenCounts != "tokenizer:gpt2" {
		t.Errorf("level %s, tool %q %q, token counts %q", run.Config.Load.Describe(), p.Tool, p.Version, p.TokenCounts)
	}
	if !slices.Contains(p.Unavailable, ingest.UnavailableTTFT) {
		t.Errorf("unavailable %v lacks ttft: the run was not streamed", p.Unavailable)
	}
	if got := figure(t, p, "e2e.p50"); got != 0.360396 {
		t.Errorf("request latency p50 %v, want 0.360396", got)
	}
	for _, f := range p.Reported {
		if strings.HasPrefix(f.Key, "ttft.") {
			t.Errorf("a TTFT figure from a non-streaming run: %+v", f)
		}
	}
}
