package analyze

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

// Request classes, per the measurement rules.
const (
	classError = iota // status ≠ ok: not a latency sample
	classZero         // n = 0: not a latency sample
	classOne          // n = 1: TTFT and E2E only
	classMulti        // n ≥ 2: every per-request metric
)

// samples are one run's per-request samples, kept for pooling.
type samples struct {
	ttft, e2e, tpot, itl []float64
	prompt, output       []float64
}

// runInput bundles what analyzing one run needs.
type runInput struct {
	run *ingest.Run
	cfg ingest.Config
	led *ledger
}

// classify returns the class of request i.
func classify(r *ingest.Requests, i int) uint8 {
	if r.Status != nil && ingest.StatusFailed(r.Status[i]) {
		return classError
	}
	switch n := r.CompletionTokens[i]; {
	case n == 0:
		return classZero
	case n == 1:
		return classOne
	default:
		return classMulti
	}
}

// dropMarked removes from order the requests the source tool marked as
// warm-up or cool-down and counts them.
func dropMarked(req *ingest.Requests, order []int) (kept []int, warm, cool int) {
	if req.Phase == nil {
		return order, 0, 0
	}
	kept = order[:0:0]
	for _, i := range order {
		switch req.Phase[i] {
		case ingest.PhaseWarmup:
			warm++
		case ingest.PhaseCooldown:
			cool++
		default:
			kept = append(kept, i)
		}
	}
	return kept, warm, cool
}

// completionTime is when request i ended, in unix seconds, or NaN.
func completionTime(r *ingest.Requests, i int) float64 {
	if r.TLastText != nil && !math.IsNaN(r.TLastText[i]) {
		return r.TLastText[i]
	}
	if r.TRequestSent != nil && !math.IsNaN(r.TRequestSent[i]) {
		return r.TRequestSent[i] + r.E2Ems[i]/1000
	}
	return math.NaN()
}

