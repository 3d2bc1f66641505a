// Package render writes a History as history.md, history.html (with a
// trend chart per level and headline statistic, one line per series when
// the sweeps have series labels) and history.json. It only formats: every
// number comes from the History, formatted as the report formats numbers,
// on the report's page.
package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
	"github.com/benchnote/benchnote/report/chart"
	"github.com/benchnote/benchnote/stats"
)

// Schema identifies the layout of history.json.
const Schema = "benchnote.history/v2"

// Output file names.
const (
	MarkdownFile = "history.md"
	HTMLFile     = "history.html"
	JSONFile     = "history.json"
)

// Build renders every output file, keyed by file name. name is the
// archive as the user gave it.
func Build(h *history.History, name string) (map[string][]byte, error) {
	md := markdown(h, name, false)
	page, err := html(h, name)
	if err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(struct {
		Schema           string `json:"schema"`
		BenchnoteVersion string `json:"benchnote_version"`
		Archive          string `json:"archive"`
		*history.History
	}{Schema, report.Version, name, h}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("history.json: %w", err)
	}
	return map[string][]byte{MarkdownFile: []byte(md), HTMLFile: page, JSONFile: append(js, '\n')}, nil
}

const figureToken = "BENCHNOTE-TREND-"

// maxEntryLines is the most entries the summary of changes names one a
// line; the table below it holds them all.
const maxEntryLines = 10

// markdown renders history.md: the archive, the changes, the trends
// (chart tokens for the HTML rendering when figures), the changes in
// detail, the environment segments, the entries and how changes are
// detected.
func markdown(h *history.History, name string, figures bool) string {
	cf := configsOf(h)
	en := entryNamesOf(h)
	var b strings.Builder
	writeArchive(&b, h, name, cf)
	b.WriteString("## Changes\n\n")
	summary(&b, h, cf, en)
	if figures {
		writeTrends(&b, h, cf, en)
	}
	if len(h.Changes) > 0 {
		writeChangesInDetail(&b, h, cf, en)
	}
	writeSegments(&b, h)
	writeEntries(&b, h)
	writeDetection(&b, h, cf)
	fmt.Fprintf(&b, "\n<sub>benchnote %s · %s</sub>\n", report.Version, Schema)
	return b.String()
}

// writeArchive says what the archive holds: its entries, their span, the
// environment segments and, when labelled, the series.
func writeArchive(b *strings.Builder, h *history.History, name string, cf configs) {
	excluded := 0
	for _, e := range h.Entries {
		if e.Excluded {
			excluded++
		}
	}
	fmt.Fprintf(b, "# benchnote history\n\nArchive %s: %d entries (%d excluded)", report.Code(name), len(h.Entries), excluded)
	if n := len(h.Entries); n > 0 {
		fmt.Fprintf(b, " from %s to %s", h.Entries[0].Time, h.Entries[n-1].Time)
	}
	fmt.Fprintf(b, ", in %s.\n\n", textfmt.Count(len(h.Segments), "environment segment", "environment segments"))
	if cf.labelled {
		var names []string
		for _, c := range cf.list {
			names = append(names, report.Code(cf.name(c)))
		}
		fmt.Fprintf(b, "%d series (configurations), each followed and tested on its own — the runs of two series are never pooled: %s", len(cf.list), strings.Join(names, ", "))
		if !cf.common.IsZero() && len(cf.differing) > 0 {
			fmt.Fprintf(b, "; labels common to all: %s", report.Code(cf.common.String()))
		}
		b.WriteString(".\n\n")
	}
}

// writeTrends writes the trend charts' section: what a chart shows, and a
// chart token for each, under a heading per level.
func writeTrends(b *strings.Builder, h *history.History, cf configs, en entryNames) {
	b.WriteString("## Trends\n\nEach chart: one statistic at one level; the line joins each entry's median across its runs, the band is ± MAD (excluded entries are not drawn), vertical lines mark environment changes, boundaries across which entries are not comparable, and change points.")
	if en.labelled {
		b.WriteString(" The time axis names entries by their labels (dates where an entry has none); labels that would overlap are left out, the latest kept.")
	}
	if cf.labelled {
		fmt.Fprintf(b, " One line per series, each in its own colour, dash and marker; at most %d series to a chart: with more, they are drawn %d at a time, in the order above, on consecutive charts.", chart.MaxTrendLines, chart.MaxTrendLines)
	}
	b.WriteString("\n\n")
	level := ""
	for i, c := range chartsOf(h, cf) {
		if c.label != level {
			level = c.label
			fmt.Fprintf(b, "### %s\n\n", report.EscapeMarkdown(level))
		}
		fmt.Fprintf(b, "%s%d\n\n", figureToken, i)
	}
}

