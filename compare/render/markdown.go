package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
)

// detail is how much of the per-level tables a rendering shows.
type detail int

const (
	detailFull    detail = iota // every row of every level
	detailChanged               // only rows that are not "no change" or "not available"
	detailNone                  // no per-level tables
)

// layout is one way of fitting compare.md into its limit.
type layout struct {
	detail detail
	// levels is how many levels get a table (all when negative).
	levels int
	// listCap is the most rows each list of flagged or undecided changes
	// shows (all when negative).
	listCap int
	// figures inserts chart tokens for the HTML rendering.
	figures bool
}

// markdown renders compare.md within limit characters, trying ever
// shorter layouts: full tables, then only the changed rows, then fewer
// levels, then capped lists.
func markdown(in Input, limit int) string {
	full := layout{detail: detailFull, levels: -1, listCap: -1}
	if md := render(in, full); utf8.RuneCountInString(md) < limit {
		return md
	}
	changed := layout{detail: detailChanged, levels: -1, listCap: -1}
	if md := render(in, changed); utf8.RuneCountInString(md) < limit {
		return md
	}
	// As many level tables (changed rows only) as fit.
	lo, hi := 0, len(in.Result.Levels)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if utf8.RuneCountInString(render(in, layout{detail: detailChanged, levels: mid, listCap: -1})) < limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		return render(in, layout{detail: detailChanged, levels: lo, listCap: -1})
	}
	for _, c := range []int{-1, 200, 100, 50, 20, 10, 5, 0} {
		md := render(in, layout{detail: detailNone, levels: 0, listCap: c})
		if utf8.RuneCountInString(md) < limit || c == 0 {
			return md
		}
	}
	return ""
}

// figureToken marks where the HTML rendering inserts a chart.
const figureToken = "BENCHNOTE-FIGURE-"

// render renders compare.md in one layout: the verdict, the two sides,
// the findings, the lists of changes at single levels, the comparability
// and method notes, the per-level tables, the levels on one side only,
// and what the layout left out.
func render(in Input, lay layout) string {
	r := in.Result
	var b strings.Builder
	var cut []string
	// The verdict in one sentence is the first line.
	fmt.Fprintf(&b, "%s\n\n# benchnote compare\n\n", report.EscapeMarkdown(r.Verdict))
	fmt.Fprintf(&b, "**Base:** %s: %s (%s)  \n**New:** %s: %s (%s)\n\n",
		report.Code(r.Base.Name), report.EscapeMarkdown(textfmt.Clip(r.Base.Title, 120)), sideCounts(r.Base),
		report.Code(r.New.Name), report.EscapeMarkdown(textfmt.Clip(r.New.Title, 120)), sideCounts(r.New))
	writeSeries(&b, r, lay)

	writeVerdict(&b, in)
	writeFindings(&b, r, lay)
	writeSLO(&b, r)
	writeSLOBySeries(&b, r.SLOBySeries)

	cut = append(cut, writeErrorRate(&b, r, lay)...)
	cut = append(cut, writeLevelLists(&b, r, lay)...)

	writeComparability(&b, r.Comparability)
	writeMethod(&b, r)

	if lay.figures {
		fmt.Fprintf(&b, "## Latency against throughput\n\n%soverview\n\n", figureToken)
	}
	cut = append(cut, writeLevels(&b, r, lay)...)
	if len(r.OnlyBase)+len(r.OnlyNew) > 0 {
		b.WriteString("## Levels on one side only\n\nNot compared: the other sweep has no such level.\n\n")
		writeOneSided(&b, "base only", r.OnlyBase, lay)
		writeOneSided(&b, "new only", r.OnlyNew, lay)
		b.WriteString("\n")
	}
	if len(cut) > 0 {
		fmt.Fprintf(&b, "---\n\n**Shortened** to stay under %s characters (a pull-request comment). Left out: %s. compare.html and compare.json hold everything.\n",
			textfmt.Thousands(MaxMarkdown), strings.Join(cut, "; "))
	}
	fmt.Fprintf(&b, "\n<sub>benchnote %s · %s</sub>\n", report.Version, Schema)
	return b.String()
}

