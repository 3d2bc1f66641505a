package report

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

func TestFmtSpread(t *testing.T) {
	tests := []struct {
		v, spread float64
		want      string
	}{
		{5963, 74.94, "5963 ± 75"},            // the "5963 ± 74.94 ms"
		{114.7, 3.465, "114.7 ± 3.5"},         // 2 significant figures of the MAD
		{19.7607, 0.00712, "19.76 ± 0.01"},    // 4 significant figures: coarser than the MAD's place
		{19.5687, 0.0032, "19.57 ± <0.01"},    // a MAD that rounds to 0 there
		{99.515, 0.031, "99.52 ± 0.03"},       // the goodput
		{0.26429, 0.00088, "0.2643 ± 0.0009"}, // the requests/s
		{115.109, 0.019, "115.1 ± <0.1"},
		{5080.6, 5.1, "5081 ± 5"},
		{0.3, 0.5, "0.30 ± 0.50"},         // the MAD's place when finer than it needs
		{56789, 1234, "56800 ± 1200"},     // rounding to hundreds
		{99.6, 99.6, "100 ± 100"},         // 99.6 to 2 figures is 100
		{0.971, 0.004, "0.9710 ± 0.0040"}, // a small MAD keeps its zeros
		{310.1, 0, "310.1 ± 0"},           // no spread: the value as fmtNum writes it
		{123456.789, 1e-9, "123457 ± <1"}, // the integer part is never cut
		{0, 0.5, "0.00 ± 0.50"},           // zero has no figures to cap
		{-0.0001, 0.5, "0.00 ± 0.50"},     // no "-0.00"
		{math.NaN(), 1, "n/a"},
		{42, math.NaN(), "42"}, // no spread known: none shown
	}
	for _, tt := range tests {
		if got := fmtSpread(analyze.Num(tt.v), analyze.Num(tt.spread)); got != tt.want {
			t.Errorf("fmtSpread(%v, %v) = %q, want %q", tt.v, tt.spread, got, tt.want)
		}
	}
}

func TestFmtAcrossRunsAndPercent(t *testing.T) {
	ar := analyze.AcrossRuns{Unit: "%", Median: 97.1, MAD: 0.4, Runs: 3}
	if got := fmtAcross(ar, 3); got != "97.10 ± 0.40 %" {
		t.Errorf("goodput cell %q, want the %% sign and no run count", got)
	}
	ar.Runs, ar.FewRuns = 2, true
	if got := fmtAcross(ar, 3); got != "97.10 ± 0.40 % ("+flagOpen+"⚠ 2 runs"+flagClose+")" {
		t.Errorf("a cell on fewer runs than its level: %q", got)
	}
}

// TestServerCellBounds: a quantile the buckets cannot resolve prints as the
// bound they support, with the bucket.
func TestServerCellBounds(t *testing.T) {
	l := analyze.Level{Runs: []string{"a", "b", "c"}, Stats: []analyze.AcrossRuns{
		{Key: "server.ttft.p50", Median: 150, MAD: 0, Runs: 3},
		{Key: "server.ttft.p95", Median: 480.3, MAD: 2.1, Runs: 3},
		{Key: "server.ttft.p99", Median: 12000, MAD: 10, Runs: 2},
	}, ServerResolution: []analyze.LevelBucket{
		{Key: "server.ttft.p50", Coarse: true, LoMs: 0, HiMs: 300},
		{Key: "server.ttft.p95", Coarse: false, LoMs: 300, HiMs: 500},
		{Key: "server.ttft.p99", Coarse: true, LoMs: 10000, HiMs: analyze.Num(math.Inf(1))},
	}}
	for key, want := range map[string]string{
		"server.ttft.p50": "≤ 300 (bucket 0–300)",
		"server.ttft.p95": "480.3 ± 2.1",
		"server.ttft.p99": "> 10000 (+Inf bucket, 2 runs)",
	} {
		if got := serverCell(l, key); got != want {
			t.Errorf("serverCell(%s) = %q, want %q", key, got, want)
		}
	}
}

func TestSuspectMarks(t *testing.T) {
	s := levelSummary(c4, c16)
	s.Method.ErrorRateThreshold = 0.01
	s.Levels[1].Suspect = []analyze.Suspicion{{Rule: "error-rate", Keys: []string{"ttft."}, Runs: []string{"c16/run-2"}, RunsOf: 3}}
	n := newNotes(s)
	if got := n.stat(s.Levels[0], "ttft.p95"); got != "100.0 ± 1.0" {
		t.Errorf("an unsuspected cell: %q", got)
	}
	if got := n.stat(s.Levels[1], "ttft.p95"); got != suspectOpen+"200.0 ± 1.0 ⚠a"+suspectClose {
		t.Errorf("a suspect cell: %q", got)
	}
	const note = "\n- ⚠a concurrency 16: over 1 % of measured requests failed in 1 of 3 runs (`c16/run-2`): latency describes only those that succeeded.\n"
	if got := n.footer(); got != note {
		t.Errorf("footer %q, want %q", got, note)
	}
	if got := markLetters(0) + markLetters(25) + markLetters(26) + markLetters(27); got != "azaaab" {
		t.Errorf("marks %q", got)
	}
}

