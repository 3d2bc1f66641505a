package render

import (
	"errors"
	"fmt"
	"html/template"
	"strings"

	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
	"github.com/benchnote/benchnote/report/chart"
)

// MaxCurvePairs is the most series whose base and new curves share a
// latency-vs-throughput chart in compare.html (two colours each).
const MaxCurvePairs = 4

// MaxLevelCharts is the most levels that get their own per-run chart in
// compare.html; the page says when levels beyond it have none.
const MaxLevelCharts = 60

// html renders compare.html: the whole document (no shortening) with the
// latency-vs-throughput curves of both sweeps and a per-run chart per level.
func html(in Input) ([]byte, error) {
	md := render(in, layout{detail: detailFull, levels: -1, listCap: -1, figures: true})
	body, err := report.MarkdownToHTML([]byte(md))
	if err != nil {
		return nil, err
	}
	page := string(body)
	overview, err := overviewFigures(in)
	if err != nil {
		return nil, err
	}
	// One pass over the page for every figure token.
	pairs := []string{"<p>" + figureToken + "overview</p>", overview}
	for i, l := range in.Result.Levels {
		fig := ""
		if i < MaxLevelCharts {
			fig, err = levelFigure(l, i)
			if err != nil {
				return nil, err
			}
		} else if i == MaxLevelCharts {
			fig = fmt.Sprintf("<p>Per-run charts are drawn for the first %d levels only; the tables below carry every value.</p>", MaxLevelCharts)
		}
		pairs = append(pairs, fmt.Sprintf("<p>%slevel-%d</p>", figureToken, i), fig)
	}
	page = strings.NewReplacer(pairs...).Replace(page)
	title := "benchnote compare: " + in.Result.Base.Name + " → " + in.Result.New.Name
	return report.Page(title, template.HTML(page), template.HTML(template.HTMLEscapeString(
		"Rendered by benchnote "+report.Version+" from two summaries; compare.json holds every number on this page.")))
}

// overviewFigures draws, for p95 TTFT, TPOT and E2E, both sweeps' latency
// against their output rate, level by level, with every run's own point.
func overviewFigures(in Input) (string, error) {
	rateKey := compare.RateKeyFor(in.Base, in.New)
	rateName := "output tokens/s (server counters)"
	if rateKey == compare.ClientRateKey {
		rateName = "output tokens/s (client records)"
	}
	// One curve per side and series compared; the first MaxCurvePairs
	// pairs of series when more were compared.
	pairs := []compare.Pair{{}}
	several := in.Result.Series.Several()
	if s := in.Result.Series; s != nil {
		pairs = s.Compared
	}
	left := ""
	if len(pairs) > MaxCurvePairs {
		left = fmt.Sprintf(" Only the first %d of the %d series compared are drawn; the tables carry every level.", MaxCurvePairs, len(pairs))
		pairs = pairs[:MaxCurvePairs]
	}
	var b strings.Builder
	for _, key := range []string{"ttft.p95", "tpot.p95", "e2e.p95"} {
		m, _ := compare.MetricByKey(key)
		var series []chart.Series
		var alt []string
		bc, nc := compare.Curve(in.Base, rateKey, key), compare.Curve(in.New, rateKey, key)
		for _, side := range curveSides(in, pairs, several, bc, nc) {
			s, pts := side.series()
			series = append(series, s)
			alt = append(alt, side.name+" ("+strings.Join(pts, "; ")+")")
		}
		ov := chart.Overlay{Title: m.Name + " vs output throughput", XLabel: rateName, YLabel: m.Name + " (ms)",
			Series: series, ScatterName: "one run"}
		svg, err := ov.SVG()
		if errors.Is(err, chart.ErrNoData) {
			fmt.Fprintf(&b, "<p>No level has both %s and %s on either side: no curve to draw.</p>\n", template.HTMLEscapeString(m.Name), rateName)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("compare.html: %s curve: %w", key, err)
		}
		caption := fmt.Sprintf("Per-run %s against %s: medians across runs joined level by level (labels: level), faint dots one run each, base and new overlaid. Read the spread of the dots as the noise between runs.", m.Name, rateName)
		if several {
			caption += " One pair of curves per series."
		}
		caption += left
		if ov.LogY() {
			caption += " The latency axis is logarithmic."
		}
		b.WriteString(report.Figure("curve-"+strings.ReplaceAll(key, ".", "-"), "Line chart of "+m.Name+" against output throughput: "+strings.Join(alt, "; ")+".", caption, svg))
		b.WriteString("\n")
	}
	return b.String(), nil
}

