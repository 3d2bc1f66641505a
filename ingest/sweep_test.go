package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeTree creates files (slash paths → contents) under a temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const okCSV = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,10,3,100,140\n"

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"2026-11-02T10:00:00Z", time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC), false},
		{"2026-11-02T11:00:00.25+01:00", time.Date(2026, 11, 2, 10, 0, 0, 250_000_000, time.UTC), false},
		{"1793613600", time.Unix(1793613600, 0).UTC(), false},
		{"1793613600.5", time.Unix(1793613600, 500_000_000).UTC(), false},
		{"yesterday", time.Time{}, true},
		{"-5", time.Time{}, true},
		// From 1970 to the end of 9999 (MinUnixSeconds to MaxUnixSeconds).
		{"0", time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"1970-01-01T00:00:00Z", time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"1970-01-01T00:30:00+01:00", time.Time{}, true},
		{"253402300799", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), false},
		{"253402300799.5", time.Time{}, true},
		{"253402300800", time.Time{}, true},
		{"9999-12-31T23:59:59Z", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), false},
		{"9999-12-31T23:59:59.5Z", time.Time{}, true},
		{"9999-12-31T23:59:58.5Z", time.Date(9999, 12, 31, 23, 59, 58, 500_000_000, time.UTC), false},
		{"9999-12-31T23:59:59-01:00", time.Time{}, true}, // 10000-01-01T00:59:59Z
		{"1e300", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if (err != nil) != tt.err || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestConcurrencyFromPath(t *testing.T) {
	tests := []struct {
		dir  string
		want int
		ok   bool
	}{
		{"c8/run-1", 8, true},
		{"sweep/conc16/r2", 16, true},
		{"concurrency-4/a", 4, true},
		{"concurrency_32", 32, true},
		{"concurrency=2/x/y", 2, true},
		{"c4/c8/run", 8, true}, // the segment closest to the run wins
		{"C12/run", 12, true},
		{"cache/run-1", 0, false},
		{"c0/run", 0, false},
	}
	for _, tt := range tests {
		got, ok := concurrencyFromPath(tt.dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("concurrencyFromPath(%q) = %d, %v; want %d, %v", tt.dir, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLoadSweepLayout(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sweep.yaml":              "title: T\nwarmup: none\nslo: {ttft_ms: 500}\n",
		"env.json":                `{"gpu": "NVIDIA L40S", "engine_version": "0.16.0"}`,
		"c4/b/requests.csv":       okCSV,
		"c4/a/requests.csv":       okCSV,
		"c4/a/notes.txt":          "x",
		"c4/z/requests.csv":       okCSV,
		"c4/z/run.yaml":           "repeat: 1\nwindow: {start: 1700000000, end: 2023-11-14T22:13:30Z}\nmax_tokens: 64\n",
		"c4/z/env.txt":            "engine_version: 0.15.0\n",
		"odd/run/requests.csv":    okCSV,
		"odd/run/run.yaml":        "concurrency: 2\n",
		"stray.csv":               "1,2\n",
		"c4/.hidden/requests.csv": okCSV,
	})
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sw.Config.Title != "T" || sw.Config.Warmup.Mode != "none" || sw.Config.SLO.TTFTms != 500 || sw.Config.SLO.TPOTms != 150 {
		t.Errorf("config = %+v", sw.Config)
	}
	var got []string
	for _, r := range sw.Runs {
		got = append(got, r.Dir+":"+string(rune('0'+r.Concurrency%10))+":"+r.RepeatSource)
	}
	// c4/z claims repeat 1; a and b follow in path order as 2 and 3.
	want := []string{"odd/run:2:path order", "c4/z:4:run.yaml", "c4/a:4:path order", "c4/b:4:path order"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("runs = %v, want %v", got, want)
	}
	z := sw.Runs[1]
	if z.Repeat != 1 || z.MaxTokens != 64 || z.Window.Source != "run.yaml" || z.Window.Seconds() != 10 {
		t.Errorf("c4/z = repeat %d, max_tokens %d, window %+v (%v s)", z.Repeat, z.MaxTokens, z.Window, z.Window.Seconds())
	}
	if sw.Runs[2].Repeat != 2 || sw.Runs[3].Repeat != 3 {
		t.Errorf("repeats of c4/a, c4/b = %d, %d; want 2, 3", sw.Runs[2].Repeat, sw.Runs[3].Repeat)
	}
	if sw.Runs[2].Window.Source != "unknown" {
		t.Errorf("c4/a window = %+v, want unknown", sw.Runs[2].Window)
	}
	if z.Env.Canonical["engine_version"] != "0.15.0" || z.Env.Canonical["gpu"] != "NVIDIA L40S" {
		t.Errorf("c4/z env = %v, want the run's engine_version over the sweep's, and the sweep's gpu", z.Env.Canonical)
	}
	if len(sw.EnvDiffs) != 1 || sw.EnvDiffs[0].Key != "engine_version" || len(sw.EnvDiffs[0].Values) != 2 ||
		strings.Join(sw.EnvDiffs[0].Values[0].Runs, ",") != "c4/z" {
		t.Errorf("env diffs = %+v, want engine_version: 0.15.0 in c4/z, 0.16.0 elsewhere", sw.EnvDiffs)
	}
	var ignored []string
	for _, f := range sw.IgnoredFiles {
		ignored = append(ignored, f.Path+" ("+f.Reason+")")
	}
	wantIgnored := "c4/.hidden/ (hidden directory); c4/a/notes.txt (not part of the input contract); stray.csv (not in a run directory)"
	if strings.Join(ignored, "; ") != wantIgnored {
		t.Errorf("ignored = %q, want %q", strings.Join(ignored, "; "), wantIgnored)
	}
}

func TestLoadRunProblems(t *testing.T) {
	root := writeTree(t, map[string]string{
		"nolevel/requests.csv":          okCSV,
		"c2/both/requests.csv":          okCSV,
		"c2/both/requests.parquet":      "PAR1",
		"c2/badyaml/requests.csv":       okCSV,
		"c2/badyaml/run.yaml":           "concurrency: many\nwindow: {start: 10, end: 5}\ncolour: red\n",
		"c2/scrapes/requests.csv":       okCSV,
		"c2/scrapes/metrics-start.prom": "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 5 1700000000000\n",
		"c2/scrapes/metrics-end.prom":   "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 8 1700000060000\n",
	})
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byDir := map[string]*Run{}
	for _, r := range sw.Runs {
		byDir[r.Dir] = r
	}
	diag := func(dir string) string {
		var out []string
		for _, d := range byDir[dir].Diagnostics {
			out = append(out, d.String())
		}
		return strings.Join(out, "\n")
	}
	if r := byDir["nolevel"]; !r.Failed || !strings.Contains(diag("nolevel"), `cannot tell the load level of run directory "nolevel"`) {
		t.Errorf("nolevel: failed %v, diagnostics %s", r.Failed, diag("nolevel"))
	}
	if r := byDir["c2/both"]; !r.Failed || !strings.Contains(diag("c2/both"), "both requests.csv and requests.parquet") {
		t.Errorf("c2/both: failed %v, diagnostics %s", r.Failed, diag("c2/both"))
	}
	want := []string{
		`c2/badyaml/run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "many"`,
		`c2/badyaml/run.yaml:2:26: error: window.end: expected a time after window.start (10), got "5"`,
		`c2/badyaml/run.yaml:3:1: warning: unknown setting "colour" is ignored`,
	}
	if got := diag("c2/badyaml"); !strings.HasPrefix(got, strings.Join(want, "\n")) {
		t.Errorf("c2/badyaml diagnostics:\n%s\nwant first:\n%s", got, strings.Join(want, "\n"))
	}
	s := byDir["c2/scrapes"]
	if s.Window.Source != "scrapes" || s.Window.Seconds() != 60 {
		t.Errorf("window from scrape timestamps = %+v (%v s), want 60 s from scrapes", s.Window, s.Window.Seconds())
	}
}

func TestParseSweepConfigErrors(t *testing.T) {
	tests := []struct {
		yaml, want string
	}{
		{"percentile: median\n", `sweep.yaml:1:13: error: percentile: expected "nearest-rank" or "linear", got "median"`},
		{"mad: 3\n", `sweep.yaml:1:6: error: mad: expected "raw" or "scaled", got "3"`},
		{"slo:\n  ttft_ms: fast\n", `sweep.yaml:2:12: error: slo.ttft_ms: expected a number in [0, 86,400,000] (milliseconds; 0 disables it), got "fast"`},
		{"metrics:\n  throughput: [x]\n", `sweep.yaml:2:3: error: metrics: unknown role "throughput"`},
		{"warmup: sometimes\n", `sweep.yaml:1:9: error: warmup: expected "changepoint", "mser5", "stabilisation", "fixed" or "none" or a mapping, got "sometimes"`},
		{"title: [unclosed\n", `sweep.yaml:1: error: not valid YAML: yaml: line 1:`},
	}
	for _, tt := range tests {
		_, _, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseSweepConfig(%q) error = %v, want prefix %q", tt.yaml, err, tt.want)
		}
	}
	cfg, diags, err := ParseSweepConfig([]byte("metrics:\n  generation_tokens: sglang:generation_tokens\n  ttft: [a, b]\nlabel_selector: {engine: \"1\"}\nmad: scaled\n"), "sweep.yaml")
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	if cfg.Metrics[RoleGenerationTokens][0] != "sglang:generation_tokens" || len(cfg.Metrics[RoleTTFT]) != 2 ||
		cfg.LabelSelector["engine"] != "1" || cfg.MAD != "scaled" || cfg.Metrics[RoleITL][0] != "vllm:inter_token_latency_seconds" {
		t.Errorf("config = %+v", cfg)
	}
}

func TestParseSweepConfigErrorRateThreshold(t *testing.T) {
	tests := []struct {
		yaml    string
		want    float64
		wantErr string
	}{
		{"title: x\n", 0.01, ""},
		{"error_rate_threshold: 0.05\n", 0.05, ""},
		{"error_rate_threshold: 1\n", 1, ""},
		{"error_rate_threshold: 0\n", 0, `sweep.yaml:1:23: error: error_rate_threshold: expected a share in (0, 1], e.g. 0.01 for 1 %, got "0"`},
		{"error_rate_threshold: 1.5\n", 0, `sweep.yaml:1:23: error: error_rate_threshold: expected a share in (0, 1], e.g. 0.01 for 1 %, got "1.5"`},
		{"error_rate_threshold: 5%\n", 0, `sweep.yaml:1:23: error: error_rate_threshold: expected a share in (0, 1], e.g. 0.01 for 1 %, got "5%"`},
		{"error_rate_threshold: .nan\n", 0, `sweep.yaml:1:23: error: error_rate_threshold: expected a share in (0, 1], e.g. 0.01 for 1 %, got ".nan"`},
		{"error_rate_threshold: [0.1]\n", 0, `sweep.yaml:1:23: error: error_rate_threshold: expected a share in (0, 1], e.g. 0.01 for 1 %, got ""`},
	}
	for _, tt := range tests {
		cfg, _, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error = %v, want %s", tt.yaml, err, tt.wantErr)
			}
		case err != nil || cfg.ErrorRateThreshold != tt.want:
			t.Errorf("%q: threshold = %v, err = %v; want %v", tt.yaml, cfg.ErrorRateThreshold, err, tt.want)
		}
	}
}

