package cli

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/benchnote/benchnote/report"
)

// githubCommentCSS is the part of GitHub's stylesheet for rendered
// Markdown (.markdown-body, as in a pull-request comment) that decides a
// table's layout: 14 px text at 1.5 line height in the system sans-serif
// stack, tables as scrolling blocks no wider than the comment, cells
// padded 6 px by 13 px. The article is the comment's text column.
const githubCommentCSS = `
body { margin: 0; }
.markdown-body {
	box-sizing: border-box; width: 760px; padding: 0;
	font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
	font-size: 14px; line-height: 1.5; word-wrap: break-word;
}
.markdown-body p, .markdown-body blockquote, .markdown-body ul, .markdown-body table { margin-top: 0; margin-bottom: 16px; }
.markdown-body table {
	border-spacing: 0; border-collapse: collapse;
	display: block; width: max-content; max-width: 100%; overflow: auto;
}
.markdown-body table th { font-weight: 600; }
.markdown-body table th, .markdown-body table td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body table tr { border-top: 1px solid #d1d9e0; }
.markdown-body sub { font-size: 75%; }
`

// prTableJS measures pr.md's per-level tables (those with a "goodput"
// column): whether each scrolls sideways, and the numeric cells whose
// text takes more than one line (distinct line boxes of the cell's text).
const prTableJS = `(() => {
	const tables = [...document.querySelectorAll("table")].filter(t => [...t.querySelectorAll("th")].some(th => th.textContent === "goodput"));
	return tables.map(t => {
		const wrapped = [];
		for (const td of t.querySelectorAll("tbody td")) {
			const text = td.textContent.trim();
			if (!/^[-<>≤]?\d/.test(text)) continue;
			const r = document.createRange();
			r.selectNodeContents(td);
			const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
			if (tops.size > 1) wrapped.push(text + " (" + tops.size + " lines)");
		}
		return {
			columns: t.querySelectorAll("thead th").length,
			scrollWidth: t.scrollWidth, clientWidth: t.clientWidth,
			wrapped: wrapped,
		};
	});
})()`

type prTableLayout struct {
	Columns     int      `json:"columns"`
	ScrollWidth float64  `json:"scrollWidth"`
	ClientWidth float64  `json:"clientWidth"`
	Wrapped     []string `json:"wrapped"`
}

// TestBrowserPRTable renders pr.md as GitHub shows a pull-request comment
// (the report's Markdown to HTML, GitHub's table CSS, a 760 px column) in
// headless Chromium: its per-level table has at most 8 columns, does not
// scroll sideways, and no number in it wraps.
func TestBrowserPRTable(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is unusable: %v", chromiumPath, err)
		}
		t.Skip("chromium not installed: apt-get install chromium")
	}
	sweeps := []struct{ name, dir string }{
		{"example", exampleSweep},
		{"two series", maxNumSeqsSweep(t)},
	}
	pages := map[string]string{}
	for _, sw := range sweeps {
		out := filepath.Join(t.TempDir(), "report")
		if code, msg, errOut := runCLI(t, "report", sw.dir, "-o", out); code != ExitClean {
			t.Fatalf("report %s: exit %d: %s %s", sw.name, code, msg, errOut)
		}
		md, err := os.ReadFile(filepath.Join(out, "pr.md"))
		if err != nil {
			t.Fatal(err)
		}
		body, err := report.MarkdownToHTML(md)
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(out, "pr.html")
		html := "<!doctype html>\n<html><head><meta charset=\"utf-8\"><style>" + githubCommentCSS + "</style></head>\n<body><article class=\"markdown-body\">\n" + string(body) + "</article></body></html>\n"
		if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		pages[sw.name] = absPath(t, page)
	}

	bctx := headlessBrowser(t, 60*time.Second)
	for _, sw := range sweeps {
		page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(pages[sw.name])}).String()
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(prCommentWidth, layoutHeight), chromedp.Navigate(page)); err != nil {
			t.Fatalf("loading %s: %v", page, err)
		}
		got, err := chromedp.Run(bctx, chromedp.Evaluate[[]prTableLayout](prTableJS))
		if err != nil {
			t.Fatalf("measuring %s: %v", page, err)
		}
		if len(got) == 0 {
			t.Fatalf("%s: no per-level table in pr.md", sw.name)
		}
		for i, tb := range got {
			if tb.Columns > 8 {
				t.Errorf("%s, table %d: %d columns, want at most 8", sw.name, i+1, tb.Columns)
			}
			if tb.ScrollWidth > tb.ClientWidth {
				t.Errorf("%s, table %d scrolls sideways at %d px: scrollWidth %g > clientWidth %g", sw.name, i+1, prCommentWidth, tb.ScrollWidth, tb.ClientWidth)
			}
			if len(tb.Wrapped) > 0 {
				t.Errorf("%s, table %d: numbers wrap at %d px: %s", sw.name, i+1, prCommentWidth, strings.Join(tb.Wrapped, "; "))
			}
		}
	}
}
