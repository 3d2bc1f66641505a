package stats

import (
	"errors"
	"math"
	"sort"
)

// Stratum is one stratum of a stratified test: the values of the first
// sample (X, the new runs) and of the second (Y, the base runs) that may be
// compared with each other, such as the runs of one load level.
type Stratum struct {
	X, Y []float64
}

// Methods of StratifiedResult.
const (
	// MethodStratifiedExact: the exact distribution of the weighted sum,
	// by convolving each stratum's exact permutation distribution.
	MethodStratifiedExact = "exact stratified rank test (van Elteren)"
	// MethodSignTest: every stratum has one value a side, so the test is
	// a sign test across the strata (exact).
	MethodSignTest = "sign test across levels (one run a level and side; exact)"
	// MethodStratifiedNormal: the normal approximation of the weighted
	// sum, with the tie-corrected variance of each stratum.
	MethodStratifiedNormal = "stratified rank test (van Elteren), normal approximation"
)

// StratifiedResult is the outcome of a two-sided stratified rank test.
type StratifiedResult struct {
	// Strata is the number of strata with values on both sides; Used
	// those of them with some variation (a stratum whose values are all
	// equal carries no evidence either way).
	Strata, Used int
	// NX and NY are the values counted on each side, over every stratum.
	NX, NY int
	// Z is the weighted rank statistic standardised by its null standard
	// deviation: positive when X tends to exceed Y. NaN when no stratum
	// varies.
	Z float64
	// P is the two-sided p-value, conditional on each stratum's ties.
	P float64
	// MinP is the smallest two-sided p-value data without ties could give
	// at these stratum sizes: both arrangements at the extreme in every
	// stratum at once, 2 · Π 1 / C(n_k, x_k), capped at 1.
	MinP float64
	// Ties is set when some stratum has tied values.
	Ties   bool
	Method string
}

// ErrNoStratum is returned when no stratum has values on both sides.
var ErrNoStratum = errors.New("stats: no stratum has values on both sides")

// maxExactSupport bounds the integer range of the exact convolution; a
// larger one (many strata of different sizes) uses the normal
// approximation.
const maxExactSupport = 4 << 20

// Stratified runs van Elteren's stratified Wilcoxon rank-sum test of X
// against Y: within each stratum the values are ranked (ties get
// mid-ranks) and the rank sum of X is taken; the statistic is the sum over
// strata of each rank sum's deviation from its expectation, weighted by
// 1 / (n_k + 1) (n_k the stratum's values), the weights that make it the
// locally most powerful rank test of one shift common to every stratum.
// Under the null hypothesis (in every stratum, X and Y come from one
// distribution) each stratum's rank sum follows its own permutation
// distribution, conditional on its ties, independently of the others; the
// p-value is exact (the convolution of those distributions) unless a
// stratum has more than ExactLimit values or the strata's weights make the
// support too large, when the normal approximation is used and Method says
// so. With one value a side in every stratum the test is the sign test of
// the per-stratum differences (ties dropped), exact.
//
// NaN values are dropped; a stratum with no value on a side is not used.
func Stratified(strata []Stratum) (StratifiedResult, error) {
	res := StratifiedResult{P: math.NaN(), Z: math.NaN(), MinP: 1, Method: MethodStratifiedExact}
	var ps []rankedStratum
	allSingle := true
	for _, s := range strata {
		x, y := finite(s.X), finite(s.Y)
		if len(x) == 0 || len(y) == 0 {
			continue
		}
		res.Strata++
		res.NX += len(x)
		res.NY += len(y)
		res.MinP *= 1 / binomial(len(x)+len(y), len(x))
		ranks2, w2, tieTerm, ties := doubledRanks(x, y)
		n := len(x) + len(y)
		p := rankedStratum{ranks2: ranks2, nx: len(x), n: n, dev2: w2 - len(x)*(n+1),
			varies: ranks2[0] != ranks2[n-1], single: len(x) == 1 && len(y) == 1}
		res.Ties = res.Ties || ties
		nf := float64(n)
		p.variance = float64(len(x)) * float64(len(y)) / 12 * ((nf + 1) - tieTerm/(nf*(nf-1)))
		if p.varies {
			res.Used++
			allSingle = allSingle && p.single
			ps = append(ps, p)
		}
	}
	if res.Strata == 0 {
		return res, ErrNoStratum
	}
	res.MinP = math.Min(1, 2*res.MinP)
	if res.Used == 0 {
		res.P = 1
		return res, nil
	}
	// The weights 1/(n_k+1) as integers: L/(n_k+1) with L their least
	// common multiple, so the statistic in doubled-rank units is an
	// integer and equal values are counted exactly.
	l := 1
	exact := true
	for _, p := range ps {
		l = lcm(l, p.n+1)
		if p.n > ExactLimit || l > maxExactSupport {
			exact = false
			break
		}
	}
	var stat float64 // Σ w_k (W_k − E W_k), in rank units
	var variance float64
	for _, p := range ps {
		w := 1 / float64(p.n+1)
		stat += w * float64(p.dev2) / 2
		variance += w * w * p.variance
	}
	if variance > 0 {
		res.Z = stat / math.Sqrt(variance)
	}
	if allSingle {
		res.Method = MethodSignTest
	}
	if exact {
		if p, ok := stratifiedExactP(ps, l); ok {
			res.P = p
			return res, nil
		}
	}
	res.Method = MethodStratifiedNormal
	if variance <= 0 {
		res.P = 1
		return res, nil
	}
	res.P = math.Min(1, math.Erfc(math.Abs(res.Z)/math.Sqrt2))
	return res, nil
}

