package analyze

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkDistribution400k summarises one run's worth of latencies
// (log-normal, as TTFT and E2E roughly are): the per-run figures.
func BenchmarkDistribution400k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 400_000)
	for i := range xs {
		xs[i] = math.Exp(3 + 0.8*rng.NormFloat64())
	}
	work := make([]float64, len(xs))
	b.ResetTimer()
	for range b.N {
		copy(work, xs)
		distribution("TTFT", "ms", SamplePerRequest, NearestRank, work)
	}
}
