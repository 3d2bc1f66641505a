// Package analyze turns an ingested sweep into a Summary: the serving
// metrics exactly as the measurement rules define them, per run, across the
// runs of each concurrency level (median ± MAD) and pooled, together with a
// ledger of everything excluded and a list of lint findings.
//
// Analyze is pure computation: no I/O and no formatting. Every figure it
// produces carries its metric, unit, sample, the weighting of any mean, the
// percentile method and the counts it rests on, so that the report only has
// to print labels it is given. Percentiles are never averaged, subtracted or
// combined across runs, series or phases; client timings and server
// histograms are never joined.
package analyze

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// SchemaVersion identifies the layout of Summary (and summary.json).
// It changes whenever a field is renamed or its meaning changes.
//
// v2: levels and runs are keyed by load level (mode, value): "mode" is
// "concurrency" (with "concurrency") or "rate" (with "rate", a number or
// "inf", and "arrival" when known); runs carry "import" and the summary
// "reported" for imported results; counts may carry "cool_down".
//
// v3: runs' "errors" are grouped by error class (numbers and ids
// normalised) with examples; goodput's "passed_in_window" and
// "requests_per_s" count measured requests only (no warm-up); the summary
// has "answers" (the highest load meeting the SLOs), method.slo has
// "attainment" and "from"; levels have "error_percent",
// "zero_output_percent", "output_rate_key", "suspect" and
// "server_resolution"; runs have "notes".
//
// v4: levels, runs and reported runs carry "series", the labels of the
// configuration they belong to (a JSON object), when the sweep has any,
// and method.config carries sweep.yaml's "series"; levels are keyed by
// (series, mode, value). A v3 file is a v4 file without series, and
// DecodeSummary reads it. The summary has "pareto": per level, output
// tokens/s per GPU against the median user TPS, each median ± MAD across
// runs, with the Pareto frontier and whether the level meets the SLOs.
const SchemaVersion = "benchnote.summary/v4"

// previousSchema is the last layout DecodeSummary still reads.
const previousSchema = "benchnote.summary/v3"

// Num is a float64 that encodes NaN and ±Inf as JSON null ("not available").
type Num float64

// NaN is the "not available" Num.
var NaN = Num(math.NaN())

// Valid reports whether the number is finite.
func (n Num) Valid() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// MarshalJSON writes the shortest exact decimal, or null when not finite.
func (n Num) MarshalJSON() ([]byte, error) {
	if !n.Valid() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(n), 'g', -1, 64), nil
}

// UnmarshalJSON reads a number or null (as NaN). A number beyond
// ±MaxFloat64 is a *json.UnmarshalTypeError, which encoding/json names
// the field of.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = NaN
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return jsonTypeError(b, reflect.TypeFor[Num]())
	}
	*n = Num(f)
	return nil
}

// jsonTypeError is the error of a JSON value b that is not a (finite)
// number of type t.
func jsonTypeError(b []byte, t reflect.Type) error {
	what := "number " + string(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		what = "string"
	case len(b) > 0 && (b[0] == '{' || b[0] == '['):
		what = map[byte]string{'{': "object", '[': "array"}[b[0]]
	case string(b) == "true" || string(b) == "false":
		what = "bool"
	}
	return &json.UnmarshalTypeError{Value: what, Type: t}
}

// Sample names describe what a statistic was computed over.
const (
	SamplePerRequest  = "per-request"
	SamplePerGap      = "per-gap"
	SampleChunkGap    = "per-chunk-arrival gap"
	SamplePerRun      = "per-run statistic"
	SamplePooled      = "pooled per-request (all runs)"
	SamplePooledGap   = "pooled per-gap (all runs)"
	SampleServerHist  = "server histogram (bucket deltas over the window)"
	SampleWindowCount = "counter delta over the window"
	SampleClientSpan  = "client records over T_last − T_first"
)

// Weightings of means.
const (
	WeightRequest = "request-weighted"
	WeightGap     = "gap-weighted"
)

// Summary is the whole analysis of one sweep.
type Summary struct {
	Schema string `json:"schema"`
	Title  string `json:"title"`
	Method Method `json:"method"`
	// Levels holds one entry per load level: concurrency levels ascending,
	// then rate levels ascending (rate inf last).
	Levels []Level `json:"levels"`
	// Runs holds every run (also the failed ones), in level, repeat order.
	Runs []RunSummary `json:"runs"`
	// Accounting adds up every input row of the sweep.
	Accounting Accounting `json:"accounting"`
	// Exclusions lists everything not used, grouped by reason.
	Exclusions []Exclusion `json:"exclusions"`
	// Findings are the lint findings, most severe first.
	Findings []Finding `json:"findings"`
	// Environment is the sweep's environment and its differences.
	Environment EnvironmentSummary `json:"environment"`
	// Notes are fixed statements the report must carry (for example that
	// client timings and server histograms are not joinable).
	Notes []string `json:"notes"`
	// Reported holds the runs imported with their tools' aggregates only:
	// figures as reported, never recomputed and never part of a level.
	Reported []ReportedRun `json:"reported,omitempty"`
	// Answers is the headline: per series and, within one, per load mode
	// (concurrency, then rate), the highest level meeting the SLOs.
	Answers []Answer `json:"answers"`
	// Pareto is what the report's Pareto chart draws: per level of each
	// series, output tokens/s per GPU against output tokens/s per user.
	Pareto Pareto `json:"pareto"`
	// Configurations ranks the series of a sweep with several by output
	// tokens/s per GPU at their answers; nil (left out) for one series.
	Configurations *Configurations `json:"configurations,omitempty"`
}

