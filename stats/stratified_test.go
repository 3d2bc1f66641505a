package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStratifiedHandWorked pins p-values worked out by hand from the
// permutation distributions.
func TestStratifiedHandWorked(t *testing.T) {
	tests := []struct {
		name   string
		strata []Stratum
		p      float64
		minP   float64
		method string
		used   int
	}{
		// Each 2-vs-2 stratum's rank sum deviates by −2, −1, 0, 0, 1, 2
		// (rank units), each 1/6; both at +2: P(|S| ≥ 4) = 2/36.
		{"two 2v2 strata, separated", []Stratum{{X: []float64{3, 4}, Y: []float64{1, 2}}, {X: []float64{30, 40}, Y: []float64{10, 20}}},
			1.0 / 18, 1.0 / 18, MethodStratifiedExact, 2},
		// 2v2 (weight 1/5) at +2 and 1v2 (weight 1/4) at +1: in doubled
		// units 4·(+4) + 5·(+2) = 26, reached only by both extremes: 2/18.
		{"2v2 and 1v2, both at the top", []Stratum{{X: []float64{3, 4}, Y: []float64{1, 2}}, {X: []float64{9}, Y: []float64{1, 2}}},
			1.0 / 9, 1.0 / 9, MethodStratifiedExact, 2},
		// The same with the 1v2 stratum at the bottom: 4·4 − 5·2 = 6;
		// |4a + 5b| ≥ 6 has probability 14/18.
		{"2v2 at the top, 1v2 at the bottom", []Stratum{{X: []float64{3, 4}, Y: []float64{1, 2}}, {X: []float64{0}, Y: []float64{1, 2}}},
			7.0 / 9, 1.0 / 9, MethodStratifiedExact, 2},
		// One run a level and side: a sign test. 5 of 5 up: 2/32.
		{"sign test, 5 of 5", []Stratum{{X: []float64{2}, Y: []float64{1}}, {X: []float64{5}, Y: []float64{4}}, {X: []float64{7}, Y: []float64{6}},
			{X: []float64{9}, Y: []float64{8}}, {X: []float64{11}, Y: []float64{10}}}, 2.0 / 32, 2.0 / 32, MethodSignTest, 5},
		// 4 up, 1 down: P(up ≥ 4 or up ≤ 1) = 12/32.
		{"sign test, 4 of 5", []Stratum{{X: []float64{2}, Y: []float64{1}}, {X: []float64{5}, Y: []float64{4}}, {X: []float64{7}, Y: []float64{6}},
			{X: []float64{9}, Y: []float64{8}}, {X: []float64{10}, Y: []float64{11}}}, 12.0 / 32, 2.0 / 32, MethodSignTest, 5},
		// A tie carries no evidence and is dropped: 3 of 3 up, P = 2/8.
		{"sign test with a tie", []Stratum{{X: []float64{2}, Y: []float64{1}}, {X: []float64{5}, Y: []float64{4}}, {X: []float64{7}, Y: []float64{6}},
			{X: []float64{9}, Y: []float64{9}}}, 2.0 / 8, 2.0 / 16, MethodSignTest, 3},
		// Ties that make the opposite extreme impossible: only the observed
		// arrangement is as far from the centre, 1/35 (below MinP 2/35).
		{"one stratum with ties", []Stratum{{X: []float64{1, 2, 3}, Y: []float64{4, 4, 5, 6}}}, 1.0 / 35, 2.0 / 35, MethodStratifiedExact, 1},
		{"no variation", []Stratum{{X: []float64{1, 1}, Y: []float64{1, 1}}}, 1, 1.0 / 3, MethodStratifiedExact, 0},
		{"a stratum with one side empty is not used", []Stratum{{X: []float64{3, 4}, Y: []float64{1, 2}}, {X: []float64{5}}},
			1.0 / 3, 1.0 / 3, MethodStratifiedExact, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Stratified(tt.strata)
			if err != nil {
				t.Fatal(err)
			}
			if !(math.Abs(r.P-tt.p) <= 1e-12) || !(math.Abs(r.MinP-tt.minP) <= 1e-12) || r.Method != tt.method || r.Used != tt.used {
				t.Errorf("P %v, MinP %v, %s, %d used; want %v, %v, %s, %d", r.P, r.MinP, r.Method, r.Used, tt.p, tt.minP, tt.method, tt.used)
			}
		})
	}
	if _, err := Stratified([]Stratum{{X: []float64{1}}, {Y: []float64{math.NaN()}}}); err != ErrNoStratum {
		t.Errorf("no stratum on both sides: %v", err)
	}
}

