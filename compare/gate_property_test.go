package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/sim"
)

// gateProcesses sets the size of TestGateFalseAlarmsAndPower: the number
// of simulated server processes, each running the ten levels once. The
// default keeps the test near half a minute on two cores;
// -gate.processes=2400 is the version behind docs/compare.md's table.
var gateProcesses = flag.Int("gate.processes", 240, "simulated server processes in TestGateFalseAlarmsAndPower (a multiple of 15; docs/compare.md uses 2400)")

// The simulated sweeps of the gate's property test: internal/sim's
// default server and workload without its injected stall, 100 requests a
// run (20–40 of them cut as warm-up), at ten concurrency levels on both
// sides of the server's saturation at 8 sequences.
var (
	gateLevels   = []int{1, 2, 3, 4, 6, 8, 10, 12, 14, 16}
	gateRequests = 100
	// gateRepeats is the processes of one simulated pool sweep: 15 make
	// 15 one-run, 5 three-run or 3 five-run sweeps.
	gateRepeats = 15
	// gateShiftAt is the level of the one-level regression, a level of
	// every configuration.
	gateShiftAt = 4
	gateShift   = 1.10
)

// gateConfig is a shape of sweep the gate is measured at.
type gateConfig struct {
	runs   int
	levels []int
}

func (c gateConfig) String() string {
	return fmt.Sprintf("%d × %d", c.runs, len(c.levels))
}

func gateConfigs() []gateConfig {
	var out []gateConfig
	for _, runs := range []int{1, 3, 5} {
		for _, levels := range [][]int{{gateShiftAt}, {1, gateShiftAt, 16}, gateLevels} {
			out = append(out, gateConfig{runs: runs, levels: levels})
		}
	}
	return out
}

// gateSimulate simulates one pool sweep (gateRepeats processes × the ten
// levels) with the seed, writes it under dir, analyses it as `benchnote
// report` would, removes the files and returns the summary without the
// warm-up traces and CDFs (which compare does not read).
func gateSimulate(dir string, seed uint64) (*analyze.Summary, error) {
	cfg := sim.DefaultConfig()
	cfg.Seed = seed
	cfg.Repeats = gateRepeats
	cfg.Stalls = nil
	cfg.Levels = nil
	for _, c := range gateLevels {
		cfg.Levels = append(cfg.Levels, sim.Level{Concurrency: c, Requests: gateRequests, Format: "csv"})
	}
	sw, err := sim.Generate(cfg)
	if err != nil {
		return nil, err
	}
	if err := sw.Write(dir); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, err := ingest.Load(dir, ingest.Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	s := analyze.Analyze(in)
	for i := range s.Runs {
		s.Runs[i].Warmup.Trace = nil
	}
	for i := range s.Levels {
		s.Levels[i].CDFTTFT, s.Levels[i].CDFTPOT, s.Levels[i].CDFE2E = nil, nil, nil
	}
	return s, nil
}

// gateTempDir is where the pool sweeps are written and read back: a
// memory file system when the machine has one, since writing some ten
// thousand small files to disk doubles the test's time. Each sweep is
// removed once analysed.
func gateTempDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "benchnote-gate-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// gatePool simulates n pool sweeps (seeds 1 … n), up to GOMAXPROCS at
// once.
func gatePool(t *testing.T, n int) []*analyze.Summary {
	t.Helper()
	out := make([]*analyze.Summary, n)
	errs := make([]error, n)
	dir := gateTempDir(t)
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = gateSimulate(filepath.Join(dir, fmt.Sprint(i)), uint64(i+1))
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("pool sweep %d: %v", i, err)
		}
	}
	return out
}

