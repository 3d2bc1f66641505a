// Package compare puts two analysed sweeps side by side: it checks first
// whether they can be compared at all (environment, method, workload),
// then tests every headline statistic at every level both sweeps have,
// with runs as the independent unit, and decides what a CI gate should do.
//
// Compare is pure computation on analyze.Summary values: no I/O and no
// formatting. Per-run statistics come from the summaries as they are;
// nothing is recomputed from pooled figures. A change is flagged only
// when an exact Mann–Whitney test on the per-run values finds it (p < α,
// Holm-corrected when asked) and it is larger than a threshold; when the
// runs are too few for any test to reach α, the result says how many are
// needed instead of printing a p-value.
package compare

import (
	"fmt"
	"math"
	"sort"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/stats"
)

// Input is one side of a comparison.
type Input struct {
	// Name says where the summary came from (a path as given).
	Name    string
	Summary *analyze.Summary
}

// Side describes one input in the result.
type Side struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Series is the number of series of the input, when it has several.
	Series int `json:"series,omitempty"`
	Levels int `json:"levels"`
	Runs   int `json:"runs"`
}

// Row verdicts.
const (
	// VerdictRegression: flagged, and worse.
	VerdictRegression = "regression"
	// VerdictImprovement: flagged, and better.
	VerdictImprovement = "improvement"
	// VerdictNoChange: the change is within the threshold (or there is no
	// variation at all).
	VerdictNoChange = "no change"
	// VerdictNotDistinguishable: beyond the threshold, but the test does
	// not tell it from run-to-run noise.
	VerdictNotDistinguishable = "not distinguishable"
	// VerdictUndecided: beyond the threshold, and too few runs for the
	// test to ever reach α.
	VerdictUndecided = "undecided"
	// VerdictNotAvailable: a side has no value.
	VerdictNotAvailable = "not available"
)

// Test is the outcome of the rank test of one row.
type Test struct {
	// U is the Mann–Whitney U of the new runs against the base runs.
	U analyze.Num `json:"u"`
	// P is the exact two-sided p-value; PAdjusted is Holm's adjusted p
	// when the correction is on, else equal to P.
	P         analyze.Num `json:"p"`
	PAdjusted analyze.Num `json:"p_adjusted"`
	// MinP is the smallest p these run counts could ever give.
	MinP   analyze.Num `json:"min_p"`
	Method string      `json:"method"`
	Ties   bool        `json:"ties"`
	// Alpha is the level PAdjusted is held to; NBase and NNew are the
	// runs with a value on each side (the test's sample sizes).
	Alpha float64 `json:"alpha"`
	NBase int     `json:"n_base"`
	NNew  int     `json:"n_new"`
}

// Row is one headline statistic at one level.
type Row struct {
	Metric Metric `json:"metric"`
	Base   Across `json:"base"`
	New    Across `json:"new"`
	// Change is new − base relative to |base| (0.3 = +30 %), or in
	// percentage points for Metric.Points. NaN when not available.
	Change analyze.Num `json:"change"`
	// Threshold is the threshold that applied (fraction or points).
	Threshold float64 `json:"threshold"`
	// Direction is "worse", "better", "same", or "n/a" when not available.
	Direction string `json:"direction"`
	// Test is nil when no test was run (not available, no variation).
	Test *Test `json:"test"`
	// NoVariation is set when every run on both sides has the same value.
	NoVariation bool `json:"no_variation"`
	// NeedRuns is, when the runs are too few for the test to reach the
	// significance level in force, how many runs per side it would take;
	// 0 otherwise.
	NeedRuns int `json:"need_runs"`
	// RangesOverlap says whether the ranges of the runs overlap: a
	// description, not a test.
	RangesOverlap bool `json:"ranges_overlap"`
	// Verdict is one of the Verdict constants.
	Verdict string `json:"verdict"`
	// Severity is |Change| / Threshold, for sorting flagged rows.
	Severity analyze.Num `json:"severity"`
	// Note explains a verdict that is not obvious ("no SLO set").
	Note string `json:"note,omitempty"`
}

// Flagged reports whether the row is a flagged regression or improvement.
func (r Row) Flagged() bool {
	return r.Verdict == VerdictRegression || r.Verdict == VerdictImprovement
}