// analyzeRun computes one run's summary and returns its samples for pooling.
func analyzeRun(in runInput) (RunSummary, samples) {
	run, cfg, led := in.run, in.cfg, in.led
	rs := RunSummary{Dir: run.Dir, LevelKey: levelKey(runLoad(run)), Repeat: run.Repeat}
	var smp samples
	if run.Failed || run.Requests == nil {
		rs.Failed = true
		rs.FailReason = "run could not be read"
		for _, d := range run.Diagnostics {
			if d.Severity == ingest.Error {
				rs.FailReason = d.String()
				break
			}
		}
		led.add(ScopeRun, "run failed: "+failCategory(run), 1, rs.FailReason)
		rs.Import = importSummary(run.Provenance, nil)
		if run.Requests != nil {
			rs.Counts.RowsRead = run.Requests.RowsRead
			rs.Counts.FailedRunRows = run.Requests.RowsRead
			led.add(ScopeRequest, "row of a failed run", run.Requests.RowsRead, run.Dir)
		}
		return rs, smp
	}
	rf := run.Requests
	req := rf.Requests
	method := cfg.Percentile

	rs.Counts.RowsRead = rf.RowsRead
	rs.Counts.BadRows = rf.ExcludedRows()
	rs.Counts.Accepted = req.N
	for _, d := range rf.Excluded {
		led.add(ScopeRequest, "bad row: "+d.Reason, 1, d.String())
	}
	for _, u := range rf.Unlisted {
		led.add(ScopeRequest, "bad row: "+u.Reason, u.Rows, u.Diagnostic(rf.Path).String())
	}
	for _, col := range req.ExtraColumns {
		led.add(ScopeFile, "column not used (kept by name only): "+col, 1, rf.Path)
	}

	order, orderBasis := sendOrder(req)
	classes := make([]uint8, req.N)
	for i := range classes {
		classes[i] = classify(req, i)
	}

	// Warm-up: the requests the source tool marked as warm-up or cool-down
	// first, then the configured rule over the rest, in send order.
	order, markedWarm, markedCool := dropMarked(req, order)
	led.add(ScopeRequest, "warm-up (marked by the source tool): not measured", markedWarm, run.Dir)
	led.add(ScopeRequest, "cool-down (marked by the source tool): not measured", markedCool, run.Dir)
	window := run.Window
	noOrder := run.Provenance.Has(ingest.UnavailableSendOrder)
	if noOrder {
		orderBasis = OrderUnknown
	}
	if !wallClock(run, req) {
		window = ingest.Window{Source: "unknown"}
	}
	rs.Warmup = warmup(req, order, orderBasis, classes, cfg.Warmup, window)
	if noOrder && rs.Warmup.Outcome == WarmupUnavailable {
		rs.Warmup.Note = "rows are not in send order (the source records completion order): warm-up detection unavailable, every request is measured"
	}
	rs.Warmup.MarkedWarmup, rs.Warmup.MarkedCooldown = markedWarm, markedCool
	if rs.Warmup.Discarded > 0 {
		led.add(ScopeRequest, warmupExclusion(cfg.Warmup), rs.Warmup.Discarded, run.Dir)
	}
	measured := order[rs.Warmup.Discarded:]
	rs.Counts.WarmUp = rs.Warmup.Discarded + markedWarm
	rs.Counts.CoolDown = markedCool
	rs.Counts.Measured = len(measured)

	errorsByClass := newErrorClasses()
	for _, i := range measured {
		switch classes[i] {
		case classError:
			rs.Counts.Errors++
			errorsByClass.add(req.Status[i])
		case classZero:
			rs.Counts.ZeroToken++
		case classOne:
			rs.Counts.OneToken++
		case classMulti:
			rs.Counts.MultiToken++
		}
	}
	rs.Errors = errorsByClass.list()
	for _, e := range rs.Errors {
		led.add(ScopeRequest, "request error (not a latency sample): "+e.Class, e.Count, errorExample(run.Dir, e))
	}
	led.add(ScopeRequest, "no output tokens, n = 0 (not a latency sample)", rs.Counts.ZeroToken, run.Dir)
	led.add(ScopeStatistic, "one output token, n = 1: no TPOT or user-TPS sample (TTFT and E2E kept)", rs.Counts.OneToken, run.Dir)

	// Streaming check: TTFT == E2E for (nearly) all requests with n ≥ 2
	// (for n = 1 they are equal whether streamed or not).
	var withOutput, flat int
	for _, i := range measured {
		if classes[i] == classMulti {
			withOutput++
			if req.E2Ems[i]-req.TTFTms[i] <= 1e-9 {
				flat++
			}
		}
	}
	rs.Streamed = !(flat > 0 && float64(flat) >= cfg.StreamingCheckFraction*float64(withOutput))

	// Per-request samples.
	withTokens := rs.Counts.OneToken + rs.Counts.MultiToken
	smp.e2e = make([]float64, 0, withTokens)
	smp.ttft = make([]float64, 0, withTokens)
	smp.tpot = make([]float64, 0, rs.Counts.MultiToken)
	var zeroDecode int
	var gapSum float64
	var gapCount int64
	userTPS := make([]float64, 0, rs.Counts.MultiToken)
	for _, i := range measured {
		c := classes[i]
		if c != classOne && c != classMulti {
			continue
		}
		smp.e2e = append(smp.e2e, req.E2Ems[i])
		smp.ttft = append(smp.ttft, req.TTFTms[i])
		if c == classMulti {
			gaps := float64(req.CompletionTokens[i] - 1)
			decode := req.E2Ems[i] - req.TTFTms[i]
			smp.tpot = append(smp.tpot, decode/gaps)
			gapSum += decode
			gapCount += req.CompletionTokens[i] - 1
			if decode > 0 {
				userTPS = append(userTPS, gaps/(decode/1000))
			} else {
				zeroDecode++
			}
		}
	}
	led.add(ScopeStatistic, "E2E = TTFT with n ≥ 2: no user-TPS sample (decode time is zero)", zeroDecode, run.Dir)

	rs.E2E = distribution("E2E latency", "ms", SamplePerRequest, method, smp.e2e)
	if rs.Streamed {
		rs.TTFT = distribution("TTFT", "ms", SamplePerRequest, method, smp.ttft)
		rs.TPOT = distribution("TPOT", "ms", SamplePerRequest, method, smp.tpot)
		rs.UserTPS = distribution("user TPS", "tokens/s", SamplePerRequest, method, userTPS)
		rs.GapWeightedITL = NaN
		if gapCount > 0 {
			rs.GapWeightedITL = Num(gapSum / float64(gapCount))
		}
		rs.GapCount = gapCount
		rs.ITL, rs.GapDistributionKnown, smp.itl = chunkGaps(req, measured, classes, method)
		if !rs.GapDistributionKnown && req.ChunkOffsets != nil {
			led.add(ScopeStatistic, "per-gap ITL distribution unknown: chunks carry several tokens (chunk-arrival gaps reported instead)", 1, run.Dir)
		}
	} else {
		why := fmt.Sprintf("not measured: TTFT equals E2E for %d of %d requests, so the response was not streamed", flat, withOutput)
		rs.TTFT = unavailable("TTFT", "ms", SamplePerRequest, method, why)
		rs.TPOT = unavailable("TPOT", "ms", SamplePerRequest, method, why)
		rs.UserTPS = unavailable("user TPS", "tokens/s", SamplePerRequest, method, why)
		rs.GapWeightedITL = NaN
		led.add(ScopeStatistic, "TTFT, TPOT and ITL not measured: response not streamed (TTFT = E2E)", 1, run.Dir)
		smp.ttft, smp.tpot = nil, nil
		rs.ITL = unavailable("ITL", "ms", SamplePerGap, method, "not measured: response not streamed")
	}

	rs.Scrapes = checkScrapes(run)
	rs.Throughput = throughput(run, req, measured, classes, rs.Scrapes, led)
	rs.Server = serverHistograms(run, req, cfg, rs.Scrapes, led)
	rs.Goodput = goodput(run, req, measured, classes, cfg.SLO, rs.Streamed)
	rs.Workload, smp.prompt, smp.output = workload(run, req, measured, classes, method)
	rs.Import = importSummary(run.Provenance, &rs)
	return rs, smp
}

