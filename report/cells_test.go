package report

import "testing"

// TestIsPercentile: a percentile's statistic name is "p" and at least one
// digit.
func TestIsPercentile(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want bool
	}{
		{"p50", true}, {"p99", true}, {"p5", true},
		{"p", false}, {"", false}, {"p9x", false}, {"P50", false}, {"mean", false}, {"max", false},
	} {
		if got := isPercentile(tt.stat); got != tt.want {
			t.Errorf("isPercentile(%q) = %v, want %v", tt.stat, got, tt.want)
		}
	}
}
