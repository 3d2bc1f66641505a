package compare

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// compareNamed compares two summaries named a.json and b.json.
func compareNamed(base, new *analyze.Summary, opts Options) (*Result, error) {
	return Compare(Input{Name: "a.json", Summary: base}, Input{Name: "b.json", Summary: new}, opts)
}

func mustCompare(t *testing.T, base, new *analyze.Summary, opts Options) *Result {
	t.Helper()
	r, err := compareNamed(base, new, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// withEnvByRun sets an environment key per series: the first run's value
// in the canonical fields and, when the values differ, a diff naming each
// value's runs, as analyze writes them.
func withEnvByRun(s *analyze.Summary, key string, bySeries map[string]string) *analyze.Summary {
	groups := map[string][]string{}
	var order []string
	for _, r := range s.Runs {
		v := bySeries[r.Series.String()]
		if _, ok := groups[v]; !ok {
			order = append(order, v)
		}
		groups[v] = append(groups[v], r.Dir)
	}
	s.Environment.Canonical = append(s.Environment.Canonical, analyze.EnvField{Key: key, Value: bySeries[s.Runs[0].Series.String()]})
	if len(order) > 1 {
		d := analyze.EnvDiff{Key: key}
		for _, v := range order {
			d.Values = append(d.Values, analyze.EnvDiffValue{Value: v, Runs: groups[v]})
		}
		s.Environment.Diffs = append(s.Environment.Diffs, d)
	}
	return s
}

func checkOf(c Comparability, key string) Check {
	for _, ch := range c.Checks {
		if ch.Key == key {
			return ch
		}
	}
	return Check{}
}

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "tp=2", want: "tp=2"},
		{in: " tp = 2 , engine=vllm", want: "engine=vllm,tp=2"},
		{in: "workload=random-1024-1024", want: "workload=random-1024-1024"},
		{in: "", err: `series selector "": expected KEY=VALUE[,KEY=VALUE], got ""`},
		{in: "tp", err: `series selector "tp": expected KEY=VALUE[,KEY=VALUE], got "tp"`},
		{in: "=2", err: `series selector "=2": expected KEY=VALUE[,KEY=VALUE], got "=2"`},
		{in: "tp=2,", err: `series selector "tp=2,": expected KEY=VALUE[,KEY=VALUE], got ""`},
		{in: "tp=1,tp=2", err: `series selector "tp=1,tp=2": label tp given twice ("1" and "2")`},
		{in: "tp=", err: `series selector "tp=": label tp: expected a value, got an empty one`},
		{in: "1tp=2", err: `series selector "1tp=2": label name "1tp": expected a letter or _ then letters, digits, _, - or ., at most 64 bytes`},
	}
	for _, tt := range tests {
		sel, err := ParseSelector(tt.in)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("ParseSelector(%q) error %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || sel.String() != tt.want):
			t.Errorf("ParseSelector(%q) = %q, %v; want %q", tt.in, sel.String(), err, tt.want)
		}
	}
	sel, _ := ParseSelector("tp=2,engine=vllm")
	for series, want := range map[string]bool{
		"tp=2,engine=vllm": true, "tp=2,engine=vllm,max_num_seqs=256": true,
		"tp=2": false, "tp=2.0,engine=vllm": false, "": false,
	} {
		if got := sel.Matches(mustSeries(series)); got != want {
			t.Errorf("%s matches {%s}: %v, want %v", sel, series, got, want)
		}
	}
	if !(Selector{}).Matches(mustSeries("tp=2")) || !(Selector{}).Matches(mustSeries("")) {
		t.Error("the zero selector does not match every series")
	}
}

