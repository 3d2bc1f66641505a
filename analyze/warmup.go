package analyze

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// Warm-up is found per run, in send order, on two series: the TTFT of every
// successful request with output (n ≥ 1) and the TPOT of every successful
// request with n ≥ 2. The rule is applied to each series on its own and the
// later of the two cuts is applied to the run; requests before it (failed
// ones included) are discarded. The rules:
//
//   - changepoint (the default): Pettitt's rank test, see ChangePointCut.
//   - mser5: MSER-5, see MSER.
//   - stabilisation: the measurement protocol's illustrative heuristic,
//     see StabilisationCut.
//   - fixed: a fixed count, an explicit override.
//   - none: nothing is discarded.

// WarmupRule holds the stabilisation rule's parameters: warm-up ends when
// the median of consecutive blocks of Window requests changes by less than
// Tolerance (relative) Consecutive times in a row.
type WarmupRule struct {
	Window      int
	Tolerance   float64
	Consecutive int
}

// StabilisationCut applies the rule to one series of values in send order.
// Block k holds values [k·W, (k+1)·W); m_k is its median. The first k for
// which the relative changes |m_j − m_{j−1}| / m_{j−1} are below Tolerance
// for every j in k..k+Consecutive−1 marks the stable region, which starts
// at block k−1; everything before it is warm-up. It returns the number of
// leading values to discard and whether the rule held at all.
func StabilisationCut(values []float64, rule WarmupRule) (cut int, stabilised bool) {
	s := newStabiliser(rule)
	for i, v := range values {
		if s.add(v, i) {
			break
		}
	}
	return s.result()
}

// stabiliser applies the rule to a stream of values, one at a time, so a
// run's series need not be stored: it keeps one block and the start
// positions of the last few blocks.
type stabiliser struct {
	rule    WarmupRule
	block   []float64
	sorted  []float64
	starts  []int // start position of recent blocks, a ring of Consecutive+1
	blocks  int   // complete blocks so far
	prev    float64
	streak  int
	done    bool
	cut     int
	invalid bool
}

func newStabiliser(rule WarmupRule) *stabiliser {
	if rule.Window < 1 || rule.Consecutive < 1 {
		return &stabiliser{invalid: true}
	}
	return &stabiliser{
		rule:   rule,
		block:  make([]float64, 0, rule.Window),
		sorted: make([]float64, rule.Window),
		starts: make([]int, rule.Consecutive+1),
	}
}

// add takes the next value, at position pos of the caller's order, and
// reports whether the rule has been decided (further values are ignored).
func (s *stabiliser) add(v float64, pos int) bool {
	if s.done || s.invalid {
		return true
	}
	ring := len(s.starts)
	if len(s.block) == 0 {
		s.starts[s.blocks%ring] = pos
	}
	s.block = append(s.block, v)
	if len(s.block) < s.rule.Window {
		return false
	}
	copy(s.sorted, s.block)
	insertionSort(s.sorted)
	w := s.rule.Window
	m := s.sorted[w/2]
	if w%2 == 0 {
		m = (s.sorted[w/2-1] + s.sorted[w/2]) / 2
	}
	s.block = s.block[:0]
	j := s.blocks
	s.blocks++
	if j == 0 {
		s.prev = m
		return false
	}
	change := math.Inf(1)
	if s.prev != 0 {
		change = math.Abs(m-s.prev) / math.Abs(s.prev)
	} else if m == 0 {
		change = 0
	}
	s.prev = m
	if change < s.rule.Tolerance {
		s.streak++
	} else {
		s.streak = 0
	}
	if s.streak == s.rule.Consecutive {
		// The first stable change compares block j−Consecutive with the
		// next: the stable region starts at block j−Consecutive.
		s.cut = s.starts[(j-s.rule.Consecutive)%ring]
		s.done = true
	}
	return s.done
}

// result returns the position to cut at and whether the rule held.
func (s *stabiliser) result() (int, bool) { return s.cut, s.done }