// Method records every choice that shapes the numbers.
type Method struct {
	Percentile     string `json:"percentile"`
	PercentileRule string `json:"percentile_rule"`
	MAD            string `json:"mad"`
	MADRule        string `json:"mad_rule"`
	Warmup         string `json:"warmup"`
	WarmupRule     string `json:"warmup_rule"`
	// WarmupStatistic says what the warm-up trace's statistic is and how
	// it is scaled; empty when the rule has none.
	WarmupStatistic  string  `json:"warmup_statistic,omitempty"`
	SLO              SLO     `json:"slo"`
	CounterTolerance float64 `json:"counter_tolerance"`
	// SpeculativeDecoding marks server per-token histograms as per-step.
	SpeculativeDecoding bool `json:"speculative_decoding"`
	MinRuns             int  `json:"min_runs"`
	// ErrorRateThreshold is the share of failed measured requests above
	// which a run or a level gets an error finding.
	ErrorRateThreshold float64 `json:"error_rate_threshold"`
	// IgnoredSettings lists the settings in sweep.yaml and run.yaml that
	// benchnote does not know and ignored, in file and line order.
	IgnoredSettings []IgnoredSetting `json:"ignored_settings"`
}

// IgnoredSetting is one unknown setting that was ignored.
type IgnoredSetting struct {
	// File is the settings file, relative to the sweep root.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Setting is the key as written, dotted below the top level
	// ("warmup.windw").
	Setting string `json:"setting"`
}

// SLO is the goodput targets (ms; 0 = not applied).
type SLO struct {
	TTFTms Num `json:"ttft_ms"`
	TPOTms Num `json:"tpot_ms"`
	E2Ems  Num `json:"e2e_ms"`
	// Attainment is the share of a level's measured requests, in (0, 1],
	// that must meet every target for the level to meet the SLOs: its
	// median goodput across runs must be at least 100 × Attainment %.
	Attainment float64 `json:"attainment"`
	// From says where each setting came from.
	From SLOFrom `json:"from"`
}

// Where an SLO setting came from, for SLOFrom.
const (
	// FromDefault: benchnote's default (the targets are the measurement
	// rules' example; the attainment is benchnote's choice).
	FromDefault = "default"
	// FromSweepYAML: the sweep's sweep.yaml.
	FromSweepYAML = "sweep.yaml"
	// FromCommandLine: benchnote report --slo.
	FromCommandLine = "command line"
)

// SLOFrom says, per SLO setting, where its value came from: FromDefault,
// FromSweepYAML or FromCommandLine.
type SLOFrom struct {
	TTFT       string `json:"ttft"`
	TPOT       string `json:"tpot"`
	E2E        string `json:"e2e"`
	Attainment string `json:"attainment"`
}

// Set reports whether any target applies.
func (s SLO) Set() bool {
	return s.TTFTms.Valid() && s.TTFTms > 0 || s.TPOTms.Valid() && s.TPOTms > 0 || s.E2Ems.Valid() && s.E2Ems > 0
}

// Targets writes the targets that apply, TTFT, TPOT then E2E, each with
// its value in ms exactly as set: "TTFT ≤ 1000 ms, TPOT ≤ 150 ms",
// "E2E ≤ 2500.5 ms"; "(none set)" when none applies. The report prints
// it and compare tells two sweeps' targets apart by it, so it never
// rounds a value (nor writes an exponent).
func (s SLO) Targets() string {
	var parts []string
	for _, t := range []struct {
		name string
		ms   Num
	}{{"TTFT", s.TTFTms}, {"TPOT", s.TPOTms}, {"E2E", s.E2Ems}} {
		if t.ms.Valid() && t.ms > 0 {
			parts = append(parts, t.name+" ≤ "+strconv.FormatFloat(float64(t.ms), 'f', -1, 64)+" ms")
		}
	}
	if len(parts) == 0 {
		return "(none set)"
	}
	return strings.Join(parts, ", ")
}

