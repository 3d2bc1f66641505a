package analyze

import (
	"math"
	"sort"

	"github.com/benchnote/benchnote/ingest"
)

// Percentile methods.
const (
	NearestRank = "nearest-rank"
	Linear      = "linear"
)

// percentileRule describes a method in words, for the report.
func percentileRule(method string) string {
	if method == Linear {
		return "linear interpolation between closest ranks: h = (N−1)·p, x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) (numpy's default)"
	}
	return "nearest rank: the value at rank ⌈p·N⌉ of the sorted sample (no interpolation)"
}

// Quantiles returns the p-quantiles (0 < p ≤ 1) of xs by the given method.
// It may reorder xs (selection, not a full sort) and returns NaN for every
// p when xs is empty. ps must be ascending.
func Quantiles(xs []float64, ps []float64, method string) []float64 {
	return quantiles([][]float64{xs}, ps, method)
}

// quantiles is Quantiles over a sample held in several slices: a pooled
// sample is the runs' samples side by side, never copied into one.
func quantiles(cs [][]float64, ps []float64, method string) []float64 {
	out := make([]float64, len(ps))
	n := total(cs)
	if n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	// Ranks (0-based) needed, ascending and unique.
	var ranks []int
	for _, p := range ps {
		if method == Linear {
			h := float64(n-1) * p
			lo := int(math.Floor(h))
			ranks = append(ranks, lo)
			if lo+1 < n {
				ranks = append(ranks, lo+1)
			}
		} else {
			ranks = append(ranks, nearestRankIndex(p, n))
		}
	}
	sort.Ints(ranks)
	ranks = uniqueInts(ranks)
	at := map[int]float64{}
	values := rankValues(cs, ranks)
	for i, r := range ranks {
		at[r] = values[i]
	}
	for i, p := range ps {
		if method == Linear {
			h := float64(n-1) * p
			lo := int(math.Floor(h))
			if lo+1 >= n {
				out[i] = at[lo]
				continue
			}
			out[i] = at[lo] + (h-float64(lo))*(at[lo+1]-at[lo])
		} else {
			out[i] = at[nearestRankIndex(p, n)]
		}
	}
	return out
}

// total is the number of values in cs.
func total(cs [][]float64) int {
	n := 0
	for _, c := range cs {
		n += len(c)
	}
	return n
}

// histogramSelectMin is the sample size from which rankValues bins the
// values instead of selecting in place.
const histogramSelectMin = 1 << 14

// rankValues returns the values at the given 0-based ranks (ascending) of
// the sorted order of the sample held in cs. Small samples are gathered and
// resolved with multiSelect; large ones are binned by value in one pass,
// and only the few bins holding a wanted rank are gathered and resolved,
// recursively, so a large sample is read about twice in all instead of once
// per selection, and is never copied whole.
func rankValues(cs [][]float64, ranks []int) []float64 {
	out := make([]float64, len(ranks))
	n := total(cs)
	if n < histogramSelectMin {
		xs := cs[0]
		if len(cs) > 1 {
			xs = make([]float64, 0, n)
			for _, c := range cs {
				xs = append(xs, c...)
			}
		}
		multiSelect(xs, ranks)
		for i, r := range ranks {
			out[i] = xs[r]
		}
		return out
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		for _, x := range c {
			if x < lo {
				lo = x
			}
			if x > hi {
				hi = x
			}
		}
	}
	if lo == hi {
		for i := range out {
			out[i] = lo
		}
		return out
	}
	const nbins = 1 << 16
	scale := float64(nbins-1) / (hi - lo)
	bin := func(x float64) int {
		b := int((x - lo) * scale)
		if b >= nbins {
			b = nbins - 1
		}
		return b
	}
	counts := make([]int, nbins)
	for _, c := range cs {
		for _, x := range c {
			counts[bin(x)]++
		}
	}
	// For every wanted rank, its bin and its rank inside the bin.
	wanted := map[int][]int{} // bin -> indexes into ranks
	inBin := make([]int, len(ranks))
	var bins []int
	cum, b := 0, 0
	for i, r := range ranks {
		for cum+counts[b] <= r {
			cum += counts[b]
			b++
		}
		if _, ok := wanted[b]; !ok {
			bins = append(bins, b)
		}
		wanted[b] = append(wanted[b], i)
		inBin[i] = r - cum
	}
	// Gather the members of the wanted bins, then resolve each bin. A bin
	// never holds every value (the minimum and maximum fall in different
	// bins), so the recursion ends.
	slot := make([]int32, nbins)
	members := make([][]float64, len(bins))
	for j, b := range bins {
		slot[b] = int32(j + 1)
		members[j] = make([]float64, 0, counts[b])
	}
	for _, c := range cs {
		for _, x := range c {
			if j := slot[bin(x)]; j > 0 {
				members[j-1] = append(members[j-1], x)
			}
		}
	}
	for j, b := range bins {
		idx := wanted[b]
		local := make([]int, len(idx))
		for k, i := range idx {
			local[k] = inBin[i]
		}
		vals := rankValues([][]float64{members[j]}, local)
		for k, i := range idx {
			out[i] = vals[k]
		}
	}
	return out
}

// nearestRankIndex is the 0-based index of rank ⌈p·N⌉, at least rank 1.
// A tiny epsilon keeps p·N that is an integer in exact arithmetic (0.95·20
// = 19) from rounding up to the next rank through floating-point error.
func nearestRankIndex(p float64, n int) int {
	r := int(math.Ceil(p*float64(n) - 1e-9))
	if r < 1 {
		r = 1
	}
	if r > n {
		r = n
	}
	return r - 1
}