func TestSLOStatement(t *testing.T) {
	yaml := analyze.SLOFrom{TTFT: analyze.FromSweepYAML, TPOT: analyze.FromSweepYAML, E2E: analyze.FromSweepYAML, Attainment: analyze.FromDefault}
	def := analyze.SLOFrom{TTFT: analyze.FromDefault, TPOT: analyze.FromDefault, E2E: analyze.FromDefault, Attainment: analyze.FromDefault}
	mixed := analyze.SLOFrom{TTFT: analyze.FromCommandLine, TPOT: analyze.FromDefault, E2E: analyze.FromSweepYAML, Attainment: analyze.FromCommandLine}
	tests := []struct {
		slo  analyze.SLO
		want string
	}{
		{analyze.SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000, Attainment: 0.9, From: yaml},
			"**SLOs** (sweep.yaml): TTFT ≤ 1000 ms, TPOT ≤ 150 ms, E2E ≤ 5000 ms; a level meets them when ≥ 90 % of its requests do (median of runs)."},
		{analyze.SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000, Attainment: 0.9, From: def},
			"**SLOs:** TTFT ≤ 1000 ms, TPOT ≤ 150 ms, E2E ≤ 5000 ms: the defaults from the measurement rules, which nobody chose for this sweep; set your own with `slo:` in sweep.yaml or `benchnote report --slo ttft=500ms,tpot=50ms`; a level meets them when ≥ 90 % of its requests do (median of runs)."},
		{analyze.SLO{TTFTms: 500, TPOTms: 150, E2Ems: 0, Attainment: 0.95, From: mixed},
			"**SLOs:** TTFT ≤ 500 ms (the command line), TPOT ≤ 150 ms (default); no E2E target (\"default\": the measurement rules' example); a level meets them when ≥ 95 % of its requests do (median of runs; `slo.attainment` from the command line)."},
		{analyze.SLO{Attainment: 0.9, From: yaml},
			"**SLOs:** none set (every target is 0), so no level can be said to meet them. Set them with `slo:` in sweep.yaml or `benchnote report --slo ttft=500ms,tpot=50ms`."},
	}
	for _, tt := range tests {
		if got := sloStatement(tt.slo); got != tt.want {
			t.Errorf("sloStatement(%+v)\n got %s\nwant %s", tt.slo, got, tt.want)
		}
	}
}

func TestEnvironmentLine(t *testing.T) {
	s := &analyze.Summary{Environment: analyze.EnvironmentSummary{Canonical: []analyze.EnvField{
		{Key: "gpu", Value: "NVIDIA H100 80GB HBM3"}, {Key: "gpu_count", Value: "8"}, {Key: "engine", Value: "vllm"},
		{Key: "model", Value: "meta-llama/Llama-3.1-405B-FP8"},
	}, Diffs: []analyze.EnvDiff{{Key: "engine_version"}}}}
	const want = "**Environment:** 8 × NVIDIA H100 80GB HBM3 · vllm (version not recorded) · meta-llama/Llama-3.1-405B-FP8 · precision not recorded (the first run's; it differs between runs in engine\\_version)."
	if got := environmentLine(s); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := environmentLine(&analyze.Summary{}); got != "**Environment:** GPU not recorded · engine not recorded · model not recorded · precision not recorded." {
		t.Errorf("no environment: %s", got)
	}
}

