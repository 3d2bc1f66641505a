package importer

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

// llm-d Benchmark Reports: the common report llm-d-benchmark writes from
// the runs of GuideLLM, inference-perf, vLLM bench and others, in YAML or
// JSON, one report per stage of a run. They hold aggregates only, so a
// report becomes a reported.yaml: its statistics as the harness computed
// them, at the level of its stage.
//
// Version 0.1 holds scenario (description, host, platform, model, load
// with the harness's native args) and metrics (time, requests, latency,
// throughput as plain numbers, service, resources). Version 0.2 (and its
// additive revisions 0.2.N) holds run (ids, time with an ISO-8601
// duration), scenario (stack components, load with standardized rate_qps,
// concurrency and stage) and results (request_performance.aggregate with
// requests, latency and throughput statistics; observability, profiling,
// component health and session data, which are not read). A statistic is
// {units, mean, min, p0p1 … p99p9, max, stddev, mode}.

// llmdStats are the statistics of a latency kept as figures, in order;
// the others (min, p0p1, p1, p5, p10, p25, p75, p99p9, stddev, mode) are
// counted in run.yaml as not kept, within the 64 figures run.yaml holds.
var llmdStats = []string{"mean", "p50", "p90", "p95", "p99", "max"}

// llmdLengthStats are those kept of the input and output lengths.
var llmdLengthStats = []string{"mean", "p50", "max"}

// llmdStatNames are the members a statistic may have besides units.
var llmdStatNames = map[string]bool{"mean": true, "mode": true, "stddev": true, "min": true, "p0p1": true, "p1": true, "p5": true,
	"p10": true, "p25": true, "p50": true, "p75": true, "p90": true, "p95": true, "p99": true, "p99p9": true, "max": true}

// llmdMetric is how one of the report's statistics becomes figures.
type llmdMetric struct {
	key, label string
	// kind is "time" (s or ms, to ms), "per-token" (s/token or ms/token,
	// to ms), "count" (tokens), "rate" (tokens/s), "req-rate" (queries/s,
	// to req/s).
	kind  string
	stats []string
	note  string
}

var llmdLatency = map[string]llmdMetric{
	"time_to_first_token": {"ttft", "TTFT", "time", llmdStats, ""},
	"time_per_output_token": {"tpot", "TPOT", "per-token", llmdStats,
		"the harness's TPOT; llm-d notes that tools define TPOT and ITL differently"},
	"inter_token_latency": {"itl", "ITL", "per-token", llmdStats,
		"the harness's ITL; llm-d notes that tools define TPOT and ITL differently"},
	"normalized_time_per_output_token": {"ntpot", "NTPOT", "per-token", llmdStats,
		"request latency / output tokens, TTFT included: no benchnote counterpart"},
	"request_latency": {"e2e", "request latency", "time", llmdStats, "as the harness measured it"},
}

// llmdLatencyOrder is the order latency figures are written in.
var llmdLatencyOrder = []string{"time_to_first_token", "time_per_output_token", "inter_token_latency", "request_latency", "normalized_time_per_output_token"}

var llmdLengths = map[string]llmdMetric{
	"input_length":  {"prompt_tokens", "input length", "count", llmdLengthStats, "the harness's count"},
	"output_length": {"output_tokens", "output length", "count", llmdLengthStats, "the harness's count"},
}

// llmdRates maps v0.2 throughput statistics (their mean is kept) and v0.1
// throughput numbers to figures.
var llmdRates = map[string]struct{ key, label, unit string }{
	"output_token_rate":     {"throughput.client_output_tokens_per_s", "output token rate", "tokens/s"},
	"input_token_rate":      {"throughput.client_input_tokens_per_s", "input token rate", "tokens/s"},
	"total_token_rate":      {"throughput.client_total_tokens_per_s", "total token rate", "tokens/s"},
	"request_rate":          {"throughput.requests_per_s", "request rate", "req/s"},
	"output_tokens_per_sec": {"throughput.client_output_tokens_per_s", "output tokens/s", "tokens/s"},
	"input_tokens_per_sec":  {"throughput.client_input_tokens_per_s", "input tokens/s", "tokens/s"},
	"total_tokens_per_sec":  {"throughput.client_total_tokens_per_s", "total tokens/s", "tokens/s"},
	"requests_per_sec":      {"throughput.requests_per_s", "requests/s", "req/s"},
}

var llmdRateOrder = []string{"output_token_rate", "output_tokens_per_sec", "input_token_rate", "input_tokens_per_sec",
	"total_token_rate", "total_tokens_per_sec", "request_rate", "requests_per_sec"}

