package importer

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// The hand-written fixtures under testdata/fixtures follow the structure
// of each tool's output as its source writes it (see each importer's file
// comment for the file and commit followed); the real files under
// testdata/real are copies of published results (testdata/real/README.md).
const fixtures = "testdata/fixtures"

// dumpImport renders an import as text: each run's directory, run.yaml
// and requests, one line per request, so a golden file shows exactly what
// an importer made of its input.
func dumpImport(t *testing.T, imp *Import) []byte {
	t.Helper()
	files, err := Layout(imp)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, f := range imp.Files {
		fmt.Fprintf(&b, "source %s as %s", filepath.ToSlash(f.Path), f.Format)
		if f.Note != "" {
			fmt.Fprintf(&b, " (%s)", strings.ReplaceAll(f.Note, filepath.Dir(f.Path)+string(filepath.Separator), ""))
		}
		b.WriteString("\n")
	}
	for _, f := range imp.Skipped {
		fmt.Fprintf(&b, "skipped %s: %s\n", filepath.ToSlash(f.Path), f.Note)
	}
	runs := append([]Run(nil), imp.Runs...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Dir < runs[j].Dir })
	for _, r := range runs {
		name := ingest.RunConfigFile
		if r.Requests == nil {
			name = ingest.ReportedFile
		}
		fmt.Fprintf(&b, "\n== %s/%s\n%s", r.Dir, name, files[r.Dir+"/"+name])
		if env, ok := files[r.Dir+"/env.json"]; ok {
			fmt.Fprintf(&b, "-- env.json\n%s", env)
		}
		for _, name := range []string{GPUFile, ingest.ScrapeStartFile, ingest.ScrapeEndFile} {
			if data, ok := files[r.Dir+"/"+name]; ok {
				fmt.Fprintf(&b, "-- %s\n%s", name, data)
			}
		}
		if r.Requests != nil {
			b.WriteString("-- requests: id prompt completion TTFT_ms E2E_ms t_request_sent status text_chunks phase chunk_ms\n")
			dumpRequests(&b, r.Requests)
		}
	}
	return b.Bytes()
}

// dumpRequests writes one line per request; "-" is a missing value or
// column. Long chunk lists are cut after eight values.
func dumpRequests(b *bytes.Buffer, q *ingest.Requests) {
	f := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	}
	n := func(v int64) string {
		if v < 0 {
			return "-"
		}
		return strconv.FormatInt(v, 10)
	}
	for i := 0; i < q.N; i++ {
		sent, status, chunks, phase := "-", "-", "-", "-"
		if q.TRequestSent != nil {
			sent = f(q.TRequestSent[i])
		}
		if q.Status != nil {
			status = strconv.Quote(q.Status.At(i))
		}
		if q.TextChunks != nil {
			chunks = n(q.TextChunks[i])
		}
		if q.Phase != nil {
			phase = q.Phase[i].String()
		}
		var cs []string
		for k, c := range q.Chunks(i) {
			if k == 8 {
				cs = append(cs, fmt.Sprintf("…(%d)", len(q.Chunks(i))))
				break
			}
			cs = append(cs, f(c))
		}
		fmt.Fprintf(b, "%s %s %s %s %s %s %s %s %s [%s]\n", q.ID(i), n(q.PromptTokens[i]), n(q.CompletionTokens[i]),
			f(q.TTFTms[i]), f(q.E2Ems[i]), sent, status, chunks, phase, strings.Join(cs, " "))
	}
}

