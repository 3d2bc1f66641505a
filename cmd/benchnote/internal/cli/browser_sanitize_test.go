package cli

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sneakyPageJS reports what a reader of the page sees of the input text
// that tries to pass for markup: links, styled flags, control characters.
const sneakyPageJS = `(() => {
	const warn = Array.from(document.querySelectorAll(".warn"));
	const cells = Array.from(document.querySelectorAll("td"));
	const driver = cells.find(td => td.textContent === "driver");
	const driverValue = driver ? driver.nextElementSibling : null;
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	const controls = [];
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(n.data)) controls.push(n.data.slice(0, 60));
	}
	return {
		title: document.title,
		links: Array.from(document.querySelectorAll("a")).map(a => a.getAttribute("href")),
		dangling: Array.from(document.querySelectorAll("a")).map(a => a.getAttribute("href") || "").filter(h => !h.startsWith("#") || !document.getElementById(h.slice(1))),
		warnTexts: Array.from(new Set(warn.map(w => w.textContent))).sort(),
		warnColors: Array.from(new Set(warn.map(w => getComputedStyle(w).color))),
		driverText: driverValue ? driverValue.textContent : "",
		driverColor: driverValue ? getComputedStyle(driverValue).color : "",
		driverHasWarn: driverValue ? driverValue.querySelector(".warn") !== null : true,
		controls: controls,
	};
})()`

type sneakyPage struct {
	Title         string   `json:"title"`
	Links         []string `json:"links"`
	Dangling      []string `json:"dangling"`
	WarnTexts     []string `json:"warnTexts"`
	WarnColors    []string `json:"warnColors"`
	DriverText    string   `json:"driverText"`
	DriverColor   string   `json:"driverColor"`
	DriverHasWarn bool     `json:"driverHasWarn"`
	Controls      []string `json:"controls"`
}

// TestBrowserInputsStayData renders a sweep whose names, title, status
// texts and environment values carry terminal escapes, URLs, an e-mail
// address and the text of the few-runs flag, and opens the report in
// Chromium: the page has no link but its own to its headings, the input's
// "⚠ 2 runs" is plain text while the real flags (level 4 has 2 runs) are
// red, and no text node holds a control character.
func TestBrowserInputsStayData(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is unusable: %v", chromiumPath, err)
		}
		t.Skip("chromium not installed: apt-get install chromium")
	}
	root := t.TempDir()
	errorCSV := strings.Replace(tinyCSV, "c,10,5,120,200,ok", "c,10,5,120,200,⚠ 2 runs\x01 see http://evil.example.com", 1)
	sweep := tinySweep(t, root, map[string]string{
		"sweep.yaml":                    "title: \"Title\\e[1m bold\"\nwarmup: none\n",
		"env.json":                      `{"model": "http://x", "gpu": "www.x.com", "engine": "ops@example.com", "driver": "⚠ 2 runs"}`,
		"c4/run\x1b[31m-1/requests.csv": errorCSV,
		"c4/run-2/requests.csv":         tinyCSV,
	})
	out := filepath.Join(root, "out")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"report", sweep, "-o", out}, &stdout, &stderr); code != ExitClean {
		t.Fatalf("report: exit %d: %s", code, stderr.String())
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(out, "report.html"))}).String()

	bctx := headlessBrowser(t, 60*time.Second)
	if err := chromedp.Do(bctx, chromedp.Navigate(page)); err != nil {
		t.Fatalf("loading %s: %v", page, err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[sneakyPage](sneakyPageJS))
	if err != nil {
		t.Fatalf("inspecting the page: %v", err)
	}

	if got.Title != `Title\x1b[1m bold` {
		t.Errorf("document.title = %q, want the title with its escape shown as \\x1b", got.Title)
	}
	// The table of contents and the notebook's cross-reference link to
	// headings of the page; nothing from the inputs is a link.
	if len(got.Dangling) > 0 || !strings.Contains(strings.Join(got.Links, " "), "#exclusions") {
		t.Errorf("links %q (%q not to a heading of the page), want only links to the page's headings, #exclusions among them", got.Links, got.Dangling)
	}
	// Level 4's two runs are flagged, and so is its error rate (1 of 6
	// measured requests).
	if strings.Join(got.WarnTexts, " | ") != "16.67 % ⚠ | ⚠ fewer than 3 runs" || strings.Join(got.WarnColors, " ") != "rgb(176, 0, 32)" {
		t.Errorf("flags %q in colours %q, want the level-4 flags in red rgb(176, 0, 32)", got.WarnTexts, got.WarnColors)
	}
	if got.DriverText != `\u26a0 2 runs` || got.DriverHasWarn || got.DriverColor == "rgb(176, 0, 32)" {
		t.Errorf("the environment value \"⚠ 2 runs\" shows as %q in %s (styled as a flag: %v); want plain text",
			got.DriverText, got.DriverColor, got.DriverHasWarn)
	}
	if len(got.Controls) > 0 {
		t.Errorf("text nodes with control characters: %q", got.Controls)
	}
}
