package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

func run(base, new fakeSweep, opts Options) *Result {
	r, err := Compare(Input{Name: "base", Summary: base.build()}, Input{Name: "new", Summary: new.build()}, opts)
	if err != nil {
		panic(err)
	}
	return r
}

func verdicts(r *Result) map[string]int {
	out := map[string]int{}
	for _, lr := range r.Rows() {
		out[lr.Verdict]++
	}
	return out
}

var slo = analyze.SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000}

func TestSameSweepIsNoChange(t *testing.T) {
	sw := fakeSweep{levels: []int{1, 4, 16}, runs: 3, slo: slo}
	r := run(sw, sw, DefaultOptions())
	if r.Comparability.Verdict != Comparable {
		t.Errorf("comparability %q, want comparable; checks %+v", r.Comparability.Verdict, r.Comparability.Caveats())
	}
	if r.Outcome != OutcomeNoChange {
		t.Errorf("outcome %q, want no change", r.Outcome)
	}
	// 12 statistics vary between runs; goodput and the error rate are the
	// same in every run (no variation: not a test).
	v := verdicts(r)
	if v[VerdictNoChange] != 14*3 {
		t.Errorf("verdicts %v, want 42 × no change", v)
	}
	if r.Tests.Count != 12*3 {
		t.Errorf("%d tests, want 36", r.Tests.Count)
	}
	// Holm over the 36 row tests: α/36 = 0.0014 needs 7 runs a side.
	row := r.Levels[0].Rows[0]
	if row.Test == nil || float64(row.Test.P) != 1 || float64(row.Change) != 0 || row.NeedRuns != 7 {
		t.Errorf("TTFT p50 row %+v, want p = 1, change 0, need 7 runs", row)
	}
	// The gate: 6 primary statistics, 4 of which vary (goodput and the
	// error rate are equal in every run); each tested once across the 3
	// levels, p = 1.
	if r.Family.Tests != 4 || len(r.Findings) != coreHeadline() {
		t.Errorf("family %+v, %d findings; want 4 tests and one finding a statistic", r.Family, len(r.Findings))
	}
	for _, f := range r.Findings {
		if f.Verdict != VerdictNoChange || f.Levels != 3 || f.BaseRuns != 9 || (f.Test != nil && float64(f.Test.P) != 1) {
			t.Errorf("finding %s: %+v", f.Metric.Key, f)
		}
	}
	if want := "No change: none of the 6 primary statistics moved beyond its threshold with p < 0.05 (Holm over 4 tests); 2 without variation to test."; r.Verdict != want {
		t.Errorf("verdict %q\nwant    %q", r.Verdict, want)
	}
	errRow := r.Levels[0].Rows[13]
	if !errRow.NoVariation || errRow.Test != nil || errRow.Verdict != VerdictNoChange {
		t.Errorf("error-rate row %+v, want no variation and no test", errRow)
	}
	if g := r.Gate(GateOptions{FailOn: FailOnRegression}); g.Code != ExitPass || len(g.Lines) != 0 {
		t.Errorf("gate %+v, want exit 0", g)
	}
}

func TestDifferentGPUIsNotComparable(t *testing.T) {
	base := fakeSweep{levels: []int{4}, runs: 3}
	new := fakeSweep{levels: []int{4}, runs: 3, env: withEnv("gpu", "NVIDIA H100 80GB HBM3")}
	r := run(base, new, DefaultOptions())
	if r.Comparability.Verdict != NotComparable {
		t.Fatalf("verdict %q, want not comparable", r.Comparability.Verdict)
	}
	b := r.Comparability.Blockers()
	if len(b) != 1 || b[0].Key != "gpu" || b[0].Base != "NVIDIA L40S" || b[0].New != "NVIDIA H100 80GB HBM3" {
		t.Errorf("blockers %+v, want the gpu only", b)
	}
	g := r.Gate(GateOptions{FailOn: FailOnRegression})
	if g.Code != ExitIncomparable || len(g.Lines) != 1 || !strings.HasPrefix(g.Lines[0], `not comparable: gpu ("NVIDIA L40S" vs "NVIDIA H100 80GB HBM3")`) {
		t.Errorf("gate %+v, want exit 2 naming the gpu", g)
	}
	if g := r.Gate(GateOptions{FailOn: FailOnRegression, AllowIncomparable: true}); g.Code != ExitPass {
		t.Errorf("gate with --allow-incomparable %+v, want exit 0", g)
	}
	// Declaring the GPU change makes it the point of the comparison.
	opts := DefaultOptions()
	opts.Expect = []string{"gpu"}
	r = run(base, new, opts)
	if r.Comparability.Verdict != Comparable || r.Comparability.Checks[0].Status != StatusExpected {
		t.Errorf("with --expect gpu: verdict %q, gpu check %+v", r.Comparability.Verdict, r.Comparability.Checks[0])
	}
}