func TestImportGolden(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		opts  Options
	}{
		{"vllm-recent", []string{"vllm/recent.json"}, Options{}},
		{"vllm-append-jsonl", []string{"vllm/append.jsonl"}, Options{}},
		{"vllm-sweep", []string{"vllm/sweep"}, Options{}},
		{"sglang-native-details", []string{"sglang/details.jsonl"}, Options{}},
		{"genai-perf", []string{"genai-perf/profile_export.json"}, Options{}},
		{"aiperf", []string{"aiperf"}, Options{}},
		{"guidellm-v0.4", []string{"guidellm/v0.4-benchmarks.json"}, Options{}},
		{"guidellm-v0.7", []string{"guidellm/v0.7-benchmarks.json"}, Options{}},
		{"inference-perf-stages", []string{"inference-perf"}, Options{}},
		{"inference-perf-level", []string{"inference-perf/per_request_lifecycle_metrics.json"}, Options{Level: ingest.ConcurrencyLoad(3)}},
		{"real-vllm-aggregates-only", []string{"../real/bsc-vllm0.5.2dev-openai-infqps-llama-2-13b-20250221-200856.json"}, Options{}},
		{"real-sglang-infinity", []string{"../real/sglang-bench_serving-h200-llama-3.3-70b-offline-Infinity.jsonl"}, Options{}},
		{"real-guidellm-v0.3", []string{"../real/guidellm-v0.3dev-benchmarks_stripped.json"}, Options{}},
		{"real-llmperf-bedrock", []string{"../real/llmperf-leaderboard-bedrock_70b_individual_responses.json", "../real/llmperf-leaderboard-bedrock_70b_summary.json"}, Options{}},
		{"real-llmperf-summary-only", []string{"../real/llmperf-leaderboard-anyscale_70b_summary.json"}, Options{}},
		{"perf-summary-only", []string{"aiperf/profile_export_aiperf.json"}, Options{}},
		{"aiperf-sweep", []string{"aiperf-sweep"}, Options{}},
		{"inference-perf-stage-only", []string{"inference-perf/stage_1_lifecycle_metrics.json"}, Options{}},
		{"genai-bench", []string{"genai-bench/streamed"}, Options{}},
		{"genai-bench-not-streamed", []string{"genai-bench/not-streamed"}, Options{}},
		{"real-llmd-v0.1", []string{"../real/llm-d-benchmark-docs-example-br_v0_1_example.yaml"}, Options{}},
		{"real-llmd-v0.2", []string{"../real/llm-d-benchmark-docs-example-br_v0_2_example.yaml"}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			for _, f := range tt.files {
				paths = append(paths, filepath.Join(fixtures, f))
			}
			imp, err := ImportFiles(paths, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.name+".txt"), dumpImport(t, imp), *update)
		})
	}
}

