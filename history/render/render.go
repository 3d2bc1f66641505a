// Package render writes a History as history.md, history.html (with a
// trend chart per level and headline statistic) and history.json. It
// only formats: every number comes from the History, formatted as the
// report formats numbers, on the report's page.
package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
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
			rows = append(rows, []string{c.Entry, c.EntryTime, report.EscapeMarkdown(c.EntryLabel), report.EscapeMarkdown(c.Label), c.Metric.Name,
				fmt.Sprintf("%s %s (%s)", report.FormatNum(c.BaselineMedian), c.Metric.Unit, entries(len(c.Baseline))),
				fmt.Sprintf("%s %s", report.FormatNum(c.NewMedian), c.Metric.Unit), changeText(c), c.Direction, p, confirmed})
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s (%d)\n\n%s\n\n", k.title, len(rows), fmt.Sprintf(k.intro, h.Options.Window))
		b.WriteString(report.Table([]string{"introduced by", "time", "label", "level", "statistic", "baseline median", "new median", "change", "direction", "p", "confirmed by"}, rows))
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
		b.WriteString("## Trends\n\nEach chart: one statistic at one level; the line joins each entry's median across its runs, the band is ± MAD (excluded entries are not drawn), vertical lines mark environment changes, boundaries across which entries are not comparable, and change points.\n\n")
		level := ""
		for i, s := range h.Series {
			if s.Label != level {
				level = s.Label
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
	fmt.Fprintf(&b, "- For each level and headline statistic, every included entry with an earlier and a later entry of its segment is a candidate: the runs of it and of the next entry are tested against the runs of up to %d preceding entries with the exact two-sided Mann–Whitney U test (runs are the unit), as compare does.\n", h.Options.Window)
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
	pairs := make([]string, 0, 2*len(h.Series))
	for i, s := range h.Series {
		fig, err := trendFigure(h, s, i)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, fmt.Sprintf("<p>%s%d</p>", figureToken, i), fig)
	}
	page := strings.NewReplacer(pairs...).Replace(string(body))
	return report.Page("benchnote history: "+name, template.HTML(page), template.HTML(template.HTMLEscapeString(
		"Rendered by benchnote "+report.Version+" from the archive's entries; history.json holds every number on this page.")))
}

func trendFigure(h *history.History, s history.Series, i int) (string, error) {
	tr := chart.Trend{Title: s.Metric.Name + " at " + s.Label, YLabel: fmt.Sprintf("%s (%s)", s.Metric.Name, s.Metric.Unit)}
	lastIncluded := map[int]float64{}
	firstTime := map[int]float64{}
	for _, p := range s.Points {
		if !p.Median.Valid() {
			continue
		}
		mad := 0.0
		if p.MAD.Valid() {
			mad = float64(p.MAD)
		}
		m := float64(p.Median)
		tr.Points = append(tr.Points, chart.TrendPoint{X: p.Time, Median: m, Lo: m - mad, Hi: m + mad, Segment: p.Segment, Excluded: p.Excluded})
		if !p.Excluded {
			if _, ok := firstTime[p.Segment]; !ok {
				firstTime[p.Segment] = p.Time
			}
			lastIncluded[p.Segment] = p.Time
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
	for _, c := range h.Changes {
		if c.Kind == history.KindChange && c.Level == s.Level && c.Metric.Key == s.Metric.Key {
			for _, p := range s.Points {
				if p.Entry == c.Entry {
					tr.Markers = append(tr.Markers, chart.Marker{X: p.Time, Kind: chart.MarkerChange})
				}
			}
			changes = append(changes, fmt.Sprintf("%s %s at entry %s", c.Direction, changeText(c), c.Entry))
		}
	}
	svg, err := tr.SVG()
	if errors.Is(err, chart.ErrNoData) {
		return "<p>No entry has a value for this statistic.</p>", nil
	}
	if err != nil {
		return "", fmt.Errorf("history.html: %s at %s: %w", s.Metric.Name, s.Label, err)
	}
	alt := fmt.Sprintf("Trend of %s at %s over %d entries", s.Metric.Name, s.Label, len(tr.Points))
	if len(changes) > 0 {
		alt += "; change points: " + strings.Join(changes, "; ")
	}
	caption := fmt.Sprintf("%s at %s: each entry's median across runs with its ± MAD band, in time order (UTC).", s.Metric.Name, s.Label)
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
