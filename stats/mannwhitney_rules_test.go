package stats

import (
	"math"
	"testing"
)

// repeatValues returns v repeated n times for each (v, n) pair.
func repeatValues(pairs ...[2]float64) []float64 {
	var out []float64
	for _, p := range pairs {
		for range int(p[1]) {
			out = append(out, p[0])
		}
	}
	return out
}

// TestNormalApproximationTieCorrection: 120 values (above ExactLimit) in
// three tie groups of 40. Worked by hand: mid-ranks 20.5, 60.5, 100.5;
// x = 30 ones, 20 twos, 10 threes gives W = 2830 against E[W] = 60·121/2 =
// 3630, |W − E[W]| = 800; Σ(t³ − t) = 3·(40³ − 40) = 191,880; variance
// n1·n2/12 · ((N + 1) − Σ(t³ − t)/(N(N − 1))) = 300 · (121 − 191880/14280)
// = 32,268.9076; z = (800 − 0.5)/√v; p = erfc(z/√2) = 8.559894845089e-06
// (Python's math.erfc). Without the tie term it would be 2.713e-05.
func TestNormalApproximationTieCorrection(t *testing.T) {
	x := repeatValues([2]float64{1, 30}, [2]float64{2, 20}, [2]float64{3, 10})
	y := repeatValues([2]float64{1, 10}, [2]float64{2, 20}, [2]float64{3, 30})
	res, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	const want = 8.559894845089123e-06
	if res.Method != MethodNormal || !(math.Abs(res.P-want) <= 1e-12*want) {
		t.Errorf("p = %.16g (%s), want %.16g (normal approximation)", res.P, res.Method, want)
	}
}

// TestExactUpToExactLimit: 80 values (between 60 and ExactLimit = 100)
// still get the exact test: 40 values all below 40 others is one of the
// two most extreme of C(80, 40) arrangements, p = 2/C(80, 40) =
// 1.8603403656036264e-23 (Python's math.comb).
func TestExactUpToExactLimit(t *testing.T) {
	var x, y []float64
	for i := range 40 {
		x = append(x, float64(i))
		y = append(y, float64(100+i))
	}
	res, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	const want = 1.8603403656036264e-23
	if res.Method != MethodExact || !(math.Abs(res.P-want) <= 1e-9*want) {
		t.Errorf("p = %.16g (%s), want %.16g (exact)", res.P, res.Method, want)
	}
}

// TestExactAtExactLimit: exactly ExactLimit = 100 values are still exact
// (the normal approximation starts at 101): 50 values all below 50 others,
// p = 2/C(100, 50) = 1.9823306042836678e-29 (Python's math.comb).
func TestExactAtExactLimit(t *testing.T) {
	var x, y []float64
	for i := range 50 {
		x = append(x, float64(i))
		y = append(y, float64(100+i))
	}
	res, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	const want = 1.9823306042836678e-29
	if res.Method != MethodExact || !(math.Abs(res.P-want) <= 1e-9*want) {
		t.Errorf("p = %.16g (%s), want %.16g (exact)", res.P, res.Method, want)
	}
	res, err = MannWhitney(append(x, 50), y)
	if err != nil || res.Method != MethodNormal {
		t.Errorf("101 values: method %q (%v), want the normal approximation", res.Method, err)
	}
}

// TestStratifiedNormalTieCorrection: two strata of 120 values each (above
// ExactLimit, so the normal approximation), both the tie groups of
// TestNormalApproximationTieCorrection. Worked by hand: each stratum's
// deviation W − E[W] = −800 with tie-corrected variance 32,268.9076, weight
// 1/121; Z = 2·(−800/121) / √(2 · 32,268.9076/121²) = −1600/√64,537.815 =
// −6.298147875897062, p = erfc(|Z|/√2) = 3.012230824141123e-10 (Python;
// no continuity correction). Without the tie term p would be 2.88e-09.
func TestStratifiedNormalTieCorrection(t *testing.T) {
	x := repeatValues([2]float64{1, 30}, [2]float64{2, 20}, [2]float64{3, 10})
	y := repeatValues([2]float64{1, 10}, [2]float64{2, 20}, [2]float64{3, 30})
	res, err := Stratified([]Stratum{{X: x, Y: y}, {X: x, Y: y}})
	if err != nil {
		t.Fatal(err)
	}
	const wantZ, wantP = -6.298147875897062, 3.012230824141123e-10
	if res.Method != MethodStratifiedNormal || !(math.Abs(res.Z-wantZ) <= 1e-12) || !(math.Abs(res.P-wantP) <= 1e-9*wantP) {
		t.Errorf("Z = %.16g, p = %.16g (%s); want %.16g, %.16g (normal approximation)", res.Z, res.P, res.Method, wantZ, wantP)
	}
}

// TestStratifiedSizeIsStrict: 3 vs 3 runs at one level can give p = 2/20 =
// 0.1 at best, so at α = 0.1 no outcome has p < α and the size is 0; just
// above α the two most extreme arrangements (2 of 20) count.
func TestStratifiedSizeIsStrict(t *testing.T) {
	strata := []Stratum{{X: []float64{1, 2, 3}, Y: []float64{4, 5, 6}}}
	if got := StratifiedSize(strata, 0.1); got != 0 {
		t.Errorf("size at α = 0.1: %v, want 0", got)
	}
	if got := StratifiedSize(strata, math.Nextafter(0.1, 1)); !(math.Abs(got-0.1) <= 1e-15) {
		t.Errorf("size just above α = 0.1: %v, want 0.1", got)
	}
}

// TestStratifiedSizeExactAtExactLimit: a level of exactly ExactLimit = 100
// runs still gets the discrete test's own size, which lies strictly below
// α (C(100, 50) arrangements cannot put exactly 5 % of their mass below
// 0.05), not α itself as beyond the limit.
func TestStratifiedSizeExactAtExactLimit(t *testing.T) {
	var x, y []float64
	for i := range 50 {
		x = append(x, float64(2*i))
		y = append(y, float64(2*i+1))
	}
	if got := StratifiedSize([]Stratum{{X: x, Y: y}}, 0.05); !(got > 0.04 && got < 0.05) {
		t.Errorf("size of 50 vs 50 at α = 0.05: %v, want the exact size, in (0.04, 0.05)", got)
	}
	if got := StratifiedSize([]Stratum{{X: append(x, 100), Y: y}}, 0.05); got != 0.05 {
		t.Errorf("size of 51 vs 50 at α = 0.05: %v, want α (normal approximation)", got)
	}
}
