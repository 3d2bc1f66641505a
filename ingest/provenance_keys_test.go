package ingest

import (
	"reflect"
	"strings"
	"testing"
)

// TestProvenanceKeys pins, for each import key in provenanceKeys, what a
// bad entry gives: the diagnostics, and which entries are kept beside it.
// It checks that no handler goes without a case.
func TestProvenanceKeys(t *testing.T) {
	const src = "source: {tool: x}\n"
	tests := []struct {
		key, yaml string
		want      []string
		check     func(p *Provenance) bool
	}{
		{"source", "source: [x]\n",
			[]string{"run.yaml:1:9: error: source: expected a mapping of tool, version, file, got a list"}, nil},
		{"recomputed", src + "recomputed: a\n",
			[]string{`run.yaml:2:13: error: recomputed: expected a list of at most 64 entries, got "a"`}, nil},
		{"as_reported", src + "as_reported: [a, '']\n",
			[]string{`run.yaml:2:18: error: as_reported[1]: expected a non-empty string of at most 600 bytes, got ""`},
			func(p *Provenance) bool { return reflect.DeepEqual(p.AsReported, []string{"a"}) }},
		{"approximate", src + "approximate: {a: b}\n",
			[]string{"run.yaml:2:14: error: approximate: expected a list of at most 64 entries, got a mapping"}, nil},
		{"unavailable", src + "unavailable: [window, [x]]\n",
			[]string{"run.yaml:2:23: error: unavailable[1]: expected one of all_requests, per_gap_itl, request_ids, send_order, send_time, ttft, wall_clock, window, got a list"},
			func(p *Provenance) bool { return reflect.DeepEqual(p.Unavailable, []string{"window"}) }},
		{"token_counts", src + "token_counts: ''\n",
			[]string{`run.yaml:2:15: error: token_counts: expected a non-empty string of at most 600 bytes, got ""`}, nil},
		// A definition whose fields read cleanly must have all three.
		{"definitions", src + "definitions: [{metric: E2E, source: a}]\n",
			[]string{"run.yaml:2:15: error: definitions[0]: expected a mapping with metric, source and benchnote, got a mapping"},
			func(p *Provenance) bool { return len(p.Definitions) == 0 }},
		// One with a bad field is kept when it has a metric.
		{"definitions", src + "definitions: [{metric: E2E, source: [a], benchnote: b, colour: red}]\n", []string{
			"run.yaml:2:37: error: definitions[0].source: expected a string, got a list",
			`run.yaml:2:56: warning: unknown setting "definitions[0].colour" is ignored`},
			func(p *Provenance) bool {
				return reflect.DeepEqual(p.Definitions, []Definition{{Metric: "E2E", Benchnote: "b"}})
			}},
		{"reported", src + "reported: [{key: k, label: l, value: 1, unit: ms, note: ~}]\n",
			[]string{`run.yaml:2:57: error: reported[0].note: expected a string, got "~"`},
			func(p *Provenance) bool {
				return reflect.DeepEqual(p.Reported, []ReportedFigure{{Key: "k", Label: "l", Value: 1, Unit: "ms"}})
			}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
		rc, diags := parseRunConfig([]byte(tt.yaml), "run.yaml")
		var got []string
		for _, d := range diags {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", tt.yaml, got, tt.want)
		}
		if tt.check != nil && (rc.Provenance == nil || !tt.check(rc.Provenance)) {
			t.Errorf("%q: provenance %+v", tt.yaml, rc.Provenance)
		}
	}
	for key := range provenanceKeys {
		if !covered[key] {
			t.Errorf("import key %q has no case", key)
		}
	}
}
