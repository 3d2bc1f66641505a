package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importerData is the importer's test data: hand-written fixtures and
// copies of real results (ingest/importer/testdata/real/README.md).
const importerData = "../../../../ingest/importer/testdata"

// runImportCmd runs benchnote import and returns stdout with the output
// directory replaced by OUT.
func runImportCmd(t *testing.T, out string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(append(append([]string{"import"}, args...), "-o", out), &stdout, &stderr)
	return strings.ReplaceAll(stdout.String(), out, "OUT"), strings.ReplaceAll(stderr.String(), out, "OUT"), code
}

// An LLMPerf result imports as one run at the concurrency of its summary,
// validates, and reports where it came from and what it cannot support.
func TestImportLLMPerfReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	stdout, stderr, code := runImportCmd(t, out,
		filepath.Join(importerData, "real", "llmperf-leaderboard-bedrock_70b_individual_responses.json"),
		filepath.Join(importerData, "real", "llmperf-leaderboard-bedrock_70b_summary.json"))
	if code != ExitClean {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	golden(t, "import-llmperf.txt", []byte(strings.ReplaceAll(stdout, importerData, "TESTDATA")))
	var vout, verr bytes.Buffer
	// 49 of 150 requests failed LLMPerf's own "too few tokens" check: an
	// error rate far above the 1 % threshold, so validate exits 2.
	if code := Run([]string{"validate", out}, &vout, &verr); code != ExitErrors || !strings.Contains(vout.String(), "error: error-rate: concurrency 5: 49 of 150 measured requests failed (32.67%)") {
		t.Errorf("validate exit %d, want 2 with the error-rate finding:\n%s", code, vout.String())
	}
	files := reportFiles(t, out)
	golden(t, "import-llmperf/report.md", files["report.md"])
	for _, want := range []string{"## Where these results came from", "client: too few tokens",
		"- **Not available from this source:**\n" +
			"  - no request ids in the source: ids were numbered by the importer, so requests cannot be matched with server logs\n" +
			"  - no send timestamps: inter-arrival times, achieved concurrency, client-side throughput and placing requests in a measurement window are unavailable\n" +
			"  - rows are not in send order: warm-up detection is unavailable (every request is measured)\n" +
			"  - no measurement window: requests/s, request goodput per second and server throughput are unavailable\n" +
			"  - no per-chunk arrival times: the per-gap ITL distribution is unavailable (the gap-weighted mean ITL stands)\n"} {
		if !bytes.Contains(files["report.md"], []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func TestImportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "notes.json")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import", "-o", filepath.Join(dir, "x")}, "expected at least 1 argument (FILE|DIR...), got none"},
		{[]string{"import", notJSON}, "-o SWEEP is required"},
		{[]string{"import", "--format", "csv", notJSON, "-o", filepath.Join(dir, "x")}, `unknown format "csv"`},
		{[]string{"import", "--level", "c=zero", notJSON, "-o", filepath.Join(dir, "x")}, `level "c=zero": expected a whole concurrency from 1 to 1000000`},
		{[]string{"import", "--max-requests", "0", notJSON, "-o", filepath.Join(dir, "x")}, "--max-requests 0: expected a number of requests of at least 1"},
		{[]string{"import", "--max-requests", "-1", notJSON, "-o", filepath.Join(dir, "x")}, "--max-requests -1: expected a number of requests of at least 1"},
		{[]string{"import", notJSON, "-o", filepath.Join(dir, "x")}, `notes.json: not a result file benchnote can import: not JSON (it begins "hello")`},
		{[]string{"import", filepath.Join(importerData, "fixtures", "aiperf"), "-o", dir}, `it holds 1 entry that benchnote did not write (first: "notes.json")`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := Run(tt.args, &stdout, &stderr); code != ExitErrors || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("Run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// The vLLM 0.6.3 dstack result (16 req/s) imports as a rate level; with
// warm-up handling off, the median TTFT over its 621 requests with output
// is 956 ms (vLLM said 403 ms, counting 379 zero-token streams as TTFT 0).
// SGLang's aggregate-only lines are shown as reported, in no level.
func TestImportVLLMRateSweep(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	stdout, stderr, code := runImportCmd(t, out,
		filepath.Join(importerData, "real", "dstack-vllm0.6.3-8xh100-llama405b-fp8-16qps-per-request.json"),
		filepath.Join(importerData, "real", "sglang-bench_serving-h200-llama-3.3-70b-online.jsonl"))
	if code != ExitClean {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	golden(t, "import-vllm.txt", []byte(strings.ReplaceAll(stdout, importerData, "TESTDATA")))
	if err := os.WriteFile(filepath.Join(out, "sweep.yaml"), []byte("title: vLLM 0.6.3 on 8x H100, dstack\nwarmup: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var vout, verr bytes.Buffer
	Run([]string{"validate", out}, &vout, &verr)
	golden(t, "import-vllm-validate.txt", []byte(strings.ReplaceAll(vout.String(), out, "OUT")))

	files := reportFiles(t, out)
	golden(t, "import-vllm/report.md", files["report.md"])
	var sum struct {
		Schema string `json:"schema"`
		Levels []struct {
			Mode    string   `json:"mode"`
			Rate    any      `json:"rate"`
			Arrival string   `json:"arrival"`
			Runs    []string `json:"runs"`
			Stats   []struct {
				Key    string  `json:"key"`
				Median float64 `json:"median"`
			} `json:"stats"`
		} `json:"levels"`
		Reported []json.RawMessage `json:"reported"`
	}
	if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Schema != "benchnote.summary/v4" || len(sum.Levels) != 1 || len(sum.Reported) != 7 {
		t.Fatalf("schema %s, %d levels, %d reported runs; want v4, 1, 7", sum.Schema, len(sum.Levels), len(sum.Reported))
	}
	lv := sum.Levels[0]
	if lv.Mode != "rate" || lv.Rate != 16.0 || lv.Arrival != "poisson" || len(lv.Runs) != 1 {
		t.Errorf("level %+v, want rate 16 poisson with one run", lv)
	}
	found := false
	for _, st := range lv.Stats {
		if st.Key == "ttft.p50" {
			found = true
			if math.Abs(st.Median-956.39) > 1 {
				t.Errorf("median TTFT %v ms, want 956 ± 1", st.Median)
			}
		}
	}
	if !found {
		t.Error("summary.json has no ttft.p50 at 16 req/s")
	}
	// The charts' x axis says it shows the request rate.
	for _, name := range []string{"plots/latency-ttft.svg", "plots/goodput.svg"} {
		svg := string(files[name])
		if !strings.Contains(svg, "request rate (requests sent per second; inf = all at once)") || strings.Contains(svg, "requests in flight") {
			t.Errorf("%s: the x axis does not name the request rate", name)
		}
	}
	md := string(files["report.md"])
	for _, want := range []string{
		"| median TTFT | 403.3 ms | 956.4 | p50, nearest-rank, per-request, 621 requests | vLLM counted the 379 streams that ended without text as successes with TTFT 0",
		"| request rate | runs | TTFT p50 | TTFT p95 |",
		"| 16 req/s |",
		"**Figures reported by the tools, not recomputed.**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// A sweep mixing modes (two vLLM rate levels from one JSON Lines file and
// an AIPerf run at concurrency 2) names every level in full, and its
// charts draw each mode as its own line on an axis that says so (here the
// two tools are two series, each named with its mode).
func TestImportMixedModes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	_, stderr, code := runImportCmd(t, out,
		filepath.Join(importerData, "fixtures", "vllm", "append.jsonl"),
		filepath.Join(importerData, "fixtures", "aiperf"))
	if code != ExitClean {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	files := reportFiles(t, out)
	md := string(files["report.md"])
	for _, want := range []string{"| load level | runs |", "| concurrency 2 |", "| 2 req/s |", "| 4 req/s |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	svg := string(files["plots/latency-ttft.svg"])
	for _, want := range []string{"load: concurrency (requests in flight) or request rate (req/s)", "tool=aiperf (concurrency)", "tool=vllm-benchmark_serving.py (request rate)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plots/latency-ttft.svg lacks %q", want)
		}
	}
}

// A directory holding nothing benchnote imports is refused with what was
// skipped and why.
func TestImportNothingToImport(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "llm_inputs.json"), []byte(`{"data": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runImportCmd(t, filepath.Join(t.TempDir(), "sweep"), dir)
	want := "benchnote import: nothing to import from " + dir + "; skipped " + filepath.Join(dir, "llm_inputs.json") +
		": not a result file benchnote can import: a JSON object with members data, which match no known tool's result\n"
	if code != ExitErrors || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestImportedFailedRunIsFlagged: the dstack MI300X run where 983 of
// 1,000 requests failed with the same aiohttp traceback. The report's
// first screen says so (the data-quality box, greyed latency), and its
// exclusions group the 983 errors into one class named by the exception.
func TestImportedFailedRunIsFlagged(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	if _, stderr, code := runImportCmd(t, out, filepath.Join(importerData, "real", "dstack-vllm-rocm-8xmi300x-llama405b-fp8-1000qps-failed-run-with-errors.json")); code != ExitClean {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	files := reportFiles(t, out)
	md, pr := string(files["report.md"]), string(files["pr.md"])
	const class = "aiohttp.client\\_exceptions.ClientPayloadError: Response payload is not completed: \\<TransferEncodingError: \\<n\\>, message='Not enough data for satisfy transfer length header.'\\>"
	for _, want := range []string{
		"> - **error** `error-rate`: 1000 req/s, poisson arrivals: 983 of 1000 measured requests failed (98.3%)",
		"> - warning `zero-output-requests`: 1000 req/s, poisson arrivals: 17 of 1000 measured requests (1.7%) succeeded without any output token",
		"| request | request error (not a latency sample): " + class + " | 983 |",
		"**SLOs:** TTFT ≤ 1000 ms, TPOT ≤ 150 ms, E2E ≤ 5000 ms: the defaults from the measurement rules, which nobody chose for this sweep",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if n := strings.Count(md, "| request | request error"); n != 1 {
		t.Errorf("%d exclusion rows for request errors, want 1 (one class)", n)
	}
	if !strings.Contains(pr, "> - **error** `error-rate`") {
		t.Error("pr.md's data-quality box lacks the error-rate finding")
	}
}

// A sweep holding only a tool's own figures (the BSC vLLM result, which has
// no per-request arrays) validates clean and reports them as reported,
// saying on the first screen that nothing was recomputed.
func TestImportAggregatesOnlyReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	if _, stderr, code := runImportCmd(t, out, filepath.Join(importerData, "real", "bsc-vllm0.5.2dev-openai-infqps-llama-2-13b-20250221-200856.json")); code != ExitClean {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	var vout, verr bytes.Buffer
	if code := Run([]string{"validate", out}, &vout, &verr); code != ExitClean || !strings.Contains(vout.String(), "rate-inf/reported-1 (vLLM benchmark_serving.py)") {
		t.Errorf("validate exit %d (want 0):\n%s%s", code, vout.String(), verr.String())
	}
	md := string(reportFiles(t, out)["report.md"])
	for _, want := range []string{
		"**Runs:** none with per-request records. The sweep holds only the figures 1 tool run reported",
		"**Figures reported by the tools, not recomputed.**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
