package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const (
	// chromiumPath is where Debian's chromium package puts the browser.
	chromiumPath = "/usr/bin/chromium"

	// exampleSweep is runs/example, relative to this package's directory.
	exampleSweep = "../../../../runs/example"

	// exampleTitle is the title: line of runs/example/sweep.yaml.
	exampleTitle = "Example sweep: simulated Llama-3.1-8B-Instruct on 1x L40S (synthetic)"

	// minFigures is the least number of plots the example report must show.
	minFigures = 10

	// screenshotEnv names a path; when set, the test writes its PNG
	// screenshot of the report there (used to refresh docs/report.png).
	screenshotEnv = "BENCHNOTE_SCREENSHOT"

	// Viewport of the test and its screenshot: a laptop screen. Its first
	// screen must hold the answer's table and the data-quality box.
	viewportWidth, viewportHeight = 1280, 800
)

// firstScreenJS reports, for the headline table and the data-quality box,
// whether they are on the page and where they end, in CSS pixels from the
// top of the page (the page is not scrolled).
const firstScreenJS = `(() => {
	const at = sel => {
		const el = document.querySelector(sel);
		if (!el) return {found: false, top: 0, bottom: 0, text: ""};
		const r = el.getBoundingClientRect();
		return {found: true, top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, text: el.textContent.slice(0, 200)};
	};
	return {table: at("#headline-table table"), quality: at("#data-quality-box")};
})()`

// boxOnPage is where firstScreenJS found an element.
type boxOnPage struct {
	Found  bool    `json:"found"`
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
	Text   string  `json:"text"`
}

// figureInfo is what the page reports about one <figure>.
type figureInfo struct {
	ID         string  `json:"id"`
	HasSVG     bool    `json:"hasSVG"`
	Display    string  `json:"display"`
	Visibility string  `json:"visibility"`
	Width      float64 `json:"width"`
	Height     float64 `json:"height"`
}

// figuresJS reports, for each <figure>, its first <svg> and how it is drawn.
const figuresJS = `Array.from(document.querySelectorAll("figure")).map((f, i) => {
	const svg = f.querySelector("svg");
	const out = {id: f.id || ("#" + i), hasSVG: !!svg, display: "", visibility: "", width: 0, height: 0};
	if (svg) {
		const st = getComputedStyle(svg);
		const r = svg.getBoundingClientRect();
		out.display = st.display;
		out.visibility = st.visibility;
		out.width = r.width;
		out.height = r.height;
	}
	return out;
})`

// resourceRefsJS lists every reference in the document that would make the
// browser load something, except same-document fragments ("#id"): resource
// attributes of elements (including SVG href/xlink:href) and url(...) or
// @import in style sheets and style attributes. It complements the network
// listener, which does not see data: URLs (Chromium loads them without a
// Network.requestWillBeSent event).
const resourceRefsJS = `(() => {
	const refs = [];
	const short = s => s.length > 120 ? s.slice(0, 120) + "... (" + s.length + " chars)" : s;
	const external = u => { u = u.trim(); return u !== "" && !u.startsWith("#"); };
	const attrs = ["src", "srcset", "poster", "background", "href", "xlink:href", "data"];
	const hrefTags = new Set(["link", "image", "use", "feimage", "script", "img", "iframe", "embed", "source", "track"]);
	const cssURL = /url\(\s*(['"]?)([^'")]*)\1\s*\)|@import\s+(['"])([^'"]*)\3/g;
	const scanCSS = (where, css) => {
		for (const m of css.matchAll(cssURL)) {
			const u = m[2] !== undefined ? m[2] : m[4];
			if (external(u)) refs.push(where + ": " + short(u));
		}
	};
	for (const el of document.querySelectorAll("*")) {
		const tag = el.localName.toLowerCase();
		for (const a of attrs) {
			const v = el.getAttribute(a);
			if (v === null) continue;
			if ((a === "href" || a === "xlink:href") && !hrefTags.has(tag)) continue;
			if (a === "data" && tag !== "object") continue;
			if (external(v)) refs.push("<" + tag + " " + a + "=" + short(v) + ">");
		}
		const st = el.getAttribute("style");
		if (st) scanCSS("<" + tag + " style>", st);
		if (tag === "style") scanCSS("<style>", el.textContent);
	}
	return refs;
})()`

