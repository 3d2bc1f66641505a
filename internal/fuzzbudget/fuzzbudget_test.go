package fuzzbudget

import (
	"fmt"
	"testing"
	"time"
)

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

// TestCheck drives the rule with a fake clock: only an input of at most
// MaxInput bytes that is over the budget on both tries fails, and the
// failure names the parser, both times, the size and the budget.
func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		times []time.Duration // what the clock says for each try
		runs  int
		fail  string
	}{
		{"fast", 10, []time.Duration{time.Millisecond}, 1, ""},
		{"exactly the budget", 10, []time.Duration{Budget}, 1, ""},
		{"one stall", 10, []time.Duration{3 * time.Second, time.Millisecond}, 2, ""},
		{"slow twice", MaxInput, []time.Duration{1500 * time.Millisecond, 2 * time.Second}, 2,
			"P took 1.5s, then 2s, on 65536 bytes; the budget is 1s"},
		{"too large to judge", MaxInput + 1, []time.Duration{time.Minute}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			runs, calls := 0, 0
			since := func(time.Time) time.Duration { calls++; return tt.times[calls-1] }
			check(r, "P", tt.size, func() { runs++ }, since)
			if runs != tt.runs || r.failed != tt.fail {
				t.Errorf("ran %d times, failure %q; want %d and %q", runs, r.failed, tt.runs, tt.fail)
			}
		})
	}
}