// Answer is the headline for one load mode of one series: the highest
// level whose median goodput across runs meets the attainment target, with
// the figures a reader needs next to it. Its figures are copies of the
// level's statistics, so they carry their own labels.
type Answer struct {
	// Series is the configuration answered for; left out for a sweep's
	// only, unlabelled series.
	Series ingest.Series `json:"series,omitzero"`
	// Mode is "concurrency" or "rate".
	Mode string `json:"mode"`
	// Level is the highest level meeting the SLOs; nil when none does
	// (or when Unavailable says why there is no answer).
	Level *LevelKey `json:"level"`
	// Best is the level with the highest median goodput when none meets
	// the SLOs; nil otherwise.
	Best *LevelKey `json:"best,omitempty"`
	// Goodput, Output and Requests are the level's goodput.percent, its
	// output tokens/s (the statistic OutputKey names) and its
	// throughput.requests_per_s; for Best when no level meets the SLOs.
	Goodput  AcrossRuns `json:"goodput"`
	Output   AcrossRuns `json:"output_tokens_per_s"`
	Requests AcrossRuns `json:"requests_per_s"`
	// RunsMeeting counts the level's runs whose own goodput meets the
	// attainment target, of Goodput.Runs.
	RunsMeeting int `json:"runs_meeting"`
	// LowerNotMeeting lists the levels below Level (same series and
	// mode) that do not meet the SLOs: goodput is not monotonic in load.
	LowerNotMeeting []LevelKey `json:"lower_not_meeting,omitempty"`
	// Unavailable says why there is no answer (no target set, no level
	// with a goodput figure); empty otherwise.
	Unavailable string `json:"unavailable,omitempty"`
	// Capacity brackets the capacity under the SLOs between the levels
	// tested (see CapacityOf).
	Capacity Capacity `json:"capacity"`
	// Measured is the tool's own throughput over its own measured
	// duration, for the answer's level when benchnote has no measurement
	// window to compute output tokens/s or requests/s; nil otherwise.
	Measured *ToolMeasured `json:"tool_measured,omitempty"`
}

// Capacity brackets where the capacity under the SLOs lies among the
// levels tested, in the way compare reports it: the highest level whose
// median goodput meets the attainment target, the highest where every run
// does and the highest where at least one run does, and the lowest level
// above the highest meeting one (which, by construction, does not meet
// the target). The capacity lies between Level and Above.
type Capacity struct {
	// Level is the highest level whose median goodput meets the target;
	// nil when none does.
	Level *LevelKey `json:"level"`
	// EveryRun is the highest level at which every run met the target;
	// nil when none did.
	EveryRun *LevelKey `json:"every_run"`
	// SomeRun is the highest level at which at least one run met the
	// target; nil when none did.
	SomeRun *LevelKey `json:"some_run"`
	// Above is the lowest level with a goodput figure above Level (the
	// lowest level with one when Level is nil); nil when Level is the
	// highest level tested.
	Above *LevelKey `json:"above"`
	// Levels counts the levels with a goodput figure.
	Levels int `json:"levels"`
}

// ToolMeasured is a source tool's own throughput figures for a level,
// over the duration the tool measured itself (the median across the
// level's runs that report them).
type ToolMeasured struct {
	// Tool names the tool ("vLLM").
	Tool string `json:"tool"`
	// Runs counts the runs whose figures are used.
	Runs int `json:"runs"`
	// DurationS is the tool's measured duration in seconds.
	DurationS Num `json:"duration_s"`
	// Output is the tool's output tokens/s; NaN when it reports none.
	Output Num `json:"output_tokens_per_s"`
	// Requests is the tool's requests/s; NaN when it reports none.
	Requests Num `json:"requests_per_s"`
}

// Suspicion marks statistics of a level that rest on data which failed a
// check, so that the report greys them and names the reason instead of
// headlining them as plain numbers.
type Suspicion struct {
	// Rule is the lint finding's rule ("counter-client-mismatch",
	// "error-rate", ...).
	Rule string `json:"rule"`
	// Keys are the statistic keys concerned; a key ending in "." stands
	// for every key it prefixes ("ttft.").
	Keys []string `json:"keys"`
	// Runs are the level's runs the check failed in, of RunsOf usable
	// runs; empty when the level as a whole failed it.
	Runs   []string `json:"runs,omitempty"`
	RunsOf int      `json:"runs_of"`
}

// Concerns reports whether the suspicion covers the statistic key.
func (s Suspicion) Concerns(key string) bool {
	for _, k := range s.Keys {
		if k == key || strings.HasSuffix(k, ".") && strings.HasPrefix(key, k) {
			return true
		}
	}
	return false
}

// LevelBucket is where a level's server-histogram quantile lies in the
// buckets, over the level's runs.
type LevelBucket struct {
	// Key is the statistic key ("server.ttft.p95").
	Key string `json:"key"`
	// Coarse is set when the quantile is an interpolation inside a bucket
	// that cannot resolve it (QuantileBucket.Coarse) in any of the runs.
	Coarse bool `json:"coarse"`
	// LoMs is the lowest lower bound and HiMs the highest upper bound
	// (null for +Inf) of the buckets the runs' quantiles fell in.
	LoMs Num `json:"lo_ms"`
	HiMs Num `json:"hi_ms"`
}

