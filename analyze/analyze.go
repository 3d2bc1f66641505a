package analyze

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// MinRuns is the number of runs per level below which across-run figures
// are flagged.
const MinRuns = 3

// Analyze computes the Summary of an ingested sweep.
func Analyze(sw *ingest.Sweep) *Summary {
	led := newLedger()
	s := newSummary(sw)
	for _, f := range sw.IgnoredFiles {
		led.add(ScopeFile, "ignored file: "+f.Reason, 1, f.Path)
	}
	for _, d := range sw.Diagnostics {
		if d.Reason == "unrecognised environment log" {
			led.add(ScopeFile, "environment log not recognised", 1, d.File)
		}
	}
	unleveled, unleveledLed, levels := analyzeRuns(sw, led)
	s.Runs = unleveled
	led.merge(unleveledLed)
	for _, lw := range levels {
		s.Runs = append(s.Runs, lw.summaries...)
		s.Levels = append(s.Levels, lw.level)
		led.merge(lw.led)
	}
	s.Reported = reportedRuns(sw)
	for _, r := range sw.Reported {
		led.add(ScopeRun, "tool's aggregates only: shown as reported, not recomputed, in no level", 1, r.Dir)
	}
	s.Accounting = accounting(s.Runs)
	s.Exclusions = led.list()
	s.Environment = environment(sw)
	s.Findings = lint(sw, s)
	finishSummary(sw, s)
	// Whatever a run's numbers did not already null (pooled figures of
	// samples out of range): the summary must decode (DecodeSummary).
	keepSummaryInRange(s, led)
	s.Exclusions = led.list()
	// From the final (in-range) figures: each is one of them divided by a
	// GPU count, or a copy.
	s.Pareto = paretoOf(s, runEnvs(sw))
	return s
}

// newSummary returns the sweep's summary with its method and notes, before
// any run is analysed.
func newSummary(sw *ingest.Sweep) *Summary {
	cfg := sw.Config
	return &Summary{
		Schema: SchemaVersion,
		Title:  cfg.Title,
		Method: Method{
			Percentile: cfg.Percentile, PercentileRule: percentileRule(cfg.Percentile),
			MAD: cfg.MAD, MADRule: madRule(cfg.MAD),
			Warmup: cfg.Warmup.Mode, WarmupRule: warmupRuleText(cfg.Warmup), WarmupStatistic: warmupStatisticText(cfg.Warmup.Mode),
			SLO:                 methodSLO(cfg),
			CounterTolerance:    cfg.CounterTolerance,
			SpeculativeDecoding: cfg.SpeculativeDecoding,
			MinRuns:             MinRuns,
			ErrorRateThreshold:  cfg.ErrorRateThreshold,
			IgnoredSettings:     ignoredSettings(sw),
		},
		Notes: []string{
			"Client timings (TTFT, TPOT, E2E from per-request records) and server histograms (from /metrics bucket deltas) measure different intervals and different request sets; they are shown side by side and never joined, subtracted or divided.",
			"Percentiles are never averaged across runs: across-run figures are the median ± MAD of per-run statistics, and pooled figures are percentiles of all runs' requests together.",
			"Output and prompt token rates are separate quantities and are never added into one tokens/s figure.",
		},
	}
}

// analyzeRuns analyses the sweep's runs as they are read and summarises
// each level once its runs are done. It returns the runs without a level
// with their ledger, and the levels, each with its ledger, in series and
// load order; duplicate runs are entered in led.
//
// Runs arrive from ingest in level order, each once it is read. A run is
// analysed as soon as it arrives (up to GOMAXPROCS at once) and then
// released; a level is summarised as soon as its last run is done, and its
// pooled samples are dropped with it (while the next level's runs are
// read, so at most two levels' samples are held). Runs without a level are
// summarised on their own and listed first, their exclusions before the
// levels'.
func analyzeRuns(sw *ingest.Sweep, led *ledger) ([]RunSummary, *ledger, []*levelWork) {
	cfg := sw.Config
	var (
		unleveled    []RunSummary
		unleveledLed = newLedger()
		slots        = make(chan struct{}, runtime.GOMAXPROCS(0))
		finishing    sync.WaitGroup           // the levels being summarised
		finishSlot   = make(chan struct{}, 1) // one at a time: at most two levels' samples held
	)
	levels, byLevel := planLevels(sw.Runs)
	for r := range sw.Stream() {
		if r.DuplicateOf != "" {
			// The same run as an earlier repeat (ingest compared the
			// files): counting it twice would shrink the spread.
			led.add(ScopeRun, "duplicate of "+r.DuplicateOf+": identical requests file", 1, r.Dir)
			r.Release()
			continue
		}
		load := runLoad(r)
		if !load.Valid() {
			// No level to put it in: it failed (ingest said why).
			rs, _ := analyzeRun(runInput{run: r, cfg: cfg, led: unleveledLed})
			keepInRange(&rs, unleveledLed)
			r.Release()
			unleveled = append(unleveled, rs)
			continue
		}
		lw := byLevel[levelID{r.Series, load}]
		w := &runWork{run: r, led: newLedger()}
		lw.runs = append(lw.runs, w)
		slots <- struct{}{}
		lw.wg.Add(1)
		go func() {
			defer lw.wg.Done()
			defer func() { <-slots }()
			w.summary, w.samples = analyzeRun(runInput{run: w.run, cfg: cfg, led: w.led})
			w.run.Release()
		}()
		if len(lw.runs) == lw.expected {
			// Summarised beside the next runs' reads and analyses.
			finishing.Add(1)
			finishSlot <- struct{}{}
			go func() {
				defer finishing.Done()
				defer func() { <-finishSlot }()
				lw.finish(cfg)
			}()
		}
	}
	finishing.Wait()
	sort.SliceStable(levels, func(i, j int) bool {
		if c := levels[i].series.Compare(levels[j].series); c != 0 {
			return c < 0
		}
		return levels[i].load.Compare(levels[j].load) < 0
	})
	return unleveled, unleveledLed, levels
}

