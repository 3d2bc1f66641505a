package importer

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// vllm bench serve --save-detailed files carry start_times (perf_counter
// seconds): the run's window is the first send to the last request's end,
// and requests/s and output tokens/s are benchnote's over that window,
// with vLLM's own duration and throughputs shown beside them as reported.
//
// The expected values were computed independently with python3 on each
// file: ends = [s + ttft + sum(itls) for each request]; window =
// max(ends) − min(start_times); requests/s = completed / window (no request
// failed, every one has output); output tokens/s = sum(output_lens) /
// window. In both files the latest end is the last request's (index 499
// and 49), so "last start + its latency" gives the same window.
func TestVLLMDetailedStartTimesWindow(t *testing.T) {
	tests := []struct {
		file           string
		n              int
		windowS        float64 // max(ends) − min(start_times)
		requestsPerS   float64 // n / windowS
		outputTokPerS  float64 // sum(output_lens) / windowS
		toolDuration   float64 // the file's duration
		toolOutputTokS float64 // the file's output_throughput
	}{
		// 500 requests, concurrency 10, every output exactly 128 tokens:
		// 64000 / 45.811792426 = 1397.02021272 tokens/s, 500 / 45.811792426 =
		// 10.9142204119 req/s; vLLM's duration (45.8150 s) starts before the
		// first send and ends after the last [DONE], so its rates are lower.
		{"vllm-bench/vllm-bench-serve-apr2026-h100x8-gpt-oss-120b-tp4dp2-c10-p500-in2048-detailed.json",
			500, 45.811792426, 10.9142204119, 1397.02021272, 45.815047019161284, 1396.9209716893492},
		// 50 requests at concurrency 1, 6400 output tokens over 517.639411450 s.
		{"vllm-bench/vllm-bench-serve-apr2026-rtfx-l40sx2-pp2-qwen3.6-27b-c1-p50-in4096-detailed.json",
			50, 517.639411450, 0.0965923360819, 12.3638190185, 517.6400671899319, 12.363803356148859},
	}
	for _, tt := range tests {
		t.Run(tt.file[strings.LastIndex(tt.file, "/")+1:], func(t *testing.T) {
			path := realData(t, tt.file)
			run := importOne(t, path)
			if run.Requests.N != tt.n {
				t.Fatalf("%d requests, want %d", run.Requests.N, tt.n)
			}
			w := run.Config.Window
			if w == nil || run.Config.Clock != "monotonic" {
				t.Fatalf("window %v, clock %q; want a window on the monotonic clock", w, run.Config.Clock)
			}
			if got := w.End.Sub(w.Start).Seconds(); math.Abs(got-tt.windowS) > 1e-6 {
				t.Errorf("window %.9f s, want %.9f", got, tt.windowS)
			}
			p := run.Config.Provenance
			if slices.Contains(p.Unavailable, ingest.UnavailableWindow) || !slices.Contains(p.Unavailable, ingest.UnavailableWallClock) {
				t.Errorf("unavailable %q: want wall_clock and not window", p.Unavailable)
			}
			if got := figure(t, p, "duration_s"); got != tt.toolDuration {
				t.Errorf("vLLM's duration %v, want %v as reported", got, tt.toolDuration)
			}
			if got := figure(t, p, "throughput.client_output_tokens_per_s"); got != tt.toolOutputTokS {
				t.Errorf("vLLM's output_throughput %v, want %v as reported", got, tt.toolOutputTokS)
			}

			// Through the sweep on disk, warm-up off so that every request
			// is measured: benchnote's rates over the window.
			s := analyzeImport(t, "warmup: none\n", path)
			for _, c := range []struct {
				key  string
				want float64
			}{{"throughput.requests_per_s", tt.requestsPerS}, {"throughput.client_output_tokens_per_s", tt.outputTokPerS}} {
				if got := levelStat(t, s, c.key); math.Abs(got-c.want) > 1e-9*c.want {
					t.Errorf("%s %.12g, want %.12g", c.key, got, c.want)
				}
			}
			// The report's table of the tool's figures: vLLM's request
			// rate beside benchnote's, no longer "no measurement window".
			f := runFigure(t, s, "throughput.requests_per_s")
			if toolRate := figure(t, p, "throughput.requests_per_s"); float64(f.Reported) != toolRate ||
				math.Abs(float64(f.Benchnote)-tt.requestsPerS) > 1e-9*tt.requestsPerS {
				t.Errorf("requests/s beside vLLM's: %+v; want %v beside %v", f, toolRate, tt.requestsPerS)
			}
		})
	}
}