// sideCurve is one side's curve of one series in an overview figure.
type sideCurve struct {
	name string
	c    []compare.CurveLevel
}

// curveSides are the curves to draw, base then new for each pair of
// series compared; bc and nc are each side's curve over every series.
func curveSides(in Input, pairs []compare.Pair, several bool, bc, nc []compare.CurveLevel) []sideCurve {
	var sides []sideCurve
	for _, p := range pairs {
		if in.Result.Series == nil {
			sides = append(sides, sideCurve{"base", bc}, sideCurve{"new", nc})
			continue
		}
		bn, nn := "base", "new"
		if several {
			bn, nn = "base "+p.Base.String(), "new "+p.New.String()
		}
		sides = append(sides, sideCurve{bn, curveOf(bc, p.Base)}, sideCurve{nn, curveOf(nc, p.New)})
	}
	return sides
}

// curveOf is the levels of curve c in series s.
func curveOf(c []compare.CurveLevel, s ingest.Series) []compare.CurveLevel {
	var out []compare.CurveLevel
	for _, cl := range c {
		if cl.Level.Series == s {
			out = append(out, cl)
		}
	}
	return out
}

// series is the side's chart series, medians joined and each run a dot,
// and each level's medians in words for the text alternative.
func (side sideCurve) series() (chart.Series, []string) {
	s := chart.Series{Name: side.name}
	var pts []string
	for _, cl := range side.c {
		s.Line = append(s.Line, chart.Point{X: float64(cl.Rate.Median), Y: float64(cl.Latency.Median), Label: shortLabel(cl.Level)})
		pts = append(pts, fmt.Sprintf("%s: %s tokens/s, %s ms", cl.Level.Label(), report.FormatNum(cl.Rate.Median), report.FormatNum(cl.Latency.Median)))
		for k := range cl.Rate.PerRun {
			if k < len(cl.Latency.PerRun) && cl.Rate.PerRun[k].Valid() && cl.Latency.PerRun[k].Valid() {
				s.Scatter = append(s.Scatter, chart.Point{X: float64(cl.Rate.PerRun[k]), Y: float64(cl.Latency.PerRun[k])})
			}
		}
	}
	return s, pts
}

// shortLabel labels a curve point: "c=16" for a concurrency level.
func shortLabel(id compare.LevelID) string {
	if id.Mode == compare.ModeConcurrency {
		return strings.Replace(id.Label(), "concurrency ", "c=", 1)
	}
	return id.Label()
}

// levelFigure draws one level's per-run values of every relative headline
// statistic, base and new side by side, as a percentage of the base median.
func levelFigure(l compare.LevelResult, i int) (string, error) {
	var cats []string
	base := chart.StripGroup{Name: "base"}
	nw := chart.StripGroup{Name: "new"}
	for _, row := range l.Rows {
		if row.Metric.Points || !row.Base.Median.Valid() || float64(row.Base.Median) == 0 || row.New.N == 0 {
			continue
		}
		ref := float64(row.Base.Median)
		scale := func(a compare.Across) []float64 {
			var out []float64
			for _, v := range a.PerRun {
				if v.Valid() {
					out = append(out, 100*float64(v)/ref)
				}
			}
			return out
		}
		cats = append(cats, row.Metric.Name)
		base.Values = append(base.Values, scale(row.Base))
		nw.Values = append(nw.Values, scale(row.New))
	}
	hundred := 100.0
	svg, err := chart.Strip{Title: l.Label, YLabel: "% of the base median", Categories: cats,
		Groups: []chart.StripGroup{base, nw}, Reference: &hundred, ReferenceName: "base median"}.SVG()
	if errors.Is(err, chart.ErrNoData) {
		return "<p>No statistic has values on both sides at this level: no chart.</p>", nil
	}
	if err != nil {
		return "", fmt.Errorf("compare.html: %s: %w", l.Label, err)
	}
	caption := fmt.Sprintf("%s: every run's value of each latency and rate statistic as a percentage of the base median (dots), base and new side by side, bars at each side's median. Goodput and the error rate, which change in percentage points, are in the table.", l.Label)
	return report.Figure(fmt.Sprintf("level-%d", i), "Per-run values at "+l.Label+" relative to the base median; the table below lists them.", caption, svg), nil
}
