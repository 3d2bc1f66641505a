package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// pr.md is the report's first screen as Markdown for a pull-request
// comment: the answer, the data-quality box and a per-level table of at
// most prTableColumns columns (the rest is in report.md), with no image
// and no link (a comment cannot follow the report's relative links),
// never longer than PRLimit bytes whatever the sweep, and saying
// what it left out.

// PRFile is the name of the pull-request summary in the output directory.
const PRFile = "pr.md"

// PRLimit bounds pr.md in bytes (so in characters too): GitHub refuses a
// comment over 65,536 characters, and the margin leaves room for a line
// of one's own.
const PRLimit = 60_000

// Bounds on the input text pr.md repeats, so that no single title,
// environment value or finding can use up the budget.
const (
	prTitleRunes   = 200
	prMessageRunes = 600
	prLineRunes    = 2_000
)

// prSeriesNameRunes bounds a series' name in pr.md's table of series.
const prSeriesNameRunes = 200

// prHead is pr.md's title and first screen, with the first rows of the
// table of series when the sweep has several. Every paragraph is cut to
// prLineRunes, every line of a list too; the rows of a table are bounded
// by their cells.
func prHead(s *analyze.Summary, seriesRows int) string {
	var head strings.Builder
	fmt.Fprintf(&head, "### %s\n\n", mdEscape(textfmt.Clip(s.Title, prTitleRunes)))
	for _, part := range strings.Split(strings.TrimSuffix(headlineCellOf(s, seriesRows, prSeriesNameRunes), "\n"), "\n\n") {
		switch {
		case strings.HasPrefix(part, "| "):
		case strings.HasPrefix(part, "- "):
			lines := strings.Split(part, "\n")
			for i, l := range lines {
				lines[i] = textfmt.Clip(l, prLineRunes)
			}
			part = strings.Join(lines, "\n")
		default:
			part = textfmt.Clip(part, prLineRunes)
		}
		head.WriteString(part + "\n\n")
	}
	return head.String()
}

// prMarkdown renders pr.md.
func prMarkdown(s *analyze.Summary) []byte {
	series := 0
	if seriesOf(s).several() {
		series = len(s.Answers)
	}

	// The data-quality box, one finding a line, as many as fit.
	var quality []string
	for _, f := range s.Findings {
		if f.Severity != "error" && f.Severity != "warning" {
			continue
		}
		sev := "warning"
		if f.Severity == "error" {
			sev = "**error**"
		}
		quality = append(quality, fmt.Sprintf("> - %s %s: %s\n", sev, code(textfmt.Clip(f.Rule, 80)), mdEscape(textfmt.Clip(f.Message, prMessageRunes))))
	}

	levels := s.Levels
	build := func(nSeries, nQuality, nLevels int) string {
		var b strings.Builder
		b.WriteString(prHead(s, nSeries))
		if len(quality) == 0 {
			b.WriteString("> **Data quality: nothing to report** (no error or warning finding).\n\n")
		} else {
			b.WriteString("> **Data quality**\n>\n")
			for _, q := range quality[:nQuality] {
				b.WriteString(q)
			}
			b.WriteString("\n")
		}
		if nLevels > 0 {
			b.WriteString(prTableOf(s, levels[:nLevels]))
			b.WriteString("\n")
		}
		b.WriteString(prLeftOut(s, series-nSeries, len(quality)-nQuality, len(levels)-nLevels))
		return controls.EscapeText(dropFlags.Replace(b.String()))
	}
	// The rows of the table of series (the answer) may take half of the
	// room the rest of the head and the footer leave; findings half of
	// what then remains, the per-level table (levels in order) what
	// remains after them; findings, then series that did not fit take
	// what the table did not use.
	largest := func(lo, n int, fits func(k int) bool) int {
		return lo + sort.Search(n-lo+1, func(i int) bool { return !fits(lo + i) }) - 1
	}
	nSeries := max(0, largest(0, series, func(k int) bool { return len(build(k, 0, 0)) <= (PRLimit+len(build(0, 0, 0)))/2 }))
	half := (PRLimit + len(build(nSeries, 0, 0))) / 2
	nQuality := max(0, largest(0, len(quality), func(k int) bool { return len(build(nSeries, k, 0)) <= half }))
	nLevels := max(0, largest(0, len(levels), func(k int) bool { return len(build(nSeries, nQuality, k)) <= PRLimit }))
	nQuality = max(nQuality, largest(nQuality, len(quality), func(k int) bool { return len(build(nSeries, k, nLevels)) <= PRLimit }))
	nSeries = max(nSeries, largest(nSeries, series, func(k int) bool { return len(build(k, nQuality, nLevels)) <= PRLimit }))
	return []byte(build(nSeries, nQuality, nLevels))
}

// prLeftOut says what pr.md leaves out and where to find it.
func prLeftOut(s *analyze.Summary, series, findings, levels int) string {
	var left []string
	if series > 0 {
		left = append(left, fmt.Sprintf("the last %d of %d rows of the table of series, which did not fit", series, len(s.Answers)))
	}
	if findings > 0 {
		left = append(left, fmt.Sprintf("%d error and warning %s that did not fit", findings, textfmt.Plural(findings, "finding", "findings")))
	}
	if levels > 0 {
		left = append(left, fmt.Sprintf("the last %d of %d %s of the table, which did not fit", levels, len(s.Levels), textfmt.Plural(len(s.Levels), "level", "levels")))
	}
	left = append(left, "every chart (a comment cannot show the report's relative image links)",
		"the detailed tables (the p50s and requests/s of the per-level table, p99 and means, ITL, pooled percentiles, throughput windows and counter checks, goodput failures, workload, every run, server histograms, warm-up)",
		"the environment in full, the method, the exclusions and the lint findings")
	return fmt.Sprintf("<sub>Summary written by benchnote %s for a pull-request comment (at most %s characters). Left out: %s. They are in the report this file was written with: report.html (self-contained), report.md (charts linked relatively, as plots/*.svg) and summary.json.</sub>\n",
		Version, textfmt.Thousands(PRLimit), strings.Join(left, "; "))
}
