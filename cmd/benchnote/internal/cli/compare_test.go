package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare/render"
	"github.com/benchnote/benchnote/ingest"
	goldenfile "github.com/benchnote/benchnote/internal/golden"
	"github.com/benchnote/benchnote/internal/sim"
)

// exampleSummary analyses runs/example.
func exampleSummary(t testing.TB) *analyze.Summary {
	t.Helper()
	sw, err := ingest.Load(exampleSweep, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return analyze.Analyze(sw)
}

// simSummary analyses a simulated sweep with the given repeats per level.
func simSummary(t testing.TB, repeats int) *analyze.Summary {
	t.Helper()
	cfg := sim.DefaultConfig().WithRequests(60)
	cfg.Repeats = repeats
	cfg.Levels = cfg.Levels[:2]
	cfg.Stalls = nil
	sw, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sweep")
	if err := sw.Write(dir); err != nil {
		t.Fatal(err)
	}
	in, err := ingest.Load(dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return analyze.Analyze(in)
}

// scaleLatencies multiplies every per-run latency (unit ms) of a copy of s
// by k and recomputes the medians and MADs from the scaled per-run values.
func scaleLatencies(t testing.TB, s *analyze.Summary, k float64) *analyze.Summary {
	t.Helper()
	c := copySummary(t, s)
	for i := range c.Levels {
		for j := range c.Levels[i].Stats {
			st := &c.Levels[i].Stats[j]
			if st.Unit != "ms" || strings.HasPrefix(st.Key, "workload.") {
				continue
			}
			var vals []float64
			for r, v := range st.PerRun {
				if v.Valid() {
					st.PerRun[r] = v * analyze.Num(k)
					vals = append(vals, float64(st.PerRun[r]))
				}
			}
			if len(vals) > 0 {
				st.Median = analyze.Num(analyze.Median(vals))
				st.MAD = analyze.Num(analyze.MAD(vals, c.Method.MAD == "scaled"))
			}
		}
	}
	return c
}

func copySummary(t testing.TB, s *analyze.Summary) *analyze.Summary {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := analyze.DecodeSummary(bytes.NewReader(data), "copy")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeSummary writes s as DIR/name/summary.json and returns that path.
func writeSummary(t testing.TB, dir, name string, s *analyze.Summary) string {
	t.Helper()
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name, "summary.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func setEnv(s *analyze.Summary, key, value string) {
	for i := range s.Environment.Canonical {
		if s.Environment.Canonical[i].Key == key {
			s.Environment.Canonical[i].Value = value
		}
	}
}

type compareRun struct {
	code           int
	stdout, stderr string
	files          map[string][]byte
}

func runCompareCLI(t *testing.T, args ...string) compareRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cmp")
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"compare", "-o", out}, args...), &stdout, &stderr)
	r := compareRun{code: code, stdout: stdout.String(), stderr: stderr.String(), files: map[string][]byte{}}
	for _, name := range []string{render.MarkdownFile, render.HTMLFile, render.JSONFile} {
		if data, err := os.ReadFile(filepath.Join(out, name)); err == nil {
			r.files[name] = data
		}
	}
	return r
}

func TestCompareSameSweepIsNoChange(t *testing.T) {
	r := runCompareCLI(t, exampleSweep, exampleSweep)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	md := string(r.files[render.MarkdownFile])
	// The example has an error-level lint finding (an error rate above the
	// threshold at c16): a caveat, on both sides.
	if !strings.HasPrefix(md, "No change: none of the 7 primary statistics moved beyond its threshold with p \\< 0.05 (Holm over 7 tests).\n\n") ||
		!strings.Contains(md, "**No change**: no primary statistic was flagged beyond its threshold. Comparability: **comparable with caveats** (findings).") {
		t.Errorf("compare.md does not say no change:\n%.600s", md)
	}
	// A report directory and its summary.json are the same input.
	rep := filepath.Join(t.TempDir(), "rep")
	var so, se bytes.Buffer
	if code := Run([]string{"report", exampleSweep, "-o", rep}, &so, &se); code != 0 {
		t.Fatal(se.String())
	}
	r2 := runCompareCLI(t, rep, filepath.Join(rep, "summary.json"))
	if r2.code != 0 || !strings.Contains(string(r2.files[render.MarkdownFile]), "**No change**") {
		t.Errorf("report dir vs its summary.json: exit %d, stderr %q", r2.code, r2.stderr)
	}
}