// ErrorClass is one class of request errors: the error texts that differ
// only in numbers and ids, or tracebacks ending in the same exception.
type ErrorClass struct {
	// Class is the normalised text: a traceback's last line (the
	// exception), otherwise the first line; numbers become <n> and ids
	// <id>; at most 200 characters.
	Class string `json:"class"`
	Count int    `json:"count"`
	// Examples are up to three distinct texts of the class as written
	// (the same line, unnormalised, at most 300 characters).
	Examples []string `json:"examples"`
}

// Distribution summarises one sample of values.
type Distribution struct {
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	Sample string `json:"sample"`
	// Method is the percentile method.
	Method string `json:"percentile_method"`
	// N is the number of values in the sample.
	N    int `json:"n"`
	P50  Num `json:"p50"`
	P95  Num `json:"p95"`
	P99  Num `json:"p99"`
	Max  Num `json:"max"`
	Mean Num `json:"mean"`
	// MeanWeighting says how the mean weights the sample.
	MeanWeighting string `json:"mean_weighting"`
	// Unavailable says why the distribution is empty, if it is.
	Unavailable string `json:"unavailable,omitempty"`
}

// Value returns the named statistic ("p50", "p95", "p99", "max", "mean").
func (d Distribution) Value(stat string) Num {
	switch stat {
	case "p50":
		return d.P50
	case "p95":
		return d.P95
	case "p99":
		return d.P99
	case "max":
		return d.Max
	case "mean":
		return d.Mean
	}
	return NaN
}

// CDFPoint is one point of an empirical CDF: the value at quantile P
// (nearest rank).
type CDFPoint struct {
	P     float64 `json:"p"`
	Value Num     `json:"value"`
}

// HistogramBin is one bin of a length histogram: [Lo, Hi).
type HistogramBin struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int     `json:"count"`
}

// Counts adds up a run's requests from rows read to latency samples:
// RowsRead = FailedRunRows + BadRows + Accepted.
type Counts struct {
	RowsRead int `json:"rows_read"`
	// FailedRunRows counts rows read in a run that failed as a whole.
	FailedRunRows int `json:"failed_run_rows"`
	BadRows       int `json:"bad_rows"`
	Accepted      int `json:"accepted"`
	// WarmUp counts the requests discarded by the warm-up rule and those
	// the source tool of an imported run marked as warm-up.
	WarmUp int `json:"warm_up"`
	// CoolDown counts the requests the source tool of an imported run
	// counted after its measurement (absent when 0).
	CoolDown int `json:"cool_down,omitempty"`
	// Measured = Accepted − WarmUp − CoolDown.
	Measured int `json:"measured"`
	Errors   int `json:"errors"`
	// ZeroToken counts successful requests with no output token.
	ZeroToken int `json:"zero_token"`
	// OneToken counts successful one-token requests (TTFT/E2E samples only).
	OneToken int `json:"one_token"`
	// MultiToken counts successful requests with n ≥ 2 (TPOT samples).
	MultiToken int `json:"multi_token"`
}

// Accounting adds up a whole sweep.
type Accounting struct {
	Runs       int    `json:"runs"`
	FailedRuns int    `json:"failed_runs"`
	Requests   Counts `json:"requests"`
}

// Throughput is a run's throughput, server- and client-side, never mixed.
type Throughput struct {
	// Window is the declared measurement window.
	WindowStart   string `json:"window_start,omitempty"`
	WindowEnd     string `json:"window_end,omitempty"`
	WindowSeconds Num    `json:"window_seconds"`
	WindowSource  string `json:"window_source"`
	// OutputTokensPerSec = Δ generation_tokens / window.
	OutputTokensPerSec Num `json:"output_tokens_per_s"`
	// PromptTokensPerSec = Δ prompt_tokens / window.
	PromptTokensPerSec Num `json:"prompt_tokens_per_s"`
	// GenerationTokensDelta and PromptTokensDelta are the counter deltas.
	GenerationTokensDelta Num `json:"generation_tokens_delta"`
	PromptTokensDelta     Num `json:"prompt_tokens_delta"`
	// ServerUnavailable says why server throughput is missing.
	ServerUnavailable string `json:"server_unavailable,omitempty"`
	// RequestsPerSec = successful requests completed in the window / window.
	RequestsPerSec Num `json:"requests_per_s"`
	// RequestsInWindow is the numerator of RequestsPerSec.
	RequestsInWindow int `json:"requests_in_window"`
	// RequestsBasis says how RequestsInWindow was counted.
	RequestsBasis string `json:"requests_basis,omitempty"`
	// ClientCompletionTokens is Σ completion_tokens over the accepted
	// requests completing inside the window (every status), the client's
	// side of the counter cross-check.
	ClientCompletionTokens int64 `json:"client_completion_tokens"`
	// CounterMismatch is the relative difference between the counter delta
	// and ClientCompletionTokens; NaN when not comparable.
	CounterMismatch Num `json:"counter_mismatch"`
	// ClientOutputTokensPerSec = Σ n / (T_last − T_first) over measured requests.
	ClientOutputTokensPerSec Num    `json:"client_output_tokens_per_s"`
	ClientSpanSeconds        Num    `json:"client_span_seconds"`
	ClientUnavailable        string `json:"client_unavailable,omitempty"`
}

