package analyze

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// TestPettittUByHand checks U_t on series small enough to work by hand.
//
// x = 5 4 1 2 3 (N = 5, N+1 = 6): the ranks are the values themselves, so
// U_t = 2·Σ_{i≤t} r_i − 6t:
//
//	t = 1: 2·5  − 6  = 4   (5 is above 4, 1, 2, 3: four +1s)
//	t = 2: 2·9  − 12 = 6   (5 and 4 are both above 1, 2, 3: six +1s)
//	t = 3: 2·10 − 18 = 2   (5, 4, 1 against 2, 3: +2 +2 −2)
//	t = 4: 2·12 − 24 = 0   (5, 4, 1, 2 against 3: +1 +1 −1 −1)
//
// K⁺ over t ≤ ⌊5/2⌋ = 2 is 6 at τ = 2, p = exp(−6·36/(125+25)) = exp(−1.44).
//
// x = 3 3 1 2 (N = 4, a tie): sorted 1 2 3 3, so the two 3s share the
// mid-rank (3+4)/2 = 3.5 and U_t = 2·Σ r_i − 5t:
//
//	t = 1: 2·3.5 − 5  = 2  (3 vs 3, 1, 2: 0 +1 +1)
//	t = 2: 2·7   − 10 = 4  (3, 3 vs 1, 2: four +1s)
//	t = 3: 2·8   − 15 = 1  (3, 3, 1 vs 2: +1 +1 −1)
//
// K⁺ over t ≤ 2 is 4 at τ = 2, p = exp(−6·16/(64+16)) = exp(−1.2).
//
// x = 2 1 2 1 (N = 4): the 1s share mid-rank 1.5, the 2s 3.5:
//
//	t = 1: 2·3.5 − 5  = 2  (2 vs 1, 2, 1: +1 0 +1)
//	t = 2: 2·5   − 10 = 0  (2, 1 vs 2, 1: +1 0 0 −1)
//	t = 3: 2·8.5 − 15 = 2  (2, 1, 2 vs 1: +1 0 +1)
//
// K⁺ over every t is 2, reached twice: τ is the first, 1; p =
// exp(−6·4/(64+16)) = exp(−0.3).
func TestPettittUByHand(t *testing.T) {
	tests := []struct {
		xs    []float64
		u     []float64
		tau   int
		k, p  float64
		first int // maxT
	}{
		{[]float64{5, 4, 1, 2, 3}, []float64{4, 6, 2, 0}, 2, 6, math.Exp(-1.44), 2},
		{[]float64{3, 3, 1, 2}, []float64{2, 4, 1}, 2, 4, math.Exp(-1.2), 2},
		{[]float64{2, 1, 2, 1}, []float64{2, 0, 2}, 1, 2, math.Exp(-0.3), 0},
		// Increasing: every early value is below every later one, U_t = −t(N−t).
		{[]float64{1, 2, 3, 4, 5}, []float64{-4, -6, -6, -4}, 0, 0, 1, 2},
	}
	for _, tt := range tests {
		if u := PettittU(tt.xs); !slices.Equal(u, tt.u) {
			t.Errorf("PettittU(%v) = %v, want %v", tt.xs, u, tt.u)
		}
		got := Pettitt(tt.xs, tt.first)
		if got.ChangePoint != tt.tau || got.K != tt.k || !near(got.P, tt.p) || got.N != len(tt.xs) {
			t.Errorf("Pettitt(%v) = %+v, want τ %d, K %g, p %g", tt.xs, got, tt.tau, tt.k, tt.p)
		}
	}
	if u := PettittU([]float64{7}); u != nil {
		t.Errorf("PettittU of one value = %v, want nil", u)
	}
}

// TestPettittUMatchesDefinition compares the rank form with the double
// sum Σ_{i≤t} Σ_{j>t} sgn(x_i − x_j) on series with many ties.
func TestPettittUMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 50; trial++ {
		n := 2 + r.IntN(60)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(r.IntN(6))
		}
		u := PettittU(xs)
		for tt := 1; tt < n; tt++ {
			var want float64
			for i := 0; i < tt; i++ {
				for j := tt; j < n; j++ {
					switch {
					case xs[i] > xs[j]:
						want++
					case xs[i] < xs[j]:
						want--
					}
				}
			}
			if u[tt-1] != want {
				t.Fatalf("x = %v: U_%d = %g, want %g", xs, tt, u[tt-1], want)
			}
		}
	}
}

// stepSeries is k slow values (500 ms) followed by a stationary pattern
// 100 130 110 120 repeated, n values in all. With M stationary values, the
// pattern's values have mid-ranks near M/8, 7M/8, 3M/8 and 5M/8, so each
// stationary value changes U_t by 2r − (N+1): about −0.75M−k, +0.75M−k,
// −0.25M−k and +0.25M−k. Their running sums (−0.75M−k, −2k, −0.25M−3k,
// −4k, …) never rise above zero, while each slow value adds a positive
// 2r − (N+1) (its rank is among the top k). So U_t peaks exactly at t = k,
// on the whole series and on every prefix holding the step.
func stepSeries(k, n int, slow float64) []float64 {
	pattern := []float64{100, 130, 110, 120}
	xs := make([]float64, n)
	for i := range xs {
		if i < k {
			xs[i] = slow
		} else {
			xs[i] = pattern[(i-k)%4]
		}
	}
	return xs
}

