package cli

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// prCommentWidth is the width of a pull-request comment's text on GitHub,
// which the first screen is written to fit.
const prCommentWidth = 760

// seriesTableJS measures the first screen's table of series: its name
// cells, and whether it or the page scrolls sideways.
const seriesTableJS = `(() => {
	const de = document.documentElement;
	const t = [...document.querySelectorAll("table")].find(t => t.querySelector("th") && t.querySelector("th").textContent === "series");
	if (!t) return {found: false};
	return {
		found: true,
		pageScroll: de.scrollWidth > de.clientWidth,
		tableScroll: t.scrollWidth > t.clientWidth + 1,
		tableWidth: t.scrollWidth, pageWidth: de.clientWidth,
		names: [...t.querySelectorAll("tbody tr td:first-child")].map(td => td.textContent),
	};
})()`

type seriesTableLayout struct {
	Found       bool     `json:"found"`
	PageScroll  bool     `json:"pageScroll"`
	TableScroll bool     `json:"tableScroll"`
	Names       []string `json:"names"`
	TableWidth  float64  `json:"tableWidth"`
	PageWidth   float64  `json:"pageWidth"`
}

// TestBrowserSeriesTable opens the report of the two-series sweep at the
// width of a pull-request comment and at the layout test's laptop width in
// headless Chromium: the table of series names both series and fits
// without scrolling sideways, and the page does not scroll sideways (the
// per-level tables, one per series, scroll inside themselves).
func TestBrowserSeriesTable(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is unusable: %v", chromiumPath, err)
		}
		t.Skip("chromium not installed: apt-get install chromium")
	}
	out := filepath.Join(t.TempDir(), "report")
	if code, msg, errOut := runCLI(t, "report", maxNumSeqsSweep(t), "-o", out); code != ExitClean {
		t.Fatalf("report: exit %d: %s %s", code, msg, errOut)
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(absPath(t, filepath.Join(out, "report.html")))}).String()

	bctx := headlessBrowser(t, 60*time.Second)
	for _, width := range []int64{prCommentWidth, layoutWidth} {
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(width, layoutHeight), chromedp.Navigate(page)); err != nil {
			t.Fatalf("loading %s: %v", page, err)
		}
		got, err := chromedp.Run(bctx, chromedp.Evaluate[seriesTableLayout](seriesTableJS))
		if err != nil {
			t.Fatalf("measuring the page: %v", err)
		}
		if !got.Found {
			t.Fatalf("%d px: no table of series on the page", width)
		}
		if got.PageScroll || got.TableScroll {
			t.Errorf("%d px: the page scrolls sideways: %v; the table of series does: %v (%g px wide in a page of %g px)", width, got.PageScroll, got.TableScroll, got.TableWidth, got.PageWidth)
		}
		if strings.Join(got.Names, "; ") != "max_num_seqs=128; max_num_seqs=256" {
			t.Errorf("%d px: series %q", width, got.Names)
		}
	}
}