// planLevels returns the levels of the runs that have one (duplicates
// left out), in order of their first run, each expecting its number of
// runs, and the same levels by levelID.
func planLevels(runs []*ingest.Run) ([]*levelWork, map[levelID]*levelWork) {
	var levels []*levelWork
	byLevel := map[levelID]*levelWork{}
	for _, r := range runs {
		if load := runLoad(r); load.Valid() && r.DuplicateOf == "" {
			id := levelID{r.Series, load}
			lw := byLevel[id]
			if lw == nil {
				lw = &levelWork{series: r.Series, load: load, led: newLedger()}
				byLevel[id] = lw
				levels = append(levels, lw)
			}
			lw.expected++
		}
	}
	return levels, byLevel
}

// levelID names a level: a load level of one series. Runs are repeats of
// each other only when their levelIDs are equal.
type levelID struct {
	series ingest.Series
	load   ingest.LoadLevel
}

// levelWork is one load level of one series being analysed: its runs in
// arrival (sweep) order, and once they are all done its summary.
type levelWork struct {
	series   ingest.Series
	load     ingest.LoadLevel
	expected int // the level's runs in the sweep
	runs     []*runWork
	wg       sync.WaitGroup
	// Set by finish.
	led       *ledger
	summaries []RunSummary
	level     Level
}

// runWork is one run of a level and what its analysis produced.
type runWork struct {
	run     *ingest.Run
	led     *ledger
	summary RunSummary
	samples samples
}

// finish waits for the level's runs, summarises the level and drops the
// runs' samples.
func (lw *levelWork) finish(cfg ingest.Config) {
	lw.wg.Wait()
	lw.summaries = make([]RunSummary, len(lw.runs))
	perRun := make([]samples, len(lw.runs))
	for i, w := range lw.runs {
		for _, d := range w.run.Diagnostics {
			if d.Reason == "several series" {
				lw.led.add(ScopeSeries, "several series for one metric (no label selector): metric not used", 1, d.String())
			}
			if d.Reason == "unreadable scrape" {
				lw.led.add(ScopeFile, "unreadable scrape", 1, d.String())
			}
		}
		lw.led.merge(w.led)
		lw.summaries[i], perRun[i] = w.summary, w.samples
		keepInRange(&lw.summaries[i], lw.led)
	}
	lw.level = buildLevel(lw.series, lw.load, lw.summaries, pool(perRun), cfg)
	for _, smp := range perRun {
		smp.release()
	}
	lw.runs = nil
}