// TestChangePointCutKnownAnswers runs the default rule on series whose
// answer follows from the shape of U_t.
func TestChangePointCutKnownAnswers(t *testing.T) {
	increasing := make([]float64, 400)
	for i := range increasing {
		increasing[i] = 100 + float64(i)
	}
	tests := []struct {
		name string
		xs   []float64
		cut  int
		sig  bool
	}{
		// A step of k slow requests: U_t peaks at k (see stepSeries).
		{"step of 40 in 400", stepSeries(40, 400, 500), 40, true},
		{"step of 10 in 1000", stepSeries(10, 1000, 500), 10, true},
		{"step of 150 in 3000", stepSeries(150, 3000, 500), 150, true},
		// Stationary: on long prefixes the pattern's running sums stay ≤ 0;
		// the shortest prefix (25) reaches K⁺ = 9, p ≈ 0.97 (worked out in
		// TestWarmupStationaryRun): not significant.
		{"stationary pattern", stepSeries(0, 400, 500), 0, false},
		// An increasing trend (a growing queue): U_t = −t(N−t) < 0.
		{"increasing trend", increasing, 0, false},
		// An early part that is faster (a load ramp): U_t ≤ 0 throughout.
		{"faster start", stepSeries(40, 400, 50), 0, false},
		// Shorter than the shortest prefix: not tested.
		{"19 values", stepSeries(5, 19, 500), 0, false},
	}
	for _, tt := range tests {
		got := ChangePointCut(tt.xs, 0.01, 0.02)
		if got.Cut != tt.cut || got.Significant != tt.sig {
			t.Errorf("%s: cut %d, significant %v (p %g, prefix %d, tests %d); want cut %d, significant %v",
				tt.name, got.Cut, got.Significant, got.Detection.P, got.Detection.N, got.Tests, tt.cut, tt.sig)
		}
	}
	// A change that is significant but small: 40 values of 101 then 360 of
	// 100 (every early value above every later one, so τ = 40), a
	// slowdown of 101/100 − 1 = 1 %: below 2 % nothing is cut.
	small := append(slices.Repeat([]float64{101}, 40), slices.Repeat([]float64{100}, 360)...)
	for _, tt := range []struct {
		min float64
		cut int
	}{{0.02, 0}, {0.005, 40}} {
		got := ChangePointCut(small, 0.01, tt.min)
		if !got.Significant || got.Located != 40 || !near(got.Slowdown, 0.01) || got.Cut != tt.cut {
			t.Errorf("1%% step, min slowdown %g: %+v; want significant, located 40, slowdown 0.01, cut %d", tt.min, got, tt.cut)
		}
	}
	// The prefixes of 400 values: 400, 200, 100, 50, 25: m = 5, α/m = 0.002.
	got := ChangePointCut(stepSeries(40, 400, 500), 0.01, 0.02)
	if got.Tests != 5 || !near(got.Threshold, 0.002) || len(got.U) != got.Detection.N-1 ||
		!near(got.Critical, math.Sqrt(-math.Log(0.002)*(math.Pow(float64(got.Detection.N), 3)+math.Pow(float64(got.Detection.N), 2))/6)) {
		t.Errorf("step of 40: %d tests, threshold %g, %d U values for prefix %d, critical %g", got.Tests, got.Threshold, len(got.U), got.Detection.N, got.Critical)
	}
}

// TestChangePointHorizon checks that a long run is looked at through its
// first ChangePointHorizon values only.
func TestChangePointHorizon(t *testing.T) {
	xs := stepSeries(40, 3*ChangePointHorizon, 500)
	got := ChangePointCut(xs, 0.01, 0.02)
	// 32768, 16384, …, 32, 16: lengths ≥ 20 are 32768 … 32, eleven prefixes.
	if got.Cut != 40 || got.Tests != 11 || got.Detection.N > ChangePointHorizon {
		t.Errorf("cut %d, %d tests, detection prefix %d; want 40, 11, ≤ %d", got.Cut, got.Tests, got.Detection.N, ChangePointHorizon)
	}
}

// TestMSERByHand checks MSER-5 on batch means worked by hand.
//
// Batches Z = 10 4 2 4 (k = 4, d ≤ 2):
//
//	d = 0: Z̄ = 5,    Σ(Z−Z̄)² = 25+1+9+1 = 36,          MSER = 36/16 = 2.25
//	d = 1: Z̄ = 10/3, Σ(Z−Z̄)² = 4/9+16/9+4/9 = 24/9,    MSER = (24/9)/9 = 8/27
//	d = 2: Z̄ = 3,    Σ(Z−Z̄)² = 1+1 = 2,                MSER = 2/4 = 0.5
//
// so d* = 1 and the cut is 5 values. With Z = 10 8 2 2 the minimum (0)
// is at d = 2 = ⌊k/2⌋, the boundary: no stable part, no verdict.
func TestMSERByHand(t *testing.T) {
	series := func(z ...float64) []float64 {
		var xs []float64
		for _, v := range z {
			// Batch mean v from values v−2 … v+2.
			xs = append(xs, v-2, v-1, v, v+1, v+2)
		}
		return append(xs, 99, 99) // a partial batch, left out
	}
	got := MSER(series(10, 4, 2, 4), 5)
	want := []float64{2.25, 8.0 / 27, 0.5}
	if got.Batches != 4 || len(got.Stat) != 3 || got.D != 1 || got.Cut != 5 || !got.Converged {
		t.Fatalf("MSER = %+v, want 4 batches, d* 1, cut 5, converged", got)
	}
	for d := range want {
		if !near(got.Stat[d], want[d]) {
			t.Errorf("MSER(%d) = %g, want %g", d, got.Stat[d], want[d])
		}
	}
	if got := MSER(series(10, 8, 2, 2), 5); got.D != 2 || got.Converged || got.Stat[2] != 0 {
		t.Errorf("boundary minimum: %+v, want d* 2, not converged", got)
	}
	if got := MSER([]float64{1, 2, 3, 4, 5, 6}, 5); got.Batches != 1 || got.Converged {
		t.Errorf("one batch: %+v, want no verdict", got)
	}
}