// sendOrder returns request indices in send order and how that order was
// known: by t_request_sent when every request has one (ties keep file
// order); else file order, the documented fallback, unless the send times
// some rows do have contradict it, in which case the order is unknown (the
// indices are then in file order, and warm-up detection is unavailable).
func sendOrder(r *ingest.Requests) ([]int, string) {
	if r.TRequestSent == nil {
		return identityOrder(r.N), OrderFile
	}
	missing := false
	last := math.Inf(-1)
	consistent := true
	for _, t := range r.TRequestSent {
		if math.IsNaN(t) {
			missing = true
			continue
		}
		if t < last {
			consistent = false
		}
		last = t
	}
	switch {
	case !missing:
		return stableOrderByKey(r.TRequestSent), OrderSent
	case consistent:
		return identityOrder(r.N), OrderFile
	}
	return identityOrder(r.N), OrderUnknown
}

// identityOrder is 0 … n−1: the rows in file order.
func identityOrder(n int) []int {
	order := intScratch.take(n)[:n]
	for i := range order {
		order[i] = i
	}
	return order
}

// warmupRuleText states the configured rule in words, with its parameters
// and its source, for the method section.
func warmupRuleText(w ingest.WarmupConfig) string {
	const both = "on the TTFT of every request with output and on the TPOT of every request with n ≥ 2, each in send order; the later of the two cuts is applied and the requests before it are discarded"
	switch w.Mode {
	case ingest.WarmupNone:
		return "none: every request is measured"
	case ingest.WarmupFixed:
		return fmt.Sprintf("fixed override: the first %d requests in send order are discarded whatever the data show. The measurement rules discourage a fixed count (warm-up depends on framework, model, kernels and clocks); choose a rule that finds it", w.Count)
	case ingest.WarmupMSER5:
		return "MSER-5, the marginal standard error rule (White 1997; batch size 5 as in White, Cobb and Spratt 2000), " + both +
			". The series is reduced to means Z₁ … Z_k of consecutive batches of 5 values; the cut is 5·d*, where d* (0 ≤ d* ≤ ⌊k/2⌋) minimises MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)². A minimum at ⌊k/2⌋ means no stable part was found: nothing is discarded"
	case ingest.WarmupStabilisation:
		return fmt.Sprintf("stabilisation, the measurement protocol's illustrative heuristic (not a validated rule): in send order, the median of each block of %d requests must change by less than %s%% from the previous block %d times in a row, for TTFT and for TPOT; requests before the first block of that streak are warm-up and discarded", w.Window, percentText(w.Tolerance), w.Consecutive)
	}
	return fmt.Sprintf("change point, Pettitt's rank test for one change in location (Pettitt 1979), %s. "+
		"On each prefix of the series of length L = L₀, L₀/2, L₀/4, … ≥ %d (L₀ = the series length, at most %s), "+
		"U_t = 2·Σ_{i≤t} r_i − t(L+1) (r_i the mid-ranks) and K = max U_t over t ≤ L/2, the early part being the slower; "+
		"the prefix with the smallest p ≈ exp(−6K²/(L³+L²)) is significant when p ≤ α/m, α = %g, m = the number of prefixes tested. "+
		"Its change point τ is then located as the t ≤ τ maximising U_t over the first 2τ values, "+
		"and the requests before it are warm-up when their median is at least %s%% above the median of the rest of the prefix. "+
		"Not significant, or a smaller slowdown: no warm-up detected, nothing is discarded; an early part that is faster (a load ramp) is never cut",
		both, ChangePointMinPrefix, textfmt.Thousands(ChangePointHorizon), w.Alpha, percentText(w.MinSlowdown))
}

// warmupStatisticText says what the warm-up trace's statistic is.
func warmupStatisticText(mode string) string {
	switch mode {
	case ingest.WarmupChangePoint:
		return "Pettitt's U_t on the most significant prefix ÷ its critical value at α/m (the test is significant where the curve's maximum over the first half reaches 1)"
	case ingest.WarmupMSER5:
		return "MSER(d) ÷ MSER(0) for a cut of 5d values (the cut is at its minimum)"
	case ingest.WarmupStabilisation:
		return "relative change of the block median from the previous block ÷ tolerance (below 1 counts as stable)"
	}
	return ""
}

