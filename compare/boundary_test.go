package compare

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

// boundaryFinding is a primary finding of E2E p95, worse by change (a fraction)
// against a 5 % threshold, whose test gave p (smallest possible p 0.001)
// and has real size size.
func boundaryFinding(t *testing.T, change, p, size float64) Finding {
	t.Helper()
	m, ok := MetricByKey("e2e.p95")
	if !ok {
		t.Fatal("no metric e2e.p95")
	}
	return Finding{Metric: m, Primary: true, Levels: 3, Change: analyze.Num(change), Threshold: 0.05, Direction: "worse",
		Test: &FindingTest{P: analyze.Num(p), MinP: 0.001, Size: size}}
}

// TestFlagsStrictlyBelowAlpha pins "flagged when p < α" (docs/compare.md):
// a p exactly at α is not distinguishable from noise, the next float64
// below it is a regression; a Holm-adjusted p landing exactly on α (2 ×
// 0.025, exact in binary) is not flagged either; and a change exactly on
// its threshold is no change, whatever its p.
func TestFlagsStrictlyBelowAlpha(t *testing.T) {
	none := DefaultOptions()
	none.Correction = CorrectionNone
	tests := []struct {
		name     string
		opts     Options
		findings []Finding
		want     []string
	}{
		{"p = α", none, []Finding{boundaryFinding(t, 0.2, 0.05, 0.04)}, []string{VerdictNotDistinguishable}},
		{"p just below α", none, []Finding{boundaryFinding(t, 0.2, math.Nextafter(0.05, 0), 0.04)}, []string{VerdictRegression}},
		{"Holm-adjusted p = α", DefaultOptions(),
			[]Finding{boundaryFinding(t, 0.2, 0.025, 0.02), boundaryFinding(t, 0.2, 0.5, 0.02)},
			[]string{VerdictNotDistinguishable, VerdictNotDistinguishable}},
		{"change on its threshold", none, []Finding{boundaryFinding(t, 0.05, 0.001, 0.04)}, []string{VerdictNoChange}},
		{"change just beyond its threshold", none, []Finding{boundaryFinding(t, math.Nextafter(0.05, 1), 0.001, 0.04)}, []string{VerdictRegression}},
	}
	for _, tt := range tests {
		decideFindings(tt.findings, nil, tt.opts)
		for i, f := range tt.findings {
			if f.Verdict != tt.want[i] {
				t.Errorf("%s: finding %d verdict %q (adjusted p %v), want %q", tt.name, i, f.Verdict, f.Test.PAdjusted, tt.want[i])
			}
		}
	}
}

// TestExpectedFalseFlagsIsTheSumOfRealSizes: the family's expected number
// of false flags is the sum of its tests' real sizes (0.25 + 0.125, exact
// in binary), not m·α; a secondary finding's size does not count.
func TestExpectedFalseFlagsIsTheSumOfRealSizes(t *testing.T) {
	fs := []Finding{boundaryFinding(t, 0.2, 0.5, 0.25), boundaryFinding(t, 0.2, 0.5, 0.125), boundaryFinding(t, 0.2, 0.5, 0.5)}
	fs[2].Primary = false
	fam := decideFindings(fs, nil, DefaultOptions())
	if fam.Tests != 2 || fam.ExpectedFalseFlags != 0.375 {
		t.Errorf("family of %d tests, expected false flags %v; want 2 and 0.375", fam.Tests, fam.ExpectedFalseFlags)
	}
}

// TestRowFlagsStrictlyBelowAlpha: a level's own row follows the same rule
// as a finding: p exactly at α is not a regression, just below it is.
func TestRowFlagsStrictlyBelowAlpha(t *testing.T) {
	row := Row{Change: 0.2, Threshold: 0.05, Direction: "worse"}
	if got := rowVerdict(row, 0.05, 0.05); got != VerdictNotDistinguishable {
		t.Errorf("adjusted p = α: %q, want %q", got, VerdictNotDistinguishable)
	}
	if got := rowVerdict(row, math.Nextafter(0.05, 0), 0.05); got != VerdictRegression {
		t.Errorf("adjusted p just below α: %q, want %q", got, VerdictRegression)
	}
	row.Change = 0.05
	if got := rowVerdict(row, 0.001, 0.05); got != VerdictNoChange {
		t.Errorf("change on its threshold: %q, want %q", got, VerdictNoChange)
	}
}