// warmupCases sets the size of the warm-up property test; the default
// keeps it to a few seconds, -warmup.cases=5000 is the larger version.
var warmupCases = flag.Int("warmup.cases", 300, "series per group in TestWarmupRulesProperty")

// warmupCase is one generated run: its warm-up length and its TTFT and
// TPOT series in send order.
type warmupCase struct {
	n, k       int
	ttft, tpot []float64
}

// genWarmupCase draws one run of the property test (k < 0 draws k):
//
//   - k, the warm-up length, uniform on 0 … 200; n, the run length, uniform
//     on max(200, 2k) … 5,000 (the change must lie in the first half);
//   - every value is median × a log-normal factor with coefficient of
//     variation c, c uniform on 0.1 … 0.5 per run (median 100–1,000 ms for
//     TTFT, 10–50 ms for TPOT);
//   - the first k values of each series are f times slower, f uniform on
//     2 … 5 per series (a step: the "first 40 requests 5× slower",
//     and milder);
//   - every value, warm-up or not, is a spike with probability q (q
//     uniform on 0.2 % … 2 % per run): 5–20 times larger, as large as the
//     warm-up slowdown or more (queue spikes, decode stalls).
func genWarmupCase(r *rand.Rand, k int) warmupCase {
	if k < 0 {
		k = r.IntN(201)
	}
	lo := max(200, 2*k)
	n := lo + r.IntN(5000-lo+1)
	cv := 0.1 + 0.4*r.Float64()
	spike := 0.002 + 0.018*r.Float64()
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	series := func(median float64) []float64 {
		f := 2 + 3*r.Float64()
		xs := make([]float64, n)
		for i := range xs {
			v := median * math.Exp(sigma*r.NormFloat64())
			if i < k {
				v *= f
			}
			if r.Float64() < spike {
				v *= 5 + 15*r.Float64()
			}
			xs[i] = v
		}
		return xs
	}
	c := warmupCase{n: n, k: k}
	c.ttft = series(100 + 900*r.Float64())
	c.tpot = series(10 + 40*r.Float64())
	return c
}

// runCut applies a warm-up rule to a generated run exactly as analysis
// does: every request has two output tokens, so TTFT and TPOT are both
// defined for every request, and rows are in send order.
func runCut(c warmupCase, wc ingest.WarmupConfig) int {
	req := &ingest.Requests{N: c.n, TTFTms: c.ttft, E2Ems: make([]float64, c.n), CompletionTokens: make([]int64, c.n)}
	order := make([]int, c.n)
	classes := make([]uint8, c.n)
	for i := range order {
		order[i] = i
		req.CompletionTokens[i] = 2
		req.E2Ems[i] = c.ttft[i] + c.tpot[i]
		classes[i] = classMulti
	}
	return warmup(req, order, OrderFile, classes, wc, ingest.Window{}).Discarded
}

// quantileInts returns the nearest-rank p-quantile of sorted xs.
func quantileInts(sorted []int, p float64) int {
	return sorted[oracleRankIndex(p, len(sorted))]
}

// TestWarmupRulesProperty measures each rule on generated runs: with a
// warm-up of k requests, how often the cut lands within ±5 of k; without
// one, how often it cuts at most 5. The default rule must reach 95 % on
// both; the others are measured for contrast (run with -v to see the
// distributions, -warmup.cases=5000 for the larger version).
func TestWarmupRulesProperty(t *testing.T) {
	n := *warmupCases
	r := rand.New(rand.NewPCG(2024, 11))
	var warm, stationary []warmupCase
	for i := 0; i < n; i++ {
		warm = append(warm, genWarmupCase(r, -1))
		stationary = append(stationary, genWarmupCase(r, 0))
	}
	def := ingest.DefaultConfig().Warmup
	rules := []struct {
		name string
		wc   ingest.WarmupConfig
		must bool
	}{
		{"changepoint α=0.01 (default)", def, true},
		{"mser5", ingest.WarmupConfig{Mode: ingest.WarmupMSER5}, false},
		{"stabilisation 10/2%/3", ingest.WarmupConfig{Mode: ingest.WarmupStabilisation, Window: 10, Tolerance: 0.02, Consecutive: 3}, false},
	}
	// Warm-up lengths are also reported in bands: short warm-ups are the
	// hard ones.
	bands := [][2]int{{0, 5}, {6, 30}, {31, 100}, {101, 200}}
	for _, rule := range rules {
		var errs, cuts []int
		within, small := 0, 0
		var inBand, withinBand, uncutBand [4]int
		for _, c := range warm {
			cut := runCut(c, rule.wc)
			e := cut - c.k
			errs = append(errs, e)
			ok := e >= -5 && e <= 5
			if ok {
				within++
			}
			for b, r := range bands {
				if c.k >= r[0] && c.k <= r[1] {
					inBand[b]++
					if ok {
						withinBand[b]++
					} else if cut == 0 {
						uncutBand[b]++
					}
				}
			}
		}
		for _, c := range stationary {
			cut := runCut(c, rule.wc)
			cuts = append(cuts, cut)
			if cut <= 5 {
				small++
			}
		}
		slices.Sort(errs)
		slices.Sort(cuts)
		var b strings.Builder
		fmt.Fprintf(&b, "%s: warm-up k: cut within ±5 of k in %.1f%% of %d; cut − k quantiles", rule.name, 100*float64(within)/float64(n), n)
		for _, p := range []float64{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99} {
			fmt.Fprintf(&b, " p%g %d", 100*p, quantileInts(errs, p))
		}
		fmt.Fprintf(&b, " (min %d, max %d); stationary: cut ≤ 5 in %.1f%%; cut quantiles p50 %d p95 %d p99 %d max %d",
			errs[0], errs[len(errs)-1], 100*float64(small)/float64(n), quantileInts(cuts, 0.5), quantileInts(cuts, 0.95), quantileInts(cuts, 0.99), cuts[len(cuts)-1])
		b.WriteString("; within ±5 of k by band:")
		for i, r := range bands {
			fmt.Fprintf(&b, " k %d–%d %d of %d (%d missed with no cut)", r[0], r[1], withinBand[i], inBand[i], uncutBand[i])
		}
		t.Log(b.String())
		if rule.must && (float64(within) < 0.95*float64(n) || float64(small) < 0.95*float64(n)) {
			t.Errorf("%s: within ±5 of k in %d of %d, cut ≤ 5 on stationary runs in %d of %d; want ≥ 95 %% each", rule.name, within, n, small, n)
		}
	}
}