// ServerHistogram is one server histogram's quantiles over a run's window.
type ServerHistogram struct {
	Role   string `json:"role"`
	Metric string `json:"metric"`
	Label  string `json:"label"`
	// Sample says what one observation is (per request, per step, per token).
	Sample string `json:"sample"`
	Unit   string `json:"unit"`
	// Count is the number of observations in the window (Δ count).
	Count Num `json:"count"`
	P50   Num `json:"p50"`
	P95   Num `json:"p95"`
	P99   Num `json:"p99"`
	// Mean = Δ sum / Δ count, observation-weighted.
	Mean Num `json:"mean"`
	// Resolution says, for each quantile, the bucket it was interpolated in;
	// a quantile in the lowest bucket, the +Inf bucket or a bucket wider
	// than half its estimate is marked Coarse.
	Resolution []QuantileBucket `json:"resolution,omitempty"`
	// Omitted says why the histogram is not shown, if it is not.
	Omitted string `json:"omitted,omitempty"`
	// MergedBounds lists the upper bounds (le, in the metric's unit) that a
	// scrape wrote on several buckets ("0.2" and "2e-1"); their counts were
	// added, as Prometheus does.
	MergedBounds []string `json:"merged_bounds,omitempty"`
	// RaisedBuckets lists the buckets whose count over the window was
	// below a lower bucket's and was raised to it before interpolating
	// (Prometheus's forced monotonicity).
	RaisedBuckets []RaisedBucket `json:"raised_buckets,omitempty"`
	// FloatNoiseIgnored is set when bucket counts differing by less than
	// 1e-12 (relative) were treated as equal, as Prometheus does.
	FloatNoiseIgnored bool `json:"float_noise_ignored,omitempty"`
}

// QuantileBucket is the bucket a histogram quantile was interpolated in.
type QuantileBucket struct {
	Quantile string `json:"quantile"`
	// LoMs and HiMs are the bucket bounds in ms (HiMs null for +Inf).
	LoMs Num `json:"lo_ms"`
	HiMs Num `json:"hi_ms"`
	// Coarse marks an estimate the buckets cannot resolve: the lowest
	// bucket (interpolated from 0), the +Inf bucket, or a bucket wider than
	// half the estimate.
	Coarse bool `json:"coarse"`
}

// ScrapeCheck says whether a run's start and end scrapes can bracket one
// window of one server process.
type ScrapeCheck struct {
	// Empty lists the scrape files that hold no metric family.
	Empty []string `json:"empty,omitempty"`
	// Identical is set when the two scrapes are the same bytes: they do not
	// bracket a window, and the run has no server figures.
	Identical bool `json:"identical"`
	// Unchanged is set when every counter and histogram read from both
	// scrapes has the same value in each: the server counted nothing in
	// the window.
	Unchanged bool `json:"unchanged"`
	// NotOneProcess lists why the scrapes cannot come from one server
	// process (process_start_time_seconds differs, a counter or histogram
	// count decreased, a series has other labels); the run then has no
	// server figures.
	NotOneProcess []string `json:"not_one_process,omitempty"`
}

// Goodput is the per-request SLO pass rate and its rate over the window.
type Goodput struct {
	// Percent = requests meeting every applicable SLO / measured requests × 100.
	Percent Num `json:"percent"`
	Passed  int `json:"passed"`
	// Measured is the denominator: every measured request, errors and n = 0 included.
	Measured int `json:"measured"`
	// PassedInWindow counts the measured requests (warm-up excluded)
	// completing inside the window that meet every target: the numerator
	// of RequestsPerSec, a subset of Throughput.RequestsInWindow.
	PassedInWindow int `json:"passed_in_window"`
	// RateBasis says how requests were placed in the window.
	RateBasis string `json:"rate_basis,omitempty"`
	// RequestsPerSec = PassedInWindow / window seconds.
	RequestsPerSec Num    `json:"requests_per_s"`
	Unavailable    string `json:"unavailable,omitempty"`
	// FailedBy counts failing requests by first failed condition.
	FailedBy []ReasonCount `json:"failed_by"`
}

// GoodputCounts are goodput's counts summed over a level's runs.
type GoodputCounts struct {
	Passed   int           `json:"passed"`
	Measured int           `json:"measured"`
	FailedBy []ReasonCount `json:"failed_by"`
}

// RoleCount is a count of observations of one server histogram role.
type RoleCount struct {
	Role  string  `json:"role"`
	Count float64 `json:"count"`
}

// ReasonCount is a count with its reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Workload describes what was sent and received.
type Workload struct {
	PromptTokens Distribution `json:"prompt_tokens"`
	OutputTokens Distribution `json:"output_tokens"`
	// EarlyStopPercent is the share of successful requests with n < max_tokens.
	EarlyStopPercent Num          `json:"early_stop_percent"`
	EarlyStopBasis   int          `json:"early_stop_basis"`
	InterArrivalMs   Distribution `json:"inter_arrival_ms"`
	// AchievedConcurrency = Σ request durations / (T_last − T_first).
	AchievedConcurrency Num            `json:"achieved_concurrency"`
	PromptHistogram     []HistogramBin `json:"prompt_histogram,omitempty"`
	OutputHistogram     []HistogramBin `json:"output_histogram,omitempty"`
}

