package analyze_test

import (
	"fmt"
	"math"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// The 20 TTFTs of the latency-and-throughput text: nearest rank gives the
// 10th value as p50 and the 19th as p95; linear interpolation differs.
func ExampleQuantiles() {
	ttft := []float64{600, 120, 1000, 150, 90, 170, 110, 190, 80, 200, 130, 210, 100, 220, 350, 300, 140, 250, 400, 500}
	fmt.Println(analyze.Quantiles(append([]float64(nil), ttft...), []float64{0.50, 0.95}, analyze.NearestRank))
	fmt.Printf("%.6g\n", analyze.Quantiles(append([]float64(nil), ttft...), []float64{0.50, 0.95}, analyze.Linear))
	// Output:
	// [190 600]
	// [195 620]
}

// Median ± MAD of three runs' p95 TTFT, raw and scaled.
func ExampleMAD() {
	p95 := []float64{100, 120, 180}
	fmt.Printf("%g ± %g (raw), ± %.4f (scaled)\n", analyze.Median(p95), analyze.MAD(p95, false), analyze.MAD(p95, true))
	// Output: 120 ± 20 (raw), ± 29.6520 (scaled)
}

// A cumulative histogram's p50 by Prometheus's interpolation: rank 20 of
// 40 lies 10 observations into the (0.1, 0.2] bucket of 20.
func ExampleHistogramQuantile() {
	h := ingest.Histogram{Count: 40, Buckets: []ingest.Bucket{
		{UpperBound: 0.1, Count: 10}, {UpperBound: 0.2, Count: 30}, {UpperBound: 0.4, Count: 40}, {UpperBound: math.Inf(1), Count: 40},
	}}
	fmt.Printf("%.2f s\n", analyze.HistogramQuantile(0.5, h))
	// Output: 0.15 s
}