// subSummary is the summary of the sweep made of some runs of s: the
// repeats lo … hi at the given concurrency levels. Each run's statistics
// are the run's own (analyze computes them run by run), so only the
// across-run medians and MADs are formed again, as analyze forms them;
// TestSubSummaryIsTheSweepsAnalysis checks that compare decides the same
// on it as on the analysis of those runs alone. The level's pooled
// figures (workload, counts) stay those of all of s's runs: compare reads
// them only for the comparability check, whose workload rules are caveats.
func subSummary(s *analyze.Summary, lo, hi int, levels []int) *analyze.Summary {
	v := *s
	keep := map[string]bool{}
	v.Runs = nil
	for _, r := range s.Runs {
		if r.Repeat >= lo && r.Repeat <= hi && slices.Contains(levels, r.Concurrency) {
			keep[r.Dir] = true
			v.Runs = append(v.Runs, r)
		}
	}
	v.Levels = nil
	for _, l := range s.Levels {
		if !slices.Contains(levels, l.Concurrency) {
			continue
		}
		var idx []int
		nl := l
		nl.Runs = nil
		for i, d := range l.Runs {
			if keep[d] {
				idx = append(idx, i)
				nl.Runs = append(nl.Runs, d)
			}
		}
		nl.Stats = make([]analyze.AcrossRuns, len(l.Stats))
		for j, st := range l.Stats {
			per := make([]analyze.Num, len(idx))
			for k, i := range idx {
				per[k] = st.PerRun[i]
			}
			nl.Stats[j] = acrossRuns(st, per, s.Method.MAD == "scaled")
		}
		v.Levels = append(v.Levels, nl)
	}
	return &v
}

// acrossRuns is st with these per-run values, their median and MAD.
func acrossRuns(st analyze.AcrossRuns, per []analyze.Num, scaled bool) analyze.AcrossRuns {
	st.PerRun = per
	var vals []float64
	for _, v := range per {
		if v.Valid() {
			vals = append(vals, float64(v))
		}
	}
	st.Runs = len(vals)
	st.Median, st.MAD = analyze.NaN, analyze.NaN
	if len(vals) > 0 {
		st.Median = analyze.Num(analyze.Median(vals))
		st.MAD = analyze.Num(analyze.MAD(vals, scaled))
	}
	st.FewRuns = st.Runs < analyze.MinRuns
	return st
}

// shiftLatencies returns s with every per-run latency statistic (unit ms)
// × k at the concurrency level at, or at every level when at is 0: a
// regression of exactly k, the same in every run.
func shiftLatencies(s *analyze.Summary, k float64, at int) *analyze.Summary {
	v := *s
	v.Levels = slices.Clone(s.Levels)
	for i := range v.Levels {
		l := &v.Levels[i]
		if at != 0 && l.Concurrency != at {
			continue
		}
		l.Stats = slices.Clone(l.Stats)
		for j, st := range l.Stats {
			if st.Unit != "ms" || strings.HasPrefix(st.Key, "workload.") {
				continue
			}
			per := make([]analyze.Num, len(st.PerRun))
			for r, x := range st.PerRun {
				per[r] = x * analyze.Num(k)
			}
			l.Stats[j] = acrossRuns(st, per, s.Method.MAD == "scaled")
		}
	}
	return &v
}

// gateOutcome is what the gate did with one pair.
type gateOutcome struct {
	code int
	// flagged and undecided are the primary findings' keys that were
	// flagged regressions, or undecided for the worse.
	flagged, undecided []string
}

func gateDecide(base, new *analyze.Summary, opts Options) (gateOutcome, error) {
	r, err := Compare(Input{Name: "base", Summary: base}, Input{Name: "new", Summary: new}, opts)
	if err != nil {
		return gateOutcome{}, err
	}
	o := gateOutcome{code: r.Gate(GateOptions{FailOn: FailOnRegression}).Code}
	for _, f := range r.Findings {
		switch {
		case !f.Primary:
		case f.Verdict == VerdictRegression:
			o.flagged = append(o.flagged, f.Metric.Key)
		case f.Verdict == VerdictUndecided && f.Direction == "worse":
			o.undecided = append(o.undecided, f.Metric.Key)
		}
	}
	return o, nil
}

// gateTally counts a set of pairs' outcomes.
type gateTally struct {
	n         int
	codes     [5]int
	flagged   map[string]int
	undecided map[string]int
}

func (g *gateTally) add(o gateOutcome) {
	if g.flagged == nil {
		g.flagged, g.undecided = map[string]int{}, map[string]int{}
	}
	g.n++
	if o.code >= 0 && o.code < len(g.codes) {
		g.codes[o.code]++
	}
	if o.code == ExitFail {
		for _, k := range o.flagged {
			g.flagged[k]++
		}
	}
	if o.code == ExitUndecided {
		for _, k := range o.undecided {
			g.undecided[k]++
		}
	}
}

func (g *gateTally) rate(code int) float64 { return float64(g.codes[code]) / float64(g.n) }

