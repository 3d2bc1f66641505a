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

	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
	"github.com/benchnote/benchnote/report/chart"
)

// Schema identifies the layout of history.json.
const Schema = "benchnote.history/v1"

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

func markdown(h *history.History, name string, figures bool) string {
	cf := configsOf(h)
	var b strings.Builder
	excluded := 0
	for _, e := range h.Entries {
		if e.Excluded {
			excluded++
		}
	}
	fmt.Fprintf(&b, "# benchnote history\n\nArchive %s: %d entries (%d excluded)", report.Code(name), len(h.Entries), excluded)
	if n := len(h.Entries); n > 0 {
		fmt.Fprintf(&b, " from %s to %s", h.Entries[0].Time, h.Entries[n-1].Time)
	}
	fmt.Fprintf(&b, ", in %d environment segment(s).\n\n", len(h.Segments))
	if cf.labelled {
		var names []string
		for _, c := range cf.list {
			names = append(names, report.Code(cf.name(c)))
		}
		fmt.Fprintf(&b, "%d series (configurations), each followed and tested on its own — the runs of two series are never pooled: %s", len(cf.list), strings.Join(names, ", "))
		if !cf.common.IsZero() && len(cf.differing) > 0 {
			fmt.Fprintf(&b, "; labels common to all: %s", report.Code(cf.common.String()))
		}
		b.WriteString(".\n\n")
	}

	kinds := []struct{ kind, title, intro string }{
		{history.KindChange, "Change points", "Confirmed over two consecutive entries of one environment fingerprint: the runs of the entry that introduced the change and of the next one differ from the runs of up to %d entries before (p < α), and both entries lie beyond the threshold in the same direction."},
		{history.KindUndecided, "Undecided: too few runs", "Both entries lie beyond the threshold in the same direction, but with these run counts no exact test can reach α (%d = baseline window)."},
		{history.KindPending, "Awaiting confirmation", "The latest entry of its segment lies beyond the threshold against the %d entries before it; the next entry will confirm it or not."},
	}
	for _, k := range kinds {
		var rows [][]string
		for _, c := range h.Changes {
			if c.Kind != k.kind {
				continue
			}
			p := fmtP(float64(c.PAdjusted))
			if c.NeedRuns > 0 {
				p = fmt.Sprintf("need ≥ %d runs/side", c.NeedRuns)
			} else if c.Kind == history.KindPending {
				p = "—"
			}
			confirmed := orDash(c.ConfirmedBy)
			if c.Through != "" && c.Through != c.ConfirmedBy {
				confirmed += " (seen through " + c.Through + ")"
			}
			row := []string{c.Entry, c.EntryTime, report.EscapeMarkdown(c.EntryLabel), report.EscapeMarkdown(c.Label), c.Metric.Name,
				fmt.Sprintf("%s %s (%s)", report.FormatNum(c.BaselineMedian), c.Metric.Unit, entries(len(c.Baseline))),
				fmt.Sprintf("%s %s", report.FormatNum(c.NewMedian), c.Metric.Unit), changeText(c), c.Direction, p, confirmed}
			if cf.labelled {
				row = slices.Insert(row, 3, report.EscapeMarkdown(cf.name(c.Level.Series)))
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s (%d)\n\n%s\n\n", k.title, len(rows), fmt.Sprintf(k.intro, h.Options.Window))
		header := []string{"introduced by", "time", "label", "level", "statistic", "baseline median", "new median", "change", "direction", "p", "confirmed by"}
		if cf.labelled {
			header = slices.Insert(header, 3, "series")
		}
		b.WriteString(report.Table(header, rows))
		b.WriteString("\n")
	}
	if len(h.Changes) == 0 {
		b.WriteString("No change point: no statistic moved beyond its threshold over two consecutive entries of one environment.\n\n")
	}

	b.WriteString("## Environment segments\n\nChange points are looked for only inside a segment: consecutive included entries with one environment fingerprint. Across a boundary marked *not comparable* the numbers are not comparable at all.\n\n")
	var rows [][]string
	for _, s := range h.Segments {
		var what []string
		for _, c := range s.Changes {
			what = append(what, fmt.Sprintf("%s: %s → %s", c.Key, report.EscapeMarkdown(clip(orDash(c.Base), 40)), report.EscapeMarkdown(clip(orDash(c.New), 40))))
		}
		boundary := s.Boundary
		if boundary == history.BoundaryIncomparable {
			boundary = "**not comparable**"
		}
		rows = append(rows, []string{strconv.Itoa(s.Index), strconv.Itoa(s.Entries), s.First, s.Last, report.EscapeMarkdown(s.Fingerprint), boundary, orDash(strings.Join(what, "; "))})
	}
	b.WriteString(report.Table([]string{"segment", "entries", "first", "last", "fingerprint", "starts with", "what changed"}, rows))
	b.WriteString("\n")

	if figures {
		b.WriteString("## Trends\n\nEach chart: one statistic at one level; the line joins each entry's median across its runs, the band is ± MAD (excluded entries are not drawn), vertical lines mark environment changes, boundaries across which entries are not comparable, and change points.")
		if cf.labelled {
			fmt.Fprintf(&b, " One line per series, each in its own colour, dash and marker; at most %d series to a chart: with more, they are drawn %d at a time, in the order above, on consecutive charts.", chart.MaxTrendLines, chart.MaxTrendLines)
		}
		b.WriteString("\n\n")
		level := ""
		for i, c := range chartsOf(h, cf) {
			if c.label != level {
				level = c.label
				fmt.Fprintf(&b, "### %s\n\n", report.EscapeMarkdown(level))
			}
			fmt.Fprintf(&b, "%s%d\n\n", figureToken, i)
		}
	}

	b.WriteString("## Entries\n\n")
	rows = nil
	for _, e := range h.Entries {
		status := "included"
		switch {
		case e.Unreadable != "":
			status = "left out: " + report.EscapeMarkdown(e.Unreadable)
		case e.Excluded:
			status = "excluded: " + report.EscapeMarkdown(e.Why)
		}
		rows = append(rows, []string{e.Time, e.ID, report.EscapeMarkdown(clip(e.Label, 60)), strconv.Itoa(e.Segment), strconv.Itoa(e.Runs), status})
	}
	b.WriteString(report.Table([]string{"time", "entry", "label", "segment", "runs", "status"}, rows))
	b.WriteString("\n")

	t := h.Tests
	o := h.Options.Compare
	b.WriteString("## How changes are detected\n\n")
	each := "level and headline statistic"
	if cf.labelled {
		each = "series, level and headline statistic"
	}
	fmt.Fprintf(&b, "- For each %s, every included entry with an earlier and a later entry of its segment is a candidate: the runs of it and of the next entry are tested against the runs of up to %d preceding entries with the exact two-sided Mann–Whitney U test (runs are the unit), as compare does.\n", each, h.Options.Window)
	fmt.Fprintf(&b, "- %d test(s) at α = %s. ", t.Count, strconv.FormatFloat(t.Alpha, 'g', -1, 64))
	if t.Correction == compare.CorrectionHolm {
		fmt.Fprintf(&b, "Holm correction over all of them: the smallest p must beat %s.\n", fmtP(t.EffectiveAlpha))
	} else {
		fmt.Fprintf(&b, "Without correction about %s would fall below α by chance alone; the threshold and the two-entry confirmation remove most of them.\n", strconv.FormatFloat(t.ExpectedFalseFlags, 'f', 1, 64))
	}
	fmt.Fprintf(&b, "- Thresholds: %s %% relative; goodput %s pp; error rate %s pp. An exact test reaches p < %s only with at least %d runs on each side.\n",
		strconv.FormatFloat(100*o.Threshold, 'g', -1, 64), strconv.FormatFloat(o.GoodputThreshold, 'g', -1, 64), strconv.FormatFloat(o.ErrorRateThreshold, 'g', -1, 64),
		fmtP(t.EffectiveAlpha), t.RunsNeeded)
	b.WriteString("- Consecutive candidates flagged in the same direction are one change point, introduced by the first of them.\n")
	fmt.Fprintf(&b, "\n<sub>benchnote %s · %s</sub>\n", report.Version, Schema)
	return b.String()
}

func html(h *history.History, name string) ([]byte, error) {
	body, err := report.MarkdownToHTML([]byte(markdown(h, name, true)))
	if err != nil {
		return nil, err
	}
	cf := configsOf(h)
	charts := chartsOf(h, cf)
	pairs := make([]string, 0, 2*len(charts))
	for i, c := range charts {
		fig, err := trendFigure(h, cf, c, i)
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
	for _, s := range h.Series {
		load := s.Level
		load.Series = ingest.Series{}
		g := group{load, cf.index[s.Level.Series] / chart.MaxTrendLines}
		if ms := measured[g]; len(ms) == 0 || ms[len(ms)-1] != s.Level.Series {
			measured[g] = append(ms, s.Level.Series)
		}
	}
	for i, s := range h.Series {
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
			return cf.index[h.Series[c.series[i]].Level.Series] < cf.index[h.Series[c.series[j]].Level.Series]
		})
		out = append(out, *c)
	}
	return out
}

// maxLegendName is the longest series name a legend shows, in runes.
const maxLegendName = 48

func trendFigure(h *history.History, cf configs, c trendChart, i int) (string, error) {
	tr := chart.Trend{Title: c.metric.Name + " at " + c.label, YLabel: fmt.Sprintf("%s (%s)", c.metric.Name, c.metric.Unit)}
	lastIncluded := map[int]float64{}
	firstTime := map[int]float64{}
	entriesDrawn := map[string]bool{}
	var drawn []string
	hasLine := map[ingest.Series]bool{}
	for _, si := range c.series {
		s := h.Series[si]
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
			entriesDrawn[p.Entry] = true
			if !p.Excluded {
				if t, ok := firstTime[p.Segment]; !ok || p.Time < t {
					firstTime[p.Segment] = p.Time
				}
				lastIncluded[p.Segment] = max(lastIncluded[p.Segment], p.Time)
			}
		}
		name := cf.name(s.Level.Series)
		switch {
		case !cf.labelled:
			tr.Points = pts
		case len(pts) > 0:
			tr.Lines = append(tr.Lines, chart.TrendLine{Name: clip(name, maxLegendName), Points: pts})
			drawn = append(drawn, name)
			hasLine[s.Level.Series] = true
		}
	}
	for _, seg := range h.Segments {
		if seg.Index == 0 {
			continue
		}
		first, ok1 := firstTime[seg.Index]
		prev, ok2 := lastIncluded[seg.Index-1]
		if !ok1 || !ok2 {
			continue
		}
		kind := chart.MarkerEnvironment
		if seg.Boundary == history.BoundaryIncomparable {
			kind = chart.MarkerIncomparable
		}
		tr.Markers = append(tr.Markers, chart.Marker{X: (first + prev) / 2, Kind: kind})
	}
	var changes []string
	for _, ch := range h.Changes {
		load := ch.Level
		load.Series = ingest.Series{}
		if ch.Kind != history.KindChange || load != c.load || ch.Metric.Key != c.metric.Key {
			continue
		}
		for _, si := range c.series {
			s := h.Series[si]
			if s.Level != ch.Level {
				continue
			}
			for _, p := range s.Points {
				if p.Entry == ch.Entry {
					tr.Markers = append(tr.Markers, chart.Marker{X: p.Time, Kind: chart.MarkerChange})
				}
			}
			text := fmt.Sprintf("%s %s at entry %s", ch.Direction, changeText(ch), ch.Entry)
			if cf.labelled {
				text += " (" + cf.name(ch.Level.Series) + ")"
			}
			changes = append(changes, text)
		}
	}
	what := fmt.Sprintf("%s at %s", c.metric.Name, c.label)
	svg, err := tr.SVG()
	if errors.Is(err, chart.ErrNoData) {
		return "<p>No entry has a value for this statistic.</p>", nil
	}
	if err != nil {
		return "", fmt.Errorf("history.html: %s: %w", what, err)
	}
	alt := fmt.Sprintf("Trend of %s over %d entries", what, len(tr.Points))
	caption := what + ": each entry's median across runs with its ± MAD band, in time order (UTC)."
	if cf.labelled {
		alt = fmt.Sprintf("Trend of %s over %d entries, one line per series: %s", what, len(entriesDrawn), strings.Join(drawn, "; "))
		caption = what + ": one line per series, each entry's median across runs with its ± MAD band, in time order (UTC)."
		if !cf.common.IsZero() && len(cf.differing) > 0 {
			caption += " Labels common to all series: " + cf.common.String() + "."
		}
		if c.first > 0 {
			caption += fmt.Sprintf(" Series %d–%d of %d; the others are on the charts beside this one.", c.first, c.last, len(cf.list))
		}
		// A series measured at this level without a value of the
		// statistic is named, so that no line is missing unsaid.
		var empty []string
		for _, m := range c.measured {
			if !hasLine[m] {
				empty = append(empty, cf.name(m))
			}
		}
		if len(empty) > 0 {
			caption += " No value for " + strings.Join(empty, "; ") + "."
		}
	}
	if len(changes) > 0 {
		alt += "; change points: " + strings.Join(changes, "; ")
	}
	return report.Figure(fmt.Sprintf("trend-%d", i), alt+".", caption, svg), nil
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(n) + " entries"
}

func changeText(c history.Change) string {
	v := float64(c.Change)
	switch {
	case math.IsInf(v, 0):
		return "from 0"
	case math.IsNaN(v):
		return "n/a"
	case c.Metric.Points:
		return strings.Replace(fmt.Sprintf("%+.1f pp", v), "-", "−", 1)
	}
	return strings.Replace(fmt.Sprintf("%+.1f %%", 100*v), "-", "−", 1)
}

func fmtP(p float64) string {
	if math.IsNaN(p) {
		return "n/a"
	}
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func clip(s string, n int) string { return report.Clip(s, n) }