// writeChangesInDetail writes a table of the changes, a row each.
func writeChangesInDetail(b *strings.Builder, h *history.History, cf configs, en entryNames) {
	fmt.Fprintf(b, "## Changes in detail (%d)\n\n", len(h.Changes))
	b.WriteString("One row per statistic of a series that moved at an entry, tested once across the series' levels; the last column says where it shows (baseline median → new median at each level).\n\n")
	var rows [][]string
	for _, c := range h.Changes {
		rows = append(rows, changeRow(c, cf, en))
	}
	header := []string{"entry", "label", "statistic", "kind", "change", "p", "baseline", "confirmed by", "by level"}
	if cf.labelled {
		header = slices.Insert(header, 2, "series")
	}
	b.WriteString(report.Table(header, rows))
	b.WriteString("\n")
}

// changeRow is one change's row: its entry, statistic, kind, size, p,
// baseline, confirmation and the medians at each level.
func changeRow(c history.Change, cf configs, en entryNames) []string {
	p := "—"
	switch {
	case c.NeedRuns > 0:
		p = fmt.Sprintf("need ≥ %d runs an entry", c.NeedRuns)
	case c.Test != nil:
		p = textfmt.PValue(float64(c.Test.PAdjusted))
	}
	confirmed := en.name(c.ConfirmedBy)
	if c.Through != "" && c.Through != c.ConfirmedBy {
		confirmed += " (seen through " + en.name(c.Through) + ")"
	}
	kind := c.Kind
	if c.Kind != history.KindPending {
		kind += " (" + c.Direction + ")"
	}
	change := changeText(c.Metric, c.Change)
	if r := changeRange(c); r != "" {
		change += " (" + r + ")"
	}
	var where []string
	for _, l := range c.PerLevel {
		where = append(where, fmt.Sprintf("%s: %s → %s %s (%s)", l.Label, report.FormatNum(l.BaselineMedian), report.FormatNum(l.NewMedian), c.Metric.Unit, changeText(c.Metric, l.Change)))
	}
	row := []string{c.Entry, report.EscapeMarkdown(textfmt.Clip(c.EntryLabel, 40)), c.Metric.Name, kind, change, p,
		fmt.Sprintf("%s, %d vs %d runs", textfmt.Count(len(c.Baseline), "entry", "entries"), c.BaseRuns, c.NewRuns), report.EscapeMarkdown(confirmed),
		report.EscapeMarkdown(strings.Join(where, "; "))}
	if cf.labelled {
		row = slices.Insert(row, 2, report.EscapeMarkdown(cf.name(c.Series)))
	}
	return row
}

// writeSegments writes a table of the environment segments and what
// changed at the start of each.
func writeSegments(b *strings.Builder, h *history.History) {
	b.WriteString("## Environment segments\n\nChange points are looked for only inside a segment: consecutive included entries with one environment fingerprint. Across a boundary marked *not comparable* the numbers are not comparable at all.\n\n")
	var rows [][]string
	for _, s := range h.Segments {
		var what []string
		for _, c := range s.Changes {
			what = append(what, fmt.Sprintf("%s: %s → %s", c.Key, report.EscapeMarkdown(textfmt.Clip(textfmt.OrDash(c.Base), 40)), report.EscapeMarkdown(textfmt.Clip(textfmt.OrDash(c.New), 40))))
		}
		boundary := s.Boundary
		if boundary == history.BoundaryIncomparable {
			boundary = "**not comparable**"
		}
		rows = append(rows, []string{strconv.Itoa(s.Index), strconv.Itoa(s.Entries), s.First, s.Last, report.EscapeMarkdown(s.Fingerprint), boundary, textfmt.OrDash(strings.Join(what, "; "))})
	}
	b.WriteString(report.Table([]string{"segment", "entries", "first", "last", "fingerprint", "starts with", "what changed"}, rows))
	b.WriteString("\n")
}