// byKey is "errors.percent 3, ttft.p95 1", largest first.
func byKey(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// wilson is the Wilson score 95 % interval of a proportion p observed in
// n trials (n need not be whole).
func wilson(p, n float64) (lo, hi float64) {
	const z = 1.959963984540054
	d := 1 + z*z/n
	c := (p + z*z/(2*n)) / d
	h := z / d * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return math.Max(0, c-h), math.Min(1, c+h)
}

// TestGateFalseAlarmsAndPower measures the gate (Compare with
// DefaultOptions, Gate failing on regressions) on simulated sweeps of 1,
// 3 and 5 runs a level at 1, 3 and 10 levels:
//
//   - false alarms: pairs of sweeps of one configuration with different
//     seeds (nothing changed); exit 1 for any reason is a false alarm,
//     the error rate's finding included; exit 4 (undecided) is counted
//     apart;
//   - power: the same pairs with the new side's per-run latency
//     statistics × 1.10, at every level, and at concurrency 4 only, with
//     the default family and with --per-level;
//   - for contrast, the false alarms of --no-test (thresholds alone).
//
// Sweeps are cut from a pool: each simulated process runs the ten levels
// once, and a sweep of k runs takes k processes and some of their levels,
// so the sweeps of one configuration share no run and are independent.
// Pairs of one configuration do share sweeps: with P sweeps, pairs (i,
// i+d mod P) for d = 1 … ⌈200/P⌉. Pairs sharing a sweep are correlated
// (a sweep that alarms against one partner may against the next), so the
// rate is not a binomial proportion of the pairs; it is a U-statistic of
// the sweeps, whose variance is at most p(1−p)/(P/2), that of P/2
// independent pairs, however the alarms depend on each sweep (Hoeffding:
// a pair's indicator has variance at least the sum of its two one-sweep
// projections'). The interval and the limit use n = P/2.
//
// The test fails when a configuration's false-alarm rate exceeds 5 % +
// 2·√(0.05·0.95/n), or when a pair is not compared (exit 2 or 3). Power
// is reported, not asserted. Run with -v for the table;
// -gate.processes=2400 is the larger version in docs/compare.md.
func TestGateFalseAlarmsAndPower(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates hundreds of sweeps; not in -short")
	}
	procs := *gateProcesses
	if procs < gateRepeats || procs%gateRepeats != 0 {
		t.Fatalf("-gate.processes %d: want a positive multiple of %d", procs, gateRepeats)
	}
	pool := gatePool(t, procs/gateRepeats)
	t.Logf("%d simulated processes × %d levels (%v), %d requests a run, %d pool sweeps", procs, len(gateLevels), gateLevels, gateRequests, len(pool))
	logNoise(t, pool)

	perLevel, noTest := DefaultOptions(), DefaultOptions()
	perLevel.PerLevel, noTest.NoTest = true, true
	type variant struct {
		name string
		at   int // 0: every level; −1: unshifted
		opts Options
	}
	// In the table's order; the first is the null.
	variants := []variant{
		{"null", -1, DefaultOptions()},
		{"10 % everywhere", 0, DefaultOptions()},
		{"10 % at c4", gateShiftAt, DefaultOptions()},
		{"10 % everywhere, --per-level", 0, perLevel},
		{"10 % at c4, --per-level", gateShiftAt, perLevel},
		{"null, --no-test", -1, noTest},
	}
	var table []string
	table = append(table,
		"| runs × levels | sweeps | pairs | false alarms (exit 1) | 95 % interval | limit | exit 4, nothing changed | exit 1, +10 % everywhere | exit 4, +10 % everywhere | exit 1, +10 % at c4 only | exit 1, +10 % everywhere, `--per-level` | exit 1, +10 % at c4 only, `--per-level` | exit 1, nothing changed, `--no-test` |",
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range gateConfigs() {
		p := len(pool) * (gateRepeats / c.runs)
		sweeps := make([]*analyze.Summary, p)
		for k := range sweeps {
			s := pool[k/(gateRepeats/c.runs)]
			first := (k%(gateRepeats/c.runs))*c.runs + 1
			sweeps[k] = subSummary(s, first, first+c.runs-1, c.levels)
		}
		shifts := int(math.Ceil(200 / float64(p)))
		type pair struct{ base, new int }
		var pairs []pair
		for d := 1; d <= shifts; d++ {
			for i := range p {
				pairs = append(pairs, pair{i, (i + d) % p})
			}
		}
		tallies := make([]gateTally, len(variants))
		for vi, v := range variants {
			news := sweeps
			if v.at >= 0 {
				news = make([]*analyze.Summary, p)
				for k, s := range sweeps {
					news[k] = shiftLatencies(s, gateShift, v.at)
				}
			}
			outcomes := make([]gateOutcome, len(pairs))
			errs := make([]error, len(pairs))
			next := make(chan int)
			var wg sync.WaitGroup
			for range runtime.GOMAXPROCS(0) {
				wg.Go(func() {
					for i := range next {
						outcomes[i], errs[i] = gateDecide(sweeps[pairs[i].base], news[pairs[i].new], v.opts)
					}
				})
			}
			for i := range pairs {
				next <- i
			}
			close(next)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("%s, %s, pair %d: %v", c, v.name, i, err)
				}
				tallies[vi].add(outcomes[i])
			}
		}
		null := tallies[0]
		n := float64(p) / 2
		fa := null.rate(ExitFail)
		lo, hi := wilson(fa, n)
		limit := 0.05 + 2*math.Sqrt(0.05*0.95/n)
		table = append(table, fmt.Sprintf("| %s | %d | %d | %d (%.1f %%) | %.1f–%.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% |",
			c, p, len(pairs), null.codes[ExitFail], 100*fa, 100*lo, 100*hi, 100*limit, 100*null.rate(ExitUndecided),
			100*tallies[1].rate(ExitFail), 100*tallies[1].rate(ExitUndecided), 100*tallies[2].rate(ExitFail),
			100*tallies[3].rate(ExitFail), 100*tallies[4].rate(ExitFail), 100*tallies[5].rate(ExitFail)))
		t.Logf("%s (levels %v): null: false alarms by statistic: %s; undecided by statistic: %s", c, c.levels, byKey(null.flagged), byKey(null.undecided))
		for vi := 1; vi < len(variants); vi++ {
			tl := tallies[vi]
			t.Logf("%s: %s: exit 0 %d, 1 %d, 4 %d; flagged by statistic: %s; undecided: %s", c, variants[vi].name,
				tl.codes[ExitPass], tl.codes[ExitFail], tl.codes[ExitUndecided], byKey(tl.flagged), byKey(tl.undecided))
		}
		for vi := range variants {
			if k := tallies[vi].codes[ExitIncomparable] + tallies[vi].codes[ExitInputError]; k > 0 || tallies[vi].n != len(pairs) {
				t.Errorf("%s, %s: %d of %d pairs not compared (exit 2 or 3)", c, variants[vi].name, k, len(pairs))
			}
		}
		if fa > limit {
			t.Errorf("%s: false alarms in %d of %d pairs of %d sweeps (%.1f %%), above 5 %% + its margin at n = %g: %.1f %%",
				c, null.codes[ExitFail], len(pairs), p, 100*fa, n, 100*limit)
		}
	}
	t.Logf("the gate on simulated sweeps (%d processes):\n%s", procs, strings.Join(table, "\n"))
}