// failCategory names why a run failed, for grouping.
func failCategory(run *ingest.Run) string {
	for _, d := range run.Diagnostics {
		if d.Severity == ingest.Error {
			return d.Reason
		}
	}
	return "unreadable"
}

// distribution summarises xs (reordering it).
func distribution(metric, unit, sample, method string, xs []float64) Distribution {
	return distributionOf(metric, unit, sample, method, [][]float64{xs})
}

// distributionOf summarises the sample held in cs (reordering its slices).
func distributionOf(metric, unit, sample, method string, cs [][]float64) Distribution {
	n := total(cs)
	d := Distribution{Metric: metric, Unit: unit, Sample: sample, Method: method, N: n, MeanWeighting: meanWeighting(sample)}
	if n == 0 {
		d.P50, d.P95, d.P99, d.Max, d.Mean = NaN, NaN, NaN, NaN, NaN
		d.Unavailable = "no samples"
		return d
	}
	sum, max := 0.0, math.Inf(-1)
	for _, c := range cs {
		for _, x := range c {
			sum += x
			if x > max {
				max = x
			}
		}
	}
	q := quantiles(cs, []float64{0.50, 0.95, 0.99}, method)
	d.P50, d.P95, d.P99 = Num(q[0]), Num(q[1]), Num(q[2])
	d.Max, d.Mean = Num(max), Num(sum/float64(n))
	return d
}

func meanWeighting(sample string) string {
	switch sample {
	case SamplePerGap, SampleChunkGap, SamplePooledGap:
		return WeightGap
	}
	return WeightRequest
}

func unavailable(metric, unit, sample, method, why string) Distribution {
	return Distribution{Metric: metric, Unit: unit, Sample: sample, Method: method, MeanWeighting: meanWeighting(sample),
		P50: NaN, P95: NaN, P99: NaN, Max: NaN, Mean: NaN, Unavailable: why}
}

// chunkGaps builds the per-gap ITL distribution from chunk arrivals. It is
// per-gap only when every measured request with output has as many text
// chunks as completion tokens; otherwise the gaps are chunk-arrival gaps.
func chunkGaps(req *ingest.Requests, measured []int, classes []uint8, method string) (Distribution, bool, []float64) {
	if req.ChunkOffsets == nil {
		return unavailable("ITL", "ms", SamplePerGap, method, "no chunk_ms column: per-gap arrivals were not recorded"), false, nil
	}
	oneTokenPerChunk := true
	var gaps []float64
	for _, i := range measured {
		if classes[i] != classOne && classes[i] != classMulti {
			continue
		}
		chunks := req.Chunks(i)
		nChunks := int64(len(chunks))
		if req.TextChunks != nil && req.TextChunks[i] >= 0 {
			nChunks = req.TextChunks[i]
		}
		if nChunks != req.CompletionTokens[i] || int64(len(chunks)) != req.CompletionTokens[i] {
			oneTokenPerChunk = false
		}
		for k := 1; k < len(chunks); k++ {
			gaps = append(gaps, chunks[k]-chunks[k-1])
		}
	}
	if oneTokenPerChunk {
		return distribution("ITL", "ms", SamplePerGap, method, gaps), true, gaps
	}
	d := distribution("chunk-arrival gap", "ms", SampleChunkGap, method, gaps)
	d.Unavailable = "per-gap distribution unknown: chunks carry several tokens"
	return d, false, nil
}

