package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/compare/render"
	"github.com/benchnote/benchnote/ingest"
	goldenfile "github.com/benchnote/benchnote/internal/golden"
	"github.com/benchnote/benchnote/internal/sim"
)

// comparePairSweepDir writes a native sweep of two series, max_num_seqs=128 and
// max_num_seqs=256, each 3 runs at concurrency 1 and 4: two simulated
// sweeps (the 256 one's engine steps and prefill faster by speedup) put
// from the same seed (the same requests) put under mns128/ and mns256/ of
// one root, each run.yaml given its series
// and each series directory its own env.json (max_num_seqs 128 or 256).
func comparePairSweepDir(t *testing.T, speedup float64) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sweep")
	for i, s := range []struct {
		maxNumSeqs int
		factor     float64
	}{{128, 1}, {256, speedup}} {
		cfg := sim.DefaultConfig().WithRequests(60)
		cfg.Levels = cfg.Levels[:2]
		cfg.Stalls = nil
		cfg.Seed = 1 // the same requests: only the engine differs
		cfg.Start = time.Date(2026, 11, 2+i, 9, 0, 0, 0, time.UTC)
		cfg.Server.MaxNumSeqs = s.maxNumSeqs
		cfg.Server.StepBaseMs *= s.factor
		cfg.Server.StepPerSeqMs *= s.factor
		cfg.Server.PrefillPerTokenMs *= s.factor
		sw, err := sim.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(t.TempDir(), "one")
		if err := sw.Write(tmp); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			for _, f := range []string{"sweep.yaml", "env.txt"} {
				copyFile(t, filepath.Join(tmp, f), filepath.Join(root, f))
			}
		}
		dir := filepath.Join(root, fmt.Sprintf("mns%d", s.maxNumSeqs))
		copyFile(t, filepath.Join(tmp, "env.json"), filepath.Join(dir, "env.json"))
		for _, r := range sw.Runs {
			for _, f := range []string{"run.yaml", "requests.csv", "requests.parquet", "metrics-start.prom", "metrics-end.prom"} {
				src := filepath.Join(tmp, r.Dir(), f)
				if _, err := os.Stat(src); err == nil {
					copyFile(t, src, filepath.Join(dir, r.Dir(), f))
				}
			}
			yaml := filepath.Join(dir, r.Dir(), "run.yaml")
			data, err := os.ReadFile(yaml)
			if err != nil {
				t.Fatal(err)
			}
			data = fmt.Appendf(data, "series: {max_num_seqs: %d}\n", s.maxNumSeqs)
			if err := os.WriteFile(yaml, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// seriesSummary analyses comparePairSweepDir(t, 0.7) and writes its summary as
// DIR/name/summary.json, returning that path.
func seriesSummary(t *testing.T, dir, name string) (string, *analyze.Summary) {
	t.Helper()
	sw, err := ingest.Load(comparePairSweepDir(t, 0.7), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := analyze.Analyze(sw)
	return writeSummary(t, dir, name, s), s
}

// TestCompareSeriesPair compares the two series of one native sweep,
// max_num_seqs=128 against max_num_seqs=256 (30 % faster engine steps):
// levels meet by load, the environment's max_num_seqs differs as the
// label says, and every latency is lower beyond the threshold, undecided
// with 3 runs a side (exit 0: only changes for the worse fail).
func TestCompareSeriesPair(t *testing.T) {
	goldenDir, err := filepath.Abs(filepath.Join("testdata", "golden", "compare"))
	if err != nil {
		t.Fatal(err)
	}
	sweep := comparePairSweepDir(t, 0.7)
	t.Chdir(filepath.Dir(sweep))
	pair := []string{"--base-series", "max_num_seqs=128", "--new-series", "max_num_seqs=256"}
	r := runCompareCLI(t, append([]string{"sweep", "sweep"}, pair...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	md := string(r.files[render.MarkdownFile])
	goldenfile.Check(t, filepath.Join(goldenDir, "series-pair.md"), r.files[render.MarkdownFile], *update)
	for _, want := range []string{
		"**Series:** base `max_num_seqs=128` against new `max_num_seqs=256`, levels matched by load alone. The labels that differ (`max_num_seqs`) are the change under test",
		"Two series are compared, and their labels say what differs: `max_num_seqs` 128 → 256 (expects max_num_seqs to differ).",
		"| max_num_seqs | soft | 128 | 256 | none | differs (expected): the series label max\\_num\\_seqs differs |",
		"### concurrency 4 (base 3 runs, new 3 runs)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q", want)
		}
	}
	var doc struct {
		Options struct {
			Pair map[string]map[string]string `json:"series_pair"`
		} `json:"options"`
		Series struct {
			Paired   bool
			Compared []map[string]map[string]string
		} `json:"series"`
		Comparability struct {
			Labels []compare.LabelChange `json:"labels"`
		} `json:"comparability"`
	}
	if err := json.Unmarshal(r.files[render.JSONFile], &doc); err != nil {
		t.Fatal(err)
	}
	wantPair := map[string]map[string]string{"base": {"max_num_seqs": "128"}, "new": {"max_num_seqs": "256"}}
	if !reflect.DeepEqual(doc.Options.Pair, wantPair) || !doc.Series.Paired || !reflect.DeepEqual(doc.Series.Compared, []map[string]map[string]string{wantPair}) {
		t.Errorf("compare.json options %+v series %+v", doc.Options, doc.Series)
	}
	if want := []compare.LabelChange{{Label: "max_num_seqs", Base: "128", New: "256", Rules: []string{"max_num_seqs"}}}; !reflect.DeepEqual(doc.Comparability.Labels, want) {
		t.Errorf("compare.json labels %+v, want %+v", doc.Comparability.Labels, want)
	}
	if n := bytes.Count(r.files[render.HTMLFile], []byte("<figure")); n != 5 {
		t.Errorf("compare.html has %d figures, want 5 (3 curves, 2 levels)", n)
	}

	// The other way round every change is for the worse (the same
	// requests, engine steps 1/0.7 slower: latencies +39 to +43 %, output
	// tokens/s −29.9 %): each of the four primary statistics that moved is
	// at its extreme at both levels, p = 2·(1/20)² = 0.005, Holm over the
	// 6 primary statistics 0.03 < 0.05: four regressions, exit 1.
	rev := runCompareCLI(t, "sweep", "sweep", "--base-series", "max_num_seqs=256", "--new-series", "max_num_seqs=128")
	lines := strings.Split(strings.TrimSpace(rev.stderr), "\n")
	if rev.code != 1 || len(lines) != 4 || lines[0] != "regression: TPOT p50 +42.8 % (+42.7 % to +42.9 %) across 2 levels, stratified exact p = 0.0050 (Holm over 6 tests: 0.0300), 3 runs a side" {
		t.Errorf("reversed: exit %d, %d stderr lines; want 1 and 4 regressions\n%s", rev.code, len(lines), rev.stderr)
	}

	// The same sweep as a report directory and as its summary.json: the
	// same comparison.
	var so, se bytes.Buffer
	if code := Run([]string{"report", "sweep", "-o", "rep"}, &so, &se); code != 0 {
		t.Fatal(se.String())
	}
	r2 := runCompareCLI(t, append([]string{"rep", "rep/summary.json"}, pair...)...)
	md2 := string(r2.files[render.MarkdownFile])
	if i, j := strings.Index(md, "## Verdict"), strings.Index(md2, "## Verdict"); r2.code != 0 || i < 0 || j < 0 || md[i:] != md2[j:] {
		t.Errorf("report directory against its summary.json: exit %d, compare.md differs from the sweep's", r2.code)
	}
}

// TestCompareSeriesMatched compares the two-series sweep with itself:
// each series against its namesake, levels named with their series, the
// SLO headline per series and a pair of curves per series.
func TestCompareSeriesMatched(t *testing.T) {
	dir := t.TempDir()
	two, _ := seriesSummary(t, dir, "two")
	r := runCompareCLI(t, two, two)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	md := string(r.files[render.MarkdownFile])
	for _, want := range []string{
		"**Series** (matched by their labels): 2 compared, `max_num_seqs=128`, `max_num_seqs=256`.\n\n## Verdict",
		"| series | base: highest level (median) | new: highest level (median) | base: every run / one run | new: every run / one run |\n| --- | --- | --- | --- | --- |\n" +
			"| `max_num_seqs=128` | **concurrency 4** (goodput 98.7 ± 1.3 % (3)) | **concurrency 4** (goodput 98.7 ± 1.3 % (3)) | concurrency 4 / concurrency 4 | concurrency 4 / concurrency 4 |\n" +
			"| `max_num_seqs=256` | **concurrency 4** (goodput 98.7 ± 1.3 % (3)) | **concurrency 4** (goodput 98.7 ± 1.3 % (3)) | concurrency 4 / concurrency 4 | concurrency 4 / concurrency 4 |\n",
		"Same on both sides: gpu, gpu.count, model, precision, engine, method.percentile, slo, engine.version, driver, cuda, pytorch, python, max_num_seqs,",
		"### concurrency 1 (max\\_num\\_seqs=128) (base 3 runs, new 3 runs)",
		"### concurrency 4 (max\\_num\\_seqs=256) (base 3 runs, new 3 runs)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q", want)
		}
	}
	html := r.files[render.HTMLFile]
	if n := bytes.Count(html, []byte("<figure")); n != 7 || !bytes.Contains(html, []byte("base max_num_seqs=256")) {
		t.Errorf("compare.html has %d figures, want 7 (3 curves, 4 levels), with a curve named base max_num_seqs=256", n)
	}
}

// TestCompareSeriesOnOneSide: the new sweep lacks max_num_seqs=256; the
// series is listed with the levels and runs left out, on stdout too.
func TestCompareSeriesOnOneSide(t *testing.T) {
	dir := t.TempDir()
	base, s := seriesSummary(t, dir, "two")
	only := copySummary(t, s)
	only.Levels = only.Levels[:2]
	only.Runs = only.Runs[:6]
	nw := writeSummary(t, dir, "one", only)
	r := runCompareCLI(t, base, nw)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	wantOut := "not compared: series {max_num_seqs=256} only in base (2 levels, 6 runs left out)\n"
	if _, after, _ := strings.Cut(r.stdout, "compare.json\n"); after != wantOut {
		t.Errorf("stdout %q, want the wrote line then %q", r.stdout, wantOut)
	}
	md := string(r.files[render.MarkdownFile])
	for _, want := range []string{
		"(2 series, 4 levels, 12 runs)  \n**New:** ",
		"(2 levels, 6 runs)\n\n**Series** (matched by their labels): `max_num_seqs=128`.\n\n**Series on one side only**, not compared (their levels are left out):\n\n- **base only** (1): `max_num_seqs=256` (2 levels, 6 runs)\n\n## Verdict",
		"### concurrency 4 (base 3 runs, new 3 runs)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q:\n%.1200s", want, md)
		}
	}
	if strings.Contains(md, "Levels on one side only") {
		t.Error("compare.md lists the left-out series' levels as levels")
	}
	var doc struct {
		Series struct {
			OnlyBase []struct {
				Series       map[string]string
				Levels, Runs int
			} `json:"only_base"`
			OnlyNew []any `json:"only_new"`
		} `json:"series"`
	}
	if err := json.Unmarshal(r.files[render.JSONFile], &doc); err != nil {
		t.Fatal(err)
	}
	if o := doc.Series.OnlyBase; len(o) != 1 || o[0].Series["max_num_seqs"] != "256" || o[0].Levels != 2 || o[0].Runs != 6 || len(doc.Series.OnlyNew) != 0 {
		t.Errorf("compare.json series %+v", doc.Series)
	}
	// --series picks the one both have: nothing is left out.
	r = runCompareCLI(t, base, nw, "--series", "max_num_seqs=128")
	if md := string(r.files[render.MarkdownFile]); r.code != 0 || !strings.Contains(md, "**Series** (matched by their labels): `max_num_seqs=128`. Selected by `--series max_num_seqs=128`.\n\n## Verdict") {
		t.Errorf("--series max_num_seqs=128: exit %d\n%.800s", r.code, md)
	}
}