// writeErrorRate writes the levels whose error rate rose, most severe
// first, and returns what the layout's list cap left out.
func writeErrorRate(b *strings.Builder, r *compare.Result, lay layout) (cut []string) {
	if len(r.ErrorRate) == 0 {
		return nil
	}
	fmt.Fprintf(b, "## Error-rate rises (%d)\n\n", len(r.ErrorRate))
	fmt.Fprintf(b, "The new sweep's median per-run error rate, or its worst run, exceeds the base's by more than the threshold at these levels. This describes where errors rose; it does not gate: the error rate's test across levels above does, with the threshold as its smallest rise.\n\n")
	// Most severe first: the larger of the rises of the median and of
	// the worst run; compare.json keeps them in level order.
	shown := append([]compare.ErrorRateRise{}, r.ErrorRate...)
	rise := func(e compare.ErrorRateRise) float64 {
		return math.Max(e.NewMedian-e.BaseMedian, e.NewWorst-e.BaseWorst)
	}
	sort.SliceStable(shown, func(i, j int) bool { return rise(shown[i]) > rise(shown[j]) })
	if lay.listCap >= 0 && len(shown) > lay.listCap {
		shown = shown[:lay.listCap]
		cut = append(cut, fmt.Sprintf("%d of %d error-rate rises", len(r.ErrorRate)-lay.listCap, len(r.ErrorRate)))
	}
	var rows [][]string
	for _, e := range shown {
		rows = append(rows, []string{report.EscapeMarkdown(e.Label), pct(e.BaseMedian), pct(e.NewMedian), pct(e.BaseWorst), pct(e.NewWorst), strconv.FormatFloat(e.Threshold, 'g', -1, 64) + " pp"})
	}
	if len(rows) > 0 {
		b.WriteString(report.Table([]string{"level", "base median", "new median", "base worst run", "new worst run", "threshold"}, rows))
	}
	if len(shown) < len(r.ErrorRate) {
		fmt.Fprintf(b, "\n… and %d more (compare.json and compare.html list them all).\n", len(r.ErrorRate)-len(shown))
	}
	b.WriteString("\n")
	return cut
}

// writeLevelLists writes the regressions, the undecided changes for the
// worse and the improvements at single levels, most severe first, and
// returns what the layout's list cap left out.
func writeLevelLists(b *strings.Builder, r *compare.Result, lay layout) (cut []string) {
	lists := []struct {
		title, intro string
		verdicts     []string
		undecided    bool
	}{
		{"Regressions at single levels", "Where a change shows: a level's own test (p < α, Holm over every level's tests) **and** worse by more than the threshold. These describe; the gate decides on the statistics tested across levels above (unless `--per-level`).", []string{compare.VerdictRegression}, false},
		{"Undecided at single levels: too few runs", "Worse by more than the threshold at one level, but with these run counts no exact test of that level alone can reach α. Whether the ranges of the runs overlap is shown as a description only, not a test.", []string{compare.VerdictUndecided}, true},
		{"Improvements at single levels", "A level's own test (p < α) and better by more than the threshold.", []string{compare.VerdictImprovement}, false},
	}
	for _, l := range lists {
		rows := r.BySeverity(l.verdicts...)
		if l.undecided {
			// Only changes for the worse can hide a regression.
			var worse []compare.LevelRow
			for _, lr := range rows {
				if lr.Direction == "worse" {
					worse = append(worse, lr)
				}
			}
			rows = worse
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "## %s (%d, most severe first)\n\n%s\n\n", l.title, len(rows), l.intro)
		shown := rows
		if lay.listCap >= 0 && len(rows) > lay.listCap {
			shown = rows[:lay.listCap]
			cut = append(cut, fmt.Sprintf("%d of %d %s", len(rows)-lay.listCap, len(rows), strings.ToLower(l.title)))
		}
		var tab [][]string
		for _, lr := range shown {
			tab = append(tab, []string{report.EscapeMarkdown(lr.Label), lr.Metric.Name, across(lr.Base, lr.Metric.Unit), across(lr.New, lr.Metric.Unit),
				compare.ChangeText(lr.Row), pCell(lr.Row, r.Tests), verdictCell(lr.Row)})
		}
		if len(tab) > 0 {
			b.WriteString(report.Table([]string{"level", "statistic", "base", "new", "change", pHeader(r.Tests), "verdict"}, tab))
		}
		if len(shown) < len(rows) {
			fmt.Fprintf(b, "\n… and %d more (compare.json and compare.html list them all).\n", len(rows)-len(shown))
		}
		b.WriteString("\n")
	}
	return cut
}