func TestExpectClearsACaveat(t *testing.T) {
	base := fakeSweep{levels: []int{4}, runs: 3}
	new := fakeSweep{levels: []int{4}, runs: 3, env: withEnv("engine_version", "0.16.1")}
	r := run(base, new, DefaultOptions())
	c := r.Comparability.Caveats()
	if r.Comparability.Verdict != ComparableCaveats || len(c) != 1 || c[0].Key != "engine.version" || c[0].Note != "patch version differs" {
		t.Fatalf("verdict %q caveats %+v, want one engine.version caveat (patch)", r.Comparability.Verdict, c)
	}
	opts := DefaultOptions()
	opts.Expect = []string{"engine.version"}
	r = run(base, new, opts)
	if r.Comparability.Verdict != Comparable || len(r.Comparability.Caveats()) != 0 {
		t.Errorf("with --expect engine.version: verdict %q caveats %+v", r.Comparability.Verdict, r.Comparability.Caveats())
	}
	// Expecting a change that did not happen is said, not silently ignored.
	opts.Expect = []string{"driver"}
	r = run(base, base, opts)
	for _, ch := range r.Comparability.Checks {
		if ch.Key == "driver" && ch.Status != StatusExpectedSame {
			t.Errorf("driver check %+v, want %q", ch, StatusExpectedSame)
		}
	}
}

func TestThreeVersusThreeSaysHowManyRunsItNeeds(t *testing.T) {
	base := fakeSweep{levels: []int{4}, runs: 3}
	new := fakeSweep{levels: []int{4}, runs: 3, value: scaled(1.3)}
	opts := DefaultOptions()
	opts.Correction = CorrectionNone
	r := run(base, new, opts)
	row := r.Levels[0].Rows[1] // TTFT p95
	if row.Metric.Key != "ttft.p95" || row.Verdict != VerdictUndecided || row.NeedRuns != 4 {
		t.Fatalf("row %+v, want ttft.p95 undecided needing 4 runs", row)
	}
	// The exact floor for 3 vs 3 is 2/20: the separated samples reach it.
	if float64(row.Test.P) != 0.1 || float64(row.Test.MinP) != 0.1 || row.RangesOverlap {
		t.Errorf("test %+v overlap %v, want p = min p = 0.1 and ranges apart", row.Test, row.RangesOverlap)
	}
	if !(math.Abs(float64(row.Change)-0.3) <= 1e-9) || row.Direction != "worse" {
		t.Errorf("change %v %s, want +30 %% worse", row.Change, row.Direction)
	}
	// The gate, by default (Holm over the 4 primary statistics that vary:
	// α/4 = 0.0125): one level of 3 vs 3 cannot go below 0.1, and 5 runs
	// a side (2/252 = 0.0079) are the fewest that can beat 0.0125. The
	// three latencies moved, output tokens/s did not.
	r = run(base, new, DefaultOptions())
	if r.Outcome != OutcomeUndecided || r.Family.Tests != 4 || !(math.Abs(r.Family.EffectiveAlpha-0.0125) <= 1e-15) {
		t.Errorf("outcome %q, family %+v; want undecided over 4 tests", r.Outcome, r.Family)
	}
	g := r.Gate(GateOptions{FailOn: FailOnRegression})
	if g.Code != ExitUndecided || len(g.Lines) != 3 {
		t.Fatalf("gate %+v, want exit 4 with one line per primary latency (3)", g)
	}
	if want := "undecided: TTFT p95 changed +30.0 % across 1 level with 3 runs a side: need ≥ 5 runs a side at these levels to test it (--no-test flags on the threshold alone)"; g.Lines[0] != want {
		t.Errorf("first line %q\nwant       %q", g.Lines[0], want)
	}
	if want := "Undecided: TTFT p95 +30.0 % across 1 level, but 3 runs a side cannot reach p < 0.0125 (Holm over 4 tests): need ≥ 5 runs a side at these levels (or more levels; --no-test flags on the threshold alone); 2 more primary statistics."; r.Verdict != want {
		t.Errorf("verdict %q\nwant    %q", r.Verdict, want)
	}
	// Holm over the 12 row tests: α/12 = 0.0042 needs 6 runs per side.
	if r.Tests.Count != 12 || r.Tests.RunsNeeded != 6 || r.Levels[0].Rows[1].NeedRuns != 6 {
		t.Errorf("Holm: %d tests, need %d (row %d), want 12 and 6", r.Tests.Count, r.Tests.RunsNeeded, r.Levels[0].Rows[1].NeedRuns)
	}
	// --no-test flags on the threshold alone, and says so.
	opts = DefaultOptions()
	opts.NoTest = true
	r = run(base, new, opts)
	g = r.Gate(GateOptions{FailOn: FailOnRegression})
	if g.Code != ExitFail || len(g.Lines) != 3 || !strings.HasSuffix(g.Lines[0], "no statistical test was made (--no-test), 3 runs a side") {
		t.Errorf("--no-test: gate %+v", g)
	}
	if want := "Slower: TTFT p95 +30.0 % across 1 level, beyond its threshold; no statistical test was made (--no-test), 3 runs a side; 2 more primary statistics."; r.Verdict != want {
		t.Errorf("--no-test verdict %q\nwant %q", r.Verdict, want)
	}
}