func uniqueInts(xs []int) []int {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// multiSelect reorders xs so that xs[k] holds the k-th smallest value for
// every k in ranks (ascending), with smaller values before it. It costs
// O(N log len(ranks)) on average instead of a full sort.
func multiSelect(xs []float64, ranks []int) {
	if len(ranks) == 0 || len(xs) < 2 {
		return
	}
	mid := len(ranks) / 2
	k := ranks[mid]
	selectKth(xs, k)
	multiSelect(xs[:k], ranks[:mid])
	right := make([]int, 0, len(ranks)-mid-1)
	for _, r := range ranks[mid+1:] {
		right = append(right, r-k-1)
	}
	multiSelect(xs[k+1:], right)
}

// selectKth places the k-th smallest value at xs[k] (Hoare quickselect with
// a median-of-three pivot; deterministic).
func selectKth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	for hi > lo {
		if hi-lo < 16 {
			insertionSort(xs[lo : hi+1])
			return
		}
		m := lo + (hi-lo)/2
		if xs[m] < xs[lo] {
			xs[m], xs[lo] = xs[lo], xs[m]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[m] {
			xs[hi], xs[m] = xs[m], xs[hi]
		}
		pivot := xs[m]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

func insertionSort(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// Median returns the median of xs (the mean of the two middle values for an
// even count), NaN when empty. It does not modify xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MADScale is the factor that makes the MAD a consistent estimator of the
// standard deviation for normally distributed data.
const MADScale = 1.4826

// MAD returns the median absolute deviation around the median: raw, or
// multiplied by MADScale when scaled is true. NaN when xs is empty.
func MAD(xs []float64, scaled bool) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	mad := Median(dev)
	if scaled {
		mad *= MADScale
	}
	return mad
}

// HistogramDelta subtracts the start histogram from the end one, bucket by
// bucket. start may be nil (a server that had served nothing before). It
// returns ok false with a reason when the bucket layouts differ or a count
// went down (a restart).
func HistogramDelta(start *ingest.Histogram, end ingest.Histogram) (ingest.Histogram, string) {
	if start == nil {
		return end, ""
	}
	if len(start.Buckets) != len(end.Buckets) {
		return ingest.Histogram{}, "bucket layouts differ between the start and end scrapes"
	}
	d := ingest.Histogram{Count: end.Count - start.Count, Sum: end.Sum - start.Sum, Buckets: make([]ingest.Bucket, len(end.Buckets))}
	for i, b := range end.Buckets {
		if b.UpperBound != start.Buckets[i].UpperBound && !(math.IsInf(b.UpperBound, 1) && math.IsInf(start.Buckets[i].UpperBound, 1)) {
			return ingest.Histogram{}, "bucket layouts differ between the start and end scrapes"
		}
		d.Buckets[i] = ingest.Bucket{UpperBound: b.UpperBound, Count: b.Count - start.Buckets[i].Count}
		if d.Buckets[i].Count < 0 {
			return ingest.Histogram{}, "a bucket count decreased between the scrapes (server restart?)"
		}
	}
	if d.Count < 0 {
		return ingest.Histogram{}, "the observation count decreased between the scrapes (server restart?)"
	}
	return d, ""
}

// HistogramQuantile estimates the q-quantile of a cumulative histogram the
// way Prometheus's histogram_quantile does: find the bucket holding rank
// q·count and interpolate linearly inside it, assuming the lowest bucket
// starts at 0 (when its bound is positive); a rank in the +Inf bucket
// returns the highest finite bound. NaN when there are no observations or
// no +Inf bucket.
func HistogramQuantile(q float64, h ingest.Histogram) float64 {
	v, _, _ := histogramQuantileBucket(q, h)
	return v
}

// histogramQuantileBucket is HistogramQuantile that also returns the bounds
// of the bucket the estimate was interpolated in (lo is 0 for the lowest
// bucket; both are the highest finite bound for the +Inf bucket).
func histogramQuantileBucket(q float64, h ingest.Histogram) (v, lo, hi float64) {
	nan := math.NaN()
	b := h.Buckets
	if len(b) < 2 || !math.IsInf(b[len(b)-1].UpperBound, 1) {
		return nan, nan, nan
	}
	// Prometheus tolerates small non-monotonicity from float noise by
	// forcing counts to be non-decreasing.
	counts := make([]float64, len(b))
	maxSoFar := 0.0
	for i := range b {
		maxSoFar = math.Max(maxSoFar, b[i].Count)
		counts[i] = maxSoFar
	}
	total := counts[len(counts)-1]
	if total == 0 {
		return nan, nan, nan
	}
	if q < 0 {
		return math.Inf(-1), nan, nan
	}
	if q > 1 {
		return math.Inf(1), nan, nan
	}
	rank := q * total
	i := sort.Search(len(counts)-1, func(i int) bool { return counts[i] >= rank })
	if i == len(b)-1 {
		top := b[len(b)-2].UpperBound
		return top, top, math.Inf(1)
	}
	if i == 0 && b[0].UpperBound <= 0 {
		return b[0].UpperBound, b[0].UpperBound, b[0].UpperBound
	}
	start, end := 0.0, b[i].UpperBound
	prev := 0.0
	if i > 0 {
		start = b[i-1].UpperBound
		prev = counts[i-1]
	}
	inBucket := counts[i] - prev
	if inBucket == 0 {
		return end, start, end
	}
	return start + (end-start)*((rank-prev)/inBucket), start, end
}