// stepRun is a run of n requests (n = 5 output tokens each) whose TTFT
// follows stepSeries with k slow requests and whose TPOT is that series ÷ 8
// (exact in binary, so E2E − TTFT gives it back without rounding); sent,
// when true, gives every request a t_request_sent one second apart.
func stepRun(dir string, repeat, k, n int, sent bool) *ingest.Run {
	ttft := stepSeries(k, n, 500)
	var rs []req
	for i := 0; i < n; i++ {
		r := req{id: fmt.Sprintf("r%d", i), n: 5, ttft: ttft[i], e2e: ttft[i] + 4*ttft[i]/8}
		if sent {
			r.sent = 1_700_000_000 + float64(i)
		}
		rs = append(rs, r)
	}
	return makeRun(dir, 4, repeat, rs)
}

// TestWarmUpCountsAddUp: a level's and the sweep's counts are the sums of
// their runs': two runs with 30 of 300 requests cut as warm-up give 60
// warm-up and 540 measured requests.
func TestWarmUpCountsAddUp(t *testing.T) {
	s := Analyze(&ingest.Sweep{Config: ingest.DefaultConfig(), Runs: []*ingest.Run{stepRun("c4/r1", 1, 30, 300, false), stepRun("c4/r2", 2, 30, 300, false)}})
	for _, c := range []struct {
		name string
		c    Counts
	}{{"level", s.Levels[0].Counts}, {"accounting", s.Accounting.Requests}} {
		if c.c.Accepted != 600 || c.c.WarmUp != 60 || c.c.Measured != 540 {
			t.Errorf("%s counts %+v, want 600 accepted, 60 warm-up, 540 measured", c.name, c.c)
		}
	}
}

// TestStabilisationStopsWhenDecided: the stabilisation rule (blocks of 2,
// tolerance 10 %, one stable change) decides TTFT at its third block and
// ignores what follows, though TPOT, never stable, keeps the stream going.
// TTFT 500 500 | 100 100 | 100 100 | 500 500 | 500 500: the change from
// block 1 to 2 is 0, so the stable region starts at block 1, value 2 (a
// rule still listening would find blocks 3–4 stable and cut at 6). TPOT
// (E2E − TTFT over n − 1 = 1) has block medians 10 20 10 20 10, each a
// change of 50 % or more.
func TestStabilisationStopsWhenDecided(t *testing.T) {
	ttft := []float64{500, 500, 100, 100, 100, 100, 500, 500, 500, 500}
	tpot := []float64{10, 10, 20, 20, 10, 10, 20, 20, 10, 10}
	req := &ingest.Requests{N: len(ttft)}
	var order []int
	var classes []uint8
	for i := range ttft {
		req.TTFTms = append(req.TTFTms, ttft[i])
		req.E2Ems = append(req.E2Ems, ttft[i]+tpot[i])
		req.CompletionTokens = append(req.CompletionTokens, 2)
		order, classes = append(order, i), append(classes, classMulti)
	}
	vs := stabilisationVerdicts(req, order, classes, ingest.WarmupConfig{Window: 2, Tolerance: 0.1, Consecutive: 1})
	if len(vs) != 2 || vs[0].Outcome != WarmupCut || vs[0].Cut != 2 || vs[1].Outcome != WarmupNotStabilised {
		t.Fatalf("verdicts %+v; want TTFT cut at 2, TPOT not stabilised", vs)
	}
}

// TestCollectWarmupSeriesUpToLimit: each series holds its first limit
// values in send order and their positions: with limit 2, requests of
// classes multi, one, multi, multi give TTFT their positions 0 and 1, TPOT
// (multi-token requests only) 0 and 2.
func TestCollectWarmupSeriesUpToLimit(t *testing.T) {
	req := &ingest.Requests{N: 4, TTFTms: []float64{10, 11, 12, 13}, E2Ems: []float64{30, 31, 42, 53}, CompletionTokens: []int64{3, 1, 3, 3}}
	s := collectWarmupSeries(req, []int{0, 1, 2, 3}, []uint8{classMulti, classOne, classMulti, classMulti}, 2)
	for k, want := range []struct {
		vals []float64
		pos  []int32
	}{{[]float64{10, 11}, []int32{0, 1}}, {[]float64{10, 15}, []int32{0, 2}}} {
		if !slices.Equal(s[k].vals, want.vals) || !slices.Equal(s[k].pos, want.pos) {
			t.Errorf("%s: values %v at %v, want %v at %v", s[k].metric, s[k].vals, s[k].pos, want.vals, want.pos)
		}
	}
}