// writeLevels writes a table per level, of every row or only the changed
// ones, for as many levels as the layout allows, and returns what it left
// out.
func writeLevels(b *strings.Builder, r *compare.Result, lay layout) (cut []string) {
	if len(r.Levels) == 0 {
		return nil
	}
	b.WriteString("## Levels\n\n")
	switch lay.detail {
	case detailFull:
		b.WriteString("Each cell: median ± MAD across runs (runs with a value). Change is relative for latencies and rates, in percentage points for goodput and the error rate.\n\n")
	case detailChanged:
		b.WriteString("Each cell: median ± MAD across runs (runs with a value). Only rows that are not \"no change\" are shown here.\n\n")
	}
	if lay.detail == detailNone {
		return []string{fmt.Sprintf("the per-level tables of all %d levels", len(r.Levels))}
	}
	omittedRows, omittedLevels := 0, 0
	for i, l := range r.Levels {
		if lay.levels >= 0 && i >= lay.levels {
			omittedLevels = len(r.Levels) - i
			break
		}
		fmt.Fprintf(b, "### %s (base %d runs, new %d runs)\n\n", report.EscapeMarkdown(l.Label), l.BaseRuns, l.NewRuns)
		if lay.figures {
			fmt.Fprintf(b, "%slevel-%d\n\n", figureToken, i)
		}
		var tab [][]string
		for _, row := range l.Rows {
			if lay.detail == detailChanged && (row.Verdict == compare.VerdictNoChange || row.Verdict == compare.VerdictNotAvailable) {
				omittedRows++
				continue
			}
			tab = append(tab, []string{row.Metric.Name, across(row.Base, row.Metric.Unit), across(row.New, row.Metric.Unit),
				compare.ChangeText(row), row.Direction, pCell(row, r.Tests), verdictCell(row)})
		}
		if len(tab) == 0 {
			b.WriteString("Nothing but \"no change\" or \"not available\" at this level.\n\n")
			continue
		}
		b.WriteString(report.Table([]string{"statistic", "base", "new", "change", "direction", pHeader(r.Tests), "verdict"}, tab))
		b.WriteString("\n")
	}
	if omittedRows > 0 {
		cut = append(cut, fmt.Sprintf("%d per-level rows with no change or no value", omittedRows))
	}
	if omittedLevels > 0 {
		cut = append(cut, fmt.Sprintf("the tables of the last %d of %d levels", omittedLevels, len(r.Levels)))
	}
	return cut
}