// TestThresholdText: a threshold's text is what --threshold takes.
func TestThresholdText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"5%", "5%"}, {" ttft.p99 = 10 % ", "ttft.p99=10%"}, {"goodput=2pp", "goodput=2pp"}, {"errors=0.5pp", "errors=0.5pp"}, {"12.5%", "12.5%"},
	} {
		th, err := ParseThreshold(tt.in)
		if err != nil || th.String() != tt.want {
			t.Errorf("ParseThreshold(%q).String() = %q (%v), want %q", tt.in, th.String(), err, tt.want)
		}
	}
}

// sideOf is one side's per-run values with their median.
func sideOf(median float64, runs ...float64) Across {
	a := Across{Median: analyze.Num(median), N: len(runs)}
	for _, v := range runs {
		a.PerRun = append(a.PerRun, analyze.Num(v))
	}
	return a
}

// TestNewRowChangeDirectionSeverity: a row's change is relative to the
// base median, its direction follows the metric's better side (equal
// medians are "same"), its severity is |change| / threshold, and a side
// without a median has no row to test.
func TestNewRowChangeDirectionSeverity(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	tput, _ := MetricByKey("throughput.output_tokens_per_s")
	opts := DefaultOptions() // 5 % threshold
	tests := []struct {
		name         string
		m            Metric
		b, n         Across
		change       float64
		direction    string
		severity     float64
		notAvailable bool
	}{
		{"latency +20 %", e2e, sideOf(100, 99, 100, 101), sideOf(120, 119, 120, 121), 0.2, "worse", 4, false},
		{"throughput +20 %", tput, sideOf(100, 99, 100, 101), sideOf(120, 119, 120, 121), 0.2, "better", 4, false},
		{"throughput −10 %", tput, sideOf(100, 99, 100, 101), sideOf(90, 89, 90, 91), -0.1, "worse", 2, false},
		{"equal medians", e2e, sideOf(100, 99, 100, 101), sideOf(100, 98, 100, 102), 0, "same", 0, false},
		{"no new median", e2e, sideOf(100, 99, 100, 101), Across{Median: analyze.NaN, PerRun: []analyze.Num{1}}, math.NaN(), "n/a", math.NaN(), true},
	}
	for _, tt := range tests {
		row := newRow(tt.m, tt.b, tt.n, true, opts)
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
		if !same(float64(row.Change), tt.change) || row.Direction != tt.direction || !same(float64(row.Severity), tt.severity) ||
			(row.Verdict == VerdictNotAvailable) != tt.notAvailable {
			t.Errorf("%s: change %v, direction %q, severity %v, verdict %q; want %v, %q, %v (not available %v)",
				tt.name, row.Change, row.Direction, row.Severity, row.Verdict, tt.change, tt.direction, tt.severity, tt.notAvailable)
		}
	}
}