// ignoredSettings lists the unknown settings of sweep.yaml and every
// run.yaml, which ingest reported and ignored, by file, line and column.
func ignoredSettings(sw *ingest.Sweep) []IgnoredSetting {
	out := []IgnoredSetting{}
	collect := func(ds []ingest.Diagnostic) {
		for _, d := range ds {
			if d.Reason == "unknown setting" {
				out = append(out, IgnoredSetting{File: d.File, Line: d.Line, Column: d.Column, Setting: d.ColumnName})
			}
		}
	}
	collect(sw.Diagnostics)
	for _, r := range sw.Runs {
		collect(r.Diagnostics)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}

func madRule(form string) string {
	if form == "scaled" {
		return "scaled MAD: 1.4826 × median(|xᵢ − median(x)|) over the per-run values"
	}
	return "raw MAD: median(|xᵢ − median(x)|) over the per-run values (not scaled)"
}

// statSpec describes one per-run statistic summarised across runs.
type statSpec struct {
	key, metric, stat, unit, sample string
	get                             func(RunSummary) Num
}

func distSpecs(prefix, metric, unit, sample string, get func(RunSummary) Distribution) []statSpec {
	var out []statSpec
	for _, st := range []string{"p50", "p95", "p99", "mean"} {
		st := st
		out = append(out, statSpec{prefix + "." + st, metric, st, unit, sample, func(r RunSummary) Num { return get(r).Value(st) }})
	}
	return out
}

// serverHistogramStat reads percentile st (p50, p95 or p99) of a run's
// server histogram of role, NaN when the run has none or it was omitted.
func serverHistogramStat(role ingest.MetricRole, st string) func(RunSummary) Num {
	return func(r RunSummary) Num {
		for _, h := range r.Server {
			if h.Role != string(role) || h.Omitted != "" {
				continue
			}
			switch st {
			case "p50":
				return h.P50
			case "p95":
				return h.P95
			case "p99":
				return h.P99
			}
		}
		return NaN
	}
}

// levelStatSpecs lists every per-run statistic in report order.
func levelStatSpecs() []statSpec {
	var specs []statSpec
	specs = append(specs, distSpecs("ttft", "TTFT", "ms", SamplePerRequest, func(r RunSummary) Distribution { return r.TTFT })...)
	specs = append(specs, distSpecs("tpot", "TPOT", "ms", SamplePerRequest, func(r RunSummary) Distribution { return r.TPOT })...)
	specs = append(specs, distSpecs("e2e", "E2E latency", "ms", SamplePerRequest, func(r RunSummary) Distribution { return r.E2E })...)
	specs = append(specs, distSpecs("user_tps", "user TPS", "tokens/s", SamplePerRequest, func(r RunSummary) Distribution { return r.UserTPS })...)
	specs = append(specs, statSpec{"itl.gap_weighted_mean", "ITL", "mean", "ms", "per-gap (Σ(E2E−TTFT)/Σ(n−1))", func(r RunSummary) Num { return r.GapWeightedITL }})
	for _, st := range []string{"p50", "p95", "p99"} {
		st := st
		specs = append(specs, statSpec{"itl." + st, "ITL", st, "ms", SamplePerGap, func(r RunSummary) Num {
			if !r.GapDistributionKnown {
				return NaN
			}
			return r.ITL.Value(st)
		}})
	}
	specs = append(specs,
		statSpec{"throughput.output_tokens_per_s", "output tokens/s", "rate", "tokens/s", SampleWindowCount, func(r RunSummary) Num { return r.Throughput.OutputTokensPerSec }},
		statSpec{"throughput.prompt_tokens_per_s", "prompt tokens/s", "rate", "tokens/s", SampleWindowCount, func(r RunSummary) Num { return r.Throughput.PromptTokensPerSec }},
		statSpec{"throughput.requests_per_s", "requests/s", "rate", "req/s", "successful requests completed in the window / window", func(r RunSummary) Num { return r.Throughput.RequestsPerSec }},
		statSpec{"throughput.client_output_tokens_per_s", "client output tokens/s", "rate", "tokens/s", SampleClientSpan, func(r RunSummary) Num { return r.Throughput.ClientOutputTokensPerSec }},
		statSpec{"goodput.percent", "goodput", "pass rate", "%", "measured requests meeting every SLO / measured requests", func(r RunSummary) Num { return r.Goodput.Percent }},
		statSpec{"goodput.requests_per_s", "request goodput", "rate", "req/s", "requests completing in the window and meeting every SLO / window", func(r RunSummary) Num { return r.Goodput.RequestsPerSec }},
	)
	specs = append(specs,
		statSpec{"workload.inter_arrival.p50", "inter-arrival time", "p50", "ms", SamplePerRequest + " (gaps between consecutive sends)", func(r RunSummary) Num { return r.Workload.InterArrivalMs.P50 }},
		statSpec{"workload.inter_arrival.mean", "inter-arrival time", "mean", "ms", SamplePerRequest + " (gaps between consecutive sends)", func(r RunSummary) Num { return r.Workload.InterArrivalMs.Mean }},
		statSpec{"workload.achieved_concurrency", "achieved concurrency", "time average", "requests", "Σ request durations / (T_last − T_first)", func(r RunSummary) Num { return r.Workload.AchievedConcurrency }},
	)
	for _, role := range ingest.HistogramRoles {
		role := role
		for _, st := range []string{"p50", "p95", "p99"} {
			st := st
			specs = append(specs, statSpec{"server." + string(role) + "." + st, histogramLabels[role][0], st, "ms", SampleServerHist, serverHistogramStat(role, st)})
		}
	}
	return specs
}

// pooledSamples are a level's samples: each metric is the runs' slices
// side by side, never copied into one.
type pooledSamples struct {
	ttft, e2e, tpot, itl [][]float64
	prompt, output       valueCounts
}

// pool gathers the runs' samples of a level.
func pool(runs []samples) pooledSamples {
	var p pooledSamples
	var prompt, output []valueCounts
	for _, r := range runs {
		p.ttft = append(p.ttft, r.ttft)
		p.e2e = append(p.e2e, r.e2e)
		p.tpot = append(p.tpot, r.tpot)
		p.itl = append(p.itl, r.itl)
		prompt = append(prompt, r.prompt)
		output = append(output, r.output)
	}
	p.prompt, p.output = mergeCounts(prompt), mergeCounts(output)
	return p
}

// pooledDistribution summarises a pooled sample and samples its CDF, in one
// selection when the method is nearest rank (the CDF's probabilities
// include 0.50, 0.95 and 0.99).
func pooledDistribution(metric, unit, sample, method string, cs [][]float64) (Distribution, []CDFPoint) {
	if method != NearestRank || total(cs) == 0 {
		d := distributionOf(metric, unit, sample, method, cs)
		return d, cdf(cs)
	}
	n := total(cs)
	d := Distribution{Metric: metric, Unit: unit, Sample: sample, Method: method, N: n, MeanWeighting: meanWeighting(sample)}
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		for _, x := range c {
			sum += x
			if x < lo {
				lo = x
			}
			if x > hi {
				hi = x
			}
		}
	}
	points := cdfIn(cs, lo, hi)
	for _, pt := range points {
		switch pt.P {
		case 0.50:
			d.P50 = pt.Value
		case 0.95:
			d.P95 = pt.Value
		case 0.99:
			d.P99 = pt.Value
		case 1:
			d.Max = pt.Value
		}
	}
	d.Mean = Num(sum / float64(n))
	return d, points
}

