package analyze

import (
	"fmt"
	"math"
	"slices"
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
	prompt, output       valueCounts
}

// release gives the latency samples, which scanMeasured took from
// floatScratch, back for the next runs.
func (s samples) release() {
	floatScratch.give(s.ttft)
	floatScratch.give(s.e2e)
	floatScratch.give(s.tpot)
}

// runInput bundles what analyzing one run needs.
type runInput struct {
	run *ingest.Run
	cfg ingest.Config
	led *ledger
}

// classifyAll returns the class of every request.
func classifyAll(r *ingest.Requests) []uint8 {
	classes := make([]uint8, r.N)
	var failed []bool // by status code
	if r.Status != nil {
		failed = r.Status.Failed()
	}
	for i := range classes {
		if failed != nil && failed[r.Status.Codes[i]] {
			classes[i] = classError
			continue
		}
		classes[i] = classifyTokens(r.CompletionTokens[i])
	}
	return classes
}

// classifyTokens returns the class of a request without error that
// produced n tokens.
func classifyTokens(n int64) uint8 {
	switch {
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
	if run.Failed || run.Requests == nil {
		return failedRun(run, led), samples{}
	}
	rs := RunSummary{Dir: run.Dir, LevelKey: levelKey(run.Series, runLoad(run)), Repeat: run.Repeat}
	var smp samples
	req := run.Requests.Requests
	method := cfg.Percentile
	countRows(&rs, run.Requests, led)

	order, orderBasis := sendOrder(req)
	defer intScratch.give(order)
	classes := classifyAll(req)
	var classTotal [4]int // over every accepted row: capacities for the samples
	for _, c := range classes {
		classTotal[c]++
	}
	measured := measuredRequests(&rs, run, order, orderBasis, classes, cfg.Warmup, led)

	// Every per-request figure of the measured requests, in one pass.
	m := scanMeasured(run, req, measured, classes, classTotal, cfg.SLO, int64(run.MaxTokens))
	rs.Counts.Errors, rs.Counts.ZeroToken, rs.Counts.OneToken, rs.Counts.MultiToken =
		m.classes[classError], m.classes[classZero], m.classes[classOne], m.classes[classMulti]
	rs.Errors = m.errors.list()
	for _, e := range rs.Errors {
		led.add(ScopeRequest, "request error (not a latency sample): "+e.Class, e.Count, errorExample(run.Dir, e))
	}
	led.add(ScopeRequest, "no output tokens, n = 0 (not a latency sample)", rs.Counts.ZeroToken, run.Dir)
	led.add(ScopeStatistic, "one output token, n = 1: no TPOT or user-TPS sample (TTFT and E2E kept)", rs.Counts.OneToken, run.Dir)

	// Streaming check: TTFT == E2E for (nearly) all requests with n ≥ 2
	// (for n = 1 they are equal whether streamed or not).
	rs.Streamed = !(m.flat > 0 && float64(m.flat) >= cfg.StreamingCheckFraction*float64(m.withOutput))
	smp.e2e, smp.ttft, smp.tpot = m.e2e, m.ttft, m.tpot
	led.add(ScopeStatistic, "E2E = TTFT with n ≥ 2: no user-TPS sample (decode time is zero)", m.zeroDecode, run.Dir)
	setLatencies(&rs, &smp, &m, req, measured, classes, method, led, run.Dir)

	// What the window holds, over every accepted row, in one pass.
	a := scanAccepted(run, req, classes)
	rs.Scrapes = checkScrapes(run)
	rs.Throughput = throughput(run, req, &m, &a, rs.Scrapes, led)
	rs.Server = serverHistograms(run, a.lowToken, cfg, rs.Scrapes, led)
	rs.GPU = gpuSummary(run, rs.Throughput, led)
	rs.Goodput = goodput(run, req, &m, cfg.SLO, rs.Streamed)
	rs.Workload, smp.prompt, smp.output = workload(&m, method)
	int64Scratch.give(m.prompt)
	int64Scratch.give(m.output)
	floatScratch.give(m.sent)
	rs.Import = importSummary(run.Provenance, &rs)
	return rs, smp
}

// failedRun is the summary of a run that failed or could not be read:
// why, and its rows counted as a failed run's.
func failedRun(run *ingest.Run, led *ledger) RunSummary {
	rs := RunSummary{Dir: run.Dir, LevelKey: levelKey(run.Series, runLoad(run)), Repeat: run.Repeat}
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
	return rs
}

// countRows counts the rows read, excluded and accepted, and enters the
// excluded rows and unused columns in the ledger.
func countRows(rs *RunSummary, rf *ingest.RequestFile, led *ledger) {
	rs.Counts.RowsRead = rf.RowsRead
	rs.Counts.BadRows = rf.ExcludedRows()
	rs.Counts.Accepted = rf.Requests.N
	for _, d := range rf.Excluded {
		led.add(ScopeRequest, "bad row: "+d.Reason, 1, d.String())
	}
	for _, u := range rf.Unlisted {
		led.add(ScopeRequest, "bad row: "+u.Reason, u.Rows, u.Diagnostic(rf.Path).String())
	}
	for _, col := range rf.Requests.ExtraColumns {
		led.add(ScopeFile, "column not used (kept by name only): "+col, 1, rf.Path)
	}
}

// measuredRequests returns the requests measured, in send order: the
// requests the source tool marked as warm-up or cool-down are dropped
// first, then the configured warm-up rule applies to the rest. It sets the
// run's warm-up result and counts.
func measuredRequests(rs *RunSummary, run *ingest.Run, order []int, orderBasis string, classes []uint8, wc ingest.WarmupConfig, led *ledger) []int {
	req := run.Requests.Requests
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
	rs.Warmup = warmup(req, order, orderBasis, classes, wc, window)
	if noOrder && rs.Warmup.Outcome == WarmupUnavailable {
		rs.Warmup.Note = "rows are not in send order (the source records completion order): warm-up detection unavailable, every request is measured"
	}
	rs.Warmup.MarkedWarmup, rs.Warmup.MarkedCooldown = markedWarm, markedCool
	if rs.Warmup.Discarded > 0 {
		led.add(ScopeRequest, warmupExclusion(wc), rs.Warmup.Discarded, run.Dir)
	}
	measured := order[rs.Warmup.Discarded:]
	rs.Counts.WarmUp = rs.Warmup.Discarded + markedWarm
	rs.Counts.CoolDown = markedCool
	rs.Counts.Measured = len(measured)
	return measured
}

// setLatencies sets the run's latency distributions from the scan of its
// measured requests: E2E always; TTFT, TPOT, user TPS and ITL when the
// responses were streamed, else each says why not (and their samples go
// back to the scratch).
func setLatencies(rs *RunSummary, smp *samples, m *measuredScan, req *ingest.Requests, measured []int, classes []uint8, method string, led *ledger, dir string) {
	rs.E2E = distributionWith("E2E latency", "ms", SamplePerRequest, method, smp.e2e, m.e2eSpan)
	if rs.Streamed {
		rs.TTFT = distributionWith("TTFT", "ms", SamplePerRequest, method, smp.ttft, m.ttftSpan)
		rs.TPOT = distributionWith("TPOT", "ms", SamplePerRequest, method, smp.tpot, m.tpotSpan)
		rs.UserTPS = distributionWith("user TPS", "tokens/s", SamplePerRequest, method, m.userTPS, m.userTPSSpan)
		floatScratch.give(m.userTPS)
		rs.GapWeightedITL = NaN
		if m.gapCount > 0 {
			rs.GapWeightedITL = Num(m.gapSum / float64(m.gapCount))
		}
		rs.GapCount = m.gapCount
		rs.ITL, rs.GapDistributionKnown, smp.itl = chunkGaps(req, measured, classes, method)
		if !rs.GapDistributionKnown && req.ChunkOffsets != nil {
			led.add(ScopeStatistic, "per-gap ITL distribution unknown: chunks carry several tokens (chunk-arrival gaps reported instead)", 1, dir)
		}
		return
	}
	why := fmt.Sprintf("not measured: TTFT equals E2E for %d of %d requests, so the response was not streamed", m.flat, m.withOutput)
	rs.TTFT = unavailable("TTFT", "ms", SamplePerRequest, method, why)
	rs.TPOT = unavailable("TPOT", "ms", SamplePerRequest, method, why)
	rs.UserTPS = unavailable("user TPS", "tokens/s", SamplePerRequest, method, why)
	rs.GapWeightedITL = NaN
	led.add(ScopeStatistic, "TTFT, TPOT and ITL not measured: response not streamed (TTFT = E2E)", 1, dir)
	floatScratch.give(m.ttft)
	floatScratch.give(m.tpot)
	smp.ttft, smp.tpot = nil, nil
	rs.ITL = unavailable("ITL", "ms", SamplePerGap, method, "not measured: response not streamed")
}

// measuredScan is what one pass over a run's measured requests, in send
// order, finds.
type measuredScan struct {
	classes [4]int
	errors  *errorClasses
	// Streaming check: requests with n ≥ 2, and those with E2E = TTFT.
	withOutput, flat int
	// Latency samples, in send order, and their sums and extremes.
	e2e, ttft, tpot, userTPS                 []float64
	e2eSpan, ttftSpan, tpotSpan, userTPSSpan sampleSpan
	zeroDecode                               int
	gapSum                                   float64
	gapCount                                 int64
	// Goodput over the measured requests, and over those of them that
	// complete inside the window (when it is known).
	passed         int
	failedBy       [numSLOVerdicts]int // by verdict
	passedInWindow int
	// Workload of the successful requests.
	prompt, output    []int64
	early, earlyBasis int
	// Send times of the measured requests that have one, in send order, and
	// the span and busy time behind the achieved concurrency.
	sent                          []float64
	busyFirst, busyLast, busyTime float64
	// Client throughput: Σ n over the successful timed requests and their span.
	clientFirst, clientLast float64
	clientTokens            int64
}

// scanMeasured computes, in one pass over the measured requests, their
// class counts and errors, the latency samples, the SLO verdicts, the
// workload and the client-side span. classTotal bounds each class's count.
func scanMeasured(run *ingest.Run, req *ingest.Requests, measured []int, classes []uint8, classTotal [4]int, slo ingest.SLO, runMaxTokens int64) measuredScan {
	withTokens := classTotal[classOne] + classTotal[classMulti]
	ok := withTokens + classTotal[classZero]
	m := measuredScan{
		errors:    newErrorClasses(),
		e2e:       floatScratch.take(withTokens),
		ttft:      floatScratch.take(withTokens),
		tpot:      floatScratch.take(classTotal[classMulti]),
		userTPS:   floatScratch.take(classTotal[classMulti]),
		prompt:    int64Scratch.take(ok),
		output:    int64Scratch.take(ok),
		busyFirst: math.Inf(1), busyLast: math.Inf(-1),
		clientFirst: math.Inf(1), clientLast: math.Inf(-1),
		e2eSpan: newSampleSpan(), ttftSpan: newSampleSpan(), tpotSpan: newSampleSpan(), userTPSSpan: newSampleSpan(),
	}
	if req.TRequestSent != nil {
		m.sent = floatScratch.take(len(measured))
	}
	inWindow := windowFilter(run, req)
	for _, i := range measured {
		c := classes[i]
		m.classes[c]++
		switch c {
		case classError:
			m.errors.add(req.Status.At(i))
		case classOne, classMulti:
			ttft, e2e := req.TTFTms[i], req.E2Ems[i]
			m.e2e = append(m.e2e, e2e)
			m.ttft = append(m.ttft, ttft)
			m.e2eSpan.add(e2e)
			m.ttftSpan.add(ttft)
			if c == classMulti {
				m.withOutput++
				decode := e2e - ttft
				if decode <= 1e-9 {
					m.flat++
				}
				gaps := float64(req.CompletionTokens[i] - 1)
				tpot := decode / gaps
				m.tpot = append(m.tpot, tpot)
				m.tpotSpan.add(tpot)
				m.gapSum += decode
				m.gapCount += req.CompletionTokens[i] - 1
				if decode > 0 {
					tps := gaps / (decode / 1000)
					m.userTPS = append(m.userTPS, tps)
					m.userTPSSpan.add(tps)
				} else {
					m.zeroDecode++
				}
			}
		}
		if v := sloVerdict(req, i, c, slo); v != sloMet {
			m.failedBy[v]++
		} else {
			m.passed++
			if inWindow(i) {
				m.passedInWindow++
			}
		}
		if c != classError {
			m.prompt = append(m.prompt, req.PromptTokens[i])
			m.output = append(m.output, req.CompletionTokens[i])
			max := runMaxTokens
			if req.MaxTokens != nil && req.MaxTokens[i] > 0 {
				max = req.MaxTokens[i]
			}
			if max > 0 {
				m.earlyBasis++
				if req.CompletionTokens[i] < max {
					m.early++
				}
			}
		}
		if req.TRequestSent == nil {
			continue
		}
		s := req.TRequestSent[i]
		if math.IsNaN(s) {
			continue
		}
		m.sent = append(m.sent, s)
		done := completionTime(req, i)
		if math.IsNaN(done) {
			continue
		}
		// Plain comparisons: neither is NaN here, and math.Min's care for
		// signed zeros changes no span.
		if s < m.busyFirst {
			m.busyFirst = s
		}
		if done > m.busyLast {
			m.busyLast = done
		}
		m.busyTime += done - s
		if c != classError {
			if s < m.clientFirst {
				m.clientFirst = s
			}
			if done > m.clientLast {
				m.clientLast = done
			}
			m.clientTokens += req.CompletionTokens[i]
		}
	}
	return m
}

// acceptedScan is what one pass over every accepted row of a run (warm-up
// included, in file order) finds about the window.
type acceptedScan struct {
	// completionTokens sums n over the requests completing inside the
	// window, the set the server's counters saw.
	completionTokens int64
	// inWindow and outside count the successful requests completing inside
	// and outside the window (when it is known).
	inWindow, outside int
	// lowToken counts the successful requests with 0 or 1 output tokens.
	lowToken int
}

// scanAccepted places every accepted row in the window, once.
func scanAccepted(run *ingest.Run, req *ingest.Requests, classes []uint8) acceptedScan {
	var a acceptedScan
	inWindow := windowFilter(run, req)
	known := run.Window.Known()
	for i := 0; i < req.N; i++ {
		c := classes[i]
		if c == classZero || c == classOne {
			a.lowToken++
		}
		if !known {
			continue
		}
		in := inWindow(i)
		if in {
			a.completionTokens += req.CompletionTokens[i]
		}
		switch {
		case c == classError:
		case in:
			a.inWindow++
		default:
			a.outside++
		}
	}
	return a
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

// distributionWith is distribution for a sample whose sum and extremes,
// span, were found as it was collected.
func distributionWith(metric, unit, sample, method string, xs []float64, span sampleSpan) Distribution {
	return summarise(metric, unit, sample, method, [][]float64{xs}, span)
}

// distributionOf summarises the sample held in cs (reordering its slices).
func distributionOf(metric, unit, sample, method string, cs [][]float64) Distribution {
	span := newSampleSpan()
	for _, c := range cs {
		for _, x := range c {
			span.add(x)
		}
	}
	return summarise(metric, unit, sample, method, cs, span)
}

// summarise summarises the sample held in cs, whose sum and extremes are
// span (reordering its slices).
func summarise(metric, unit, sample, method string, cs [][]float64, span sampleSpan) Distribution {
	n := total(cs)
	d := Distribution{Metric: metric, Unit: unit, Sample: sample, Method: method, N: n, MeanWeighting: meanWeighting(sample)}
	if n == 0 {
		d.P50, d.P95, d.P99, d.Max, d.Mean = NaN, NaN, NaN, NaN, NaN
		d.Unavailable = "no samples"
		return d
	}
	q := quantilesIn(cs, []float64{0.50, 0.95, 0.99}, method, span.min, span.max)
	d.P50, d.P95, d.P99 = Num(q[0]), Num(q[1]), Num(q[2])
	d.Max, d.Mean = Num(span.max), Num(span.sum/float64(n))
	return d
}

// sampleSpan is the sum, in order, and the extremes of a sample's values.
type sampleSpan struct{ sum, min, max float64 }

// newSampleSpan is the span of no value.
func newSampleSpan() sampleSpan { return sampleSpan{min: math.Inf(1), max: math.Inf(-1)} }

// add takes in the sample's next value.
func (s *sampleSpan) add(x float64) {
	s.sum += x
	if x > s.max {
		s.max = x
	}
	if x < s.min {
		s.min = x
	}
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
func throughput(run *ingest.Run, req *ingest.Requests, m *measuredScan, a *acceptedScan, check ScrapeCheck, led *ledger) Throughput {
	t := Throughput{
		WindowSource: run.Window.Source, WindowSeconds: NaN,
		OutputTokensPerSec: NaN, PromptTokensPerSec: NaN, GenerationTokensDelta: NaN, PromptTokensDelta: NaN,
		RequestsPerSec: NaN, CounterMismatch: NaN, ClientOutputTokensPerSec: NaN, ClientSpanSeconds: NaN,
	}
	t.ClientCompletionTokens = a.completionTokens
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
		t.RequestsInWindow = a.inWindow
		led.add(ScopeStatistic, "successful request completing outside the window: not in requests/s or request goodput", a.outside, run.Dir)
		t.RequestsBasis = windowBasis(run, req)
		t.RequestsPerSec = Num(float64(t.RequestsInWindow) / run.Window.Seconds())
	}

	// Client side: Σ n / (T_last − T_first) over measured successful requests.
	if req.TRequestSent == nil {
		t.ClientUnavailable = "no t_request_sent column"
		return t
	}
	first, last, tokens := m.clientFirst, m.clientLast, m.clientTokens
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
func serverHistograms(run *ingest.Run, lowToken int, cfg ingest.Config, check ScrapeCheck, led *ledger) []ServerHistogram {
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
				if run.ScrapeStart != nil {
					// Say so when the start scrape has the same problem.
					why = roleUnread(role, run.ScrapeStart, run.ScrapeEnd, hasRole(role))
				}
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

// SLO verdicts of a request: it meets every applicable target, or the
// first it misses.
const (
	sloMet = iota
	sloError
	sloZeroTokens
	sloTTFT
	sloTPOT
	sloE2E
	numSLOVerdicts
)

// sloVerdictText names each failing verdict; the three targets' texts
// carry their values.
func sloVerdictText(slo ingest.SLO) [numSLOVerdicts]string {
	return [numSLOVerdicts]string{
		sloError: "request error", sloZeroTokens: "no output tokens (n = 0)",
		sloTTFT: fmt.Sprintf("TTFT > %g ms", slo.TTFTms), sloTPOT: fmt.Sprintf("TPOT > %g ms", slo.TPOTms), sloE2E: fmt.Sprintf("E2E > %g ms", slo.E2Ems),
	}
}

// sloVerdict returns the first target request i misses (sloMet when it
// meets every applicable one). Errors and n = 0 fail; TPOT applies only at
// n ≥ 2.
func sloVerdict(req *ingest.Requests, i int, class uint8, slo ingest.SLO) int {
	switch class {
	case classError:
		return sloError
	case classZero:
		return sloZeroTokens
	}
	ttft, e2e := req.TTFTms[i], req.E2Ems[i]
	switch {
	case slo.TTFTms > 0 && ttft > slo.TTFTms:
		return sloTTFT
	case slo.TPOTms > 0 && class == classMulti && (e2e-ttft)/float64(req.CompletionTokens[i]-1) > slo.TPOTms:
		return sloTPOT
	case slo.E2Ems > 0 && e2e > slo.E2Ems:
		return sloE2E
	}
	return sloMet
}

// goodput computes the percentage of measured requests meeting every
// applicable SLO, and the rate of passing requests over the window. The
// rate counts the measured requests completing inside the window (a subset
// of the set behind requests/s), so it can never exceed requests/s.
func goodput(run *ingest.Run, req *ingest.Requests, m *measuredScan, slo ingest.SLO, streamed bool) Goodput {
	failed := map[string]int{}
	text := sloVerdictText(slo)
	for v, n := range m.failedBy {
		if n > 0 {
			failed[text[v]] += n
		}
	}
	g := Goodput{Percent: NaN, RequestsPerSec: NaN, Measured: m.passed + sumCounts(failed)}
	if !streamed && (slo.TTFTms > 0 || slo.TPOTms > 0) {
		g.Unavailable = "TTFT was not measured (response not streamed), so TTFT/TPOT targets cannot be checked"
		return g
	}
	g.Passed = m.passed
	g.FailedBy = sortedReasonCounts(failed)
	if g.Measured > 0 {
		g.Percent = Num(100 * float64(g.Passed) / float64(g.Measured))
	}
	if !run.Window.Known() {
		g.Unavailable = "window unknown: request goodput rate unavailable (the percentage stands)"
		return g
	}
	g.PassedInWindow = m.passedInWindow
	g.RateBasis = goodputBasis(run, req)
	g.RequestsPerSec = Num(float64(g.PassedInWindow) / run.Window.Seconds())
	return g
}

// sumCounts adds up a map's counts.
func sumCounts(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// workload describes the measured successful requests.
func workload(m *measuredScan, method string) (Workload, valueCounts, valueCounts) {
	prompt, output := countValues(m.prompt), countValues(m.output)
	w := Workload{
		PromptTokens:     prompt.distribution("prompt length", "tokens", SamplePerRequest, method),
		OutputTokens:     output.distribution("output length", "tokens", SamplePerRequest, method),
		EarlyStopPercent: NaN, EarlyStopBasis: m.earlyBasis, AchievedConcurrency: NaN,
	}
	if m.earlyBasis > 0 {
		w.EarlyStopPercent = Num(100 * float64(m.early) / float64(m.earlyBasis))
	}
	if m.busyLast > m.busyFirst {
		w.AchievedConcurrency = Num(m.busyTime / (m.busyLast - m.busyFirst))
	}
	// In send order the send times are sorted already, unless the order
	// came from the file.
	sent := m.sent
	if !slices.IsSorted(sent) {
		slices.Sort(sent)
	}
	// The gaps overwrite the send times, which nothing reads after.
	var gaps []float64
	if len(sent) > 1 {
		gaps = sent[:len(sent)-1]
		for k := range gaps {
			gaps[k] = 1000 * (sent[k+1] - sent[k])
		}
	}
	w.InterArrivalMs = distribution("inter-arrival time", "ms", SamplePerRequest, method, gaps)
	if len(sent) == 0 {
		w.InterArrivalMs.Unavailable = "no t_request_sent column"
	}
	return w, prompt, output
}