// llmdReport is what is read of a report.
type llmdReport struct {
	version string
	// latency, lengths and rates hold the figures of each member read,
	// written out in a fixed order.
	latency, lengths, rates map[string][]ingest.ReportedFigure
	counts                  []ingest.ReportedFigure
	duration                float64 // seconds; NaN when not recorded
	notKept                 int     // statistics read but not kept as figures
	level                   ingest.LoadLevel
	stage                   int64 // -1 when not recorded
	harness, harnessVersion string
	env                     []ingest.KV
	traits                  traits
}

// importLLMD imports one llm-d Benchmark Report: its figures, at its
// stage's level.
func importLLMD(r io.Reader, s *source, opts Options) ([]Run, error) {
	j := newJSONIn(r, s.path)
	rep, err := readLLMD(j)
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	var figs []ingest.ReportedFigure
	for _, m := range llmdLatencyOrder {
		figs = append(figs, rep.latency[m]...)
	}
	for _, m := range []string{"input_length", "output_length"} {
		figs = append(figs, rep.lengths[m]...)
	}
	for _, m := range llmdRateOrder {
		figs = append(figs, rep.rates[m]...)
	}
	figs = append(figs, rep.counts...)
	if !math.IsNaN(rep.duration) {
		figs = append(figs, ingest.ReportedFigure{Key: "duration_s", Label: "run duration", Value: rep.duration, Unit: "s"})
	}
	version := rep.version
	if rep.harness != "" {
		version += ", from " + rep.harness
		if rep.harnessVersion != "" {
			version += " " + rep.harnessVersion
		}
	}
	if rep.stage >= 0 {
		version += fmt.Sprintf(", stage %d", rep.stage)
	}
	prov := &ingest.Provenance{Tool: "llm-d Benchmark Report", Version: version, File: filepath.Base(s.path), Reported: figs}
	prov.AsReported = []string{"every figure: the report holds aggregates only, as the harness that ran the load computed them; nothing can be recomputed"}
	if rep.notKept > 0 {
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("the report's other statistics (min, p0.1, p1, p5, p10, p25, p75, p99.9, stddev, mode): %d values, not kept", rep.notKept))
	}
	prov.Unavailable = unavailableWithoutRecords()
	prov.TokenCounts = "tokenizer"
	prov.Definitions = llmdDefinitions
	run := Run{Config: ingest.RunConfig{Load: rep.level, Provenance: prov}, Env: rep.env, traits: rep.traits}
	run.Config.Load = opts.levelOr(run.Config.Load)
	return []Run{run}, nil
}

// llmdDefinitions are how the reports define what benchnote measures.
var llmdDefinitions = []ingest.Definition{
	{Metric: "TPOT and ITL", Source: "as the harness that ran the load defines them (GuideLLM, inference-perf, vLLM bench and AIPerf differ); the report keeps its tool's numbers",
		Benchnote: "TPOT is (E2E − TTFT) / (n − 1) per request; ITL is per gap"},
	{Metric: "percentiles", Source: "the harness's own percentile method",
		Benchnote: "the sweep's percentile method (nearest rank unless sweep.yaml says linear)"},
	{Metric: "token counts", Source: "the harness's count (its client tokenizer or the server's usage, by tool)",
		Benchnote: "the server's usage.completion_tokens"},
}

// readLLMD reads a report's top-level object.
func readLLMD(j *jsonIn) (*llmdReport, error) {
	rep := &llmdReport{latency: map[string][]ingest.ReportedFigure{}, lengths: map[string][]ingest.ReportedFigure{},
		rates: map[string][]ingest.ReportedFigure{}, duration: math.NaN(), stage: -1}
	err := j.object(func(name string) error {
		switch name {
		case "version":
			v, err := j.scalarText()
			if err != nil {
				return err
			}
			if !llmdVersion.MatchString(v) {
				return j.errorf("llm-d Benchmark Report version %q is not supported (benchnote reads versions 0.1 and 0.2.x)", shorten(v))
			}
			rep.version = v
			return nil
		case "run":
			return rep.readRun(j)
		case "scenario":
			return rep.readScenario(j)
		case "results":
			return rep.readResults(j)
		case "metrics":
			return rep.readAggregate(j, true)
		}
		return j.skip()
	})
	if err != nil {
		return nil, err
	}
	if rep.version == "" {
		return nil, &SourceError{File: j.file, Path: "$", Msg: "not an llm-d Benchmark Report: expected the member version (0.1 or 0.2.x)"}
	}
	return rep, nil
}

