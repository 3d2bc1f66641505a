package analyze

import (
	"math"
	"slices"
)

// valueCounts is a sample of non-negative integers (token lengths) held as
// the number of times each distinct value occurs, ascending. A run of
// 400,000 requests with prompts of up to a few thousand tokens takes a few
// kilobytes this way instead of 3.2 MB of float64s, and its quantiles need
// no selection.
type valueCounts struct {
	vals   []int64
	counts []int64
	n      int
}

// denseCountMax is the largest value counted in a dense array; a sample
// with larger values is sorted instead.
const denseCountMax = 1 << 22

// countValues counts the values of xs, which must be non-negative. It
// reorders xs when a value is above denseCountMax.
func countValues(xs []int64) valueCounts {
	if len(xs) == 0 {
		return valueCounts{}
	}
	hi := slices.Max(xs)
	var c valueCounts
	c.n = len(xs)
	if hi <= denseCountMax {
		dense := make([]int64, hi+1)
		for _, x := range xs {
			dense[x]++
		}
		for v, k := range dense {
			if k > 0 {
				c.vals = append(c.vals, int64(v))
				c.counts = append(c.counts, k)
			}
		}
		return c
	}
	slices.Sort(xs)
	for i, x := range xs {
		if i > 0 && x == xs[i-1] {
			c.counts[len(c.counts)-1]++
			continue
		}
		c.vals = append(c.vals, x)
		c.counts = append(c.counts, 1)
	}
	return c
}

// mergeCounts pools several samples' counts into one.
func mergeCounts(cs []valueCounts) valueCounts {
	var out valueCounts
	for _, c := range cs {
		out.n += c.n
	}
	if out.n == 0 {
		return out
	}
	next := make([]int, len(cs)) // position in each sample
	for {
		// The smallest value not yet taken from any sample.
		v, found := int64(0), false
		for k, c := range cs {
			if next[k] < len(c.vals) && (!found || c.vals[next[k]] < v) {
				v, found = c.vals[next[k]], true
			}
		}
		if !found {
			return out
		}
		var count int64
		for k, c := range cs {
			if next[k] < len(c.vals) && c.vals[next[k]] == v {
				count += c.counts[next[k]]
				next[k]++
			}
		}
		out.vals = append(out.vals, v)
		out.counts = append(out.counts, count)
	}
}

// atRanks returns the values at the given 0-based ranks (ascending) of
// the sorted sample.
func (c valueCounts) atRanks(ranks []int) []float64 {
	out := make([]float64, len(ranks))
	k, below := 0, int64(0) // below: the values before vals[k]
	for i, r := range ranks {
		for below+c.counts[k] <= int64(r) {
			below += c.counts[k]
			k++
		}
		out[i] = float64(c.vals[k])
	}
	return out
}

// distribution summarises the sample as distributionOf summarises the same
// values held as float64s, to the bit: every partial sum of integers below
// 2^53 is exact, whatever the order of the additions.
func (c valueCounts) distribution(metric, unit, sample, method string) Distribution {
	d := Distribution{Metric: metric, Unit: unit, Sample: sample, Method: method, N: c.n, MeanWeighting: meanWeighting(sample)}
	if c.n == 0 {
		d.P50, d.P95, d.P99, d.Max, d.Mean = NaN, NaN, NaN, NaN, NaN
		d.Unavailable = "no samples"
		return d
	}
	sum := 0.0
	for i, v := range c.vals {
		sum += float64(v) * float64(c.counts[i])
	}
	q := quantilesAt([]float64{0.50, 0.95, 0.99}, method, c.n, c.atRanks)
	d.P50, d.P95, d.P99 = Num(q[0]), Num(q[1]), Num(q[2])
	d.Max, d.Mean = Num(float64(c.vals[len(c.vals)-1])), Num(sum/float64(c.n))
	return d
}

// bins is the equal-width histogram over [0, max] that bins makes of the
// same values held as float64s.
func (c valueCounts) bins(n int) []HistogramBin {
	if c.n == 0 {
		return nil
	}
	max := math.Max(0, float64(c.vals[len(c.vals)-1]))
	width := math.Ceil((max + 1) / float64(n))
	if width < 1 {
		width = 1
	}
	out := make([]HistogramBin, n)
	for i := range out {
		out[i] = HistogramBin{Lo: float64(i) * width, Hi: float64(i+1) * width}
	}
	for i, v := range c.vals {
		k := int(float64(v) / width)
		if k >= n {
			k = n - 1
		}
		out[k].Count += int(c.counts[i])
	}
	return out
}