// cdfProbabilities are the quantiles at which pooled CDFs are sampled.
func cdfProbabilities() []float64 {
	var ps []float64
	for i := 1; i <= 100; i++ {
		ps = append(ps, float64(i)/100)
		if i == 99 {
			ps = append(ps, 0.995, 0.999)
		}
	}
	return ps
}

func cdf(cs [][]float64) []CDFPoint { return cdfIn(cs, math.NaN(), math.NaN()) }

// cdfIn is cdf with the sample's minimum and maximum given (NaN when not
// known).
func cdfIn(cs [][]float64, lo, hi float64) []CDFPoint {
	if total(cs) == 0 {
		return nil
	}
	ps := cdfProbabilities()
	q := quantilesAt(ps, NearestRank, total(cs), func(ranks []int) []float64 { return rankValuesIn(cs, ranks, lo, hi) })
	out := make([]CDFPoint, len(ps))
	for i, p := range ps {
		out[i] = CDFPoint{P: p, Value: Num(q[i])}
	}
	return out
}

// runLoad is a run's load level; a run built with only Concurrency set
// is at that concurrency.
func runLoad(r *ingest.Run) ingest.LoadLevel {
	if r.Load.Valid() {
		return r.Load
	}
	if r.Concurrency > 0 {
		return ingest.ConcurrencyLoad(r.Concurrency)
	}
	return ingest.LoadLevel{}
}

// buildLevel summarises a level from its runs and their pooled samples:
// counts, goodput and server observations added up, each statistic across
// the usable runs, the pooled distributions and the workload.
func buildLevel(series ingest.Series, c ingest.LoadLevel, runs []RunSummary, pooled pooledSamples, cfg ingest.Config) Level {
	lv := Level{LevelKey: levelKey(series, c)}
	var ok []RunSummary
	for _, r := range runs {
		if !r.Failed {
			ok = append(ok, r)
			lv.Runs = append(lv.Runs, r.Dir)
		}
		lv.Counts = addCounts(lv.Counts, r.Counts)
	}
	lv.Warmup = levelWarmup(runs)
	lv.Goodput = levelGoodput(ok)
	lv.ServerObservations = serverObservations(ok)
	lv.Stats = acrossRuns(ok, cfg.MAD == "scaled")
	lv.pool(ok, pooled, cfg.Percentile)
	lv.setWorkload(ok, pooled, cfg.Percentile)
	return lv
}

// levelGoodput adds up the runs' goodput counts and failures by reason.
func levelGoodput(ok []RunSummary) GoodputCounts {
	var g GoodputCounts
	fails := map[string]int{}
	for _, r := range ok {
		g.Passed += r.Goodput.Passed
		g.Measured += r.Goodput.Measured
		for _, f := range r.Goodput.FailedBy {
			fails[f.Reason] += f.Count
		}
	}
	g.FailedBy = sortedReasonCounts(fails)
	return g
}

// serverObservations adds up, per histogram role, the observations of the
// runs' server histograms that are shown; a role none shows is left out.
func serverObservations(ok []RunSummary) []RoleCount {
	var out []RoleCount
	for _, role := range ingest.HistogramRoles {
		rc := RoleCount{Role: string(role)}
		shown := false
		for _, r := range ok {
			for _, h := range r.Server {
				if h.Role == string(role) && h.Omitted == "" && h.Count.Valid() {
					rc.Count += float64(h.Count)
					shown = true
				}
			}
		}
		if shown {
			out = append(out, rc)
		}
	}
	return out
}

// acrossRuns returns each level statistic (and the GPU ones when a run
// has GPU telemetry) across the runs: the median and MAD (scaled or not)
// of the runs' valid values.
func acrossRuns(ok []RunSummary, scaled bool) []AcrossRuns {
	specs := levelStatSpecs()
	for _, r := range ok {
		if r.GPU != nil {
			specs = append(specs, gpuStatSpecs()...)
			break
		}
	}
	var out []AcrossRuns
	for _, sp := range specs {
		ar := AcrossRuns{Key: sp.key, Metric: sp.metric, Statistic: sp.stat, Unit: sp.unit, Sample: sp.sample, Median: NaN, MAD: NaN}
		var vals []float64
		for _, r := range ok {
			v := sp.get(r)
			ar.PerRun = append(ar.PerRun, v)
			if v.Valid() {
				vals = append(vals, float64(v))
			}
		}
		ar.Runs = len(vals)
		if len(vals) > 0 {
			ar.Median = Num(Median(vals))
			ar.MAD = Num(MAD(vals, scaled))
		}
		ar.FewRuns = ar.Runs < MinRuns
		out = append(out, ar)
	}
	return out
}

