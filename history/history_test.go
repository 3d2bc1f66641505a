package history

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
)

func profile(gpu, driver string) compare.Profile {
	return compare.Profile{
		Environment: []analyze.EnvField{{Key: "gpu", Value: gpu}, {Key: "driver", Value: driver}, {Key: "model", Value: "m"}},
		Percentile:  "nearest-rank", MAD: "raw", Warmup: "stabilisation", WarmupRule: "rule",
	}
}

var level4 = compare.LevelID{Mode: compare.ModeConcurrency, Value: 4}

// entries builds n daily entries with runs runs each; ttft(i, r) gives run
// r's TTFT p95 of entry i, every other headline statistic is constant.
func entries(n, runs int, ttft func(i, r int) float64, prof func(i int) compare.Profile) []Input {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var out []Input
	for i := 0; i < n; i++ {
		p := prof(i)
		in := Input{ID: fmt.Sprintf("%016x", i+1), Time: float64(t0.Add(time.Duration(i) * 24 * time.Hour).Unix()),
			TimeText: t0.Add(time.Duration(i) * 24 * time.Hour).Format(time.RFC3339), Label: fmt.Sprintf("rev-%d", i),
			Fingerprint: p.Fingerprint(), Profile: p, Runs: runs, Values: map[compare.LevelID]map[string][]float64{level4: {}}}
		for _, m := range compare.Headline {
			var vals []float64
			for r := 0; r < runs; r++ {
				v := 50.0
				if m.Key == "ttft.p95" {
					v = ttft(i, r)
				}
				vals = append(vals, v)
			}
			in.Values[level4][m.Key] = vals
		}
		out = append(out, in)
	}
	return out
}

func same(int) compare.Profile { return profile("L40S", "580") }

// noisy is a TTFT p95 around 100 ms with ±1 % run-to-run noise.
func noisy(i, r int) float64 { return 100 * (1 + 0.01*float64((i*3+r*7)%5-2)/2) }

func step(at int, k float64) func(i, r int) float64 {
	return func(i, r int) float64 {
		if i >= at {
			return k * noisy(i, r)
		}
		return noisy(i, r)
	}
}