// windowFilter reports, for each accepted request, whether it belongs to
// the window: it completed inside it. Without wall-clock timestamps every
// request counts; with an unknown window none does.
func windowFilter(run *ingest.Run, req *ingest.Requests) func(i int) bool {
	w := run.Window
	if !w.Known() {
		return func(int) bool { return false }
	}
	if !wallClock(run, req) {
		return func(int) bool { return true }
	}
	start := float64(w.Start.UnixNano()) / 1e9
	end := float64(w.End.UnixNano()) / 1e9
	return func(i int) bool {
		c := completionTime(req, i)
		return c >= start && c <= end
	}
}

// wallClock reports whether the run's request times can be placed in a
// wall-clock window: they exist and are not on a monotonic clock.
func wallClock(run *ingest.Run, req *ingest.Requests) bool {
	return (req.TRequestSent != nil || req.TLastText != nil) && run.Clock != "monotonic"
}

// windowBasis says how requests were placed in the window.
func windowBasis(run *ingest.Run, req *ingest.Requests) string {
	if !wallClock(run, req) {
		return "every accepted request (no wall-clock timestamps to place them in the window), warm-up included"
	}
	return "accepted requests completing inside the window, warm-up included when the window covers it"
}

// throughput computes server throughput from counter deltas over the
// window and client throughput from the records, separately. The client
// numbers compared with the counters (requests/s, Σ completion_tokens)
// count the requests completing inside the window, the set the counters saw.
func throughput(run *ingest.Run, req *ingest.Requests, measured []int, classes []uint8, check ScrapeCheck, led *ledger) Throughput {
	t := Throughput{
		WindowSource: run.Window.Source, WindowSeconds: NaN,
		OutputTokensPerSec: NaN, PromptTokensPerSec: NaN, GenerationTokensDelta: NaN, PromptTokensDelta: NaN,
		RequestsPerSec: NaN, CounterMismatch: NaN, ClientOutputTokensPerSec: NaN, ClientSpanSeconds: NaN,
	}
	inWindow := windowFilter(run, req)
	for i := 0; i < req.N; i++ {
		if inWindow(i) {
			t.ClientCompletionTokens += req.CompletionTokens[i]
		}
	}
	if run.Window.Known() {
		t.WindowStart, t.WindowEnd = formatTime(run.Window.Start), formatTime(run.Window.End)
		t.WindowSeconds = Num(run.Window.Seconds())
	}

	// Server side.
	switch {
	case !run.Window.Known():
		t.ServerUnavailable = "measurement window unknown (no run.yaml window and no scrape timestamps)"
		led.add(ScopeRun, "window unknown: server throughput and goodput rate unavailable", 1, run.Dir)
	case run.ScrapeStart == nil || run.ScrapeEnd == nil:
		t.ServerUnavailable = "metrics-start.prom or metrics-end.prom missing or unreadable"
		led.add(ScopeRun, "scrape missing: server throughput and histograms unavailable", 1, run.Dir)
	case scrapePairUnusable(run, check) != "":
		t.ServerUnavailable = scrapePairUnusable(run, check)
		led.add(ScopeRun, "start and end scrapes not a pair from one server process: server throughput and histograms unavailable", 1, run.Dir)
	default:
		// A counter that went down shows another process; checkScrapes
		// has made the pair unusable then.
		delta := func(role ingest.MetricRole) (float64, string) {
			s, ok1 := run.ScrapeStart.Counters[role]
			e, ok2 := run.ScrapeEnd.Counters[role]
			if !ok1 || !ok2 {
				return math.NaN(), fmt.Sprintf("counter %s not read: %s", role, roleUnread(role, run.ScrapeStart, run.ScrapeEnd,
					func(sc *ingest.Scrape) bool { _, ok := sc.Counters[role]; return ok }))
			}
			return e - s, ""
		}
		secs := run.Window.Seconds()
		gen, why1 := delta(ingest.RoleGenerationTokens)
		prompt, why2 := delta(ingest.RolePromptTokens)
		if why1 == "" {
			t.GenerationTokensDelta = Num(gen)
			t.OutputTokensPerSec = Num(gen / secs)
		}
		if why2 == "" {
			t.PromptTokensDelta = Num(prompt)
			t.PromptTokensPerSec = Num(prompt / secs)
		}
		if why := strings.Trim(strings.Join([]string{why1, why2}, "; "), "; "); why != "" {
			t.ServerUnavailable = why
			led.add(ScopeRun, "server counter unusable", 1, run.Dir+": "+why)
		}
		if why1 == "" && t.ClientCompletionTokens > 0 {
			t.CounterMismatch = Num(math.Abs(gen-float64(t.ClientCompletionTokens)) / float64(t.ClientCompletionTokens))
		}
	}

	// Requests per second: the successful requests the window holds — the
	// same set whose tokens the counters saw, warm-up included when the
	// window covers it.
	if run.Window.Known() {
		outside := 0
		for i := 0; i < req.N; i++ {
			switch {
			case classes[i] == classError:
			case inWindow(i):
				t.RequestsInWindow++
			default:
				outside++
			}
		}
		led.add(ScopeStatistic, "successful request completing outside the window: not in requests/s or request goodput", outside, run.Dir)
		t.RequestsBasis = windowBasis(run, req)
		t.RequestsPerSec = Num(float64(t.RequestsInWindow) / run.Window.Seconds())
	}

	// Client side: Σ n / (T_last − T_first) over measured successful requests.
	if req.TRequestSent == nil {
		t.ClientUnavailable = "no t_request_sent column"
		return t
	}
	first, last := math.Inf(1), math.Inf(-1)
	var tokens int64
	for _, i := range measured {
		if classes[i] == classError {
			continue
		}
		s, c := req.TRequestSent[i], completionTime(req, i)
		if math.IsNaN(s) || math.IsNaN(c) {
			continue
		}
		first, last = math.Min(first, s), math.Max(last, c)
		tokens += req.CompletionTokens[i]
	}
	if last > first {
		t.ClientSpanSeconds = Num(last - first)
		t.ClientOutputTokensPerSec = Num(float64(tokens) / (last - first))
	} else {
		t.ClientUnavailable = "no timed successful requests"
	}
	return t
}