func TestEightVersusEightFlagsTheRegression(t *testing.T) {
	base := fakeSweep{levels: []int{1, 4, 16}, runs: 8}
	new := fakeSweep{levels: []int{1, 4, 16}, runs: 8, value: scaled(1.3)}
	for _, corr := range []string{CorrectionNone, CorrectionHolm} {
		opts := DefaultOptions()
		opts.Correction = corr
		r := run(base, new, opts)
		v := verdicts(r)
		// 10 latency rows per level are worse by 30 %; the rates do not move.
		if v[VerdictRegression] != 30 || r.Outcome != OutcomeRegression {
			t.Fatalf("%s: verdicts %v outcome %q, want 30 regressions", corr, v, r.Outcome)
		}
		row := r.Levels[0].Rows[0]
		wantP := 2.0 / 12870 // both extremes of C(16, 8)
		if !(math.Abs(float64(row.Test.P)-wantP) <= 1e-15) || row.Test.U != 64 {
			t.Errorf("%s: p %v U %v, want %v and U = 64", corr, row.Test.P, row.Test.U, wantP)
		}
		// The gate decides on the 3 primary latencies, each tested once
		// across the 3 levels: every level at its extreme, p = 2/12870³.
		g := r.Gate(GateOptions{FailOn: FailOnRegression})
		if g.Code != ExitFail || len(g.Lines) != 3 {
			t.Fatalf("%s: gate code %d with %d lines, want exit 1 with 3", corr, g.Code, len(g.Lines))
		}
		if !strings.HasPrefix(g.Lines[0], "regression: TTFT p95 +30.0 % across 3 levels, stratified exact p < 0.0001") || !strings.HasSuffix(g.Lines[0], ", 8 runs a side") {
			t.Errorf("%s: first line %q", corr, g.Lines[0])
		}
		f := r.Findings[1] // TTFT p95
		if wantP := 2 * math.Pow(1.0/12870, 3); f.Metric.Key != "ttft.p95" || math.Abs(float64(f.Test.P)-wantP)/wantP > 1e-9 {
			t.Errorf("%s: TTFT p95 finding p %v, want %v", corr, f.Test.P, wantP)
		}
	}
}

