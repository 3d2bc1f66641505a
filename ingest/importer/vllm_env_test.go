package importer

import (
	"fmt"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// TestServingEnvEngine: a bench serve --backend that names an engine
// gives the run's engine; one naming an API (openai-chat) does not, and a
// file's own engine key wins.
func TestServingEnvEngine(t *testing.T) {
	tests := []struct {
		backend string
		env     []ingest.KV
		want    string
	}{
		{"vllm", nil, "[{backend vllm} {engine vllm}]"},
		{"SGLang-Native", nil, "[{backend SGLang-Native} {engine sglang}]"},
		{"openai-chat", nil, "[{backend openai-chat}]"},
		{"", nil, "[]"},
		{"vllm", []ingest.KV{{Key: "engine", Value: "vllm-fork"}}, "[{backend vllm} {engine vllm-fork}]"},
	}
	for _, tt := range tests {
		res := &servingResult{strs: map[string]string{}}
		if tt.backend != "" {
			res.strs["backend"] = tt.backend
			res.env = append(res.env, ingest.KV{Key: "backend", Value: tt.backend})
		}
		res.env = append(res.env, tt.env...)
		if got := fmt.Sprint(servingEnv(res)); got != tt.want {
			t.Errorf("backend %q, env %v: %s, want %s", tt.backend, tt.env, got, tt.want)
		}
	}
}