// Warm-up outcomes: what a run's warm-up rule decided.
const (
	// WarmupCut: the rule found warm-up and it was discarded.
	WarmupCut = "cut"
	// WarmupNotDetected: the rule found no warm-up (change point not
	// significant, MSER-5's minimum at 0, or stable from the first block);
	// nothing was discarded.
	WarmupNotDetected = "no warm-up detected"
	// WarmupNotStabilised: the rule found no stable part (stabilisation
	// never held, or MSER-5's minimum on its boundary); nothing was
	// discarded, so warm-up may be measured.
	WarmupNotStabilised = "never stabilised"
	// WarmupUnavailable: the send order is unknown, so warm-up cannot be
	// found; nothing was discarded.
	WarmupUnavailable = "unavailable"
	// WarmupFixedCount: a fixed number of requests was discarded (an
	// explicit override, not a finding).
	WarmupFixedCount = "fixed override"
	// WarmupDisabled: warm-up handling is off (warmup: none).
	WarmupDisabled = "disabled"
)

// Send-order bases: how a run's send order was known.
const (
	// OrderSent: by t_request_sent, present for every request.
	OrderSent = "t_request_sent"
	// OrderFile: the order of the rows in the file (the documented
	// fallback; rows are written in send order).
	OrderFile = "file order"
	// OrderUnknown: some rows have t_request_sent and those times
	// contradict the file order, so no order can be trusted.
	OrderUnknown = "unknown"
)

// WarmupResult is what the warm-up rule decided for one run.
type WarmupResult struct {
	Mode string `json:"mode"`
	// Outcome is one of the Warmup… outcomes above.
	Outcome string `json:"outcome"`
	// Discarded is the number of requests (in send order) cut as warm-up.
	Discarded int `json:"discarded"`
	// Stabilised is true when the rule found where the stable part begins
	// (Outcome cut or no warm-up detected).
	Stabilised bool `json:"stabilised"`
	// Order says how the send order was known (OrderSent, OrderFile or
	// OrderUnknown).
	Order string `json:"order"`
	// DecidedBy names the series whose cut was applied, "TTFT" or "TPOT";
	// empty when no rule cut anything.
	DecidedBy string `json:"decided_by,omitempty"`
	// Series is the rule's verdict on TTFT and on TPOT, in that order.
	Series []WarmupSeries `json:"series,omitempty"`
	// OverlapsWindow is true when warm-up requests fall inside the scrape window.
	OverlapsWindow bool `json:"overlaps_window"`
	// MarkedWarmup and MarkedCooldown count the requests the source tool of
	// an imported run marked as warm-up or cool-down; they are not measured
	// and the rule runs on the rest (absent when 0).
	MarkedWarmup   int    `json:"marked_warm_up,omitempty"`
	MarkedCooldown int    `json:"marked_cool_down,omitempty"`
	Note           string `json:"note,omitempty"`
	// Trace follows the first requests in send order: at most the first
	// 2·Discarded + 200, thinned to at most 2,000 points by keeping every
	// s-th request when longer.
	Trace []WarmupPoint `json:"trace,omitempty"`
}

// WarmupSeries is the warm-up rule's verdict on one series (the TTFT of
// every request with output, or the TPOT of every request with n ≥ 2, in
// send order).
type WarmupSeries struct {
	Metric string `json:"metric"`
	// Values is the number of values the rule examined.
	Values int `json:"values"`
	// Outcome is WarmupCut, WarmupNotDetected or WarmupNotStabilised.
	Outcome string `json:"outcome"`
	// Cut is the number of requests, in send order, this series alone
	// would discard.
	Cut int `json:"cut"`
	// P is the change-point detection's approximate p-value, Threshold
	// the level it was tested at (α/m) and Prefix the length of the prefix
	// it was found on; null and 0 for the other rules.
	P         Num `json:"p"`
	Threshold Num `json:"threshold"`
	Prefix    int `json:"prefix,omitempty"`
	// Slowdown is, for a significant change point, median(early) /
	// median(rest of the prefix) − 1; null otherwise.
	Slowdown Num `json:"slowdown"`
}

// WarmupPoint is one request of the warm-up trace.
type WarmupPoint struct {
	// Index is the request's 1-based position in send order.
	Index  int `json:"index"`
	TTFTms Num `json:"ttft_ms"`
	// BlockMedian is the median TTFT of the stabilisation rule's block of
	// requests this one belongs to; null until a block is complete, and
	// for the other rules.
	BlockMedian Num `json:"block_median_ms"`
	// TTFTStat and TPOTStat are the rule's statistic for cutting right
	// after this request, on the TTFT and the TPOT series, scaled as
	// Method.WarmupStatistic says and rounded to 4 significant digits (they
	// are drawn, not computed with); null where it is not defined.
	TTFTStat Num `json:"ttft_stat"`
	TPOTStat Num `json:"tpot_stat"`
}

