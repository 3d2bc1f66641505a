//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileRanges runs report on sweeps whose one run holds values at
// the ends of the accepted ranges (ingest/ranges.go), or past them (issue
// 20: a 90-byte requests.csv whose E2E_ms, 1.797e308, is finite and not
// negative): each finishes within the hostile bounds, a value past its
// range is excluded with its diagnostic, and one at its bound is kept.
func TestHostileRanges(t *testing.T) {
	tests := []struct {
		name, csv string
		size      int    // the file's bytes, when the case pins them
		stderr    string // a line report prints on stderr
		rows      string // summary.json's accounting of the rows
		excluded  string // report.md's line of the exclusions, "" for none
	}{
		{"issue 20: E2E_ms 1.797e308",
			"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\nrequest-1,128,64,35.5,1.797e308\n", 90,
			"benchnote report: warning: empty-run: 1 run has no usable request: nothing measured, nothing added to any figure [c1/r1: all 1 rows were excluded as bad rows]",
			`"rows_read": 1, "failed_run_rows": 0, "bad_rows": 1, "accepted": 0`,
			"| request | bad row: out of range | 1 | `c1/r1/requests.csv:2:5: warning: E2E_ms: expected at most 10000000000 (ms, about 116 days), got \"1.797e308\"` |"},
		{"every value at its bound",
			"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_request_sent,t_first_text,t_last_text,chunk_ms,text_chunks\n" +
				"r1,1000000000,1000000000,1,10000000000,253402300799,253402300799,253402300799,1;10000000000,1000000000\n" +
				"r2,0,1,0,5,0,0,0,0,1\n", 0,
			"benchnote report: warning: fewer-than-3-runs: concurrency 1 has 1 usable run; median ± MAD needs at least 3 to say anything about spread [c1/r1]",
			`"rows_read": 2, "failed_run_rows": 0, "bad_rows": 0, "accepted": 2`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			run := filepath.Join(dir, "sweep", "c1", "r1")
			if err := os.MkdirAll(run, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.size > 0 && len(tt.csv) != tt.size {
				t.Fatalf("requests.csv of %d bytes, want %d", len(tt.csv), tt.size)
			}
			if err := os.WriteFile(filepath.Join(run, "requests.csv"), []byte(tt.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			b := runBounded(t, dir, nil, "report", "sweep", "-o", "out")
			if b.code != ExitClean {
				t.Errorf("exit %d, want %d; stderr:\n%s", b.code, ExitClean, b.stderr)
			}
			if !strings.Contains(b.stderr, tt.stderr+"\n") {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, b.stderr)
			}
			summary, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(strings.Fields(string(summary)), " "); !strings.Contains(got, tt.rows) {
				t.Errorf("summary.json lacks %s", tt.rows)
			}
			report, err := os.ReadFile(filepath.Join(dir, "out", "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(report), "bad row:"); got != (tt.excluded != "") || !strings.Contains(string(report), tt.excluded+"\n") {
				t.Errorf("report.md: exclusions %v, want the line %q", got, tt.excluded)
			}
		})
	}
}
