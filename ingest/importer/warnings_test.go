package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// benchnote reads every run at one level as a repeat of that level, so
// an import warns when the runs of a level differ in tool, series or
// environment, and when nothing it read had per-request records.
func TestImportWarnings(t *testing.T) {
	sweep := t.TempDir()
	combo := "SERVE--max_num_seqs=64-BENCH--max_concurrency=2"
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), filepath.Join(sweep, combo))
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), filepath.Join(sweep, "SERVE--max_num_seqs=128-BENCH--max_concurrency=2"))

	jsonl := filepath.Join(t.TempDir(), "append.jsonl")
	line := func(inputLen string) string {
		return `{"backend": "vllm", "model_id": "m", "dataset_name": "random", "random_input_len": ` + inputLen +
			`, "request_rate": 4.0, "input_lens": [1, 1], "output_lens": [2, 2], "ttfts": [0.1, 0.2], "itls": [[0.01], [0.02]], "errors": ["", ""]}`
	}
	if err := os.WriteFile(jsonl, []byte(line("1024")+"\n"+line("4096")+"\n"+line("1024")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(fixtures, "..", "real")
	const advice = ": they are read as repeats of one level; import the results of different systems, settings or workloads into different sweeps"
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"one file", []string{filepath.Join(fixtures, "vllm", "recent.json")}, nil},
		{"repeats of one vLLM sweep combination", []string{filepath.Join(fixtures, "vllm", "sweep")}, nil},
		{"two vLLM sweep combinations at one level", []string{sweep}, []string{
			"runs at concurrency 2 come from 2 series (SERVE--max_num_seqs=128-BENCH--max_concurrency=2, SERVE--max_num_seqs=64-BENCH--max_concurrency=2)" + advice}},
		{"JSON Lines runs of two workloads at one rate", []string{jsonl}, []string{
			"runs at 4 req/s, poisson arrivals differ in random_input_len (1024, 4096)" + advice}},
		{"two tools at one level", []string{filepath.Join(fixtures, "aiperf"), filepath.Join(fixtures, "guidellm", "v0.4-benchmarks.json")}, []string{
			"runs at concurrency 2 come from different tools (AIPerf, GuideLLM)" + advice}},
		{"two LLMPerf providers at concurrency 5", []string{
			filepath.Join(real, "llmperf-leaderboard-anyscale_70b_individual_responses.json"), filepath.Join(real, "llmperf-leaderboard-anyscale_70b_summary.json"),
			filepath.Join(real, "llmperf-leaderboard-bedrock_70b_individual_responses.json"), filepath.Join(real, "llmperf-leaderboard-bedrock_70b_summary.json")}, []string{
			"runs at concurrency 5 differ in name (meta-llama-Llama-2-70b-chat-hf_550_150_summary, meta-llama2-70b-chat-v1_550_150_summary); model (meta-llama/Llama-2-70b-chat-hf, meta.llama2-70b-chat-v1); framework (anyscale, bedrock)" + advice}},
		{"aggregates only", []string{filepath.Join(real, "sglang-bench_serving-h200-llama-3.3-70b-online.jsonl")}, []string{
			"no file held per-request records: the sweep holds only the tools' own figures (reported.yaml), which validate and report show as reported, with nothing recomputed (import per-request results for benchnote's own figures)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := ImportFiles(tt.files, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := imp.Warnings()
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A directory is searched for result files: a JSON file of another kind
// there (GenAI-Perf's llm_inputs.json) is listed as skipped, with why; the
// same file named on the command line is an error.
func TestImportDirectorySkipsOtherJSON(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join(fixtures, "genai-perf"), dir)
	inputs := filepath.Join(dir, "llm_inputs.json")
	if err := os.WriteFile(inputs, []byte(`{"data": [{"payload": [{"messages": []}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	imp, err := ImportFiles([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Runs) != 1 || imp.Runs[0].Requests == nil || len(imp.Skipped) != 1 {
		t.Fatalf("%d runs, skipped %v; want the export's run and llm_inputs.json skipped", len(imp.Runs), imp.Skipped)
	}
	want := FileFormat{Path: inputs, Note: "not a result file benchnote can import: a JSON object with members data, which match no known tool's result"}
	if imp.Skipped[0] != want {
		t.Errorf("skipped %+v, want %+v", imp.Skipped[0], want)
	}
	files, err := Layout(imp)
	if err != nil {
		t.Fatal(err)
	}
	if rec := string(files[ingest.ImportRecordFile]); !strings.Contains(rec, "skipped:\n  - path: "+inputs+"\n    format: \"\"\n    note: 'not a result file benchnote can import: a JSON object with members data, which match no known tool''s result'") {
		t.Errorf("benchnote-import.yaml does not list the skipped file:\n%s", rec)
	}
	if _, err := ImportFiles([]string{inputs}, Options{}); err == nil || !strings.HasSuffix(err.Error(), "llm_inputs.json: not a result file benchnote can import: a JSON object with members data, which match no known tool's result") {
		t.Errorf("named llm_inputs.json: %v", err)
	}
}

// --format names the records' format; the summaries read with them keep
// the format detected from their content.
func TestFormatKeepsCompanions(t *testing.T) {
	real := filepath.Join(fixtures, "..", "real")
	tests := []struct {
		format Format
		files  []string
		level  ingest.LoadLevel
	}{
		{FormatLLMPerf, []string{filepath.Join(real, "llmperf-leaderboard-bedrock_70b_individual_responses.json"), filepath.Join(real, "llmperf-leaderboard-bedrock_70b_summary.json")}, ingest.ConcurrencyLoad(5)},
		{FormatAIPerf, []string{filepath.Join(fixtures, "aiperf")}, ingest.ConcurrencyLoad(2)},
		{FormatVLLM, []string{filepath.Join(fixtures, "vllm", "sweep")}, ingest.ConcurrencyLoad(2)},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			imp, err := ImportFiles(tt.files, Options{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range imp.Runs {
				if r.Requests == nil || r.Config.Load != tt.level {
					t.Errorf("run from %s: level %s, per-request %v; want %s with records", r.Source, r.Config.Load.Describe(), r.Requests != nil, tt.level.Describe())
				}
			}
		})
	}
}