// WarmupLevel sums up the warm-up cuts of a level's usable runs.
type WarmupLevel struct {
	// Runs is the number of usable runs.
	Runs int `json:"runs"`
	// CutMedian is the median of the runs' discarded counts (0 for a run
	// with nothing cut); CutMin and CutMax their range.
	CutMedian Num `json:"cut_median"`
	CutMin    int `json:"cut_min"`
	CutMax    int `json:"cut_max"`
	// Discarded is the sum of the runs' discarded counts.
	Discarded int `json:"discarded"`
	// Outcomes counts the runs per outcome, in a fixed order.
	Outcomes []ReasonCount `json:"outcomes"`
}

// LevelKey is a load level as summary.json writes it.
type LevelKey struct {
	// Series is the configuration the level belongs to (its labels, as a
	// JSON object); left out for a sweep's only, unlabelled series.
	Series ingest.Series `json:"series,omitzero"`
	// Mode is "concurrency" or "rate"; empty for a run without a level.
	Mode string `json:"mode,omitempty"`
	// Concurrency is N of a concurrency level.
	Concurrency int `json:"concurrency,omitempty"`
	// Rate is R of a rate level in requests per second, or "inf".
	Rate Rate `json:"rate,omitempty"`
	// Arrival is the rate level's arrival process when known: "poisson",
	// "constant" or "gamma".
	Arrival string `json:"arrival,omitempty"`
}

// levelKey converts a series and a load level.
func levelKey(series ingest.Series, l ingest.LoadLevel) LevelKey {
	if !l.Valid() {
		return LevelKey{Series: series}
	}
	return LevelKey{Series: series, Mode: string(l.Mode), Concurrency: l.Concurrency, Rate: Rate(l.Rate), Arrival: l.Arrival}
}

// Load returns the level as a load level, for labels.
func (k LevelKey) Load() ingest.LoadLevel {
	return ingest.LoadLevel{Mode: ingest.LoadMode(k.Mode), Concurrency: k.Concurrency, Rate: float64(k.Rate), Arrival: k.Arrival}
}

// Rate is a request rate that writes +Inf as the string "inf", as vLLM's
// result files do, since JSON has no infinity.
type Rate float64

// MarshalJSON writes the rate, or "inf".
func (r Rate) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(r), 1) {
		return []byte(`"inf"`), nil
	}
	return strconv.AppendFloat(nil, float64(r), 'g', -1, 64), nil
}

