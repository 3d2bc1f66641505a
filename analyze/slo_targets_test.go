package analyze

import (
	"math"
	"testing"
)

// TestSLOTargets: the targets that apply, exactly as set, in a fixed
// order; a target of 0, a negative one or a missing one does not apply.
func TestSLOTargets(t *testing.T) {
	nan := Num(math.NaN())
	for _, tt := range []struct {
		name string
		slo  SLO
		want string
	}{
		{"none", SLO{}, "(none set)"},
		{"zero, negative, missing", SLO{TTFTms: 0, TPOTms: -5, E2Ems: nan}, "(none set)"},
		{"infinite", SLO{TTFTms: Num(math.Inf(1))}, "(none set)"},
		{"two", SLO{TTFTms: 1000, TPOTms: 150}, "TTFT ≤ 1000 ms, TPOT ≤ 150 ms"},
		{"all three, in order", SLO{E2Ems: 30000, TPOTms: 50, TTFTms: 500}, "TTFT ≤ 500 ms, TPOT ≤ 50 ms, E2E ≤ 30000 ms"},
		{"E2E only", SLO{E2Ems: 2500.5}, "E2E ≤ 2500.5 ms"},
		{"not rounded", SLO{TTFTms: 1234.5678}, "TTFT ≤ 1234.5678 ms"},
		{"below 1", SLO{TPOTms: 0.5}, "TPOT ≤ 0.5 ms"},
		{"no exponent", SLO{E2Ems: 1234567, TTFTms: 0.00001}, "TTFT ≤ 0.00001 ms, E2E ≤ 1234567 ms"},
	} {
		if got := tt.slo.Targets(); got != tt.want {
			t.Errorf("%s: Targets() = %q, want %q", tt.name, got, tt.want)
		}
		if set := tt.slo.Set(); set != (tt.want != "(none set)") {
			t.Errorf("%s: Set() = %v, but Targets() = %q", tt.name, set, tt.want)
		}
	}
}