// TestStratifiedOneStratumIsMannWhitney: one stratum gives the exact
// Mann–Whitney p, with and without ties, for random samples.
func TestStratifiedOneStratumIsMannWhitney(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		x := make([]float64, 1+rng.IntN(8))
		y := make([]float64, 1+rng.IntN(8))
		for j := range x {
			x[j] = float64(rng.IntN(6))
		}
		for j := range y {
			y[j] = float64(rng.IntN(6)) + 0.5*float64(i%2)
		}
		s, err := Stratified([]Stratum{{X: x, Y: y}})
		if err != nil {
			t.Fatal(err)
		}
		mw, _ := MannWhitney(x, y)
		if !(math.Abs(s.P-mw.P) <= 1e-12) {
			t.Fatalf("%v vs %v: stratified p %v, Mann–Whitney p %v", x, y, s.P, mw.P)
		}
	}
}

// TestStratifiedNormal: a stratum of more than ExactLimit values takes
// the normal approximation, z from the tie-free variance by hand.
func TestStratifiedNormal(t *testing.T) {
	var x, y []float64
	for i := range 51 {
		x = append(x, float64(i))
		y = append(y, float64(51+i))
	}
	r, err := Stratified([]Stratum{{X: x, Y: y}})
	if err != nil {
		t.Fatal(err)
	}
	// W = 1 + … + 51 = 1326, E = 51·103/2 = 2626.5, Var = 51·51·103/12.
	wantZ := (1326 - 2626.5) / math.Sqrt(51*51*103/12.0)
	if r.Method != MethodStratifiedNormal || !(math.Abs(r.Z-wantZ) <= 1e-9) || !(math.Abs(r.P-math.Erfc(-wantZ/math.Sqrt2)) <= 1e-30) {
		t.Errorf("%s, z %v, p %v; want normal, z %v", r.Method, r.Z, r.P, wantZ)
	}
}

// TestStratifiedNullRate: under the null (all values from one
// distribution) the rejection rate at α = 0.05 stays at or below α plus
// its binomial margin, for three strata of 3 v 3.
func TestStratifiedNullRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const trials = 2000
	rejected := 0
	for range trials {
		var strata []Stratum
		for range 3 {
			var s Stratum
			for range 3 {
				s.X = append(s.X, rng.NormFloat64())
				s.Y = append(s.Y, rng.NormFloat64())
			}
			strata = append(strata, s)
		}
		r, err := Stratified(strata)
		if err != nil {
			t.Fatal(err)
		}
		if r.P < 0.05 {
			rejected++
		}
	}
	rate := float64(rejected) / trials
	margin := 3 * math.Sqrt(0.05*0.95/trials)
	if rate > 0.05+margin {
		t.Errorf("null rejection rate %.4f above 0.05 + %.4f", rate, margin)
	}
	t.Logf("null rejection rate at α = 0.05: %.4f (%d of %d)", rate, rejected, trials)
}

func TestStratifiedRunsNeeded(t *testing.T) {
	tests := []struct {
		alpha  float64
		strata int
		want   int
	}{
		{0.05 / 6, 3, 3},  // 2·(1/6)³ = 0.0093 is not below 0.0083; 2·(1/20)³ is
		{0.05 / 6, 10, 1}, // 2/1024 = 0.00195
		{0.05, 1, 4},      // as RunsNeeded: 2/70
		{0.05, 0, 0},
		{0, 3, 0},
	}
	for _, tt := range tests {
		if got := StratifiedRunsNeeded(tt.alpha, tt.strata); got != tt.want {
			t.Errorf("StratifiedRunsNeeded(%g, %d) = %d, want %d", tt.alpha, tt.strata, got, tt.want)
		}
	}
}

