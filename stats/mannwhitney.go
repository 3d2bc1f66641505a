// Package stats holds the inferential statistics that compare and history
// apply to per-run values: the exact two-sided Mann–Whitney U test with
// ties, its stratified form across load levels (van Elteren's test, which
// is the sign test with one run a level), the smallest p-value given
// sample sizes can give without ties, the number of runs per side needed
// to reach a significance level, and the Holm step-down correction for
// many tests at once.
//
// Everything here is pure computation on float64 slices. Runs are the
// independent unit the callers feed in, never requests; nothing here
// knows what the values measure.
package stats

import (
	"errors"
	"math"
	"sort"
	"sync"
)

// ExactLimit is the largest combined sample size n1+n2 for which
// MannWhitney enumerates the exact permutation distribution. Above it the
// p-value comes from the normal approximation with tie and continuity
// corrections, and the result says so.
const ExactLimit = 100

// Test methods reported in MannWhitneyResult.Method.
const (
	MethodExact  = "exact"
	MethodNormal = "normal approximation (tie- and continuity-corrected)"
)

// MannWhitneyResult is the outcome of a two-sided Mann–Whitney U test.
type MannWhitneyResult struct {
	// N1 and N2 are the sample sizes (NaN values are not counted).
	N1, N2 int
	// U is the Mann–Whitney statistic of the first sample: the number of
	// pairs (x, y) with x > y, ties counting one half. U + U' = N1·N2.
	U float64
	// P is the two-sided p-value: the probability, under the permutation
	// distribution conditional on the observed ties, of a rank sum at
	// least as far from its expectation as the one observed.
	P float64
	// MinP is the smallest two-sided p-value any data without ties could
	// give at these sample sizes: 2 / C(N1+N2, N1), capped at 1.
	MinP float64
	// NoVariation is set when every value of both samples is equal: there
	// is nothing to rank and P is not a meaningful 1.
	NoVariation bool
	// Ties is set when some values are shared between or within samples.
	Ties bool
	// Method is MethodExact or MethodNormal.
	Method string
}

// ErrEmptySample is returned when a sample has no finite value.
var ErrEmptySample = errors.New("stats: a sample has no finite value")

// MannWhitney runs the two-sided Mann–Whitney U test of x against y. NaN
// values are dropped first; ±Inf values rank as the extremes. Ties get
// mid-ranks and the null distribution is the exact distribution of the
// rank sum of x over all C(n1+n2, n1) equally likely assignments of the
// observed (tied) ranks, so the test stays exact with ties. Above
// ExactLimit values in total the normal approximation is used.
func MannWhitney(x, y []float64) (MannWhitneyResult, error) {
	x, y = finite(x), finite(y)
	n1, n2 := len(x), len(y)
	res := MannWhitneyResult{N1: n1, N2: n2, P: math.NaN(), U: math.NaN(), Method: MethodExact}
	if n1 == 0 || n2 == 0 {
		return res, ErrEmptySample
	}
	res.MinP = MinP(n1, n2)
	n := n1 + n2
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	// Doubled mid-ranks are integers: a tie group over ranks a..b gets a+b.
	ranks2 := make([]int, n)
	w2 := 0 // doubled rank sum of x
	var tieTerm float64
	for i := 0; i < n; {
		j := i
		for j+1 < n && all[j+1].v == all[i].v {
			j++
		}
		r2 := (i + 1) + (j + 1)
		t := float64(j - i + 1)
		if t > 1 {
			res.Ties = true
			tieTerm += t*t*t - t
		}
		for k := i; k <= j; k++ {
			ranks2[k] = r2
			if all[k].first {
				w2 += r2
			}
		}
		i = j + 1
	}
	// U = W − n1(n1+1)/2, with W = w2/2.
	res.U = float64(w2-n1*(n1+1)) / 2
	if all[0].v == all[n-1].v {
		res.NoVariation = true
		res.P = 1
		return res, nil
	}
	center2 := n1 * (n + 1) // 2·E[W]
	dev := abs(w2 - center2)
	if n > ExactLimit {
		res.Method = MethodNormal
		res.P = normalP(float64(dev)/2, n1, n2, tieTerm)
		return res, nil
	}
	res.P = exactP(ranks2, n1, n2, center2, dev)
	return res, nil
}

