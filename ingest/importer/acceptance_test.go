package importer

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// importOne imports files and returns the single run they make.
func importOne(t *testing.T, files ...string) Run {
	t.Helper()
	imp, err := ImportFiles(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(imp.Runs))
	}
	return imp.Runs[0]
}

// figure returns the tool's own figure with the given key.
func figure(t *testing.T, p *ingest.Provenance, key string) float64 {
	t.Helper()
	for _, f := range p.Reported {
		if f.Key == key {
			return f.Value
		}
	}
	t.Fatalf("no reported figure %s", key)
	return 0
}

// analyzeImport imports files into a sweep on disk with the given
// sweep.yaml, reads it back as validate and report do, and analyses it.
func analyzeImport(t *testing.T, sweepYAML string, files ...string) *analyze.Summary {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep")
	if err := Write(dir, layoutOf(t, files...), files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ingest.SweepConfigFile), []byte(sweepYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := ingest.Load(dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return analyze.Analyze(sw)
}

// levelStat returns the median across runs of statistic key at the
// sweep's only level.
func levelStat(t *testing.T, s *analyze.Summary, key string) float64 {
	t.Helper()
	if len(s.Levels) != 1 {
		t.Fatalf("%d levels, want 1", len(s.Levels))
	}
	for _, st := range s.Levels[0].Stats {
		if st.Key == key {
			return float64(st.Median)
		}
	}
	t.Fatalf("no statistic %s at %s", key, s.Levels[0].Load().Describe())
	return 0
}

// runFigure returns the tool's figure key beside benchnote's, for the
// sweep's only run.
func runFigure(t *testing.T, s *analyze.Summary, key string) analyze.FigureComparison {
	t.Helper()
	if len(s.Runs) != 1 || s.Runs[0].Import == nil {
		t.Fatalf("%d runs, want 1 imported", len(s.Runs))
	}
	for _, f := range s.Runs[0].Import.Figures {
		if f.Key == key {
			return f
		}
	}
	t.Fatalf("no figure %s beside benchnote's", key)
	return analyze.FigureComparison{}
}

// vLLM 0.6.3 (dstack, 16 req/s): 1,000 rows; the 379 with output 0 and no
// error are zero-token requests without TTFT; the median TTFT over the
// other 621 is 956 ms, where vLLM itself reported 403 ms because it
// averaged those 379 zeros in.
func TestAcceptanceVLLM063Dstack(t *testing.T) {
	run := importOne(t, filepath.Join("testdata", "real", "dstack-vllm0.6.3-8xh100-llama405b-fp8-16qps-per-request.json"))
	q := run.Requests
	if q.N != 1000 {
		t.Fatalf("%d rows, want 1000", q.N)
	}
	if got := run.Config.Load; got != ingest.RateLoad(16, ingest.ArrivalPoisson) {
		t.Errorf("level %s, want 16 req/s poisson", got.Describe())
	}
	var zero int
	var ttft []float64
	for i := 0; i < q.N; i++ {
		if q.Status.At(i) != "" {
			t.Fatalf("row %d has status %q; the run has no errors", i+1, q.Status.At(i))
		}
		if q.CompletionTokens[i] == 0 {
			zero++
			if !math.IsNaN(q.TTFTms[i]) || !math.IsNaN(q.E2Ems[i]) {
				t.Errorf("zero-token row %d has TTFT %v, E2E %v; want none", i+1, q.TTFTms[i], q.E2Ems[i])
			}
			continue
		}
		ttft = append(ttft, q.TTFTms[i])
	}
	if zero != 379 || len(ttft) != 621 {
		t.Fatalf("%d zero-token rows and %d with TTFT, want 379 and 621", zero, len(ttft))
	}
	median := analyze.Quantiles(ttft, []float64{0.5}, analyze.NearestRank)[0]
	if math.Abs(median-956.3897) > 1 {
		t.Errorf("median TTFT %.4f ms, want 956 ± 1", median)
	}
	if tool := figure(t, run.Config.Provenance, "ttft.p50"); math.Abs(tool-403.316) > 0.001 {
		t.Errorf("vLLM's own median TTFT %v, want 403.316", tool)
	}
	if tc := run.Config.Provenance.TokenCounts; tc != "tokenizer:meta-llama/Llama-3.1-405B-FP8" {
		t.Errorf("token counts %q", tc)
	}

	// The same through the sweep on disk, as validate and report read it,
	// with warm-up handling off: the level's median TTFT, and vLLM's own
	// 403 ms beside it with the reason for the difference.
	s := analyzeImport(t, "warmup: none\n", filepath.Join("testdata", "real", "dstack-vllm0.6.3-8xh100-llama405b-fp8-16qps-per-request.json"))
	if got := levelStat(t, s, "ttft.p50"); math.Abs(got-956.3897) > 1 {
		t.Errorf("level median TTFT %.4f ms, want 956 ± 1", got)
	}
	c := s.Runs[0].Counts
	if c.RowsRead != 1000 || c.Measured != 1000 || c.ZeroToken != 379 || c.Errors != 0 {
		t.Errorf("counts %+v, want 1000 rows measured, 379 zero-token, no errors", c)
	}
	f := runFigure(t, s, "ttft.p50")
	if math.Abs(float64(f.Reported)-403.316) > 0.001 || math.Abs(float64(f.Benchnote)-956.3897) > 1 ||
		!strings.HasPrefix(f.Note, "vLLM counted the 379 streams that ended without text as successes with TTFT 0") {
		t.Errorf("median TTFT beside vLLM's: %+v", f)
	}
}

// The failed dstack run on MI300X: 983 requests failed with an aiohttp
// payload error (status: the traceback's last line), 17 ended without
// output or error.
func TestVLLMFailedRun(t *testing.T) {
	run := importOne(t, filepath.Join("testdata", "real", "dstack-vllm-rocm-8xmi300x-llama405b-fp8-1000qps-failed-run-with-errors.json"))
	q := run.Requests
	statuses := map[string]int{}
	for _, s := range q.Status.Strings() {
		statuses[s]++
	}
	const payload = "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed: <TransferEncodingError: 400, message='Not enough data for satisfy transfer length header.'>"
	if q.N != 1000 || statuses[payload] != 983 || statuses[""] != 17 || len(statuses) != 2 {
		t.Errorf("%d rows, statuses %v", q.N, statuses)
	}
}

// GenAI-Perf sample (NIM llama3-8b, concurrency 1): 53 rows, completion
// tokens 50 from the stream's usage for every row, TTFT max 26.314778 ms
// (GenAI-Perf's own figure).
func TestAcceptanceGenAIPerf(t *testing.T) {
	export := realData(t, "genai-perf/genai-perf-2.48-nim-llama3-8b-c1-profile_export.json")
	summary := realData(t, "genai-perf/genai-perf-2.48-nim-llama3-8b-c1-profile_export_genai_perf.json")
	run := importOne(t, export)
	q := run.Requests
	if q.N != 53 {
		t.Fatalf("%d rows, want 53", q.N)
	}
	for i, n := range q.CompletionTokens {
		if n != 50 {
			t.Fatalf("row %d: completion_tokens %d, want 50", i+1, n)
		}
	}
	if tc := run.Config.Provenance.TokenCounts; tc != "usage" {
		t.Errorf("token counts %q, want usage", tc)
	}
	if max := slices.Max(q.TTFTms); math.Abs(max-26.314778) > 1e-6 {
		t.Errorf("TTFT max %.6f ms, want 26.314778", max)
	}
	if run.Config.Load != ingest.ConcurrencyLoad(1) {
		t.Errorf("level %s", run.Config.Load.Describe())
	}

	// With its summary beside it, GenAI-Perf's own figures are shown
	// beside benchnote's: the TTFT max is the same, 26.314778 ms.
	paired := importOne(t, export, summary)
	if got := figure(t, paired.Config.Provenance, "ttft.max"); got != 26.314778 {
		t.Errorf("GenAI-Perf's own TTFT max %v, want 26.314778", got)
	}
	if !slices.Contains(paired.Env, ingest.KV{Key: "model", Value: "meta/llama3-8b-instruct"}) {
		t.Errorf("environment %v lacks the summary's model", paired.Env)
	}
	s := analyzeImport(t, "warmup: none\n", export, summary)
	if f := runFigure(t, s, "ttft.max"); f.Reported != 26.314778 || math.Abs(float64(f.Benchnote)-26.314778) > 1e-6 {
		t.Errorf("TTFT max beside GenAI-Perf's: %+v", f)
	}
}

// GuideLLM 0.5 gpt-oss sample: 30 rows; 5 lie outside the benchmark's
// window under GuideLLM's own rule (2 before, 3 after); over the other 25
// the TTFT max is 60.78 ms, as GuideLLM reports (count 25, sum 1221.09 ms).
func TestAcceptanceGuideLLM05(t *testing.T) {
	run := importOne(t, realData(t, "guidellm/guidellm0.5.0dev-intel-xpu-vllm-gpt-oss-20b-tp4-benchmarks.json"))
	q := run.Requests
	if q.N != 30 {
		t.Fatalf("%d rows, want 30", q.N)
	}
	var warm, cool int
	var measured []float64
	for i, p := range q.Phase {
		switch p {
		case ingest.PhaseWarmup:
			warm++
		case ingest.PhaseCooldown:
			cool++
		default:
			measured = append(measured, q.TTFTms[i])
		}
	}
	if warm != 2 || cool != 3 || len(measured) != 25 {
		t.Fatalf("%d warm-up, %d cool-down, %d measured; want 2, 3, 25", warm, cool, len(measured))
	}
	sum := 0.0
	for _, v := range measured {
		sum += v
	}
	if max := slices.Max(measured); math.Abs(max-60.78) > 0.005 {
		t.Errorf("TTFT max %.4f ms over the 25, want 60.78", max)
	}
	if math.Abs(sum-1221.09) > 0.005 {
		t.Errorf("TTFT sum %.4f ms over the 25, want 1221.09", sum)
	}
	p := run.Config.Provenance
	if n, s := figure(t, p, "ttft.n"), figure(t, p, "ttft.sum"); n != 25 || math.Abs(s-1221.09) > 0.005 {
		t.Errorf("GuideLLM's own count %v and sum %v, want 25 and 1221.09", n, s)
	}

	// Read back as report reads it: the 5 are excluded as the tool's
	// warm-up and cool-down, and benchnote's figures over the 25 match
	// GuideLLM's.
	s := analyzeImport(t, "warmup: none\n", realData(t, "guidellm/guidellm0.5.0dev-intel-xpu-vllm-gpt-oss-20b-tp4-benchmarks.json"))
	if c := s.Runs[0].Counts; c.RowsRead != 30 || c.WarmUp != 2 || c.CoolDown != 3 || c.Measured != 25 {
		t.Errorf("counts %+v, want 30 rows, 2 warm-up, 3 cool-down, 25 measured", c)
	}
	for _, key := range []string{"ttft.n", "ttft.max", "ttft.sum"} {
		if f := runFigure(t, s, key); math.Abs(float64(f.Reported-f.Benchnote)) > 1e-6 {
			t.Errorf("%s: GuideLLM %v, benchnote %v", key, f.Reported, f.Benchnote)
		}
	}
}

// LLMPerf Bedrock sample: 150 rows, 49 with status "client: too few
// tokens" (LLMPerf's own check, timings kept); request ids, send times,
// the window and per-gap ITL are unavailable.
func TestAcceptanceLLMPerfBedrock(t *testing.T) {
	run := importOne(t, filepath.Join("testdata", "real", "llmperf-leaderboard-bedrock_70b_individual_responses.json"),
		filepath.Join("testdata", "real", "llmperf-leaderboard-bedrock_70b_summary.json"))
	q := run.Requests
	tooFew := 0
	for i, s := range q.Status.Strings() {
		if s == "client: too few tokens" {
			tooFew++
			if math.IsNaN(q.TTFTms[i]) || math.IsNaN(q.E2Ems[i]) {
				t.Errorf("row %d: the too-few-tokens check lost its timings", i+1)
			}
		}
	}
	if q.N != 150 || tooFew != 49 {
		t.Errorf("%d rows, %d too few tokens; want 150 and 49", q.N, tooFew)
	}
	p := run.Config.Provenance
	for _, code := range []string{ingest.UnavailableRequestIDs, ingest.UnavailableSendTime, ingest.UnavailableSendOrder, ingest.UnavailableWindow, ingest.UnavailablePerGapITL} {
		if !p.Has(code) {
			t.Errorf("unavailable analyses %v lack %s", p.Unavailable, code)
		}
	}
	if run.Config.Load != ingest.ConcurrencyLoad(5) {
		t.Errorf("level %s, want concurrency 5 from the summary", run.Config.Load.Describe())
	}

	// Read back: the 49 are failed requests, and the report's section on
	// the source lists every unavailable analysis.
	s := analyzeImport(t, "", filepath.Join("testdata", "real", "llmperf-leaderboard-bedrock_70b_individual_responses.json"),
		filepath.Join("testdata", "real", "llmperf-leaderboard-bedrock_70b_summary.json"))
	if c := s.Runs[0].Counts; c.RowsRead != 150 || c.Measured != 150 || c.Errors != 49 {
		t.Errorf("counts %+v, want 150 rows measured (no send order: no warm-up cut), 49 errors", c)
	}
	var codes []string
	for _, u := range s.Runs[0].Import.Unavailable {
		codes = append(codes, u.Code)
	}
	if want := []string{ingest.UnavailableRequestIDs, ingest.UnavailableSendTime, ingest.UnavailableSendOrder, ingest.UnavailableWindow, ingest.UnavailablePerGapITL}; !slices.Equal(codes, want) {
		t.Errorf("unavailable %v, want %v", codes, want)
	}
}
