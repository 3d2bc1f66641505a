package analyze

import (
	"reflect"
	"slices"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// TestPrepareBuckets checks the bucket repairs of Prometheus's
// histogram_quantile (coalesceBuckets, then
// ensureMonotonicAndIgnoreSmallDeltas in promql/quantile.go) bucket by
// bucket. The reference count a later bucket is compared with moves only
// when a bucket really rises: a bucket made equal as float noise, or raised
// to the reference, leaves it where it was.
func TestPrepareBuckets(t *testing.T) {
	tests := []struct {
		name   string
		in     []ingest.Bucket
		want   []ingest.Bucket
		merged []float64
		raised []RaisedBucket
		noise  bool
	}{
		{
			// 10.00000000001 differs from 10 by 1e-11, 5e-13 of 10 + 10:
			// noise, made 10. The reference stays 10, so le=3's 9 is raised
			// to 10 (not to 10.00000000001).
			name:   "noise does not move the reference",
			in:     buckets(1, 10, 2, 10.00000000001, 3, 9, inf, 12),
			want:   buckets(1, 10, 2, 10, 3, 10, inf, 12),
			raised: []RaisedBucket{{Le: "3", Count: 9, RaisedTo: 10}},
			noise:  true,
		},
		{
			// 3 is raised to 5; 4 is compared with 5, not with 3, and is
			// raised too.
			name:   "a raised bucket does not move the reference",
			in:     buckets(1, 5, 2, 3, 3, 4, inf, 8),
			want:   buckets(1, 5, 2, 5, 3, 5, inf, 8),
			raised: []RaisedBucket{{Le: "2", Count: 3, RaisedTo: 5}, {Le: "3", Count: 4, RaisedTo: 5}},
		},
		{
			// Sorted by bound, then the two 0.2 buckets added: 1 + 2.
			name:   "equal bounds are merged",
			in:     buckets(0.2, 1, 0.1, 1, 0.2, 2, inf, 4),
			want:   buckets(0.1, 1, 0.2, 3, inf, 4),
			merged: []float64{0.2},
		},
		{
			// 1 + 1e-12 is 1e-12 above 1, 5e-13 of their sum: noise.
			name:  "a relative difference below 1e-12 is noise",
			in:    buckets(1, 1, inf, 1+1e-12),
			want:  buckets(1, 1, inf, 1),
			noise: true,
		},
		{
			// 1 + 3e-12 is 1.5e-12 of the sum: a real difference.
			name: "a relative difference above 1e-12 is kept",
			in:   buckets(1, 1, inf, 1+3e-12),
			want: buckets(1, 1, inf, 1+3e-12),
		},
		{
			// Next to 0 only differences below 1e-12 × the smallest normal
			// number (2.2e-320) are noise: 1e-320 is, 1e-300 is not.
			name:  "near zero, a subnormal difference is noise",
			in:    buckets(1, 0, inf, 1e-320),
			want:  buckets(1, 0, inf, 0),
			noise: true,
		},
		{
			name: "near zero, a normal difference is kept",
			in:   buckets(1, 0, inf, 1e-300),
			want: buckets(1, 0, inf, 1e-300),
		},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		got, rep := prepareBuckets(in)
		if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(rep.Merged, tt.merged) ||
			!reflect.DeepEqual(rep.Raised, tt.raised) || rep.FloatNoise != tt.noise {
			t.Errorf("%s: buckets %v, merged %v, raised %v, noise %v; want %v, %v, %v, %v",
				tt.name, got, rep.Merged, rep.Raised, rep.FloatNoise, tt.want, tt.merged, tt.raised, tt.noise)
		}
		if !reflect.DeepEqual(in, tt.in) {
			t.Errorf("%s: the input buckets were changed to %v", tt.name, in)
		}
	}
}

// TestQuantilesTinySpread: 20,000 values, half 0 and half 1e-306, a
// spread too small to bin (the bin scale overflows to +Inf): the median
// by nearest rank is rank 10,000, a 0; p95 is 1e-306.
func TestQuantilesTinySpread(t *testing.T) {
	xs := make([]float64, 20_000)
	for i := 10_000; i < len(xs); i++ {
		xs[i] = 1e-306
	}
	q := Quantiles(xs, []float64{0.50, 0.95}, NearestRank)
	if q[0] != 0 || q[1] != 1e-306 {
		t.Errorf("p50, p95 = %v, want 0, 1e-306", q)
	}
}
