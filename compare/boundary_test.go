package compare

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
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

// TestSeverityAtZeroThreshold: with a threshold of 0 (--threshold 0%, any
// change counts), a row's and a finding's severity is |change| itself,
// not |change| / 0. E2E p95 at three levels, base 100 ms, new 110, 120
// and 130 ms: rows of change and severity 0.1, 0.2, 0.3; the finding's
// change is their median, 0.2, and so is its severity. Equal medians
// give 0.
func TestSeverityAtZeroThreshold(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	opts := DefaultOptions()
	opts.Threshold = 0
	base := sideOf(100, 99, 100, 101)
	var levels []LevelResult
	for i, n := range []Across{sideOf(110, 109, 110, 111), sideOf(120, 119, 120, 121), sideOf(130, 129, 130, 131)} {
		row := newRow(e2e, base, n, true, opts)
		if want := 0.1 * float64(i+1); !(math.Abs(float64(row.Severity)-want) <= 1e-12) {
			t.Errorf("row %d: severity %v, want %v", i, row.Severity, want)
		}
		levels = append(levels, LevelResult{Level: LevelID{Mode: ModeConcurrency, Value: float64(int(4) << i)}, Rows: []Row{row}})
	}
	fs := findings(levels, []Metric{e2e}, opts)
	if len(fs) != 1 || float64(fs[0].Change) != 0.2 || float64(fs[0].Severity) != 0.2 || fs[0].Threshold != 0 {
		t.Fatalf("findings %+v; want one of change 0.2, severity 0.2, threshold 0", fs)
	}
	if row := newRow(e2e, base, sideOf(100, 98, 100, 102), true, opts); float64(row.Severity) != 0 {
		t.Errorf("equal medians: severity %v, want 0", row.Severity)
	}
}

