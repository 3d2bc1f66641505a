package analyze

// This file implements MSER-m, the marginal standard error rule (K. P.
// White Jr., "An effective truncation heuristic for bias reduction in
// simulation output", Simulation 69(6), 1997, 323–334), in its MSER-5 form
// (batch means of 5; White, Cobb and Spratt, Winter Simulation Conference
// 2000). The series is reduced to batch means
//
//	Z_j = (x_{(j−1)m+1} + … + x_{jm}) / m,   j = 1 … k,  k = ⌊N/m⌋
//
// (a trailing partial batch is left out), and the truncation d* (in
// batches) minimises
//
//	MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)²,   Z̄_d = mean of Z_{d+1} … Z_k,
//
// over 0 ≤ d ≤ ⌊k/2⌋: the squared standard error of the truncated mean,
// which trades the bias of keeping early values against the variance lost
// by dropping them. The search stops at half the batches because the
// statistic is erratic when few batches remain; a minimum on that boundary
// means the rule found no stable second half, and it then decides nothing.
// The cut is m·d* values. Each MSER(d) comes from a running mean and sum of
// squares over the batches from the end backwards (Welford's update), so
// the whole rule is O(N).

// MSERBatch is the batch size of MSER-5.
const MSERBatch = 5

// MSERResult is what MSER-m found on one series.
type MSERResult struct {
	// Batches is k, the number of complete batches.
	Batches int
	// Stat holds MSER(d) for d = 0 … ⌊k/2⌋.
	Stat []float64
	// D is d*, the first d where Stat is smallest.
	D int
	// Cut is m·d*, in values of the series.
	Cut int
	// Converged is false when d* lies on the boundary ⌊k/2⌋ (or there are
	// fewer than two batches): no truncation is then supported.
	Converged bool
}

// MSER applies MSER-m with batch size m (m ≥ 1) to xs.
func MSER(xs []float64, m int) MSERResult {
	if m < 1 {
		m = 1
	}
	k := len(xs) / m
	res := MSERResult{Batches: k}
	if k < 2 {
		return res
	}
	z := make([]float64, k)
	for j := range z {
		s := 0.0
		for _, x := range xs[j*m : (j+1)*m] {
			s += x
		}
		z[j] = s / float64(m)
	}
	half := k / 2
	res.Stat = make([]float64, half+1)
	var mean, m2 float64
	for j := k - 1; j >= 0; j-- {
		cnt := float64(k - j)
		delta := z[j] - mean
		mean += delta / cnt
		m2 += delta * (z[j] - mean)
		if j <= half {
			res.Stat[j] = m2 / (cnt * cnt)
		}
	}
	for d, s := range res.Stat {
		if s < res.Stat[res.D] {
			res.D = d
		}
	}
	res.Cut = m * res.D
	res.Converged = res.D < half
	return res
}
