package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// The expected U and p below are worked out by hand from the rank-sum
// distribution of the smaller sample: every subset of the pooled (mid-)ranks
// of that size is equally likely, and p counts the subsets whose sum lies at
// least as far from its mean as the observed one.
func TestMannWhitneyHandComputed(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64
		u, p    float64
		minP    float64
		ties    bool
		noVar   bool
		wantErr error
	}{
		// 3 of {1..6}: 20 subsets, rank sums 6..15. W = 6 is the lowest of
		// them; the mean is 10.5, so only W = 6 and W = 15 are as extreme.
		{name: "3 vs 3 separated: the floor", x: []float64{1, 2, 3}, y: []float64{4, 5, 6}, u: 0, p: 2.0 / 20, minP: 0.1},
		{name: "3 vs 3 reversed", x: []float64{40, 50, 60}, y: []float64{1, 2, 3}, u: 9, p: 0.1, minP: 0.1},
		// W = 1+2+4 = 7: sums ≤ 7 (6, 7) and ≥ 14 (14, 15) are one subset each.
		{name: "3 vs 3 one swap", x: []float64{1, 2, 4}, y: []float64{3, 5, 6}, u: 1, p: 4.0 / 20, minP: 0.1},
		// Pooled 1,2,2,2,3,3 → mid-ranks 1, 3,3,3, 5.5,5.5; W(x) = 1+3+3 = 7,
		// mean 10.5. Subsets by (#rank1, #rank3, #rank5.5): (1,2,0) sum 7 ×3,
		// (0,1,2) sum 14 ×3; the other 14 lie closer. p = 6/20.
		{name: "ties across samples", x: []float64{1, 2, 2}, y: []float64{2, 3, 3}, u: 1, p: 6.0 / 20, minP: 0.1, ties: true},
		// Mid-ranks 2,2,2 and 5,5,5: only the two pure subsets are as extreme.
		{name: "ties within samples, separated", x: []float64{1, 1, 1}, y: []float64{2, 2, 2}, u: 0, p: 2.0 / 20, minP: 0.1, ties: true},
		// Pooled 1,1,2,3 | 3,4,4 → mid-ranks 1.5,1.5, 3, 4.5,4.5, 6.5,6.5;
		// W(x) = 1.5+1.5+3+4.5 = 10.5 against a mean of 16 (U = 0.5: the
		// tied 3s). Of the C(7, 4) = 35 subsets, W ≤ 10.5 only for
		// {1.5,1.5,3,4.5} (2 ways: either 4.5) and W ≥ 21.5 only for
		// {4.5,4.5,6.5,6.5} (1 way): the tails differ, p = 3/35.
		{name: "4 vs 3 with ties, unequal tails", x: []float64{1, 1, 2, 3}, y: []float64{3, 4, 4}, u: 0.5, p: 3.0 / 35, minP: 2.0 / 35, ties: true},
		// 4 vs 4: 70 subsets; the two extremes give 2/70.
		{name: "4 vs 4 separated", x: []float64{1, 2, 3, 4}, y: []float64{5, 6, 7, 8}, u: 0, p: 2.0 / 70, minP: 2.0 / 70},
		// 2 of {1..5}: sums 3..9, mean 6; W = 9 and W = 3 are one subset each.
		{name: "2 vs 3", x: []float64{10, 20}, y: []float64{1, 2, 3}, u: 6, p: 2.0 / 10, minP: 0.2},
		{name: "3 vs 2 (smaller sample second)", x: []float64{1, 2, 3}, y: []float64{10, 20}, u: 0, p: 0.2, minP: 0.2},
		// NaN values are not runs.
		{name: "NaN dropped", x: []float64{1, math.NaN(), 2, 3}, y: []float64{4, 5, 6}, u: 0, p: 0.1, minP: 0.1},
		{name: "no variation", x: []float64{7, 7, 7}, y: []float64{7, 7, 7}, u: 4.5, p: 1, minP: 0.1, ties: true, noVar: true},
		{name: "1 vs 1", x: []float64{1}, y: []float64{2}, u: 0, p: 1, minP: 1},
		{name: "empty sample", x: []float64{math.NaN()}, y: []float64{1}, wantErr: ErrEmptySample},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MannWhitney(tt.x, tt.y)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.U != tt.u || !(math.Abs(got.P-tt.p) <= 1e-12) || !(math.Abs(got.MinP-tt.minP) <= 1e-12) ||
				got.Ties != tt.ties || got.NoVariation != tt.noVar || got.Method != MethodExact {
				t.Errorf("got U %v p %v minP %v ties %v noVar %v method %q; want U %v p %v minP %v ties %v noVar %v exact",
					got.U, got.P, got.MinP, got.Ties, got.NoVariation, got.Method, tt.u, tt.p, tt.minP, tt.ties, tt.noVar)
			}
		})
	}
}