// percentText writes a fraction as a percentage without the float noise
// of the multiplication (100 × 0.15 is 15.000000000000002 in float64).
func percentText(x float64) string {
	return strconv.FormatFloat(roundSignificant(100*x, 12), 'g', -1, 64)
}

// warmupSeriesData is one series a rule looks at: values in send order and
// each value's position in send order.
type warmupSeriesData struct {
	metric string
	vals   []float64
	pos    []int32
}

// collectWarmupSeries gathers the TTFT and TPOT series in send order, each
// up to limit values.
func collectWarmupSeries(req *ingest.Requests, order []int, classes []uint8, limit int) [2]warmupSeriesData {
	var count [2]int
	for _, c := range classes {
		if c == classOne || c == classMulti {
			count[0]++
		}
		if c == classMulti {
			count[1]++
		}
	}
	s := [2]warmupSeriesData{{metric: "TTFT"}, {metric: "TPOT"}}
	for k := range s {
		s[k].vals = make([]float64, 0, min(count[k], limit))
		s[k].pos = make([]int32, 0, min(count[k], limit))
	}
	for pos, i := range order {
		c := classes[i]
		if (c == classOne || c == classMulti) && len(s[0].vals) < limit {
			s[0].vals = append(s[0].vals, req.TTFTms[i])
			s[0].pos = append(s[0].pos, int32(pos))
		}
		if c == classMulti && len(s[1].vals) < limit {
			s[1].vals = append(s[1].vals, tpotOf(req, i))
			s[1].pos = append(s[1].pos, int32(pos))
		}
		if len(s[0].vals) >= limit && len(s[1].vals) >= limit {
			break
		}
	}
	return s
}

// tpotOf is request i's TPOT (n ≥ 2).
func tpotOf(req *ingest.Requests, i int) float64 {
	return (req.E2Ems[i] - req.TTFTms[i]) / float64(req.CompletionTokens[i]-1)
}

// seriesVerdict is a rule's verdict on one series, with the statistic the
// trace shows: stat(t) for a cut after the series' first t values.
type seriesVerdict struct {
	WarmupSeries
	stat func(t int) float64
	// tooShort marks a series too short for the rule to test.
	tooShort bool
	// small says why a significant change was not cut (too small).
	small string
}

// sendCut turns a cut of c series values into a count of requests in send
// order: everything before the series' value number c+1.
func (s warmupSeriesData) sendCut(c int) int {
	if c <= 0 || c > len(s.pos) {
		return 0
	}
	if c == len(s.pos) {
		return int(s.pos[c-1]) + 1
	}
	return int(s.pos[c])
}

// changePointVerdict applies the change-point rule to one series.
func changePointVerdict(s warmupSeriesData, alpha, minSlowdown float64) seriesVerdict {
	r := ChangePointCut(s.vals, alpha, minSlowdown)
	v := seriesVerdict{WarmupSeries: WarmupSeries{Metric: s.metric, Values: len(s.vals), Outcome: WarmupNotDetected, P: NaN, Threshold: NaN, Slowdown: NaN}}
	v.tooShort = r.Tests == 0
	if r.Tests > 0 {
		v.P, v.Threshold, v.Prefix = Num(r.Detection.P), Num(r.Threshold), r.Detection.N
		v.stat = func(t int) float64 {
			if t < 1 || t > len(r.U) || !(r.Critical > 0) {
				return math.NaN()
			}
			return r.U[t-1] / r.Critical
		}
	}
	v.Slowdown = Num(r.Slowdown)
	if r.Cut > 0 {
		v.Outcome, v.Cut = WarmupCut, s.sendCut(r.Cut)
	} else if r.Significant {
		v.small = fmt.Sprintf("%s is %.2g%% slower before request %d, less than the %s%% that counts as warm-up", s.metric, 100*r.Slowdown, s.sendCut(r.Located)+1, percentText(minSlowdown))
	}
	return v
}