// pool sets the level's pooled latency distributions (percentile method
// m). A pooled sample is labelled "all runs", so it is only formed when
// every usable run of the level contributes to it.
func (lv *Level) pool(ok []RunSummary, pooled pooledSamples, m string) {
	streamed, gapsKnown := 0, 0
	for _, r := range ok {
		if r.Streamed {
			streamed++
		}
		if r.GapDistributionKnown {
			gapsKnown++
		}
	}
	// The three pooled samples are summarised side by side: the last
	// level's are what the report waits for.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		lv.PooledE2E, lv.CDFE2E = pooledDistribution("E2E latency", "ms", SamplePooled, m, pooled.e2e)
	}()
	if streamed == len(ok) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lv.PooledTTFT, lv.CDFTTFT = pooledDistribution("TTFT", "ms", SamplePooled, m, pooled.ttft)
		}()
		lv.PooledTPOT, lv.CDFTPOT = pooledDistribution("TPOT", "ms", SamplePooled, m, pooled.tpot)
	} else {
		why := fmt.Sprintf("not pooled: TTFT was measured (streamed) in %d of %d runs", streamed, len(ok))
		lv.PooledTTFT = unavailable("TTFT", "ms", SamplePooled, m, why)
		lv.PooledTPOT = unavailable("TPOT", "ms", SamplePooled, m, why)
	}
	wg.Wait()
	if gapsKnown == len(ok) && len(ok) > 0 {
		lv.PooledITL = distributionOf("ITL", "ms", SamplePooledGap, m, pooled.itl)
	} else {
		lv.PooledITL = unavailable("ITL", "ms", SamplePooledGap, m,
			fmt.Sprintf("not pooled: the per-gap distribution is known in %d of %d runs", gapsKnown, len(ok)))
	}
}

// setWorkload sets the level's workload: token lengths pooled as value
// counts, the early-stop share over every run's basis, the median
// achieved concurrency.
func (lv *Level) setWorkload(ok []RunSummary, pooled pooledSamples, m string) {
	lv.Workload.PromptTokens = pooled.prompt.distribution("prompt length", "tokens", SamplePooled, m)
	lv.Workload.OutputTokens = pooled.output.distribution("output length", "tokens", SamplePooled, m)
	lv.Workload.PromptHistogram = pooled.prompt.bins(30)
	lv.Workload.OutputHistogram = pooled.output.bins(30)
	lv.Workload.EarlyStopPercent, lv.Workload.AchievedConcurrency = NaN, NaN
	var early, basis float64
	var conc []float64
	for _, r := range ok {
		if r.Workload.EarlyStopPercent.Valid() {
			early += float64(r.Workload.EarlyStopPercent) * float64(r.Workload.EarlyStopBasis) / 100
			basis += float64(r.Workload.EarlyStopBasis)
		}
		if r.Workload.AchievedConcurrency.Valid() {
			conc = append(conc, float64(r.Workload.AchievedConcurrency))
		}
	}
	if basis > 0 {
		lv.Workload.EarlyStopPercent = Num(100 * math.Round(early) / basis)
		lv.Workload.EarlyStopBasis = int(basis)
	}
	if len(conc) > 0 {
		lv.Workload.AchievedConcurrency = Num(Median(conc))
	}
	lv.Workload.InterArrivalMs = unavailable("inter-arrival time", "ms", SamplePerRun, m, "not pooled across runs: see the level statistics workload.inter_arrival.*")
}

func addCounts(a, b Counts) Counts {
	return Counts{
		RowsRead: a.RowsRead + b.RowsRead, FailedRunRows: a.FailedRunRows + b.FailedRunRows, BadRows: a.BadRows + b.BadRows, Accepted: a.Accepted + b.Accepted,
		WarmUp: a.WarmUp + b.WarmUp, CoolDown: a.CoolDown + b.CoolDown, Measured: a.Measured + b.Measured, Errors: a.Errors + b.Errors,
		ZeroToken: a.ZeroToken + b.ZeroToken, OneToken: a.OneToken + b.OneToken, MultiToken: a.MultiToken + b.MultiToken,
	}
}

func accounting(runs []RunSummary) Accounting {
	a := Accounting{Runs: len(runs)}
	for _, r := range runs {
		if r.Failed {
			a.FailedRuns++
		}
		a.Requests = addCounts(a.Requests, r.Counts)
	}
	return a
}

func environment(sw *ingest.Sweep) EnvironmentSummary {
	var e EnvironmentSummary
	srcSet := map[string]bool{}
	var first *ingest.Run
	for _, r := range sw.Runs {
		if first == nil && !r.Failed {
			first = r
		}
		for _, src := range r.Env.Sources {
			srcSet[src.Path+" ("+src.Format+")"] = true
		}
	}
	// A sweep of the tools' aggregates only has no run: its environment
	// is the first reported run's (the model and engine the tool's file
	// names, in the env.json its importer wrote).
	var firstEnv *ingest.Environment
	if len(sw.Runs) == 0 {
		for _, r := range sw.Reported {
			for _, src := range r.Env.Sources {
				srcSet[src.Path+" ("+src.Format+")"] = true
			}
			if firstEnv == nil {
				firstEnv = &r.Env
			}
		}
	}
	for k := range srcSet {
		e.Sources = append(e.Sources, k)
	}
	sort.Strings(e.Sources)
	if first == nil && len(sw.Runs) > 0 {
		first = sw.Runs[0]
	}
	if first != nil {
		firstEnv = &first.Env
	}
	if firstEnv != nil {
		for _, k := range ingest.CanonicalFields {
			if v, ok := firstEnv.Canonical[k]; ok {
				e.Canonical = append(e.Canonical, EnvField{Key: k, Value: v})
			}
		}
		e.Missing = append(e.Missing, firstEnv.Missing...)
	}
	for _, d := range sw.EnvDiffs {
		ed := EnvDiff{Key: d.Key}
		for _, v := range d.Values {
			ed.Values = append(ed.Values, EnvDiffValue{Value: v.Value, Runs: v.Runs})
		}
		e.Diffs = append(e.Diffs, ed)
	}
	return e
}