// bruteForceP enumerates every way of choosing which len(x) of the pooled
// values belong to x and counts the rank sums at least as extreme.
func bruteForceP(x, y []float64) float64 {
	all := append(append([]float64{}, x...), y...)
	n := len(all)
	sorted := append([]float64{}, all...)
	sort.Float64s(sorted)
	midrank := func(v float64) float64 {
		lo := sort.SearchFloat64s(sorted, v)
		hi := lo
		for hi < n && sorted[hi] == v {
			hi++
		}
		return float64(lo+1+hi) / 2
	}
	ranks := make([]float64, n)
	for i, v := range all {
		ranks[i] = midrank(v)
	}
	obs := 0.0
	for i := range x {
		obs += ranks[i]
	}
	mean := float64(len(x)) * float64(n+1) / 2
	var extreme, total int
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != len(x) {
			continue
		}
		s := 0.0
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				s += ranks[i]
			}
		}
		total++
		if math.Abs(s-mean) >= math.Abs(obs-mean)-1e-9 {
			extreme++
		}
	}
	return float64(extreme) / float64(total)
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

func TestMannWhitneyMatchesEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for trial := 0; trial < 300; trial++ {
		n1, n2 := 1+r.IntN(7), 1+r.IntN(7)
		x, y := make([]float64, n1), make([]float64, n2)
		// Few distinct values, so ties are common.
		for i := range x {
			x[i] = float64(r.IntN(6))
		}
		for i := range y {
			y[i] = float64(r.IntN(6) + r.IntN(2))
		}
		got, err := MannWhitney(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if got.NoVariation {
			continue
		}
		if want := bruteForceP(x, y); !(math.Abs(got.P-want) <= 1e-12) {
			t.Fatalf("x %v y %v: p %v, enumeration gives %v", x, y, got.P, want)
		}
	}
}

func TestMannWhitneyNormalAboveExactLimit(t *testing.T) {
	var x, y []float64
	for i := 0; i < 60; i++ {
		x = append(x, float64(i))
		y = append(y, float64(i)+0.5)
	}
	got, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got.Method != MethodNormal {
		t.Fatalf("method %q for n = 120, want the normal approximation", got.Method)
	}
	// Interleaved samples: U = 60·59/2 = 1770 against a mean of 1800;
	// variance 60·60·121/12 = 36300, z = (30 − 0.5)/190.53 = 0.1548.
	if got.U != 1770 || !(math.Abs(got.P-0.8770) <= 5e-4) {
		t.Errorf("U %v p %v, want 1770 and about 0.877", got.U, got.P)
	}
}

func TestExactAndNormalAgreeAtModerateSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, 30), make([]float64, 30)
	for i := range x {
		x[i] = r.NormFloat64()
		y[i] = r.NormFloat64() + 0.6
	}
	got, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	u := got.U
	dev := math.Abs(u - 450)
	approx := normalP(dev, 30, 30, 0)
	if !(math.Abs(got.P-approx) <= 0.01) {
		t.Errorf("exact p %v and normal p %v differ by more than 0.01", got.P, approx)
	}
}