// TestSeriesMatchedByLabels: tp=2 and tp=4 are on both sides and compared
// level by level; tp=1 (base) and tp=8 (new) are listed with the levels
// and runs left out, and none of their levels is listed as a level of one
// side.
func TestSeriesMatchedByLabels(t *testing.T) {
	one := func(series string, levels ...int) fakeSweep {
		return fakeSweep{levels: levels, runs: 3, slo: slo, series: series}
	}
	base := join(one("tp=1", 1, 4), one("tp=2", 1, 4), one("tp=4", 1, 4))
	new := join(one("tp=2", 1, 4), one("tp=4", 1, 4), one("tp=8", 1, 4, 16))
	r := mustCompare(t, base, new, DefaultOptions())
	want := &SeriesResult{
		Compared: []Pair{{mustSeries("tp=2"), mustSeries("tp=2")}, {mustSeries("tp=4"), mustSeries("tp=4")}},
		OnlyBase: []SeriesCount{{Series: mustSeries("tp=1"), Levels: 2, Runs: 6}},
		OnlyNew:  []SeriesCount{{Series: mustSeries("tp=8"), Levels: 3, Runs: 9}},
	}
	if !reflect.DeepEqual(r.Series, want) {
		t.Errorf("series %+v, want %+v", r.Series, want)
	}
	var labels []string
	for _, l := range r.Levels {
		labels = append(labels, l.Label)
	}
	if want := []string{"concurrency 1 (tp=2)", "concurrency 4 (tp=2)", "concurrency 1 (tp=4)", "concurrency 4 (tp=4)"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("levels %q, want %q", labels, want)
	}
	if len(r.OnlyBase)+len(r.OnlyNew) != 0 {
		t.Errorf("levels of one side %+v %+v, want none (their series are listed)", r.OnlyBase, r.OnlyNew)
	}
	if (r.Base != Side{Name: "a.json", Title: "fake", Series: 3, Levels: 6, Runs: 18}) || (r.New != Side{Name: "b.json", Title: "fake", Series: 3, Levels: 7, Runs: 21}) {
		t.Errorf("sides %+v %+v", r.Base, r.New)
	}
	// 12 varying statistics at 4 levels; goodput and the error rate do
	// not vary.
	if r.Outcome != OutcomeNoChange || r.Tests.Count != 48 || r.Comparability.Verdict != Comparable {
		t.Errorf("outcome %q, %d tests, %q; want no change, 48, comparable", r.Outcome, r.Tests.Count, r.Comparability.Verdict)
	}
	// The SLO headline per series: goodput 100 − c/4 meets 90 % at c4.
	if r.SLO != nil || len(r.SLOBySeries) != 2 {
		t.Fatalf("SLO %+v by series %d, want one per series", r.SLO, len(r.SLOBySeries))
	}
	for i, s := range []string{"tp=2", "tp=4"} {
		h := r.SLOBySeries[i]
		if h.Series != mustSeries(s) || h.Base.Level == nil || h.Base.Level.Key() != s+" | concurrency=4" || h.New.Levels != 2 {
			t.Errorf("SLO of %s: %+v", s, h)
		}
	}
	if g := r.Gate(GateOptions{FailOn: FailOnRegression}); g.Code != ExitPass {
		t.Errorf("gate %+v, want exit 0", g)
	}
}

func TestSeriesNothingInCommon(t *testing.T) {
	tests := []struct {
		base, new string
		want      string
	}{
		{"tp=1", "tp=2", "nothing compared: no series is present on both sides (base {tp=1}, new {tp=2}; --base-series and --new-series compare two series) (--allow-incomparable passes anyway)"},
		{"", "tp=2", "nothing compared: no series is present on both sides (base {} (unlabelled), new {tp=2}; --base-series and --new-series compare two series) (--allow-incomparable passes anyway)"},
	}
	for _, tt := range tests {
		r := mustCompare(t, fakeSweep{levels: []int{4}, runs: 3, series: tt.base}.build(), fakeSweep{levels: []int{4}, runs: 3, series: tt.new}.build(), DefaultOptions())
		g := r.Gate(GateOptions{FailOn: FailOnRegression})
		if r.Outcome != OutcomeNothingCompared || g.Code != ExitIncomparable || len(g.Lines) != 1 || g.Lines[0] != tt.want {
			t.Errorf("%q vs %q: outcome %q, gate %+v; want nothing compared, exit 2, %q", tt.base, tt.new, r.Outcome, g, tt.want)
		}
		if len(r.Series.OnlyBase) != 1 || r.Series.OnlyBase[0] != (SeriesCount{Series: mustSeries(tt.base), Levels: 1, Runs: 3}) {
			t.Errorf("only base %+v", r.Series.OnlyBase)
		}
	}
}

