package report

import (
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// sneakySweep has control characters in a run directory's name and in a
// request's status text, environment values that look like links, and
// input text that imitates the few-runs flag. Level 2 has 3 runs (no
// flag); level 4 has 2 runs (flagged).
func sneakySweep() *ingest.Sweep {
	var runs []*ingest.Run
	for i, dir := range []string{"c2/run\x1b[31m-1\x00", "c2/run-2", "c2/run-3", "c4/run-1", "c4/run-2"} {
		conc := 2
		if strings.HasPrefix(dir, "c4") {
			conc = 4
		}
		status := ingest.StatusColumnOf("", "", "")
		if i == 0 {
			status = ingest.StatusColumnOf("", "", "⚠ 2 runs\x00\x1b[2J see http://evil.example.com")
		}
		q := &ingest.Requests{N: 3, Status: status}
		for k, ttft := range []float64{100, 120, 140} {
			q.SourceRow = append(q.SourceRow, int32(k+2))
			q.IDs.Append(string(rune('a' + k)))
			q.PromptTokens = append(q.PromptTokens, 10)
			q.CompletionTokens = append(q.CompletionTokens, 5)
			q.TTFTms = append(q.TTFTms, ttft+float64(i))
			q.E2Ems = append(q.E2Ems, ttft+float64(i)+100)
		}
		runs = append(runs, &ingest.Run{
			Dir: dir, Concurrency: conc, Repeat: i%3 + 1,
			Requests: &ingest.RequestFile{Path: dir + "/requests.csv", Format: "csv", RowsRead: 3, Requests: q},
			Window:   ingest.Window{Source: "unknown"},
			Env: ingest.Environment{
				Sources: []ingest.EnvSource{{Path: "env.txt", Format: "key-value"}},
				Canonical: map[string]string{
					"model": "http://x", "gpu": "www.x.com", "engine": "ops@example.com", "driver": "⚠ 2 runs",
					"cuda": "12.4\x1b]0;title\a", "python": "https://www.python.org/",
				},
			},
		})
	}
	cfg := ingest.DefaultConfig()
	cfg.Title = "Title\x1b[1m bold\x00"
	cfg.Warmup.Mode = "none"
	return &ingest.Sweep{Config: cfg, Runs: runs}
}

// controlBytes lists the control bytes in s other than newline and tab.
func controlBytes(s string) []string {
	var found []string
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			found = append(found, s[max(0, i-20):i])
		}
	}
	return found
}

func TestInputsCannotControlOrImitate(t *testing.T) {
	files, err := Build(analyze.Analyze(sneakySweep()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md, html := string(files[MarkdownFile]), string(files[HTMLFile])
	for name, text := range map[string]string{MarkdownFile: md, HTMLFile: html} {
		if found := controlBytes(text); len(found) > 0 {
			t.Errorf("%s holds %d control bytes, after: %q", name, len(found), found)
		}
	}

	// Markdown: control bytes as Go escapes, links broken by backslashes,
	// the report's warning sign written \u26a0 (so "⚠ 2 runs" cannot pass
	// for the fewer-runs flag, which Markdown does not style).
	for _, want := range []string{
		"# Title\\\\x1b\\[1m bold\\\\x00\n",
		"`c2/run\\x1b[31m-1\\x00`",
		"| model | http\\://x |\n",
		"| gpu | www\\.x.com |\n",
		"| engine | ops\\@example.com |\n",
		"| driver | \\u26a0 2 runs |\n",
		"| cuda | 12.4\\\\x1b\\]0;title\\\\a |\n",
		"| python | https\\://www\\.python.org/ |\n",
		"| request | request error (not a latency sample): \\u26a0 \\<n\\> runs\\\\x00\\\\x1b\\[\\<n\\>J see http\\://evil.example.com | 1 | `c2/run\\x1b[31m-1\\x00: \\u26a0 2 runs\\x00\\x1b[2J see http://evil.example.com` |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// HTML: the same text shown as data, no links, and the input's
	// "⚠ 2 runs" never styled; the real flags at level 4 are.
	for _, want := range []string{
		"<title>Title\\x1b[1m bold\\x00</title>",
		"<h1 id=\"titlex1b1m-boldx00\">Title\\x1b[1m bold\\x00</h1>",
		"<td>model</td>\n<td>http://x</td>",
		"<td>gpu</td>\n<td>www.x.com</td>",
		"<td>engine</td>\n<td>ops@example.com</td>",
		"<td>driver</td>\n<td>\\u26a0 2 runs</td>",
		"<td>python</td>\n<td>https://www.python.org/</td>",
		"<td>request error (not a latency sample): \\u26a0 &lt;n&gt; runs\\x00\\x1b[&lt;n&gt;J see http://evil.example.com</td>",
		"<td>4</td>\n<td>2 <span class=\"warn\">⚠ fewer than 3 runs</span></td>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// The only links are the page's own: the table of contents and the
	// notebook's cross-references, all to headings on the page.
	if n, own := strings.Count(html, "<a "), strings.Count(html, `<a href="#`); n != own || n == 0 {
		t.Errorf("report.html has %d links, %d of them to the page itself; want only links to the page's headings:\n%s", n, own, grepLines(html, "<a "))
	}
	if strings.Contains(html, `<span class="warn">⚠ 2 runs</span></td>`) {
		t.Errorf("input text styled as a flag:\n%s", grepLines(html, `warn">⚠ 2 runs</span></td>`))
	}
}

// TestFlagsInsideTags checks that a flag that lands inside a tag (a user
// notebook's image alt text) is dropped there, not turned into markup.
func TestFlagsInsideTags(t *testing.T) {
	got := styleFlags(`<p>a ` + flagOpen + `⚠ 2 runs` + flagClose + ` <img src="x.png" alt="v ` + flagOpen + `⚠ 2 runs` + flagClose + `"> ` + flagOpen + `unclosed</p>`)
	want := `<p>a <span class="warn">⚠ 2 runs</span> <img src="x.png" alt="v ⚠ 2 runs"> unclosed</p>`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
