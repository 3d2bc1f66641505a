package report

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// importsCell describes where imported runs came from: per source, what
// benchnote recomputed, what it took as reported, what the source cannot
// support, where the token counts came from and how the tool's definitions
// differ from benchnote's; then each run's figures as the tool reported
// them beside benchnote's. It renders nothing for a sweep with no import.
func importsCell(s *analyze.Summary) string {
	type group struct {
		imp   *analyze.ImportSummary
		runs  []string
		files []string
	}
	var groups []*group
	byKey := map[string]*group{}
	add := func(imp *analyze.ImportSummary, dir string) {
		k := importKey(imp)
		g, ok := byKey[k]
		if !ok {
			g = &group{imp: imp}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, dir)
		if imp.File != "" && (len(g.files) == 0 || g.files[len(g.files)-1] != imp.File) {
			g.files = append(g.files, imp.File)
		}
	}
	var withFigures []analyze.RunSummary
	for _, r := range s.Runs {
		if r.Import == nil {
			continue
		}
		add(r.Import, r.Dir)
		if len(r.Import.Figures) > 0 {
			withFigures = append(withFigures, r)
		}
	}
	for i := range s.Reported {
		add(&s.Reported[i].Import, s.Reported[i].Dir)
	}
	if len(groups) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Where these results came from\n\n")
	fmt.Fprintf(&b, "These runs were converted by `benchnote import` from other benchmark tools' result files. benchnote recomputed what each tool's raw records allow under its own definitions; the rest is as the tool reported it, and what a source cannot support is listed rather than guessed.\n\n")
	for _, g := range groups {
		imp := g.imp
		title := mdEscape(imp.Tool)
		if imp.Version != "" {
			title += ", version " + mdEscape(imp.Version)
		}
		fmt.Fprintf(&b, "### %s\n\n", title)
		var runs []string
		for _, r := range g.runs {
			runs = append(runs, code(r))
		}
		var files []string
		for _, f := range g.files {
			files = append(files, code(f))
		}
		fmt.Fprintf(&b, "%s %s, from %s.\n\n", textfmt.Plural(len(runs), "Run", "Runs"), strings.Join(runs, ", "), strings.Join(files, ", "))
		bullet := func(label string, items []string) {
			if len(items) == 0 {
				return
			}
			var esc []string
			for _, it := range items {
				esc = append(esc, mdEscape(it))
			}
			fmt.Fprintf(&b, "- **%s:** %s.\n", label, strings.Join(esc, "; "))
		}
		bullet("Recomputed by benchnote", imp.Recomputed)
		bullet("Taken as reported", imp.AsReported)
		if t := tokenCountsText(imp.TokenCounts); t != "" {
			fmt.Fprintf(&b, "- **Token counts:** %s.\n", t)
		}
		bullet("Approximate", imp.Approximate)
		if len(imp.Unavailable) > 0 {
			b.WriteString("- **Not available from this source:**\n")
			for _, u := range imp.Unavailable {
				fmt.Fprintf(&b, "  - %s\n", mdEscape(u.Text))
			}
		}
		if len(imp.Definitions) > 0 {
			fmt.Fprintf(&b, "\n**How %s defines these, and how benchnote does** (why the tool's own numbers differ):\n\n", mdEscape(imp.Tool))
			var rows [][]string
			for _, d := range imp.Definitions {
				rows = append(rows, []string{mdEscape(d.Metric), mdEscape(d.Source), mdEscape(d.Benchnote)})
			}
			b.WriteString(table([]string{"metric", mdEscape(imp.Tool), "benchnote"}, rows))
		}
		b.WriteString("\n")
	}
	for _, r := range withFigures {
		fmt.Fprintf(&b, "**%s's own figures for %s, beside benchnote's** (benchnote's over the run's measured requests, with the sweep's method):\n\n", mdEscape(r.Import.Tool), code(r.Dir))
		var rows [][]string
		for _, f := range r.Import.Figures {
			rows = append(rows, []string{mdEscape(f.Label), fmtNum(f.Reported) + " " + mdEscape(f.Unit), fmtNum(f.Benchnote), mdEscape(f.Basis), mdEscape(f.Note)})
		}
		b.WriteString(table([]string{"figure", "as reported", "benchnote", "benchnote computed over", "how the tool computed it"}, rows))
		b.WriteString("\n")
	}
	return b.String()
}

// importKey identifies an import's provenance apart from its figures and
// file, so runs converted alike are described once.
func importKey(imp *analyze.ImportSummary) string {
	var b strings.Builder
	b.WriteString(imp.Tool + "\x00" + imp.Version + "\x00" + imp.TokenCounts)
	for _, l := range [][]string{imp.Recomputed, imp.AsReported, imp.Approximate} {
		b.WriteString("\x01" + strings.Join(l, "\x00"))
	}
	for _, u := range imp.Unavailable {
		b.WriteString("\x02" + u.Code)
	}
	for _, d := range imp.Definitions {
		b.WriteString("\x03" + d.Metric + "\x00" + d.Source + "\x00" + d.Benchnote)
	}
	return b.String()
}