// logNoise logs the run-to-run spread of the primary statistics in the
// pool: per level, the scaled MAD over the median of a pool sweep's runs,
// the median over the pool sweeps. It says how hard a 10 % shift is to
// see.
func logNoise(t *testing.T, pool []*analyze.Summary) {
	t.Helper()
	keys := []string{"ttft.p95", "tpot.p50", "e2e.p95", "throughput.output_tokens_per_s", GoodputKey}
	var b strings.Builder
	b.WriteString("run-to-run spread (1.4826·MAD / median over a pool sweep's runs; median over pool sweeps):")
	for _, c := range gateLevels {
		fmt.Fprintf(&b, "\n  c%d:", c)
		for _, key := range keys {
			var rel []float64
			for _, s := range pool {
				for _, l := range s.Levels {
					if l.Concurrency != c {
						continue
					}
					for _, st := range l.Stats {
						if st.Key != key {
							continue
						}
						var vals []float64
						for _, v := range st.PerRun {
							if v.Valid() {
								vals = append(vals, float64(v))
							}
						}
						if m := analyze.Median(vals); len(vals) > 0 && m != 0 {
							rel = append(rel, analyze.MAD(vals, true)/m)
						}
					}
				}
			}
			if len(rel) > 0 {
				fmt.Fprintf(&b, " %s %.2f %%", key, 100*analyze.Median(rel))
			}
		}
	}
	t.Log(b.String())
}