// mserVerdict applies MSER-5 to one series.
func mserVerdict(s warmupSeriesData) seriesVerdict {
	r := MSER(s.vals, MSERBatch)
	v := seriesVerdict{WarmupSeries: WarmupSeries{Metric: s.metric, Values: len(s.vals), Outcome: WarmupNotStabilised, P: NaN, Threshold: NaN, Slowdown: NaN}}
	if r.Batches < 2 {
		// Too short to say anything: it imposes no cut.
		v.Outcome, v.tooShort = WarmupNotDetected, true
		return v
	}
	if r.Converged {
		v.Outcome, v.Cut = WarmupNotDetected, s.sendCut(r.Cut)
		if v.Cut > 0 {
			v.Outcome = WarmupCut
		}
	}
	v.stat = func(t int) float64 {
		d := t / MSERBatch
		if d >= len(r.Stat) || !(r.Stat[0] > 0) {
			return math.NaN()
		}
		return r.Stat[d] / r.Stat[0]
	}
	return v
}

// warmup applies the configured warm-up rule to one run.
func warmup(req *ingest.Requests, order []int, basis string, classes []uint8, wc ingest.WarmupConfig, window ingest.Window) WarmupResult {
	res := WarmupResult{Mode: wc.Mode, Order: basis}
	var verdicts []seriesVerdict
	switch {
	case wc.Mode == ingest.WarmupNone:
		res.Outcome = WarmupDisabled
		res.Note = "warm-up handling disabled (warmup: none): every request is measured"
	case basis == OrderUnknown:
		res.Outcome = WarmupUnavailable
		res.Note = "warm-up detection unavailable: some requests have no t_request_sent and the send times present contradict the file order, so the send order is unknown; no request was discarded"
	case wc.Mode == ingest.WarmupFixed:
		res.Outcome = WarmupFixedCount
		res.Discarded = min(wc.Count, len(order))
		res.Note = fmt.Sprintf("fixed override: the first %d requests in send order were discarded (a fixed count, not found from the data)", res.Discarded)
	case wc.Mode == ingest.WarmupStabilisation:
		verdicts = stabilisationVerdicts(req, order, classes, wc)
	default:
		limit := len(order)
		if wc.Mode == ingest.WarmupChangePoint {
			limit = ChangePointHorizon
		}
		for _, s := range collectWarmupSeries(req, order, classes, limit) {
			if wc.Mode == ingest.WarmupMSER5 {
				verdicts = append(verdicts, mserVerdict(s))
			} else {
				verdicts = append(verdicts, changePointVerdict(s, wc.Alpha, wc.MinSlowdown))
			}
		}
	}
	if verdicts != nil {
		combineVerdicts(&res, verdicts)
	}
	if res.Discarded > 0 && window.Known() {
		start := float64(window.Start.UnixNano()) / 1e9
		for _, i := range order[:res.Discarded] {
			if t := completionTime(req, i); !math.IsNaN(t) && t > start {
				res.OverlapsWindow = true
				break
			}
		}
	}
	if res.Outcome != WarmupUnavailable {
		res.Trace = warmupTrace(req, order, classes, wc, res.Discarded, verdicts)
	}
	return res
}

// combineVerdicts applies the later of the series' cuts when every series
// reached a verdict.
func combineVerdicts(res *WarmupResult, vs []seriesVerdict) {
	var unstable []string
	for _, v := range vs {
		res.Series = append(res.Series, v.WarmupSeries)
		if v.Outcome == WarmupNotStabilised {
			unstable = append(unstable, v.Metric)
		}
	}
	if len(unstable) > 0 {
		res.Outcome = WarmupNotStabilised
		what := "never stabilised under the rule"
		if res.Mode == ingest.WarmupMSER5 {
			verb := "has"
			if len(unstable) > 1 {
				verb = "have"
			}
			what = verb + " no stable second half under MSER-5 (its minimum lies on the boundary ⌊k/2⌋)"
		}
		res.Note = fmt.Sprintf("%s %s; no request was discarded", strings.Join(unstable, " and "), what)
		return
	}
	res.Stabilised = true
	res.Outcome = WarmupNotDetected
	var short []string
	for _, v := range vs {
		if v.tooShort {
			short = append(short, fmt.Sprintf("%d %s values", v.Values, v.Metric))
		}
	}
	if len(short) == len(vs) {
		res.Note = fmt.Sprintf("too few requests to look for warm-up (%s); no request was discarded", strings.Join(short, ", "))
	}
	var small []string
	for _, v := range vs {
		if v.small != "" {
			small = append(small, v.small)
		}
	}
	if len(small) > 0 {
		res.Note = strings.Join(small, "; ")
	}
	for _, v := range vs {
		if v.Cut > res.Discarded {
			res.Discarded, res.DecidedBy = v.Cut, v.Metric
		}
	}
	if res.Discarded > 0 {
		res.Outcome = WarmupCut
	}
}