// writeEntries writes a table of the entries and whether each is included.
func writeEntries(b *strings.Builder, h *history.History) {
	b.WriteString("## Entries\n\n")
	var rows [][]string
	for _, e := range h.Entries {
		status := "included"
		switch {
		case e.Unreadable != "":
			status = "left out: " + report.EscapeMarkdown(e.Unreadable)
		case e.Excluded:
			status = "excluded: " + report.EscapeMarkdown(e.Why)
		}
		rows = append(rows, []string{e.Time, e.ID, report.EscapeMarkdown(textfmt.Clip(e.Label, 60)), strconv.Itoa(e.Segment), strconv.Itoa(e.Runs), status})
	}
	b.WriteString(report.Table([]string{"time", "entry", "label", "segment", "runs", "status"}, rows))
	b.WriteString("\n")
}

// writeDetection says how changes are detected: the test, the gate's
// family, the number of tests and their correction, the thresholds.
func writeDetection(b *strings.Builder, h *history.History, cf configs) {
	t := h.Tests
	o := h.Options.Compare
	b.WriteString("## How changes are detected\n\n")
	each := "headline statistic"
	if cf.labelled {
		each = "series and headline statistic"
	}
	fmt.Fprintf(b, "- For each %s, every included entry with an earlier and a later entry of its segment is a candidate: the runs of it and of the next entry are tested against the runs of up to %d preceding entries at every level at once, levels as strata, with compare's test (van Elteren's stratified rank test, exact; with one run a level and side, a sign test across levels; runs are the unit). The table of changes gives each level's medians, as the description of where a change shows.\n", each, h.Options.Window)
	fmt.Fprintf(b, "- The gate's family decides change points: %s (per series; `--gate` changes it). A candidate of one of them is a change point when p < α and the change (the median of the per-level changes) and each of the two entries' own changes lie beyond the threshold in one direction: a one-entry spike is not a change. Other statistics that pass the same rule are reported as *secondary*, never as change points.\n", metricNames(t.Statistics))
	fmt.Fprintf(b, "- %s of primary statistics, %d of secondary ones, at α = %s. ", textfmt.Count(t.Count, "test", "tests"), t.Secondary, strconv.FormatFloat(t.Alpha, 'g', -1, 64))
	if t.Correction == compare.CorrectionHolm {
		fmt.Fprintf(b, "Holm correction over the primary ones: the smallest p must beat %s.\n", textfmt.PValue(t.EffectiveAlpha))
	} else {
		fmt.Fprintf(b, "Without correction about %s of the primary ones would fall below α by chance alone (the sum of each exact test's real size); the threshold and the two-entry confirmation remove most of them (`--correct holm` corrects over them).\n", strconv.FormatFloat(t.ExpectedFalseFlags, 'f', 1, 64))
	}
	fmt.Fprintf(b, "- Thresholds: %s %% relative; goodput %s pp; error rate %s pp. %s\n",
		strconv.FormatFloat(100*o.Threshold, 'g', -1, 64), strconv.FormatFloat(o.GoodputThreshold, 'g', -1, 64), strconv.FormatFloat(o.ErrorRateThreshold, 'g', -1, 64),
		needText(h))
	b.WriteString("- Consecutive candidates of a statistic flagged in the same direction are one change, introduced by the entry of the candidate that shows it most clearly (the largest |z|). The latest entry of a segment awaits confirmation when a primary statistic lies beyond its threshold there against the entries since that statistic's last change (up to the window), unless the entry before it lay beyond in the same direction (the test of those two entries has judged it).\n")
}

