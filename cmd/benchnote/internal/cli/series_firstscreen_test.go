package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchnote/benchnote/internal/sim"
	"github.com/benchnote/benchnote/report"
)

// reportSeries is one series of a simulated sweep written by
// writeSeriesSweep: its directory, its run.yaml labels and its simulation.
type reportSeries struct {
	dir    string
	labels string // run.yaml's series mapping, as YAML flow ("{max_num_seqs: 128}")
	cfg    sim.Config
}

// writeSeriesSweep writes several simulated sweeps as the series of one:
// each under its own directory with its labels added to every run.yaml,
// one sweep.yaml (the first series') and one environment log at the root.
func writeSeriesSweep(t testing.TB, root string, series []reportSeries) {
	t.Helper()
	for i, s := range series {
		sw, err := sim.Generate(s.cfg)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, s.dir)
		if err := sw.Write(dir); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"sweep.yaml", "env.txt", "env.json"} {
			from := filepath.Join(dir, name)
			if i == 0 && name != "env.json" {
				// env.json would state the simulated server's own
				// max_num_seqs; the labels say the series'.
				if err := os.Rename(from, filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.Remove(from); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range sw.Runs {
			path := filepath.Join(dir, r.Dir(), "run.yaml")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(data, []byte("series: "+s.labels+"\n")...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// maxNumSeqsSweep writes the native two-series sweep of issue 21's
// acceptance: series {max_num_seqs: 128} and {max_num_seqs: 256} at the
// same levels (concurrency 1, 4, 16), 3 runs each. The simulated server is
// scaled down 16-fold with its load: the two are simulated with 8 and 16
// sequences at once, which concurrency 16 tells apart (the smaller one
// queues half its requests there).
func maxNumSeqsSweep(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "max-num-seqs")
	var series []reportSeries
	for i, n := range []int{128, 256} {
		cfg := sim.DefaultConfig().WithRequests(60)
		cfg.Title = "Simulated Llama-3.1-8B-Instruct on 1x L40S: max_num_seqs 128 against 256 (synthetic)"
		cfg.Stalls = nil
		cfg.Seed = uint64(i + 1)
		cfg.Server.MaxNumSeqs = n / 16
		series = append(series, reportSeries{dir: fmt.Sprintf("mns%d", n), labels: fmt.Sprintf("{max_num_seqs: %d}", n), cfg: cfg})
	}
	writeSeriesSweep(t, root, series)
	return root
}

// TestReportOfTwoSeries pins the report of a native two-series sweep:
// both series named in report.md, on its first screen and in pr.md.
func TestReportOfTwoSeries(t *testing.T) {
	files := reportFiles(t, maxNumSeqsSweep(t))
	md, pr := string(files["report.md"]), string(files[report.PRFile])
	golden(t, "series/report.md", files["report.md"])
	golden(t, "series/pr.md", files[report.PRFile])
	// Markdown escapes the underscores.
	for _, name := range []string{`max\_num\_seqs=128`, `max\_num\_seqs=256`} {
		if !strings.Contains(md, "| "+name+" |") {
			t.Errorf("report.md's first-screen table has no row for %s", name)
		}
		if !strings.Contains(pr, "| "+name+" |") {
			t.Errorf("pr.md's first-screen table has no row for %s", name)
		}
	}
	if !strings.Contains(md, "**Best configuration under the SLOs") {
		t.Error("report.md names no best configuration")
	}
}

// TestPRFileOfFortySeries: forty series of two levels (80 levels of 3
// runs) keep pr.md under its cap, with every series in the first-screen
// table and, the per-level tables being narrow, every level's row.
func TestPRFileOfFortySeries(t *testing.T) {
	root := filepath.Join(t.TempDir(), "forty")
	var series []reportSeries
	for i := 0; i < 40; i++ {
		cfg := sim.DefaultConfig().WithRequests(20)
		cfg.Levels = cfg.Levels[:2]
		cfg.Stalls = nil
		cfg.Seed = uint64(i + 1)
		cfg.Server.StepBaseMs *= 1 + float64(i)/40
		series = append(series, reportSeries{
			dir:    fmt.Sprintf("s%02d", i),
			labels: fmt.Sprintf("{engine: vllm, model: meta-llama/Llama-3.1-8B-Instruct, step_ms: %d, workload: random-512-180}", 19+i),
			cfg:    cfg,
		})
	}
	writeSeriesSweep(t, root, series)
	files := reportFiles(t, root)
	pr := string(files[report.PRFile])
	t.Logf("40 series × 2 levels × 3 runs: pr.md %d bytes (%d characters)", len(pr), utf8.RuneCountInString(pr))
	if len(pr) > report.PRLimit {
		t.Errorf("pr.md is %d bytes, over %d", len(pr), report.PRLimit)
	}
	for i := 0; i < 40; i++ {
		if !strings.Contains(pr, fmt.Sprintf("\n| step\\_ms=%d | ", 19+i)) {
			t.Errorf("pr.md's first-screen table has no row for step_ms=%d", 19+i)
		}
	}
	if strings.Contains(pr, "](") {
		t.Errorf("pr.md holds a link:\n%s", grepLines(pr, "]("))
	}
	if !strings.Contains(pr, "**Best configuration under the SLOs: ") || strings.Contains(pr, "did not fit") || !strings.Contains(pr, "**Series step\\_ms=58**") {
		t.Errorf("pr.md names no best configuration or left levels out:\n%s", grepLines(pr, "Left out"))
	}
}

// TestNotebookOfTwoSeries renders a notebook with series selectors over
// the two-series sweep: a figure of each series, a table of one; a cell
// without a selector is an error naming both series, and no report is
// written.
func TestNotebookOfTwoSeries(t *testing.T) {
	sweep := maxNumSeqsSweep(t)
	dir := t.TempDir()
	nb := filepath.Join(dir, "writeup.md")
	text := "# max_num_seqs\n\nAt concurrency 16 the p95 TTFT was {{ttft.p95 series=max_num_seqs=128 c=16}} with 128 sequences and {{value ttft.p95 series=max_num_seqs=256 c=16}} with 256.\n\n{{table goodput series=max_num_seqs=256}}\n"
	if err := os.WriteFile(nb, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files := reportFiles(t, sweep, "--notebook", nb)
	md := string(files["report.md"])
	for _, want := range []string{
		"At concurrency 16 the p95 TTFT was 5960 ± 140 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 16 of max\\_num\\_seqs=128) ⚠ suspect: many requests returned no output with 128 sequences and 170.3 ± 6.5 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 16 of max\\_num\\_seqs=256) ⚠ suspect: many requests returned no output with 256.",
		"**Series max\\_num\\_seqs=256**\n\n**Goodput**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "**Series max\\_num\\_seqs=128**") {
		t.Error("the goodput table of one series shows the other")
	}

	bad := filepath.Join(dir, "bad.md")
	os.WriteFile(bad, []byte("p95 TTFT: {{value ttft.p95 c=16}}\n"), 0o644)
	code, _, errOut := runCLI(t, "report", sweep, "-o", filepath.Join(dir, "out"), "--notebook", bad)
	if want := "bad.md:1:11: the sweep has 2 series: choose one with series=LABEL=VALUE, one of series=max_num_seqs=128, series=max_num_seqs=256"; code != ExitErrors || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, ExitErrors, want)
	}
}