// llmdVersion matches the versions read: 0.1, 0.2 and 0.2.N.
var llmdVersion = regexp.MustCompile(`^0\.(1|2(\.[0-9]+)?)$`)

// readRun reads v0.2's run: its duration and description.
func (rep *llmdReport) readRun(j *jsonIn) error {
	return j.object(func(name string) error {
		switch name {
		case "time":
			if j.peek() == 'n' {
				return j.skip()
			}
			return j.object(func(name string) error {
				if name != "duration" || j.peek() == 'n' {
					return j.skip()
				}
				v, err := j.str()
				if err != nil {
					return err
				}
				d, ok := isoDuration(v)
				if !ok {
					return j.errorf("expected an ISO-8601 duration such as PT49.97S, got %q", shorten(v))
				}
				rep.duration = d
				return nil
			})
		case "eid", "description":
			v, err := j.scalarText()
			if err == nil && v != "" {
				rep.env = append(rep.env, ingest.KV{Key: "llmd.run." + name, Value: v})
			}
			return err
		}
		return j.skip()
	})
}

// isoDurationPattern matches the ISO-8601 durations of days, hours,
// minutes and seconds (years, months and weeks have no fixed length).
var isoDurationPattern = regexp.MustCompile(`^P(?:([0-9]+(?:\.[0-9]+)?)D)?(?:T(?:([0-9]+(?:\.[0-9]+)?)H)?(?:([0-9]+(?:\.[0-9]+)?)M)?(?:([0-9]+(?:\.[0-9]+)?)S)?)?$`)

// isoDuration parses an ISO-8601 duration ("PT49.97S", "P1DT2H3M4.5S")
// into seconds.
func isoDuration(s string) (float64, bool) {
	m := isoDurationPattern.FindStringSubmatch(s)
	if m == nil || s == "P" || strings.HasSuffix(s, "T") {
		return 0, false
	}
	total := 0.0
	for i, scale := range []float64{86400, 3600, 60, 1} {
		if m[i+1] == "" {
			continue
		}
		v, err := strconv.ParseFloat(m[i+1], 64)
		if err != nil {
			return 0, false
		}
		total += v * scale
	}
	if math.IsInf(total, 0) {
		return 0, false
	}
	return total, true
}

// readScenario reads the load (v0.1 and v0.2) and the model and engine
// of the stack (v0.2) or of scenario.model and platform (v0.1).
func (rep *llmdReport) readScenario(j *jsonIn) error {
	if j.peek() == 'n' {
		return j.skip()
	}
	return j.object(func(name string) error {
		switch name {
		case "load":
			if j.peek() == 'n' {
				return j.skip()
			}
			return rep.readLoad(j)
		case "model": // v0.1
			return j.member("name", func() error { return rep.readModel(j, "scenario.model.name") })
		case "stack": // v0.2
			if j.peek() == 'n' {
				return j.skip()
			}
			return j.array(func(int) error { return rep.readStack(j) })
		}
		return j.skip()
	})
}

// readModel reads a model's name, noting where it came from.
func (rep *llmdReport) readModel(j *jsonIn, from string) error {
	v, err := j.scalarText()
	if err == nil {
		rep.addModel(v, from)
	}
	return err
}

// readStack reads an entry of the v0.2 scenario.stack: of its
// standardized member, the model, the accelerator and the serving engine.
func (rep *llmdReport) readStack(j *jsonIn) error {
	return j.member("standardized", func() error {
		return j.object(func(name string) error { return rep.readStandardizedStack(j, name) })
	})
}

// readStandardizedStack reads member name of a stack entry's standardized.
func (rep *llmdReport) readStandardizedStack(j *jsonIn, name string) error {
	switch name {
	case "model":
		return j.member("name", func() error { return rep.readModel(j, "scenario.stack[].standardized.model.name") })
	case "accelerator":
		return j.member("model", func() error {
			v, err := j.scalarText()
			if err == nil && v != "" {
				rep.addEnv("accelerator", v)
			}
			return err
		})
	case "tool", "tool_version":
		v, err := j.scalarText()
		if err == nil && v != "" {
			rep.addEnv("engine."+name, v)
		}
		return err
	}
	return j.skip()
}