func TestSeriesSelector(t *testing.T) {
	one := func(series string) fakeSweep { return fakeSweep{levels: []int{1, 4}, runs: 3, series: series} }
	base := join(one("tp=1"), one("tp=2"))
	new := join(one("tp=2"), one("tp=4"))
	opts := DefaultOptions()
	opts.Series, _ = ParseSelector("tp=2")
	r := mustCompare(t, base, new, opts)
	want := &SeriesResult{Selector: opts.Series, Compared: []Pair{{mustSeries("tp=2"), mustSeries("tp=2")}},
		OnlyBase: []SeriesCount{}, OnlyNew: []SeriesCount{}}
	if !reflect.DeepEqual(r.Series, want) {
		t.Errorf("series %+v, want %+v", r.Series, want)
	}
	// One series compared: levels are named by their load alone.
	if len(r.Levels) != 2 || r.Levels[0].Label != "concurrency 1" || r.Levels[0].Level.Key() != "tp=2 | concurrency=1" {
		t.Errorf("levels %+v", r.Levels)
	}
	for _, tt := range []struct{ sel, err string }{
		{"tpp=2", "--series tpp=2: no series of base a.json has a label tpp; its series: {tp=1}, {tp=2}"},
		{"tp=4", "--series tp=4: no series of base a.json matches; its series: {tp=1}, {tp=2}"},
		{"tp=1", "--series tp=1: no series of new b.json matches; its series: {tp=2}, {tp=4}"},
	} {
		opts.Series, _ = ParseSelector(tt.sel)
		_, err := compareNamed(base, new, opts)
		var se *SeriesError
		if !errors.As(err, &se) || err.Error() != tt.err {
			t.Errorf("--series %s: error %v, want a SeriesError %q", tt.sel, err, tt.err)
		}
	}
}