// TestValidateBoundsInclusive: every threshold is accepted from 0 to its
// maximum inclusive — 1,000,000 % (a fraction of 10,000) for a relative
// one, 1,000,000 pp for goodput and the error rate — and refused just
// beyond it.
func TestValidateBoundsInclusive(t *testing.T) {
	const over = "expected a number from 0 to"
	for _, tt := range []struct {
		name string
		set  func(*Options)
		want string // "" when valid
	}{
		{"threshold 0", func(o *Options) { o.Threshold = 0 }, ""},
		{"threshold 1,000,000 %", func(o *Options) { o.Threshold = 10000 }, ""},
		{"threshold beyond 1,000,000 %", func(o *Options) { o.Threshold = 10000.5 }, "threshold 10000.5: " + over + " 10000"},
		{"goodput threshold 0", func(o *Options) { o.GoodputThreshold = 0 }, ""},
		{"goodput threshold 1,000,000 pp", func(o *Options) { o.GoodputThreshold = 1e6 }, ""},
		{"error-rate threshold beyond", func(o *Options) { o.ErrorRateThreshold = 1e6 + 1 }, "error-rate threshold 1.000001e+06: " + over + " 1e+06"},
		{"override 0", func(o *Options) { o.Overrides = []Threshold{{Key: "ttft.p95", Value: 0}} }, ""},
		{"override 0 pp", func(o *Options) { o.Overrides = []Threshold{{Key: "goodput", Value: 0, Points: true}} }, ""},
		{"override 1,000,000 %", func(o *Options) { o.Overrides = []Threshold{{Key: "ttft", Value: 10000}} }, ""},
		{"override beyond 1,000,000 %", func(o *Options) { o.Overrides = []Threshold{{Key: "ttft", Value: 10000.5}} }, `threshold for "ttft": 10000.5: ` + over + " 10000"},
		{"override negative", func(o *Options) { o.Overrides = []Threshold{{Key: "ttft", Value: -0.01}} }, `threshold for "ttft": -0.01: ` + over + " 10000"},
	} {
		o := DefaultOptions()
		tt.set(&o)
		err := o.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestVersionNote names the first part of a dotted version that differs;
// versions equal as far as the shorter goes, or differing beyond the
// patch, just "differ".
func TestVersionNote(t *testing.T) {
	for _, tt := range []struct{ a, b, want string }{
		{"1.0.0", "2.0.0", "major version differs"},
		{"0.16.0", "0.17.0", "minor version differs"},
		{"0.16.0", "0.16.1", "patch version differs"},
		{"0.16", "0.16.1", "version differs"},
		{"0.16.1", "0.16", "version differs"},
		{"1.2.3.4", "1.2.3.5", "version differs"},
	} {
		if got := versionNote(tt.a, tt.b); got != tt.want {
			t.Errorf("versionNote(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestErrorRateRisesBeyondThreshold: a level is listed when its median or
// its worst run's error rate rose by more than the threshold (1 pp), in
// percentage points: equal rates of 2 % are no rise, a rise of exactly
// 1 pp is none, 1.5 pp is one.
func TestErrorRateRisesBeyondThreshold(t *testing.T) {
	m, _ := MetricByKey(ErrorRateKey)
	opts := DefaultOptions()
	for _, tt := range []struct {
		name string
		b, n Across
		want bool
	}{
		{"2 % on both sides", sideOf(2, 2, 2, 2), sideOf(2, 2, 2, 2), false},
		{"median +1 pp", sideOf(0, 0, 0, 0), sideOf(1, 1, 1, 1), false},
		{"median +1.5 pp", sideOf(1, 1, 1, 1), sideOf(2.5, 2.5, 2.5, 2.5), true},
		{"worst run +1 pp", sideOf(0, 0, 0, 1), sideOf(0, 0, 0, 2), false},
		{"worst run +1.5 pp", sideOf(0, 0, 0, 0), sideOf(0, 0, 0, 1.5), true},
	} {
		row := newRow(m, tt.b, tt.n, true, opts)
		got := errorRateRises([]LevelResult{{Level: LevelID{Mode: ModeConcurrency, Value: 4}, Rows: []Row{row}}}, opts)
		if (len(got) == 1) != tt.want || len(got) > 1 {
			t.Errorf("%s: rises %+v, want one: %v", tt.name, got, tt.want)
		}
	}
}

// TestCurveNeedsBothMedians: a curve has a level only when the level has
// both statistics with a median: of four levels, 1 has both, 2 no
// latency statistic, 4 a latency without a median, 8 a rate without one.
func TestCurveNeedsBothMedians(t *testing.T) {
	const rate, lat = "throughput.output_tokens_per_s", "e2e.p95"
	stat := func(key string, median float64) analyze.AcrossRuns {
		return analyze.AcrossRuns{Key: key, Median: analyze.Num(median), MAD: 0, Runs: 1, PerRun: []analyze.Num{analyze.Num(median)}}
	}
	level := func(c int, stats ...analyze.AcrossRuns) analyze.Level {
		return analyze.Level{LevelKey: analyze.LevelKey{Mode: ModeConcurrency, Concurrency: c}, Stats: stats}
	}
	s := &analyze.Summary{Levels: []analyze.Level{
		level(1, stat(rate, 100), stat(lat, 900)),
		level(2, stat(rate, 200)),
		level(4, stat(rate, 400), stat(lat, math.NaN())),
		level(8, stat(rate, math.NaN()), stat(lat, 1200)),
	}}
	got := Curve(s, rate, lat)
	if len(got) != 1 || got[0].Level.Value != 1 || float64(got[0].Rate.Median) != 100 || float64(got[0].Latency.Median) != 900 {
		t.Errorf("curve %+v, want one level (concurrency 1: 100, 900)", got)
	}
}

// TestFailOnErrorRateOnlyFailsOnMoreErrors: --fail-on error-rate fails on
// a flagged rise of the error rate only — not on a flagged latency
// regression, not on fewer errors; --fail-on any fails on each.
func TestFailOnErrorRateOnlyFailsOnMoreErrors(t *testing.T) {
	errs, _ := MetricByKey(ErrorRateKey)
	finding := func(m Metric, verdict, dir string) Finding {
		f := boundaryFinding(t, 2, 0.001, 0.01)
		f.Metric, f.Verdict, f.Direction, f.Severity = m, verdict, dir, 2
		return f
	}
	moreErrors := finding(errs, VerdictRegression, "worse")
	fewerErrors := finding(errs, VerdictImprovement, "better")
	slower := boundaryFinding(t, 0.2, 0.001, 0.01)
	slower.Verdict, slower.Severity = VerdictRegression, 4
	for _, tt := range []struct {
		name   string
		failOn string
		f      Finding
		code   int
	}{
		{"more errors", FailOnErrorRate, moreErrors, ExitFail},
		{"fewer errors", FailOnErrorRate, fewerErrors, ExitPass},
		{"slower", FailOnErrorRate, slower, ExitPass},
		{"fewer errors, --fail-on any", FailOnAny, fewerErrors, ExitFail},
		{"slower, --fail-on any", FailOnAny, slower, ExitFail},
	} {
		r := &Result{Options: DefaultOptions(), Findings: []Finding{tt.f}}
		if g := r.Gate(GateOptions{FailOn: tt.failOn}); g.Code != tt.code {
			t.Errorf("%s, --fail-on %s: exit %d %q, want %d", tt.name, tt.failOn, g.Code, g.Lines, tt.code)
		}
	}
}

// TestPerLevelRowNeedsRunsOnlyWhenItCannotReach: in the --per-level
// family (no correction: α/m = 0.05), a row needs more runs only when its
// smallest possible p is not below 0.05 and it was not flagged: one with
// smallest p 0.001 and p 0.3 is not distinguishable, needing nothing; one
// with smallest p 0.1 (3 runs a side: 2/20) needs 4 runs a side (the
// first k with 2/C(2k, k) < 0.05: 2/70).
func TestPerLevelRowNeedsRunsOnlyWhenItCannotReach(t *testing.T) {
	e2e, _ := MetricByKey("e2e.p95")
	opts := DefaultOptions()
	opts.PerLevel = true
	opts.Correction = CorrectionNone
	row := func(p, minP float64) Row {
		return Row{Metric: e2e, Change: 0.2, Threshold: 0.05, Direction: "worse", Test: &Test{P: analyze.Num(p), MinP: analyze.Num(minP)}}
	}
	levels := []LevelResult{{Rows: []Row{row(0.3, 0.001), row(0.1, 0.1)}}}
	decideFindings(nil, levels, opts)
	for i, want := range []struct {
		verdict string
		need    int
	}{{VerdictNotDistinguishable, 0}, {VerdictUndecided, 4}} {
		if r := levels[0].Rows[i]; r.Verdict != want.verdict || r.NeedRuns != want.need {
			t.Errorf("row %d: %q needing %d runs, want %q needing %d", i, r.Verdict, r.NeedRuns, want.verdict, want.need)
		}
	}
}

// TestVerdictSentenceEdges: the per-level outcomes without a flagged
// finding have their own sentence; "without variation to test" appears
// only when a primary statistic went untested; Holm is named only over
// more than one test, and for a primary finding; p is "< 0.0001" only
// below 0.0001.
func TestVerdictSentenceEdges(t *testing.T) {
	comparable := Comparability{Verdict: Comparable}
	for _, tt := range []struct {
		outcome string
		want    string
	}{
		{OutcomeRegression, "Worse: a per-level test of a primary statistic (--per-level) flagged a regression."},
		{OutcomeImprovement, "Better: a per-level test of a primary statistic (--per-level) flagged an improvement."},
	} {
		if got := verdictSentence(&Result{Outcome: tt.outcome, Comparability: comparable}); got != tt.want {
			t.Errorf("%s without a flagged finding: %q, want %q", tt.outcome, got, tt.want)
		}
	}
	tested := boundaryFinding(t, 0.01, 0.5, 0.01)
	tested.Verdict = VerdictNoChange
	untested := tested
	untested.Test = nil
	fam := Family{Alpha: 0.05, Correction: CorrectionNone, Tests: 1}
	for _, tt := range []struct {
		fs   []Finding
		want string
	}{
		{[]Finding{tested}, "No change: none of the 1 primary statistics moved beyond its threshold with p < 0.05."},
		{[]Finding{tested, untested}, "No change: none of the 2 primary statistics moved beyond its threshold with p < 0.05; 1 without variation to test."},
	} {
		if got := verdictSentence(&Result{Outcome: OutcomeNoChange, Comparability: comparable, Findings: tt.fs, Family: fam}); got != tt.want {
			t.Errorf("verdict %q, want %q", got, tt.want)
		}
	}
	for _, tt := range []struct {
		f    Family
		want string
	}{
		{Family{Correction: CorrectionHolm, Tests: 2}, " (Holm over 2 tests)"},
		{Family{Correction: CorrectionHolm, Tests: 1}, ""},
		{Family{Correction: CorrectionNone, Tests: 5}, ""},
	} {
		if got := holmPhrase(tt.f); got != tt.want {
			t.Errorf("holmPhrase(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
	flagged := boundaryFinding(t, 0.2, 0.001, 0.01)
	flagged.Test.PAdjusted = 0.002
	flagged.BaseRuns, flagged.NewRuns = 9, 9
	for _, tt := range []struct {
		fam     Family
		primary bool
		want    string
	}{
		{Family{Correction: CorrectionHolm, Tests: 2}, true, "E2E p95 +20.0 % across 3 levels, stratified exact p = 0.0010 (Holm over 2 tests: 0.0020), 3 runs a side"},
		{Family{Correction: CorrectionHolm, Tests: 2}, false, "E2E p95 +20.0 % across 3 levels, stratified exact p = 0.0010, 3 runs a side"},
		{Family{Correction: CorrectionHolm, Tests: 1}, true, "E2E p95 +20.0 % across 3 levels, stratified exact p = 0.0010, 3 runs a side"},
		{Family{Correction: CorrectionNone, Tests: 2}, true, "E2E p95 +20.0 % across 3 levels, stratified exact p = 0.0010, 3 runs a side"},
	} {
		f := flagged
		f.Primary = tt.primary
		if got := findingPhrase(f, &Result{Family: tt.fam}); got != tt.want {
			t.Errorf("findingPhrase(primary %v, %+v) = %q, want %q", tt.primary, tt.fam, got, tt.want)
		}
	}
	for _, tt := range []struct {
		p    float64
		want string
	}{{0.0001, "= 0.0001"}, {math.Nextafter(0.0001, 0), "< 0.0001"}} {
		if got := pIs(tt.p); got != tt.want {
			t.Errorf("pIs(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestListsNameHowManyMore: a list of levels names five and counts the
// rest; a list of series names up to its maximum and counts the rest.
func TestListsNameHowManyMore(t *testing.T) {
	var ls []OneSided
	for _, c := range []string{"1", "2", "4", "8", "16", "32", "64"} {
		ls = append(ls, OneSided{Label: "concurrency " + c})
	}
	if got, want := levelList(ls), "concurrency 1, concurrency 2, concurrency 4, concurrency 8, concurrency 16, and 2 more"; got != want {
		t.Errorf("levelList = %q, want %q", got, want)
	}
	ss := []ingest.Series{mustSeries("tp=1"), mustSeries("tp=2"), mustSeries("tp=4"), mustSeries("tp=8")}
	if got, want := SeriesList(ss, 1), "{tp=1}, and 3 more"; got != want {
		t.Errorf("SeriesList = %q, want %q", got, want)
	}
	e := &SeriesError{Flag: "--base-series", Side: "base", Name: "runs/a", Problem: "SIDE has no level, so no series"}
	if got, want := e.Error(), `--base-series "": base runs/a has no level, so no series`; got != want {
		t.Errorf("SeriesError without candidates = %q, want %q", got, want)
	}
}

// TestFamilyWithoutTests: with nothing to test, Holm's effective α is α
// itself (not α/0).
func TestFamilyWithoutTests(t *testing.T) {
	if fam := decideFindings(nil, nil, DefaultOptions()); fam.Tests != 0 || fam.EffectiveAlpha != 0.05 {
		t.Errorf("family of %d tests, effective α %v; want 0 and 0.05", fam.Tests, fam.EffectiveAlpha)
	}
}

// TestGateUndecidedOnAWorseLatency: an undecided primary latency that got
// worse makes the default gate "undecided" (exit 4), not a pass; one that
// got better does only under --fail-on any; under --fail-on error-rate a
// latency never does.
func TestGateUndecidedOnAWorseLatency(t *testing.T) {
	worse := boundaryFinding(t, 0.2, 0.1, 0.01)
	worse.Verdict, worse.NeedRuns = VerdictUndecided, 4
	better := worse
	better.Direction = "better"
	for _, tt := range []struct {
		name   string
		f      Finding
		failOn string
		code   int
	}{
		{"worse", worse, FailOnRegression, ExitUndecided},
		{"better", better, FailOnRegression, ExitPass},
		{"better, --fail-on any", better, FailOnAny, ExitUndecided},
		{"worse, --fail-on error-rate", worse, FailOnErrorRate, ExitPass},
	} {
		r := &Result{Options: DefaultOptions(), Findings: []Finding{tt.f}}
		if g := r.Gate(GateOptions{FailOn: tt.failOn}); g.Code != tt.code {
			t.Errorf("%s: exit %d %q, want %d", tt.name, g.Code, g.Lines, tt.code)
		}
	}
}

// TestLevelIDJSON: a level reads back what it writes, rate inf as "inf";
// malformed JSON is an error.
func TestLevelIDJSON(t *testing.T) {
	for _, id := range []LevelID{{Mode: ModeConcurrency, Value: 16}, {Mode: ModeRate, Value: math.Inf(1), Arrival: "poisson"}} {
		b, err := json.Marshal(id)
		if err != nil {
			t.Fatal(err)
		}
		var back LevelID
		if err := json.Unmarshal(b, &back); err != nil || back != id {
			t.Errorf("%s read back as %+v, %v; want %+v", b, back, err, id)
		}
	}
	var id LevelID
	if err := id.UnmarshalJSON([]byte(`{"mode":`)); err == nil {
		t.Error("malformed JSON read without an error")
	}
}

// TestErrorRateMADFollowsTheMethod: a level's error rates 0, 1 and 3 %
// have median 1 and raw MAD median(1, 0, 2) = 1, scaled 1.4826.
func TestErrorRateMADFollowsTheMethod(t *testing.T) {
	for _, tt := range []struct {
		mad  string
		want float64
	}{{"raw", 1}, {"scaled", 1.4826}} {
		s := &analyze.Summary{Method: analyze.Method{MAD: tt.mad}, Levels: []analyze.Level{{Runs: []string{"a", "b", "c"}}}}
		for i, e := range []int{0, 1, 3} {
			s.Runs = append(s.Runs, analyze.RunSummary{Dir: []string{"a", "b", "c"}[i], Counts: analyze.Counts{Measured: 100, Errors: e}})
		}
		a, _ := across(s, indexRuns(s), s.Levels[0], ErrorRateKey)
		if float64(a.Median) != 1 || !(math.Abs(float64(a.MAD)-tt.want) <= 1e-12) {
			t.Errorf("MAD %s: median %v, MAD %v; want 1, %v", tt.mad, a.Median, a.MAD, tt.want)
		}
	}
}

// TestNotRecordedOnEitherSide: a rule neither summary records is "not
// recorded"; a hard rule (the GPU model) says it was not checked, a soft
// one (max_num_seqs) says nothing more.
func TestNotRecordedOnEitherSide(t *testing.T) {
	empty := ProfileOf(&analyze.Summary{})
	c := CheckComparability(empty, empty, nil)
	for _, tt := range []struct{ key, note string }{{"gpu", "not in either summary: not checked"}, {"max_num_seqs", ""}} {
		if ch := checkOf(c, tt.key); ch.Status != StatusNotRecorded || ch.Note != tt.note {
			t.Errorf("%s: %+v, want not recorded, note %q", tt.key, ch, tt.note)
		}
	}
}

// TestViewKeepsFindingsWithoutRuns: a view of some series keeps the
// findings naming one of its runs and those naming no run at all.
func TestViewKeepsFindingsWithoutRuns(t *testing.T) {
	s := join(fakeSweep{levels: []int{4}, runs: 1, series: "tp=1"}, fakeSweep{levels: []int{4}, runs: 1, series: "tp=2"})
	s.Findings = []analyze.Finding{{Rule: "sweep-wide"}, {Rule: "tp1", Runs: []string{s.Runs[0].Dir}}, {Rule: "tp2", Runs: []string{s.Runs[1].Dir + " (why)"}}}
	v := view(s, func(sr ingest.Series) bool { return sr == s.Runs[0].Series }, false)
	var rules []string
	for _, f := range v.Findings {
		rules = append(rules, f.Rule)
	}
	if want := []string{"sweep-wide", "tp1"}; !slices.Equal(rules, want) {
		t.Errorf("findings %q, want %q", rules, want)
	}
}
