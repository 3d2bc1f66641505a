package analyze

import "math"

// This file implements Pettitt's rank test for one change in location
// (A. N. Pettitt, "A non-parametric approach to the change-point problem",
// Applied Statistics 28(2), 1979, 126–135) and the warm-up rule built on it.
//
// For a series x₁ … x_N, Pettitt's statistic for a change after position t is
//
//	U_t = Σ_{i≤t} Σ_{j>t} sgn(x_i − x_j),   t = 1 … N−1,
//
// the Mann–Whitney statistic of the first t values against the rest. With
// r_i the rank of x_i among all N values (tied values share their mid-rank)
// it equals
//
//	U_t = 2·Σ_{i≤t} r_i − t·(N+1),
//
// which is how it is computed here: one sort for the ranks, then a running
// sum, O(N log N) in all. U_t > 0 says the first t values tend to be larger
// (slower) than the rest. Pettitt's one-sided statistic for that direction is
// K⁺ = max_t U_t, with the approximate significance probability
//
//	p ≈ exp(−6·K⁺² / (N³ + N²)),
//
// and the change point is the t where the maximum is reached. (The
// two-sided test uses K = max_t |U_t| and p ≈ 2·exp(−6K²/(N³+N²)); warm-up
// is one-sided by definition, so the one-sided form is used.) Pettitt notes
// the approximation is good for p ≤ 0.5, the only region that matters here.

// PettittTest is the outcome of Pettitt's one-sided test on one series.
type PettittTest struct {
	// N is the length of the series tested.
	N int
	// ChangePoint is τ, the number of leading values in the first segment:
	// the first t ≤ MaxT where U_t reaches K. It is 0 when no U_t is
	// positive.
	ChangePoint int
	// K is K⁺ = max U_t over 1 ≤ t ≤ MaxT (0 when every U_t ≤ 0).
	K float64
	// P approximates the probability of a K at least this large when the
	// series has no change: exp(−6K²/(N³+N²)).
	P float64
}

// PettittU returns Pettitt's U_t for t = 1 … N−1 (u[t−1] = U_t), from the
// mid-ranks of xs. It returns nil for fewer than two values.
func PettittU(xs []float64) []float64 {
	if len(xs) < 2 {
		return nil
	}
	order := rankOrder(xs)
	twiceRank := make([]int64, len(xs))
	midRanks(xs, order, twiceRank)
	return uFromRanks(twiceRank)
}

// Pettitt runs the one-sided test on xs, looking for the change point only
// among t = 1 … maxT (maxT ≤ 0 or ≥ N means every t).
func Pettitt(xs []float64, maxT int) PettittTest {
	return pettittFromU(PettittU(xs), len(xs), maxT)
}

// pettittFromU finds K⁺ and τ in u (U_t for t = 1 … n−1) over t ≤ maxT.
func pettittFromU(u []float64, n, maxT int) PettittTest {
	t := PettittTest{N: n, P: 1}
	if maxT <= 0 || maxT > len(u) {
		maxT = len(u)
	}
	for i := 0; i < maxT; i++ {
		if u[i] > t.K {
			t.K, t.ChangePoint = u[i], i+1
		}
	}
	t.P = pettittP(t.K, n)
	return t
}

// pettittP is Pettitt's approximation exp(−6K²/(N³+N²)), capped at 1.
func pettittP(k float64, n int) float64 {
	if k <= 0 || n < 2 {
		return 1
	}
	nf := float64(n)
	return math.Min(1, math.Exp(-6*k*k/(nf*nf*nf+nf*nf)))
}

// pettittCritical is the K⁺ at which the approximate p equals alpha.
func pettittCritical(alpha float64, n int) float64 {
	nf := float64(n)
	return math.Sqrt(-math.Log(alpha) * (nf*nf*nf + nf*nf) / 6)
}