// TestSubSummaryIsTheSweepsAnalysis checks the property test's cut: the
// summary subSummary makes of some runs of an analysed sweep gives the
// findings and the gate decision that the analysis of a sweep holding
// only those runs gives.
func TestSubSummaryIsTheSweepsAnalysis(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Repeats = 4
	cfg.Stalls = nil
	cfg.Levels = nil
	for _, c := range []int{1, 4, 8, 16} {
		cfg.Levels = append(cfg.Levels, sim.Level{Concurrency: c, Requests: 60, Format: "csv"})
	}
	sw, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	full := filepath.Join(root, "full")
	if err := sw.Write(full); err != nil {
		t.Fatal(err)
	}
	load := func(dir string) *analyze.Summary {
		in, err := ingest.Load(dir, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return analyze.Analyze(in)
	}
	all := load(full)
	levels := []int{1, 4, 16}
	// The sweep of repeats 2 and 3 at three of the levels, on disk.
	part := filepath.Join(root, "part")
	copyFile := func(rel string) {
		data, err := os.ReadFile(filepath.Join(full, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(part, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(part, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"sweep.yaml", "env.txt", "env.json"} {
		copyFile(f)
	}
	for _, c := range levels {
		for rep := 2; rep <= 3; rep++ {
			for _, f := range []string{"run.yaml", "requests.csv", "metrics-start.prom", "metrics-end.prom", "gpu.csv"} {
				copyFile(filepath.Join(fmt.Sprintf("c%d", c), fmt.Sprintf("run-%d", rep), f))
			}
		}
	}
	direct, cut := load(part), subSummary(all, 2, 3, levels)
	if len(direct.Levels) != len(cut.Levels) {
		t.Fatalf("%d levels analysed, %d cut", len(direct.Levels), len(cut.Levels))
	}
	for i := range direct.Levels {
		d, c := direct.Levels[i], cut.Levels[i]
		if !slices.Equal(d.Runs, c.Runs) || len(d.Stats) != len(c.Stats) {
			t.Fatalf("c%d: runs %v and %d statistics analysed, %v and %d cut", d.Concurrency, d.Runs, len(d.Stats), c.Runs, len(c.Stats))
		}
		for j := range d.Stats {
			dj, cj := mustJSON(t, d.Stats[j]), mustJSON(t, c.Stats[j])
			if !bytes.Equal(dj, cj) {
				t.Errorf("c%d %s: analysed %s, cut %s", d.Concurrency, d.Stats[j].Key, dj, cj)
			}
		}
	}
	// The gate against another cut (repeats 1 and 4, shifted), and with
	// the sides swapped.
	other := shiftLatencies(subSummary(all, 1, 1, levels), 1.2, 0)
	other = mergeRepeat(other, subSummary(all, 4, 4, levels))
	for _, swap := range []bool{false, true} {
		decide := func(s *analyze.Summary) []byte {
			b, n := Input{Name: "base", Summary: s}, Input{Name: "new", Summary: other}
			if swap {
				b, n = n, b
			}
			r, err := Compare(b, n, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			return mustJSON(t, struct {
				V string
				F []Finding
				M Family
				G Gate
			}{r.Verdict, r.Findings, r.Family, r.Gate(GateOptions{FailOn: FailOnRegression})})
		}
		if d, c := decide(direct), decide(cut); !bytes.Equal(d, c) {
			t.Errorf("swap %v: the gate on the analysed sweep\n%s\non the cut\n%s", swap, d, c)
		}
	}
}

// mergeRepeat adds b's runs to a's levels (a and b cut from one sweep at
// the same levels).
func mergeRepeat(a, b *analyze.Summary) *analyze.Summary {
	v := *a
	v.Runs = append(slices.Clone(a.Runs), b.Runs...)
	v.Levels = slices.Clone(a.Levels)
	for i := range v.Levels {
		l, o := &v.Levels[i], b.Levels[i]
		l.Runs = append(slices.Clone(l.Runs), o.Runs...)
		l.Stats = slices.Clone(l.Stats)
		for j := range l.Stats {
			l.Stats[j] = acrossRuns(l.Stats[j], append(slices.Clone(l.Stats[j].PerRun), o.Stats[j].PerRun...), a.Method.MAD == "scaled")
		}
	}
	return &v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
