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

	"github.com/benchnote/benchnote/analyze"
)

// twoSeriesSweepDir writes a native sweep of two series, max_num_seqs 128
// and 256, each three runs at concurrency 1 and 4 (simSweepDir), the 256
// series' engine steps 1.4× slower: one sweep.yaml and environment at the
// root, each series' runs under its own directory, its label in every
// run.yaml.
func twoSeriesSweepDir(t *testing.T) string {
	t.Helper()
	return seriesSweepDir(t, []int{128, 256}, []float64{1, 1.4})
}

// seriesSweepDir writes a native sweep of one series per max_num_seqs
// value, series i's engine steps factors[i] times the simulator's.
func seriesSweepDir(t *testing.T, seqs []int, factors []float64) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "series")
	for i, n := range seqs {
		src := simSweepDir(t, 0, uint64(11+i), factors[i])
		if i == 0 {
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"sweep.yaml", "env.txt", "env.json"} {
				if err := os.Rename(filepath.Join(src, f), filepath.Join(root, f)); err != nil {
					t.Fatal(err)
				}
			}
		}
		dst := filepath.Join(root, fmt.Sprintf("mns%d", n))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"c1", "c4"} {
			if err := os.Rename(filepath.Join(src, c), filepath.Join(dst, c)); err != nil {
				t.Fatal(err)
			}
			for r := 1; r <= 3; r++ {
				yaml := filepath.Join(dst, c, fmt.Sprintf("run-%d", r), "run.yaml")
				f, err := os.OpenFile(yaml, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = fmt.Fprintf(f, "series: {max_num_seqs: %d}\n", n)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return root
}

// svgTexts returns the text of every <text> element of an SVG.
var svgText = regexp.MustCompile(`<text [^>]*>([^<]*)</text>`)

func svgTexts(svg []byte) []string {
	var out []string
	for _, m := range svgText.FindAllSubmatch(svg, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestTwoSeriesReport: a native sweep of two series at the same levels is
// reported as two series: summary.json has 2 × 2 levels of 3 runs and a
// Pareto point per level, plots/pareto.svg is drawn, and the overlay
// charts name each series by the label that differs in their legend.
func TestTwoSeriesReport(t *testing.T) {
	sweep := twoSeriesSweepDir(t)
	out := filepath.Join(t.TempDir(), "report")
	code, _, errOut := runCLI(t, "report", sweep, "-o", out)
	if code != ExitClean && code != ExitWarnings {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s analyze.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	var levels []string
	for _, l := range s.Levels {
		levels = append(levels, fmt.Sprintf("%s c=%d runs=%d", l.Series, l.Concurrency, len(l.Runs)))
	}
	want := "max_num_seqs=128 c=1 runs=3; max_num_seqs=128 c=4 runs=3; max_num_seqs=256 c=1 runs=3; max_num_seqs=256 c=4 runs=3"
	if got := strings.Join(levels, "; "); got != want {
		t.Fatalf("levels %s\nwant %s", got, want)
	}
	p := s.Pareto
	if p.Per != analyze.ParetoPerGPU || len(p.Points) != 4 || p.Unavailable != "" {
		t.Fatalf("pareto: per %q, %d points, unavailable %q; want 4 points per GPU", p.Per, len(p.Points), p.Unavailable)
	}
	frontier := 0
	for i, pt := range p.Points {
		if !pt.Drawable() || pt.GPUs != 1 || pt.Series != s.Levels[i].Series || pt.Throughput.Runs != 3 || pt.UserTPS.Runs != 3 {
			t.Errorf("pareto point %d: %+v", i, pt)
		}
		if pt.OnFrontier {
			frontier++
		}
	}
	if frontier == 0 {
		t.Error("no point on the Pareto frontier")
	}
	// The slower series has less throughput and less user TPS at each
	// level: the faster one dominates it.
	for i := 2; i < 4; i++ {
		if p.Points[i].OnFrontier {
			t.Errorf("point %d (max_num_seqs=256, 1.4× slower) on the frontier: %+v", i, p.Points[i])
		}
	}

	pareto, err := os.ReadFile(filepath.Join(out, "plots", "pareto.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for name, wantTexts := range map[string][]string{
		"pareto.svg":          {"max_num_seqs=128", "max_num_seqs=256", "Pareto frontier", "output tokens/s per GPU", "output tokens/s per user (median user TPS)"},
		"latency-ttft.svg":    {"max_num_seqs=128", "max_num_seqs=256", "p50", "p95", "p99"},
		"throughput-tpot.svg": {"max_num_seqs=128", "max_num_seqs=256"},
		"goodput.svg":         {"max_num_seqs=128", "max_num_seqs=256"},
		"cdf-e2e.svg":         {"max_num_seqs=128", "max_num_seqs=256", "concurrency 1", "concurrency 4"},
		"runs-spread.svg":     {"max_num_seqs=128", "max_num_seqs=256"},
		"lengths.svg":         {"max_num_seqs=128", "max_num_seqs=256"},
		"warmup.svg":          {"max_num_seqs=128, concurrency 1", "max_num_seqs=256, concurrency 4"},
	} {
		svg := pareto
		if name != "pareto.svg" {
			if svg, err = os.ReadFile(filepath.Join(out, "plots", name)); err != nil {
				t.Fatal(err)
			}
		}
		texts := svgTexts(svg)
		for _, w := range wantTexts {
			found := false
			for _, tx := range texts {
				found = found || tx == w
			}
			if !found {
				t.Errorf("%s: no text %q (texts %q)", name, w, texts)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Pareto", "](plots/pareto.svg)", "One colour and marker per series (2 series, told apart by max\\_num\\_seqs)"} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md lacks %q", w)
		}
	}
}