func changesOf(h *History, kind string) []Change {
	var out []Change
	for _, c := range h.Changes {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

func TestStepIsOneChangePoint(t *testing.T) {
	h := Build(entries(10, 3, step(5, 1.3), same), DefaultOptions())
	cps := changesOf(h, KindChange)
	if len(cps) != 1 {
		t.Fatalf("%d change points, want 1: %+v", len(cps), h.Changes)
	}
	c := cps[0]
	// Entry 6 (index 5) introduced it; entry 7 confirms it; the baseline
	// is the 5 entries before (15 runs) against 6 runs, fully apart:
	// p = 2/C(21, 6) = 2/54264.
	if c.Entry != fmt.Sprintf("%016x", 6) || c.ConfirmedBy != fmt.Sprintf("%016x", 7) || c.Metric.Key != "ttft.p95" ||
		len(c.Baseline) != 5 || c.Direction != "worse" || c.EntryLabel != "rev-5" {
		t.Errorf("change %+v", c)
	}
	if math.Abs(float64(c.P)-2.0/54264) > 1e-15 {
		t.Errorf("p %v, want 2/54264", c.P)
	}
	if math.Abs(float64(c.Change)-0.3) > 0.02 {
		t.Errorf("change %v, want about +30 %%", c.Change)
	}
	if len(h.Segments) != 1 || h.Segments[0].Entries != 10 {
		t.Errorf("segments %+v", h.Segments)
	}
	if len(changesOf(h, KindPending)) != 0 || len(changesOf(h, KindUndecided)) != 0 {
		t.Errorf("other changes: %+v", h.Changes)
	}
}

func TestNoChangeAcrossAFingerprint(t *testing.T) {
	// The GPU changes at entry 5, exactly where TTFT jumps: not a change
	// point, an incomparable boundary.
	prof := func(i int) compare.Profile {
		if i >= 5 {
			return profile("H100", "580")
		}
		return profile("L40S", "580")
	}
	h := Build(entries(10, 3, step(5, 1.3), prof), DefaultOptions())
	if len(changesOf(h, KindChange)) != 0 {
		t.Errorf("change points across a fingerprint: %+v", h.Changes)
	}
	if len(h.Segments) != 2 || h.Segments[1].Boundary != BoundaryIncomparable || h.Segments[1].First != fmt.Sprintf("%016x", 6) ||
		len(h.Segments[1].Changes) != 1 || h.Segments[1].Changes[0].Key != "gpu" {
		t.Errorf("segments %+v", h.Segments)
	}
	// A driver change keeps entries comparable, but still starts a segment.
	prof2 := func(i int) compare.Profile {
		if i >= 5 {
			return profile("L40S", "590")
		}
		return profile("L40S", "580")
	}
	h = Build(entries(10, 3, step(5, 1.3), prof2), DefaultOptions())
	if len(h.Segments) != 2 || h.Segments[1].Boundary != BoundaryEnvironment || len(changesOf(h, KindChange)) != 0 {
		t.Errorf("driver change: segments %+v changes %+v", h.Segments, h.Changes)
	}
	if h.Entries[7].Segment != 1 || h.Entries[2].Segment != 0 {
		t.Errorf("entry segments %+v", h.Entries)
	}
}

func TestSpikeIsNotConfirmed(t *testing.T) {
	spike := func(i, r int) float64 {
		if i == 5 {
			return 1.5 * noisy(i, r)
		}
		return noisy(i, r)
	}
	h := Build(entries(10, 3, spike, same), DefaultOptions())
	if len(h.Changes) != 0 {
		t.Errorf("a one-entry spike became %+v", h.Changes)
	}
}

func TestExcludedEntryIsShownNotUsed(t *testing.T) {
	spike := func(i, r int) float64 {
		if i == 5 || i == 6 {
			return 3 * noisy(i, r)
		}
		return noisy(i, r)
	}
	in := entries(10, 3, spike, same)
	in[5].Excluded, in[5].Why = true, "GPU throttled"
	in[6].Excluded, in[6].Why = true, "GPU throttled"
	h := Build(in, DefaultOptions())
	if len(h.Changes) != 0 {
		t.Errorf("excluded entries made a change: %+v", h.Changes)
	}
	var s Series
	for _, x := range h.Series {
		if x.Metric.Key == "ttft.p95" {
			s = x
		}
	}
	if len(s.Points) != 10 || !s.Points[5].Excluded || s.Points[5].Median != analyze.Num(300) {
		t.Errorf("excluded point %+v", s.Points[5])
	}
	if !h.Entries[5].Excluded || h.Entries[5].Why != "GPU throttled" || len(h.Segments) != 1 {
		t.Errorf("entry %+v, %d segments", h.Entries[5], len(h.Segments))
	}
}

func TestLatestEntryAwaitsConfirmation(t *testing.T) {
	h := Build(entries(6, 3, step(5, 1.3), same), DefaultOptions())
	p := changesOf(h, KindPending)
	if len(p) != 1 || p[0].Entry != fmt.Sprintf("%016x", 6) || p[0].ConfirmedBy != "" {
		t.Errorf("pending %+v (all %+v)", p, h.Changes)
	}
}

func TestTooFewRunsIsUndecided(t *testing.T) {
	// One run per entry: 2 baseline runs against 2 can never reach α.
	h := Build(entries(4, 1, step(2, 1.3), same), DefaultOptions())
	u := changesOf(h, KindUndecided)
	if len(u) != 1 || u[0].NeedRuns != 4 || u[0].Entry != fmt.Sprintf("%016x", 3) || u[0].ConfirmedBy != fmt.Sprintf("%016x", 4) {
		t.Errorf("undecided %+v (all %+v)", u, h.Changes)
	}
	// The latest entry confirms it, so it does not also await confirmation.
	if len(h.Changes) != 1 {
		t.Errorf("changes %+v", h.Changes)
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	in := entries(12, 3, step(6, 0.7), same)
	a := Build(in, DefaultOptions())
	rev := append([]Input{}, in...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b := Build(rev, DefaultOptions())
	if !reflect.DeepEqual(a, b) {
		t.Error("the order of the inputs changes the history")
	}
	if c := changesOf(a, KindChange); len(c) != 1 || c[0].Direction != "better" {
		t.Errorf("a 30 %% drop: %+v", a.Changes)
	}
}

// TestHolmRejectsTestsBelowTheFirstStep: three entries, so each series has
// one test (entries 2 and 3 against entry 1). Concurrency 4 has 8 runs an
// entry and its TTFT p50 and p95 rise by 30 %: 16 runs against 8, fully
// apart, p = 2/C(24, 8) = 2/735471. Concurrency 16 has 3 runs an entry and
// its TTFT p95 rises by 30 %: 6 against 3, p = 2/C(9, 3) = 2/84. Every other
// statistic is constant (no test), so m = 3 and α/m = 0.0167, below the
// 6-vs-3 floor 2/84 = 0.0238; yet Holm rejects it at its third step
// (adjusted p = max(3·2/735471, 1·2/84) = 2/84 < 0.05): a change point,
// not undecided.
func TestHolmRejectsTestsBelowTheFirstStep(t *testing.T) {
	level16 := compare.LevelID{Mode: compare.ModeConcurrency, Value: 16}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	p := profile("L40S", "580")
	var in []Input
	for i := 0; i < 3; i++ {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		e := Input{ID: fmt.Sprintf("%016x", i+1), Time: float64(at.Unix()), TimeText: at.Format(time.RFC3339),
			Fingerprint: p.Fingerprint(), Profile: p, Values: map[compare.LevelID]map[string][]float64{level4: {}, level16: {}}}
		k := 1.0
		if i > 0 {
			k = 1.3
		}
		for _, m := range compare.Headline {
			for lvl, runs := range map[compare.LevelID]int{level4: 8, level16: 3} {
				var vals []float64
				for r := 0; r < runs; r++ {
					v := 50.0
					if m.Key == "ttft.p95" || (m.Key == "ttft.p50" && lvl == level4) {
						v = k * (100 + float64(r) + 0.1*float64(i))
					}
					vals = append(vals, v)
				}
				e.Values[lvl][m.Key] = vals
			}
		}
		in = append(in, e)
	}
	opts := DefaultOptions()
	opts.Compare.Correction = compare.CorrectionHolm
	h := Build(in, opts)
	if h.Tests.Count != 3 || h.Tests.RunsNeeded != 5 {
		t.Fatalf("tests %+v, want 3 tests needing 5 runs per side", h.Tests)
	}
	cps := changesOf(h, KindChange)
	if len(cps) != 3 || len(h.Changes) != 3 {
		t.Fatalf("changes %+v, want 3 change points", h.Changes)
	}
	for _, c := range cps {
		wantP, wantAdj := 2.0/735471, 6.0/735471
		if c.Level == level16 {
			wantP, wantAdj = 2.0/84, 2.0/84
		}
		if c.Entry != fmt.Sprintf("%016x", 2) || c.NeedRuns != 0 ||
			math.Abs(float64(c.P)-wantP) > 1e-15 || math.Abs(float64(c.PAdjusted)-wantAdj) > 1e-15 {
			t.Errorf("%s %s: entry %s need %d p %v adjusted %v; want entry 2, need 0, p %v, adjusted %v",
				c.Label, c.Metric.Key, c.Entry, c.NeedRuns, c.P, c.PAdjusted, wantP, wantAdj)
		}
	}
}

// TestSeriesAreKeptApart: two configurations at one level, 10 entries of
// 3 runs each. Only max_num_seqs=256 steps up by 30 % at entry 6: it alone
// gets the change point, with exactly the p of TestStepIsOneChangePoint
// (its 6 runs against its own 15, fully apart: 2/C(21, 6)), so the runs
// of max_num_seqs=128 were never pooled with them.
func TestSeriesAreKeptApart(t *testing.T) {
	m128, err := ingest.NewSeries(map[string]string{"max_num_seqs": "128"})
	if err != nil {
		t.Fatal(err)
	}
	m256, _ := ingest.NewSeries(map[string]string{"max_num_seqs": "256"})
	at128 := compare.LevelID{Series: m128, Mode: compare.ModeConcurrency, Value: 4}
	at256 := compare.LevelID{Series: m256, Mode: compare.ModeConcurrency, Value: 4}
	flat := entries(10, 3, noisy, same)
	in := entries(10, 3, step(5, 1.3), same)
	for i := range in {
		in[i].Values = map[compare.LevelID]map[string][]float64{at128: flat[i].Values[level4], at256: in[i].Values[level4]}
		in[i].Runs = 6
	}
	h := Build(in, DefaultOptions())
	cps := changesOf(h, KindChange)
	if len(cps) != 1 || len(h.Changes) != 1 {
		t.Fatalf("%d change points (%d changes), want 1: %+v", len(cps), len(h.Changes), h.Changes)
	}
	c := cps[0]
	if c.Level != at256 || c.Label != "concurrency 4" || c.Metric.Key != "ttft.p95" || c.Entry != fmt.Sprintf("%016x", 6) ||
		c.ConfirmedBy != fmt.Sprintf("%016x", 7) || math.Abs(float64(c.P)-2.0/54264) > 1e-15 {
		t.Errorf("change %+v", c)
	}
	if len(h.Series) != 2*len(compare.Headline) || h.Series[0].Level != at128 || h.Series[len(compare.Headline)].Level != at256 {
		t.Errorf("%d series, first %+v", len(h.Series), h.Series[0].Level)
	}
	if !h.Labelled() || !reflect.DeepEqual(h.Configurations(), []ingest.Series{m128, m256}) {
		t.Errorf("configurations %v", h.Configurations())
	}
	want := fmt.Sprintf("every entry with an earlier and a later entry of the same fingerprint, in each of the %d series (configuration × level × headline statistic)", 2*len(compare.Headline))
	if h.Tests.Family != want {
		t.Errorf("family %q", h.Tests.Family)
	}
	if one := Build(entries(10, 3, noisy, same), DefaultOptions()); one.Labelled() || !reflect.DeepEqual(one.Configurations(), []ingest.Series{{}}) ||
		one.Tests.Family != fmt.Sprintf("every entry with an earlier and a later entry of the same fingerprint, in each of the %d series (level × headline statistic)", len(compare.Headline)) {
		t.Errorf("an unlabelled history: %v, %q", one.Configurations(), one.Tests.Family)
	}
}