// exactP returns P(|2W − center2| ≥ dev) when n1 of the doubled ranks are
// drawn without replacement, all subsets equally likely. It counts subsets
// by their rank sum with a knapsack over the smaller sample's size; the
// statistic is symmetric in which sample is called x, so the smaller one
// is used (its deviation is the same up to sign).
func exactP(ranks2 []int, n1, n2, center2, dev int) float64 {
	k := n1
	if n2 < n1 {
		k = n2
		center2 = n2 * (n1 + n2 + 1)
	}
	buf := scratch.Get().(*[]float64)
	defer scratch.Put(buf)
	row := subsetSums(ranks2, k, buf)
	var extreme, total float64
	for s, c := range row {
		if c == 0 {
			continue
		}
		total += c
		if abs(s-center2) >= dev {
			extreme += c
		}
	}
	return math.Min(1, extreme/total)
}

// subsetSums counts the k-subsets of ranks2 (ascending doubled ranks) by
// their sum: row[s] is the number of subsets summing to s. buf, when not
// nil, lends the table's memory. It is a knapsack over the subset size.
func subsetSums(ranks2 []int, k int, buf *[]float64) []float64 {
	maxSum := 0
	for i := len(ranks2) - k; i < len(ranks2); i++ {
		maxSum += ranks2[i]
	}
	// counts[j][s]: number of j-subsets of the ranks seen so far with
	// doubled sum s; hi[j] is the largest such s so far (ranks ascend, so
	// the newest rank always extends it).
	width := maxSum + 1
	var counts []float64
	if buf != nil {
		if cap(*buf) < (k+1)*width {
			*buf = make([]float64, (k+1)*width)
		}
		counts = (*buf)[:(k+1)*width]
		clear(counts)
	} else {
		counts = make([]float64, (k+1)*width)
	}
	hi := make([]int, k+1)
	counts[0] = 1
	for i, r := range ranks2 {
		for j := min(i+1, k); j >= 1; j-- {
			prev, cur := counts[(j-1)*width:j*width], counts[j*width:(j+1)*width]
			top := min(hi[j-1], maxSum-r)
			for s := top; s >= 0; s-- {
				if c := prev[s]; c != 0 {
					cur[s+r] += c
				}
			}
			hi[j] = max(hi[j], top+r)
		}
	}
	return counts[k*width:]
}

// scratch holds the count tables of exactP between calls: a test runs
// thousands of times in a history, and the table is the whole allocation.
var scratch = sync.Pool{New: func() any { return new([]float64) }}

// normalP is the two-sided p of |W − E[W]| = dev under the normal
// approximation with the tie correction of the variance and a continuity
// correction of one half.
func normalP(dev float64, n1, n2 int, tieTerm float64) float64 {
	n := float64(n1 + n2)
	v := float64(n1) * float64(n2) / 12 * ((n + 1) - tieTerm/(n*(n-1)))
	if v <= 0 {
		return 1
	}
	z := (dev - 0.5) / math.Sqrt(v)
	if z < 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// MinP returns the smallest two-sided p-value the exact test can give for
// samples of n1 and n2 values without ties: both extreme arrangements out
// of C(n1+n2, n1), so 2 / C(n1+n2, n1), capped at 1. For 3 vs 3 it is
// 2/20 = 0.10, for 4 vs 4 it is 2/70 ≈ 0.029. With ties the p-value can
// fall below it: when the tied values leave only one arrangement as far
// from the centre as the observed one, p is 1 / C(n1+n2, n1)
// (MannWhitney([1,2,3], [4,4,5,6]) gives 1/35 against MinP 2/35). So a
// test whose MinP is not below α can still, rarely, reject: MinP is what
// the runs guarantee, not a floor of every p.
func MinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	return math.Min(1, 2/binomial(n1+n2, n1))
}

// RunsNeeded returns the smallest number of runs K per side for which a
// K-vs-K exact test can reach p < alpha at all (MinP(K, K) < alpha), or 0
// when alpha is not in (0, 1]. Under a Holm correction over m tests the
// first step compares the smallest p with alpha/m, so callers pass
// alpha/m there.
func RunsNeeded(alpha float64) int {
	if !(alpha > 0 && alpha <= 1) {
		return 0
	}
	for k := 1; ; k++ {
		if MinP(k, k) < alpha {
			return k
		}
	}
}

// binomial returns C(n, k) as a float64 (exact up to 2^53).
func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Round(c)
}

func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, v := range xs {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