func TestCompareSeriesErrors(t *testing.T) {
	dir := t.TempDir()
	seriesSummary(t, dir, "two")
	t.Chdir(dir)
	two := "two/summary.json"
	hint := "run 'benchnote compare -h' for usage\n"
	series := "{max_num_seqs=128}, {max_num_seqs=256}"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--series", "tp=2"}, "benchnote compare: --series tp=2: no series of base two/summary.json has a label tp; its series: " + series + "\n"},
		{[]string{"--series", "max_num_seqs=64"}, "benchnote compare: --series max_num_seqs=64: no series of base two/summary.json matches; its series: " + series + "\n"},
		{[]string{"--base-series", "max_num_seqs=64", "--new-series", "max_num_seqs=256"},
			"benchnote compare: --base-series max_num_seqs=64: no series of base two/summary.json matches; its series: " + series + "\n"},
		{[]string{"--base-series", "", "--new-series", "max_num_seqs=256"},
			`benchnote compare: --base-series "": base two/summary.json has 2 series, and an empty selector picks a side's only one; pick one: ` + series + "\n"},
		{[]string{"--base-series", "max_num_seqs=128"}, "benchnote compare: --base-series and --new-series go together: each picks the series of one side\n" + hint},
		{[]string{"--new-series", "max_num_seqs=128"}, "benchnote compare: --base-series and --new-series go together: each picks the series of one side\n" + hint},
		{[]string{"--series", "max_num_seqs=128", "--base-series", "max_num_seqs=128", "--new-series", "max_num_seqs=256"},
			"benchnote compare: --series selects series on both sides; --base-series and --new-series pick one on each: give one or the other\n" + hint},
		{[]string{"--series", "tp"}, `benchnote compare: --series: series selector "tp": expected KEY=VALUE[,KEY=VALUE], got "tp"` + "\n" + hint},
		{[]string{"--series", ""}, `benchnote compare: --series: series selector "": expected KEY=VALUE[,KEY=VALUE], got ""` + "\n" + hint},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(append([]string{"compare", two, two}, tt.args...), &stdout, &stderr)
		if code != 3 || stderr.String() != tt.want || stdout.Len() != 0 {
			t.Errorf("compare %q: exit %d, stderr %q; want 3 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