// addEnv adds an environment key; the stack's components may give one
// several values, which are listed once each, in order.
func (rep *llmdReport) addEnv(key, value string) {
	for i, kv := range rep.env {
		if kv.Key != key {
			continue
		}
		if !slices.Contains(strings.Split(kv.Value, ", "), value) {
			rep.env[i].Value += ", " + value
		}
		return
	}
	rep.env = append(rep.env, ingest.KV{Key: key, Value: value})
}

func (rep *llmdReport) addModel(v, from string) {
	if v == "" {
		return
	}
	rep.addEnv("model", v)
	rep.traits.add("model", v, from)
}

// readLoad reads scenario.load: v0.2's standardized tool, stage, rate_qps
// and concurrency; v0.1's name and native args.
func (rep *llmdReport) readLoad(j *jsonIn) error {
	ld := llmdLoad{rep: rep, j: j, rate: math.NaN(), conc: math.NaN()}
	err := j.object(func(name string) error {
		switch name {
		case "name": // v0.1
			v, err := j.scalarText()
			rep.harness = v
			return err
		case "args": // v0.1: the harness's own arguments
			if j.peek() != '{' {
				return j.skip()
			}
			return j.object(ld.readArg)
		case "native": // v0.2: a report benchnote exported records its level
			if j.peek() != '{' {
				return j.skip()
			}
			return ld.readNative()
		case "standardized": // v0.2
			return j.object(ld.readStandardized)
		}
		return j.skip()
	})
	if err != nil {
		return err
	}
	if rep.harness != "" {
		rep.traits.add("harness", rep.harness, "the load generator")
	}
	return ld.setLevel()
}

// llmdLoad is what readLoad reads of scenario.load: the rate and the
// concurrency (NaN when not given) with their paths for messages, and the
// level a report benchnote exported records natively.
type llmdLoad struct {
	rep                *llmdReport
	j                  *jsonIn
	rate, conc         float64
	ratePath, concPath string
	native             ingest.LoadLevel
}

// readArg reads one of the v0.1 harness's own arguments, whatever its
// spelling, keeping the concurrency and the rate.
func (ld *llmdLoad) readArg(name string) error {
	j := ld.j
	switch strings.ReplaceAll(strings.ToLower(name), "-", "_") {
	case "max_concurrency", "concurrency", "num_concurrent_requests":
		if j.peek() != '0' {
			return j.skip()
		}
		v, err := j.number()
		ld.conc, ld.concPath = v, j.path()
		return err
	case "rate", "request_rate", "qps", "qps_values":
		if j.peek() != '0' {
			return j.skip() // a list of rates is a sweep, not this stage's
		}
		v, err := j.number()
		ld.rate, ld.ratePath = v, j.path()
		return err
	}
	return j.skip()
}

// readNative reads native.config.benchnote: the level and arrival process
// benchnote wrote when it exported the report.
func (ld *llmdLoad) readNative() error {
	j := ld.j
	return j.object(func(name string) error {
		if name != "config" || j.peek() != '{' {
			return j.skip()
		}
		return j.object(func(name string) error {
			if name != "benchnote" || j.peek() != '{' {
				return j.skip()
			}
			return j.object(ld.readBenchnote)
		})
	})
}

// readBenchnote reads one member of native.config.benchnote.
func (ld *llmdLoad) readBenchnote(name string) error {
	j := ld.j
	switch name {
	case "level":
		v, err := j.str()
		if err != nil {
			return err
		}
		l, perr := ingest.ParseLoadKey(v)
		if perr != nil {
			return j.errorf("%v", perr)
		}
		ld.native.Mode, ld.native.Concurrency, ld.native.Rate = l.Mode, l.Concurrency, l.Rate
		return nil
	case "arrival":
		v, err := j.str()
		switch v {
		case "", ingest.ArrivalPoisson, ingest.ArrivalConstant, ingest.ArrivalGamma:
		default:
			return j.errorf("expected an arrival process (poisson, constant or gamma), got %q", shorten(v))
		}
		ld.native.Arrival = v
		return err
	}
	return j.skip()
}