// TestCompareGolden pins compare.md and compare.json for the example sweep
// against a copy whose latencies are all 1.3× higher: 3 runs a side, too
// few for any one level's test (those rows say how many runs they need),
// but each primary latency tested across the 3 levels reaches p =
// 2·(1/20)³ = 0.00025 (Holm over 7, energy per token among them: 0.0018): three regressions.
func TestCompareGolden(t *testing.T) {
	base := exampleSummary(t)
	dir := t.TempDir()
	writeSummary(t, dir, "base", base)
	writeSummary(t, dir, "slower", scaleLatencies(t, base, 1.3))
	goldenDir, err := filepath.Abs(filepath.Join("testdata", "golden", "compare"))
	if err != nil {
		t.Fatal(err)
	}
	// Relative input names, so the outputs do not depend on the temp dir.
	t.Chdir(dir)
	r := runCompareCLI(t, "base", "slower/summary.json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (regressions across levels); stderr %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 3 || lines[0] != "regression: TTFT p95 +30.0 % across 3 levels, stratified exact p = 0.0003 (Holm over 7 tests: 0.0018), 3 runs a side" {
		t.Errorf("stderr has %d lines, first %q", len(lines), lines[0])
	}
	goldenfile.Check(t, filepath.Join(goldenDir, "slower-3-runs.md"), r.files[render.MarkdownFile], *update)
	goldenfile.Check(t, filepath.Join(goldenDir, "slower-3-runs.json"), r.files[render.JSONFile], *update)
	html := r.files[render.HTMLFile]
	if n := bytes.Count(html, []byte("<figure")); n != 6 {
		t.Errorf("compare.html has %d figures, want 6 (3 curves, 3 levels)", n)
	}
	for _, external := range []string{"<img", "<script", "<link", "src=", "href=\"http"} {
		if bytes.Contains(html, []byte(external)) {
			t.Errorf("compare.html is not self-contained: it contains %q", external)
		}
	}
	again := runCompareCLI(t, "base", "slower/summary.json")
	for name, data := range r.files {
		if !bytes.Equal(data, again.files[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestCompareDifferentGPU(t *testing.T) {
	base := exampleSummary(t)
	other := copySummary(t, base)
	setEnv(other, "gpu", "NVIDIA H100 80GB HBM3")
	dir := t.TempDir()
	b, n := writeSummary(t, dir, "a", base), writeSummary(t, dir, "b", other)
	r := runCompareCLI(t, b, n)
	if r.code != 2 || !strings.HasPrefix(r.stderr, `not comparable: gpu ("NVIDIA L40S" vs "NVIDIA H100 80GB HBM3")`) {
		t.Errorf("exit %d stderr %q; want 2 naming the gpu", r.code, r.stderr)
	}
	if !strings.Contains(string(r.files[render.MarkdownFile]), "Comparability: **not comparable** (gpu differs)") {
		t.Error("compare.md does not say not comparable")
	}
	if r := runCompareCLI(t, b, n, "--expect", "gpu"); r.code != 0 {
		t.Errorf("--expect gpu: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCompareCLI(t, b, n, "--allow-incomparable"); r.code != 0 {
		t.Errorf("--allow-incomparable: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestCompareExpectClearsACaveat(t *testing.T) {
	base := exampleSummary(t)
	other := copySummary(t, base)
	setEnv(other, "engine_version", "0.17.0")
	dir := t.TempDir()
	b, n := writeSummary(t, dir, "a", base), writeSummary(t, dir, "b", other)
	r := runCompareCLI(t, b, n)
	md := string(r.files[render.MarkdownFile])
	if r.code != 0 || !strings.Contains(md, "Comparability: **comparable with caveats** (engine.version, findings).") ||
		!strings.Contains(md, "| engine.version | soft | 0.16.0 | 0.17.0 | caveat | differs: minor version differs |") {
		t.Errorf("exit %d; compare.md lacks the engine.version caveat:\n%s", r.code, md)
	}
	r = runCompareCLI(t, b, n, "--expect", "engine.version")
	md = string(r.files[render.MarkdownFile])
	if !strings.Contains(md, "Comparability: **comparable with caveats** (findings).") || !strings.Contains(md, "| engine.version | soft | 0.16.0 | 0.17.0 | none | differs (expected): minor version differs |") {
		t.Errorf("--expect engine.version did not clear the caveat:\n%s", md)
	}
}

func TestCompareEightRunsFlagsTheRegression(t *testing.T) {
	base := simSummary(t, 8)
	dir := t.TempDir()
	b := writeSummary(t, dir, "base", base)
	n := writeSummary(t, dir, "new", scaleLatencies(t, base, 1.3))
	r := runCompareCLI(t, b, n)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
	}
	// The gate: the three primary latencies, each tested once across
	// the 2 levels (every level at its extreme: p = 2/12870² = 1.2e-8).
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	want := []string{
		"regression: TTFT p95 +30.0 % across 2 levels, stratified exact p < 0.0001 (Holm over 7 tests: < 0.0001), 8 runs a side",
		"regression: TPOT p50 +30.0 % across 2 levels, stratified exact p < 0.0001 (Holm over 7 tests: < 0.0001), 8 runs a side",
		"regression: E2E p95 +30.0 % across 2 levels, stratified exact p < 0.0001 (Holm over 7 tests: < 0.0001), 8 runs a side",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr\n%s\nwant\n%s", r.stderr, strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(r.stdout, "Slower: TTFT p95 +30.0 % across 2 levels, stratified exact p < 0.0001 (Holm over 7 tests: < 0.0001), 8 runs a side; 2 more primary statistics.\n") {
		t.Errorf("stdout does not start with the verdict:\n%s", r.stdout)
	}
	// Where the eight runs of each side do not overlap, a level's own
	// test gives the exact floor for 8 vs 8: 2/C(16, 8) = 0.000155.
	md := string(r.files[render.MarkdownFile])
	if !strings.Contains(md, "**Regression**: 3 primary statistics flagged worse.") || !strings.Contains(md, "## Regressions at single levels (18, most severe first)") ||
		!strings.Contains(md, "| concurrency 1 | TPOT p50 | 19.59 ± <0.01 ms (8) | 25.46 ± <0.01 ms (8) | +30.0 % | 0.000155 (Holm 0.00497) | **regression** |") {
		t.Errorf("compare.md verdict:\n%.800s", md)
	}
	// Holm over the family still flags them: 2/12870 is below α/m.
	if r := runCompareCLI(t, b, n, "--correct", "holm"); r.code != 1 {
		t.Errorf("--correct holm: exit %d", r.code)
	}
	// Same sweep, 8 runs: no change.
	if r := runCompareCLI(t, b, b); r.code != 0 {
		t.Errorf("8-run sweep against itself: exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestCompareInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":"benchnote.summary/v0"}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{exampleSweep}, "expected 2 arguments (BASE NEW), got 1"},
		{[]string{exampleSweep, exampleSweep, "--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{exampleSweep, "no/such/dir"}, "no/such/dir"},
		{[]string{exampleSweep, bad}, `bad.json: schema "benchnote.summary/v0", expected "benchnote.summary/v4"`},
		{[]string{exampleSweep, exampleSweep, "--threshold", "ttft=5"}, `threshold "ttft=5": expected a percentage`},
		{[]string{exampleSweep, exampleSweep, "--threshold", "goodput=5%"}, "goodput changes in percentage points"},
		{[]string{exampleSweep, exampleSweep, "--expect", "gpus"}, `--expect "gpus": unknown key`},
		{[]string{exampleSweep, exampleSweep, "--fail-on", "always"}, `--fail-on "always"`},
		{[]string{exampleSweep, exampleSweep, "--correct", "bonferroni"}, `correction "bonferroni"`},
		{[]string{dir, exampleSweep}, "neither a sweep"},
		// Every float flag refuses NaN, infinities and values out of range.
		{[]string{exampleSweep, exampleSweep, "--threshold", "NaN%"}, `threshold "NaN%": "NaN" is not a number from 0 to 1000000`},
		{[]string{exampleSweep, exampleSweep, "--threshold", "goodput=infpp"}, `threshold "goodput=infpp": "inf" is not a number from 0 to 1000000`},
		{[]string{exampleSweep, exampleSweep, "--alpha", "NaN"}, "alpha NaN: expected a number between 0 and 1"},
		{[]string{exampleSweep, exampleSweep, "--alpha", "-Inf"}, "alpha -Inf: expected a number between 0 and 1"},
		{[]string{exampleSweep, exampleSweep, "--attainment", "NaN"}, "attainment NaN: expected a percentage in (0, 100]"},
		{[]string{exampleSweep, exampleSweep, "--attainment", "+Inf"}, "attainment +Inf: expected a percentage in (0, 100]"},
		{[]string{exampleSweep, exampleSweep, "--attainment", "101"}, "attainment 101: expected a percentage in (0, 100]"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(append([]string{"compare"}, tt.args...), &stdout, &stderr)
		if code != 3 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("compare %q: exit %d, stderr %q; want 3 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

func TestCompareStdoutWithoutOutputDir(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"compare", exampleSweep, exampleSweep}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "No change: none of the 7 primary statistics moved beyond its threshold with p \\< 0.05 (Holm over 7 tests).\n\n# benchnote compare\n") {
		t.Errorf("stdout does not carry compare.md: %.100q", stdout.String())
	}
}

// syntheticSummary builds a summary of levels × runs from the example
// sweep: level l (1-based) and run r (0-based) of statistic j take
// value(l, r, j) times the example's median of that statistic at c4 (a
// percentage at most 100). With fullRuns each run is a copy of an example
// run with a 2,000-point warm-up trace (the size of a run of a large
// sweep); otherwise runs carry only their accounting, which is all compare
// reads of them, and levels no CDFs, length histograms or bucket
// resolutions, which compare does not read (so that 1,000 levels stay
// within analyze.MaxSummaryBytes).
func syntheticSummary(tb testing.TB, levels, runs int, fullRuns bool, value func(l, r int, st analyze.AcrossRuns) float64) *analyze.Summary {
	tb.Helper()
	ex := exampleSummary(tb)
	s := copySummary(tb, ex)
	s.Levels, s.Runs = nil, nil
	proto := ex.Levels[1]
	for l := 1; l <= levels; l++ {
		lv := copyLevel(proto)
		lv.Concurrency = l
		if fullRuns {
			lv.Concurrency = 1 << (l - 1)
		} else {
			lv.CDFTTFT, lv.CDFTPOT, lv.CDFE2E, lv.ServerResolution = nil, nil, nil, nil
			lv.Workload.PromptHistogram, lv.Workload.OutputHistogram = nil, nil
		}
		lv.Runs = nil
		for r := 1; r <= runs; r++ {
			dir := fmt.Sprintf("c%d/run-%d", lv.Concurrency, r)
			lv.Runs = append(lv.Runs, dir)
			rs := analyze.RunSummary{Counts: ex.Runs[3].Counts}
			if fullRuns {
				rs = ex.Runs[3+(r-1)%3]
				rs.Warmup.Trace = make([]analyze.WarmupPoint, 2000)
				for i := range rs.Warmup.Trace {
					rs.Warmup.Trace[i] = analyze.WarmupPoint{Index: i + 1, TTFTms: analyze.Num(100 + i%37), BlockMedian: analyze.Num(100 + i%11)}
				}
			}
			rs.Dir, rs.Concurrency, rs.Repeat = dir, lv.Concurrency, r
			s.Runs = append(s.Runs, rs)
		}
		for j := range lv.Stats {
			st := &lv.Stats[j]
			var vals []float64
			st.PerRun = make([]analyze.Num, runs)
			for r := range st.PerRun {
				st.PerRun[r] = analyze.Num(float64(proto.Stats[j].Median) * value(l, r, *st))
				if st.Unit == "%" {
					// A percentage stays one (DecodeSummary refuses more).
					st.PerRun[r] = min(st.PerRun[r], 100)
				}
				if st.PerRun[r].Valid() {
					vals = append(vals, float64(st.PerRun[r]))
				}
			}
			st.Runs = len(vals)
			if len(vals) > 0 {
				st.Median, st.MAD = analyze.Num(analyze.Median(vals)), analyze.Num(analyze.MAD(vals, false))
			}
		}
		s.Levels = append(s.Levels, lv)
	}
	return s
}

// largeSummary is a sweep of many levels, every run's values spread by up
// to 10 % so that many rows change.
func largeSummary(t testing.TB, levels, runs, seed int) *analyze.Summary {
	return syntheticSummary(t, levels, runs, false, func(l, r int, _ analyze.AcrossRuns) float64 {
		return 1 + 0.1*float64((l*7+r*13+seed)%11)/10
	})
}

func copyLevel(l analyze.Level) analyze.Level {
	c := l
	c.Stats = append([]analyze.AcrossRuns{}, l.Stats...)
	for i := range c.Stats {
		c.Stats[i].PerRun = append([]analyze.Num{}, l.Stats[i].PerRun...)
	}
	return c
}

func TestCompareMarkdownStaysUnderTheLimit(t *testing.T) {
	dir := t.TempDir()
	b := writeSummary(t, dir, "base", largeSummary(t, 300, 6, 0))
	n := writeSummary(t, dir, "new", largeSummary(t, 300, 6, 5))
	r := runCompareCLI(t, b, n, "--fail-on", "any")
	md := string(r.files[render.MarkdownFile])
	if c := utf8.RuneCountInString(md); c >= render.MaxMarkdown || c < 20000 {
		t.Errorf("compare.md has %d characters, want fewer than %d (and not trivially few)", c, render.MaxMarkdown)
	}
	if !strings.Contains(md, "**Shortened** to stay under 60,000 characters") {
		t.Errorf("a shortened compare.md does not say so")
	}
	var doc struct {
		Levels []struct{ Rows []struct{ Verdict string } } `json:"levels"`
	}
	if err := json.Unmarshal(r.files[render.JSONFile], &doc); err != nil || len(doc.Levels) != 300 {
		t.Errorf("compare.json: %v, %d levels; want all 300", err, len(doc.Levels))
	}
}

// TestCompareMarkdownCapsErrorRateRises: 1,000 levels whose error rate
// rises in every run would list 1,000 error-rate rises; compare.md keeps
// under the limit, shows the worst first and says how many it left out.
func TestCompareMarkdownCapsErrorRateRises(t *testing.T) {
	base := largeSummary(t, 1000, 3, 0)
	nw := copySummary(t, base)
	for i := range nw.Runs {
		// Level L's three runs (i/3 = L − 1) fail 19 + L − 1 more of their
		// 376 measured requests: the rise grows with the level.
		c := &nw.Runs[i].Counts
		extra := 19 + i/3
		c.Errors += extra
		c.MultiToken -= extra
	}
	dir := t.TempDir()
	r := runCompareCLI(t, writeSummary(t, dir, "base", base), writeSummary(t, dir, "new", nw))
	// Every level rises 5 to 270 pp in every run: the error rate's test
	// across the 1,000 levels flags it, one line.
	if r.code != 1 || !strings.HasPrefix(r.stderr, "regression: error rate +") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, want 1 (the error rate's finding); stderr %q", r.code, r.stderr)
	}
	md := string(r.files[render.MarkdownFile])
	if c := utf8.RuneCountInString(md); c >= render.MaxMarkdown {
		t.Errorf("compare.md has %d characters, want fewer than %d", c, render.MaxMarkdown)
	}
	if !strings.Contains(md, "## Error-rate rises (1000)") || !regexp.MustCompile(`Left out: \d+ of 1000 error-rate rises`).MatchString(md) {
		t.Errorf("compare.md does not say it cut the error-rate rises:\n%.2000s", md)
	}
	// The first row shown is the worst: the last level.
	i := strings.Index(md, "| level | base median |")
	if i < 0 || !strings.Contains(md[i:i+600], "| concurrency 1000 |") {
		t.Errorf("the worst error-rate rise is not first:\n%.600s", md[max(i, 0):])
	}

}

func TestCompareNothingInCommon(t *testing.T) {
	ex := exampleSummary(t)
	a, b := copySummary(t, ex), copySummary(t, ex)
	a.Levels, b.Levels = a.Levels[:2], b.Levels[2:]
	dir := t.TempDir()
	r := runCompareCLI(t, writeSummary(t, dir, "a", a), writeSummary(t, dir, "b", b))
	want := "nothing compared: no level is present on both sides (base concurrency 1, concurrency 4, new concurrency 16) (--allow-incomparable passes anyway)\n"
	if r.code != 2 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	md := string(r.files[render.MarkdownFile])
	for _, s := range []string{"**Nothing compared**: no level is present on both sides", "exit **2**, nothing compared.",
		"- **base only** (2): concurrency 1 (3 runs), concurrency 4 (3 runs)", "- **new only** (1): concurrency 16 (3 runs)"} {
		if !strings.Contains(md, s) {
			t.Errorf("compare.md lacks %q:\n%s", s, md)
		}
	}
}

// TestCompareUsesTheSweepsAttainment: with no --attainment, compare's
// "highest load meeting the SLO" uses the sweeps' slo.attainment (as their
// reports do) when both have the same one; --attainment overrides it.
func TestCompareUsesTheSweepsAttainment(t *testing.T) {
	s := exampleSummary(t)
	s.Method.SLO.Attainment = 0.95
	dir := t.TempDir()
	base, nw := writeSummary(t, dir, "base.json", s), writeSummary(t, dir, "new.json", copySummary(t, s))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "is at least 95 %."},
		{[]string{"--attainment", "80"}, "is at least 80 %."},
	} {
		r := runCompareCLI(t, append(tt.args, base, nw)...)
		if md := string(r.files[render.MarkdownFile]); !strings.Contains(md, tt.want) {
			t.Errorf("compare %v: compare.md lacks %q (exit %d, %s)", tt.args, tt.want, r.code, r.stderr)
		}
	}
}

// TestCompareNamesAreEscaped: a summary's path holding a newline, markup
// and a terminal escape cannot forge a heading or a table row in
// compare.md, or a line or an element in compare.html's <title>.
func TestCompareNamesAreEscaped(t *testing.T) {
	s := exampleSummary(t)
	dir := t.TempDir()
	base := writeSummary(t, dir, "base\n# forged heading\n| forged | row |", s)
	nw := writeSummary(t, dir, "new</title><script>x</script>\x1b[31m", s)
	r := runCompareCLI(t, base, nw)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, line := range strings.Split(string(r.files[render.MarkdownFile]), "\n") {
		if strings.HasPrefix(line, "# forged") || strings.HasPrefix(line, "| forged") {
			t.Errorf("compare.md has a forged line %q", line)
		}
	}
	page := string(r.files[render.HTMLFile])
	start, end := strings.Index(page, "<title>"), strings.Index(page, "</title>")
	want := "<title>benchnote compare: " + dir + `/base\n# forged heading\n| forged | row |/summary.json → ` + dir + "/new&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;\\x1b[31m/summary.json</title>"
	if start < 0 || end < start || page[start:end+len("</title>")] != want {
		t.Errorf("compare.html title\n%s\nwant\n%s", page[start:end+len("</title>")], want)
	}
	if strings.Contains(page, "\x1b") || strings.Count(page, "<script") != 0 {
		t.Error("compare.html holds a raw escape or a script element")
	}
}