func TestThresholds(t *testing.T) {
	base := fakeSweep{levels: []int{4}, runs: 8}
	new := fakeSweep{levels: []int{4}, runs: 8, value: scaled(1.03)}
	r := run(base, new, DefaultOptions())
	if v := verdicts(r); v[VerdictRegression] != 0 {
		t.Errorf("a separated 3 %% change was flagged under a 5 %% threshold: %v", v)
	}
	opts := DefaultOptions()
	th, err := ParseThreshold("ttft=2%")
	if err != nil {
		t.Fatal(err)
	}
	exact, err := ParseThreshold("ttft.p99=10%")
	if err != nil {
		t.Fatal(err)
	}
	opts.Overrides = []Threshold{exact, th}
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	r = run(base, new, opts)
	var flagged []string
	for _, lr := range r.BySeverity(VerdictRegression) {
		flagged = append(flagged, lr.Metric.Key)
	}
	// ttft.p50 and p95 take the family's 2 %; p99 keeps its own 10 %.
	if strings.Join(flagged, ",") != "ttft.p50,ttft.p95" {
		t.Errorf("flagged %v, want ttft.p50 and ttft.p95", flagged)
	}
}

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in   string
		want Threshold
		err  string
	}{
		{in: "10%", want: Threshold{Value: 0.1}},
		{in: "ttft.p99=7.5%", want: Threshold{Key: "ttft.p99", Value: 0.075}},
		{in: "goodput=2pp", want: Threshold{Key: "goodput", Value: 2, Points: true}},
		{in: "5", err: `threshold "5": expected a percentage`},
		{in: "=5%", err: "empty metric"},
		{in: "ttft=-1%", err: `threshold "ttft=-1%": "-1" is not a number from 0 to 1000000`},
		{in: "NaN%", err: `threshold "NaN%": "NaN" is not a number from 0 to 1000000`},
		{in: "ttft=nan%", err: `threshold "ttft=nan%": "nan" is not a number from 0 to 1000000`},
		{in: "Inf%", err: `threshold "Inf%": "Inf" is not a number from 0 to 1000000`},
		{in: "goodput=+infpp", err: `threshold "goodput=+infpp": "+inf" is not a number from 0 to 1000000`},
		{in: "1e400%", err: `threshold "1e400%": "1e400" is not a number from 0 to 1000000`},
		{in: "1000001%", err: `threshold "1000001%": "1000001" is not a number from 0 to 1000000`},
		{in: "1000000%", want: Threshold{Value: 10000}},
	}
	for _, tt := range tests {
		got, err := ParseThreshold(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseThreshold(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	bad := []struct {
		t    Threshold
		want string
	}{
		{Threshold{Key: "goodput", Value: 0.02}, "changes in percentage points"},
		{Threshold{Key: "ttft", Value: 2, Points: true}, "changes relatively"},
		{Threshold{Key: "bogus", Value: 0.1}, `threshold for "bogus": not a headline metric`},
		{Threshold{Key: "ttft", Value: math.NaN()}, `threshold for "ttft": NaN: expected a number from 0 to 10000`},
		{Threshold{Key: "goodput", Value: math.Inf(1), Points: true}, `threshold for "goodput": +Inf: expected a number from 0 to 1e+06`},
	}
	for _, b := range bad {
		o := DefaultOptions()
		o.Overrides = []Threshold{b.t}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Validate(%+v) = %v, want %q", b.t, err, b.want)
		}
	}
	for _, tt := range []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"alpha NaN", func(o *Options) { o.Alpha = math.NaN() }, "alpha NaN: expected a number between 0 and 1"},
		{"alpha 1", func(o *Options) { o.Alpha = 1 }, "alpha 1: expected a number between 0 and 1"},
		{"attainment NaN", func(o *Options) { o.Attainment = math.NaN() }, "attainment NaN: expected a percentage in (0, 100]"},
		{"attainment Inf", func(o *Options) { o.Attainment = math.Inf(1) }, "attainment +Inf: expected a percentage in (0, 100]"},
		{"threshold NaN", func(o *Options) { o.Threshold = math.NaN() }, "threshold NaN: expected a number from 0 to 10000"},
		{"threshold negative", func(o *Options) { o.Threshold = -0.1 }, "threshold -0.1: expected a number from 0 to 10000"},
		{"goodput threshold Inf", func(o *Options) { o.GoodputThreshold = math.Inf(1) }, "goodput threshold +Inf: expected a number from 0 to 1e+06"},
		{"error-rate threshold NaN", func(o *Options) { o.ErrorRateThreshold = math.NaN() }, "error-rate threshold NaN: expected a number from 0 to 1e+06"},
	} {
		o := DefaultOptions()
		tt.set(&o)
		if err := o.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
	o := DefaultOptions()
	o.Expect = []string{"method.percentile"}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "cannot be declared") {
		t.Errorf("--expect method.percentile accepted: %v", err)
	}
	o.Expect = []string{"gpus"}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `--expect "gpus": unknown key (expected one of gpu, gpu.count`) {
		t.Errorf("--expect gpus: %v", err)
	}
}