// readStandardized reads one member of the v0.2 load.standardized: the
// harness, its stage, the rate or concurrency and the requested lengths.
func (ld *llmdLoad) readStandardized(name string) error {
	j, rep := ld.j, ld.rep
	switch name {
	case "tool":
		v, err := j.scalarText()
		rep.harness = v
		return err
	case "tool_version":
		v, err := j.scalarText()
		rep.harnessVersion = v
		return err
	case "stage":
		v, err := j.optCount()
		rep.stage = v
		return err
	case "rate_qps":
		if j.peek() == 'n' {
			return j.skip()
		}
		v, err := j.rate()
		ld.rate, ld.ratePath = v, j.path()
		return err
	case "concurrency":
		if j.peek() == 'n' {
			return j.skip()
		}
		v, err := j.rate()
		ld.conc, ld.concPath = v, j.path()
		return err
	case "input_seq_len", "output_seq_len":
		if j.peek() == 'n' {
			return j.skip()
		}
		return j.member("value", func() error {
			v, err := j.scalarText()
			if err == nil {
				rep.traits.add(strings.TrimSuffix(name, "_seq_len")+"_len", v, "scenario.load.standardized."+name+".value")
			}
			return err
		})
	}
	return j.skip()
}

// setLevel sets the report's level. A finite rate makes a rate level;
// else a finite concurrency a concurrency level; an infinite one (.inf:
// unbounded) rate inf.
func (ld *llmdLoad) setLevel() error {
	j, rep, rate, conc := ld.j, ld.rep, ld.rate, ld.conc
	switch {
	case rate > 0 && !math.IsInf(rate, 1):
		if err := levelRange(j.file, j.record, ld.ratePath, rate, true); err != nil {
			return err
		}
		rep.level = ingest.RateLoad(rate, "")
		if ld.native.Mode == ingest.ModeRate && ld.native.Rate == rate {
			// The arrival process of a report benchnote exported.
			rep.level.Arrival = ld.native.Arrival
		}
	case conc >= 1 && !math.IsInf(conc, 1):
		if conc != math.Trunc(conc) {
			return &SourceError{File: j.file, Path: ld.concPath, Msg: fmt.Sprintf("expected an integer concurrency or .inf, got %s", formatValue(conc))}
		}
		if err := levelRange(j.file, j.record, ld.concPath, conc, false); err != nil {
			return err
		}
		rep.level = ingest.ConcurrencyLoad(int(conc))
	case math.IsInf(conc, 1) || math.IsInf(rate, 1):
		rep.level = ingest.RateLoad(math.Inf(1), "")
	case !math.IsNaN(conc) || !math.IsNaN(rate):
		path, v := ld.concPath, conc
		if !math.IsNaN(rate) {
			path, v = ld.ratePath, rate
		}
		return &SourceError{File: j.file, Path: path, Msg: fmt.Sprintf("expected a positive load, got %s", formatValue(v))}
	default:
		// No standardized load: a report benchnote exported names its
		// level (rate inf, which JSON cannot write as .inf) natively.
		if ld.native.Mode != "" {
			rep.level = ld.native
		}
	}
	return nil
}

// readResults reads v0.2's results: its request_performance.aggregate.
func (rep *llmdReport) readResults(j *jsonIn) error {
	return j.object(func(name string) error {
		if name != "request_performance" {
			return j.skip()
		}
		return j.object(func(name string) error {
			if name != "aggregate" {
				return j.skip()
			}
			return rep.readAggregate(j, false)
		})
	})
}

// readAggregate reads v0.2's results.request_performance.aggregate or
// v0.1's metrics: requests, latency and throughput.
func (rep *llmdReport) readAggregate(j *jsonIn, v1 bool) error {
	rd := &llmdAggregateReader{rep: rep, j: j, v1: v1}
	return rd.j.optObject(rd.member)
}

// llmdAggregateReader reads the aggregate's objects into rep, a method
// per object; v1 is set for v0.1's metrics.
type llmdAggregateReader struct {
	rep *llmdReport
	j   *jsonIn
	v1  bool
}

// member reads a member of the aggregate.
func (rd *llmdAggregateReader) member(name string) error {
	switch name {
	case "time":
		if !rd.v1 {
			return rd.j.skip()
		}
		return rd.j.object(rd.time)
	case "requests":
		return rd.j.optObject(rd.requests)
	case "latency":
		return rd.j.optObject(rd.latency)
	case "throughput":
		return rd.j.optObject(rd.throughput)
	}
	return rd.j.skip()
}

// time reads a member of v0.1's time: the duration in seconds.
func (rd *llmdAggregateReader) time(name string) error {
	j := rd.j
	if name != "duration" {
		return j.skip()
	}
	v, err := j.optNumber()
	if err == nil && !math.IsNaN(v) {
		if v < 0 || math.IsInf(v, 0) {
			return j.errorf("expected a duration in seconds, got %s", formatValue(v))
		}
		rd.rep.duration = v
	}
	return err
}