// lint lists the findings, most severe first.
func lint(sw *ingest.Sweep, s *Summary) []Finding {
	var fs []Finding
	fs = append(fs, failedRunFindings(s)...)
	fs = append(fs, errorRateFindings(s)...)
	fs = append(fs, fewRunsFindings(s)...)
	fs = append(fs, warmupSettingFindings(sw.Config.Warmup)...)
	for _, rule := range runRules(sw.Config.CounterTolerance) {
		fs = append(fs, rule.findings(s)...)
	}
	fs = append(fs, sweepFindings(sw, s)...)
	rank := map[string]int{"error": 0, "warning": 1, "info": 2}
	sort.SliceStable(fs, func(i, j int) bool { return rank[fs[i].Severity] < rank[fs[j].Severity] })
	return fs
}

// failedRunFindings names the runs left out of every figure, and why.
func failedRunFindings(s *Summary) []Finding {
	var failed []string
	for _, r := range s.Runs {
		if r.Failed {
			why := r.FailReason
			if !strings.HasPrefix(why, r.Dir) {
				why = r.Dir + ": " + why
			}
			failed = append(failed, why)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return []Finding{{Severity: "error", Rule: "run-failed", Source: "input contract (docs/input-format.md): every run directory must be readable",
		Message: fmt.Sprintf("%s left out of every figure: %s", textfmt.Count(len(failed), "run", "runs"), textfmt.Plural(len(failed), "it could not be used", "they could not be used")),
		Runs:    failed}}
}

// fewRunsFindings names each level with fewer than MinRuns usable runs.
func fewRunsFindings(s *Summary) []Finding {
	var fs []Finding
	for _, lv := range s.Levels {
		if len(lv.Runs) < MinRuns {
			fs = append(fs, Finding{Severity: "warning", Rule: "fewer-than-3-runs", Source: "benchnote protocol: repeat every sweep at least three times",
				Message: fmt.Sprintf("%s has %s; median ± MAD needs at least %d to say anything about spread", describeLevel(lv.LevelKey), textfmt.Count(len(lv.Runs), "usable run", "usable runs"), MinRuns),
				Runs:    lv.Runs})
		}
	}
	return fs
}

// warmupSettingFindings warns of a warm-up setting that measures warm-up
// or ignores the data.
func warmupSettingFindings(w ingest.WarmupConfig) []Finding {
	switch w.Mode {
	case ingest.WarmupNone:
		return []Finding{{Severity: "warning", Rule: "no-warm-up-handling", Source: "serving-workloads §4.2 warm-up: discard all warm-up measurements",
			Message: "warm-up handling is disabled (warmup: none): early, slower requests are measured"}}
	case ingest.WarmupFixed:
		return []Finding{{Severity: "warning", Rule: "fixed-warm-up-count", Source: "serving-workloads §4.2 warm-up: do not use a fixed count",
			Message: fmt.Sprintf("warm-up is a fixed override (warmup: {mode: fixed, count: %d}): the first %d requests of every run are discarded whatever the data show", w.Count, w.Count)}}
	}
	return nil
}

// sweepFindings are the findings about the sweep as a whole: metrics with
// several series, settings benchnote does not know, environments that
// differ between runs, and outputs of 0 or 1 tokens.
func sweepFindings(sw *ingest.Sweep, s *Summary) []Finding {
	var fs []Finding
	add := func(sev, rule, source, msg string, runs []string) {
		fs = append(fs, Finding{Severity: sev, Rule: rule, Source: source, Message: msg, Runs: runs})
	}
	var several []string
	for _, r := range sw.Runs {
		for _, d := range r.Diagnostics {
			if d.Reason == "several series" {
				several = append(several, d.String())
			}
		}
	}
	if len(several) > 0 {
		add("error", "several-engines-in-scrape", "serving-workloads §2.2: do not combine unrelated series",
			"a metric has several series (engines or models) and no label_selector chooses one; it is not used", several)
	}
	if ign := s.Method.IgnoredSettings; len(ign) > 0 {
		var where []string
		for _, x := range ign {
			where = append(where, fmt.Sprintf("%s:%d:%d %s", x.File, x.Line, x.Column, x.Setting))
		}
		add("warning", "unknown-settings", "input contract (docs/input-format.md): sweep.yaml and run.yaml settings",
			fmt.Sprintf("%s benchnote does not know %s ignored (a misspelt key?): %s", textfmt.Count(len(ign), "setting", "settings"), textfmt.Plural(len(ign), "was", "were"), strings.Join(where, ", ")), nil)
	}
	if len(sw.EnvDiffs) > 0 {
		var keys []string
		for _, d := range sw.EnvDiffs {
			keys = append(keys, d.Key)
		}
		add("warning", "environment-differs", "serving-workloads §4.1 environment log: compare under the same conditions",
			fmt.Sprintf("the environment differs between runs in %s: %s", textfmt.Count(len(keys), "key", "keys"), strings.Join(keys, ", ")), nil)
	}
	low := 0
	for _, r := range s.Runs {
		low += r.Counts.ZeroToken + r.Counts.OneToken
	}
	if low > 0 {
		add("info", "zero-and-one-token-outputs", "serving-workloads §2.2: TPOT undefined for n ≤ 1",
			fmt.Sprintf("%s had 0 or 1 output tokens: excluded from TPOT (n = 0 from every latency statistic) and counted in Exclusions", textfmt.Count(low, "measured request", "measured requests")), nil)
	}
	return fs
}

// runRule is a per-run rule: one finding naming every usable run it
// matches. message holds a %s for how many runs match ("2 runs have").
type runRule struct {
	severity, rule, source, message string
	// match reports whether run r matches, and how the finding names it.
	match func(r RunSummary) (string, bool)
}

// findings is the rule's finding over the summary's usable runs, if any
// matches.
func (rule runRule) findings(s *Summary) []Finding {
	var runs []string
	for _, r := range s.Runs {
		if r.Failed {
			continue
		}
		if name, ok := rule.match(r); ok {
			runs = append(runs, name)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	return []Finding{{Severity: rule.severity, Rule: rule.rule, Source: rule.source, Message: fmt.Sprintf(rule.message, runsHave(len(runs))), Runs: runs}}
}

// runRules are the per-run rules, in the order their findings are
// listed; tol is the sweep's counter_tolerance.
func runRules(tol float64) []runRule {
	return []runRule{
		{"warning", "empty-run", "input contract (docs/input-format.md): a run's requests file holds its requests",
			"%s no usable request: nothing measured, nothing added to any figure",
			func(r RunSummary) (string, bool) {
				if r.Counts.RowsRead == 0 {
					return r.Dir + ": the requests file has no data row (header only?)", true
				}
				return fmt.Sprintf("%s: all %d rows were excluded as bad rows", r.Dir, r.Counts.RowsRead), r.Counts.Accepted == 0
			}},
		{"error", "scrapes-not-one-process", "serving-workloads §4.4: both scrapes must come from the same process and label set",
			"%s start and end scrapes that cannot come from one server process: server throughput and histograms are not reported",
			func(r RunSummary) (string, bool) {
				return r.Dir + ": " + strings.Join(r.Scrapes.NotOneProcess, "; "), len(r.Scrapes.NotOneProcess) > 0
			}},
		{"error", "identical-scrapes", "serving-workloads §4.4: two scrapes bracket the measurement window",
			"%s identical start and end scrape files, which cannot bracket the window: server throughput and histograms are not reported",
			func(r RunSummary) (string, bool) { return r.Dir, r.Scrapes.Identical }},
		{"warning", "scrapes-unchanged", "serving-workloads §4.4: two scrapes bracket the measurement window",
			"%s start and end scrapes in which every counter and histogram read is unchanged: the server counted nothing in the window (scrapes taken before the run, or of another server?)",
			func(r RunSummary) (string, bool) { return r.Dir, r.Scrapes.Unchanged }},
		{"warning", "empty-scrape", "serving-workloads §4: Prometheus dumps bracketing the window",
			"%s a scrape with no metric at all (an empty or truncated /metrics dump): server-side figures are unavailable",
			func(r RunSummary) (string, bool) {
				return r.Dir + ": " + strings.Join(r.Scrapes.Empty, ", "), len(r.Scrapes.Empty) > 0
			}},
		{"warning", "histogram-without-inf-bucket", "Prometheus histograms: the +Inf bucket holds every observation",
			"%s a server histogram without a +Inf bucket: not a valid Prometheus histogram, so it gives no quantiles (Prometheus's histogram_quantile returns NaN)",
			serverHistogramMatch(func(h ServerHistogram) string {
				if h.Omitted == reasonNoInfBucket {
					return h.Metric
				}
				return ""
			})},
		{"warning", "histogram-not-monotonic", "Prometheus histogram_quantile: cumulative bucket counts never decrease",
			"%s server histogram buckets whose count over the window is below a lower bucket's: each was raised to that count before interpolating, as Prometheus's histogram_quantile does, so the quantiles rest on repaired buckets",
			serverHistogramMatch(func(h ServerHistogram) string {
				var fixes []string
				for _, b := range h.RaisedBuckets {
					fixes = append(fixes, fmt.Sprintf("le=%q %g raised to %g", b.Le, b.Count, b.RaisedTo))
				}
				if len(fixes) == 0 {
					return ""
				}
				return h.Metric + " " + strings.Join(fixes, ", ")
			})},
		{"warning", "histogram-bounds-merged", "Prometheus histograms: one bucket per upper bound",
			"%s a server histogram with several buckets for one upper bound written differently (le=\"0.2\" and le=\"2e-1\"): their counts were added into one bucket, as Prometheus does",
			serverHistogramMatch(func(h ServerHistogram) string {
				if len(h.MergedBounds) == 0 {
					return ""
				}
				return h.Metric + " le=" + strings.Join(h.MergedBounds, ", le=")
			})},
		{"warning", "warm-up-never-stabilised", "serving-workloads §4.2 warm-up by stabilisation",
			"%s never stabilised under the warm-up rule; nothing was discarded, so warm-up may be measured",
			func(r RunSummary) (string, bool) { return r.Dir, r.Warmup.Outcome == WarmupNotStabilised }},
		{"warning", "warm-up-unavailable", "serving-workloads §4.2 warm-up: discard all warm-up measurements",
			"%s no known send order (t_request_sent is missing for some requests and contradicts the file order, or the source tool recorded completion order): warm-up could not be looked for and nothing was discarded",
			func(r RunSummary) (string, bool) { return r.Dir, r.Warmup.Outcome == WarmupUnavailable }},
		{"warning", "window-overlaps-warm-up", "serving-workloads §2.4: state whether the window includes warm-up",
			"%s warm-up requests completing inside the scrape window: server counters and histograms include warm-up",
			func(r RunSummary) (string, bool) {
				// Without both scrapes there are no server counters for
				// warm-up to be in (missing-scrape says so instead).
				return r.Dir, r.Warmup.OverlapsWindow && !strings.Contains(r.Throughput.ServerUnavailable, "missing")
			}},
		{"warning", "counter-client-mismatch", "serving-workloads §2.4 throughput from counter deltas over a declared window",
			fmt.Sprintf("%%s a generation-token counter delta that disagrees with the client's completion tokens by more than %g%%%%. Likely causes: other traffic or warm-up inside the window, requests outside it, aborted requests, a label selector picking another engine, or tokens counted differently (speculative decoding)", 100*tol),
			func(r RunSummary) (string, bool) {
				t := r.Throughput
				return fmt.Sprintf("%s (Δ generation_tokens %g vs Σ completion_tokens %d, %.2f%%)", r.Dir, float64(t.GenerationTokensDelta), t.ClientCompletionTokens, 100*float64(t.CounterMismatch)),
					t.CounterMismatch.Valid() && float64(t.CounterMismatch) > tol
			}},
		{"warning", "missing-window", "latency-and-throughput: define where the observation time starts and ends",
			"%s no measurement window (run.yaml window or scrape timestamps): server throughput and request goodput rate are unavailable",
			func(r RunSummary) (string, bool) { return r.Dir, r.Throughput.WindowSource == "unknown" }},
		{"info", "missing-scrape", "serving-workloads §4: Prometheus dumps bracketing the window",
			"%s metrics-start.prom or metrics-end.prom missing: server-side figures are unavailable",
			func(r RunSummary) (string, bool) {
				return r.Dir, strings.Contains(r.Throughput.ServerUnavailable, "missing")
			}},
		{"info", "chunked-streaming", "serving-workloads §2.2 per-gap deltas are conditional",
			"%s text chunks that do not carry exactly one token each: per-gap ITL distribution unknown; chunk-arrival gaps reported and labelled as such",
			func(r RunSummary) (string, bool) {
				return r.Dir, !r.GapDistributionKnown && r.ITL.Sample == SampleChunkGap
			}},
		{"error", "non-streamed-ttft", "serving-workloads §2.1: non-streaming responses cannot reveal TTFT",
			"%s TTFT equal to E2E for (nearly) all requests: the response was not streamed, so TTFT, TPOT and ITL were not measured and are not reported",
			func(r RunSummary) (string, bool) { return r.Dir, !r.Streamed }},
	}
}

// serverHistogramMatch turns a test on one server histogram (a non-empty
// description when it matches) into a per-run rule naming the run and
// every histogram that matches.
func serverHistogramMatch(describe func(ServerHistogram) string) func(RunSummary) (string, bool) {
	return func(r RunSummary) (string, bool) {
		var hits []string
		for _, h := range r.Server {
			if d := describe(h); d != "" {
				hits = append(hits, d)
			}
		}
		return r.Dir + ": " + strings.Join(hits, "; "), len(hits) > 0
	}
}

// errorRateFindings reports, per load level, a share of failed
// measured requests above the threshold in the level as a whole or in any
// of its runs.
func errorRateFindings(s *Summary) []Finding {
	thr := s.Method.ErrorRateThreshold
	var fs []Finding
	for _, lv := range s.Levels {
		var over []string
		usable := 0
		for _, r := range s.Runs {
			if r.LevelKey != lv.LevelKey || r.Failed {
				continue
			}
			usable++
			if c := r.Counts; c.Measured > 0 && float64(c.Errors) > thr*float64(c.Measured) {
				over = append(over, fmt.Sprintf("%s (%d of %d measured requests failed, %s)", r.Dir, c.Errors, c.Measured, percentOf(c.Errors, c.Measured)))
			}
		}
		c := lv.Counts
		levelOver := c.Measured > 0 && float64(c.Errors) > thr*float64(c.Measured)
		if !levelOver && len(over) == 0 {
			continue
		}
		msg := fmt.Sprintf("%s: %d of %d measured requests failed (%s), above the error-rate threshold of %.4g%%; %s %s above it",
			describeLevel(lv.LevelKey), c.Errors, c.Measured, percentOf(c.Errors, c.Measured), 100*thr, ofRuns(len(over), usable), textfmt.Plural(len(over), "is", "are"))
		if !levelOver {
			msg = fmt.Sprintf("%s: %s %s more failed requests than the error-rate threshold of %.4g%% of %s measured requests (the level as a whole: %d of %d, %s)",
				describeLevel(lv.LevelKey), ofRuns(len(over), usable), textfmt.Plural(len(over), "has", "have"), 100*thr, textfmt.Plural(len(over), "its", "their"), c.Errors, c.Measured, percentOf(c.Errors, c.Measured))
		}
		fs = append(fs, Finding{Severity: "error", Rule: "error-rate", Source: "serving-workloads §2.5: failed requests are not latency samples; latency describes only the requests that succeeded",
			Message: msg + ". Latency and throughput figures describe only the requests that succeeded", Runs: over})
	}
	return fs
}

// percentOf renders n/d as a percentage for a finding's message.
func percentOf(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.4g%%", 100*float64(n)/float64(d))
}
