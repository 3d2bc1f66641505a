package ingest

import (
	"strings"
	"testing"
)

// TestRunKeys pins, for each of run.yaml's own settings in runKeys, the
// diagnostic of a bad value, and the order of the diagnostics: sorted by
// line and column, except that a window with one bound ends the parse
// before the sort. It checks that no handler goes without a case.
func TestRunKeys(t *testing.T) {
	tests := []struct {
		key, yaml string
		want      []string
	}{
		{"concurrency", "concurrency: 0\n",
			[]string{`run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "0"`}},
		{"repeat", "repeat: x\n",
			[]string{`run.yaml:1:9: error: repeat: expected an integer from 1 to 10,000, got "x"`}},
		{"max_tokens", "max_tokens: 1.5\n",
			[]string{`run.yaml:1:13: error: max_tokens: expected an integer from 1 to 100,000,000, got "1.5"`}},
		{"series", "series: {engine: [a]}\n",
			[]string{"run.yaml:1:18: error: series: label engine: expected a text or a number, got a list"}},
		{"notes", "notes: [a]\n",
			[]string{"run.yaml:1:8: error: notes: expected text, got a list"}},
		{"rate", "rate: 0\n",
			[]string{`run.yaml:1:7: error: rate: expected a positive number of requests per second up to 1,000,000, or inf, got "0"`}},
		{"arrival", "rate: inf\narrival: poisson\nfoo: 1\n", []string{
			"run.yaml: warning: arrival is ignored: it applies only to a finite rate",
			`run.yaml:3:1: warning: unknown setting "foo" is ignored`}},
		{"clock", "clock: [wall]\n",
			[]string{"run.yaml:1:8: error: clock: expected monotonic or wall, got a list"}},
		{"window", "window: [1, 2]\n",
			[]string{"run.yaml:1:9: error: window: expected a mapping with start and end, got a list"}},
		{"window", "window: {start: 2, end: 1, step: 1}\n", []string{
			`run.yaml:1:25: error: window.end: expected a time after window.start (2), got "1"`,
			`run.yaml:1:28: warning: unknown setting "window.step" is ignored`}},
		{"window", "notes: [x]\nwindow: {end: 5}\nfoo: 1\n", []string{
			"run.yaml:1:8: error: notes: expected text, got a list",
			`run.yaml:3:1: warning: unknown setting "foo" is ignored`,
			"run.yaml:2:15: error: window: expected both start and end"}},
		{"", "foo: 1\nconcurrency: 0\n", []string{
			`run.yaml:1:1: warning: unknown setting "foo" is ignored`,
			`run.yaml:2:14: error: concurrency: expected an integer from 1 to 1,000,000, got "0"`}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
		_, diags := parseRunConfig([]byte(tt.yaml), "run.yaml")
		var got []string
		for _, d := range diags {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", tt.yaml, got, tt.want)
		}
	}
	for key := range runKeys {
		if !covered[key] {
			t.Errorf("run.yaml key %q has no case", key)
		}
	}
}
