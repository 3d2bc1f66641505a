package stats

import (
	"math"
	"sort"
)

// Holm returns Holm's step-down adjusted p-values, in the order of ps.
// With the m p-values sorted ascending, p(1) ≤ … ≤ p(m), the adjusted
// value of p(i) is max over j ≤ i of min(1, (m − j + 1)·p(j)); rejecting
// every hypothesis whose adjusted p is below α keeps the probability of
// any false rejection among the m at or below α. NaN entries are not
// tests: they are left NaN and do not count in m. Equal p-values keep
// their input order, so the result never depends on sorting.
func Holm(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var idx []int
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		adj := math.Min(1, float64(m-j)*ps[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// RangesOverlap reports whether the ranges [min x, max x] and [min y, max y]
// share at least one point. It is a description of the data, not a test:
// two ranges of three runs each can fail to overlap by chance about one
// time in ten. NaN values are ignored; an empty sample overlaps nothing.
func RangesOverlap(x, y []float64) bool {
	x, y = finite(x), finite(y)
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	xl, xh := extent(x)
	yl, yh := extent(y)
	return xl <= yh && yl <= xh
}

func extent(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, v := range xs[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}
