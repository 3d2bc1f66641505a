package compare

import (
	"math"

	"github.com/benchnote/benchnote/analyze"
)

// Metric is one headline statistic compared between two sweeps.
type Metric struct {
	// Key is the summary's per-run statistic key ("ttft.p95"), or
	// ErrorRateKey for the error rate.
	Key string `json:"key"`
	// Name is how tables name it ("TTFT p95").
	Name string `json:"name"`
	Unit string `json:"unit"`
	// LowerIsBetter is true for latencies and the error rate.
	LowerIsBetter bool `json:"lower_is_better"`
	// Points is true when a change is a difference in percentage points
	// (goodput, error rate) rather than a relative change.
	Points bool `json:"points"`
	// Family groups keys for threshold overrides ("ttft" covers ttft.*).
	Family string `json:"family"`
	// Optional marks a statistic only some sweeps have (the energy
	// figures, from GPU telemetry): it is compared, and has rows, only
	// when a level of either side has it.
	Optional bool `json:"optional,omitempty"`
}

// ErrorRateKey is the per-run error rate: failed requests / measured
// requests × 100, from each run's row accounting (RunSummary.Counts).
const ErrorRateKey = "errors.percent"

// GoodputKey is the per-run percentage goodput.
const GoodputKey = "goodput.percent"

// Headline lists the statistics compare tests at every level, in table
// order. Each is a per-run statistic: runs are the independent unit.
var Headline = []Metric{
	{Key: "ttft.p50", Name: "TTFT p50", Unit: "ms", LowerIsBetter: true, Family: "ttft"},
	{Key: "ttft.p95", Name: "TTFT p95", Unit: "ms", LowerIsBetter: true, Family: "ttft"},
	{Key: "ttft.p99", Name: "TTFT p99", Unit: "ms", LowerIsBetter: true, Family: "ttft"},
	{Key: "tpot.p50", Name: "TPOT p50", Unit: "ms", LowerIsBetter: true, Family: "tpot"},
	{Key: "tpot.p95", Name: "TPOT p95", Unit: "ms", LowerIsBetter: true, Family: "tpot"},
	{Key: "tpot.p99", Name: "TPOT p99", Unit: "ms", LowerIsBetter: true, Family: "tpot"},
	{Key: "e2e.p50", Name: "E2E p50", Unit: "ms", LowerIsBetter: true, Family: "e2e"},
	{Key: "e2e.p95", Name: "E2E p95", Unit: "ms", LowerIsBetter: true, Family: "e2e"},
	{Key: "e2e.p99", Name: "E2E p99", Unit: "ms", LowerIsBetter: true, Family: "e2e"},
	{Key: "itl.gap_weighted_mean", Name: "ITL mean (gap-weighted)", Unit: "ms", LowerIsBetter: true, Family: "itl"},
	{Key: "throughput.output_tokens_per_s", Name: "output tokens/s", Unit: "tokens/s", Family: "throughput"},
	{Key: "throughput.requests_per_s", Name: "requests/s", Unit: "req/s", Family: "throughput"},
	{Key: GoodputKey, Name: "goodput", Unit: "%", Points: true, Family: "goodput"},
	{Key: ErrorRateKey, Name: "error rate", Unit: "%", LowerIsBetter: true, Points: true, Family: "errors"},
	{Key: EnergyKey, Name: "energy per output token", Unit: "J/token", LowerIsBetter: true, Family: "energy", Optional: true},
	{Key: "energy.output_tokens_per_s_per_kw", Name: "output tokens/s per kW", Unit: "tokens/s/kW", Family: "energy", Optional: true},
}

// EnergyKey is the per-run energy per output token (J/token), from GPU
// telemetry (analyze.KeyEnergyPerToken).
const EnergyKey = "energy.j_per_output_token"

// metricsFor is Headline without the optional statistics no level of
// either summary has.
func metricsFor(base, new *analyze.Summary) []Metric {
	var out []Metric
	for _, m := range Headline {
		if !m.Optional || hasStat(base, m.Key) || hasStat(new, m.Key) {
			out = append(out, m)
		}
	}
	return out
}

// hasStat reports whether a level of s has the statistic key.
func hasStat(s *analyze.Summary, key string) bool {
	for _, l := range s.Levels {
		if _, ok := l.Stat(key); ok {
			return true
		}
	}
	return false
}