// histogramLabels describe each server histogram role.
var histogramLabels = map[ingest.MetricRole][2]string{
	ingest.RoleTTFT:        {"server TTFT (arrival → first token)", "per request"},
	ingest.RoleITL:         {"server inter-token latency", "per decode step per running request"},
	ingest.RoleRequestTPOT: {"server per-request TPOT", "per request"},
	ingest.RoleE2E:         {"server E2E latency", "per request"},
	ingest.RolePrefill:     {"server prefill time", "per request"},
	ingest.RoleQueue:       {"server queue time", "per request"},
	ingest.RoleDecode:      {"server decode time", "per request"},
}

// serverHistograms computes quantiles of every server histogram over the
// window from bucket deltas, the way Prometheus's histogram_quantile does,
// and says why each one it cannot compute is omitted.
func serverHistograms(run *ingest.Run, req *ingest.Requests, cfg ingest.Config, check ScrapeCheck, led *ledger) []ServerHistogram {
	var lowToken int
	for i := 0; i < req.N; i++ {
		if req.CompletionTokens[i] <= 1 && (req.Status == nil || !ingest.StatusFailed(req.Status[i])) {
			lowToken++
		}
	}
	omit := func(h *ServerHistogram, why string) {
		h.Omitted = why
		led.add(ScopeSeries, "server histogram not shown: "+why, 1, run.Dir+" "+h.Role)
	}
	hasRole := func(role ingest.MetricRole) func(*ingest.Scrape) bool {
		return func(sc *ingest.Scrape) bool { _, ok := sc.Histograms[role]; return ok }
	}
	var out []ServerHistogram
	for _, role := range ingest.HistogramRoles {
		lab := histogramLabels[role]
		h := ServerHistogram{Role: string(role), Label: lab[0], Sample: lab[1], Unit: "ms", Count: NaN, P50: NaN, P95: NaN, P99: NaN, Mean: NaN}
		if role == ingest.RoleITL {
			if cfg.SpeculativeDecoding {
				h.Sample = "per step (speculative decoding: one observation may cover several tokens)"
			} else {
				h.Sample = "per step; per token only when each step emits one token"
			}
		}
		out = append(out, h)
		hp := &out[len(out)-1]
		if run.ScrapeEnd == nil {
			omit(hp, "no end scrape")
			continue
		}
		end, ok := run.ScrapeEnd.Histograms[role]
		if !ok {
			why := "not in the end scrape"
			if r := run.ScrapeEnd.Unread[role]; r != "" {
				why = r + " (end scrape)"
			}
			omit(hp, why)
			continue
		}
		hp.Metric = run.ScrapeEnd.HistogramNames[role]
		if n := len(end.Buckets); n == 0 || !math.IsInf(end.Buckets[n-1].UpperBound, 1) {
			omit(hp, reasonNoInfBucket)
			continue
		}
		if role == ingest.RoleRequestTPOT && lowToken > 0 {
			hp.Omitted = "omitted: the run has successful requests with 0 or 1 output tokens (warm-up included), which the server histogram records as 0 s TPOT"
			led.add(ScopeSeries, "server TPOT histogram omitted: run has 0- or 1-token completions", 1, run.Dir)
			continue
		}
		if run.ScrapeStart == nil {
			omit(hp, "no start scrape: no delta over the window")
			continue
		}
		start, ok := run.ScrapeStart.Histograms[role]
		if !ok {
			omit(hp, roleUnread(role, run.ScrapeStart, run.ScrapeEnd, hasRole(role))+": no delta over the window")
			continue
		}
		switch {
		case check.Identical:
			omit(hp, "the start and end scrapes are identical files")
			continue
		case len(check.NotOneProcess) > 0:
			omit(hp, "the start and end scrapes cannot come from one server process")
			continue
		}
		d, why := HistogramDelta(&start, end)
		if why != "" {
			omit(hp, why)
			continue
		}
		for _, b := range mergedBounds(start.MergedBounds, end.MergedBounds) {
			hp.MergedBounds = append(hp.MergedBounds, formatLe(b))
		}
		hp.Count = Num(d.Count)
		b, rep := prepareBuckets(d.Buckets)
		hp.RaisedBuckets, hp.FloatNoiseIgnored = rep.Raised, rep.FloatNoise
		if why := bucketsUnusable(b); why != "" {
			if why == reasonNoObservation && d.Count > 0 {
				why = fmt.Sprintf("no observations in the window's +Inf bucket, although the count rose by %g", d.Count)
			}
			omit(hp, why)
			continue
		}
		for _, q := range []struct {
			name string
			p    float64
			dst  *Num
		}{{"p50", 0.50, &hp.P50}, {"p95", 0.95, &hp.P95}, {"p99", 0.99, &hp.P99}} {
			v, lo, hi := quantileInBuckets(q.p, b)
			*q.dst = Num(1000 * v)
			hp.Resolution = append(hp.Resolution, QuantileBucket{
				Quantile: q.name, LoMs: Num(1000 * lo), HiMs: Num(1000 * hi),
				Coarse: lo == 0 || math.IsInf(hi, 1) || hi-lo > 0.5*v,
			})
		}
		if d.Count > 0 {
			hp.Mean = Num(1000 * d.Sum / d.Count)
		}
	}
	return out
}