// LevelResult is every headline row of one level both sides have.
type LevelResult struct {
	Level    LevelID `json:"level"`
	Label    string  `json:"label"`
	BaseRuns int     `json:"base_runs"`
	NewRuns  int     `json:"new_runs"`
	Rows     []Row   `json:"rows"`
}

// OneSided is a level only one side has.
type OneSided struct {
	Level LevelID `json:"level"`
	Label string  `json:"label"`
	Runs  int     `json:"runs"`
}

// Tests describes the family of tests.
type Tests struct {
	// Count is the number of tests run (rows with values on both sides
	// and some variation).
	Count int `json:"count"`
	// Alpha is the level each test (or the family) is held to.
	Alpha      float64 `json:"alpha"`
	Correction string  `json:"correction"`
	// Family says which tests the correction runs over.
	Family string `json:"family"`
	// ExpectedFalseFlags is the number of tests expected below α by chance
	// alone when nothing changed and no correction is applied: the sum of
	// each exact test's real size at α at its runs and ties (0.029 for a
	// 4-vs-4 test at α = 0.05, 0 for 3 vs 3), below Count·α.
	ExpectedFalseFlags float64 `json:"expected_false_flags"`
	// EffectiveAlpha is α, or α/Count under Holm: what the smallest p must
	// beat for anything to be flagged.
	EffectiveAlpha float64 `json:"effective_alpha"`
	// RunsNeeded is the number of runs per side for which an exact test
	// can beat EffectiveAlpha at all.
	RunsNeeded int `json:"runs_needed"`
}

// ErrorRateRise is a level whose error rate rose beyond the threshold.
type ErrorRateRise struct {
	Level LevelID `json:"level"`
	Label string  `json:"label"`
	// BaseMedian and NewMedian are the median per-run error rates (%);
	// BaseWorst and NewWorst the highest per-run error rates.
	BaseMedian float64 `json:"base_median"`
	NewMedian  float64 `json:"new_median"`
	BaseWorst  float64 `json:"base_worst"`
	NewWorst   float64 `json:"new_worst"`
	// Threshold is the percentage-point threshold that was exceeded.
	Threshold float64 `json:"threshold_pp"`
}

// Outcomes of a whole comparison.
const (
	OutcomeRegression  = "regression"
	OutcomeUndecided   = "undecided"
	OutcomeImprovement = "improvement"
	OutcomeNoChange    = "no change"
	// OutcomeNothingCompared: no level is present on both sides, so
	// nothing could be compared.
	OutcomeNothingCompared = "nothing compared"
)

// Result is a whole comparison.
type Result struct {
	Base          Side          `json:"base"`
	New           Side          `json:"new"`
	Options       Options       `json:"options"`
	Comparability Comparability `json:"comparability"`
	// Outcome is OutcomeRegression when anything was flagged worse or the
	// error rate rose, else OutcomeUndecided when a worse change beyond
	// the threshold could not be tested, else OutcomeImprovement when
	// something was flagged better, else OutcomeNoChange; it is
	// OutcomeNothingCompared when no level is present on both sides.
	Outcome string `json:"outcome"`
	// Verdict is the outcome in one sentence, the first line of stdout
	// and of compare.md.
	Verdict string `json:"verdict"`
	// Findings are the gate's decisions: each headline statistic of each
	// series, tested once across every level both sides share; Family
	// says which of them gate.
	Findings []Finding `json:"findings"`
	Family   Family    `json:"family"`
	// Tests describes the per-level tests of the rows (a description of
	// where a change shows; they gate only with --per-level).
	Tests  Tests         `json:"tests"`
	Levels []LevelResult `json:"levels"`
	// OnlyBase and OnlyNew are the levels one side lacks.
	OnlyBase []OneSided `json:"only_base"`
	OnlyNew  []OneSided `json:"only_new"`
	// ErrorRate lists the levels whose error rate rose beyond the threshold.
	ErrorRate []ErrorRateRise `json:"error_rate_rises"`
	// SLO is the highest load meeting the SLO on each side, when both
	// sweeps set SLO targets and one pair of series was compared.
	SLO *SLOHeadline `json:"slo"`
	// SLOBySeries is the same for each series, when several were compared.
	SLOBySeries []SLOHeadline `json:"slo_by_series,omitempty"`
	// Series says which series were compared and which were left out; nil
	// when each side is one unlabelled series and none was selected.
	Series *SeriesResult `json:"series,omitempty"`
}