// rankedStratum is a stratum ranked for Stratified.
type rankedStratum struct {
	ranks2         []int // doubled mid-ranks of all values, ascending
	nx, n          int   // values of X, values in all
	dev2           int   // doubled rank sum of X minus its doubled expectation
	variance       float64
	varies, single bool // some values differ; one value a side
}

// stratifiedExactP convolves the strata's exact distributions of their
// doubled rank-sum deviations, each scaled by its integer weight
// l/(n_k+1), and returns P(|S| ≥ |s|) for the observed sum s. It reports
// false when the support would be too large.
func stratifiedExactP(ps []rankedStratum, l int) (float64, bool) {
	dist, off, ok := convolve(ps, l)
	if !ok {
		return 0, false
	}
	observed := 0
	for _, p := range ps {
		observed += l / (p.n + 1) * p.dev2
	}
	target := abs(observed)
	var extreme float64
	for i, pd := range dist {
		if abs(i-off) >= target {
			extreme += pd
		}
	}
	return math.Min(1, extreme), true
}

// convolve returns the null distribution of the weighted sum of the
// strata's doubled rank-sum deviations, dist[v+off] the probability of v,
// or false when its support would be too large.
func convolve(ps []rankedStratum, l int) (dist []float64, off int, ok bool) {
	dist = []float64{1}
	for _, p := range ps {
		w := l / (p.n + 1)
		devs, probs := rankSumDistribution(p.ranks2, p.nx, p.n)
		lo, hi := w*devs[0], w*devs[len(devs)-1]
		width := len(dist) + hi - lo
		if width > maxExactSupport {
			return nil, 0, false
		}
		next := make([]float64, width)
		for i, pd := range dist {
			if pd == 0 {
				continue
			}
			for j, d := range devs {
				next[i+w*d-lo] += pd * probs[j]
			}
		}
		dist, off = next, off-lo
	}
	return dist, off, true
}

// StratifiedSize returns the size of Stratified's test at alpha for
// strata of these sizes and ties: the probability, when X and Y come from
// one distribution in every stratum, that the test gives p < alpha. A
// discrete test's size is at most alpha and often well below it; 0 when
// no outcome reaches alpha. Where Stratified would use the normal
// approximation it is alpha.
func StratifiedSize(strata []Stratum, alpha float64) float64 {
	var ps []rankedStratum
	l := 1
	for _, s := range strata {
		x, y := finite(s.X), finite(s.Y)
		if len(x) == 0 || len(y) == 0 {
			continue
		}
		ranks2, w2, _, _ := doubledRanks(x, y)
		n := len(x) + len(y)
		if ranks2[0] == ranks2[n-1] {
			continue
		}
		if n > ExactLimit {
			return alpha
		}
		ps = append(ps, rankedStratum{ranks2: ranks2, nx: len(x), n: n, dev2: w2 - len(x)*(n+1)})
		if l = lcm(l, n+1); l > maxExactSupport {
			return alpha
		}
	}
	if len(ps) == 0 {
		return 0
	}
	dist, off, ok := convolve(ps, l)
	if !ok {
		return alpha
	}
	// p(v) = P(|S| ≥ |v|) falls as |v| grows: walk |v| down from the
	// largest, adding the tail, while the tail stays below alpha.
	byAbs := map[int]float64{}
	var keys []int
	for i, pd := range dist {
		if pd == 0 {
			continue
		}
		a := abs(i - off)
		if _, seen := byAbs[a]; !seen {
			keys = append(keys, a)
		}
		byAbs[a] += pd
	}
	sort.Sort(sort.Reverse(sort.IntSlice(keys)))
	tail := 0.0
	for _, a := range keys {
		if tail+byAbs[a] >= alpha {
			break
		}
		tail += byAbs[a]
	}
	return tail
}

// rankSumDistribution returns the possible doubled deviations of the
// rank sum of nx values drawn from ranks2 from its doubled expectation,
// ascending, with their probabilities (all C(n, nx) subsets equally
// likely).
func rankSumDistribution(ranks2 []int, nx, n int) (devs []int, probs []float64) {
	row := subsetSums(ranks2, nx, nil)
	center2 := nx * (n + 1)
	var total float64
	for _, c := range row {
		total += c
	}
	for s, c := range row {
		if c != 0 {
			devs = append(devs, s-center2)
			probs = append(probs, c/total)
		}
	}
	return devs, probs
}

// doubledRanks ranks x and y together (mid-ranks for ties, doubled so
// they are integers) and returns the doubled ranks ascending, the doubled
// rank sum of x, the tie term Σ (t³ − t) and whether there were ties.
func doubledRanks(x, y []float64) (ranks2 []int, w2 int, tieTerm float64, ties bool) {
	type obs struct {
		v     float64
		first bool
	}
	n := len(x) + len(y)
	all := make([]obs, 0, n)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	ranks2 = make([]int, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && all[j+1].v == all[i].v {
			j++
		}
		r2 := (i + 1) + (j + 1)
		if t := float64(j - i + 1); t > 1 {
			ties = true
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
	return ranks2, w2, tieTerm, ties
}

// StratifiedRunsNeeded returns the smallest number of values K per side
// in each of strata strata for which a stratified test can reach p < alpha
// at all (2 / C(2K, K)^strata < alpha), or 0 when alpha is not in (0, 1]
// or strata < 1. It is at most RunsNeeded(alpha).
func StratifiedRunsNeeded(alpha float64, strata int) int {
	if !(alpha > 0 && alpha <= 1) || strata < 1 {
		return 0
	}
	for k := 1; ; k++ {
		if 2*math.Pow(1/binomial(2*k, k), float64(strata)) < alpha {
			return k
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// lcm is the least common multiple, saturating at maxExactSupport+1.
func lcm(a, b int) int {
	v := a / gcd(a, b) * b
	if v > maxExactSupport || v < 0 {
		return maxExactSupport + 1
	}
	return v
}