// TestSeriesPair compares max_num_seqs=128 against max_num_seqs=256 of
// one sweep: levels meet by load, and the environment's max_num_seqs,
// which differs between the two, is expected because the label differs.
func TestSeriesPair(t *testing.T) {
	mns := map[string]string{"max_num_seqs=128": "128", "max_num_seqs=256": "256"}
	sweep := func() *analyze.Summary {
		return withEnvByRun(join(fakeSweep{levels: []int{1, 4}, runs: 3, series: "max_num_seqs=128"},
			fakeSweep{levels: []int{1, 4}, runs: 3, series: "max_num_seqs=256", value: scaled(0.7)}), "max_num_seqs", mns)
	}
	opts := DefaultOptions()
	b, _ := ParseSelector("max_num_seqs=128")
	n, _ := ParseSelector("max_num_seqs=256")
	opts.Pair = &SeriesPair{Base: b, New: n}
	r := mustCompare(t, sweep(), sweep(), opts)
	if !r.Series.Paired || !reflect.DeepEqual(r.Series.Compared, []Pair{{mustSeries("max_num_seqs=128"), mustSeries("max_num_seqs=256")}}) {
		t.Errorf("series %+v", r.Series)
	}
	if len(r.Levels) != 2 || r.Levels[1].Label != "concurrency 4" || r.Levels[1].Level.Key() != "concurrency=4" || r.Levels[1].BaseRuns != 3 {
		t.Fatalf("levels %+v, want concurrency 1 and 4 matched by load", r.Levels)
	}
	// TTFT p50 at c4: runs (100 + 40)·{1.006, 1.02, 0.996} = 140.84,
	// 142.8, 139.44, median 140.84; × 0.7 on the new side: 98.588, −30 %.
	// Holm over the 24 row tests: α/24 = 0.0021 needs 7 runs a side.
	row := r.Levels[1].Rows[0]
	near := func(a analyze.Num, b float64) bool { return math.Abs(float64(a)-b) < 1e-9 }
	if row.Metric.Key != "ttft.p50" || !near(row.Base.Median, 140.84) || !near(row.New.Median, 98.588) || !near(row.Change, -0.3) ||
		row.Direction != "better" || row.Verdict != VerdictUndecided || row.NeedRuns != 7 {
		t.Errorf("TTFT p50 at c4 %+v", row)
	}
	c := r.Comparability
	wantLabels := []LabelChange{{Label: "max_num_seqs", Base: "128", New: "256", Rules: []string{"max_num_seqs"}}}
	if !reflect.DeepEqual(c.Labels, wantLabels) {
		t.Errorf("labels %+v, want %+v", c.Labels, wantLabels)
	}
	want := Check{Key: "max_num_seqs", Class: ClassSoft, What: "engine max_num_seqs", Base: "128", New: "256",
		Status: StatusExpected, Effect: EffectNone, Note: "the series label max_num_seqs differs"}
	if got := checkOf(c, "max_num_seqs"); got != want {
		t.Errorf("max_num_seqs check %+v, want %+v", got, want)
	}
	// Each series' own runs share their environment.
	if got := checkOf(c, "environment.within"); got.Status != StatusSame {
		t.Errorf("environment.within %+v, want same", got)
	}
	if c.Verdict != Comparable {
		t.Errorf("verdict %q, want comparable", c.Verdict)
	}

	// A label that implies no rule expects nothing: the same environment
	// difference is a caveat.
	other := map[string]string{"variant=a": "128", "variant=b": "256"}
	v := withEnvByRun(join(fakeSweep{levels: []int{4}, runs: 3, series: "variant=a"}, fakeSweep{levels: []int{4}, runs: 3, series: "variant=b"}), "max_num_seqs", other)
	opts.Pair.Base, _ = ParseSelector("variant=a")
	opts.Pair.New, _ = ParseSelector("variant=b")
	r = mustCompare(t, v, v, opts)
	if got := checkOf(r.Comparability, "max_num_seqs"); got.Status != StatusDiffers || got.Effect != EffectCaveat || r.Comparability.Verdict != ComparableCaveats {
		t.Errorf("variant a vs b: max_num_seqs %+v, verdict %q; want a caveat", got, r.Comparability.Verdict)
	}
	if want := []LabelChange{{Label: "variant", Base: "a", New: "b", Rules: []string{}}}; !reflect.DeepEqual(r.Comparability.Labels, want) {
		t.Errorf("labels %+v, want %+v", r.Comparability.Labels, want)
	}

	// tp=1 against tp=2: the GPU count (a hard rule) is expected to differ.
	gpus := map[string]string{"tp=1": "1", "tp=2": "2"}
	tp := join(fakeSweep{levels: []int{4}, runs: 3, series: "tp=1"}, fakeSweep{levels: []int{4}, runs: 3, series: "tp=2"})
	for i := range tp.Environment.Canonical {
		if tp.Environment.Canonical[i].Key == "gpu_count" {
			tp.Environment.Canonical = append(tp.Environment.Canonical[:i], tp.Environment.Canonical[i+1:]...)
			break
		}
	}
	tp = withEnvByRun(tp, "gpu_count", gpus)
	opts.Pair.Base, _ = ParseSelector("tp=1")
	opts.Pair.New, _ = ParseSelector("tp=2")
	r = mustCompare(t, tp, tp, opts)
	want = Check{Key: "gpu.count", Class: ClassHard, What: "number of GPUs", Base: "1", New: "2",
		Status: StatusExpected, Effect: EffectNone, Note: "the series label tp differs"}
	if got := checkOf(r.Comparability, "gpu.count"); got != want || r.Comparability.Verdict != Comparable {
		t.Errorf("tp=1 vs tp=2: gpu.count %+v, verdict %q; want %+v, comparable", got, r.Comparability.Verdict, want)
	}
	// A label saying tp differs, an environment saying the GPU count does
	// not: said.
	same := join(fakeSweep{levels: []int{4}, runs: 3, series: "tp=1"}, fakeSweep{levels: []int{4}, runs: 3, series: "tp=2"})
	r = mustCompare(t, same, same, opts)
	want = Check{Key: "gpu.count", Class: ClassHard, What: "number of GPUs", Base: "1", New: "1",
		Status: StatusExpectedSame, Effect: EffectNone, Note: "the series label tp differs, the environment does not"}
	if got := checkOf(r.Comparability, "gpu.count"); got != want {
		t.Errorf("tp=1 vs tp=2 on one GPU count: gpu.count %+v, want %+v", got, want)
	}
	// The same summaries compared series by series: each series' GPU
	// count is the same on both sides.
	r = mustCompare(t, tp, tp, DefaultOptions())
	if got := checkOf(r.Comparability, "gpu.count"); got.Status != StatusSame || r.Comparability.Verdict != Comparable {
		t.Errorf("matched by labels: gpu.count %+v, verdict %q", got, r.Comparability.Verdict)
	}
}