// Compare compares new against base. The options must be valid (see
// Options.Validate); a series selection that does not fit the summaries
// (a label no series has, a selector matching no series, or several for
// a pair) is a *SeriesError.
//
// Series are matched by their labels: a series of one side only is listed
// in Result.Series, not compared. With Options.Pair one series of each
// side is compared, levels matched by load alone, and the labels that
// differ between the two are expected to show in the environment.
func Compare(base, new Input, opts Options) (*Result, error) {
	sel, err := selectSeries(base, new, opts)
	if err != nil {
		return nil, err
	}
	bs, ns := base.Summary, new.Summary
	res := &Result{
		Base:    side(base),
		New:     side(new),
		Options: opts,
		Series:  sel.result,
	}
	// The levels compared: those of the compared series, which lose their
	// series when a pair of different series is compared.
	paired := sel.result != nil && sel.result.Paired
	if sel.result != nil {
		bKeep, nKeep := map[ingest.Series]bool{}, map[ingest.Series]bool{}
		for _, p := range sel.pairs {
			bKeep[p.Base], nKeep[p.New] = true, true
		}
		bs = view(bs, func(s ingest.Series) bool { return bKeep[s] }, paired)
		ns = view(ns, func(s ingest.Series) bool { return nKeep[s] }, paired)
	}
	res.Comparability = comparability(base.Summary, new.Summary, bs, ns, sel, opts.Expect)
	label := LevelID.Label
	if sel.result.Several() {
		label = LevelID.Describe
	}
	bRuns, nRuns := indexRuns(bs), indexRuns(ns)
	newLevels := map[LevelID]analyze.Level{}
	for _, l := range ns.Levels {
		newLevels[LevelOf(l)] = l
	}
	baseLevels := map[LevelID]bool{}
	sloSet := bs.Method.SLO.Set() && ns.Method.SLO.Set()
	metrics := metricsFor(bs, ns)
	for _, bl := range bs.Levels {
		id := LevelOf(bl)
		baseLevels[id] = true
		nl, ok := newLevels[id]
		if !ok {
			res.OnlyBase = append(res.OnlyBase, OneSided{Level: id, Label: label(id), Runs: len(bl.Runs)})
			continue
		}
		lr := LevelResult{Level: id, Label: label(id), BaseRuns: len(bl.Runs), NewRuns: len(nl.Runs)}
		for _, m := range metrics {
			b, okB := across(bs, bRuns, bl, m.Key)
			n, okN := across(ns, nRuns, nl, m.Key)
			row := newRow(m, b, n, okB && okN, opts)
			if m.Key == GoodputKey && !sloSet {
				row.Verdict, row.Test, row.Direction = VerdictNotAvailable, nil, "n/a"
				row.Change, row.Severity, row.NeedRuns = analyze.NaN, analyze.NaN, 0
				row.Note = "no SLO targets set on both sides: percentage goodput is not compared"
			}
			lr.Rows = append(lr.Rows, row)
		}
		res.Levels = append(res.Levels, lr)
	}
	for _, nl := range ns.Levels {
		if id := LevelOf(nl); !baseLevels[id] {
			res.OnlyNew = append(res.OnlyNew, OneSided{Level: id, Label: label(id), Runs: len(nl.Runs)})
		}
	}
	sortLevels(res.Levels)
	res.Tests = decide(res.Levels, len(metrics), opts)
	res.Findings = findings(res.Levels, metrics, opts)
	res.Family = decideFindings(res.Findings, res.Levels, opts)
	res.ErrorRate = errorRateRises(res.Levels, opts)
	if sloSet {
		switch {
		case sel.result.Several():
			for _, p := range sel.pairs {
				h := sloHeadline(bs, ns, p, opts)
				h.Series = p.Base
				res.SLOBySeries = append(res.SLOBySeries, *h)
			}
		case paired:
			// The pair's levels lost their series.
			res.SLO = sloHeadline(bs, ns, Pair{}, opts)
		case len(sel.pairs) == 1:
			res.SLO = sloHeadline(bs, ns, sel.pairs[0], opts)
		}
	}
	res.Outcome = outcome(res)
	res.Verdict = verdictSentence(res)
	return res, nil
}

