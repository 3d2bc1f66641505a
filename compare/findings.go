package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/stats"
)

// DefaultGate is the gate's family by default, per series: one tail
// latency for each phase a user waits through (TTFT p95: queueing and
// prefill; E2E p95: the whole request), the typical decode speed (TPOT
// p50; its p95 mostly repeats E2E p95), the capacity (output tokens/s),
// the SLO answer (goodput, when both sides set targets) and the error
// rate. p99s rest on the few slowest requests of a run and move with
// them; the other statistics largely repeat these. Energy per output
// token (lower is better) joins them when both sides have GPU telemetry;
// without it on both sides its finding is not available and not in the
// family. Every other headline statistic is tested too, and reported as
// secondary: it does not gate.
var DefaultGate = []string{"ttft.p95", "tpot.p50", "e2e.p95", "throughput.output_tokens_per_s", GoodputKey, ErrorRateKey, EnergyKey}

// Finding is one headline statistic of one series tested once across
// every level both sides share (a stratified rank test on the per-run
// values, runs the unit): the gate decides on findings. The per-level
// rows describe where a finding's change shows.
type Finding struct {
	// Series is the series of the levels pooled (the zero Series for an
	// unlabelled sweep, or for a pair of series compared with each other).
	Series ingest.Series `json:"series,omitzero"`
	Metric Metric        `json:"metric"`
	// Primary is set for a statistic of the gate's family.
	Primary bool `json:"primary"`
	// Levels is the number of levels with values on both sides; BaseRuns
	// and NewRuns the runs with a value on each side, over those levels.
	Levels   int `json:"levels"`
	BaseRuns int `json:"base_runs"`
	NewRuns  int `json:"new_runs"`
	// Change is the median over the levels of each level's change (as
	// Row.Change: relative, or percentage points); ChangeLow and
	// ChangeHigh the smallest and largest of them.
	Change     analyze.Num `json:"change"`
	ChangeLow  analyze.Num `json:"change_low"`
	ChangeHigh analyze.Num `json:"change_high"`
	Threshold  float64     `json:"threshold"`
	// Direction is "worse", "better", "same", or "n/a".
	Direction string `json:"direction"`
	// Test is the stratified test; nil when none was made (no level on
	// both sides, no variation, or --no-test).
	Test *FindingTest `json:"test"`
	// NeedRuns is, when the runs are too few for the test to reach the
	// level it is held to, how many runs a level and side it would take
	// at these levels; 0 otherwise.
	NeedRuns int    `json:"need_runs"`
	Verdict  string `json:"verdict"`
	// Severity is |Change| / Threshold, for ordering.
	Severity analyze.Num `json:"severity"`
	Note     string      `json:"note,omitempty"`
}

// FindingTest is the outcome of a finding's stratified test.
type FindingTest struct {
	// P is the two-sided p-value; PAdjusted is Holm's adjusted p within
	// the gate's family (equal to P for a secondary statistic or without
	// correction).
	P         analyze.Num `json:"p"`
	PAdjusted analyze.Num `json:"p_adjusted"`
	// MinP is the smallest p these runs could give without ties.
	MinP analyze.Num `json:"min_p"`
	// Size is the probability, when nothing changed, that this test
	// gives p < α at these runs and ties: a discrete test's real false
	// alarm rate, at most α and often well below it.
	Size   float64     `json:"size"`
	Z      analyze.Num `json:"z"`
	Method string      `json:"method"`
	Ties   bool        `json:"ties"`
}

// Flagged reports whether the finding is a flagged regression or
// improvement.
func (f Finding) Flagged() bool {
	return f.Verdict == VerdictRegression || f.Verdict == VerdictImprovement
}

// inGate reports whether key is in the gate's family.
func (o Options) inGate(key string) bool {
	gate := o.Gate
	if len(gate) == 0 {
		gate = DefaultGate
	}
	return slices.Contains(gate, key)
}

// findings tests every headline statistic of every series across the
// levels both sides share.
func findings(levels []LevelResult, metrics []Metric, opts Options) []Finding {
	var order []ingest.Series
	bySeries := map[ingest.Series][]LevelResult{}
	for _, l := range levels {
		if _, ok := bySeries[l.Level.Series]; !ok {
			order = append(order, l.Level.Series)
		}
		bySeries[l.Level.Series] = append(bySeries[l.Level.Series], l)
	}
	var out []Finding
	for _, ser := range order {
		for mi, m := range metrics {
			out = append(out, metricFinding(ser, bySeries[ser], mi, m, opts))
		}
	}
	return out
}