func TestSeriesPairErrors(t *testing.T) {
	two := join(fakeSweep{levels: []int{4}, runs: 3, series: "max_num_seqs=128"}, fakeSweep{levels: []int{4}, runs: 3, series: "max_num_seqs=256"})
	engines := join(fakeSweep{levels: []int{4}, runs: 3, series: "engine=vllm,tp=1"}, fakeSweep{levels: []int{4}, runs: 3, series: "engine=vllm,tp=2"})
	one := fakeSweep{levels: []int{4}, runs: 3}.build()
	sel := func(s string) Selector {
		if s == "" {
			return Selector{}
		}
		x, err := ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	tests := []struct {
		base, new *analyze.Summary
		b, n      string
		err       string
	}{
		{two, two, "max_num_seqs=512", "max_num_seqs=256", "--base-series max_num_seqs=512: no series of base a.json matches; its series: {max_num_seqs=128}, {max_num_seqs=256}"},
		{two, two, "max_num_seqs=128", "tp=2", "--new-series tp=2: no series of new b.json has a label tp; its series: {max_num_seqs=128}, {max_num_seqs=256}"},
		{two, two, "", "max_num_seqs=256", `--base-series "": base a.json has 2 series, and an empty selector picks a side's only one; pick one: {max_num_seqs=128}, {max_num_seqs=256}`},
		{engines, two, "engine=vllm", "max_num_seqs=256", "--base-series engine=vllm: 2 series of base a.json match; add labels to pick one: {engine=vllm, tp=1}, {engine=vllm, tp=2}"},
		// An empty selector picks the only series: an unlabelled sweep
		// against one series of another.
		{one, two, "", "max_num_seqs=256", ""},
	}
	for _, tt := range tests {
		opts := DefaultOptions()
		opts.Pair = &SeriesPair{Base: sel(tt.b), New: sel(tt.n)}
		r, err := compareNamed(tt.base, tt.new, opts)
		switch {
		case tt.err == "" && (err != nil || len(r.Levels) != 1):
			t.Errorf("--base-series %q --new-series %q: %v, want one level compared", tt.b, tt.n, err)
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("--base-series %q --new-series %q: error %v, want %q", tt.b, tt.n, err, tt.err)
		}
	}
	opts := DefaultOptions()
	opts.Series = sel("tp=2")
	opts.Pair = &SeriesPair{}
	if err := opts.Validate(); err == nil {
		t.Error("--series with --base-series/--new-series validates")
	}
}

func TestRulesForLabel(t *testing.T) {
	workload := []string{"workload.prompt_tokens", "workload.output_tokens", "workload.early_stop"}
	tests := []struct {
		label string
		want  []string
	}{
		{"max_num_seqs", []string{"max_num_seqs"}},
		{"tp", []string{"gpu.count", "parallel.tp"}},
		{"tensor_parallel_size", []string{"gpu.count", "parallel.tp"}},
		{"gpu_count", []string{"gpu.count"}},
		{"engine", []string{"engine", "engine.version"}},
		{"engine_version", []string{"engine.version"}},
		{"kv_cache_dtype", []string{"kv_cache.dtype"}},
		{"model", append([]string{"model"}, workload...)},
		{"workload", workload},
		{"random_input_len", workload},
		{"Dataset", workload},
		// Settings that change what the numbers mean are never expected.
		{"max_tokens", nil},
		{"variant", nil},
	}
	for _, tt := range tests {
		if got := RulesForLabel(tt.label); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("RulesForLabel(%q) = %q, want %q", tt.label, got, tt.want)
		}
	}
}

// TestSeriesEnvironmentPerSeries: the series of a sweep run with
// different max_num_seqs; matched by their labels, each is checked
// against its namesake, so the difference between series is none.
func TestSeriesEnvironmentPerSeries(t *testing.T) {
	sweep := func(tp2 string) *analyze.Summary {
		return withEnvByRun(join(fakeSweep{levels: []int{4}, runs: 3, series: "tp=1"}, fakeSweep{levels: []int{4}, runs: 3, series: "tp=2"}),
			"max_num_seqs", map[string]string{"tp=1": "128", "tp=2": tp2})
	}
	r := mustCompare(t, sweep("256"), sweep("256"), DefaultOptions())
	if r.Comparability.Verdict != Comparable || checkOf(r.Comparability, "environment.within").Status != StatusSame {
		t.Errorf("verdict %q, environment.within %+v; want comparable, same", r.Comparability.Verdict, checkOf(r.Comparability, "environment.within"))
	}
	// The whole sweeps' profiles would see max_num_seqs vary within each.
	whole := CheckComparability(ProfileOf(sweep("256")), ProfileOf(sweep("256")), nil)
	if got := checkOf(whole, "environment.within"); got.Status != StatusPresent || got.Base != "max_num_seqs" {
		t.Errorf("whole-sweep environment.within %+v, want max_num_seqs present", got)
	}
	// The new tp=2 ran with 512: a caveat, naming its series.
	r = mustCompare(t, sweep("256"), sweep("512"), DefaultOptions())
	want := Check{Key: "max_num_seqs", Class: ClassSoft, What: "engine max_num_seqs", Base: "256", New: "512",
		Status: StatusDiffers, Effect: EffectCaveat, Note: "at series {tp=2}"}
	if got := checkOf(r.Comparability, "max_num_seqs"); got != want || r.Comparability.Verdict != ComparableCaveats {
		t.Errorf("max_num_seqs %+v, verdict %q; want %+v", got, r.Comparability.Verdict, want)
	}
}

