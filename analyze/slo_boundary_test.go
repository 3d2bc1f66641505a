package analyze

import (
	"math"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// TestSLOTargetsAreInclusive pins the documented rule (docs/measurement-
// rules.md: a request meets a target such as "TTFT ≤ 1 s"): a value
// exactly on a target meets it, the next float64 above misses it.
// TPOT is (E2E − TTFT) / (n − 1): 600 ms over 4 gaps is exactly 150 ms.
func TestSLOTargetsAreInclusive(t *testing.T) {
	slo := ingest.SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000}
	above := func(v float64) float64 { return math.Nextafter(v, math.Inf(1)) }
	tests := []struct {
		name      string
		ttft, e2e float64
		n         int64
		want      int
	}{
		{"every value on its target", 1000, 1600, 5, sloMet},
		{"E2E on its target, TPOT 4900/49 = 100 ms within", 100, 5000, 50, sloMet},
		{"TTFT just above", above(1000), above(1000) + 600, 5, sloTTFT},
		{"TPOT just above", 100, above(700), 5, sloTPOT},
		{"E2E just above", 100, above(5000), 100, sloE2E},
		{"one token: TPOT does not apply", 1000, 5000, 1, sloMet},
	}
	for _, tt := range tests {
		req := &ingest.Requests{N: 1, TTFTms: []float64{tt.ttft}, E2Ems: []float64{tt.e2e}, CompletionTokens: []int64{tt.n}, PromptTokens: []int64{10}}
		class := uint8(classMulti)
		if tt.n == 1 {
			class = classOne
		}
		if got := sloVerdict(req, 0, class, slo); got != tt.want {
			t.Errorf("%s: verdict %d, want %d", tt.name, got, tt.want)
		}
	}
}
