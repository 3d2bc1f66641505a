package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func TestStableOrderByKey(t *testing.T) {
	tests := []struct {
		name string
		keys []float64
		want []int
	}{
		{"empty", nil, []int{}},
		{"sorted", []float64{1, 2, 2, 3}, []int{0, 1, 2, 3}},
		{"reversed", []float64{3, 2, 1}, []int{2, 1, 0}},
		{"ties keep file order", []float64{5, 1, 5, 1, 5}, []int{1, 3, 0, 2, 4}},
		{"neighbours swapped", []float64{1790000000.000459, 1790000000.000458, 1790000000.5, 1790000000.4}, []int{1, 0, 3, 2}},
		{"zero signs tie", []float64{0, math.Copysign(0, -1), -1}, []int{2, 0, 1}},
		{"negative and positive", []float64{-0.5, 2, -3, 1e-300, math.Inf(1), math.Inf(-1)}, []int{5, 2, 0, 3, 1, 4}},
		{"all equal", []float64{7, 7, 7}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stableOrderByKey(tt.keys); !slices.Equal(got, tt.want) {
				t.Errorf("stableOrderByKey(%v) = %v, want %v", tt.keys, got, tt.want)
			}
		})
	}
}

// TestStableOrderByKeyMatchesStableSort compares the radix sort with the
// standard library's stable sort on send times with ties and reorderings.
func TestStableOrderByKeyMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 17, 1000, 100_000} {
		keys := make([]float64, n)
		for i := range keys {
			keys[i] = 1.79e9 + float64(i)*0.01 + float64(rng.IntN(50))*0.001
			if rng.IntN(10) == 0 && i > 0 {
				keys[i] = keys[i-1] // a tie
			}
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool { return keys[want[a]] < keys[want[b]] })
		if got := stableOrderByKey(keys); !slices.Equal(got, want) {
			t.Errorf("n = %d: radix order differs from sort.SliceStable", n)
		}
	}
}
