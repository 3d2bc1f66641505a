package cli

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/benchnote/benchnote/report/chart"
)

// chartShotsEnv names a directory; when set, TestBrowserLayout writes a
// screenshot of every chart there, as PAGE-FIGUREID.png, to look at.
const chartShotsEnv = "BENCHNOTE_CHART_SHOTS"

// layoutMinColumn is the narrowest content column, in px, at which the
// layout test holds charts' text to chart.MinTextSize: at 800 px, 11 px.
const layoutMinColumn = 800

// layoutWidth and layoutHeight are the viewport of the layout test: a
// common laptop screen, on which the content column is at its widest.
const layoutWidth, layoutHeight = 1280, 800

// layoutJS measures a page at the current viewport: whether it scrolls
// sideways, the content width of <main>, and for every chart the width of
// its <svg> and figure, text that overlaps other text of the same chart
// and text drawn outside the chart. Text is compared by its bounding box
// on screen, 1 px of touching allowed; text set at a slant (category
// labels) has a box much larger than its glyphs and is left out.
const layoutJS = `(() => {
	const de = document.documentElement;
	const main = document.querySelector("main");
	const ms = getComputedStyle(main);
	const out = {
		scrollWidth: de.scrollWidth, clientWidth: de.clientWidth,
		content: main.clientWidth - parseFloat(ms.paddingLeft) - parseFloat(ms.paddingRight),
		charts: [],
	};
	const straight = t => {
		const m = t.getCTM();
		return Math.abs(m.b) < 1e-6 || Math.abs(m.a) < 1e-6;
	};
	document.querySelectorAll("figure").forEach((f, i) => {
		const svg = f.querySelector("svg");
		if (!svg) return;
		const sr = svg.getBoundingClientRect();
		const c = {id: f.id || ("#" + i), svg: sr.width, figure: f.getBoundingClientRect().width, units: svg.viewBox.baseVal.width,
			compact: f.classList.contains("compact"), texts: 0, minFont: Infinity, minFontText: "", overlaps: [], outside: []};
		const boxes = [];
		for (const t of svg.querySelectorAll("text")) {
			const r = t.getBoundingClientRect();
			c.texts++;
			// The size on screen: the font size in canvas units times the
			// scale the SVG is drawn at.
			const m = t.getScreenCTM();
			const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
			if (px < c.minFont) { c.minFont = px; c.minFontText = t.textContent; }
			if (r.left < sr.left - 1 || r.right > sr.right + 1 || r.top < sr.top - 1 || r.bottom > sr.bottom + 1) {
				c.outside.push(t.textContent + " [" + [r.left - sr.left, sr.right - r.right, r.top - sr.top, sr.bottom - r.bottom].map(v => v.toFixed(1)).join(" ") + "]");
			}
			if (straight(t)) boxes.push({s: t.textContent, r});
		}
		for (let a = 0; a < boxes.length; a++) {
			for (let b = a + 1; b < boxes.length; b++) {
				const p = boxes[a].r, q = boxes[b].r;
				const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
				const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
				if (w > 1 && h > 1) c.overlaps.push(JSON.stringify(boxes[a].s) + " × " + JSON.stringify(boxes[b].s));
			}
		}
		out.charts.push(c);
	});
	return out;
})()`

type pageLayout struct {
	ScrollWidth float64       `json:"scrollWidth"`
	ClientWidth float64       `json:"clientWidth"`
	Content     float64       `json:"content"`
	Charts      []chartLayout `json:"charts"`
}

type chartLayout struct {
	ID     string  `json:"id"`
	SVG    float64 `json:"svg"`
	Figure float64 `json:"figure"`
	// Units is the width of the SVG's canvas (its viewBox).
	Units float64 `json:"units"`
	// Compact is a figure of class "compact", shown at natural size.
	Compact bool `json:"compact"`
	Texts   int  `json:"texts"`
	// MinFont is the smallest text on screen in CSS px, MinFontText its text.
	MinFont     float64  `json:"minFont"`
	MinFontText string   `json:"minFontText"`
	Overlaps    []string `json:"overlaps"`
	Outside     []string `json:"outside"`
}