// TestMSERVerdictAtTwoBatches: two batches are enough for MSER-5 to
// decide. Batch means 1 and 2: MSER(0) = (0.25 + 0.25) / 2² = 0.125,
// MSER(1) = 0 on the boundary ⌊2/2⌋ = 1, so no stable second half (not
// stabilised); batch means both 1: MSER(0) = 0, converged at d = 0, no
// warm-up (not detected). One batch is too short to say anything.
func TestMSERVerdictAtTwoBatches(t *testing.T) {
	series := func(vals ...float64) warmupSeriesData {
		s := warmupSeriesData{metric: "TTFT", vals: vals}
		for i := range vals {
			s.pos = append(s.pos, int32(i))
		}
		return s
	}
	for _, tt := range []struct {
		name     string
		s        warmupSeriesData
		outcome  string
		tooShort bool
	}{
		{"means 1 and 2", series(1, 1, 1, 1, 1, 2, 2, 2, 2, 2), WarmupNotStabilised, false},
		{"means 1 and 1", series(1, 1, 1, 1, 1, 1, 1, 1, 1, 1), WarmupNotDetected, false},
		{"one batch", series(1, 1, 1, 1, 2, 2, 2, 2, 2), WarmupNotDetected, true},
	} {
		if v := mserVerdict(tt.s); v.Outcome != tt.outcome || v.tooShort != tt.tooShort || v.Cut != 0 {
			t.Errorf("%s: %q (too short %v, cut %d), want %q (too short %v, cut 0)", tt.name, v.Outcome, v.tooShort, v.Cut, tt.outcome, tt.tooShort)
		}
	}
}

// TestBlockChange: the stabilisation trace is each block's relative
// change of median from the previous block, over the tolerance (10 %):
// blocks of 2 with medians 100, 80, 100, 0, 0, 5 give, for the values
// t = 1 … 12, NaN in the first block, then 20/100/0.1 = 2, 20/80/0.1 =
// 2.5, 100/100/0.1 = 10, 0 (from 0 to 0), NaN (from 0 to 5); NaN beyond
// the last block and at t = 0; NaN throughout without a positive
// tolerance.
func TestBlockChange(t *testing.T) {
	f := blockChange([]float64{100, 80, 100, 0, 0, 5}, 2, 0.1)
	nan := math.NaN()
	want := []float64{nan, nan, nan, 2, 2, 2.5, 2.5, 10, 10, 0, 0, nan, nan, nan}
	for tt, w := range want {
		if got := f(tt); !sameNum(got, w) {
			t.Errorf("t = %d: %v, want %v", tt, got, w)
		}
	}
	// Without a positive tolerance there is no trace.
	for _, tol := range []float64{0, -0.1, math.NaN()} {
		if got := blockChange([]float64{100, 80}, 2, tol)(3); !math.IsNaN(got) {
			t.Errorf("tolerance %v: %v at t = 3, want NaN", tol, got)
		}
	}
}

func TestWarmupInARun(t *testing.T) {
	cfg := ingest.DefaultConfig()
	run := stepRun("c4/r1", 1, 30, 300, false)
	s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{run}})
	w := s.Runs[0].Warmup
	if w.Outcome != WarmupCut || w.Discarded != 30 || !w.Stabilised || w.Order != OrderFile || w.DecidedBy != "TTFT" || len(w.Series) != 2 {
		t.Fatalf("warm-up = %+v, want 30 cut by TTFT in file order", w)
	}
	for _, sr := range w.Series {
		if sr.Outcome != WarmupCut || sr.Cut != 30 || sr.Values != 300 || !(float64(sr.P) <= float64(sr.Threshold)) || sr.Prefix == 0 {
			t.Errorf("series %+v, want a significant cut of 30", sr)
		}
	}
	if c := s.Runs[0].Counts; c.WarmUp != 30 || c.Measured != 270 {
		t.Errorf("counts = %+v, want warm_up 30, measured 270", c)
	}
	if got := exclusionCount(s, "warm-up (change-point rule): discarded before measuring"); got != 30 {
		t.Errorf("exclusion count = %d, want 30", got)
	}
	// The trace: 2·30 + 200 = 260 requests, each with the statistic of
	// the detection prefix (U_t for t < its length); the statistic peaks at
	// request 30 and passes 1 there (significant).
	if len(w.Trace) != 260 || w.Trace[0].Index != 1 || w.Trace[259].Index != 260 {
		t.Fatalf("trace has %d points", len(w.Trace))
	}
	peak := 0
	for i, p := range w.Trace {
		inPrefix := p.Index < w.Series[0].Prefix
		if p.TTFTStat.Valid() != inPrefix || p.TPOTStat.Valid() != inPrefix || p.BlockMedian.Valid() {
			t.Fatalf("trace point %+v: want both statistics inside the prefix of %d and no block median", p, w.Series[0].Prefix)
		}
		if p.TTFTStat > w.Trace[peak].TTFTStat {
			peak = i
		}
	}
	if w.Trace[peak].Index != 30 || w.Trace[peak].TTFTStat < 1 {
		t.Errorf("TTFT statistic peaks at request %d (%g), want 30, ≥ 1", w.Trace[peak].Index, float64(w.Trace[peak].TTFTStat))
	}
	if lw := s.Levels[0].Warmup; lw.Runs != 1 || lw.CutMedian != 30 || lw.CutMin != 30 || lw.CutMax != 30 || lw.Discarded != 30 ||
		len(lw.Outcomes) != 1 || lw.Outcomes[0] != (ReasonCount{Reason: WarmupCut, Count: 1}) {
		t.Errorf("level warm-up = %+v", lw)
	}
	if !strings.Contains(s.Method.WarmupRule, "Pettitt 1979") || !strings.Contains(s.Method.WarmupRule, "α = 0.01") || s.Method.WarmupStatistic == "" {
		t.Errorf("method: %q / %q", s.Method.WarmupRule, s.Method.WarmupStatistic)
	}
}

