package importer

import (
	"path/filepath"
	"testing"
)

// A file of aggregates only names its model and engine as much as one of
// per-request records: the importer writes them to env.json beside
// reported.yaml, and the summary's environment reads them (the report's
// first line said "model not recorded").
func TestReportedRunsKeepTheirEnvironment(t *testing.T) {
	tests := []struct {
		file          string
		model, engine string
	}{
		{"bsc-vllm0.5.2dev-openai-infqps-llama-2-13b-20250221-200856.json", "/gpfs/scratch/bsc98/bsc098069/llm_benchmarking/models/llama/llama-2-13b", ""},
		{"llmperf-leaderboard-anyscale_70b_summary.json", "meta-llama/Llama-2-70b-chat-hf", ""},
		{"sglang-bench_serving-h200-llama-3.3-70b-offline-Infinity.jsonl", "", "sglang"},
		{"llm-d-benchmark-docs-example-br_v0_2_example.yaml", "Qwen/Qwen3-0.6B", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := analyzeImport(t, "", filepath.Join("testdata", "real", tt.file))
			if len(s.Runs) != 0 || len(s.Reported) == 0 {
				t.Fatalf("%d runs and %d reported, want aggregates only", len(s.Runs), len(s.Reported))
			}
			env := map[string]string{}
			for _, f := range s.Environment.Canonical {
				env[f.Key] = f.Value
			}
			if env["model"] != tt.model || env["engine"] != tt.engine {
				t.Errorf("model %q, engine %q; want %q, %q", env["model"], env["engine"], tt.model, tt.engine)
			}
		})
	}
}

func TestPayloadModel(t *testing.T) {
	tests := []struct {
		name   string
		models []string
		want   string
	}{
		{"every request names it", []string{"meta/llama3-8b-instruct", "meta/llama3-8b-instruct"}, "meta/llama3-8b-instruct"},
		{"some name none", []string{"", "meta/llama3-8b-instruct", ""}, "meta/llama3-8b-instruct"},
		{"two models: none is the level's", []string{"a", "b"}, ""},
		{"none named", []string{"", ""}, ""},
		{"no request", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reqs []genaiRequest
			for _, m := range tt.models {
				reqs = append(reqs, genaiRequest{model: m})
			}
			if got := payloadModel(reqs); got != tt.want {
				t.Errorf("payloadModel = %q, want %q", got, tt.want)
			}
		})
	}
}