// summary writes the changes grouped by entry, a line each: entries with
// change points or undecided changes, then those awaiting confirmation,
// then, in one line, entries where only secondary statistics moved.
func summary(b *strings.Builder, h *history.History, cf configs, en entryNames) {
	var main, pending, secondary []history.EntryChanges
	for _, g := range h.ByEntry {
		switch {
		case g.ChangePoints > 0 || g.Undecided > 0:
			main = append(main, g)
		case g.Pending > 0:
			pending = append(pending, g)
		case g.Secondary > 0:
			secondary = append(secondary, g)
		}
	}
	cps := h.ChangePoints()
	if cps == 0 {
		fmt.Fprintf(b, "No change point: no primary statistic (%s) moved beyond its threshold over two consecutive entries of one environment with p < α.\n\n", metricNames(h.Tests.Statistics))
	} else {
		fmt.Fprintf(b, "%s at %s, each tested across its series' levels against up to %d entries before:\n\n",
			textfmt.Count(cps, "change point", "change points"), textfmt.Count(countWith(main, func(g history.EntryChanges) bool { return g.ChangePoints > 0 }), "entry", "entries"), h.Options.Window)
	}
	lines := 0
	for _, g := range main {
		if lines == maxEntryLines {
			fmt.Fprintf(b, "- … and %d more (in the table of changes below).\n", len(main)-lines)
			break
		}
		lines++
		w := h.Changes[g.Worst]
		var parts []string
		if g.ChangePoints > 0 {
			parts = append(parts, textfmt.Count(g.ChangePoints, "change point", "change points")+" ("+directions(g)+")")
		}
		if g.Undecided > 0 {
			parts = append(parts, fmt.Sprintf("%d undecided", g.Undecided))
		}
		if g.Secondary > 0 {
			parts = append(parts, fmt.Sprintf("%d secondary", g.Secondary))
		}
		if moved := g.ChangePoints + g.Undecided + g.Secondary; moved == 1 {
			fmt.Fprintf(b, "- %s: %s, %s", en.headline(g), parts[0], phrase(w, h, cf))
		} else {
			fmt.Fprintf(b, "- %s: %s moved — %s; worst %s", en.headline(g), textfmt.Count(moved, "statistic", "statistics"), strings.Join(parts, ", "), phrase(w, h, cf))
		}
		if w.ConfirmedBy != "" {
			fmt.Fprintf(b, "; confirmed by %s", report.EscapeMarkdown(en.name(w.ConfirmedBy)))
		}
		b.WriteString(".\n")
	}
	for _, g := range pending {
		w := h.Changes[g.Worst]
		if g.Pending == 1 {
			fmt.Fprintf(b, "- Awaiting confirmation: %s: %s, beyond its threshold against the %s before; the next entry will confirm it or not.\n",
				en.headline(g), phrase(w, h, cf), textfmt.Count(len(w.Baseline), "entry", "entries"))
			continue
		}
		fmt.Fprintf(b, "- Awaiting confirmation: %s: %d primary statistics beyond their thresholds against the %s before, worst %s; the next entry will confirm them or not.\n",
			en.headline(g), g.Pending, textfmt.Count(len(w.Baseline), "entry", "entries"), phrase(w, h, cf))
	}
	if len(secondary) > 0 {
		var names []string
		for i, g := range secondary {
			if i == 5 {
				names = append(names, fmt.Sprintf("and %d more", len(secondary)-i))
				break
			}
			w := h.Changes[g.Worst]
			names = append(names, fmt.Sprintf("%s (%s %s)", report.EscapeMarkdown(en.name(g.Entry)), w.Metric.Name, changeText(w.Metric, w.Change)))
		}
		at := textfmt.Count(len(secondary), "entry", "entries")
		if len(main)+len(pending) > 0 {
			at = textfmt.Count(len(secondary), "other entry", "other entries")
		}
		fmt.Fprintf(b, "- Only secondary statistics moved at %s: %s; they are not change points.\n", at, strings.Join(names, ", "))
	}
	if len(main)+len(pending)+len(secondary) > 0 {
		b.WriteString("\n")
	}
}

// phrase is "E2E p95 +29.6 % (+29.3 % to +29.6 %) across 2 levels,
// stratified exact p < 0.0001".
func phrase(c history.Change, h *history.History, cf configs) string {
	var b strings.Builder
	b.WriteString(c.Metric.Name + " " + changeText(c.Metric, c.Change))
	if r := changeRange(c); r != "" {
		b.WriteString(" (" + r + ")")
	}
	fmt.Fprintf(&b, " across %s", textfmt.Count(c.Levels, "level", "levels"))
	if cf.labelled {
		fmt.Fprintf(&b, " of %s", report.Code(cf.name(c.Series)))
	}
	switch {
	case c.NeedRuns > 0:
		fmt.Fprintf(&b, ", too few runs to test: need ≥ %s", runsText(c.NeedRuns))
	case c.Test != nil:
		fmt.Fprintf(&b, ", %s p %s", methodShort(c.Test.Method), pIs(float64(c.Test.P)))
		if h.Tests.Correction == compare.CorrectionHolm && c.Primary && h.Tests.Count > 1 {
			fmt.Fprintf(&b, " (Holm over %d tests: %s)", h.Tests.Count, textfmt.PValue(float64(c.Test.PAdjusted)))
		}
	}
	return b.String()
}