// TestWarmupSendOrder checks the order the rule sees: t_request_sent when
// every request has one, file order when the times present agree with it,
// and no order (detection unavailable) when they contradict it.
func TestWarmupSendOrder(t *testing.T) {
	cfg := ingest.DefaultConfig()
	// Rows reversed in the file; t_request_sent puts the slow ones first.
	rev := stepRun("c4/r1", 1, 30, 300, true)
	q := rev.Requests.Requests
	slices.Reverse(q.TTFTms)
	slices.Reverse(q.E2Ems)
	slices.Reverse(q.TRequestSent)
	slices.Reverse(q.TLastText)
	// Some times missing but the rest in file order: file order.
	partial := stepRun("c4/r2", 2, 30, 300, true)
	partial.Requests.Requests.TRequestSent[100] = math.NaN()
	// Some times missing and the rest out of file order: unknown.
	unknown := stepRun("c4/r3", 3, 30, 300, true)
	unknown.Requests.Requests.TRequestSent[100] = math.NaN()
	unknown.Requests.Requests.TRequestSent[5], unknown.Requests.Requests.TRequestSent[6] = unknown.Requests.Requests.TRequestSent[6], unknown.Requests.Requests.TRequestSent[5]
	s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{rev, partial, unknown}})
	want := []struct {
		order, outcome string
		discarded      int
	}{
		{OrderSent, WarmupCut, 30},
		{OrderFile, WarmupCut, 30},
		{OrderUnknown, WarmupUnavailable, 0},
	}
	for i, w := range want {
		got := s.Runs[i].Warmup
		if got.Order != w.order || got.Outcome != w.outcome || got.Discarded != w.discarded {
			t.Errorf("%s: order %q, outcome %q, discarded %d; want %q, %q, %d", s.Runs[i].Dir, got.Order, got.Outcome, got.Discarded, w.order, w.outcome, w.discarded)
		}
	}
	if u := s.Runs[2].Warmup; u.Trace != nil || !strings.Contains(u.Note, "send order is unknown") {
		t.Errorf("unavailable: trace %d points, note %q", len(u.Trace), u.Note)
	}
	if f := findingRuns(s, "warm-up-unavailable"); !slices.Equal(f, []string{"c4/r3"}) {
		t.Errorf("warm-up-unavailable finding runs = %v", f)
	}
}

// findingRuns returns the runs of the finding with the given rule.
func findingRuns(s *Summary, rule string) []string {
	for _, f := range s.Findings {
		if f.Rule == rule {
			return f.Runs
		}
	}
	return nil
}

// TestWarmupModes checks the other modes on one run with a step of 30.
func TestWarmupModes(t *testing.T) {
	tests := []struct {
		wc        ingest.WarmupConfig
		outcome   string
		discarded int
		exclusion string
		finding   string
	}{
		{ingest.WarmupConfig{Mode: ingest.WarmupFixed, Count: 12}, WarmupFixedCount, 12, "warm-up (fixed override, not found from the data): discarded before measuring", "fixed-warm-up-count"},
		{ingest.WarmupConfig{Mode: ingest.WarmupFixed, Count: 5000}, WarmupFixedCount, 300, "warm-up (fixed override, not found from the data): discarded before measuring", "fixed-warm-up-count"},
		{ingest.WarmupConfig{Mode: ingest.WarmupNone}, WarmupDisabled, 0, "", "no-warm-up-handling"},
		// MSER-5 on TTFT: batches 1–6 have mean 500, the rest cycle through
		// 112 118 114 116 (the pattern in batches of 5), variance 5 per
		// batch; past d = 6, MSER(d) ≈ 5/(k−d) only grows, so d* = 6, a cut
		// of 30 (TPOT, the same ÷ 8, agrees).
		{ingest.WarmupConfig{Mode: ingest.WarmupMSER5}, WarmupCut, 30, "warm-up (MSER-5 rule): discarded before measuring", ""},
		// Stabilisation, blocks of 10: medians 500 500 500, then 115 in
		// every block (100 130 110 120 100 130 110 120 100 130 and
		// 110 120 100 130 110 120 100 130 110 120 both have median 115).
		// The changes from block 1 on are 0, 0, 0.77, 0, 0, 0: the streak
		// of 2 is broken at block 3, and blocks 4, 5, 6 make 3 in a row, so
		// the stable part starts at block 3: a cut of 30.
		{ingest.WarmupConfig{Mode: ingest.WarmupStabilisation, Window: 10, Tolerance: 0.02, Consecutive: 3}, WarmupCut, 30, "warm-up (stabilisation rule): discarded before measuring", ""},
	}
	for _, tt := range tests {
		cfg := ingest.DefaultConfig()
		cfg.Warmup = tt.wc
		s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{stepRun("c4/r1", 1, 30, 300, false)}})
		w := s.Runs[0].Warmup
		if w.Outcome != tt.outcome || w.Discarded != tt.discarded || w.Mode != tt.wc.Mode {
			t.Errorf("%s: outcome %q, discarded %d (%s); want %q, %d", tt.wc.Mode, w.Outcome, w.Discarded, w.Note, tt.outcome, tt.discarded)
		}
		if tt.exclusion != "" {
			if got := exclusionCount(s, tt.exclusion); got != tt.discarded {
				t.Errorf("%s: exclusion %q = %d, want %d", tt.wc.Mode, tt.exclusion, got, tt.discarded)
			}
		}
		if tt.finding != "" && !hasFinding(s, tt.finding) {
			t.Errorf("%s: no %s finding", tt.wc.Mode, tt.finding)
		}
	}
}

