//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// hostileVLLM is a vLLM result object of two requests with the given
// extra members (each `"name": value`), the level given by them or 4 req/s.
func hostileVLLM(members ...string) string {
	level := `"request_rate": 4`
	for _, m := range members {
		if strings.Contains(m, `"request_rate"`) {
			level = ""
		}
	}
	parts := append([]string{`"backend": "vllm"`, `"model_id": "m"`}, members...)
	if level != "" {
		parts = append(parts, level)
	}
	for _, a := range []string{`"input_lens": [1, 1]`, `"output_lens": [2, 2]`, `"ttfts": [0.1, 0.1]`, `"itls": [[0.01], [0.01]]`, `"errors": ["", ""]`} {
		name := a[:strings.Index(a, ":")]
		replaced := false
		for _, m := range members {
			replaced = replaced || strings.HasPrefix(m, name)
		}
		if !replaced {
			parts = append(parts, a)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Issue 20's hostile inputs to benchnote import, one case per finding of
// the audit, each run as a child process within the bounds of runBounded
// (2 s, 200 MB): the exit code and the exact message or output.
func TestHostileImport(t *testing.T) {
	appendJSONL, err := os.ReadFile(filepath.Join(importerData, "fixtures", "vllm", "append.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Two runs on a pipe, the second past detection's first MiB: both
	// are read, from one read of the stream.
	piped := string(appendJSONL) + strings.Repeat(" ", 2<<20) + "\n" + hostileVLLM(`"request_rate": 8`) + "\n"
	digits := strings.Repeat("9", 600)
	tests := []struct {
		name   string
		stdin  string
		files  map[string]string // written into the case's directory
		args   []string          // run in the case's directory
		code   int
		stdout string // the exact output, or "" for none
		stderr string // the exact error output
	}{
		{name: "1: a JSON Lines stream on a pipe imports every run", stdin: piped,
			args: []string{"import", "/dev/stdin", "-o", "out"}, code: ExitClean,
			stdout: "wrote out: 3 runs with per-request records, 0 with the tool's aggregates only, from 1 file\n\n" +
				"RUN                   LEVEL                       REQUESTS  SOURCE      TOOL\n" +
				"rate2-constant/run-1  2 req/s, constant arrivals  2         /dev/stdin  vLLM benchmark_serving.py (not recorded in the file; the format without start_times or failed)\n" +
				"rate4-gamma/run-1     4 req/s, gamma arrivals     2         /dev/stdin  vLLM benchmark_serving.py (not recorded in the file; the format without start_times or failed)\n" +
				"rate8-poisson/run-1   8 req/s, poisson arrivals   2         /dev/stdin  vLLM benchmark_serving.py (not recorded in the file; the format without start_times or failed)\n",
		},
		{name: "2: a concurrency above ingest's bound", files: map[string]string{"vllm.json": hostileVLLM(`"request_rate": "inf"`, `"max_concurrency": 99999999999`)},
			args: []string{"import", "vllm.json", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: vllm.json: $.max_concurrency: 99999999999 is above 1,000,000\n"},
		{name: "2: a TTFT beyond float64", files: map[string]string{"vllm.json": hostileVLLM(`"ttfts": [0.1, 1e400]`)},
			args: []string{"import", "vllm.json", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: vllm.json: $.ttfts[1]: 1e400 is not a finite number\n"},
		{name: "2: a request out of range is left out and counted", files: map[string]string{"vllm.json": hostileVLLM(`"ttfts": [0.1, 2e7]`)},
			args: []string{"import", "vllm.json", "-o", "out"}, code: ExitClean,
			stdout: "wrote out: 1 run with per-request records, 0 with the tool's aggregates only, from 1 file\n\n" +
				"RUN                  LEVEL                      REQUESTS  SOURCE     TOOL\n" +
				"rate4-poisson/run-1  4 req/s, poisson arrivals  1         vllm.json  vLLM benchmark_serving.py (not recorded in the file; the format without start_times or failed)\n",
			stderr: "benchnote import: warning: vllm.json: 1 of 2 requests left out of rate4-poisson/run-1, as benchnote would not read them: 1 out of range (the first: $.ttfts[1]: TTFT_ms 20000000000 is above 10,000,000,000)\n"},
		{name: "3: a vLLM result with a GenAI-Perf experiments member", files: map[string]string{"r.json": hostileVLLM(`"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": []}]`)},
			args: []string{"import", "r.json", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: r.json: matches both vLLM (--format vllm) and GenAI-Perf (--format genai-perf): pass --format to say which it is\n"},
		{name: "4: a stray object after a vLLM result", files: map[string]string{"r.json": hostileVLLM() + "\n" + `{"x":1}` + "\n"},
			args: []string{"import", "r.json", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: r.json: line 2: $: not a vLLM result: expected the members backend and request_rate or max_concurrency\n"},
		{name: "4: a second document after an LLMPerf summary", files: map[string]string{"x_summary.json": `{"version": "2023-08-31", "num_concurrent_requests": 2, "results_ttft_s_mean": 0.1}` + "\n" + `{"x":1}`},
			args: []string{"import", "x_summary.json", "-o", "out"}, code: ExitErrors,
			stderr: `benchnote import: x_summary.json: unexpected data after the JSON document, at byte 84: "{\"x\":1}" (the file must hold one document)` + "\n"},
		{name: "5: a 600-digit number is JSON, out of range at its path", files: map[string]string{"vllm.json": hostileVLLM(`"ttfts": [0.1, ` + digits + `]`)},
			args: []string{"import", "vllm.json", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: vllm.json: $.ttfts[1]: a 600-digit integer (99999999999999999999...) is not a finite number\n"},
		{name: "5: a 50-million-digit number on a pipe costs neither time nor memory",
			stdin: `{"backend": "vllm", "request_rate": 1, "num_prompts": ` + strings.Repeat("7", 50_000_000) + `}`,
			args:  []string{"import", "/dev/stdin", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: /dev/stdin: $.num_prompts: a 50000000-digit integer (77777777777777777777...) is not a finite number\n"},
		{name: "6: --max-requests below 1", files: map[string]string{"vllm.json": hostileVLLM()},
			args: []string{"import", "--max-requests", "-1", "vllm.json", "-o", "out"}, code: ExitErrors,
			stderr: "benchnote import: --max-requests -1: expected a number of requests of at least 1\nrun 'benchnote import -h' for usage\n"},
		{name: "7: a file name with a newline cannot forge a row", files: map[string]string{"a\nrate9-run-1  9 rps  999  forged.json": hostileVLLM()},
			args: []string{"import", "a\nrate9-run-1  9 rps  999  forged.json", "-o", "out"}, code: ExitClean,
			stdout: "wrote out: 1 run with per-request records, 0 with the tool's aggregates only, from 1 file\n\n" +
				"RUN                  LEVEL                      REQUESTS  SOURCE                                   TOOL\n" +
				`rate4-poisson/run-1  4 req/s, poisson arrivals  2         a\nrate9-run-1  9 rps  999  forged.json  vLLM benchmark_serving.py (not recorded in the file; the format without start_times or failed)` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := tt.args
			var stdin []byte
			if tt.stdin != "" {
				stdin = []byte(tt.stdin)
			}
			b := runBounded(t, dir, stdin, args...)
			t.Logf("%v, peak RSS %d MB", b.wall, b.peakRSS>>20)
			stdout, stderr := b.stdout, b.stderr
			if b.code != tt.code || stdout != tt.stdout || stderr != tt.stderr {
				t.Errorf("benchnote %q: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d\nstdout:\n%s\nstderr:\n%s", args, b.code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
			if b.code == ExitClean {
				// What import wrote reads back with nothing excluded.
				sw, err := ingest.Load(filepath.Join(dir, "out"), ingest.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range sw.Runs {
					if r.Failed || len(r.Diagnostics) > 0 || r.Requests == nil || r.Requests.ExcludedRows() > 0 {
						t.Errorf("%s: failed %v, diagnostics %v, requests %v", r.Dir, r.Failed, r.Diagnostics, r.Requests)
					}
				}
			}
		})
	}
}