// requests reads a member of requests: the counts and the lengths.
func (rd *llmdAggregateReader) requests(name string) error {
	j, rep := rd.j, rd.rep
	switch name {
	case "total", "failures", "incomplete":
		v, err := j.optCount()
		if err != nil || v < 0 {
			return err
		}
		key := map[string]string{"total": "counts.sent", "failures": "counts.errors", "incomplete": "counts.incomplete"}[name]
		label := map[string]string{"total": "requests sent", "failures": "failed requests", "incomplete": "incomplete requests"}[name]
		rep.counts = append(rep.counts, ingest.ReportedFigure{Key: key, Label: label, Value: float64(v), Unit: "requests"})
		return nil
	case "input_length", "output_length":
		figs, err := rep.readStatistics(j, llmdLengths[name])
		rep.lengths[name] = figs
		return err
	}
	return j.skip()
}

// latency reads a member of latency: a latency's statistics.
func (rd *llmdAggregateReader) latency(name string) error {
	m, ok := llmdLatency[name]
	if !ok {
		return rd.j.skip()
	}
	figs, err := rd.rep.readStatistics(rd.j, m)
	rd.rep.latency[name] = figs
	return err
}

// throughput reads a member of throughput: a rate, one number in v0.1,
// statistics in v0.2.
func (rd *llmdAggregateReader) throughput(name string) error {
	j, rep := rd.j, rd.rep
	m, ok := llmdRates[name]
	if !ok {
		return j.skip()
	}
	if rd.v1 {
		v, err := j.optNumber()
		if err == nil && !math.IsNaN(v) {
			rep.rates[name] = []ingest.ReportedFigure{{Key: m.key, Label: m.label, Value: v, Unit: m.unit}}
		}
		return err
	}
	kind := "rate"
	if m.unit == "req/s" {
		kind = "req-rate"
	}
	figs, err := rep.readStatistics(j, llmdMetric{key: m.key, label: m.label, kind: kind, stats: []string{"mean"}})
	rep.rates[name] = figs
	return err
}

// llmdUnits gives, per kind, each unit the schema allows and its factor to
// benchnote's unit.
var llmdUnits = map[string]map[string]float64{
	"time":      {"s": 1000, "ms": 1},
	"per-token": {"s/token": 1000, "ms/token": 1},
	"count":     {"count": 1},
	"rate":      {"tokens/s": 1},
	"req-rate":  {"queries/s": 1},
}

// llmdUnitNames is benchnote's unit per kind.
var llmdUnitNames = map[string]string{"time": "ms", "per-token": "ms", "count": "tokens", "rate": "tokens/s", "req-rate": "req/s"}

// readStatistics reads a Statistics object into the figures m keeps,
// converted to benchnote's unit; null is no statistic.
func (rep *llmdReport) readStatistics(j *jsonIn, m llmdMetric) ([]ingest.ReportedFigure, error) {
	if j.peek() == 'n' {
		return nil, j.skip()
	}
	vals := map[string]float64{}
	units, unitsPath := "", ""
	read := 0
	err := j.object(func(name string) error {
		if name == "units" {
			v, err := j.str()
			units, unitsPath = v, j.path()
			return err
		}
		if !llmdStatNames[name] {
			return j.skip()
		}
		v, err := j.optNumber()
		if err != nil || math.IsNaN(v) {
			return err
		}
		vals[name] = v
		read++
		return nil
	})
	if err != nil {
		return nil, err
	}
	factor, ok := llmdUnits[m.kind][units]
	if !ok {
		var allowed []string
		for u := range llmdUnits[m.kind] {
			allowed = append(allowed, u)
		}
		slices.Sort(allowed)
		return nil, &SourceError{File: j.file, Path: unitsPath, Msg: fmt.Sprintf("expected units %s, got %q", strings.Join(allowed, " or "), shorten(units))}
	}
	unit := llmdUnitNames[m.kind]
	var out []ingest.ReportedFigure
	for _, st := range m.stats {
		v, ok := vals[st]
		if !ok {
			continue
		}
		read--
		key := m.key
		rate := m.kind == "rate" || m.kind == "req-rate"
		if !rate {
			stat := st
			if m.key == "itl" && st == "mean" {
				stat = "gap_weighted_mean"
			}
			key += "." + stat
		}
		label := st + " " + m.label
		if rate {
			label = m.label + " (mean)"
		}
		out = append(out, ingest.ReportedFigure{Key: key, Label: label, Value: v * factor, Unit: unit, Note: m.note})
	}
	rep.notKept += read
	return out, nil
}