func side(in Input) Side {
	n := 0
	for _, l := range in.Summary.Levels {
		n += len(l.Runs)
	}
	sd := Side{Name: in.Name, Title: in.Summary.Title, Levels: len(in.Summary.Levels), Runs: n}
	if k := len(seriesOf(in.Summary)); k > 1 {
		sd.Series = k
	}
	return sd
}

func sortLevels(ls []LevelResult) {
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Level.Less(ls[j].Level) })
}

// newRow fills what a row knows before the family of tests is complete:
// medians, change, direction and the raw test.
func newRow(m Metric, b, n Across, ok bool, opts Options) Row {
	row := Row{Metric: m, Base: b, New: n, Change: analyze.NaN, Severity: analyze.NaN,
		Direction: "same", Threshold: opts.ThresholdFor(m)}
	bv, nv := b.values(), n.values()
	if !ok || len(bv) == 0 || len(nv) == 0 || !b.Median.Valid() || !n.Median.Valid() {
		row.Verdict, row.Direction = VerdictNotAvailable, "n/a"
		switch {
		case len(bv) == 0 && len(nv) == 0:
			row.Note = "no value on either side"
		case len(bv) == 0:
			row.Note = "no value on the base side"
		default:
			row.Note = "no value on the new side"
		}
		return row
	}
	bm, nm := float64(b.Median), float64(n.Median)
	switch {
	case m.Points:
		row.Change = analyze.Num(nm - bm)
	case bm != 0:
		row.Change = analyze.Num((nm - bm) / math.Abs(bm))
	case nm == 0:
		row.Change = 0
	default:
		row.Change = analyze.Num(math.Copysign(math.Inf(1), nm))
	}
	switch {
	case nm > bm:
		row.Direction = "worse"
		if !m.LowerIsBetter {
			row.Direction = "better"
		}
	case nm < bm:
		row.Direction = "better"
		if !m.LowerIsBetter {
			row.Direction = "worse"
		}
	}
	if row.Threshold > 0 {
		row.Severity = analyze.Num(math.Abs(float64(row.Change)) / row.Threshold)
	} else {
		row.Severity = analyze.Num(math.Abs(float64(row.Change)))
	}
	row.RangesOverlap = stats.RangesOverlap(bv, nv)
	mw, err := stats.MannWhitney(nv, bv)
	if err != nil {
		row.Verdict = VerdictNotAvailable
		return row
	}
	if mw.NoVariation {
		row.NoVariation = true
		row.Verdict = VerdictNoChange
		row.Note = "no variation: every run on both sides has the same value"
		return row
	}
	row.Test = &Test{U: analyze.Num(mw.U), P: analyze.Num(mw.P), PAdjusted: analyze.Num(mw.P),
		MinP: analyze.Num(mw.MinP), Method: mw.Method, Ties: mw.Ties, Alpha: opts.Alpha, NBase: mw.N2, NNew: mw.N1}
	return row
}

// beyond reports whether the change exceeds the row's threshold.
func (r Row) beyond() bool {
	c := math.Abs(float64(r.Change))
	return !math.IsNaN(c) && c > r.Threshold
}

// decide applies the correction over the family of tests and gives every
// tested row its verdict.
func decide(levels []LevelResult, metrics int, opts Options) Tests {
	type ref struct{ l, r int }
	var refs []ref
	var ps []float64
	for i := range levels {
		for j := range levels[i].Rows {
			if t := levels[i].Rows[j].Test; t != nil {
				refs = append(refs, ref{i, j})
				ps = append(ps, float64(t.P))
			}
		}
	}
	t := Tests{Count: len(ps), Alpha: opts.Alpha, Correction: opts.Correction, EffectiveAlpha: opts.Alpha}
	for _, rf := range refs {
		row := levels[rf.l].Rows[rf.r]
		t.ExpectedFalseFlags += stats.StratifiedSize([]stats.Stratum{{X: row.New.values(), Y: row.Base.values()}}, opts.Alpha)
	}
	t.Family = fmt.Sprintf("%d headline statistics × %d levels present on both sides; %d of those pairs have values and variation on both sides", metrics, len(levels), len(ps))
	adjusted := ps
	if opts.Correction == CorrectionHolm && len(ps) > 0 {
		adjusted = stats.Holm(ps)
		t.EffectiveAlpha = opts.Alpha / float64(len(ps))
	}
	t.RunsNeeded = stats.RunsNeeded(t.EffectiveAlpha)
	for k, rf := range refs {
		row := &levels[rf.l].Rows[rf.r]
		row.Test.PAdjusted = analyze.Num(adjusted[k])
		// A row whose floor is not below α/m can still be rejected by
		// Holm's later steps (it is compared with α/(m−j+1) once the j−1
		// smaller p-values are rejected) when other rows have more runs:
		// then its runs were enough, and it needs none.
		if float64(row.Test.MinP) >= t.EffectiveAlpha && !(adjusted[k] < opts.Alpha) {
			row.NeedRuns = t.RunsNeeded
		}
		row.Verdict = rowVerdict(*row, adjusted[k], opts.Alpha)
	}
	return t
}