// TestBrowserReport renders runs/example and opens report.html in headless
// Chromium: every plot must be drawn, the page must load nothing but itself,
// and the console must stay free of errors.
func TestBrowserReport(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is unusable (%v): install it with apt-get install chromium; the browser test must not be skipped in CI", chromiumPath, err)
		}
		t.Skip("chromium not installed: apt-get install chromium")
	}

	sweepYAML, err := os.ReadFile(filepath.Join(exampleSweep, "sweep.yaml"))
	if err != nil {
		t.Fatalf("reading the example sweep: %v", err)
	}
	if !strings.Contains(string(sweepYAML), fmt.Sprintf("title: %q", exampleTitle)) {
		t.Fatalf("%s/sweep.yaml no longer has the title %q: update exampleTitle in this test", exampleSweep, exampleTitle)
	}

	// Render the report through the real command line.
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"report", exampleSweep, "-o", out}, &stdout, &stderr); code != ExitClean {
		t.Fatalf("benchnote report %s -o %s: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s",
			exampleSweep, out, code, ExitClean, stdout.String(), stderr.String())
	}
	htmlPath, err := filepath.Abs(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(htmlPath); err != nil {
		t.Fatalf("benchnote report wrote no report.html: %v", err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(htmlPath)}).String()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The flags are listed one by one, rather than taken from
	// chromedp.DefaultExecAllocatorOptions, so that the browser does exactly
	// what this list says and nothing more.
	var browserOutput syncBuffer
	allocCtx, allocCancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true), // keeps the screenshot clean
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "chromium-profile")),
		chromedp.WindowSize(viewportWidth, viewportHeight),
		chromedp.CombinedOutput(&browserOutput),
	)
	defer allocCancel()
	bctx, bcancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer bcancel()
	defer func() {
		if t.Failed() {
			if tail := outputTail(browserOutput.String(), 40); tail != "" {
				t.Logf("chromium output (last lines, D-Bus noise left out):\n%s", tail)
			}
		}
	}()

	// Start the browser and the tab, then subscribe before navigating so no
	// event of the page load is missed.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	var (
		mu       sync.Mutex
		requests []string // URLs other than the report itself
		problems []string // console errors, exceptions, error log entries
	)
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := ""
			if ev.Request != nil {
				u = ev.Request.URL
			}
			if u != pageURL {
				requests = append(requests, fmt.Sprintf("%s %s (type %s)", requestMethod(ev), truncate(u, 200), ev.Type))
			}
		case *runtime.EventConsoleAPICalled:
			switch ev.Type {
			case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, consoleArgs(ev.Args)))
			case runtime.ConsoleAPICalledTypeWarning:
				t.Logf("console.warn (not a failure): %s", consoleArgs(ev.Args))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("uncaught exception at %s:%d:%d: %s", d.URL, d.LineNumber, d.ColumnNumber, msg))
		case *log.EventEntryAdded:
			if e := ev.Entry; e != nil && e.Level == log.EntryLevelError {
				problems = append(problems, fmt.Sprintf("browser log error [%s] %s (%s)", e.Source, e.Text, e.URL))
			}
		}
	}); err != nil {
		t.Fatalf("listening to the tab's events: %v", err)
	}
	// chromedp enables these domains on a new tab; enabling them again is
	// harmless and makes the test independent of that detail.
	if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("Network.enable: %v", err)
	}
	if _, err := chromedp.Call(bctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("Log.enable: %v", err)
	}

	if err := chromedp.Do(bctx,
		chromedp.EmulateViewport(viewportWidth, viewportHeight),
		chromedp.Navigate(pageURL),
	); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}

	title, err := chromedp.Run(bctx, chromedp.Evaluate[string]("document.title"))
	if err != nil {
		t.Fatalf("reading document.title: %v", err)
	}
	if title != exampleTitle {
		t.Errorf("document.title = %q, want the sweep title %q", title, exampleTitle)
	}

	tables, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("table").length`))
	if err != nil {
		t.Fatalf("counting tables: %v", err)
	}
	if tables == 0 {
		t.Errorf("report.html has no <table>: the summary table is missing")
	}

	// The first screen answers: the headline table and the data-quality
	// box are on it, whole.
	first, err := chromedp.Run(bctx, chromedp.Evaluate[struct {
		Table   boxOnPage `json:"table"`
		Quality boxOnPage `json:"quality"`
	}](firstScreenJS))
	if err != nil {
		t.Fatalf("measuring the first screen: %v", err)
	}
	for _, b := range []struct {
		name string
		box  boxOnPage
	}{{"the headline table (#headline-table)", first.Table}, {"the data-quality box (#data-quality-box)", first.Quality}} {
		switch {
		case !b.box.Found:
			t.Errorf("report.html has no %s", b.name)
		case b.box.Bottom > viewportHeight:
			t.Errorf("%s ends at %.0f px, below the first screen (%d × %d): %q", b.name, b.box.Bottom, viewportWidth, viewportHeight, b.box.Text)
		}
	}
	if first.Quality.Found && !strings.Contains(first.Quality.Text, "error-rate") {
		t.Errorf("the data-quality box does not list the example's error-rate finding: %q", first.Quality.Text)
	}

	figures, err := chromedp.Run(bctx, chromedp.Evaluate[[]figureInfo](figuresJS))
	if err != nil {
		t.Fatalf("inspecting figures: %v", err)
	}
	if len(figures) < minFigures {
		t.Errorf("report.html has %d <figure> elements, want at least %d", len(figures), minFigures)
	}
	for _, f := range figures {
		switch {
		case !f.HasSVG:
			t.Errorf("figure %s holds no <svg>: the plot was not inlined", f.ID)
		case f.Display == "none" || f.Visibility == "hidden" || f.Visibility == "collapse":
			t.Errorf("figure %s: its <svg> is not displayed (display %q, visibility %q)", f.ID, f.Display, f.Visibility)
		case f.Width <= 0 || f.Height <= 0:
			t.Errorf("figure %s: its <svg> is drawn %gx%g px, want a nonzero width and height", f.ID, f.Width, f.Height)
		}
	}

	refs, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](resourceRefsJS))
	if err != nil {
		t.Fatalf("scanning the document for resource references: %v", err)
	}
	if len(refs) > 0 {
		t.Errorf("report.html references %d resource(s) besides itself (data: URLs included); it must be self-contained:\n  %s",
			len(refs), strings.Join(refs, "\n  "))
	}

	png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("taking a screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("the screenshot is not a PNG (%d bytes)", len(png))
	}
	if path := os.Getenv(screenshotEnv); path != "" {
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Errorf("writing the screenshot to %s=%s: %v", screenshotEnv, path, err)
		} else {
			t.Logf("wrote a %dx%d screenshot of the report to %s (%d bytes)", viewportWidth, viewportHeight, path, len(png))
		}
	}

	// Let late events (a lazy request, a timer that throws) arrive, then
	// check what the listener saw.
	if err := chromedp.Do(bctx, chromedp.Sleep(250*time.Millisecond)); err != nil {
		t.Fatalf("waiting for late events: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) > 0 {
		t.Errorf("report.html made %d request(s) besides loading itself (%s); it must be self-contained:\n  %s",
			len(requests), pageURL, strings.Join(requests, "\n  "))
	}
	if len(problems) > 0 {
		t.Errorf("the browser reported %d console error(s) on report.html:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
}

// requestMethod returns the HTTP method of a request event, or "?".
func requestMethod(ev *network.EventRequestWillBeSent) string {
	if ev.Request == nil || ev.Request.Method == "" {
		return "?"
	}
	return ev.Request.Method
}

// consoleArgs renders the arguments of a console call for a failure message.
func consoleArgs(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		switch {
		case a == nil:
			parts = append(parts, "null")
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

// truncate shortens s to at most n bytes, so a data: URL cannot flood the log.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

// outputTail returns the last n lines of the browser's output, without the
// D-Bus connection errors that Chromium logs on every start in a container.
func outputTail(out string, n int) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" && !strings.Contains(l, "dbus/") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// syncBuffer is a bytes.Buffer that the browser's output goroutine and the
// test can use at the same time.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