// TestSeriesCheckCountsTheOthers: a check differing at several series
// names the first of the worst and counts the others with the same
// status and effect: of four series, tp=2, tp=3 and tp=4 ran with 512 on
// the new side (differs, a caveat), tp=1 with 128 as before (same, no
// effect): "at series {tp=2} and 2 more".
func TestSeriesCheckCountsTheOthers(t *testing.T) {
	sweep := func(v1, v2 string) *analyze.Summary {
		var fs []fakeSweep
		for _, tp := range []string{"tp=1", "tp=2", "tp=3", "tp=4"} {
			fs = append(fs, fakeSweep{levels: []int{4}, runs: 3, series: tp})
		}
		return withEnvByRun(join(fs...), "max_num_seqs", map[string]string{"tp=1": v1, "tp=2": v2, "tp=3": v2, "tp=4": v2})
	}
	r := mustCompare(t, sweep("128", "128"), sweep("128", "512"), DefaultOptions())
	want := Check{Key: "max_num_seqs", Class: ClassSoft, What: "engine max_num_seqs", Base: "128", New: "512",
		Status: StatusDiffers, Effect: EffectCaveat, Note: "at series {tp=2} and 2 more"}
	if got := checkOf(r.Comparability, "max_num_seqs"); got != want {
		t.Errorf("max_num_seqs %+v; want %+v", got, want)
	}
}

func TestNarrowEnv(t *testing.T) {
	e := analyze.EnvironmentSummary{
		Canonical: []analyze.EnvField{{Key: "gpu", Value: "L40S"}, {Key: "engine_version", Value: "0.16.0"}, {Key: "max_num_seqs", Value: "128"}},
		Diffs: []analyze.EnvDiff{
			{Key: "max_num_seqs", Values: []analyze.EnvDiffValue{{Value: "128", Runs: []string{"a/r1", "a/r2"}}, {Value: "256", Runs: []string{"b/r1", "b/r2"}}}},
			{Key: "engine_version", Values: []analyze.EnvDiffValue{{Value: "0.16.0", Runs: []string{"a/r1", "a/r2", "b/r1"}}, {Value: "0.16.1", Runs: []string{"b/r2"}}}},
			{Key: "driver", Values: []analyze.EnvDiffValue{{Value: "", Runs: []string{"a/r1", "a/r2"}}, {Value: "580", Runs: []string{"b/r1", "b/r2"}}}},
		},
	}
	runs := []analyze.RunSummary{
		{Dir: "a/r1", LevelKey: analyze.LevelKey{Series: mustSeries("s=a")}},
		{Dir: "a/r2", LevelKey: analyze.LevelKey{Series: mustSeries("s=a")}},
		{Dir: "b/r1", LevelKey: analyze.LevelKey{Series: mustSeries("s=b")}, Failed: true},
		{Dir: "b/r2", LevelKey: analyze.LevelKey{Series: mustSeries("s=b")}},
	}
	keep := func(name string) func(ingest.Series) bool {
		return func(s ingest.Series) bool { return s == mustSeries(name) }
	}
	// Series b: its first run that did not fail is b/r2.
	got := narrowEnv(e, runs, keep("s=b"))
	want := analyze.EnvironmentSummary{
		Canonical: []analyze.EnvField{{Key: "gpu", Value: "L40S"}, {Key: "driver", Value: "580"}, {Key: "engine_version", Value: "0.16.1"}, {Key: "max_num_seqs", Value: "256"}},
		Diffs:     []analyze.EnvDiff{{Key: "engine_version", Values: []analyze.EnvDiffValue{{Value: "0.16.0", Runs: []string{"b/r1"}}, {Value: "0.16.1", Runs: []string{"b/r2"}}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("series b: %+v\nwant %+v", got, want)
	}
	// Series a: no driver recorded, nothing differs between its runs.
	got = narrowEnv(e, runs, keep("s=a"))
	want = analyze.EnvironmentSummary{
		Canonical: []analyze.EnvField{{Key: "gpu", Value: "L40S"}, {Key: "engine_version", Value: "0.16.0"}, {Key: "max_num_seqs", Value: "128"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("series a: %+v\nwant %+v", got, want)
	}
}
