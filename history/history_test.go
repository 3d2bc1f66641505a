package history

import (
	"fmt"
	"math"
	"reflect"
	"slices"
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
	if math.Abs(float64(c.Test.P)-2.0/54264) > 1e-15 || c.Levels != 1 || !c.Primary || len(c.PerLevel) != 1 || c.PerLevel[0].Level != level4 {
		t.Errorf("p %v, want 2/54264 at one level: %+v", c.Test.P, c)
	}
	if len(h.ByEntry) != 1 || h.ByEntry[0].Entry != c.Entry || h.ByEntry[0].ChangePoints != 1 || h.ByEntry[0].Worse != 1 || h.ByEntry[0].Worst != 0 {
		t.Errorf("by entry %+v", h.ByEntry)
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
	var s Trend
	for _, x := range h.Trends {
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
	// One run per entry at one level: 2 baseline runs against 2 can never
	// reach α = 0.05 (uncorrected here); 2 runs an entry would (2/C(8, 4)
	// = 0.029).
	opts := DefaultOptions()
	opts.Compare.Correction = compare.CorrectionNone
	h := Build(entries(4, 1, step(2, 1.3), same), opts)
	u := changesOf(h, KindUndecided)
	if len(u) != 1 || u[0].NeedRuns != 2 || u[0].Entry != fmt.Sprintf("%016x", 3) || u[0].ConfirmedBy != fmt.Sprintf("%016x", 4) {
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

// TestHolmRejectsTestsBelowTheFirstStep: three entries, so each track has
// one test (entries 2 and 3 against entry 1). Series a has 8 runs an
// entry at concurrency 4 and its TTFT p95 and TPOT p50 rise by 30 %: 16
// runs against 8, fully apart, p = 2/C(24, 8) = 2/735471. Series b has 3
// runs an entry at concurrency 16 and its TTFT p95 rises by 30 %: 6
// against 3, p = 2/C(9, 3) = 2/84. Every other statistic is constant (no
// test), so the family has m = 3 tests and α/m = 0.0167, below the 6-vs-3
// floor 2/84 = 0.0238; yet Holm rejects it at its third step (adjusted
// p = max(3·2/735471, 2·2/735471, 1·2/84) = 2/84 < 0.05): a change point,
// not undecided.
func TestHolmRejectsTestsBelowTheFirstStep(t *testing.T) {
	sa, _ := ingest.NewSeries(map[string]string{"s": "a"})
	sb, _ := ingest.NewSeries(map[string]string{"s": "b"})
	atA := compare.LevelID{Series: sa, Mode: compare.ModeConcurrency, Value: 4}
	atB := compare.LevelID{Series: sb, Mode: compare.ModeConcurrency, Value: 16}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	p := profile("L40S", "580")
	var in []Input
	for i := 0; i < 3; i++ {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		e := Input{ID: fmt.Sprintf("%016x", i+1), Time: float64(at.Unix()), TimeText: at.Format(time.RFC3339),
			Fingerprint: p.Fingerprint(), Profile: p, Values: map[compare.LevelID]map[string][]float64{atA: {}, atB: {}}}
		k := 1.0
		if i > 0 {
			k = 1.3
		}
		for _, m := range compare.Headline {
			for lvl, runs := range map[compare.LevelID]int{atA: 8, atB: 3} {
				var vals []float64
				for r := 0; r < runs; r++ {
					v := 50.0
					if m.Key == "ttft.p95" || (m.Key == "tpot.p50" && lvl == atA) {
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
	if h.Tests.Count != 3 || h.Tests.Secondary != 0 || math.Abs(h.Tests.EffectiveAlpha-0.05/3) > 1e-15 {
		t.Fatalf("tests %+v, want 3 primary tests at α/3", h.Tests)
	}
	cps := changesOf(h, KindChange)
	if len(cps) != 3 || len(h.Changes) != 3 {
		t.Fatalf("changes %+v, want 3 change points", h.Changes)
	}
	for _, c := range cps {
		// Series a's two tests tie: Holm's step-down gives both 3·p.
		wantP, wantAdj := 2.0/735471, 6.0/735471
		if c.Series == sb {
			wantP, wantAdj = 2.0/84, 2.0/84
		}
		if c.Entry != fmt.Sprintf("%016x", 2) || c.NeedRuns != 0 ||
			math.Abs(float64(c.Test.P)-wantP) > 1e-15 || math.Abs(float64(c.Test.PAdjusted)-wantAdj) > 1e-15 {
			t.Errorf("%s %s: entry %s need %d p %v adjusted %v; want entry 2, need 0, p %v, adjusted %v",
				c.Series, c.Metric.Key, c.Entry, c.NeedRuns, c.Test.P, c.Test.PAdjusted, wantP, wantAdj)
		}
	}
	if len(h.ByEntry) != 1 || h.ByEntry[0].ChangePoints != 3 {
		t.Errorf("by entry %+v", h.ByEntry)
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
	if c.Series != m256 || c.PerLevel[0].Level != at256 || c.PerLevel[0].Label != "concurrency 4" || c.Metric.Key != "ttft.p95" || c.Entry != fmt.Sprintf("%016x", 6) ||
		c.ConfirmedBy != fmt.Sprintf("%016x", 7) || math.Abs(float64(c.Test.P)-2.0/54264) > 1e-15 {
		t.Errorf("change %+v", c)
	}
	if len(h.Trends) != 2*len(compare.Headline) || h.Trends[0].Level != at128 || h.Trends[len(compare.Headline)].Level != at256 {
		t.Errorf("%d trends, first %+v", len(h.Trends), h.Trends[0].Level)
	}
	if !h.Labelled() || !reflect.DeepEqual(h.Configurations(), []ingest.Series{m128, m256}) {
		t.Errorf("configurations %v", h.Configurations())
	}
	want := "every entry with an earlier and a later entry of the same fingerprint, for each headline statistic of each of the 2 series, across its levels"
	if h.Tests.Family != want {
		t.Errorf("family %q", h.Tests.Family)
	}
	if one := Build(entries(10, 3, noisy, same), DefaultOptions()); one.Labelled() || !reflect.DeepEqual(one.Configurations(), []ingest.Series{{}}) ||
		one.Tests.Family != "every entry with an earlier and a later entry of the same fingerprint, for each headline statistic of the sweeps, across its levels" {
		t.Errorf("an unlabelled history: %v, %q", one.Configurations(), one.Tests.Family)
	}
}

// TestALaterEntryDoesNotAnnounceAChangeAgain: TTFT p95 steps up by 30 %
// at entry 4 (index 3), confirmed by entry 5; entry 6 falls back, entry 7,
// the latest, is up again. Against its window (entries 3 to 7: three at
// the old level, two at the new) entry 7 lies beyond the threshold, and
// the entry before it did not, but the change it shows is the one found
// at entry 4: against the entries since that change it is not beyond, so
// it does not await confirmation.
func TestALaterEntryDoesNotAnnounceAChangeAgain(t *testing.T) {
	ttft := func(i, r int) float64 {
		if i == 3 || i == 4 || i == 6 {
			return 1.3 * noisy(i, r)
		}
		return noisy(i, r)
	}
	h := Build(entries(7, 3, ttft, same), DefaultOptions())
	cps := changesOf(h, KindChange)
	if len(cps) != 1 || cps[0].Entry != fmt.Sprintf("%016x", 4) || len(h.Changes) != 1 {
		t.Errorf("changes %+v, want one change point at entry 4 and nothing awaiting confirmation", h.Changes)
	}
}

// shifted builds n daily entries of 3 runs at concurrency 1 and 4 in
// which every headline statistic varies by about ±1 % from run to run;
// from entry at on, every latency is k times longer and throughput k
// times lower.
func shifted(n, at int, k float64) []Input {
	level1 := compare.LevelID{Mode: compare.ModeConcurrency, Value: 1}
	in := entries(n, 3, noisy, same)
	for i := range in {
		in[i].Values = map[compare.LevelID]map[string][]float64{}
		for li, l := range []compare.LevelID{level1, level4} {
			in[i].Values[l] = map[string][]float64{}
			for mi, m := range compare.Headline {
				var vals []float64
				for r := 0; r < 3; r++ {
					v := float64(10*(li+1)*(mi+1)) * noisy(i+mi, r+li)
					switch {
					case m.Points:
						v = 50 + noisy(i+mi, r+li)/100
					case i >= at && m.LowerIsBetter:
						v *= k
					case i >= at:
						v /= k
					}
					vals = append(vals, v)
				}
				in[i].Values[l][m.Key] = vals
			}
		}
	}
	return in
}

// TestOneShiftIsOneEntry: every latency × 1.25 (throughput ÷ 1.25) from
// entry 6 of 8 at two levels is one entry of changes: one change point
// per primary statistic that moved (TTFT p95, TPOT p50, E2E p95, output
// tokens/s, energy per output token), the other nine statistics that
// moved secondary, nothing awaiting confirmation at the latest entry.
func TestOneShiftIsOneEntry(t *testing.T) {
	h := Build(shifted(8, 5, 1.25), DefaultOptions())
	if len(h.ByEntry) != 1 {
		t.Fatalf("%d entries with changes, want 1: %+v", len(h.ByEntry), h.ByEntry)
	}
	g := h.ByEntry[0]
	if g.Entry != fmt.Sprintf("%016x", 6) || g.ChangePoints != 5 || g.Secondary != 9 || g.Pending != 0 || g.Undecided != 0 || g.Worse != 5 {
		t.Errorf("entry %+v, want entry 6 with 5 change points, all worse, and 9 secondary", g)
	}
	for _, c := range h.Changes {
		want := KindSecondary
		if slices.Contains(compare.DefaultGate, c.Metric.Key) {
			want = KindChange
		}
		if c.Kind != want || c.Levels != 2 || len(c.PerLevel) != 2 || c.Direction != "worse" {
			t.Errorf("%s: %s over %d levels (%s), want %s over 2", c.Metric.Key, c.Kind, c.Levels, c.Direction, want)
		}
	}
	if w := h.Changes[g.Worst]; w.Kind != KindChange {
		t.Errorf("the worst of the entry is %s %s, want a change point", w.Kind, w.Metric.Key)
	}
	// With a gate of TTFT p95 alone, the other four are secondary.
	opts := DefaultOptions()
	opts.Compare.Gate = []string{"ttft.p95"}
	if g := Build(shifted(8, 5, 1.25), opts).ByEntry; len(g) != 1 || g[0].ChangePoints != 1 || g[0].Secondary != 13 {
		t.Errorf("--gate ttft.p95: %+v", g)
	}
}
