package ingest

import (
	"strings"
	"testing"
)

// TestSweepKeys pins, for each of sweep.yaml's settings in sweepKeys, the
// message of a bad value (its line and column, the allowed values and
// what was found) or the warning of an ignored key, and checks that no
// handler goes without a case.
func TestSweepKeys(t *testing.T) {
	tests := []struct {
		key, yaml string
		wantErr   string
		wantDiags []string
	}{
		{key: "title", yaml: "title: [x]\n",
			wantErr: "sweep.yaml:1:8: error: title: expected a text of at most 500 characters, got a list"},
		{key: "percentile", yaml: "percentile: p50\n",
			wantErr: `sweep.yaml:1:13: error: percentile: expected "nearest-rank" or "linear", got "p50"`},
		{key: "mad", yaml: "mad: 3\n",
			wantErr: `sweep.yaml:1:6: error: mad: expected "raw" or "scaled", got "3"`},
		{key: "speculative_decoding", yaml: "speculative_decoding: maybe\n",
			wantErr: `sweep.yaml:1:23: error: speculative_decoding: expected true or false, got "maybe"`},
		{key: "counter_tolerance", yaml: "counter_tolerance: 1\n",
			wantErr: `sweep.yaml:1:20: error: counter_tolerance: expected a number in (0, 1), got "1"`},
		{key: "non_streamed_fraction", yaml: "non_streamed_fraction: -0.1\n",
			wantErr: `sweep.yaml:1:24: error: non_streamed_fraction: expected a number in (0, 1], got "-0.1"`},
		{key: "error_rate_threshold", yaml: "error_rate_threshold: 2\n",
			wantErr: `sweep.yaml:1:23: error: error_rate_threshold: expected a share in (0, 1], e.g. 0.01 for 1 %, got "2"`},
		{key: "slo", yaml: "slo: fast\n",
			wantErr: `sweep.yaml:1:6: error: slo: expected a mapping with ttft_ms, tpot_ms, e2e_ms, attainment, got "fast"`},
		{key: "slo", yaml: "slo: {ttft_ms: 1, p99: 2}\n",
			wantDiags: []string{`sweep.yaml:1:19: warning: unknown setting "slo.p99" is ignored`}},
		{key: "slo", yaml: "slo: {attainment: 1.5}\n",
			wantErr: `sweep.yaml:1:19: error: slo.attainment: expected a number in (0, 1], got "1.5"`},
		{key: "warmup", yaml: "warmup: {mode: fixed}\n",
			wantErr: `sweep.yaml:1:9: error: warmup: mode "fixed" needs a count (an integer from 0 to 1000000)`},
		// A list where a mapping belongs is quoted by its (empty) value.
		{key: "metrics", yaml: "metrics: [ttft]\n",
			wantErr: `sweep.yaml:1:10: error: metrics: expected a mapping from role to metric name(s), got ""`},
		{key: "metrics", yaml: "metrics: {ttft: [a, [b]]}\n",
			wantErr: "sweep.yaml:1:17: error: metrics.ttft: expected a metric name or a list of 1 to 32 names, each 1 to 1024 bytes, got a list"},
		{key: "series", yaml: "series: {engine: ~}\n",
			wantErr: `sweep.yaml:1:18: error: series: label engine: expected a text or a number, got "~"`},
		{key: "label_selector", yaml: "label_selector: [a]\n",
			wantErr: "sweep.yaml:1:17: error: label_selector: expected a mapping of at most 32 label names to values, got a list"},
		// An unknown key is a warning, in file order, and the rest is read.
		{key: "", yaml: "unknown: 1\ntitle: T\nother: 2\n",
			wantDiags: []string{`sweep.yaml:1:1: warning: unknown setting "unknown" is ignored`, `sweep.yaml:3:1: warning: unknown setting "other" is ignored`}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
		_, diags, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		var got []string
		for _, d := range diags {
			got = append(got, d.String())
		}
		if gotErr != tt.wantErr || strings.Join(got, "\n") != strings.Join(tt.wantDiags, "\n") {
			t.Errorf("%q:\nerror %q\nwant  %q\ndiagnostics %q\nwant        %q", tt.yaml, gotErr, tt.wantErr, got, tt.wantDiags)
		}
	}
	for key := range sweepKeys {
		if !covered[key] {
			t.Errorf("sweep.yaml key %q has no case", key)
		}
	}
}
