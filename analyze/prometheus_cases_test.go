package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// promCase is one classic-histogram case of Prometheus's own tests of
// histogram_quantile, kept as data in testdata/prometheus_quantile_cases.json.
type promCase struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Expr      string `json:"expr"`
	Series    string `json:"series"`
	CountsAre string `json:"counts_are"`
	Buckets   []struct {
		Le    string  `json:"le"`
		Count float64 `json:"count"`
	} `json:"buckets"`
	Q    string `json:"q"`
	Want string `json:"want"`
	// ForcedMonotonic and FloatNoise are set where the source asserts them.
	ForcedMonotonic *bool `json:"forced_monotonic"`
	FloatNoise      *bool `json:"float_noise"`
}

func loadPromCases(t *testing.T) []promCase {
	t.Helper()
	data, err := os.ReadFile("testdata/prometheus_quantile_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []promCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

// sameFloat reports whether got equals want within a relative 1e-9 (an
// absolute 1e-9 around zero); NaN equals NaN and infinities must match.
func sameFloat(got, want float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	case want == 0:
		return math.Abs(got) <= 1e-9
	}
	return math.Abs(got-want) <= 1e-9*math.Abs(want)
}

// TestPrometheusQuantileCases runs every classic-histogram case of
// Prometheus's histograms.test, native_histograms.test, quantile_test.go
// and engine_test.go through HistogramQuantile. The le labels are parsed as numbers, as
// Prometheus parses them, so bounds written differently merge.
func TestPrometheusQuantileCases(t *testing.T) {
	cases := loadPromCases(t)
	if len(cases) != 104 {
		t.Errorf("%d cases, want 104 (77 from histograms.test, 2 from native_histograms.test, 24 from quantile_test.go, 1 from engine_test.go)", len(cases))
	}
	perFile := map[string]int{}
	for _, c := range cases {
		perFile[c.File]++
		name := fmt.Sprintf("%s:%d", c.File, c.Line)
		var bs []ingest.Bucket
		for _, b := range c.Buckets {
			le, err := strconv.ParseFloat(b.Le, 64)
			if err != nil {
				t.Fatalf("%s: le %q: %v", name, b.Le, err)
			}
			bs = append(bs, ingest.Bucket{UpperBound: le, Count: b.Count})
		}
		q, err1 := strconv.ParseFloat(c.Q, 64)
		want, err2 := strconv.ParseFloat(c.Want, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: q %q, want %q: %v %v", name, c.Q, c.Want, err1, err2)
		}
		if got := HistogramQuantile(q, ingest.Histogram{Buckets: bs}); !sameFloat(got, want) {
			t.Errorf("%s: %s %s: q %s = %v, want %s", name, c.Expr, c.Series, c.Q, got, c.Want)
		}
		_, rep := prepareBuckets(bs)
		if c.ForcedMonotonic != nil && *c.ForcedMonotonic != (len(rep.Raised) > 0) {
			t.Errorf("%s: forced monotonicity %v (raised %v), want %v", name, len(rep.Raised) > 0, rep.Raised, *c.ForcedMonotonic)
		}
		if c.FloatNoise != nil && *c.FloatNoise != rep.FloatNoise {
			t.Errorf("%s: float noise ignored %v, want %v", name, rep.FloatNoise, *c.FloatNoise)
		}
	}
	want := map[string]int{
		"promql/promqltest/testdata/histograms.test":        77,
		"promql/promqltest/testdata/native_histograms.test": 2,
		"promql/quantile_test.go":                           24,
		"promql/engine_test.go":                             1,
	}
	for f, n := range want {
		if perFile[f] != n {
			t.Errorf("%s: %d cases, want %d", f, perFile[f], n)
		}
	}
}

// FuzzHistogramQuantile checks, for arbitrary buckets with finite
// non-negative counts, that HistogramQuantile never panics and that a
// quantile in (0, 1] it returns lies between min(0, lowest bound) and the
// highest finite bound.
func FuzzHistogramQuantile(f *testing.F) {
	f.Add([]byte{1, 5, 2, 7, 3, 11, 255, 12}, 0.5)
	f.Add([]byte{1, 20, 2, 10, 3, 50, 4, 40, 5, 90, 255, 80}, 0.99)
	f.Add([]byte{2, 1, 2, 1, 2, 1, 255, 4}, 0.75)
	f.Fuzz(func(t *testing.T, data []byte, q float64) {
		var bs []ingest.Bucket
		lo, hi := 0.0, math.Inf(-1)
		for i := 0; i+1 < len(data); i += 2 {
			bound := float64(int8(data[i])) / 4 // negative, zero and positive bounds
			if data[i] == 255 {
				bound = math.Inf(1)
			} else {
				lo, hi = math.Min(lo, bound), math.Max(hi, bound)
			}
			bs = append(bs, ingest.Bucket{UpperBound: bound, Count: float64(data[i+1])})
		}
		var v float64
		fuzzbudget.Check(t, "HistogramQuantile", len(data), func() { v = HistogramQuantile(q, ingest.Histogram{Buckets: bs}) })
		if !(q > 0 && q <= 1) || math.IsNaN(v) {
			return
		}
		if v < lo || v > hi {
			t.Fatalf("q %v of %v = %v, outside [%v, %v]", q, bs, v, lo, hi)
		}
		// Monotone in q: a higher quantile is never below a lower one.
		for _, q2 := range []float64{q / 2, q * 0.9, math.Min(1, q*1.1), math.Min(1, q+0.25)} {
			if !(q2 > 0 && q2 <= 1) {
				continue
			}
			v2 := HistogramQuantile(q2, ingest.Histogram{Buckets: bs})
			if math.IsNaN(v2) {
				t.Fatalf("q %v of %v = %v, but q %v is NaN", q, bs, v, q2)
			}
			if q2 < q && v2 > v || q2 > q && v2 < v {
				t.Fatalf("not monotone in q over %v: q %v → %v, q %v → %v", bs, q, v, q2, v2)
			}
		}
	})
}