// rankOrder returns the indices of xs sorted by value, ties in index
// order. It is a least-significant-digit radix sort (11-bit digits) of the
// float64 values mapped to order-preserving uint64 keys, so it is stable
// and takes a few passes over the data instead of a comparison sort's
// N log N calls; passes whose digit is the same for every key are skipped
// (latencies share their sign and most exponent bits). NaN never reaches
// it: ingest refuses NaN latencies.
func rankOrder(xs []float64) []int32 {
	n := len(xs)
	keys, order := make([]uint64, n), make([]int32, n)
	for i, x := range xs {
		b := math.Float64bits(x)
		if b>>63 == 0 {
			b |= 1 << 63 // non-negative: above every negative
		} else {
			b = ^b // negative: larger magnitude sorts first
		}
		keys[i], order[i] = b, int32(i)
	}
	const bits = 11
	var count [1 << bits]int
	tmpKeys, tmpOrder := make([]uint64, n), make([]int32, n)
	for shift := uint(0); shift < 64; shift += bits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(1<<bits-1)]++
		}
		if n == 0 || count[(keys[0]>>shift)&(1<<bits-1)] == n {
			continue
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for j, k := range keys {
			d := (k >> shift) & (1<<bits - 1)
			tmpKeys[count[d]], tmpOrder[count[d]] = k, order[j]
			count[d]++
		}
		keys, tmpKeys = tmpKeys, keys
		order, tmpOrder = tmpOrder, order
	}
	return order
}

// midRanks writes twice the mid-rank of each value of xs into twiceRank,
// given order, the indices of xs sorted by value. Twice the mid-rank is an
// integer: a tie occupying sorted positions a+1 … b has mid-rank (a+1+b)/2.
func midRanks(xs []float64, order []int32, twiceRank []int64) {
	for a := 0; a < len(order); {
		b := a + 1
		for b < len(order) && xs[order[b]] == xs[order[a]] {
			b++
		}
		r := int64(a + 1 + b)
		for _, i := range order[a:b] {
			twiceRank[i] = r
		}
		a = b
	}
}

// uFromRanks turns twice the ranks into U_t = 2·Σ_{i≤t} r_i − t(N+1),
// t = 1 … N−1. Every term is an integer, so the sums are exact.
func uFromRanks(twiceRank []int64) []float64 {
	n := int64(len(twiceRank))
	u := make([]float64, n-1)
	var sum int64
	for t := int64(1); t < n; t++ {
		sum += twiceRank[t-1]
		u[t-1] = float64(sum - t*(n+1))
	}
	return u
}

// Bounds of the change-point warm-up rule.
const (
	// ChangePointHorizon is the longest prefix of a run the rule looks at:
	// warm-up is sought in the first 32,768 values, so a slow phase longer
	// than 16,384 values (half the horizon) is not found. It bounds the
	// rule's cost on long runs: one sort of at most this many values.
	ChangePointHorizon = 1 << 15
	// ChangePointMinPrefix is the shortest prefix tested: below 20 values
	// even a complete separation is not significant at α = 0.01.
	ChangePointMinPrefix = 20
)

// ChangePointResult is the change-point rule's verdict on one series.
type ChangePointResult struct {
	// Cut is the number of leading values that are warm-up (0 when none).
	Cut int
	// Significant says the most significant prefix passed α/Tests.
	Significant bool
	// Tests is m, the number of prefixes tested (0 when the series is
	// shorter than ChangePointMinPrefix).
	Tests int
	// Threshold is α/m, the level each prefix is tested at.
	Threshold float64
	// Detection is Pettitt's test on the most significant prefix (smallest
	// p; the longer prefix on a tie); Detection.N is the prefix length.
	Detection PettittTest
	// U holds U_t of the detection prefix, t = 1 … Detection.N−1.
	U []float64
	// Critical is the K⁺ at which the detection prefix reaches Threshold,
	// √(−ln(α/m)·(L³+L²)/6): U_t/Critical ≥ 1 marks significance.
	Critical float64
	// Located is the change point found when the test is significant
	// (step 4 below), 0 otherwise.
	Located int
	// Slowdown is median(x[:Located]) / median(x[Located:L]) − 1, how much
	// slower the early part is (NaN when the test is not significant).
	Slowdown float64
}