// rowVerdict is a tested row's verdict given its adjusted p.
func rowVerdict(row Row, adjusted, alpha float64) string {
	switch {
	case !row.beyond():
		return VerdictNoChange
	case row.NeedRuns > 0:
		return VerdictUndecided
	case adjusted < alpha && row.Direction == "worse":
		return VerdictRegression
	case adjusted < alpha && row.Direction == "better":
		return VerdictImprovement
	}
	return VerdictNotDistinguishable
}

// errorRateRises lists the levels where the new side's median per-run
// error rate, or its worst run, exceeds the base side's by more than the
// error-rate threshold. It describes where errors rose; it does not gate
// (the error rate's finding, a stratified test with the threshold as its
// minimum rise, does).
func errorRateRises(levels []LevelResult, opts Options) []ErrorRateRise {
	var out []ErrorRateRise
	for _, l := range levels {
		for _, r := range l.Rows {
			if r.Metric.Key != ErrorRateKey || r.Verdict == VerdictNotAvailable {
				continue
			}
			bv, nv := r.Base.values(), r.New.values()
			_, bw := extent(bv)
			_, nw := extent(nv)
			bm, nm := float64(r.Base.Median), float64(r.New.Median)
			if nm-bm > r.Threshold || nw-bw > r.Threshold {
				out = append(out, ErrorRateRise{Level: l.Level, Label: l.Label, BaseMedian: bm, NewMedian: nm,
					BaseWorst: bw, NewWorst: nw, Threshold: r.Threshold})
			}
		}
	}
	return out
}

func extent(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

func outcome(r *Result) string {
	if len(r.Levels) == 0 {
		return OutcomeNothingCompared
	}
	var reg, undecided, imp bool
	for _, f := range r.Findings {
		if !f.Primary {
			continue
		}
		switch {
		case f.Verdict == VerdictRegression:
			reg = true
		case f.Verdict == VerdictImprovement:
			imp = true
		case f.Verdict == VerdictUndecided && f.Direction == "worse":
			undecided = true
		}
	}
	if r.Options.PerLevel {
		for _, l := range r.Levels {
			for _, row := range l.Rows {
				if !r.Options.inGate(row.Metric.Key) {
					continue
				}
				reg = reg || row.Verdict == VerdictRegression
				imp = imp || row.Verdict == VerdictImprovement
			}
		}
	}
	switch {
	case reg:
		return OutcomeRegression
	case undecided:
		return OutcomeUndecided
	case imp:
		return OutcomeImprovement
	}
	return OutcomeNoChange
}

// Rows returns every row with its level, in level then metric order.
func (r *Result) Rows() []LevelRow {
	var out []LevelRow
	for _, l := range r.Levels {
		for _, row := range l.Rows {
			out = append(out, LevelRow{Level: l.Level, Label: l.Label, Row: row})
		}
	}
	return out
}

// LevelRow is a row with its level.
type LevelRow struct {
	Level LevelID
	Label string
	Row
}

// BySeverity returns the rows with one of the verdicts, most severe first
// (largest |change| over threshold), ties in level then metric order.
func (r *Result) BySeverity(verdicts ...string) []LevelRow {
	want := map[string]bool{}
	for _, v := range verdicts {
		want[v] = true
	}
	var out []LevelRow
	for _, lr := range r.Rows() {
		if want[lr.Verdict] {
			out = append(out, lr)
		}
	}
	// Severities equal to six digits are ties (a change of +30 % computed
	// from different numbers differs in the last bits), kept in order.
	key := func(lr LevelRow) float64 { return math.Round(float64(lr.Severity) * 1e6) }
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) > key(out[j]) })
	return out
}