// tokenCountsText says where completion_tokens came from.
func tokenCountsText(tc string) string {
	switch {
	case tc == "":
		return ""
	case tc == "usage":
		return "the server's usage, as benchnote's input contract expects"
	case tc == "requested":
		return "the requested output length, not the server's usage: TPOT, user TPS and per-token rates rest on that assumption"
	case tc == "tokenizer":
		return "re-counted by a client tokenizer the file does not name, not the server's usage: TPOT, user TPS and per-token rates rest on that count"
	case strings.HasPrefix(tc, "tokenizer:"):
		return "re-counted by the client tokenizer " + code(strings.TrimPrefix(tc, "tokenizer:")) + ", not the server's usage: TPOT, user TPS and per-token rates rest on that count"
	}
	return mdEscape(tc)
}

// reportedTable lists the runs imported with their tools' aggregates only.
func reportedTable(s *analyze.Summary) string {
	if len(s.Reported) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**Figures reported by the tools, not recomputed.** These files hold aggregates only, so benchnote cannot recompute anything from them: the figures are the tools' own, under the tools' definitions (see above). They are kept out of every level statistic and every comparison.\n\n")
	b.WriteString(bySeries(seriesOf(s), s.Reported, func(r analyze.ReportedRun) ingest.Series { return r.Series },
		func(rs []analyze.ReportedRun) string { return reportedRows(s, rs) }))
	return b.String()
}

// reportedRows is the table of some reported runs' figures.
func reportedRows(s *analyze.Summary, reported []analyze.ReportedRun) string {
	var rows [][]string
	v := viewOf(s)
	for _, r := range reported {
		tool := mdEscape(r.Import.Tool)
		level := "not recorded"
		if l := r.Load(); l.Valid() {
			level = mdEscape(v.name(l))
		}
		for _, f := range r.Import.Figures {
			rows = append(rows, []string{code(r.Dir), level, tool, mdEscape(f.Label), fmtNum(f.Reported), mdEscape(f.Unit), mdEscape(f.Note)})
		}
		if len(r.Import.Figures) == 0 {
			rows = append(rows, []string{code(r.Dir), level, tool, "(no figures)", na, "", ""})
		}
		for _, p := range r.Problems {
			rows = append(rows, []string{code(r.Dir), level, tool, "problem", na, "", mdEscape(p)})
		}
	}
	return table([]string{"run", "level", "tool", "figure", "as reported", "unit", "how the tool computed it"}, rows)
}

// reportedHeadRows bounds the runs the first screen's table of reported
// figures lists; report.md lists every figure of every run.
const reportedHeadRows = 40

// reportedHeadFigures are the tools' figures the first screen shows, by
// key, with their column headers.
var reportedHeadFigures = []struct{ key, head string }{
	{"ttft.p50", "TTFT p50 (ms)"},
	{"tpot.p50", "TPOT p50 (ms)"},
	{"e2e.p50", "E2E p50 (ms)"},
	{analyze.KeyClientOutputRate, "output tokens/s"},
	{"throughput.requests_per_s", "requests/s"},
}

// reportedHead is the first screen of a sweep holding only the tools'
// aggregates: one row a tool run with the figures a reader looks for
// first, as the tools reported them, so that pr.md (which has no other
// section) carries numbers too.
func reportedHead(s *analyze.Summary) string {
	if len(s.Reported) == 0 {
		return ""
	}
	v := viewOf(s)
	sv := seriesOf(s)
	var tools []string
	seen := map[string]bool{}
	var rows [][]string
	for i, r := range s.Reported {
		if !seen[r.Import.Tool] {
			seen[r.Import.Tool] = true
			tools = append(tools, mdEscape(r.Import.Tool))
		}
		if i >= reportedHeadRows {
			continue
		}
		level := "not recorded"
		if l := r.Load(); l.Valid() {
			level = mdEscape(v.name(l))
		}
		if sv.several() {
			level = mdEscape(textfmt.Clip(sv.name(r.Series), prSeriesNameRunes)) + ", " + level
		}
		fig := map[string]analyze.Num{}
		for _, f := range r.Import.Figures {
			fig[f.Key] = f.Reported
		}
		row := []string{level}
		for _, f := range reportedHeadFigures {
			if x, ok := fig[f.key]; ok {
				row = append(row, fmtNum(x))
			} else {
				row = append(row, na)
			}
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**As reported by %s**, not recomputed and under the %s own definitions; n/a where %s no such figure:\n\n",
		andList(tools), textfmt.Plural(len(tools), "tool's", "tools'"), textfmt.Plural(len(tools), "it reports", "they report"))
	head := []string{"level"}
	for _, f := range reportedHeadFigures {
		head = append(head, f.head)
	}
	b.WriteString(table(head, rows))
	if n := len(s.Reported) - reportedHeadRows; n > 0 {
		fmt.Fprintf(&b, "\nThe other %d tool %s are in report.md.\n", n, textfmt.Plural(n, "run", "runs"))
	}
	b.WriteString("\n")
	return b.String()
}