// TestErrorRateRiseIsATest: one run full of errors is listed where it
// happened but does not fail the gate (the false alarms); a rise
// in every run of every level does, under every --fail-on.
func TestErrorRateRiseIsATest(t *testing.T) {
	base := fakeSweep{levels: []int{4}, runs: 3}
	new := fakeSweep{levels: []int{4}, runs: 3, value: func(c, r int, key string) float64 {
		if key == ErrorRateKey && r == 2 {
			return 20 // one run full of HTTP 500s
		}
		return baseValue(c, r, key)
	}}
	r := run(base, new, DefaultOptions())
	if len(r.ErrorRate) != 1 || r.ErrorRate[0].NewWorst != 20 || r.ErrorRate[0].NewMedian != 0 {
		t.Fatalf("error-rate rises %+v, want one with worst run 20 %%", r.ErrorRate)
	}
	for _, failOn := range []string{FailOnRegression, FailOnErrorRate, FailOnAny} {
		if g := r.Gate(GateOptions{FailOn: failOn}); g.Code != ExitPass {
			t.Errorf("--fail-on %s: one bad run failed the gate: %+v", failOn, g)
		}
	}
	// 2 % errors in every run of three levels, against none: +2 pp beyond
	// the 1 pp threshold, and p = 2·(1/20)³ with ties conditioned on.
	base = fakeSweep{levels: []int{1, 4, 16}, runs: 3}
	new = fakeSweep{levels: []int{1, 4, 16}, runs: 3, value: func(c, r int, key string) float64 {
		if key == ErrorRateKey {
			return 2
		}
		return baseValue(c, r, key)
	}}
	r = run(base, new, DefaultOptions())
	f := r.Findings[coreHeadline()-1]
	if f.Metric.Key != ErrorRateKey || f.Verdict != VerdictRegression || float64(f.Change) != 2 || !(math.Abs(float64(f.Test.P)-2.0/8000) <= 1e-15) {
		t.Fatalf("error-rate finding %+v test %+v", f, f.Test)
	}
	for _, failOn := range []string{FailOnRegression, FailOnErrorRate, FailOnAny} {
		g := r.Gate(GateOptions{FailOn: failOn})
		if g.Code != ExitFail || len(g.Lines) != 1 || !strings.HasPrefix(g.Lines[0], "regression: error rate +2.0 pp across 3 levels, stratified exact p = 0.0003") {
			t.Errorf("--fail-on %s: gate %+v", failOn, g)
		}
	}
	if want := "More errors: error rate +2.0 pp across 3 levels, stratified exact p = 0.0003 (Holm over 5 tests: 0.0013), 3 runs a side."; r.Verdict != want {
		t.Errorf("verdict %q\nwant    %q", r.Verdict, want)
	}
}

func TestFailOnAnyCountsImprovements(t *testing.T) {
	base := fakeSweep{levels: []int{4}, runs: 8}
	new := fakeSweep{levels: []int{4}, runs: 8, value: scaled(0.7)}
	r := run(base, new, DefaultOptions())
	if r.Outcome != OutcomeImprovement {
		t.Fatalf("outcome %q, want improvement", r.Outcome)
	}
	if g := r.Gate(GateOptions{FailOn: FailOnRegression}); g.Code != ExitPass {
		t.Errorf("improvements failed the default gate: %+v", g)
	}
	if g := r.Gate(GateOptions{FailOn: FailOnAny}); g.Code != ExitFail || len(g.Lines) != 3 {
		t.Errorf("--fail-on any: gate code %d lines %d, want 1 and 3 (the primary latencies)", g.Code, len(g.Lines))
	}
}

func TestLevelsOnOneSideAreListed(t *testing.T) {
	r := run(fakeSweep{levels: []int{1, 4}, runs: 3}, fakeSweep{levels: []int{4, 16, 64}, runs: 3}, DefaultOptions())
	if len(r.Levels) != 1 || r.Levels[0].Label != "concurrency 4" {
		t.Errorf("common levels %+v", r.Levels)
	}
	if len(r.OnlyBase) != 1 || r.OnlyBase[0].Label != "concurrency 1" || len(r.OnlyNew) != 2 || r.OnlyNew[1].Label != "concurrency 64" {
		t.Errorf("only base %+v, only new %+v", r.OnlyBase, r.OnlyNew)
	}
}

func TestWorkloadDriftIsACaveat(t *testing.T) {
	r := run(fakeSweep{levels: []int{4}, runs: 3}, fakeSweep{levels: []int{4}, runs: 3, prompt: 520}, DefaultOptions())
	var got Check
	for _, c := range r.Comparability.Checks {
		if c.Key == "workload.prompt_tokens" {
			got = c
		}
	}
	want := Check{Key: "workload.prompt_tokens", Class: ClassWorkload, What: "pooled prompt-length median per level",
		Base: "500", New: "520", Status: StatusBeyondBounds, Effect: EffectCaveat,
		Note: "largest difference at concurrency 4: +4.0 % (tolerance 2 %); beyond tolerance at 1 of 1 common level"}
	if got != want {
		t.Errorf("check\n got %+v\nwant %+v", got, want)
	}
	r = run(fakeSweep{levels: []int{4}, runs: 3}, fakeSweep{levels: []int{4}, runs: 3, prompt: 505}, DefaultOptions())
	if r.Comparability.Verdict != Comparable {
		t.Errorf("1 %% prompt drift: verdict %q, want comparable", r.Comparability.Verdict)
	}
}