// stabilisationVerdicts applies the stabilisation rule to TTFT and TPOT
// as a stream (no series is stored), as it always has.
func stabilisationVerdicts(req *ingest.Requests, order []int, classes []uint8, wc ingest.WarmupConfig) []seriesVerdict {
	rule := WarmupRule{Window: wc.Window, Tolerance: wc.Tolerance, Consecutive: wc.Consecutive}
	ttft, tpot := newStabiliser(rule), newStabiliser(rule)
	var n [2]int
	for pos, i := range order {
		switch classes[i] {
		case classOne:
			n[0]++
			ttft.add(req.TTFTms[i], pos)
		case classMulti:
			n[0]++
			n[1]++
			ttft.add(req.TTFTms[i], pos)
			tpot.add(tpotOf(req, i), pos)
		}
		if ttft.done && tpot.done {
			break
		}
	}
	var out []seriesVerdict
	for k, s := range []*stabiliser{ttft, tpot} {
		v := seriesVerdict{WarmupSeries: WarmupSeries{Metric: [2]string{"TTFT", "TPOT"}[k], Values: n[k], Outcome: WarmupNotStabilised, P: NaN, Threshold: NaN, Slowdown: NaN}}
		if cut, ok := s.result(); ok {
			v.Outcome, v.Cut = WarmupNotDetected, cut
			if cut > 0 {
				v.Outcome = WarmupCut
			}
		}
		out = append(out, v)
	}
	return out
}

// Trace bounds: at least traceMin requests, at most traceMaxPoints points.
const (
	traceMin       = 200
	traceMaxPoints = 2000
)

// warmupTrace follows the first requests in send order: their TTFT, the
// stabilisation rule's block median, and each series' statistic for a
// cut right after the request.
func warmupTrace(req *ingest.Requests, order []int, classes []uint8, wc ingest.WarmupConfig, discarded int, vs []seriesVerdict) []WarmupPoint {
	limit := min(len(order), 2*discarded+traceMin)
	stride := (limit + traceMaxPoints - 1) / traceMaxPoints
	var stats [2]func(int) float64
	for _, v := range vs {
		if v.Metric == "TPOT" {
			stats[1] = v.stat
		} else {
			stats[0] = v.stat
		}
	}
	// The stabilisation rule's blocks, over the traced requests' TTFT and
	// TPOT (complete blocks only), so the plot shows what the rule compared.
	stabilisation := wc.Mode == ingest.WarmupStabilisation && wc.Window > 0
	var vals, medians [2][]float64
	if stabilisation {
		// Each series up to the end of the block its last traced value
		// falls in.
		var need [2]int
		for _, i := range order[:limit] {
			switch classes[i] {
			case classOne:
				need[0]++
			case classMulti:
				need[0]++
				need[1]++
			}
		}
		w := wc.Window
		for k := range need {
			need[k] = (need[k] + w - 1) / w * w
		}
		for _, i := range order {
			if len(vals[0]) >= need[0] && len(vals[1]) >= need[1] {
				break
			}
			c := classes[i]
			if (c == classOne || c == classMulti) && len(vals[0]) < need[0] {
				vals[0] = append(vals[0], req.TTFTms[i])
			}
			if c == classMulti && len(vals[1]) < need[1] {
				vals[1] = append(vals[1], tpotOf(req, i))
			}
		}
		for k := range stats {
			medians[k] = blockMedians(vals[k], w)
			stats[k] = blockChange(medians[k], w, wc.Tolerance)
		}
	}
	var seen [2]int // values of each series up to the current request
	var pts []WarmupPoint
	for pos := 0; pos < limit; pos++ {
		i := order[pos]
		switch classes[i] {
		case classOne:
			seen[0]++
		case classMulti:
			seen[0]++
			seen[1]++
		}
		if pos%stride != 0 && pos != discarded-1 && pos != discarded {
			continue
		}
		p := WarmupPoint{Index: pos + 1, TTFTms: NaN, BlockMedian: NaN, TTFTStat: NaN, TPOTStat: NaN}
		if c := classes[i]; c == classOne || c == classMulti {
			p.TTFTms = Num(req.TTFTms[i])
		}
		if stabilisation && seen[0] > 0 {
			if b := (seen[0] - 1) / wc.Window; b < len(medians[0]) {
				p.BlockMedian = Num(medians[0][b])
			}
		}
		for k, f := range stats {
			if f == nil {
				continue
			}
			v := Num(roundSignificant(f(seen[k]), 4))
			if k == 0 {
				p.TTFTStat = v
			} else {
				p.TPOTStat = v
			}
		}
		pts = append(pts, p)
	}
	return pts
}