// TestBrowserLayout opens report.html, compare.html and history.html at
// 1280 × 800 in headless Chromium: no page scrolls sideways, every chart
// fills the content column without overflowing it, and no chart has
// text over other text (titles, labels, ticks, legend) or outside its
// canvas.
func TestBrowserLayout(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is unusable: %v", chromiumPath, err)
		}
		t.Skip("chromium not installed: apt-get install chromium")
	}
	pages := map[string]string{
		"report.html":  layoutReport(t),
		"compare.html": layoutCompare(t),
		"history.html": layoutHistory(t),
		// Legends of several series, and of more than the charts draw.
		"report-2-series.html":  layoutSeriesReport(t, 2),
		"report-10-series.html": layoutSeriesReport(t, 10),
		// Compact charts.
		"report-1-level.html": layoutOneLevelReport(t),
	}

	bctx := headlessBrowser(t, 90*time.Second)

	for _, name := range []string{"report.html", "compare.html", "history.html", "report-2-series.html", "report-10-series.html", "report-1-level.html"} {
		t.Run(name, func(t *testing.T) {
			page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(pages[name])}).String()
			if err := chromedp.Do(bctx, chromedp.EmulateViewport(layoutWidth, layoutHeight), chromedp.Navigate(page)); err != nil {
				t.Fatalf("loading %s: %v", page, err)
			}
			got, err := chromedp.Run(bctx, chromedp.Evaluate[pageLayout](layoutJS))
			if err != nil {
				t.Fatalf("measuring the page: %v", err)
			}
			if got.ScrollWidth > got.ClientWidth {
				t.Errorf("the page scrolls sideways: scrollWidth %g > clientWidth %g", got.ScrollWidth, got.ClientWidth)
			}
			if len(got.Charts) == 0 {
				t.Fatal("no chart on the page")
			}
			for _, c := range got.Charts {
				// The charts are drawn for this column: they fill it, at
				// 1280 px exactly (see chart.Width); a compact one is
				// shown at its natural size (1 unit = 4/3 px).
				switch {
				case c.Compact:
					if natural := c.Units * 4 / 3; c.Units >= float64(chart.Width) || math.Abs(c.SVG-math.Min(natural, got.Content)) > 0.5 {
						t.Errorf("compact chart %s: svg %g px of %g units in a column of %g px; want its natural %g px, narrower than the column", c.ID, c.SVG, c.Units, got.Content, natural)
					}
				case c.SVG > c.Figure+0.5 || c.Figure > got.Content+0.5 || c.SVG < got.Content-0.5:
					t.Errorf("chart %s: svg %g px in a figure of %g px, content column %g px; want the svg to fill the column", c.ID, c.SVG, c.Figure, got.Content)
				}
				// No text smaller than chart.MinTextSize units per
				// chart.Width of the column: 11 px at 800 px.
				if floor := chart.MinTextSize * c.SVG / c.Units; c.MinFont < floor-0.01 || c.MinFont < chart.MinTextSize*float64(layoutMinColumn)/float64(chart.Width)-0.01 {
					t.Errorf("chart %s: text %q is %.2f px on screen, want at least %.2f px (%d units per %g)", c.ID, c.MinFontText, c.MinFont, floor, chart.MinTextSize, float64(chart.Width))
				}
				if c.Texts == 0 {
					t.Errorf("chart %s has no text", c.ID)
				}
				if len(c.Overlaps) > 0 {
					t.Errorf("chart %s: text over text (is Liberation Sans installed? apt-get install fonts-liberation, see docs/charts.md): %s", c.ID, strings.Join(c.Overlaps, "; "))
				}
				if len(c.Outside) > 0 {
					t.Errorf("chart %s: text outside the chart: %q", c.ID, c.Outside)
				}
			}
			if dir := os.Getenv(chartShotsEnv); dir != "" {
				for _, c := range got.Charts {
					png, err := chromedp.Run(bctx, chromedp.Screenshot(chromedp.ID(c.ID)))
					if err != nil {
						t.Fatalf("screenshot of %s: %v", c.ID, err)
					}
					path := filepath.Join(dir, strings.TrimSuffix(name, ".html")+"-"+c.ID+".png")
					if err := os.WriteFile(path, png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// layoutReport renders runs/example and returns its report.html.
func layoutReport(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"report", exampleSweep, "-o", out}, &stdout, &stderr); code != ExitClean {
		t.Fatalf("report: exit %d: %s", code, stderr.String())
	}
	return absPath(t, filepath.Join(out, "report.html"))
}

// layoutOneLevelReport renders concurrency 4 of runs/example alone, a
// sweep of one level, and returns its report.html.
func layoutOneLevelReport(t *testing.T) string {
	t.Helper()
	sweep := filepath.Join(t.TempDir(), "sweep")
	copyDir(t, filepath.Join(exampleSweep, "c4"), filepath.Join(sweep, "c4"))
	for _, f := range []string{"sweep.yaml", "env.json", "env.txt"} {
		copyFile(t, filepath.Join(exampleSweep, f), filepath.Join(sweep, f))
	}
	out := filepath.Join(t.TempDir(), "report")
	if code, _, errOut := runCLI(t, "report", sweep, "-o", out); code != ExitClean && code != ExitWarnings {
		t.Fatalf("report of one level: exit %d: %s", code, errOut)
	}
	return absPath(t, filepath.Join(out, "report.html"))
}

// layoutSeriesReport renders a sweep of n series (max_num_seqs 128, 256,
// ..., each a little slower) and returns its report.html.
func layoutSeriesReport(t *testing.T, n int) string {
	t.Helper()
	var seqs []int
	var factors []float64
	for i := 0; i < n; i++ {
		seqs = append(seqs, 128*(i+1))
		factors = append(factors, 1+0.1*float64(i))
	}
	out := filepath.Join(t.TempDir(), "report")
	if code, _, errOut := runCLI(t, "report", seriesSweepDir(t, seqs, factors), "-o", out); code != ExitClean && code != ExitWarnings {
		t.Fatalf("report of %d series: exit %d: %s", n, code, errOut)
	}
	return absPath(t, filepath.Join(out, "report.html"))
}

// layoutCompare compares the example with a copy 1.3× slower.
func layoutCompare(t *testing.T) string {
	t.Helper()
	base := exampleSummary(t)
	dir := t.TempDir()
	a := writeSummary(t, dir, "base", base)
	b := writeSummary(t, dir, "slower", scaleLatencies(t, base, 1.3))
	out := filepath.Join(dir, "cmp")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"compare", "-o", out, a, b}, &stdout, &stderr); code != 1 {
		t.Fatalf("compare: exit %d, want 1 (regressions across levels): %s", code, stderr.String())
	}
	return absPath(t, filepath.Join(out, "compare.html"))
}

// layoutHistory archives three simulated daily sweeps and renders their
// history.
func layoutHistory(t *testing.T) string {
	t.Helper()
	arch := filepath.Join(t.TempDir(), "archive")
	for day := 0; day < 3; day++ {
		if code, out, errOut := runCLI(t, "archive", "add", simSweepDir(t, day, uint64(day+1), 1), "--to", arch, "--label", fmt.Sprintf("rev-%d", day)); code != 0 {
			t.Fatalf("archive add day %d: exit %d: %s %s", day, code, out, errOut)
		}
	}
	out := filepath.Join(t.TempDir(), "history")
	if code, msg, errOut := runCLI(t, "history", arch, "-o", out); code != 0 {
		t.Fatalf("history: exit %d: %s %s", code, msg, errOut)
	}
	return absPath(t, filepath.Join(out, "history.html"))
}

func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatal(err)
	}
	return a
}