// TestWarmupTooSmallIsNotCut: a significant but 1 % slowdown of the first
// 40 requests' TTFT (TPOT constant) is not warm-up under the default 2 %.
func TestWarmupTooSmallIsNotCut(t *testing.T) {
	var rs []req
	for i := 0; i < 400; i++ {
		ttft := 100.0
		if i < 40 {
			ttft = 101
		}
		rs = append(rs, req{id: fmt.Sprintf("r%d", i), n: 3, ttft: ttft, e2e: ttft + 40})
	}
	s := Analyze(&ingest.Sweep{Config: ingest.DefaultConfig(), Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, rs)}})
	w := s.Runs[0].Warmup
	want := "TTFT is 1% slower before request 41, less than the 2% that counts as warm-up"
	if w.Outcome != WarmupNotDetected || w.Discarded != 0 || w.Note != want || !near(float64(w.Series[0].Slowdown), 0.01) || w.Series[1].Slowdown.Valid() {
		t.Errorf("warm-up = %+v, note %q; want no warm-up detected, note %q", w, w.Note, want)
	}
}

// FuzzChangePointCut: on any series, U_t from the ranks equals the double
// sum of its definition (for short series), and a cut lies in the first
// half of the series and only follows a significant, slower start.
//
//	go test ./analyze -run '^$' -fuzz FuzzChangePointCut -fuzztime 60s
func FuzzChangePointCut(f *testing.F) {
	f.Add([]byte{9, 9, 9, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21})
	f.Fuzz(func(t *testing.T, data []byte) {
		xs := make([]float64, len(data))
		for i, b := range data {
			xs[i] = float64(b%64) - 8 // ties, zero and negative values
		}
		if u := PettittU(xs); len(xs) <= 200 {
			for tt := 1; tt < len(xs); tt++ {
				var want float64
				for i := 0; i < tt; i++ {
					for j := tt; j < len(xs); j++ {
						switch {
						case xs[i] > xs[j]:
							want++
						case xs[i] < xs[j]:
							want--
						}
					}
				}
				if u[tt-1] != want {
					t.Fatalf("x = %v: U_%d = %g, want %g", xs, tt, u[tt-1], want)
				}
			}
		}
		var r ChangePointResult
		fuzzbudget.Check(t, "ChangePointCut", len(data), func() { r = ChangePointCut(xs, 0.01, 0) })
		if r.Cut < 0 || r.Cut > len(xs)/2 || (r.Cut > 0 && (!r.Significant || !(r.Slowdown >= 0))) {
			t.Fatalf("x = %v: %+v", xs, r)
		}
	})
}

// TestWarmupRuleText checks the method section's statement of each rule:
// its parameters and its source, in words. Tolerance 0.15 and minimum
// slowdown 0.07 are written as 15 % and 7 %, not as 100 × their float64
// (15.000000000000002, 7.000000000000001).
func TestWarmupRuleText(t *testing.T) {
	const both = "on the TTFT of every request with output and on the TPOT of every request with n ≥ 2, each in send order; the later of the two cuts is applied and the requests before it are discarded"
	tests := []struct {
		wc   ingest.WarmupConfig
		want string
	}{
		{ingest.WarmupConfig{Mode: ingest.WarmupNone}, "none: every request is measured"},
		{ingest.WarmupConfig{Mode: ingest.WarmupFixed, Count: 12},
			"fixed override: the first 12 requests in send order are discarded whatever the data show. The measurement rules discourage a fixed count (warm-up depends on framework, model, kernels and clocks); choose a rule that finds it"},
		{ingest.WarmupConfig{Mode: ingest.WarmupMSER5},
			"MSER-5, the marginal standard error rule (White 1997; batch size 5 as in White, Cobb and Spratt 2000), " + both +
				". The series is reduced to means Z₁ … Z_k of consecutive batches of 5 values; the cut is 5·d*, where d* (0 ≤ d* ≤ ⌊k/2⌋) minimises MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)². A minimum at ⌊k/2⌋ means no stable part was found: nothing is discarded"},
		{ingest.WarmupConfig{Mode: ingest.WarmupStabilisation, Window: 20, Tolerance: 0.15, Consecutive: 4},
			"stabilisation, the measurement protocol's illustrative heuristic (not a validated rule): in send order, the median of each block of 20 requests must change by less than 15% from the previous block 4 times in a row, for TTFT and for TPOT; requests before the first block of that streak are warm-up and discarded"},
		{ingest.WarmupConfig{Mode: ingest.WarmupChangePoint, Alpha: 0.05, MinSlowdown: 0.07},
			"change point, Pettitt's rank test for one change in location (Pettitt 1979), " + both + ". " +
				"On each prefix of the series of length L = L₀, L₀/2, L₀/4, … ≥ 20 (L₀ = the series length, at most 32,768), " +
				"U_t = 2·Σ_{i≤t} r_i − t(L+1) (r_i the mid-ranks) and K = max U_t over t ≤ L/2, the early part being the slower; " +
				"the prefix with the smallest p ≈ exp(−6K²/(L³+L²)) is significant when p ≤ α/m, α = 0.05, m = the number of prefixes tested. " +
				"Its change point τ is then located as the t ≤ τ maximising U_t over the first 2τ values, " +
				"and the requests before it are warm-up when their median is at least 7% above the median of the rest of the prefix. " +
				"Not significant, or a smaller slowdown: no warm-up detected, nothing is discarded; an early part that is faster (a load ramp) is never cut"},
	}
	for _, tt := range tests {
		if got := warmupRuleText(tt.wc); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.wc.Mode, got, tt.want)
		}
	}
	for x, want := range map[float64]string{0.15: "15", 0.07: "7", 0.02: "2", 0.005: "0.5", 0.333: "33.3"} {
		if got := percentText(x); got != want {
			t.Errorf("percentText(%g) = %q, want %q", x, got, want)
		}
	}
}

