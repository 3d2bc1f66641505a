package report

import (
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

// TestProblemsAreShown: error and warning findings at the top, ignored
// settings in the method, and every omitted or repaired server histogram
// under the server table.
func TestProblemsAreShown(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	s.Findings = []analyze.Finding{
		{Severity: "error", Rule: "error-rate", Message: "concurrency 2: 5 of 9 measured requests failed"},
		{Severity: "warning", Rule: "empty-scrape", Message: "1 run(s) have a scrape with no metric"},
		{Severity: "info", Rule: "zero-and-one-token-outputs", Message: "not at the top"},
	}
	s.Method.ErrorRateThreshold = 0.05
	s.Method.IgnoredSettings = []analyze.IgnoredSetting{{File: "sweep.yaml", Line: 4, Column: 1, Setting: "colour"}}
	s.Runs[0].Server = []analyze.ServerHistogram{
		{Role: "e2e", Label: "server E2E latency", Metric: "vllm:e2e_request_latency_seconds", Omitted: "no +Inf bucket: not a valid Prometheus histogram"},
		{Role: "ttft", Label: "server TTFT", Metric: "vllm:time_to_first_token_seconds", Omitted: "only a +Inf bucket: no finite bound to interpolate in"},
		{Role: "queue", Label: "server queue time", Metric: "vllm:request_queue_time_seconds",
			MergedBounds: []string{"0.2"}, RaisedBuckets: []analyze.RaisedBucket{{Le: "0.5", Count: 7, RaisedTo: 9}}},
	}
	tests := []struct {
		cell string
		want []string
	}{
		{"{{quality}}", []string{
			"> - **error** `error-rate`: concurrency 2: 5 of 9 measured requests failed",
			"> - warning `empty-scrape`: 1 run(s) have a scrape with no metric",
		}},
		{"{{alerts}}", []string{
			"> - **error** `error-rate`: concurrency 2: 5 of 9 measured requests failed",
		}},
		{"{{method}}", []string{
			"| error-rate threshold | 5 % | a run or level with a larger share of failed measured requests is an error finding |",
			"| ignored settings | `colour` (`sweep.yaml:4:1`) | unknown keys: ignored, so their defaults were used (a misspelt key?) |",
		}},
		{"{{table server}}", []string{
			"- server E2E latency: no +Inf bucket: not a valid Prometheus histogram (1 run)",
			"- server TTFT: only a +Inf bucket: no finite bound to interpolate in (1 run)",
			"- `c2/<img src=x onerror=alert(1)>` server queue time (`vllm:request_queue_time_seconds`): buckets sharing an upper bound written differently were merged by adding their counts, at le = 0.2",
			"- `c2/<img src=x onerror=alert(1)>` server queue time (`vllm:request_queue_time_seconds`): the bucket le = 0.5 counted 7 over the window, fewer than a lower bucket, and was raised to 9",
		}},
	}
	for _, tt := range tests {
		out, err := renderNotebook([]byte(tt.cell), "nb.md", &cellContext{s: s}, targetMarkdown)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w+"\n") {
				t.Errorf("%s lacks the line\n%s\nin\n%s", tt.cell, w, out)
			}
		}
		if strings.Contains(string(out), "not at the top") {
			t.Errorf("%s shows an info finding:\n%s", tt.cell, out)
		}
	}
	s.Findings = s.Findings[2:]
	s.Method.IgnoredSettings = nil
	out, _ := renderNotebook([]byte("{{quality}}\n{{method}}"), "nb.md", &cellContext{s: s}, targetMarkdown)
	for _, w := range []string{
		"> **Nothing to report.** No lint finding is an error or a warning (1 info finding, listed with the lint findings).\n",
		"| ignored settings | none | every key in sweep.yaml and run.yaml was understood |\n",
	} {
		if !strings.Contains(string(out), w) {
			t.Errorf("without problems, the output lacks %q:\n%s", w, out)
		}
	}
}
