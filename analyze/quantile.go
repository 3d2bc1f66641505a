package analyze

import (
	"math"
	"slices"
	"sort"
	"strconv"

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
	return quantilesAt(ps, method, n, func(ranks []int) []float64 { return rankValues(cs, ranks) })
}

// quantilesIn is quantiles of a non-empty sample whose minimum and
// maximum are known.
func quantilesIn(cs [][]float64, ps []float64, method string, lo, hi float64) []float64 {
	return quantilesAt(ps, method, total(cs), func(ranks []int) []float64 { return rankValuesIn(cs, ranks, lo, hi) })
}

// quantilesAt computes the p-quantiles of a sample of n > 0 values by the
// given method from the values at the 0-based ranks it asks valuesAt for
// (ascending and unique).
func quantilesAt(ps []float64, method string, n int, valuesAt func(ranks []int) []float64) []float64 {
	out := make([]float64, len(ps))
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
	at := make(map[int]float64, len(ranks))
	values := valuesAt(ranks)
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
	return rankValuesIn(cs, ranks, math.NaN(), math.NaN())
}

// rankValuesIn is rankValues with the sample's minimum and maximum given
// (NaN when the caller has not computed them), saving a pass.
func rankValuesIn(cs [][]float64, ranks []int, lo, hi float64) []float64 {
	out := make([]float64, len(ranks))
	n := total(cs)
	if n < histogramSelectMin {
		return selectGathered(cs, n, ranks)
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = math.Inf(1), math.Inf(-1)
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
	}
	if lo == hi {
		for i := range out {
			out[i] = lo
		}
		return out
	}
	const nbins = 1 << 12 // the counts fit a core's L1 cache
	scale := float64(nbins-1) / (hi - lo)
	if math.IsInf(scale, 0) || math.IsNaN(scale) {
		// A spread too small to divide into bins (below about 1e-305).
		return selectGathered(cs, n, ranks)
	}
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

// selectGathered returns the values at the given ranks of the n values in
// cs, gathered into one slice (unless there is one already) and resolved
// with multiSelect.
func selectGathered(cs [][]float64, n int, ranks []int) []float64 {
	xs := cs[0]
	if len(cs) > 1 {
		xs = make([]float64, 0, n)
		for _, c := range cs {
			xs = append(xs, c...)
		}
	}
	multiSelect(xs, ranks)
	out := make([]float64, len(ranks))
	for i, r := range ranks {
		out[i] = xs[r]
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
// bucket, matching buckets by their numeric upper bound. start may be nil
// (a server that had served nothing before). It returns a reason instead
// when the bucket bounds differ or a count went down (a restart).
func HistogramDelta(start *ingest.Histogram, end ingest.Histogram) (ingest.Histogram, string) {
	endBuckets, _ := ingest.SortBuckets(slices.Clone(end.Buckets))
	if start == nil {
		return ingest.Histogram{Count: end.Count, Sum: end.Sum, Buckets: endBuckets}, ""
	}
	startBuckets, _ := ingest.SortBuckets(slices.Clone(start.Buckets))
	if len(startBuckets) != len(endBuckets) {
		return ingest.Histogram{}, "bucket layouts differ between the start and end scrapes"
	}
	d := ingest.Histogram{Count: end.Count - start.Count, Sum: end.Sum - start.Sum, Buckets: make([]ingest.Bucket, len(endBuckets))}
	for i, b := range endBuckets {
		if b.UpperBound != startBuckets[i].UpperBound {
			return ingest.Histogram{}, "bucket layouts differ between the start and end scrapes"
		}
		d.Buckets[i] = ingest.Bucket{UpperBound: b.UpperBound, Count: b.Count - startBuckets[i].Count}
		if d.Buckets[i].Count < 0 {
			return ingest.Histogram{}, "a bucket count decreased between the scrapes (server restart?)"
		}
	}
	if d.Count < 0 {
		return ingest.Histogram{}, "the observation count decreased between the scrapes (server restart?)"
	}
	return d, ""
}

// smallDeltaTolerance is the relative difference below which
// Prometheus's histogram_quantile treats two cumulative bucket counts as
// equal (promql/quantile.go): float noise from rates and sums, not a
// difference in observations.
const smallDeltaTolerance = 1e-12

// BucketRepairs records what was done to a histogram's buckets before a
// quantile was interpolated, following Prometheus's histogram_quantile.
type BucketRepairs struct {
	// Merged lists the upper bounds shared by several buckets, whose
	// counts were added into one bucket, ascending.
	Merged []float64
	// Raised lists, in bound order, the buckets whose cumulative count was
	// below a lower bucket's and was raised to it (forced monotonicity).
	Raised []RaisedBucket
	// FloatNoise is set when counts differing by less than
	// smallDeltaTolerance (relative) were made equal.
	FloatNoise bool
}

// RaisedBucket is a bucket whose cumulative count was lower than the
// count of a bucket below it and was raised to that count, as Prometheus's
// histogram_quantile does before interpolating.
type RaisedBucket struct {
	// Le is the bucket's upper bound in the metric's unit, as a Prometheus
	// le label writes it ("0.5", "+Inf").
	Le string `json:"le"`
	// Count is the bucket's cumulative count as recorded.
	Count float64 `json:"count"`
	// RaisedTo is the count it was given: the highest count below it.
	RaisedTo float64 `json:"raised_to"`
}

// formatLe writes an upper bound as a Prometheus le label does.
func formatLe(bound float64) string {
	if math.IsInf(bound, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(bound, 'g', -1, 64)
}

// prepareBuckets returns a copy of bs ready for interpolation, the way
// Prometheus's histogram_quantile prepares classic buckets: sorted by
// bound, buckets with equal bounds merged by adding their counts,
// cumulative counts that differ by less than smallDeltaTolerance (relative)
// made equal, and any count below an earlier one raised to it so the
// counts never decrease.
func prepareBuckets(bs []ingest.Bucket) ([]ingest.Bucket, BucketRepairs) {
	var rep BucketRepairs
	out, merged := ingest.SortBuckets(slices.Clone(bs))
	rep.Merged = merged
	if len(out) == 0 {
		return out, rep
	}
	// prev is the count a later bucket must reach; a bucket that was
	// raised or treated as equal does not move it.
	prev := out[0].Count
	for i := 1; i < len(out); i++ {
		cur := out[i].Count
		switch {
		case cur == prev:
		case nearlyEqual(prev, cur, smallDeltaTolerance):
			out[i].Count = prev
			rep.FloatNoise = true
		case cur < prev:
			rep.Raised = append(rep.Raised, RaisedBucket{Le: formatLe(out[i].UpperBound), Count: cur, RaisedTo: prev})
			out[i].Count = prev
		default:
			prev = cur
		}
	}
	return out, rep
}

// smallestNormal is the smallest positive normal float64.
const smallestNormal = 0x1p-1022

// nearlyEqual reports whether a and b differ by less than tol relative to
// |a| + |b|. Next to zero, where a relative difference means nothing, only
// differences below tol times the smallest normal number count as equal.
func nearlyEqual(a, b, tol float64) bool {
	if a == b {
		return true
	}
	diff, size := math.Abs(a-b), math.Abs(a)+math.Abs(b)
	if a == 0 || b == 0 || size < smallestNormal {
		return diff < tol*smallestNormal
	}
	return diff/math.Min(size, math.MaxFloat64) < tol
}

// HistogramQuantile estimates the q-quantile of a cumulative histogram the
// way Prometheus's histogram_quantile does for a classic histogram. The
// buckets are prepared first: sorted, equal bounds merged, float noise
// below a relative 1e-12 ignored, and counts forced to be non-decreasing.
// Then the bucket holding rank q·count is found and the estimate is
// interpolated linearly inside it, assuming the lowest bucket starts at 0
// when its bound is positive (a rank in a lowest bucket with a bound ≤ 0
// returns that bound); a rank in the +Inf bucket returns the highest finite
// bound. NaN when q is NaN, when there is no +Inf bucket, fewer than two
// buckets or no observation; −Inf for q < 0 and +Inf for q > 1.
func HistogramQuantile(q float64, h ingest.Histogram) float64 {
	b, _ := prepareBuckets(h.Buckets)
	v, _, _ := quantileInBuckets(q, b)
	return v
}

// quantileInBuckets is HistogramQuantile over buckets prepared by
// prepareBuckets. It also returns the bounds of the bucket the estimate was
// interpolated in (lo is 0 for a lowest bucket with a positive bound; both
// are the bound itself for a lowest bucket with a bound ≤ 0; the highest
// finite bound and +Inf for the +Inf bucket).
func quantileInBuckets(q float64, b []ingest.Bucket) (v, lo, hi float64) {
	nan := math.NaN()
	switch {
	case math.IsNaN(q):
		return nan, nan, nan
	case q < 0:
		return math.Inf(-1), nan, nan
	case q > 1:
		return math.Inf(1), nan, nan
	}
	if bucketsUnusable(b) != "" {
		return nan, nan, nan
	}
	n := len(b)
	rank := q * b[n-1].Count
	i := sort.Search(n-1, func(i int) bool { return b[i].Count >= rank })
	switch {
	case i == n-1:
		top := b[n-2].UpperBound
		return top, top, math.Inf(1)
	case i == 0 && b[0].UpperBound <= 0:
		return b[0].UpperBound, b[0].UpperBound, b[0].UpperBound
	}
	start, end, count := 0.0, b[i].UpperBound, b[i].Count
	if i > 0 {
		start = b[i-1].UpperBound
		count -= b[i-1].Count
		rank -= b[i-1].Count
	}
	return start + (end-start)*(rank/count), start, end
}

// Reasons a histogram gives no quantile (Prometheus returns NaN for each).
const (
	reasonNoInfBucket   = "no +Inf bucket: not a valid Prometheus histogram"
	reasonOnlyInfBucket = "only a +Inf bucket: no finite bound to interpolate in"
	reasonNoObservation = "no observations in the window"
)

// bucketsUnusable says why prepared buckets give no quantile, "" when
// they do, checking in the order Prometheus does.
func bucketsUnusable(b []ingest.Bucket) string {
	switch n := len(b); {
	case n == 0 || !math.IsInf(b[n-1].UpperBound, 1):
		return reasonNoInfBucket
	case n < 2:
		return reasonOnlyInfBucket
	case b[n-1].Count == 0:
		return reasonNoObservation
	}
	return ""
}