// directions is "all worse", "all better" or "2 worse, 1 better".
func directions(g history.EntryChanges) string {
	switch {
	case g.Better == 0 && g.Worse == 1:
		return "worse"
	case g.Worse == 0 && g.Better == 1:
		return "better"
	case g.Better == 0:
		return "all worse"
	case g.Worse == 0:
		return "all better"
	}
	return fmt.Sprintf("%d worse, %d better", g.Worse, g.Better)
}

func countWith(gs []history.EntryChanges, f func(history.EntryChanges) bool) int {
	n := 0
	for _, g := range gs {
		if f(g) {
			n++
		}
	}
	return n
}

// entryNames names entries by their labels.
type entryNames struct {
	// labelled is set when some entry has a label.
	labelled bool
	label    map[string]string
	time     map[string]string
}

func entryNamesOf(h *history.History) entryNames {
	en := entryNames{label: map[string]string{}, time: map[string]string{}}
	for _, e := range h.Entries {
		en.label[e.ID], en.time[e.ID] = e.Label, e.Time
		en.labelled = en.labelled || e.Label != ""
	}
	return en
}

// name is an entry's label, or its ID when it has none; "—" for none.
func (en entryNames) name(id string) string {
	if id == "" {
		return "—"
	}
	if l := en.label[id]; l != "" {
		return textfmt.Clip(l, 40)
	}
	return id
}

// headline names a group's entry: **rev-5** (`id`, time).
func (en entryNames) headline(g history.EntryChanges) string {
	if g.Label == "" {
		return fmt.Sprintf("**%s** (%s)", report.Code(g.Entry), g.Time)
	}
	return fmt.Sprintf("**%s** (%s, %s)", report.EscapeMarkdown(textfmt.Clip(g.Label, 40)), report.Code(g.Entry), g.Time)
}

// metricNames is "TTFT p95, TPOT p50 and E2E p95".
func metricNames(keys []string) string {
	var names []string
	for _, k := range keys {
		if m, ok := compare.MetricByKey(k); ok {
			names = append(names, m.Name)
		}
	}
	switch n := len(names); n {
	case 0:
		return "none"
	case 1:
		return names[0]
	default:
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
}

// needText says how many runs an entry, or levels at one run an entry,
// a test against a full window needs to reach the level the tests are
// held to.
func needText(h *history.History) string {
	alpha, w := h.Tests.EffectiveAlpha, h.Options.Window
	levels := 0
	for l := 1; l <= 100; l++ {
		if history.RunsPerEntryNeeded(alpha, l, w) == 1 {
			levels = l
			break
		}
	}
	s := fmt.Sprintf("Against a full window of %s, a test at one level reaches p < %s only with at least %s", textfmt.Count(w, "entry", "entries"), textfmt.PValue(alpha), runsText(history.RunsPerEntryNeeded(alpha, 1, w)))
	switch {
	case levels == 1:
		return s + "."
	case levels > 0:
		return s + fmt.Sprintf("; with 1 run an entry, %d levels or more reach it.", levels)
	}
	return s + "."
}

func runsText(n int) string {
	if n == 0 {
		return "more than 1000 runs"
	}
	return textfmt.Count(n, "run", "runs") + " an entry"
}

// methodShort names a stratified test's method in a sentence.
func methodShort(m string) string {
	switch m {
	case stats.MethodSignTest:
		return "sign test across levels"
	case stats.MethodStratifiedNormal:
		return "stratified (normal approximation)"
	}
	return "stratified exact"
}

// pIs is "= 0.0004", or "< 0.0001".
func pIs(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return "= " + textfmt.PValue(p)
}

func html(h *history.History, name string) ([]byte, error) {
	body, err := report.MarkdownToHTML([]byte(markdown(h, name, true)))
	if err != nil {
		return nil, err
	}
	cf := configsOf(h)
	en := entryNamesOf(h)
	charts := chartsOf(h, cf)
	pairs := make([]string, 0, 2*len(charts))
	for i, c := range charts {
		fig, err := trendFigure(h, cf, en, c, i)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, fmt.Sprintf("<p>%s%d</p>", figureToken, i), fig)
	}
	page := strings.NewReplacer(pairs...).Replace(string(body))
	return report.Page("benchnote history: "+name, template.HTML(page), template.HTML(template.HTMLEscapeString(
		"Rendered by benchnote "+report.Version+" from the archive's entries; history.json holds every number on this page.")))
}