func TestHighestLoadMeetingTheSLO(t *testing.T) {
	// Goodput falls with load: 99.75 at c1, 99 at c4, 96 at c16, 84 at c64.
	sw := fakeSweep{levels: []int{1, 4, 16, 64}, runs: 3, slo: slo, value: func(c, r int, key string) float64 {
		if key == GoodputKey && c == 16 {
			return []float64{0, 92, 89, 91}[r] // runs straddle 90
		}
		return baseValue(c, r, key)
	}}
	r := run(sw, sw, DefaultOptions())
	if r.SLO == nil {
		t.Fatal("no SLO headline with SLOs set")
	}
	c := r.SLO.Base
	if !c.Met || c.Level.Value != 16 || float64(c.Goodput.Median) != 91 || c.EveryRun.Value != 4 || c.SomeRun.Value != 16 {
		t.Errorf("capability %+v level %v every %v some %v", c, c.Level, c.EveryRun, c.SomeRun)
	}
	if run(fakeSweep{levels: []int{4}, runs: 3}, fakeSweep{levels: []int{4}, runs: 3}, DefaultOptions()).SLO != nil {
		t.Error("SLO headline without SLOs")
	}
}

func TestFingerprint(t *testing.T) {
	a := ProfileOf(fakeSweep{levels: []int{4}, runs: 3}.build())
	b := ProfileOf(fakeSweep{levels: []int{4, 8}, runs: 5, prompt: 700}.build())
	c := ProfileOf(fakeSweep{levels: []int{4}, runs: 3, env: withEnv("driver", "999")}.build())
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("fingerprint depends on the workload or the levels")
	}
	if a.Fingerprint() == c.Fingerprint() || len(a.Fingerprint()) != 16 {
		t.Errorf("fingerprints %s and %s", a.Fingerprint(), c.Fingerprint())
	}
}

func TestRunValues(t *testing.T) {
	s := fakeSweep{levels: []int{4}, runs: 2}.build()
	vs := RunValues(s)
	// 13 summary statistics and the error rate, for each of 2 runs.
	if len(vs) != 14*2 {
		t.Fatalf("%d values, want 28", len(vs))
	}
	first, last := vs[0], vs[len(vs)-1]
	if first.Key != "ttft.p50" || first.Run != "c4/run-1" || first.Repeat != 1 || first.Value != 140*1.006 {
		t.Errorf("first %+v", first)
	}
	if last.Key != ErrorRateKey || last.Run != "c4/run-2" || last.Value != 0 || last.Level.Key() != "concurrency=4" {
		t.Errorf("last %+v", last)
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"5%", "ttft.p99=10%", "goodput=2pp", "=", "x=1e400%", "-1%", "pp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var th Threshold
		var err error
		fuzzbudget.Check(t, "ParseThreshold", len(s), func() { th, err = ParseThreshold(s) })
		if err != nil {
			return
		}
		if !(th.Value >= 0) || math.IsInf(th.Value, 0) {
			t.Fatalf("ParseThreshold(%q) accepted value %v", s, th.Value)
		}
		// Its text reads back to the same key, kind and value (within a
		// unit in the last place), and is then a fixed point.
		text := th.String()
		back, err := ParseThreshold(text)
		if err != nil {
			t.Fatalf("ParseThreshold(%q) = %+v, whose text %q does not parse: %v", s, th, text, err)
		}
		if back.Key != th.Key || back.Points != th.Points || !(math.Abs(back.Value-th.Value) <= 4.5e-16*th.Value) || back.String() != text {
			t.Fatalf("ParseThreshold(%q) = %+v; its text %q reads back as %+v (%q)", s, th, text, back, back.String())
		}
	})
}