// TestImprovementStrictlyBelowAlpha: better at p = α is not an improvement.
func TestImprovementStrictlyBelowAlpha(t *testing.T) {
	none := DefaultOptions()
	none.Correction = CorrectionNone
	for _, tt := range []struct {
		p    float64
		want string
	}{{0.05, VerdictNotDistinguishable}, {math.Nextafter(0.05, 0), VerdictImprovement}} {
		f := boundaryFinding(t, -0.2, tt.p, 0.04)
		f.Direction = "better"
		fs := []Finding{f}
		decideFindings(fs, nil, none)
		if fs[0].Verdict != tt.want {
			t.Errorf("finding better at p %v: %q, want %q", tt.p, fs[0].Verdict, tt.want)
		}
		row := Row{Change: -0.2, Threshold: 0.05, Direction: "better"}
		if got := rowVerdict(row, tt.p, 0.05); got != tt.want {
			t.Errorf("row better at p %v: %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestLevelIDOrder: concurrency levels first, ascending; then rates,
// ascending with rate inf last; equal settings by arrival process.
func TestLevelIDOrder(t *testing.T) {
	ids := []LevelID{
		{Mode: ModeConcurrency, Value: 1}, {Mode: ModeConcurrency, Value: 16},
		{Mode: ModeRate, Value: 2, Arrival: "constant"}, {Mode: ModeRate, Value: 2, Arrival: "poisson"},
		{Mode: ModeRate, Value: 10}, {Mode: ModeRate, Value: math.Inf(1)},
	}
	for i := range ids {
		for j := range ids {
			if got, want := ids[i].Less(ids[j]), i < j; got != want {
				t.Errorf("%s < %s: %v, want %v", ids[i].Key(), ids[j].Key(), got, want)
			}
		}
	}
}

// TestVerdictPhrases: "3 runs a side" only when both sides have the same
// runs, evenly over the levels; a range only across two or more levels
// whose ends differ.
func TestVerdictPhrases(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	for _, tt := range []struct {
		f    Finding
		want string
	}{
		{Finding{Levels: 3, BaseRuns: 9, NewRuns: 9}, "3 runs a side"},
		{Finding{Levels: 3, BaseRuns: 9, NewRuns: 8}, "9 vs 8 runs over 3 levels"},
		{Finding{Levels: 2, BaseRuns: 5, NewRuns: 5}, "5 vs 5 runs over 2 levels"},
		{Finding{Levels: 1, BaseRuns: 1, NewRuns: 1}, "1 run a side"},
		{Finding{}, "0 vs 0 runs over 0 levels"},
	} {
		if got := runsPhrase(tt.f); got != tt.want {
			t.Errorf("runsPhrase(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
	two := Finding{Metric: e2e, Levels: 2, ChangeLow: 0.08, ChangeHigh: 0.14}
	one := two
	one.Levels = 1
	for _, tt := range []struct {
		f    Finding
		want string
	}{{two, "+8.0 % to +14.0 %"}, {one, ""}} {
		if got := ChangeRange(tt.f); got != tt.want {
			t.Errorf("ChangeRange(%d levels) = %q, want %q", tt.f.Levels, got, tt.want)
		}
	}
}

// TestPerLevelFamily: --per-level adds to the family each level's row of
// a gate statistic that has a test — not a row without one, not a
// secondary statistic's — and a row whose smallest possible p cannot
// reach α/m, with an adjusted p not below α, is undecided for want of runs.
func TestPerLevelFamily(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	ttft50, _ := MetricByKey("ttft.p50")
	opts := DefaultOptions()
	opts.PerLevel = true
	opts.Correction = CorrectionNone
	levels := []LevelResult{{Rows: []Row{
		{Metric: e2e, Change: 0.2, Threshold: 0.05, Direction: "worse", Test: &Test{P: 0.05, MinP: 0.05}},
		{Metric: ttft50, Change: 0.2, Threshold: 0.05, Direction: "worse", Test: &Test{P: 0.001, MinP: 0.001}},
		{Metric: e2e, Change: 0.2, Threshold: 0.05, Direction: "worse"},
	}}}
	fam := decideFindings(nil, levels, opts)
	if fam.Tests != 1 {
		t.Errorf("family of %d tests, want 1 (the gate statistic's row with a test)", fam.Tests)
	}
	if r := levels[0].Rows[0]; r.Verdict != VerdictUndecided || r.NeedRuns == 0 {
		t.Errorf("row at p = α with smallest p α: verdict %q, runs needed %d; want undecided with a count", r.Verdict, r.NeedRuns)
	}
}

// TestRowFamilyUndecidedAtAlpha: in the rows' own family, a row whose
// smallest possible p is not below α/m and whose adjusted p is exactly α
// needs more runs (undecided); just below α it was decided by Holm.
func TestRowFamilyUndecidedAtAlpha(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	none := DefaultOptions()
	none.Correction = CorrectionNone
	for _, tt := range []struct {
		p    float64
		want string
	}{{0.05, VerdictUndecided}, {math.Nextafter(0.05, 0), VerdictRegression}} {
		levels := []LevelResult{{Rows: []Row{{Metric: e2e, Change: 0.2, Threshold: 0.05, Direction: "worse", Test: &Test{P: analyze.Num(tt.p), MinP: 0.05}}}}}
		decide(levels, 1, none)
		if r := levels[0].Rows[0]; r.Verdict != tt.want {
			t.Errorf("p %v, smallest p 0.05: %q (runs needed %d), want %q", tt.p, r.Verdict, r.NeedRuns, tt.want)
		}
	}
}

// TestFamilyListsOptionalStatisticsWhenCompared: energy per token is in
// the gate's listed family only when a finding compares it.
func TestFamilyListsOptionalStatisticsWhenCompared(t *testing.T) {
	energy, ok := MetricByKey("energy.j_per_output_token")
	if !ok || !energy.Optional {
		t.Fatal("energy.j_per_output_token is not an optional metric")
	}
	without := decideFindings([]Finding{boundaryFinding(t, 0.2, 0.5, 0.01)}, nil, DefaultOptions())
	f := boundaryFinding(t, 0.2, 0.5, 0.01)
	f.Metric = energy
	with := decideFindings([]Finding{boundaryFinding(t, 0.2, 0.5, 0.01), f}, nil, DefaultOptions())
	if slices.Contains(without.Statistics, energy.Key) || !slices.Contains(with.Statistics, energy.Key) ||
		!slices.Contains(without.Statistics, "e2e.p95") || len(with.Statistics) != len(without.Statistics)+1 {
		t.Errorf("family without energy %v, with it %v", without.Statistics, with.Statistics)
	}
}

// TestFindingsCheck: error-level findings on either side — or both — make
// the sweeps comparable with a caveat only; none on either side, the same.
func TestFindingsCheck(t *testing.T) {
	for _, tt := range []struct {
		base, new []string
		status    string
	}{
		{nil, nil, StatusSame},
		{[]string{"error-rate"}, nil, StatusPresent},
		{nil, []string{"error-rate"}, StatusPresent},
		{[]string{"error-rate"}, []string{"run-failed"}, StatusPresent},
	} {
		ch := checkFindings(Rule{Key: "findings"}, Profile{ErrorFindings: tt.base}, Profile{ErrorFindings: tt.new})
		if ch.Status != tt.status || (tt.status == StatusPresent) != (ch.Effect == EffectCaveat) {
			t.Errorf("findings %v / %v: status %q, effect %q; want %q", tt.base, tt.new, ch.Status, ch.Effect, tt.status)
		}
	}
}

// TestRowFlagged: regressions and improvements are flagged, nothing else.
func TestRowFlagged(t *testing.T) {
	for v, want := range map[string]bool{VerdictRegression: true, VerdictImprovement: true, VerdictNoChange: false,
		VerdictUndecided: false, VerdictNotDistinguishable: false, VerdictNotAvailable: false} {
		if got := (Row{Verdict: v}).Flagged(); got != want {
			t.Errorf("%q flagged %v, want %v", v, got, want)
		}
	}
}

// TestValidateOptionBounds: α in (0, 1), attainment in (0, 100], a
// threshold from 0: the bounds themselves and just past them.
func TestValidateOptionBounds(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(*Options)
		ok   bool
	}{
		{"α just above 0", func(o *Options) { o.Alpha = math.SmallestNonzeroFloat64 }, true},
		{"α 0", func(o *Options) { o.Alpha = 0 }, false},
		{"α 1", func(o *Options) { o.Alpha = 1 }, false},
		{"attainment 100", func(o *Options) { o.Attainment = 100 }, true},
		{"attainment 0", func(o *Options) { o.Attainment = 0 }, false},
		{"threshold 0", func(o *Options) { o.Threshold = 0 }, true},
		{"threshold negative", func(o *Options) { o.Threshold = -0.01 }, false},
		{"a series pair alone", func(o *Options) { o.Pair = &SeriesPair{} }, true},
	} {
		o := DefaultOptions()
		tt.set(&o)
		if err := o.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

// TestDirectionOfAChange: a rise is worse for latency and better for
// throughput; no change (or none known) is the same.
func TestDirectionOfAChange(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	tput, _ := MetricByKey("throughput.output_tokens_per_s")
	for _, tt := range []struct {
		m      Metric
		change float64
		want   string
	}{
		{e2e, 0.1, "worse"}, {e2e, -0.1, "better"}, {e2e, 0, "same"}, {e2e, math.NaN(), "same"},
		{tput, 0.1, "better"}, {tput, -0.1, "worse"}, {tput, 0, "same"},
	} {
		if got := direction(tt.m, tt.change); got != tt.want {
			t.Errorf("direction(%s, %v) = %q, want %q", tt.m.Key, tt.change, got, tt.want)
		}
	}
}

// TestPerLevelGateLines: with --per-level, a level's regression of a gate
// statistic fails the gate (fail-on regression or any), one of a
// secondary statistic does not, and --fail-on error-rate ignores both.
func TestPerLevelGateLines(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	ttft50, _ := MetricByKey("ttft.p50")
	row := func(m Metric) Row {
		return Row{Metric: m, Change: 0.2, Threshold: 0.05, Direction: "worse", Verdict: VerdictRegression, Severity: 4,
			Base: sideOf(100, 100), New: sideOf(120, 120), Test: &Test{P: 0.001, PAdjusted: 0.001}}
	}
	for _, tt := range []struct {
		failOn string
		rows   []Row
		code   int
	}{
		{FailOnRegression, []Row{row(e2e)}, ExitFail},
		{FailOnAny, []Row{row(e2e)}, ExitFail},
		{FailOnRegression, []Row{row(ttft50)}, ExitPass},
		{FailOnErrorRate, []Row{row(e2e)}, ExitPass},
	} {
		r := &Result{Options: DefaultOptions(), Levels: []LevelResult{{Label: "concurrency 4", Rows: tt.rows}}}
		r.Options.PerLevel = true
		g := r.Gate(GateOptions{FailOn: tt.failOn})
		if g.Code != tt.code {
			t.Errorf("--fail-on %s, %s regressed at one level: exit %d %q, want %d", tt.failOn, tt.rows[0].Metric.Key, g.Code, g.Lines, tt.code)
		}
	}
}

// TestGateLinesMostSevereFirst: the gate's reasons list the most severe
// flagged finding first (severity 4 before 2), whatever their order.
func TestGateLinesMostSevereFirst(t *testing.T) {
	tpot, _ := MetricByKey("tpot.p50")
	mild := boundaryFinding(t, 0.1, 0.001, 0.01)
	mild.Metric, mild.Verdict, mild.Severity = tpot, VerdictRegression, 2
	severe := boundaryFinding(t, 0.2, 0.001, 0.01)
	severe.Verdict, severe.Severity = VerdictRegression, 4
	r := &Result{Options: DefaultOptions(), Findings: []Finding{mild, severe}}
	g := r.Gate(GateOptions{FailOn: FailOnRegression})
	if g.Code != ExitFail || len(g.Lines) != 2 || !strings.Contains(g.Lines[0], severe.Metric.Name) || !strings.Contains(g.Lines[1], tpot.Name) {
		t.Errorf("gate exit %d, lines %q; want E2E p95's line before TPOT p50's", g.Code, g.Lines)
	}
}