// configs are the history's series (configurations) and their names.
type configs struct {
	// labelled is set when any level has series labels.
	labelled bool
	// list holds the series in order; index numbers them.
	list  []ingest.Series
	index map[ingest.Series]int
	// differing are the label names whose values differ between series,
	// common the labels all share: a series is named by the first.
	differing []string
	common    ingest.Series
}

func configsOf(h *history.History) configs {
	cf := configs{labelled: h.Labelled(), list: h.Configurations(), index: map[ingest.Series]int{}}
	for i, c := range cf.list {
		cf.index[c] = i
	}
	cf.differing, cf.common = ingest.Differing(cf.list)
	return cf
}

// name is how tables and legends name a series: by the labels that
// differ between series (all of its labels when none do).
func (cf configs) name(s ingest.Series) string {
	switch {
	case s.IsZero():
		return "no labels"
	case len(cf.differing) == 0:
		return s.String()
	}
	if n := s.Only(cf.differing); n != "" {
		return n
	}
	return "without " + strings.Join(cf.differing, ", ")
}

// trendChart is one chart of history.html: one headline statistic at one
// load level, with the series (indices into History.Series) drawn on it.
type trendChart struct {
	load   compare.LevelID // without its series
	label  string
	metric compare.Metric
	series []int
	// measured are the configurations the chart may draw that have the
	// load level, whether or not they have the statistic there.
	measured []ingest.Series
	// first and last number the configurations the chart may draw
	// (1-based), when there are more than a chart draws.
	first, last int
}

// chartsOf lays out the charts: per load level, per headline statistic,
// the series in their order, chart.MaxTrendLines to a chart. Without
// labels it is one chart per History.Series, in its order.
func chartsOf(h *history.History, cf configs) []trendChart {
	type key struct {
		load   compare.LevelID
		metric string
		group  int
	}
	rank := map[string]int{}
	for i, m := range compare.Headline {
		rank[m.Key] = i
	}
	var keys []key
	byKey := map[key]*trendChart{}
	type group struct {
		load  compare.LevelID
		group int
	}
	measured := map[group][]ingest.Series{}
	for _, s := range h.Trends {
		load := s.Level
		load.Series = ingest.Series{}
		g := group{load, cf.index[s.Level.Series] / chart.MaxTrendLines}
		if ms := measured[g]; len(ms) == 0 || ms[len(ms)-1] != s.Level.Series {
			measured[g] = append(ms, s.Level.Series)
		}
	}
	for i, s := range h.Trends {
		load := s.Level
		load.Series = ingest.Series{}
		ci := cf.index[s.Level.Series]
		k := key{load, s.Metric.Key, ci / chart.MaxTrendLines}
		c := byKey[k]
		if c == nil {
			c = &trendChart{load: load, label: s.Label, metric: s.Metric, measured: measured[group{load, k.group}]}
			if len(cf.list) > chart.MaxTrendLines {
				c.first, c.last = k.group*chart.MaxTrendLines+1, min(len(cf.list), (k.group+1)*chart.MaxTrendLines)
			}
			byKey[k] = c
			keys = append(keys, k)
		}
		c.series = append(c.series, i)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch {
		case a.load != b.load:
			return a.load.Less(b.load)
		case a.metric != b.metric:
			return rank[a.metric] < rank[b.metric]
		}
		return a.group < b.group
	})
	out := make([]trendChart, 0, len(keys))
	for _, k := range keys {
		c := byKey[k]
		sort.SliceStable(c.series, func(i, j int) bool {
			return cf.index[h.Trends[c.series[i]].Level.Series] < cf.index[h.Trends[c.series[j]].Level.Series]
		})
		out = append(out, *c)
	}
	return out
}

// maxLegendName is the longest series name a legend shows, in runes.
const maxLegendName = 48