// ChangePointCut applies the warm-up rule built on Pettitt's test to one
// series in send order, at family-wise level alpha, with the smallest
// slowdown that counts as warm-up minSlowdown:
//
//  1. Prefixes. With L₀ = min(N, ChangePointHorizon), the prefixes of
//     length L₀, ⌊L₀/2⌋, ⌊L₀/4⌋, … down to ChangePointMinPrefix are tested
//     (m of them). A single test over a long run cannot see a short
//     warm-up: U_τ grows like τ·N while its null spread grows like N^1.5.
//  2. Test. On each prefix of length L, the one-sided statistic
//     K⁺ = max U_t over t ≤ L/2 (the change must lie in the first half,
//     and the early segment must be the slower) and its p.
//  3. Decide. The prefix with the smallest p is the detection; it is
//     significant when p ≤ α/m (Bonferroni, so α bounds, as far as
//     Pettitt's approximation holds, the chance of cutting a series that
//     has no warm-up; a run's TTFT and TPOT are two series, so a run
//     without warm-up is cut with a chance of at most about 2α). Otherwise
//     nothing is cut.
//  4. Locate. The detection's change point τ̂ is refined to the t ≤ τ̂
//     maximising U_t over the first 2τ̂ values (τ̂ itself when no U_t there
//     is positive): on a long prefix U_t wanders past a short warm-up (the
//     estimate overshoots), and the shorter prefix locates it within a
//     request or two.
//  5. Size. The cut is made only when the early part's median is at least
//     minSlowdown (relative) above the median of the rest of the prefix:
//     on a very steady series a rank test finds drifts of a fraction of a
//     percent, which are no warm-up worth discarding requests for.
//
// The rule sorts at most L₀ values once; every prefix's ranks come from
// that order, so it runs in O(L₀ log L₀).
func ChangePointCut(xs []float64, alpha, minSlowdown float64) ChangePointResult {
	n := min(len(xs), ChangePointHorizon)
	res := ChangePointResult{Detection: PettittTest{P: 1}, Slowdown: math.NaN()}
	var lengths []int
	for l := n; l >= ChangePointMinPrefix; l /= 2 {
		lengths = append(lengths, l)
	}
	if len(lengths) == 0 || !(alpha > 0) {
		return res
	}
	res.Tests = len(lengths)
	res.Threshold = alpha / float64(len(lengths))
	full := rankOrder(xs[:n])
	buf := make([]int32, n)
	order := full
	twiceRank := make([]int64, n)
	for _, l := range lengths {
		order = prefixOrder(buf, order, l)
		midRanks(xs, order, twiceRank[:l])
		u := uFromRanks(twiceRank[:l])
		t := pettittFromU(u, l, l/2)
		if res.U == nil || t.P < res.Detection.P {
			res.Detection, res.U = t, u
		}
	}
	l := res.Detection.N
	res.Critical = pettittCritical(res.Threshold, l)
	res.Significant = res.Detection.ChangePoint > 0 && res.Detection.P <= res.Threshold
	if !res.Significant {
		return res
	}
	tau := res.Detection.ChangePoint
	order = prefixOrder(buf, full, 2*tau)
	midRanks(xs, order, twiceRank[:2*tau])
	res.Located = tau
	if t := pettittFromU(uFromRanks(twiceRank[:2*tau]), 2*tau, tau); t.ChangePoint > 0 {
		res.Located = t.ChangePoint
	}
	order = prefixOrder(buf, full, l)
	res.Slowdown = sortedMedian(xs, order, 0, res.Located)/sortedMedian(xs, order, res.Located, l) - 1
	if res.Slowdown >= minSlowdown {
		res.Cut = res.Located
	}
	return res
}

// sortedMedian is the median of xs[lo:hi], given order, the indices of a
// prefix of xs holding it, sorted by value: O(len(order)), no sort.
func sortedMedian(xs []float64, order []int32, lo, hi int) float64 {
	n := hi - lo
	if n <= 0 {
		return math.NaN()
	}
	k := 0
	var below float64
	for _, i := range order {
		if int(i) < lo || int(i) >= hi {
			continue
		}
		switch {
		case n%2 == 1 && k == n/2:
			return xs[i]
		case n%2 == 0 && k == n/2-1:
			below = xs[i]
		case n%2 == 0 && k == n/2:
			return (below + xs[i]) / 2
		}
		k++
	}
	return math.NaN()
}

// prefixOrder writes into dst, in order, the indices of order below l and
// returns them: the sorted order of a prefix follows from the sorted order
// of any longer one. dst may be order itself.
func prefixOrder(dst, order []int32, l int) []int32 {
	if len(order) == l {
		return order
	}
	w := 0
	for _, i := range order {
		if int(i) < l {
			dst[w] = i
			w++
		}
	}
	return dst[:w]
}
