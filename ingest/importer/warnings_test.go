package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// write writes a test file.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewrite replaces old by new in every file under dir.
func rewrite(t *testing.T, dir, old, new string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		write(t, p, strings.ReplaceAll(string(data), old, new))
	}
}

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

// benchnote reads the runs of one series at one level as repeats, so an
// import warns when such runs differ in tool or in an environment key no
// label tells apart, names each run it left out as the same run as
// another, and warns when nothing it read had per-request records.
func TestImportWarnings(t *testing.T) {
	combo := "SERVE--max_num_seqs=64-BENCH--max_concurrency=2"
	// Two combinations of one sweep: each records its parameters.
	sweep := t.TempDir()
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), filepath.Join(sweep, combo))
	other := filepath.Join(sweep, "SERVE--max_num_seqs=128-BENCH--max_concurrency=2")
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), other)
	rewrite(t, other, `"max_num_seqs": 64`, `"max_num_seqs": 128`)
	// A combination copied under another name: the same runs.
	copied := t.TempDir()
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), filepath.Join(copied, combo))
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), filepath.Join(copied, "copy"))

	dir := t.TempDir()
	line := func(inputLen, ttft string) string {
		return `{"backend": "vllm", "model_id": "m", "dataset_name": "random", "random_input_len": ` + inputLen +
			`, "request_rate": 4.0, "input_lens": [1, 1], "output_lens": [2, 2], "ttfts": [` + ttft + `, 0.2], "itls": [[0.01], [0.02]], "errors": ["", ""]}`
	}
	workloads := filepath.Join(dir, "workloads.jsonl")
	write(t, workloads, line("1024", "0.1")+"\n"+line("4096", "0.1")+"\n"+line("1024", "0.3")+"\n")
	repeated := filepath.Join(dir, "repeated.jsonl")
	write(t, repeated, line("1024", "0.1")+"\n"+line("1024", "0.1")+"\n")
	metadata := filepath.Join(dir, "metadata.jsonl")
	write(t, metadata, strings.Replace(line("1024", "0.1"), `"m",`, `"m", "host": "a",`, 1)+"\n"+
		strings.Replace(line("1024", "0.3"), `"m",`, `"m", "host": "b",`, 1)+"\n")
	recent := filepath.Join(fixtures, "vllm", "recent.json")
	online := filepath.Join(fixtures, "..", "real", "sglang-bench_serving-h200-llama-3.3-70b-online.jsonl")

	real := filepath.Join(fixtures, "..", "real")
	const advice = ": they are read as repeats of one level; import the results of different systems, settings or workloads into different sweeps, or give each its series in run.yaml"
	const once = ": imported once, not as a second repeat"
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"one file", []string{recent}, nil},
		{"repeats of one vLLM sweep combination", []string{filepath.Join(fixtures, "vllm", "sweep")}, nil},
		{"two vLLM sweep combinations at one level: two series", []string{sweep}, nil},
		{"a vLLM sweep combination copied", []string{copied}, []string{
			filepath.Join(copied, "copy", "run=0.json") + " is the same run as " + filepath.Join(copied, combo, "run=0.json") + " (identical per-request records)" + once,
			filepath.Join(copied, "copy", "run=1.json") + " is the same run as " + filepath.Join(copied, combo, "run=1.json") + " (identical per-request records)" + once}},
		{"JSON Lines runs of two workloads at one rate: two series", []string{workloads}, nil},
		{"a JSON Lines run repeated", []string{repeated}, []string{
			repeated + " line 2 is the same run as " + repeated + " line 1 (identical per-request records)" + once}},
		{"runs differing in a key that is no label", []string{metadata}, []string{
			"runs at 4 req/s, poisson arrivals differ in host (a, b)" + advice}},
		{"the same file given twice", []string{recent, recent}, []string{
			recent + " is the same run as " + recent + " (the same file given twice)" + once}},
		{"the same JSON Lines file given twice", []string{online, online}, func() []string {
			var out []string
			for i := 1; i <= 7; i++ {
				out = append(out, fmt.Sprintf("%s line %d is the same run as %s line %d (the same file given twice)%s", online, i, online, i, once))
			}
			return append(out, "no file held per-request records: the sweep holds only the tools' own figures (reported.yaml), which validate and report show as reported, with nothing recomputed (import per-request results for benchnote's own figures)")
		}()},
		{"two tools at one level: two series", []string{filepath.Join(fixtures, "aiperf"), filepath.Join(fixtures, "guidellm", "v0.4-benchmarks.json")}, nil},
		{"two LLMPerf providers at concurrency 5: two series", []string{
			filepath.Join(real, "llmperf-leaderboard-anyscale_70b_individual_responses.json"), filepath.Join(real, "llmperf-leaderboard-anyscale_70b_summary.json"),
			filepath.Join(real, "llmperf-leaderboard-bedrock_70b_individual_responses.json"), filepath.Join(real, "llmperf-leaderboard-bedrock_70b_summary.json")}, nil},
		{"aggregates only", []string{online}, []string{
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