// TestWarmupStationaryRun: a run without warm-up (stepSeries with k = 0,
// 100 130 110 120 repeated) is not cut and says "no warm-up detected", with
// no note, no exclusion and no warm-up count. The least unlikely prefix is
// the shortest, 25 values: seven 100s (mid-rank 4), six each of 110
// (10.5), 120 (16.5) and 130 (22.5), so with N+1 = 26 each value moves U_t
// by 2r − 26 = −18, +19, −5, +7 in pattern order, and the running sums over
// t ≤ 12 are −18, 1, −4, 3, −15, 4, −1, 6, −12, 7, 2, 9: K⁺ = 9 at t = 12,
// p = exp(−6·81/(25³+25²)) = exp(−486/16250) ≈ 0.97, far above α/m.
func TestWarmupStationaryRun(t *testing.T) {
	s := Analyze(&ingest.Sweep{Config: ingest.DefaultConfig(), Runs: []*ingest.Run{stepRun("c4/r1", 1, 0, 400, false)}})
	w := s.Runs[0].Warmup
	if w.Outcome != WarmupNotDetected || w.Discarded != 0 || w.Note != "" || !w.Stabilised || w.DecidedBy != "" || len(w.Series) != 2 {
		t.Fatalf("warm-up = %+v, want no warm-up detected, nothing discarded, no note", w)
	}
	for _, sr := range w.Series {
		// 400, 200, 100, 50, 25: m = 5 prefixes, α/m = 0.002.
		if sr.Outcome != WarmupNotDetected || sr.Cut != 0 || sr.Values != 400 || sr.Prefix != 25 || !near(float64(sr.P), math.Exp(-486.0/16250)) ||
			!near(float64(sr.Threshold), 0.002) || sr.Slowdown.Valid() {
			t.Errorf("series %+v, want not detected on the prefix of 25, p exp(−486/16250), threshold 0.002", sr)
		}
	}
	if c := s.Runs[0].Counts; c.WarmUp != 0 || c.Measured != 400 {
		t.Errorf("counts = %+v, want warm_up 0, measured 400", c)
	}
	if got := exclusionCount(s, "warm-up (change-point rule): discarded before measuring"); got != 0 {
		t.Errorf("warm-up exclusion = %d, want none", got)
	}
	if lw := s.Levels[0].Warmup; lw.Runs != 1 || lw.CutMedian != 0 || lw.CutMax != 0 || lw.Discarded != 0 ||
		len(lw.Outcomes) != 1 || lw.Outcomes[0] != (ReasonCount{Reason: WarmupNotDetected, Count: 1}) {
		t.Errorf("level warm-up = %+v", lw)
	}
}

// TestMSERNoStableHalfNote: on a steadily rising series (TTFT 100, 101, …;
// TPOT the same ÷ 8) the batch means rise by 5 per batch, so the spread of
// the batches kept, and MSER(d), falls with every batch dropped: the
// minimum lies on the boundary ⌊k/2⌋ for both series, nothing is cut, and
// the note names both.
func TestMSERNoStableHalfNote(t *testing.T) {
	var rs []req
	for i := 0; i < 300; i++ {
		ttft := 100 + float64(i)
		rs = append(rs, req{id: fmt.Sprintf("r%d", i), n: 5, ttft: ttft, e2e: ttft + 4*ttft/8})
	}
	cfg := ingest.DefaultConfig()
	cfg.Warmup = ingest.WarmupConfig{Mode: ingest.WarmupMSER5}
	s := Analyze(&ingest.Sweep{Config: cfg, Runs: []*ingest.Run{makeRun("c1/r1", 1, 1, rs)}})
	w := s.Runs[0].Warmup
	want := "TTFT and TPOT have no stable second half under MSER-5 (its minimum lies on the boundary ⌊k/2⌋); no request was discarded"
	if w.Outcome != WarmupNotStabilised || w.Discarded != 0 || w.Note != want {
		t.Errorf("warm-up = %+v, note %q; want never stabilised, note %q", w, w.Note, want)
	}
	if !hasFinding(s, "warm-up-never-stabilised") {
		t.Error("no warm-up-never-stabilised finding")
	}
}
