package report

import (
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

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

// TestChartStatSample: a chart's caption names the sample of the first
// level whose statistic says one; a level without it, or whose statistic
// says none, is passed over.
func TestChartStatSample(t *testing.T) {
	level := func(c int, sample string, has bool) analyze.Level {
		l := analyze.Level{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: c}}
		if has {
			l.Stats = []analyze.AcrossRuns{{Key: "ttft.p95", Sample: sample}}
		}
		return l
	}
	s := &analyze.Summary{Levels: []analyze.Level{level(1, "", false), level(2, "", true), level(4, "per run", true)}}
	if got := chartStatSample(s, "ttft.p95"); got != "per run" {
		t.Errorf("chartStatSample = %q, want %q", got, "per run")
	}
	if got := chartStatSample(s, "e2e.p95"); got != "" {
		t.Errorf("chartStatSample of a statistic no level has = %q, want \"\"", got)
	}
}