// metricFinding is the finding for metrics[mi], m, over one series'
// levels ls: the median of the levels' changes, their range, and the
// stratified test over every level with values on both sides.
func metricFinding(ser ingest.Series, ls []LevelResult, mi int, m Metric, opts Options) Finding {
	f := Finding{Series: ser, Metric: m, Primary: opts.inGate(m.Key), Threshold: opts.ThresholdFor(m),
		Change: analyze.NaN, ChangeLow: analyze.NaN, ChangeHigh: analyze.NaN, Severity: analyze.NaN, Direction: "n/a"}
	var strata []stats.Stratum
	var changes []float64
	notes := map[string]bool{}
	for _, l := range ls {
		row := l.Rows[mi]
		if row.Note != "" {
			notes[row.Note] = true
		}
		if row.Verdict == VerdictNotAvailable {
			continue
		}
		bv, nv := row.Base.values(), row.New.values()
		strata = append(strata, stats.Stratum{X: nv, Y: bv})
		f.Levels++
		f.BaseRuns += len(bv)
		f.NewRuns += len(nv)
		if c := float64(row.Change); row.Change.Valid() {
			changes = append(changes, c)
		}
	}
	if f.Levels == 0 {
		f.Verdict = VerdictNotAvailable
		f.Note = "no level has values on both sides"
		if len(notes) == 1 {
			for n := range notes {
				f.Note = n
			}
		}
		return f
	}
	if len(changes) > 0 {
		sort.Float64s(changes)
		f.Change = analyze.Num(analyze.Median(changes))
		f.ChangeLow, f.ChangeHigh = analyze.Num(changes[0]), analyze.Num(changes[len(changes)-1])
		f.Direction = direction(m, float64(f.Change))
		if f.Threshold > 0 {
			f.Severity = analyze.Num(math.Abs(float64(f.Change)) / f.Threshold)
		} else {
			f.Severity = analyze.Num(math.Abs(float64(f.Change)))
		}
	}
	if opts.NoTest {
		return f
	}
	if r, err := stats.Stratified(strata); err == nil {
		if r.Used == 0 {
			f.Note = "no variation: every run on both sides has the same value at every level"
		} else {
			f.Test = &FindingTest{P: analyze.Num(r.P), PAdjusted: analyze.Num(r.P), MinP: analyze.Num(r.MinP),
				Z: analyze.Num(r.Z), Method: r.Method, Ties: r.Ties}
			f.Test.Size = stats.StratifiedSize(strata, opts.Alpha)
		}
	}
	return f
}

// direction says whether a change (new − base, relative or in points) is
// worse or better for the metric.
func direction(m Metric, change float64) string {
	switch {
	case change > 0 && m.LowerIsBetter, change < 0 && !m.LowerIsBetter:
		return "worse"
	case change != 0 && !math.IsNaN(change):
		return "better"
	}
	return "same"
}

// beyond reports whether the finding's change exceeds its threshold.
func (f Finding) beyond() bool {
	c := math.Abs(float64(f.Change))
	return !math.IsNaN(c) && c > f.Threshold
}

