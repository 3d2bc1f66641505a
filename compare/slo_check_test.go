package compare

import (
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

// TestSLOCheck: the "slo" comparability row shows each side's targets as
// the report writes them, "(none set)" for none, and tells apart targets
// that a rounded figure would print alike.
func TestSLOCheck(t *testing.T) {
	for _, tt := range []struct {
		name      string
		base, new analyze.SLO
		wantBase  string
		wantNew   string
		status    string
	}{
		{"none against one", analyze.SLO{}, analyze.SLO{TTFTms: 500}, "(none set)", "TTFT ≤ 500 ms", StatusDiffers},
		{"none on both sides", analyze.SLO{TPOTms: 0}, analyze.SLO{}, "(none set)", "(none set)", StatusSame},
		{"close but not equal", analyze.SLO{TTFTms: 1000.4}, analyze.SLO{TTFTms: 1000.04}, "TTFT ≤ 1000.4 ms", "TTFT ≤ 1000.04 ms", StatusDiffers},
		{"the same", analyze.SLO{TTFTms: 1000, TPOTms: 150}, analyze.SLO{TPOTms: 150, TTFTms: 1000}, "TTFT ≤ 1000 ms, TPOT ≤ 150 ms", "TTFT ≤ 1000 ms, TPOT ≤ 150 ms", StatusSame},
	} {
		c := CheckComparability(Profile{SLO: tt.base}, Profile{SLO: tt.new}, nil)
		var ch *Check
		for i := range c.Checks {
			if c.Checks[i].Key == "slo" {
				ch = &c.Checks[i]
			}
		}
		if ch == nil {
			t.Fatalf("%s: no slo check in %+v", tt.name, c.Checks)
		}
		if ch.Base != tt.wantBase || ch.New != tt.wantNew || ch.Status != tt.status {
			t.Errorf("%s: slo check = %q | %q | %s, want %q | %q | %s", tt.name, ch.Base, ch.New, ch.Status, tt.wantBase, tt.wantNew, tt.status)
		}
	}
}
