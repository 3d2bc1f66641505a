package compare

import (
	"math"
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
