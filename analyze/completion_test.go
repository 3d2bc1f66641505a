package analyze

import (
	"math"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// TestCompletionTime: a request ends at its t_last_text; without one, at
// t_request_sent + E2E; with neither (a file without time columns, or a
// missing value), it has no known end.
func TestCompletionTime(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		sent, last []float64
		want       float64
	}{
		{"last text", []float64{100}, []float64{101.5}, 101.5},
		{"sent + E2E", []float64{100}, nil, 100.25},
		{"last text missing: sent + E2E", []float64{100}, []float64{nan}, 100.25},
		{"no time columns", nil, nil, nan},
		{"send time missing", []float64{nan}, nil, nan},
	}
	for _, tt := range tests {
		r := &ingest.Requests{N: 1, E2Ems: []float64{250}, TRequestSent: tt.sent, TLastText: tt.last}
		if got := completionTime(r, 0); got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