// TestNotebookErrors: every mistake of a notebook at once, each with its
// line and column, with a suggestion when a known name is close.
func TestNotebookErrors(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	nb := strings.Join([]string{
		"# Write-up",
		"{{chart latency-ttft}}",                    // 2: a synonym
		"{{plot latency}}",                          // 3: a prefix of three plots
		"p95 {{value ttft.p59 c=2}} and {{valu x}}", // 4: two errors on one line
		"at {{value ttft.p95 c=3}}",                 // 5: a level that is not there
		"and {{value ttft.p95 c=2 extra}}",          // 6: an extra argument
		"unclosed {{value ttft.p95 c=2",             // 7
		"{{table ttfb}}",                            // 8
		"```",
		"{{not evaluated in a fence}}",
		"```",
		"{{count measurd}} {{title now}}", // 12
	}, "\n")
	_, err := renderNotebook([]byte(nb), "nb.md", &cellContext{s: s}, targetMarkdown)
	var ne *NotebookError
	if !errors.As(err, &ne) {
		t.Fatalf("error %v, want a *NotebookError", err)
	}
	want := []string{
		`nb.md:2:1: unknown cell "chart" (did you mean "plot"?)`,
		`nb.md:3:1: unknown plot "latency" (did you mean one of "latency-ttft", "latency-tpot", "latency-e2e"?)`,
		`nb.md:4:5: unknown metric "ttft.p59" (did you mean "ttft.p50"?)`,
		`nb.md:4:32: unknown cell "valu" (did you mean "value"?)`,
		`nb.md:5:4: no concurrency level 3 in the sweep (have 2); did you mean c=2?`,
		`nb.md:6:5: value takes one key, a level and short or full; unexpected "extra", e.g. {{value ttft.p95 c=8}}`,
		`nb.md:7:10: unclosed cell "{{value ttft.p95 c=2": a cell opened with {{ must close with }} on the same line`,
		`nb.md:8:1: unknown table "ttfb" (did you mean "ttft"?)`,
		`nb.md:12:1: unknown count "measurd" (did you mean "measured"?)`,
		`nb.md:12:19: title takes no arguments; unexpected "now"`,
	}
	if len(ne.Problems) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(ne.Problems), len(want), err)
	}
	for i, p := range ne.Problems {
		if !strings.HasPrefix(p.Error(), want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s…", i, p, want[i])
		}
	}
	for _, empty := range []string{"", " \n\n\t\n"} {
		_, err := renderNotebook([]byte(empty), "nb.md", &cellContext{s: s}, targetMarkdown)
		if err == nil || !strings.HasPrefix(err.Error(), "nb.md:1:1: the notebook is empty") {
			t.Errorf("empty notebook %q: error %v", empty, err)
		}
	}
	if _, err := renderNotebook([]byte("{{labels tiny}}"), "nb.md", &cellContext{s: s}, targetMarkdown); err == nil || !strings.HasPrefix(err.Error(), "nb.md:1:1: labels takes short or full") {
		t.Errorf("labels tiny: %v", err)
	}
}

// TestShortLabels: {{labels short}} and the short argument move the full
// label into a footnote (report.md) or a tooltip (report.html).
func TestShortLabels(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	const label = "median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 2"
	nb := "{{labels short}}\nA {{value ttft.p95 c=2}}, again {{value ttft.p95 c=2}}, {{value ttft.p95 c=2 full}}.\n"
	md, err := renderNotebook([]byte(nb), "nb.md", &cellContext{s: s}, targetMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	want := "A 141.0 ± 1.0 ms[^v1], again 141.0 ± 1.0 ms[^v1], 141.0 ± 1.0 ms (" + label + ").\n\n[^v1]: " + label + "\n"
	if string(md) != want {
		t.Errorf("report.md:\n got %q\nwant %q", md, want)
	}
	html, err := renderNotebook([]byte("A {{value ttft.p95 c=2 short}}.\n"), "nb.md", &cellContext{s: s}, targetHTML)
	if err != nil {
		t.Fatal(err)
	}
	if string(html) != "A "+tipOpen+label+tipMid+"141.0 ± 1.0 ms"+tipClose+".\n" {
		t.Errorf("report.html's Markdown: %q", html)
	}
	page, err := renderHTML(html, "t", nil, "nb.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<span class="labelled" title="`+label+`">141.0 <span class="pm">± 1.0</span> ms</span>`) {
		t.Errorf("report.html has no tooltip:\n%s", grepLines(string(page), "labelled"))
	}
}

// TestHTMLElements: the table of contents lists the second-level
// headings after the title, and block tokens become their elements.
func TestHTMLElements(t *testing.T) {
	md := "# T\n\n## One\n\ntext\n" + blockOpen("quality") + "- a finding\n" + blockClose("quality") + "## Two\n" + blockOpen("server") + "| a |\n| --- |\n| 1 |\n" + blockClose("server")
	page, err := renderHTML([]byte(md), "T", nil, "nb.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		"<h1 id=\"t\">T</h1>\n<nav class=\"toc\" aria-label=\"Contents\"><strong>Contents:</strong> <a href=\"#one\">One</a> · <a href=\"#two\">Two</a></nav>\n",
		"<aside class=\"quality\" id=\"data-quality-box\" aria-label=\"Data quality\">\n<ul>\n<li>a finding</li>\n</ul>\n</aside>",
		"<details class=\"collapsed\"><summary>Server histogram quantiles per level (collapsed: click to show)</summary>\n<table>",
		"</table>\n</details>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(html, blockToken) {
		t.Error("a block token is left in the page")
	}
}