// TestHolmRejectsRowsBelowTheFirstStep checks a family with unequal run
// counts: a row whose floor is not below α/m is still flagged when Holm's
// later steps reject it, and is undecided only when they cannot.
//
// Concurrency 4 has 8 runs a side, its 10 latencies 1.3× higher (exact p
// 2/C(16, 8) = 2/12870 each) and its two rates equal on both sides (p = 1).
// At concurrency 16 only TTFT p95 varies, also 1.3× higher, with 5 runs a
// side (p = 2/C(10, 5) = 2/252); every other row there has no variation.
// So m = 13 and α/m = 0.05/13 = 0.00385, which 5 vs 5 (floor 0.00794)
// cannot beat: K = 6. Holm: the ten smallest p adjust to 13·2/12870 =
// 26/12870; the eleventh, 2/252, to (13 − 10)·2/252 = 6/252 = 0.0238 < α,
// so it is rejected. With 3 runs a side at concurrency 16 its p is 2/20
// and adjusts to 3·0.1 = 0.3: undecided, needing 6 runs per side.
func TestHolmRejectsRowsBelowTheFirstStep(t *testing.T) {
	value := func(k float64) func(c, r int, key string) float64 {
		return func(c, r int, key string) float64 {
			m, _ := MetricByKey(key)
			switch {
			case c == 16 && key != "ttft.p95":
				return baseValue(c, 0, key) // the same in every run, on both sides
			case m.Unit == "ms":
				return k * baseValue(c, r, key)
			}
			return baseValue(c, r, key)
		}
	}
	opts := DefaultOptions()
	opts.Correction = CorrectionHolm
	for _, tt := range []struct {
		runs16              int
		p16, adj16          float64
		verdict16           string
		need16, regressions int
	}{
		{runs16: 5, p16: 2.0 / 252, adj16: 6.0 / 252, verdict16: VerdictRegression, need16: 0, regressions: 11},
		{runs16: 3, p16: 2.0 / 20, adj16: 3 * 2.0 / 20, verdict16: VerdictUndecided, need16: 6, regressions: 10},
	} {
		base := fakeSweep{levels: []int{4, 16}, runs: 8, runsAt: map[int]int{16: tt.runs16}, value: value(1)}
		new := base
		new.value = value(1.3)
		r := run(base, new, opts)
		if r.Tests.Count != 13 || !(math.Abs(r.Tests.EffectiveAlpha-0.05/13) <= 1e-15) || r.Tests.RunsNeeded != 6 {
			t.Fatalf("%d runs at c16: tests %+v, want 13 tests, α/m = 0.05/13, K = 6", tt.runs16, r.Tests)
		}
		c4 := r.Levels[0].Rows[0] // TTFT p50 at concurrency 4
		if !(math.Abs(float64(c4.Test.P)-2.0/12870) <= 1e-15) || !(math.Abs(float64(c4.Test.PAdjusted)-26.0/12870) <= 1e-15) ||
			c4.Verdict != VerdictRegression || c4.NeedRuns != 0 || c4.Test.Alpha != 0.05 || c4.Test.NBase != 8 || c4.Test.NNew != 8 {
			t.Errorf("%d runs at c16: c4 TTFT p50 %+v test %+v", tt.runs16, c4, *c4.Test)
		}
		c16 := r.Levels[1].Rows[1] // TTFT p95 at concurrency 16
		if c16.Metric.Key != "ttft.p95" || !(math.Abs(float64(c16.Test.P)-tt.p16) <= 1e-15) ||
			!(math.Abs(float64(c16.Test.PAdjusted)-tt.adj16) <= 1e-12) || c16.Verdict != tt.verdict16 || c16.NeedRuns != tt.need16 ||
			c16.Test.NBase != tt.runs16 || c16.Test.NNew != tt.runs16 {
			t.Errorf("%d runs at c16: c16 TTFT p95 verdict %q need %d, test %+v; want %q, need %d, p %v, adjusted %v",
				tt.runs16, c16.Verdict, c16.NeedRuns, *c16.Test, tt.verdict16, tt.need16, tt.p16, tt.adj16)
		}
		if v := verdicts(r); v[VerdictRegression] != tt.regressions {
			t.Errorf("%d runs at c16: verdicts %v, want %d regressions", tt.runs16, v, tt.regressions)
		}
		if g := r.Gate(GateOptions{FailOn: FailOnRegression}); g.Code != ExitFail || len(g.Lines) != 3 {
			t.Errorf("%d runs at c16: gate %d with %d lines, want 1 with 3 (the primary latencies)", tt.runs16, g.Code, len(g.Lines))
		}
	}
}

func TestWorkloadCheckAtZero(t *testing.T) {
	l := LevelID{Mode: ModeConcurrency, Value: 4}
	prof := func(output float64) Profile {
		return Profile{Levels: []LevelWorkload{{Level: l, PromptMedian: 500, OutputMedian: analyze.Num(output), EarlyStopPercent: 0}}}
	}
	rule, _ := RuleByKey("workload.output_tokens")
	for _, tt := range []struct {
		base, new float64
		want      Check
	}{
		// Both medians 0 (every request failed or returned nothing): no drift.
		{0, 0, Check{Key: rule.Key, Class: ClassWorkload, What: rule.What, Base: "0", New: "0", Status: StatusWithinBounds, Effect: EffectNone,
			Note: "largest difference at concurrency 4: +0.0 % (tolerance 5 %)"}},
		{0, 12, Check{Key: rule.Key, Class: ClassWorkload, What: rule.What, Base: "0", New: "12", Status: StatusBeyondBounds, Effect: EffectCaveat,
			Note: "largest difference at concurrency 4: from 0 (tolerance 5 %); beyond tolerance at 1 of 1 common level"}},
	} {
		if got := checkWorkload(rule, prof(tt.base), prof(tt.new)); got != tt.want {
			t.Errorf("output medians %v → %v:\n got %+v\nwant %+v", tt.base, tt.new, got, tt.want)
		}
	}
}