// mergedBounds is the sorted union of two scrapes' merged bounds.
func mergedBounds(a, b []float64) []float64 {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// sloFailure returns the first target request i misses ("" when it meets
// every applicable one). Errors and n = 0 fail; TPOT applies only at n ≥ 2.
func sloFailure(req *ingest.Requests, i int, class uint8, slo ingest.SLO, reasons *[3]string) string {
	switch class {
	case classError:
		return "request error"
	case classZero:
		return "no output tokens (n = 0)"
	}
	ttft, e2e := req.TTFTms[i], req.E2Ems[i]
	switch {
	case slo.TTFTms > 0 && ttft > slo.TTFTms:
		return reasons[0]
	case slo.TPOTms > 0 && class == classMulti && (e2e-ttft)/float64(req.CompletionTokens[i]-1) > slo.TPOTms:
		return reasons[1]
	case slo.E2Ems > 0 && e2e > slo.E2Ems:
		return reasons[2]
	}
	return ""
}

// goodput computes the percentage of measured requests meeting every
// applicable SLO, and the rate of passing requests over the window. The
// rate counts the measured requests completing inside the window (a subset
// of the set behind requests/s), so it can never exceed requests/s.
func goodput(run *ingest.Run, req *ingest.Requests, measured []int, classes []uint8, slo ingest.SLO, streamed bool) Goodput {
	g := Goodput{Percent: NaN, RequestsPerSec: NaN, Measured: len(measured)}
	if !streamed && (slo.TTFTms > 0 || slo.TPOTms > 0) {
		g.Unavailable = "TTFT was not measured (response not streamed), so TTFT/TPOT targets cannot be checked"
		return g
	}
	reasons := [3]string{fmt.Sprintf("TTFT > %g ms", slo.TTFTms), fmt.Sprintf("TPOT > %g ms", slo.TPOTms), fmt.Sprintf("E2E > %g ms", slo.E2Ems)}
	failed := map[string]int{}
	for _, i := range measured {
		if why := sloFailure(req, i, classes[i], slo, &reasons); why != "" {
			failed[why]++
		} else {
			g.Passed++
		}
	}
	g.FailedBy = sortedReasonCounts(failed)
	if g.Measured > 0 {
		g.Percent = Num(100 * float64(g.Passed) / float64(g.Measured))
	}
	if !run.Window.Known() {
		g.Unavailable = "window unknown: request goodput rate unavailable (the percentage stands)"
		return g
	}
	inWindow := windowFilter(run, req)
	for _, i := range measured {
		if inWindow(i) && sloFailure(req, i, classes[i], slo, &reasons) == "" {
			g.PassedInWindow++
		}
	}
	g.RateBasis = goodputBasis(run, req)
	g.RequestsPerSec = Num(float64(g.PassedInWindow) / run.Window.Seconds())
	return g
}

// workload describes the measured successful requests.
func workload(run *ingest.Run, req *ingest.Requests, measured []int, classes []uint8, method string) (Workload, []float64, []float64) {
	prompt := make([]float64, 0, len(measured))
	output := make([]float64, 0, len(measured))
	var early, earlyBasis int
	for _, i := range measured {
		if classes[i] == classError {
			continue
		}
		prompt = append(prompt, float64(req.PromptTokens[i]))
		output = append(output, float64(req.CompletionTokens[i]))
		max := int64(run.MaxTokens)
		if req.MaxTokens != nil && req.MaxTokens[i] > 0 {
			max = req.MaxTokens[i]
		}
		if max > 0 {
			earlyBasis++
			if req.CompletionTokens[i] < max {
				early++
			}
		}
	}
	w := Workload{
		// The samples go on to be pooled, where their order does not matter.
		PromptTokens:     distribution("prompt length", "tokens", SamplePerRequest, method, prompt),
		OutputTokens:     distribution("output length", "tokens", SamplePerRequest, method, output),
		EarlyStopPercent: NaN, EarlyStopBasis: earlyBasis, AchievedConcurrency: NaN,
	}
	if earlyBasis > 0 {
		w.EarlyStopPercent = Num(100 * float64(early) / float64(earlyBasis))
	}
	var sent []float64
	if req.TRequestSent != nil {
		first, last, busy := math.Inf(1), math.Inf(-1), 0.0
		for _, i := range measured {
			s := req.TRequestSent[i]
			if math.IsNaN(s) {
				continue
			}
			sent = append(sent, s)
			c := completionTime(req, i)
			if math.IsNaN(c) {
				continue
			}
			first, last = math.Min(first, s), math.Max(last, c)
			busy += c - s
		}
		if last > first {
			w.AchievedConcurrency = Num(busy / (last - first))
		}
	}
	sort.Float64s(sent)
	gaps := make([]float64, 0, len(sent))
	for k := 1; k < len(sent); k++ {
		gaps = append(gaps, 1000*(sent[k]-sent[k-1]))
	}
	w.InterArrivalMs = distribution("inter-arrival time", "ms", SamplePerRequest, method, gaps)
	if len(sent) == 0 {
		w.InterArrivalMs.Unavailable = "no t_request_sent column"
	}
	return w, prompt, output
}
