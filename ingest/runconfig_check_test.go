package ingest

import (
	"slices"
	"testing"
)

func TestCheckRunConfig(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"valid", "concurrency: 4\nrepeat: 1\nsource:\n  tool: vLLM\n", nil},
		{"concurrency above the bound", "concurrency: 99999999999\n",
			[]string{`run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "99999999999"`}},
		{"a non-finite figure", "rate: 2\nsource:\n  tool: t\nreported:\n  - key: ttft.mean\n    label: mean\n    value: .nan\n    unit: ms\n",
			[]string{"run.yaml:7:12: error: reported[0].value: expected a finite number, got \".nan\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range CheckRunConfig([]byte(tt.yaml), "run.yaml") {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