// realData finds the team's collection of real result files, shared/realdata,
// above the working directory; tests that need a file without a licence to
// copy it skip when it is absent.
func realData(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "realdata", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("shared/realdata/%s not found above the working directory (the file has no licence to copy it into testdata)", rel)
		}
		dir = parent
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vllm := func(ttfts string) string {
		return `{"date": "x", "backend": "vllm", "model_id": "m", "request_rate": 4.0, "input_lens": [1,1,1,1,1,1,1,1,1,1,1,1,1],` +
			`"output_lens": [2,2,2,2,2,2,2,2,2,2,2,2,2], "ttfts": ` + ttfts + `, "itls": [[],[],[],[],[],[],[],[],[],[],[],[],[]], "errors": ["","","","","","","","","","","","",""]}`
	}
	tests := []struct {
		name, file, content string
		opts                Options
		want                string
	}{
		{"string where a number is expected", "result.json", vllm(`[0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,"abc"]`), Options{},
			`result.json: $.ttfts[12]: expected a number, got "abc"`},
		{"array lengths differ", "result.json", vllm(`[0.1,0.1]`), Options{},
			`result.json: $.input_lens: expected 2 entries like $.ttfts, got 13`},
		{"truncated", "result.json", vllm(`[0.1,0.1`)[:90], Options{}, `result.json: $.input_lens[2]: not valid JSON near byte 90: unexpected end of file (truncated?)`},
		{"no known tool", "other.json", `{"foo": 1, "bar": [1, 2]}`, Options{},
			"other.json: not a result file benchnote can import: a JSON object with members bar, foo, which match no known tool's result"},
		{"GuideLLM schema version 3", "benchmarks.json", `{"metadata": {"version": 3, "guidellm_version": "0.9.0"}, "config": {}, "benchmarks": []}`, Options{},
			"benchmarks.json: $.metadata.version: GuideLLM benchmarks.json schema version 3 is not supported (benchnote reads the ≤ 0.3 and 0.4 layouts and metadata versions 1 and 2)"},
		{"LLMPerf summary version", "x_summary.json", `{"version": "2024-01-01", "num_concurrent_requests": 2, "results_ttft_s_mean": 0.1}`, Options{},
			`x_summary.json: $.version: LLMPerf summary version "2024-01-01" is not supported (benchnote reads version 2023-08-31)`},
		{"too many requests", "result.json", vllm(`[0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1]`), Options{MaxRequests: 5},
			"result.json: $.input_lens[5]: more than 5 requests; refusing to import (raise the limit with --max-requests if the file is genuine)"},
		{"JSON Lines names the line", "r.jsonl", `{"backend": "vllm", "model_id": "m", "request_rate": 1}` + "\n" + `{"backend": "vllm", "model_id": "m", "request_rate": "often"}` + "\n", Options{},
			`r.jsonl: line 2: $.request_rate: expected a request rate (a number or "inf"), got "often"`},
		{"a CSV is not JSON", "profile_export_aiperf.csv", "Metric,avg,min,max\r\nTime to First Token (ms),1,2,3\r\n", Options{},
			`profile_export_aiperf.csv: not a result file benchnote can import: not JSON (it begins "Metric,avg,min,max"): benchnote imports the JSON, JSON Lines and YAML result files of each tool (docs/import.md), not its CSV or console output`},
		{"a CSV starting with t is not a JSON true", "gpu.csv", "time,gpu,pwr\n0.15,0,109\n", Options{},
			`gpu.csv: not a result file benchnote can import: not JSON (it begins "time,gpu,pwr")`},
		{"YAML is read as YAML", "benchmarks.yaml", "---\nbenchmarks:\n- type_: generative_benchmark\n", Options{},
			`benchmarks.yaml: the file does not record its load level`},
		{"a log that looks like YAML is neither", "run.log", "INFO: starting\nINFO: x: y\n", Options{},
			`run.log: line 2: not valid YAML: mapping values are not allowed in this context`},
		{"a broken object is not JSON", "notes.json", "{hello", Options{},
			`notes.json: not a result file benchnote can import: not JSON (it begins "{hello")`},
		{"empty", "empty.json", "\n\n", Options{}, "empty.json: not a result file benchnote can import: empty (or only blank lines)"},
		{"a lone value", "n.json", "42", Options{}, "n.json: not a result file benchnote can import: a lone JSON value (number), not an object or array"},
		// Python's Infinity is rewritten before decoding; the byte offset
		// of a later syntax error is still the input's (here 128: line 1
		// and its newline are 69 bytes, the bad literal starts 59 bytes
		// into line 2; the rewritten output would put it at 139).
		{"bad literal after Infinity", "s.jsonl", `{"backend": "sglang", "dataset_name": "x", "request_rate": Infinity}` + "\n" + `{"backend": "sglang", "dataset_name": "x", "request_rate": Infinityx}` + "\n", Options{},
			"s.jsonl: line 2: $.request_rate: not valid JSON near byte 128: invalid character 'I' at start of value"},
		{"no level", "ip.json", `[{"start_time": 1.0, "end_time": 2.0, "info": {"input_tokens": 3, "response_metrics": {"output_tokens": 2, "chunk_times": [1.1, 1.2]}}, "error": null}]`, Options{},
			"ip.json: the file does not record its load level: pass --level c=N, --level rate=R or --level rate=inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(tt.file, tt.content)
			imp, err := ImportFiles([]string{p}, tt.opts)
			if err == nil {
				_, err = Layout(imp)
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The GuideLLM fixture of a schema version benchnote does not know is
// refused by name and version, as the file it is.
func TestUnsupportedGuideLLMVersionFixture(t *testing.T) {
	p := filepath.Join(fixtures, "guidellm", "v3-benchmarks.json")
	_, err := ImportFiles([]string{p}, Options{})
	want := p + ": $.metadata.version: GuideLLM benchmarks.json schema version 3 is not supported (benchnote reads the ≤ 0.3 and 0.4 layouts and metadata versions 1 and 2)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// The format comes from the content: a vLLM result named like a CSV is
// still a vLLM result, and --format overrides detection.
func TestDetectFromContent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "vllm/recent.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "requests.csv")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	imp, err := ImportFiles([]string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if imp.Files[0].Format != FormatVLLM || imp.Runs[0].Requests.N != 4 {
		t.Errorf("read as %s with %d requests, want vllm with 4", imp.Files[0].Format, imp.Runs[0].Requests.N)
	}
	if _, err := ImportFiles([]string{p}, Options{Format: FormatSGLang}); err != nil {
		t.Errorf("forced sglang: %v", err)
	}
	_, err = ImportFiles([]string{p}, Options{Format: FormatGuideLLM})
	if err == nil || !strings.Contains(err.Error(), "requests.csv: $.benchmarks: expected at least one benchmark") {
		t.Errorf("forced guidellm: %v", err)
	}
	for _, tt := range []struct {
		name   string
		data   string
		format Format
	}{
		{"vllm", `{"date": "x", "backend": "vllm", "model_id": "m", "request_rate": "inf"}`, FormatVLLM},
		{"sglang", `{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity}`, FormatSGLang},
		{"genai-perf", `{"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": []}]}`, FormatGenAIPerf},
		{"perf summary", `{"time_to_first_token": {"unit": "ms", "avg": 1}}`, FormatPerfSummary},
		{"aiperf", `{"metadata": {"request_start_ns": 1, "benchmark_phase": "profiling"}, "metrics": {}}`, FormatAIPerf},
		{"guidellm 0.3", `{"benchmarks": [{"type_": "generative_benchmark"}]}`, FormatGuideLLM},
		{"llmperf", `[{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1}]`, FormatLLMPerf},
		{"llmperf summary", `{"version": "2023-08-31", "num_concurrent_requests": 5, "results_ttft_s_mean": 0.1}`, FormatLLMPerfSummary},
		{"inference-perf", `[{"start_time": 1, "end_time": 2, "info": {"input_tokens": 3}}]`, FormatInferencePerf},
		{"inference-perf stage", `{"load_summary": {"count": 1}, "successes": {}}`, FormatInferenceStage},
		{"vllm sweep summary", `[{"backend": "vllm", "run_number": 0, "request_rate": "inf"}]`, FormatVLLMSweepIndex},
		{"aiperf 0.1.x", `{"record_id": "", "metadata": {"timestamp_ns": 1, "credit_phase": "profiling"}, "metrics": {}}`, FormatAIPerf},
		{"aiperf summary 0.1.x", `{"records": {"request_latency": {"unit": "ms", "avg": 1}}}`, FormatPerfSummary},
		{"aiperf summary, schema_version, no metrics", `{"schema_version": "1.5", "aiperf_version": "0.14.0", "benchmark_id": "b", "input_config": {}}`, FormatPerfSummary},
		{"aiperf multi-run aggregate", `{"schema_version": "1.0", "aiperf_version": "0.12.0", "metadata": {"aggregation_type": "confidence"}, "metrics": {}}`, ""},
		{"aiperf gpu telemetry", `{"timestamp_ns": 1, "dcgm_url": "u", "gpu_uuid": "U", "telemetry_data": {}}`, FormatAIPerfGPU},
		{"aiperf server metrics", `{"endpoint_url": "u", "timestamp_ns": 1, "metrics": {}}`, FormatAIPerfServer},
	} {
		got, why, _ := detect(scanShape([]byte(tt.data)))
		if got != tt.format {
			t.Errorf("%s: detected %q (%s), want %s", tt.name, got, why, tt.format)
		}
	}
}

func TestPyJSON(t *testing.T) {
	in := `{"a": NaN, "b": [Infinity, -Infinity, 1.5e3], "c": "NaN Infinity \"x\\ Infinity", "d": -1}`
	var out bytes.Buffer
	p := newPyJSON(strings.NewReader(in))
	buf := make([]byte, 3) // small reads: literals split across them
	for {
		n, err := p.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	want := `{"a": "\u0000py:NaN", "b": ["\u0000py:Infinity", "\u0000py:-Infinity", 1.5e3], "c": "NaN Infinity \"x\\ Infinity", "d": -1}`
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
	// Offsets the decoder reports are of the rewritten output; inputOffset
	// maps them back: each rewrite above adds 11 bytes (the quotes and
	// \u0000py:), so ', "b"' is at 20 in the output and 9 in the input,
	// '"d"' at 115 and 82.
	// The same with the input arriving one byte per read.
	oneByte := newPyJSON(iotest.OneByteReader(strings.NewReader(in)))
	if got, err := readAllErr(oneByte); err != nil || string(got) != want {
		t.Errorf("one byte per read: %s, %v", got, err)
	}
	for _, tt := range []struct{ out, in int64 }{{0, 0}, {6, 6}, {20, 9}, {47, 25}, {69, 36}, {115, 82}} {
		if got := p.inputOffset(tt.out); got != tt.in {
			t.Errorf("inputOffset(%d) = %d, want %d", tt.out, got, tt.in)
		}
		if got := oneByte.inputOffset(tt.out); got != tt.in {
			t.Errorf("one byte per read: inputOffset(%d) = %d, want %d", tt.out, got, tt.in)
		}
	}
	long := `["` + strings.Repeat("x", 100) + `"]`
	p = newPyJSON(strings.NewReader(long))
	p.maxString = 64
	_, err := readAllErr(p)
	if err == nil || err.Error() != "byte 2: a string longer than 64 bytes; refusing to buffer it" {
		t.Errorf("long string: %v", err)
	}
	// A number longer than 512 bytes is valid JSON: it becomes a marker
	// string the number readers refuse at its path, and the offsets after
	// it are the input's (the 600 digits became 46 bytes: 554 fewer).
	p = newPyJSON(strings.NewReader("[" + strings.Repeat("9", 600) + ", -" + strings.Repeat("1", 599) + "e5, x]"))
	got, err := readAllErr(p)
	want = `["\u0000py:long:600:1:99999999999999999999", "\u0000py:long:602:0:-1111111111111111111", x]`
	if err != nil || string(got) != want {
		t.Errorf("long numbers: %s, %v\nwant %s", got, err, want)
	}
	if got := p.inputOffset(int64(len(want) - 2)); got != 1+600+2+602+2 {
		t.Errorf("inputOffset after long numbers = %d, want %d", got, 1+600+2+602+2)
	}
	p = newPyJSON(strings.NewReader("[" + strings.Repeat("t", 600) + "]"))
	if _, err := readAllErr(p); err == nil || err.Error() != "byte 513: a literal longer than 512 bytes" {
		t.Errorf("long literal: %v", err)
	}
}

func readAllErr(p *pyJSON) ([]byte, error) {
	var out bytes.Buffer
	buf := make([]byte, 7)
	for {
		n, err := p.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			if err.Error() == "EOF" {
				return out.Bytes(), nil
			}
			return out.Bytes(), err
		}
	}
}

// A GenAI-Perf request whose chunks carry no id is numbered, and request
// ids are then unavailable, whichever request lacks one.
func TestGenAIPerfRequestIDs(t *testing.T) {
	req := func(ts int, id string) string {
		chunk := `data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n`
		if id != "" {
			chunk = `data: {\"id\":\"` + id + `\",\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n`
		}
		return fmt.Sprintf(`{"timestamp": %d, "response_timestamps": [%d], "response_outputs": [{"response": "%s"}]}`, ts, ts+5000000, chunk)
	}
	data := `{"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": [` + req(1000000000, "a") + `, ` + req(2000000000, "") + `]}]}`
	p := filepath.Join(t.TempDir(), "profile_export.json")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	run := importOne(t, p)
	q, prov := run.Requests, run.Config.Provenance
	if q.ID(0) != "a" || q.ID(1) != "1-2" || q.TTFTms[1] != 5 {
		t.Errorf("ids %q %q, TTFT %v", q.ID(0), q.ID(1), q.TTFTms[1])
	}
	if !prov.Has(ingest.UnavailableRequestIDs) || !slices.Contains(prov.Recomputed, "request ids: 1 of 2 requests had no chunk id of their own (or shared one) and were numbered") {
		t.Errorf("unavailable %v, recomputed %v", prov.Unavailable, prov.Recomputed)
	}
}