func TestMinPAndRunsNeeded(t *testing.T) {
	minP := []struct {
		n1, n2 int
		want   float64
	}{
		{3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {3, 10, 2.0 / 286}, {1, 1, 1}, {0, 3, 1},
	}
	for _, tt := range minP {
		if got := MinP(tt.n1, tt.n2); !(math.Abs(got-tt.want) <= 1e-15) {
			t.Errorf("MinP(%d, %d) = %v, want %v", tt.n1, tt.n2, got, tt.want)
		}
	}
	needed := []struct {
		alpha float64
		want  int
	}{
		{0.05, 4},      // 3 vs 3 gives at best 0.10; 4 vs 4 gives 0.029
		{0.10, 4},      // p must be below α: 0.10 is not
		{0.05 / 2, 5},  // Holm over 2 tests: 0.029 ≥ 0.025, 5 vs 5 gives 0.0079
		{0.05 / 10, 6}, // 0.0079 ≥ 0.005; 6 vs 6 gives 2/924 = 0.0022
		{0.05 / 66, 7}, // 0.00076: 2/924 is not below, 2/3432 = 0.00058 is
		{0, 0},
	}
	for _, tt := range needed {
		if got := RunsNeeded(tt.alpha); got != tt.want {
			t.Errorf("RunsNeeded(%v) = %d, want %d", tt.alpha, got, tt.want)
		}
	}
}

// TestRunsNeededTable pins the table of docs/compare.md: runs per side
// needed under Holm over m tests at α = 0.05, and the floor at K vs K.
func TestRunsNeededTable(t *testing.T) {
	table := []struct {
		m, k  int
		floor float64
	}{
		{1, 4, 0.0286}, {2, 5, 0.00794}, {3, 5, 0.00794}, {5, 5, 0.00794}, {10, 6, 0.00216}, {14, 6, 0.00216},
		{20, 6, 0.00216}, {42, 7, 0.000583}, {66, 7, 0.000583}, {100, 8, 0.000155}, {200, 8, 0.000155}, {500, 9, 4.11e-05},
	}
	for _, row := range table {
		k := RunsNeeded(0.05 / float64(row.m))
		floor := MinP(k, k)
		if k != row.k || math.Abs(floor-row.floor)/row.floor > 0.005 {
			t.Errorf("m = %d: K = %d (floor %.3g), docs say %d (%.3g)", row.m, k, floor, row.k, row.floor)
		}
	}
}

func TestHolm(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		ps   []float64
		want []float64
	}{
		// Sorted 0.005, 0.01, 0.03, 0.04 → 4·0.005, 3·0.01, 2·0.03, max(0.06, 0.04).
		{"step-down", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"NaN is not a test", []float64{nan, 0.02, 0.5}, []float64{nan, 0.04, 0.5}},
		{"capped at 1", []float64{0.6, 0.7}, []float64{1, 1}},
		{"single", []float64{0.2}, []float64{0.2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Holm(tt.ps)
			for i := range tt.want {
				if math.IsNaN(tt.want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(got[i]) && !(math.Abs(got[i]-tt.want[i]) <= 1e-12)) {
					t.Fatalf("Holm(%v) = %v, want %v", tt.ps, got, tt.want)
				}
			}
		})
	}
}

func TestRangesOverlap(t *testing.T) {
	tests := []struct {
		x, y []float64
		want bool
	}{
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, false},
		{[]float64{1, 2, 4}, []float64{4, 5, 6}, true},
		{[]float64{1, 9}, []float64{4, 5}, true},
		{[]float64{math.NaN()}, []float64{1}, false},
	}
	for _, tt := range tests {
		if got := RangesOverlap(tt.x, tt.y); got != tt.want {
			t.Errorf("RangesOverlap(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

func BenchmarkMannWhitneyExact(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, 10), make([]float64, 10)
	for i := range x {
		x[i], y[i] = r.Float64(), r.Float64()
	}
	for b.Loop() {
		MannWhitney(x, y)
	}
}