// trendFigure is the i-th trend chart of history.html as a figure: its
// series' lines, the entries' ticks, the segment boundaries and change
// points as markers, its alt text and caption.
func trendFigure(h *history.History, cf configs, en entryNames, c trendChart, i int) (string, error) {
	tr := chart.Trend{Title: c.metric.Name + " at " + c.label, YLabel: fmt.Sprintf("%s (%s)", c.metric.Name, c.metric.Unit)}
	d := trendDrawn{lastIncluded: map[int]float64{}, firstTime: map[int]float64{}, entriesDrawn: map[string]bool{}, entryTime: map[string]float64{}, hasLine: map[ingest.Series]bool{}}
	for _, si := range c.series {
		s := h.Trends[si]
		pts := d.points(s)
		name := cf.name(s.Level.Series)
		switch {
		case !cf.labelled:
			tr.Points = pts
		case len(pts) > 0:
			tr.Lines = append(tr.Lines, chart.TrendLine{Name: textfmt.Clip(name, maxLegendName), Points: pts})
			d.drawn = append(d.drawn, name)
			d.hasLine[s.Level.Series] = true
		}
	}
	if en.labelled {
		tr.Ticks = d.entryTicks(h)
		tr.XLabel = "entry (label, or date where none; placed by time, UTC)"
	}
	tr.Markers = d.segmentMarkers(h)
	changeMarkers, changes := d.changePoints(h, cf, en, c)
	tr.Markers = append(tr.Markers, changeMarkers...)
	what := fmt.Sprintf("%s at %s", c.metric.Name, c.label)
	svg, err := tr.SVG()
	if errors.Is(err, chart.ErrNoData) {
		return "<p>No entry has a value for this statistic.</p>", nil
	}
	if err != nil {
		return "", fmt.Errorf("history.html: %s: %w", what, err)
	}
	alt, caption := d.text(cf, en, c, what, len(tr.Points))
	if len(changes) > 0 {
		alt += "; change points: " + strings.Join(changes, "; ")
	}
	return report.Figure(fmt.Sprintf("trend-%d", i), alt+".", caption, svg), nil
}

// trendDrawn is what a trend chart's markers, ticks and text need of the
// points drawn: per segment, the time of its first and last included
// entries; the entries drawn and their times; the series drawn, by name
// and by labels.
type trendDrawn struct {
	lastIncluded map[int]float64
	firstTime    map[int]float64
	entriesDrawn map[string]bool
	entryTime    map[string]float64
	drawn        []string
	hasLine      map[ingest.Series]bool
}

// points are a series' points with a median, each with its ± MAD band,
// noted as drawn.
func (d *trendDrawn) points(s history.Trend) []chart.TrendPoint {
	var pts []chart.TrendPoint
	for _, p := range s.Points {
		if !p.Median.Valid() {
			continue
		}
		mad := 0.0
		if p.MAD.Valid() {
			mad = float64(p.MAD)
		}
		m := float64(p.Median)
		pts = append(pts, chart.TrendPoint{X: p.Time, Median: m, Lo: m - mad, Hi: m + mad, Segment: p.Segment, Excluded: p.Excluded})
		if !d.entriesDrawn[p.Entry] {
			d.entriesDrawn[p.Entry] = true
			d.entryTime[p.Entry] = p.Time
		}
		if !p.Excluded {
			if t, ok := d.firstTime[p.Segment]; !ok || p.Time < t {
				d.firstTime[p.Segment] = p.Time
			}
			d.lastIncluded[p.Segment] = max(d.lastIncluded[p.Segment], p.Time)
		}
	}
	return pts
}

// entryTicks name the entries drawn by label (or date where none), in
// the order of the history.
func (d *trendDrawn) entryTicks(h *history.History) []chart.TrendTick {
	var ticks []chart.TrendTick
	for _, e := range h.Entries {
		if !d.entriesDrawn[e.ID] {
			continue
		}
		label := textfmt.Clip(e.Label, maxTickLabel)
		if label == "" {
			label = strings.SplitN(e.Time, "T", 2)[0]
		}
		ticks = append(ticks, chart.TrendTick{X: d.entryTime[e.ID], Label: label})
	}
	return ticks
}