func writeOneSided(b *strings.Builder, what string, ls []compare.OneSided, lay layout) {
	if len(ls) == 0 {
		return
	}
	var parts []string
	for i, l := range ls {
		if lay.listCap >= 0 && i >= max(lay.listCap, 20) {
			parts = append(parts, fmt.Sprintf("… and %d more", len(ls)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d runs)", report.EscapeMarkdown(l.Label), l.Runs))
	}
	fmt.Fprintf(b, "- **%s** (%d): %s\n", what, len(ls), strings.Join(parts, ", "))
}

// writeVerdict writes the outcome, the comparability verdict and the gate.
func writeVerdict(b *strings.Builder, in Input) {
	r := in.Result
	count := func(v string) int {
		n := 0
		for _, f := range r.Findings {
			if f.Primary && f.Verdict == v && (v != compare.VerdictUndecided || f.Direction == "worse") {
				n++
			}
		}
		return n
	}
	b.WriteString("## Verdict\n\n")
	var what string
	switch r.Outcome {
	case compare.OutcomeRegression:
		what = fmt.Sprintf("**Regression**: %s flagged worse.", textfmt.Count(count(compare.VerdictRegression), "primary statistic", "primary statistics"))
	case compare.OutcomeUndecided:
		what = fmt.Sprintf("**Undecided**: %s worse beyond the threshold cannot be tested with these runs.", textfmt.Count(count(compare.VerdictUndecided), "primary statistic", "primary statistics"))
	case compare.OutcomeImprovement:
		what = fmt.Sprintf("**Improvement**: %s flagged better, none worse.", textfmt.Count(count(compare.VerdictImprovement), "primary statistic", "primary statistics"))
	case compare.OutcomeNothingCompared:
		what = "**Nothing compared**: no level is present on both sides (they are listed under \"Levels on one side only\")."
		if r.Series != nil && len(r.Series.Compared) == 0 {
			what = "**Nothing compared**: no series is present on both sides (they are listed under \"Series on one side only\")."
		}
	default:
		what = "**No change**: no primary statistic was flagged beyond its threshold."
	}
	fmt.Fprintf(b, "%s Comparability: **%s**", what, r.Comparability.Verdict)
	switch r.Comparability.Verdict {
	case compare.NotComparable:
		var keys []string
		for _, c := range r.Comparability.Blockers() {
			keys = append(keys, c.Key)
		}
		verb := "differ"
		if len(keys) == 1 {
			verb = "differs"
		}
		fmt.Fprintf(b, " (%s %s): the changes below are shown but do not mean what they seem.", strings.Join(keys, ", "), verb)
	case compare.ComparableCaveats:
		var keys []string
		for _, c := range r.Comparability.Caveats() {
			keys = append(keys, c.Key)
		}
		fmt.Fprintf(b, " (%s).", strings.Join(keys, ", "))
	default:
		b.WriteString(".")
	}
	other := []string{}
	if n := count(compare.VerdictImprovement); n > 0 && r.Outcome != compare.OutcomeImprovement {
		other = append(other, textfmt.Count(n, "improvement", "improvements"))
	}
	if n := count(compare.VerdictUndecided); n > 0 && r.Outcome != compare.OutcomeUndecided {
		other = append(other, textfmt.Count(n, "undecided change", "undecided changes")+" for the worse")
	}
	if n := count(compare.VerdictNotDistinguishable); n > 0 {
		other = append(other, textfmt.Count(n, "change", "changes")+" beyond the threshold not distinguishable from noise")
	}
	if len(other) > 0 {
		fmt.Fprintf(b, " Also: %s.", strings.Join(other, ", "))
	}
	fmt.Fprintf(b, "\n\nCI gate (`--fail-on %s`): exit **%d**", in.GateOptions.FailOn, in.Gate.Code)
	switch in.Gate.Code {
	case compare.ExitPass:
		b.WriteString(", nothing fails.")
	case compare.ExitFail:
		fmt.Fprintf(b, ", %s listed below.", textfmt.Count(len(in.Gate.Lines), "reason", "reasons"))
	case compare.ExitIncomparable:
		if r.Comparability.Verdict == compare.NotComparable {
			b.WriteString(", not comparable.")
		} else {
			b.WriteString(", nothing compared.")
		}
	case compare.ExitUndecided:
		b.WriteString(", too few runs to decide.")
	}
	b.WriteString("\n\n")
}

// writeFindings is the gate's table: each primary statistic of each series
// tested once across the levels both sides share, then (in full detail)
// the secondary ones.
func writeFindings(b *strings.Builder, r *compare.Result, lay layout) {
	if len(r.Findings) == 0 {
		return
	}
	f := r.Family
	corr := "no correction"
	if f.Correction == compare.CorrectionHolm {
		corr = fmt.Sprintf("Holm over the %d tests: the smallest p must beat α/%d = %s", f.Tests, max(f.Tests, 1), textfmt.PValue(f.EffectiveAlpha))
	}
	fmt.Fprintf(b, "## The gate: primary statistics across levels\n\nEach statistic of each series is tested once across every level both sides share, on the per-run values (a stratified rank test; with one run a level, a sign test across levels). The gate's family: %s, at α = %s, %s.",
		strings.Join(f.Statistics, ", "), fmtFloat(f.Alpha), corr)
	if f.PerLevel {
		b.WriteString(" With `--per-level`, each level's test of these statistics is in the family too.")
	}
	if f.NoTest {
		b.WriteString(" **`--no-test`: flagged on the threshold alone; no statistical test was made.**")
	}
	b.WriteString("\n\n")
	several := false
	for _, x := range r.Findings {
		several = several || !x.Series.IsZero()
	}
	row := func(x compare.Finding) []string {
		name := x.Metric.Name
		if several {
			name = x.Series.String() + ": " + name
		}
		change := compare.ChangeText(compare.Row{Metric: x.Metric, Change: x.Change})
		if rg := compare.ChangeRange(x); rg != "" {
			change += " (" + rg + ")"
		}
		p := "—"
		switch {
		case x.Test == nil && x.Note != "":
			p = x.Note
		case x.NeedRuns > 0:
			p = fmt.Sprintf("need ≥ %d runs a side", x.NeedRuns)
		case x.Test != nil && x.Primary && f.Correction == compare.CorrectionHolm:
			p = fmt.Sprintf("%s (Holm %s)", textfmt.PValue(float64(x.Test.P)), textfmt.PValue(float64(x.Test.PAdjusted)))
		case x.Test != nil:
			p = textfmt.PValue(float64(x.Test.P))
		}
		return []string{report.EscapeMarkdown(name), change, strconv.Itoa(x.Levels), fmt.Sprintf("%d / %d", x.BaseRuns, x.NewRuns), p, findingVerdictCell(x)}
	}
	head := []string{"statistic", "change (median over levels, range)", "levels", "runs base / new", "p", "verdict"}
	var prim, sec [][]string
	for _, x := range r.Findings {
		if x.Primary {
			prim = append(prim, row(x))
		} else {
			sec = append(sec, row(x))
		}
	}
	b.WriteString(report.Table(head, prim))
	if lay.detail == detailFull && len(sec) > 0 {
		b.WriteString("\nSecondary statistics, tested the same way and reported only (they do not gate; their p is not corrected):\n\n")
		b.WriteString(report.Table(head, sec))
	}
	b.WriteString("\n")
}

func findingVerdictCell(x compare.Finding) string {
	if !x.Primary && x.Flagged() {
		// A secondary statistic does not gate and its p is not corrected.
		if x.Verdict == compare.VerdictRegression {
			return "worse (secondary: p < α uncorrected)"
		}
		return "better (secondary: p < α uncorrected)"
	}
	switch x.Verdict {
	case compare.VerdictRegression:
		return "**regression**"
	case compare.VerdictUndecided:
		return fmt.Sprintf("undecided: need ≥ %d runs a side", x.NeedRuns)
	case compare.VerdictNotDistinguishable:
		return "not distinguishable from noise"
	case compare.VerdictNotAvailable:
		if x.Note != "" {
			return "n/a: " + x.Note
		}
		return "n/a"
	}
	return x.Verdict
}

func writeSLO(b *strings.Builder, r *compare.Result) {
	if r.SLO == nil {
		return
	}
	s := r.SLO
	fmt.Fprintf(b, "## Highest load meeting the SLO\n\nA level meets the SLO (%s) when its median percentage goodput across runs is at least %s %%. The uncertainty is in levels: the highest level where every run met it, and the highest where at least one did.\n\n",
		report.EscapeMarkdown(s.SLO), strconv.FormatFloat(s.Attainment, 'g', -1, 64))
	cell := func(c compare.SLOCapability) [3]string {
		var out [3]string
		if !c.Met {
			out[0] = "no level"
		} else {
			out[0] = fmt.Sprintf("**%s** (goodput %s)", report.EscapeMarkdown(c.Level.Label()), across(c.Goodput, "%"))
		}
		out[1], out[2] = "no level", "no level"
		if c.EveryRun != nil {
			out[1] = report.EscapeMarkdown(c.EveryRun.Label())
		}
		if c.SomeRun != nil {
			out[2] = report.EscapeMarkdown(c.SomeRun.Label())
		}
		return out
	}
	bc, nc := cell(s.Base), cell(s.New)
	b.WriteString(report.Table([]string{"", "base", "new"}, [][]string{
		{"highest level meeting the SLO (median)", bc[0], nc[0]},
		{"every run meets it up to", bc[1], nc[1]},
		{"at least one run meets it up to", bc[2], nc[2]},
	}))
	b.WriteString("\n")
}

func writeComparability(b *strings.Builder, c compare.Comparability) {
	fmt.Fprintf(b, "## Comparability: %s\n\n", c.Verdict)
	b.WriteString("Hard differences make the sweeps not comparable; soft ones and workload drift are caveats. `--expect KEY` declares an intended change. Rules: docs/compare.md.\n\n")
	writeLabels(b, c)
	var rows [][]string
	var same, unrecorded []string
	for _, ch := range c.Checks {
		switch {
		case ch.Status == compare.StatusSame || ch.Status == compare.StatusWithinBounds:
			same = append(same, ch.Key)
			continue
		case ch.Status == compare.StatusNotRecorded || ch.Status == compare.StatusNoLevelToTest:
			unrecorded = append(unrecorded, ch.Key)
			continue
		}
		note := ch.Status
		if ch.Note != "" {
			note += ": " + ch.Note
		}
		rows = append(rows, []string{ch.Key, ch.Class, report.EscapeMarkdown(textfmt.Clip(textfmt.OrDash(ch.Base), 60)), report.EscapeMarkdown(textfmt.Clip(textfmt.OrDash(ch.New), 60)),
			effectCell(ch.Effect), report.EscapeMarkdown(note)})
	}
	if len(rows) > 0 {
		b.WriteString(report.Table([]string{"check", "class", "base", "new", "effect", "status"}, rows))
		b.WriteString("\n")
	}
	if len(same) > 0 {
		fmt.Fprintf(b, "Same on both sides: %s.\n\n", strings.Join(same, ", "))
	}
	if len(unrecorded) > 0 {
		fmt.Fprintf(b, "Not recorded in either summary, so not checked: %s.\n\n", strings.Join(unrecorded, ", "))
	}
}

func effectCell(e string) string {
	switch e {
	case compare.EffectNotComparable:
		return "**not comparable**"
	case compare.EffectCaveat:
		return "caveat"
	}
	return "none"
}

func writeMethod(b *strings.Builder, r *compare.Result) {
	t := r.Tests
	o := r.Options
	b.WriteString("## How changes are decided\n\n")
	fmt.Fprintf(b, "- Runs are the independent unit: each statistic is compared through its per-run values with an exact two-sided Mann–Whitney U test (ties handled exactly), never through requests.\n")
	fmt.Fprintf(b, "- %s at α = %s over the family: %s.", textfmt.Count(t.Count, "test", "tests"), fmtFloat(t.Alpha), t.Family)
	if t.Correction == compare.CorrectionHolm {
		fmt.Fprintf(b, " Holm correction over that family: the chance of any false flag among them is at most α; the smallest p must beat α/%d = %s.\n", t.Count, textfmt.PValue(t.EffectiveAlpha))
	} else {
		fmt.Fprintf(b, " Without correction about %s of them would fall below α by chance alone if nothing changed (`--correct holm` bounds the chance of any false flag by α).\n", strconv.FormatFloat(t.ExpectedFalseFlags, 'f', 1, 64))
	}
	fmt.Fprintf(b, "- An exact test can reach p < %s only with at least %d runs per side (3 vs 3 can never go below p = 0.10). Rows with fewer say how many runs they need instead of a p-value.\n", textfmt.PValue(t.EffectiveAlpha), t.RunsNeeded)
	var over []string
	for _, th := range o.Overrides {
		v := strconv.FormatFloat(100*th.Value, 'g', -1, 64) + " %"
		if th.Points {
			v = strconv.FormatFloat(th.Value, 'g', -1, 64) + " pp"
		}
		over = append(over, th.Key+" "+v)
	}
	fmt.Fprintf(b, "- Flagged only when p < α and the change exceeds the threshold: %s relative; goodput %s pp; error rate %s pp",
		strconv.FormatFloat(100*o.Threshold, 'g', -1, 64)+" %", strconv.FormatFloat(o.GoodputThreshold, 'g', -1, 64), strconv.FormatFloat(o.ErrorRateThreshold, 'g', -1, 64))
	if len(over) > 0 {
		fmt.Fprintf(b, "; overrides: %s", strings.Join(over, ", "))
	}
	b.WriteString(".\n- \"No variation\": every run on both sides has the same value, so there is nothing to test.\n\n")
}

// across formats "median ± MAD unit (n)", rounded to the spread as the
// report rounds it; a single run's figure has no ± ("956.4 ms (1)").
func across(a compare.Across, unit string) string {
	if a.N == 0 || !a.Median.Valid() {
		return "n/a"
	}
	u := " " + unit
	if unit == "%" {
		u = " %"
	}
	if a.N == 1 { // one run has no spread: no "± 0"
		return fmt.Sprintf("%s%s (1)", report.FormatNum(a.Median), u)
	}
	return fmt.Sprintf("%s%s (%d)", report.FormatSpread(a.Median, a.MAD), u, a.N)
}

// pHeader names the p column with the level every row's p (or, under
// Holm, its adjusted p, shown beside it) is held to, so that each row
// states its α; its n is in the base and new cells.
func pHeader(t compare.Tests) string {
	return fmt.Sprintf("p (α = %s)", fmtFloat(t.Alpha))
}

func pCell(r compare.Row, t compare.Tests) string {
	switch {
	case r.NoVariation:
		return "no variation"
	case r.Test == nil:
		return "—"
	case r.NeedRuns > 0:
		return fmt.Sprintf("need ≥ %d runs/side", r.NeedRuns)
	case t.Correction == compare.CorrectionHolm:
		return fmt.Sprintf("%s (Holm %s)", textfmt.PValue(float64(r.Test.P)), textfmt.PValue(float64(r.Test.PAdjusted)))
	}
	return textfmt.PValue(float64(r.Test.P))
}

func verdictCell(r compare.Row) string {
	switch r.Verdict {
	case compare.VerdictRegression:
		return "**regression**"
	case compare.VerdictUndecided:
		s := fmt.Sprintf("undecided: need ≥ %d runs per side", r.NeedRuns)
		if !r.RangesOverlap {
			s += "; ranges do not overlap (descriptive, not a test)"
		}
		return s
	case compare.VerdictNotDistinguishable:
		return "not distinguishable from noise"
	case compare.VerdictNotAvailable:
		if r.Note != "" {
			return "n/a: " + r.Note
		}
		return "n/a"
	case compare.VerdictNoChange:
		if r.NoVariation {
			return "no change (no variation)"
		}
		return "no change"
	}
	return r.Verdict
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func pct(v float64) string { return report.FormatNum(analyze.Num(v)) + " %" }