// decideFindings applies Holm over the gate's family (the primary
// findings, and with PerLevel the per-level rows of the primary
// statistics) and gives every finding its verdict. It returns the
// family's description.
func decideFindings(fs []Finding, levels []LevelResult, opts Options) Family {
	type member struct {
		finding  int // index into fs, or −1 for a level row
		level    int
		row      int
		strata   int
		p, minP  float64
		runsSide int
	}
	var fam []member
	for i, f := range fs {
		if f.Primary && f.Test != nil {
			fam = append(fam, member{finding: i, p: float64(f.Test.P), minP: float64(f.Test.MinP), strata: f.Levels})
		}
	}
	if opts.PerLevel {
		for li := range levels {
			for ri, row := range levels[li].Rows {
				if opts.inGate(row.Metric.Key) && row.Test != nil {
					fam = append(fam, member{finding: -1, level: li, row: ri, p: float64(row.Test.P), minP: float64(row.Test.MinP), strata: 1})
				}
			}
		}
	}
	ps := make([]float64, len(fam))
	for k, m := range fam {
		ps[k] = m.p
	}
	adjusted := ps
	effective := opts.Alpha
	if opts.Correction == CorrectionHolm && len(ps) > 0 {
		adjusted = stats.Holm(ps)
		effective = opts.Alpha / float64(len(ps))
	}
	famDesc := Family{Alpha: opts.Alpha, Correction: opts.Correction, EffectiveAlpha: effective, Tests: len(fam), PerLevel: opts.PerLevel, NoTest: opts.NoTest}
	// An optional statistic (energy) is in the family only when compared.
	compared := map[string]bool{}
	for _, f := range fs {
		compared[f.Metric.Key] = true
	}
	for _, k := range gateKeys(opts) {
		if m, ok := MetricByKey(k); ok && m.Optional && !compared[k] {
			continue
		}
		famDesc.Statistics = append(famDesc.Statistics, k)
	}
	inFamily := make([]bool, len(fs))
	for k, m := range fam {
		if m.finding >= 0 {
			fs[m.finding].Test.PAdjusted = analyze.Num(adjusted[k])
			inFamily[m.finding] = true
			famDesc.ExpectedFalseFlags += fs[m.finding].Test.Size
		} else {
			row := &levels[m.level].Rows[m.row]
			row.Test.PAdjusted = analyze.Num(adjusted[k])
			row.NeedRuns = 0
			if float64(row.Test.MinP) >= effective && !(adjusted[k] < opts.Alpha) {
				row.NeedRuns = stats.RunsNeeded(effective)
			}
			row.Verdict = rowVerdict(*row, adjusted[k], opts.Alpha)
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.Verdict == VerdictNotAvailable {
			continue
		}
		alphaFor := opts.Alpha // a secondary finding: held to α alone, reported only
		if inFamily[i] {
			alphaFor = effective
		}
		switch {
		case !f.beyond():
			f.Verdict = VerdictNoChange
		case opts.NoTest:
			f.Verdict = VerdictRegression
			if f.Direction == "better" {
				f.Verdict = VerdictImprovement
			}
			f.Note = "threshold only: no statistical test was made (--no-test)"
		case f.Test == nil:
			f.Verdict = VerdictNoChange
		case float64(f.Test.MinP) >= alphaFor && !(float64(f.Test.PAdjusted) < opts.Alpha):
			f.Verdict = VerdictUndecided
			f.NeedRuns = stats.StratifiedRunsNeeded(alphaFor, f.Levels)
		case float64(f.Test.PAdjusted) < opts.Alpha && f.Direction == "worse":
			f.Verdict = VerdictRegression
		case float64(f.Test.PAdjusted) < opts.Alpha && f.Direction == "better":
			f.Verdict = VerdictImprovement
		default:
			f.Verdict = VerdictNotDistinguishable
		}
	}
	return famDesc
}

// Family describes the gate's family of tests.
type Family struct {
	// Statistics are the primary statistics' keys, per series.
	Statistics []string `json:"statistics"`
	// Tests is the number of tests in the family (primary findings with
	// variation, and per-level rows with PerLevel).
	Tests          int     `json:"tests"`
	Alpha          float64 `json:"alpha"`
	Correction     string  `json:"correction"`
	EffectiveAlpha float64 `json:"effective_alpha"`
	// ExpectedFalseFlags is Σ over the family's findings of each test's
	// real size at α (FindingTest.Size): how many of them would fall
	// below α by chance alone, uncorrected, when nothing changed. A
	// discrete test's size is below α, often far below (0.029 for one
	// 4-vs-4 test at α = 0.05).
	ExpectedFalseFlags float64 `json:"expected_false_flags"`
	PerLevel           bool    `json:"per_level"`
	NoTest             bool    `json:"no_test"`
}

func gateKeys(opts Options) []string {
	if len(opts.Gate) > 0 {
		return opts.Gate
	}
	return DefaultGate
}

// CheckGate returns an error for a --gate list naming something that is
// not a headline statistic.
func CheckGate(keys []string) error {
	for _, k := range keys {
		if _, ok := MetricByKey(k); !ok {
			var all []string
			for _, m := range Headline {
				all = append(all, m.Key)
			}
			return fmt.Errorf("--gate %q: not a headline statistic (expected some of %s)", k, strings.Join(all, ", "))
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("--gate: expected at least one statistic")
	}
	return nil
}