// blockMedians returns the median of each complete block of w values.
func blockMedians(vals []float64, w int) []float64 {
	var out []float64
	block := make([]float64, w)
	for b := 0; (b+1)*w <= len(vals); b++ {
		copy(block, vals[b*w:(b+1)*w])
		out = append(out, Median(block))
	}
	return out
}

// blockChange returns, for the stabilisation rule, the relative change of
// the median of the block holding the t-th value from the previous
// block's median, divided by the tolerance (NaN in the first block, in an
// incomplete one, and after a median of 0).
func blockChange(medians []float64, w int, tol float64) func(t int) float64 {
	return func(t int) float64 {
		if t < 1 || !(tol > 0) {
			return math.NaN()
		}
		b := (t - 1) / w
		if b < 1 || b >= len(medians) {
			return math.NaN()
		}
		prev := medians[b-1]
		switch {
		case prev != 0:
			return math.Abs(medians[b]-prev) / math.Abs(prev) / tol
		case medians[b] == 0:
			return 0
		}
		return math.NaN() // a relative change from 0: the rule counts it as unstable
	}
}

// levelWarmup sums up the warm-up of a level's usable runs.
func levelWarmup(runs []RunSummary) WarmupLevel {
	lw := WarmupLevel{CutMedian: NaN}
	var cuts []float64
	counts := map[string]int{}
	for _, r := range runs {
		if r.Failed {
			continue
		}
		lw.Runs++
		d := r.Warmup.Discarded
		cuts = append(cuts, float64(d))
		if lw.Runs == 1 || d < lw.CutMin {
			lw.CutMin = d
		}
		lw.CutMax = max(lw.CutMax, d)
		lw.Discarded += d
		counts[r.Warmup.Outcome]++
	}
	if len(cuts) > 0 {
		lw.CutMedian = Num(Median(cuts))
	}
	for _, o := range []string{WarmupCut, WarmupNotDetected, WarmupNotStabilised, WarmupUnavailable, WarmupFixedCount, WarmupDisabled} {
		if counts[o] > 0 {
			lw.Outcomes = append(lw.Outcomes, ReasonCount{Reason: o, Count: counts[o]})
		}
	}
	return lw
}

// warmupExclusion is the exclusion reason for requests cut as warm-up.
func warmupExclusion(w ingest.WarmupConfig) string {
	switch w.Mode {
	case ingest.WarmupFixed:
		return "warm-up (fixed override, not found from the data): discarded before measuring"
	case ingest.WarmupMSER5:
		return "warm-up (MSER-5 rule): discarded before measuring"
	case ingest.WarmupStabilisation:
		return "warm-up (stabilisation rule): discarded before measuring"
	}
	return "warm-up (change-point rule): discarded before measuring"
}

// roundSignificant rounds x to the given number of significant digits: the
// trace's statistic is drawn, never computed with, and four digits keep
// summary.json small.
func roundSignificant(x float64, digits int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	scale := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*scale) / scale
}
