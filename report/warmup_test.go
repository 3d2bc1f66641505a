package report

import (
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

func TestWarmupCell(t *testing.T) {
	tests := []struct {
		w    analyze.WarmupResult
		want string
	}{
		{analyze.WarmupResult{Outcome: analyze.WarmupCut, Discarded: 1234, DecidedBy: "TPOT"}, "1,234 (by TPOT)"},
		{analyze.WarmupResult{Outcome: analyze.WarmupNotDetected}, "0 (no warm-up detected)"},
		{analyze.WarmupResult{Outcome: analyze.WarmupNotStabilised}, "0 (never stabilised)"},
		{analyze.WarmupResult{Outcome: analyze.WarmupUnavailable}, "0 (unavailable: send order unknown)"},
		{analyze.WarmupResult{Outcome: analyze.WarmupFixedCount, Discarded: 40}, "40 (fixed override)"},
		{analyze.WarmupResult{Outcome: analyze.WarmupDisabled}, "0 (warm-up handling off)"},
	}
	for _, tt := range tests {
		if got := warmupCell(tt.w); got != tt.want {
			t.Errorf("warmupCell(%+v) = %q, want %q", tt.w, got, tt.want)
		}
	}
}

func TestWarmupTable(t *testing.T) {
	s := &analyze.Summary{Method: analyze.Method{Warmup: "fixed"}, Levels: []analyze.Level{
		{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 4}, Warmup: analyze.WarmupLevel{Runs: 3, CutMedian: 40, CutMin: 40, CutMax: 40, Discarded: 120,
			Outcomes: []analyze.ReasonCount{{Reason: analyze.WarmupFixedCount, Count: 3}}}},
		{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 8}, Warmup: analyze.WarmupLevel{CutMedian: analyze.NaN}},
	}}
	got := warmupTable(s)
	for _, want := range []string{
		"**Warm-up per level: a fixed override.**",
		"| concurrency | runs | cut, median (requests) | cut, range (requests) | requests discarded | runs by outcome |",
		"| 4 | 3 | 40 | 40 – 40 | 120 | fixed override: 3 |",
		"| 8 | 0 | n/a | n/a | 0 |  |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warm-up table lacks %q:\n%s", want, got)
		}
	}
}