// segmentMarkers mark each segment boundary drawn halfway between the
// last included entry before it and the first after it.
func (d *trendDrawn) segmentMarkers(h *history.History) []chart.Marker {
	var markers []chart.Marker
	for _, seg := range h.Segments {
		if seg.Index == 0 {
			continue
		}
		first, ok1 := d.firstTime[seg.Index]
		prev, ok2 := d.lastIncluded[seg.Index-1]
		if !ok1 || !ok2 {
			continue
		}
		kind := chart.MarkerEnvironment
		if seg.Boundary == history.BoundaryIncomparable {
			kind = chart.MarkerIncomparable
		}
		markers = append(markers, chart.Marker{X: (first + prev) / 2, Kind: kind})
	}
	return markers
}

// changePoints marks a change point of the chart's statistic in one of
// its series at its entry, and says the change at this level in text.
func (d *trendDrawn) changePoints(h *history.History, cf configs, en entryNames, c trendChart) (markers []chart.Marker, changes []string) {
	for _, ch := range h.Changes {
		if ch.Kind != history.KindChange || ch.Metric.Key != c.metric.Key || !slices.Contains(c.configs(h), ch.Series) {
			continue
		}
		for _, l := range ch.PerLevel {
			load := l.Level
			load.Series = ingest.Series{}
			if load != c.load {
				continue
			}
			if t, ok := d.entryTime[ch.Entry]; ok {
				markers = append(markers, chart.Marker{X: t, Kind: chart.MarkerChange})
			}
			text := fmt.Sprintf("%s %s at entry %s", ch.Direction, changeText(ch.Metric, l.Change), en.name(ch.Entry))
			if cf.labelled {
				text += " (" + cf.name(ch.Series) + ")"
			}
			changes = append(changes, text)
		}
	}
	return markers, changes
}

// text is a trend chart's alt text (before its change points) and
// caption; points is the number of points of an unlabelled chart.
func (d *trendDrawn) text(cf configs, en entryNames, c trendChart, what string, points int) (alt, caption string) {
	order := "in time order (UTC)"
	if en.labelled {
		order = "in time order (UTC), named by their labels"
	}
	alt = fmt.Sprintf("Trend of %s over %d entries", what, points)
	caption = what + ": each entry's median across runs with its ± MAD band, " + order + "."
	if !cf.labelled {
		return alt, caption
	}
	alt = fmt.Sprintf("Trend of %s over %d entries, one line per series: %s", what, len(d.entriesDrawn), strings.Join(d.drawn, "; "))
	caption = what + ": one line per series, each entry's median across runs with its ± MAD band, " + order + "."
	if !cf.common.IsZero() && len(cf.differing) > 0 {
		caption += " Labels common to all series: " + cf.common.String() + "."
	}
	if c.first > 0 {
		caption += fmt.Sprintf(" Series %d–%d of %d; the others are on the charts beside this one.", c.first, c.last, len(cf.list))
	}
	// A series measured at this level without a value of the statistic
	// is named, so that no line is missing unsaid.
	var empty []string
	for _, m := range c.measured {
		if !d.hasLine[m] {
			empty = append(empty, cf.name(m))
		}
	}
	if len(empty) > 0 {
		caption += " No value for " + strings.Join(empty, "; ") + "."
	}
	return alt, caption
}

// maxTickLabel is the longest entry label a time axis shows, in runes.
const maxTickLabel = 16

// configs returns the series (configurations) the chart draws.
func (c trendChart) configs(h *history.History) []ingest.Series {
	var out []ingest.Series
	for _, si := range c.series {
		out = append(out, h.Trends[si].Level.Series)
	}
	return out
}

// changeText renders a change: "+30.0 %", "−2.1 pp", "from 0".
func changeText(m compare.Metric, change analyze.Num) string {
	v := float64(change)
	switch {
	case math.IsInf(v, 0):
		return "from 0"
	case math.IsNaN(v):
		return "n/a"
	case m.Points:
		return strings.Replace(fmt.Sprintf("%+.1f pp", v), "-", "−", 1)
	}
	return strings.Replace(fmt.Sprintf("%+.1f %%", 100*v), "-", "−", 1)
}

// changeRange is "+8.0 % to +14.0 %", the range of a change's per-level
// changes, or "" with one level or when the ends read the same.
func changeRange(c history.Change) string {
	if c.Levels < 2 || !c.ChangeLow.Valid() || !c.ChangeHigh.Valid() {
		return ""
	}
	lo, hi := changeText(c.Metric, c.ChangeLow), changeText(c.Metric, c.ChangeHigh)
	if lo == hi {
		return ""
	}
	return lo + " to " + hi
}
