package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
)

// seriesCode writes a series as inline code: `max_num_seqs=128`, or
// `{} (unlabelled)`.
func seriesCode(s ingest.Series) string {
	if s.IsZero() {
		return report.Code("{}") + " (unlabelled)"
	}
	return report.Code(s.String())
}

// sideCounts writes a side's size: "3 levels, 9 runs", with its number of
// series first when it has several.
func sideCounts(s compare.Side) string {
	c := textfmt.Count(s.Levels, "level", "levels") + ", " + textfmt.Count(s.Runs, "run", "runs")
	if s.Series > 1 {
		c = fmt.Sprintf("%d series, %s", s.Series, c)
	}
	return c
}

// writeSeries says which series were compared and lists those of one side
// only, with the levels and runs left out.
func writeSeries(b *strings.Builder, r *compare.Result, lay layout) {
	s := r.Series
	if s == nil {
		return
	}
	if s.Paired {
		p := s.Compared[0]
		fmt.Fprintf(b, "**Series:** base %s against new %s, levels matched by load alone.", seriesCode(p.Base), seriesCode(p.New))
		if ls := r.Comparability.Labels; len(ls) > 0 {
			var names []string
			for _, l := range ls {
				names = append(names, report.Code(l.Label))
			}
			fmt.Fprintf(b, " The labels that differ (%s) are the change under test: the comparability check expects what they imply to differ.", strings.Join(names, ", "))
		} else {
			b.WriteString(" Their labels are the same.")
		}
		b.WriteString("\n\n")
		return
	}
	var names []string
	for i, p := range s.Compared {
		if lay.listCap >= 0 && i >= max(lay.listCap, 20) {
			names = append(names, fmt.Sprintf("… and %d more", len(s.Compared)-i))
			break
		}
		names = append(names, seriesCode(p.Base))
	}
	switch len(s.Compared) {
	case 0:
		b.WriteString("**Series** (matched by their labels): none is on both sides.")
	case 1:
		fmt.Fprintf(b, "**Series** (matched by their labels): %s.", names[0])
	default:
		fmt.Fprintf(b, "**Series** (matched by their labels): %d compared, %s.", len(s.Compared), strings.Join(names, ", "))
	}
	if !s.Selector.IsZero() {
		fmt.Fprintf(b, " Selected by %s.", report.Code("--series "+s.Selector.String()))
	}
	b.WriteString("\n\n")
	if len(s.OnlyBase)+len(s.OnlyNew) == 0 {
		return
	}
	b.WriteString("**Series on one side only**, not compared (their levels are left out):\n\n")
	for _, side := range []struct {
		what string
		cs   []compare.SeriesCount
	}{{"base only", s.OnlyBase}, {"new only", s.OnlyNew}} {
		if len(side.cs) == 0 {
			continue
		}
		var parts []string
		for i, c := range side.cs {
			if lay.listCap >= 0 && i >= max(lay.listCap, 20) {
				parts = append(parts, fmt.Sprintf("… and %d more", len(side.cs)-i))
				break
			}
			parts = append(parts, fmt.Sprintf("%s (%s, %s)", seriesCode(c.Series), textfmt.Count(c.Levels, "level", "levels"), textfmt.Count(c.Runs, "run", "runs")))
		}
		fmt.Fprintf(b, "- **%s** (%d): %s\n", side.what, len(side.cs), strings.Join(parts, ", "))
	}
	b.WriteString("\n")
}

// writeLabels says, in the comparability section, which labels differ
// between the two series compared and which checks they expect to differ.
func writeLabels(b *strings.Builder, c compare.Comparability) {
	if len(c.Labels) == 0 {
		return
	}
	var parts []string
	for _, l := range c.Labels {
		what := "implies no check"
		if len(l.Rules) > 0 {
			what = "expects " + strings.Join(l.Rules, ", ") + " to differ"
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s (%s)", report.Code(l.Label), report.EscapeMarkdown(orAbsent(l.Base)), report.EscapeMarkdown(orAbsent(l.New)), what))
	}
	fmt.Fprintf(b, "Two series are compared, and their labels say what differs: %s. A difference there is expected, as with `--expect`; one the environment does not show is said.\n\n", strings.Join(parts, "; "))
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// writeSLOBySeries writes the highest load meeting the SLO of every
// series compared, one row each.
func writeSLOBySeries(b *strings.Builder, hs []compare.SLOHeadline) {
	if len(hs) == 0 {
		return
	}
	fmt.Fprintf(b, "## Highest load meeting the SLO\n\nPer series. A level meets the SLO (%s) when its median percentage goodput across runs is at least %s %%. The uncertainty is in levels: the highest level where every run met it, and the highest where at least one did.\n\n",
		report.EscapeMarkdown(hs[0].SLO), strconv.FormatFloat(hs[0].Attainment, 'g', -1, 64))
	level := func(id *compare.LevelID) string {
		if id == nil {
			return "no level"
		}
		return report.EscapeMarkdown(id.Label())
	}
	var rows [][]string
	for _, h := range hs {
		cell := func(c compare.SLOCapability) string {
			if !c.Met {
				return "no level"
			}
			return fmt.Sprintf("**%s** (goodput %s)", report.EscapeMarkdown(c.Level.Label()), across(c.Goodput, "%"))
		}
		rows = append(rows, []string{seriesCode(h.Series), cell(h.Base), cell(h.New),
			level(h.Base.EveryRun) + " / " + level(h.Base.SomeRun), level(h.New.EveryRun) + " / " + level(h.New.SomeRun)})
	}
	b.WriteString(report.Table([]string{"series", "base: highest level (median)", "new: highest level (median)", "base: every run / one run", "new: every run / one run"}, rows))
	b.WriteString("\n")
}

// SeriesLines are the lines compare prints on stdout beside "wrote OUT":
// the series of one side only, which were not compared.
func SeriesLines(r *compare.Result) []string {
	if r.Series == nil {
		return nil
	}
	var out []string
	for _, side := range []struct {
		what string
		cs   []compare.SeriesCount
	}{{"base", r.Series.OnlyBase}, {"new", r.Series.OnlyNew}} {
		for _, c := range side.cs {
			out = append(out, fmt.Sprintf("not compared: series %s only in %s (%s, %s left out)", compare.SeriesName(c.Series), side.what, textfmt.Count(c.Levels, "level", "levels"), textfmt.Count(c.Runs, "run", "runs")))
		}
	}
	return out
}