// TestNoCommonLevelComparesNothing: a gate must not pass a comparison that
// compared nothing.
func TestNoCommonLevelComparesNothing(t *testing.T) {
	r := run(fakeSweep{levels: []int{1, 4}, runs: 3}, fakeSweep{levels: []int{16}, runs: 3}, DefaultOptions())
	if r.Outcome != OutcomeNothingCompared || len(r.Levels) != 0 || r.Tests.Count != 0 || len(r.OnlyBase) != 2 || len(r.OnlyNew) != 1 {
		t.Fatalf("outcome %q, %d common levels, %d tests, only base %d, only new %d", r.Outcome, len(r.Levels), r.Tests.Count, len(r.OnlyBase), len(r.OnlyNew))
	}
	g := r.Gate(GateOptions{FailOn: FailOnRegression})
	want := "nothing compared: no level is present on both sides (base concurrency 1, concurrency 4, new concurrency 16) (--allow-incomparable passes anyway)"
	if g.Code != ExitIncomparable || len(g.Lines) != 1 || g.Lines[0] != want {
		t.Errorf("gate %+v, want exit 2 with %q", g, want)
	}
	if g := r.Gate(GateOptions{FailOn: FailOnRegression, AllowIncomparable: true}); g.Code != ExitPass || len(g.Lines) != 0 {
		t.Errorf("--allow-incomparable: gate %+v, want exit 0", g)
	}
	// Not comparable still wins and says why.
	other := fakeSweep{levels: []int{16}, runs: 3, env: withEnv("gpu", "NVIDIA H100 80GB HBM3")}
	r = run(fakeSweep{levels: []int{1, 4}, runs: 3}, other, DefaultOptions())
	if g := r.Gate(GateOptions{FailOn: FailOnRegression}); g.Code != ExitIncomparable || !strings.HasPrefix(g.Lines[0], "not comparable: gpu") {
		t.Errorf("not comparable and nothing compared: gate %+v", g)
	}
}

// Energy per output token is a primary statistic when both sides have GPU
// telemetry: 30 % more J/token at every level, 5 runs a side, is a
// flagged regression; when one side has no GPU telemetry it is not
// available and not in the family.
func TestEnergyPerTokenGates(t *testing.T) {
	base := fakeSweep{levels: []int{1, 4, 16}, runs: 5, energy: true}
	worse := base
	worse.value = func(c, r int, key string) float64 {
		if key == EnergyKey {
			return 1.3 * baseValue(c, r, key)
		}
		return baseValue(c, r, key)
	}
	r := run(base, worse, DefaultOptions())
	var f *Finding
	for i := range r.Findings {
		if r.Findings[i].Metric.Key == EnergyKey {
			f = &r.Findings[i]
		}
	}
	if f == nil || !f.Primary || f.Verdict != VerdictRegression || f.Direction != "worse" || !(math.Abs(float64(f.Change)-0.3) <= 1e-12) {
		t.Fatalf("energy finding %+v", f)
	}
	if r.Outcome != OutcomeRegression || !strings.Contains(strings.Join(r.Family.Statistics, " "), EnergyKey) {
		t.Errorf("outcome %q, family %v", r.Outcome, r.Family.Statistics)
	}
	if len(r.Levels[0].Rows) != len(Headline) {
		t.Errorf("%d rows, want %d (the energy statistics included)", len(r.Levels[0].Rows), len(Headline))
	}

	noGPU := base
	noGPU.energy = false
	r = run(noGPU, worse, DefaultOptions())
	for _, f := range r.Findings {
		if f.Metric.Key == EnergyKey && (f.Verdict != VerdictNotAvailable || f.Test != nil) {
			t.Errorf("one-sided energy finding %+v", f)
		}
	}
	r = run(noGPU, noGPU, DefaultOptions())
	if len(r.Levels[0].Rows) != coreHeadline() || strings.Contains(strings.Join(r.Family.Statistics, " "), EnergyKey) {
		t.Errorf("without GPU telemetry: %d rows, family %v", len(r.Levels[0].Rows), r.Family.Statistics)
	}
}