func TestStratifiedSize(t *testing.T) {
	two := func(k int) []Stratum {
		var s []Stratum
		for i := range k {
			s = append(s, Stratum{X: []float64{float64(10*i + 1)}, Y: []float64{float64(10*i + 2)}})
		}
		return s
	}
	four := Stratum{X: []float64{1, 2, 3, 4}, Y: []float64{5, 6, 7, 8}}
	tests := []struct {
		name   string
		strata []Stratum
		alpha  float64
		want   float64
	}{
		// One 4-vs-4 stratum: only the two extremes (2/70) are below 0.05.
		{"4 v 4 at 0.05", []Stratum{four}, 0.05, 2.0 / 70},
		// Sign test over 10 levels at 0.05: 9 or 10 of one sign give
		// p = 22/1024 = 0.0215 and 2/1024; 8 gives 112/1024 = 0.109. So
		// the size is P(9 or 10 of one sign) = 2·(10+1)/1024.
		{"sign test, 10 levels", two(10), 0.05, 22.0 / 1024},
		// Three levels of one run cannot reach 0.05 at all.
		{"sign test, 3 levels", two(3), 0.05, 0},
	}
	for _, tt := range tests {
		if got := StratifiedSize(tt.strata, tt.alpha); !(math.Abs(got-tt.want) <= 1e-12) {
			t.Errorf("%s: size %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestStratifiedTablesInDocs pins docs/compare.md's tables of the gate's
// test: the runs a level and side a finding needs to be able to reach
// α/m at L levels, and the smallest p and real size of one test at K runs
// a side and L levels without ties.
func TestStratifiedTablesInDocs(t *testing.T) {
	needed := map[int][]int{ // m → K at L = 1, 2, 3, 4, 5, 6, 8, 10
		1: {4, 3, 2, 2, 2, 1, 1, 1},
		4: {5, 3, 2, 2, 2, 2, 1, 1},
		5: {5, 3, 2, 2, 2, 2, 1, 1},
		6: {5, 3, 3, 2, 2, 2, 1, 1},
		7: {6, 3, 3, 2, 2, 2, 2, 1},
	}
	levels := []int{1, 2, 3, 4, 5, 6, 8, 10}
	for m, ks := range needed {
		for i, l := range levels {
			if got := StratifiedRunsNeeded(0.05/float64(m), l); got != ks[i] {
				t.Errorf("m = %d, %d levels: %d runs, docs say %d", m, l, got, ks[i])
			}
		}
	}
	sizes := []struct {
		k, l              int
		minP, size, size6 float64
	}{
		{1, 1, 1, 0, 0},
		{1, 3, 0.25, 0, 0},
		{1, 8, 0.00781, 0.00781, 0.00781},
		{1, 10, 0.00195, 0.0215, 0.00195},
		{3, 1, 0.1, 0, 0},
		{3, 3, 0.00025, 0.0410, 0.00325},
		{3, 10, 1.95e-13, 0.0446, 0.00641},
		{4, 1, 0.0286, 0.0286, 0},
		{5, 1, 0.00794, 0.0317, 0.00794},
		{5, 3, 1.25e-7, 0.0389, 0.00653},
		{5, 10, 1.94e-24, 0.0435, 0.00706},
	}
	near := func(got, want float64) bool { return got == want || math.Abs(got-want) <= 0.005*want }
	for _, tt := range sizes {
		var strata []Stratum
		for range tt.l {
			var x, y []float64
			for i := range tt.k {
				x, y = append(x, float64(2*i)), append(y, float64(2*i+1))
			}
			strata = append(strata, Stratum{X: x, Y: y})
		}
		r, err := Stratified(strata)
		if err != nil {
			t.Fatal(err)
		}
		size, size6 := StratifiedSize(strata, 0.05), StratifiedSize(strata, 0.05/6)
		if !near(r.MinP, tt.minP) || !near(size, tt.size) || !near(size6, tt.size6) {
			t.Errorf("%d runs × %d levels: smallest p %.3g, size %.3g at 0.05 and %.3g at 0.05/6; docs say %.3g, %.3g, %.3g",
				tt.k, tt.l, r.MinP, size, size6, tt.minP, tt.size, tt.size6)
		}
	}
}

// TestStratifiedZWeightsBySize: each stratum's deviation is weighted by
// 1/(n+1), its variance by the square. X above Y in both strata:
// x = 3 4, y = 1 2 (n = 4): W − E[W] = 7 − 5 = 2, variance 2·2·5/12 = 5/3,
// weight 1/5; x = 2, y = 1 (n = 2): 2 − 1.5 = 0.5, variance 1·1·3/12 =
// 1/4, weight 1/3. Z = (2/5 + 0.5/3) / √((5/3)/25 + (1/4)/9) =
// (17/30) / √(17/180) = √3.4.
func TestStratifiedZWeightsBySize(t *testing.T) {
	res, err := Stratified([]Stratum{{X: []float64{3, 4}, Y: []float64{1, 2}}, {X: []float64{2}, Y: []float64{1}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(3.4); !(math.Abs(res.Z-want) <= 1e-15) {
		t.Errorf("Z = %.17g, want √3.4 = %.17g", res.Z, want)
	}
}

// TestStratifiedSizeSkipsOneSidedStrata: a stratum with no value on one
// side tells nothing and is left out, however large: 3 vs 3 values alone
// cannot reach p < 0.1 (their smallest p is 2/20 = 0.1), so the size is 0,
// not the α of a stratum past ExactLimit.
func TestStratifiedSizeSkipsOneSidedStrata(t *testing.T) {
	var many []float64
	for i := 1; i <= ExactLimit+1; i++ {
		many = append(many, float64(i))
	}
	three := Stratum{X: []float64{1, 2, 3}, Y: []float64{4, 5, 6}}
	for _, one := range []Stratum{{X: many}, {Y: many}} {
		if got := StratifiedSize([]Stratum{three, one}, 0.1); got != 0 {
			t.Errorf("with a stratum of %d values on one side: size %v, want 0", len(many), got)
		}
	}
}