// UnmarshalJSON reads a number or "inf".
func (r *Rate) UnmarshalJSON(b []byte) error {
	if string(b) == `"inf"` {
		*r = Rate(math.Inf(1))
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || string(b) == "null" {
		return jsonTypeError(b, reflect.TypeFor[Rate]())
	}
	*r = Rate(f)
	return nil
}

// RunSummary is the analysis of one run.
type RunSummary struct {
	Dir string `json:"dir"`
	LevelKey
	Repeat int `json:"repeat"`
	// Failed is set when the run could not be used; Reason says why.
	Failed     bool         `json:"failed"`
	FailReason string       `json:"fail_reason,omitempty"`
	Counts     Counts       `json:"counts"`
	Warmup     WarmupResult `json:"warmup"`
	// Streamed is false when TTFT equals E2E for (nearly) all requests.
	Streamed bool `json:"streamed"`
	// Client latency distributions (per request, measured requests).
	TTFT    Distribution `json:"ttft"`
	E2E     Distribution `json:"e2e"`
	TPOT    Distribution `json:"tpot"`
	UserTPS Distribution `json:"user_tps"`
	// GapWeightedITL = Σ(E2E − TTFT) / Σ(n − 1).
	GapWeightedITL Num   `json:"gap_weighted_itl_ms"`
	GapCount       int64 `json:"gap_count"`
	// ITL is the per-gap distribution from chunk arrivals, labelled per-gap
	// or per-chunk-arrival gap.
	ITL Distribution `json:"itl"`
	// GapDistributionKnown says chunks carried exactly one token each.
	GapDistributionKnown bool       `json:"gap_distribution_known"`
	Throughput           Throughput `json:"throughput"`
	// Scrapes is what is wrong with the run's start and end scrapes.
	Scrapes  ScrapeCheck       `json:"scrape_check"`
	Server   []ServerHistogram `json:"server"`
	Goodput  Goodput           `json:"goodput"`
	Workload Workload          `json:"workload"`
	// Errors counts failed measured requests by error class, largest first.
	Errors []ErrorClass `json:"errors"`
	// GPU is the run's GPU and energy figures; absent when the run has no
	// GPU telemetry.
	GPU *GPUSummary `json:"gpu,omitempty"`
	// Notes is run.yaml's free-text notes ("" when none).
	Notes string `json:"notes,omitempty"`
	// Import says where an imported run came from; absent otherwise.
	Import *ImportSummary `json:"import,omitempty"`
}

// AcrossRuns is one per-run statistic summarised across the runs of a level.
type AcrossRuns struct {
	// Key identifies the statistic, for example "ttft.p95".
	Key       string `json:"key"`
	Metric    string `json:"metric"`
	Statistic string `json:"statistic"`
	Unit      string `json:"unit"`
	// Sample is what each run's value was computed over.
	Sample string `json:"sample"`
	Median Num    `json:"median"`
	MAD    Num    `json:"mad"`
	// Runs is how many runs had a value.
	Runs int `json:"runs"`
	// PerRun holds each run's value in repeat order (NaN where missing).
	PerRun []Num `json:"per_run"`
	// FewRuns is set when Runs < Method.MinRuns.
	FewRuns bool `json:"few_runs"`
}

// Level is one load level (concurrency N, rate R or rate inf): its runs'
// statistics summarised.
type Level struct {
	LevelKey
	// Runs are the run directories used, in repeat order.
	Runs []string `json:"runs"`
	// Stats holds median ± MAD across runs for every per-run statistic,
	// in a fixed order.
	Stats []AcrossRuns `json:"stats"`
	// Pooled percentiles over every measured request of the level's runs.
	PooledTTFT Distribution `json:"pooled_ttft"`
	PooledE2E  Distribution `json:"pooled_e2e"`
	PooledTPOT Distribution `json:"pooled_tpot"`
	PooledITL  Distribution `json:"pooled_itl"`
	// CDFs of the pooled samples, for plots.
	CDFTTFT []CDFPoint `json:"cdf_ttft"`
	CDFTPOT []CDFPoint `json:"cdf_tpot"`
	CDFE2E  []CDFPoint `json:"cdf_e2e"`
	Counts  Counts     `json:"counts"`
	// Warmup sums up the runs' warm-up cuts.
	Warmup WarmupLevel `json:"warmup"`
	// Goodput adds up the goodput counts of the level's usable runs.
	Goodput GoodputCounts `json:"goodput_counts"`
	// ServerObservations is, per server histogram role shown, the sum of
	// the runs' Δcount (observations in the windows).
	ServerObservations []RoleCount `json:"server_observations"`
	// Workload pooled over the level's measured requests.
	Workload Workload `json:"workload"`
	// ErrorPercent = failed / measured requests × 100 and
	// ZeroOutputPercent = successful requests with no output token /
	// measured requests × 100, over all the level's runs; null when
	// nothing was measured.
	ErrorPercent      Num `json:"error_percent"`
	ZeroOutputPercent Num `json:"zero_output_percent"`
	// OutputRateKey names the statistic a headline shows for output
	// tokens/s: the server counter rate when at least one run has it and
	// it is not suspect, else the client rate when available, else the
	// server rate (suspect or missing).
	OutputRateKey string `json:"output_rate_key"`
	// Suspect lists the checks this level's data failed and the
	// statistics they make suspect.
	Suspect []Suspicion `json:"suspect"`
	// ServerResolution says, per server-histogram quantile shown, where it
	// lies in the buckets.
	ServerResolution []LevelBucket `json:"server_resolution,omitempty"`
}

// Suspicions returns the suspicions covering a statistic key.
func (l Level) Suspicions(key string) []Suspicion {
	var out []Suspicion
	for _, s := range l.Suspect {
		if s.Concerns(key) {
			out = append(out, s)
		}
	}
	return out
}

// Stat returns the across-runs statistic with the given key, or false.
func (l Level) Stat(key string) (AcrossRuns, bool) {
	for _, s := range l.Stats {
		if s.Key == key {
			return s, true
		}
	}
	return AcrossRuns{}, false
}

// Exclusion is one reason something was not used, with its count.
type Exclusion struct {
	// Scope is "request", "run", "series", "statistic" or "file".
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Examples lists up to five places (file:line or run directory).
	Examples []string `json:"examples,omitempty"`
}

// Finding is one lint finding.
type Finding struct {
	// Severity is "error", "warning" or "info".
	Severity string `json:"severity"`
	// Rule is the short rule name; Source names the measurement rule it comes from.
	Rule    string   `json:"rule"`
	Source  string   `json:"source"`
	Message string   `json:"message"`
	Runs    []string `json:"runs,omitempty"`
}

// EnvironmentSummary is the canonical environment and its differences.
type EnvironmentSummary struct {
	// Canonical maps each canonical field to its value; fields differing
	// between runs hold the value of the first run.
	Canonical []EnvField `json:"canonical"`
	Missing   []string   `json:"missing"`
	Sources   []string   `json:"sources"`
	Diffs     []EnvDiff  `json:"diffs"`
}

// EnvField is one canonical environment field.
type EnvField struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// EnvDiff is one key that differs between runs.
type EnvDiff struct {
	Key    string         `json:"key"`
	Values []EnvDiffValue `json:"values"`
}

// EnvDiffValue is one value of a differing key and the runs with it.
type EnvDiffValue struct {
	Value string   `json:"value"`
	Runs  []string `json:"runs"`
}

// formatTime renders a window bound for the summary.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
