package analyze

import (
	"math/big"
	"strconv"
	"testing"
)

// oracleRankIndex is the 0-based index of the nearest rank ⌈p·N⌉ (at
// least 1) computed in exact decimal arithmetic: p is read as the decimal
// it was written as (0.07, not the binary double just above it), so it
// shares no code, and no epsilon, with nearestRankIndex.
func oracleRankIndex(p float64, n int) int {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(p, 'f', -1, 64))
	if !ok {
		panic("bad p")
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(n)))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	rank := int(q.Int64())
	if m.Sign() > 0 {
		rank++
	}
	return min(max(rank, 1), n) - 1
}

// TestNearestRankOracle: for every p = i/100 (and 0.995, 0.999) and every
// sample size up to 1000, the nearest-rank quantile of 1..N is the value
// at rank ⌈p·N⌉ in exact arithmetic. 141 of these (p, N) pairs have p·N an
// integer that float64 puts just above it (0.07 × 100 = 7.000000000000001):
// without nearestRankIndex's epsilon they would take the next rank.
func TestNearestRankOracle(t *testing.T) {
	ps := cdfProbabilities()
	integral := 0
	for n := 1; n <= 1000; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64((i*7919)%n + 1) // a permutation of 1..n
		}
		got := Quantiles(xs, ps, NearestRank)
		for i, p := range ps {
			want := float64(oracleRankIndex(p, n) + 1)
			if got[i] != want {
				t.Fatalf("n = %d, p = %v: %v, want rank %v", n, p, got[i], want)
			}
			if p*float64(n) > float64(oracleRankIndex(p, n)+1) && n > 1 {
				integral++
			}
		}
	}
	if integral != 141 {
		t.Errorf("%d (p, N) pairs where float64's p·N lies above the exact integer rank, want 141", integral)
	}
}