// MetricByKey returns the headline metric with the key, or false.
func MetricByKey(key string) (Metric, bool) {
	for _, m := range Headline {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// ErrorRate is a run's error rate in percent: failed requests over
// measured requests (errors, n = 0, n = 1 and n ≥ 2 together), NaN when
// the run measured nothing.
func ErrorRate(r analyze.RunSummary) float64 {
	if r.Counts.Measured <= 0 {
		return math.NaN()
	}
	return 100 * float64(r.Counts.Errors) / float64(r.Counts.Measured)
}

// runIndex finds a summary's runs by directory.
type runIndex map[string]*analyze.RunSummary

func indexRuns(s *analyze.Summary) runIndex {
	idx := make(runIndex, len(s.Runs))
	for i := range s.Runs {
		idx[s.Runs[i].Dir] = &s.Runs[i]
	}
	return idx
}

// Across is one statistic of one level summarised across its runs.
type Across struct {
	Median analyze.Num `json:"median"`
	MAD    analyze.Num `json:"mad"`
	// N is the number of runs with a value.
	N int `json:"n"`
	// PerRun holds every run's value in repeat order (null where missing).
	PerRun []analyze.Num `json:"per_run"`
}

// values returns the finite per-run values.
func (a Across) values() []float64 {
	out := make([]float64, 0, len(a.PerRun))
	for _, v := range a.PerRun {
		if v.Valid() {
			out = append(out, float64(v))
		}
	}
	return out
}

// across returns a level's per-run values of a statistic, with the median
// and MAD the summary gives for them. The error rate is not in the
// summary's level statistics: it is taken from each run's row accounting,
// and its median and MAD are formed like analyze forms the others (the
// summary's MAD form). ok is false when the summary has no such statistic.
func across(s *analyze.Summary, runs runIndex, l analyze.Level, key string) (Across, bool) {
	if key == ErrorRateKey {
		a := Across{Median: analyze.NaN, MAD: analyze.NaN}
		var vals []float64
		for _, dir := range l.Runs {
			v := math.NaN()
			if r := runs[dir]; r != nil {
				v = ErrorRate(*r)
			}
			a.PerRun = append(a.PerRun, analyze.Num(v))
			if !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		a.N = len(vals)
		if len(vals) > 0 {
			a.Median = analyze.Num(analyze.Median(vals))
			a.MAD = analyze.Num(analyze.MAD(vals, s.Method.MAD == "scaled"))
		}
		return a, true
	}
	st, ok := l.Stat(key)
	if !ok {
		return Across{Median: analyze.NaN, MAD: analyze.NaN}, false
	}
	return Across{Median: st.Median, MAD: st.MAD, N: st.Runs, PerRun: st.PerRun}, true
}

// RunValue is one run's value of one per-run statistic.
type RunValue struct {
	Level LevelID
	// Run is the run directory relative to the sweep root.
	Run    string
	Repeat int
	Key    string
	Unit   string
	// Value is NaN when the run has no value for the statistic.
	Value float64
}

// RunValues lists every per-run statistic of every level (the summary's
// level statistics in their order, then the error rate), run by run in
// repeat order. It is what the archive stores per entry.
func RunValues(s *analyze.Summary) []RunValue {
	runs := indexRuns(s)
	var out []RunValue
	for _, l := range s.Levels {
		id := LevelOf(l)
		repeat := func(dir string) int {
			if r := runs[dir]; r != nil {
				return r.Repeat
			}
			return 0
		}
		for _, st := range l.Stats {
			for i, dir := range l.Runs {
				v := math.NaN()
				if i < len(st.PerRun) && st.PerRun[i].Valid() {
					v = float64(st.PerRun[i])
				}
				out = append(out, RunValue{Level: id, Run: dir, Repeat: repeat(dir), Key: st.Key, Unit: st.Unit, Value: v})
			}
		}
		for _, dir := range l.Runs {
			v := math.NaN()
			if r := runs[dir]; r != nil {
				v = ErrorRate(*r)
			}
			out = append(out, RunValue{Level: id, Run: dir, Repeat: repeat(dir), Key: ErrorRateKey, Unit: "%", Value: v})
		}
	}
	return out
}