// TestParseSweepConfigWarmup checks every warm-up setting: the modes, the
// parameters each takes, and the range of each, with file:line:column and
// the allowed range in the message (issue 7: settings are range-checked).
func TestParseSweepConfigWarmup(t *testing.T) {
	def := DefaultConfig().Warmup
	if def != (WarmupConfig{Mode: WarmupChangePoint, Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3}) {
		t.Errorf("default warm-up = %+v", def)
	}
	good := []struct {
		yaml  string
		want  WarmupConfig
		diags []string
	}{
		{"warmup: none\n", WarmupConfig{Mode: "none", Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: stabilization\n", WarmupConfig{Mode: "stabilisation", Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: mser5\n", WarmupConfig{Mode: "mser5", Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: {mode: changepoint, min_slowdown: 0}\n", WarmupConfig{Mode: "changepoint", Alpha: 0.01, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: {mode: changepoint, min_slowdown: 1}\n", WarmupConfig{Mode: "changepoint", Alpha: 0.01, MinSlowdown: 1, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: {mode: changepoint, alpha: 0.05}\n", WarmupConfig{Mode: "changepoint", Alpha: 0.05, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: {alpha: 0.5, mode: changepoint}\n", WarmupConfig{Mode: "changepoint", Alpha: 0.5, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3}, nil},
		{"warmup: {mode: stabilisation, window: 25, tolerance: 0.10, consecutive: 2}\n", WarmupConfig{Mode: "stabilisation", Alpha: 0.01, MinSlowdown: 0.02, Window: 25, Tolerance: 0.1, Consecutive: 2}, nil},
		{"warmup: {mode: fixed, count: 0}\n", WarmupConfig{Mode: "fixed", Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3, Count: 0}, nil},
		{"warmup: {mode: fixed, count: 1000000}\n", WarmupConfig{Mode: "fixed", Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3, Count: 1000000}, nil},
		{"warmup:\n  mode: mser5\n  window: 20\n  colour: red\n", WarmupConfig{Mode: "mser5", Alpha: 0.01, MinSlowdown: 0.02, Window: 20, Tolerance: 0.02, Consecutive: 3}, []string{
			`sweep.yaml:3:3: warning: warmup.window applies to mode "stabilisation" and is ignored with mode "mser5"`,
			`sweep.yaml:4:3: warning: unknown setting "warmup.colour" is ignored`,
		}},
	}
	for _, tt := range good {
		cfg, diags, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
		if err != nil {
			t.Errorf("%q: %v", tt.yaml, err)
			continue
		}
		if cfg.Warmup != tt.want {
			t.Errorf("%q: warm-up = %+v, want %+v", tt.yaml, cfg.Warmup, tt.want)
		}
		var got []string
		for _, d := range diags {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != strings.Join(tt.diags, "\n") {
			t.Errorf("%q: diagnostics\n%s\nwant\n%s", tt.yaml, strings.Join(got, "\n"), strings.Join(tt.diags, "\n"))
		}
	}
	bad := []struct{ yaml, want string }{
		{"warmup: fixed\n", `sweep.yaml:1:9: error: warmup: mode "fixed" needs a count: write warmup: {mode: fixed, count: N}`},
		{"warmup: [a]\n", `sweep.yaml:1:9: error: warmup: expected "changepoint", "mser5", "stabilisation", "fixed" or "none" or a mapping, got ""`},
		{"warmup: {window: 20}\n", `sweep.yaml:1:9: error: warmup: a mapping needs a mode, one of "changepoint", "mser5", "stabilisation", "fixed" or "none"`},
		{"warmup: {mode: pettitt}\n", `sweep.yaml:1:16: error: warmup.mode: expected one of "changepoint", "mser5", "stabilisation", "fixed" or "none", got "pettitt"`},
		{"warmup: {mode: fixed}\n", `sweep.yaml:1:9: error: warmup: mode "fixed" needs a count (an integer from 0 to 1000000)`},
		{"warmup: {mode: fixed, count: -1}\n", `sweep.yaml:1:30: error: warmup.count: expected an integer from 0 to 1000000, got "-1"`},
		{"warmup: {mode: fixed, count: 1000001}\n", `sweep.yaml:1:30: error: warmup.count: expected an integer from 0 to 1000000, got "1000001"`},
		{"warmup: {mode: fixed, count: 40.0}\n", `sweep.yaml:1:30: error: warmup.count: expected an integer from 0 to 1000000, got "40.0"`},
		{"warmup: {mode: stabilisation, window: 1e10}\n", `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "1e10"`},
		{"warmup: {mode: stabilisation, window: 3e8}\n", `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "3e8"`},
		{"warmup: {mode: stabilisation, window: 1e300}\n", `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "1e300"`},
		{"warmup: {mode: stabilisation, window: 2.7}\n", `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "2.7"`},
		{"warmup: {mode: stabilisation, window: 1}\n", `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "1"`},
		{"warmup: {mode: stabilisation, consecutive: 0}\n", `sweep.yaml:1:44: error: warmup.consecutive: expected an integer from 1 to 1000000, got "0"`},
		{"warmup: {mode: stabilisation, consecutive: 2.5}\n", `sweep.yaml:1:44: error: warmup.consecutive: expected an integer from 1 to 1000000, got "2.5"`},
		{"warmup: {mode: stabilisation, tolerance: 1}\n", `sweep.yaml:1:42: error: warmup.tolerance: expected a number greater than 0 and less than 1, got "1"`},
		{"warmup: {mode: stabilisation, tolerance: 0}\n", `sweep.yaml:1:42: error: warmup.tolerance: expected a number greater than 0 and less than 1, got "0"`},
		{"warmup: {mode: stabilisation, tolerance: .nan}\n", `sweep.yaml:1:42: error: warmup.tolerance: expected a number greater than 0 and less than 1, got ".nan"`},
		{"warmup: {mode: changepoint, alpha: 0}\n", `sweep.yaml:1:36: error: warmup.alpha: expected a number greater than 0 and at most 0.5, got "0"`},
		{"warmup: {mode: changepoint, alpha: 0.51}\n", `sweep.yaml:1:36: error: warmup.alpha: expected a number greater than 0 and at most 0.5, got "0.51"`},
		{"warmup: {mode: changepoint, min_slowdown: -0.1}\n", `sweep.yaml:1:43: error: warmup.min_slowdown: expected a number from 0 to 1, got "-0.1"`},
		{"warmup: {mode: changepoint, min_slowdown: 5%}\n", `sweep.yaml:1:43: error: warmup.min_slowdown: expected a number from 0 to 1, got "5%"`},
		{"warmup: {mode: changepoint, alpha: NaN}\n", `sweep.yaml:1:36: error: warmup.alpha: expected a number greater than 0 and at most 0.5, got "NaN"`},
		// A bad value is an error even for a parameter the mode ignores.
		{"warmup: {mode: changepoint, window: 2.7}\n", `sweep.yaml:1:37: error: warmup.window: expected an integer from 2 to 1000000, got "2.7"`},
	}
	for _, tt := range bad {
		_, _, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: error = %v\nwant %s", tt.yaml, err, tt.want)
		}
	}
}

// FuzzParseSweepConfigWarmup: whatever follows "warmup:", parsing never
// panics, and a setting it accepts is inside every documented range.
//
//	go test ./ingest -run '^$' -fuzz FuzzParseSweepConfigWarmup -fuzztime 60s
func FuzzParseSweepConfigWarmup(f *testing.F) {
	for _, seed := range []string{
		"none", "changepoint", "mser5", "stabilization", "{mode: fixed, count: 40}",
		"{mode: changepoint, alpha: 0.01, min_slowdown: 0.02}", "{mode: stabilisation, window: 1e10}",
		"{mode: stabilisation, window: 25, tolerance: 0.1, consecutive: 2}", "[1, 2]", "{mode: fixed, count: 2.5}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		var cfg Config
		var err error
		withinBudget(t, "ParseSweepConfig", len(value), func() { cfg, _, err = ParseSweepConfig([]byte("warmup: "+value+"\n"), "sweep.yaml") })
		if err != nil {
			return
		}
		w := cfg.Warmup
		ok := slices.Contains(WarmupModes, w.Mode) &&
			w.Alpha > 0 && w.Alpha <= MaxWarmupAlpha && w.MinSlowdown >= 0 && w.MinSlowdown <= 1 &&
			w.Window >= 2 && w.Window <= MaxWarmupCount && w.Tolerance > 0 && w.Tolerance < 1 &&
			w.Consecutive >= 1 && w.Consecutive <= MaxWarmupCount && w.Count >= 0 && w.Count <= MaxWarmupCount
		if !ok {
			t.Errorf("warmup: %q accepted as %+v, outside the documented ranges", value, w)
		}
	})
}

// TestStreamOrderAndEarlyStop checks that Stream yields the runs in the
// sweep's order, each read, reads each run once (again only once it is
// released), and stops reading when the loop stops.
func TestStreamOrderAndEarlyStop(t *testing.T) {
	files := map[string]string{}
	for _, dir := range []string{"c4/run-2", "c4/run-1", "c1/run-1", "rate2/run-1", "c16/run-1"} {
		// Each its own request: identical files would be one run.
		files[dir+"/requests.csv"] = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n" + strings.ReplaceAll(dir, "/", "-") + ",1,2,3,4\n"
	}
	root := writeTree(t, files)
	var reads []string
	sw, err := Open(root, Options{Workers: 2, RunRead: func(done, total int, r *Run) { reads = append(reads, r.Dir) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"c1/run-1", "c4/run-1", "c4/run-2", "c16/run-1", "rate2/run-1"}
	for i, r := range sw.Runs {
		if r.Dir != want[i] || r.Requests != nil {
			t.Fatalf("Open: run %d is %s (records read: %v), want %s unread", i, r.Dir, r.Requests != nil, want[i])
		}
	}
	var got []string
	for r := range sw.Stream() {
		if r.Requests == nil || r.Requests.Requests.N != 1 {
			t.Fatalf("%s yielded before its records were read", r.Dir)
		}
		got = append(got, r.Dir)
		r.Release()
		if r.Requests.Requests.TTFTms != nil || r.Requests.Requests.N != 1 || r.Requests.RowsRead != 1 {
			t.Errorf("%s: Release kept the columns or lost the counts", r.Dir)
		}
		if len(got) == 2 {
			break
		}
	}
	if !slices.Equal(got, want[:2]) {
		t.Errorf("streamed %v, want %v", got, want[:2])
	}
	// Stopping early waits for the readers: no read happens after the loop.
	n := len(reads)
	if n < 2 || n > len(want) {
		t.Errorf("%d runs read after stopping at the second, want between 2 and %d", n, len(want))
	}
	// Streaming again yields every run once, with its records: the ones
	// read and kept are not read again, the two released are.
	got = got[:0]
	for r := range sw.Stream() {
		got = append(got, r.Dir)
		if r.Requests == nil || r.Requests.Requests.TTFTms == nil || r.Requests.Requests.N != 1 || len(r.Diagnostics) != 0 {
			t.Errorf("second stream: %s yielded without its records (or with diagnostics %v)", r.Dir, r.Diagnostics)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("second stream %v, want %v", got, want)
	}
	if len(reads) != len(want)+2 {
		t.Errorf("runs read %d times in all, want each once and the two released twice (%d): %v", len(reads), len(want)+2, reads)
	}
}

// TestStreamRowBudget checks that a stream holds no more request rows than
// its budget (beyond the first two runs, which may be read before any size
// is known), however many readers it has; that without a budget two
// readers keep two runs ahead of the one the consumer holds; and that a
// consumer keeping every run it is given still gets them all.
func TestStreamRowBudget(t *testing.T) {
	files := map[string]string{}
	for i := 1; i <= 6; i++ {
		files[fmt.Sprintf("c1/run-%d/requests.csv", i)] = fmt.Sprintf("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\nr%d-a,1,2,3,4\nr%d-b,1,2,3,4\nr%d-c,1,2,3,4\n", i, i, i)
	}
	root := writeTree(t, files)
	for _, tc := range []struct {
		name    string
		limit   int
		release bool
		// waitReads: the consumer holding run i waits until this many
		// runs are read (capped at 6), to see how far the readers go.
		waitReads   int
		wantMaxHeld int
		atMost      bool // wantMaxHeld is a bound, not the exact figure
	}{
		// Three rows a run, a budget of five: one run held at a time once
		// a run's size is known, at most two before.
		{"released runs", 5, true, 0, 6, true},
		// Without a budget the two readers read two runs ahead.
		{"no budget", 1 << 30, true, 3, 9, false},
		// A consumer that keeps every run: each is read when it is waited for.
		{"kept runs", 5, false, 0, 18, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			held, maxHeld, reads := 0, 0, 0
			sw, err := Open(root, Options{Workers: 2, RunRead: func(done, total int, r *Run) {
				mu.Lock()
				held += r.heldRows()
				maxHeld = max(maxHeld, held)
				reads = done
				mu.Unlock()
			}})
			if err != nil {
				t.Fatal(err)
			}
			sw.streamRows = tc.limit
			yields := 0
			for r := range sw.Stream() {
				yields++
				deadline := time.Now().Add(5 * time.Second)
				for {
					mu.Lock()
					n := reads
					mu.Unlock()
					if n >= min(yields-1+tc.waitReads, 6) || time.Now().After(deadline) {
						break
					}
					time.Sleep(time.Millisecond)
				}
				time.Sleep(5 * time.Millisecond)
				if tc.release {
					mu.Lock()
					held -= r.heldRows()
					mu.Unlock()
					r.Release()
				}
			}
			if yields != 6 {
				t.Fatalf("%d runs yielded, want 6", yields)
			}
			if tc.atMost && maxHeld > tc.wantMaxHeld || !tc.atMost && maxHeld != tc.wantMaxHeld {
				t.Errorf("at most %d rows held, want %d", maxHeld, tc.wantMaxHeld)
			}
		})
	}
}
