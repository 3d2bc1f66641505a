package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report/chart"
)

// warmupStatMax is how high the warm-up chart draws a rule's statistic.
const warmupStatMax = 10.0

// warmupChart draws the warm-up traces, one row per level, one colour per
// repeat: on the left each run's TTFT in send order with the cut; on the
// right, when the rule has one, the statistic it decided by (TTFT in the
// repeat's colour, TPOT faint), so a reader sees why the cut is where it is.
func warmupChart(s *analyze.Summary) (*Plot, error) {
	v := viewOf(s)
	sv := seriesViewOf(s)
	runs := warmupRunsOf(s, sv)
	if len(runs.groups) == 0 {
		return nil, nil
	}
	mode := s.Method.Warmup
	panels := warmupPanels{
		styles:    newWarmupStyles(runs.groups),
		statLabel: warmupStatLabel(mode),
		threshold: mode == "changepoint" || mode == "stabilisation",
		stat:      runs.anyStat,
		name: func(k analyze.LevelKey) string {
			// With several series, a panel names the series too.
			if sv.several() {
				return seriesLoadName(sv, v, k)
			}
			return v.name(k.Load())
		},
	}
	grid, err := panels.grid(runs.groups)
	if err != nil {
		return nil, err
	}
	legend := panels.legend(runs.anyCut)
	title := "Warm-up traces"
	svg, err := chart.Figure{Title: title, Grid: grid, Legend: &legend}.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot warmup: %w", err)
	}
	return &Plot{
		Name:    "warmup",
		Title:   title,
		Caption: warmupCaption(s, v, runs, panels.clamped) + sv.sentence(),
		Alt:     warmupAlt(s, v, runs),
		SVG:     svg,
	}, nil
}

// warmupGroup is one level's runs in the warm-up chart.
type warmupGroup struct {
	level analyze.LevelKey
	runs  []analyze.RunSummary
}

// warmupRuns is what the warm-up chart shows, and what its caption says
// of the runs it does not show.
type warmupRuns struct {
	// groups are the runs with a trace to draw, by level in the
	// summary's order.
	groups []warmupGroup
	// notCut are the runs shown whose rule never held; unavailable
	// those not shown because their send order is unknown.
	notCut, unavailable []string
	failed, shown       int
	// anyCut says whether any run shown was cut; anyStat whether any
	// has the rule's statistic.
	anyCut, anyStat bool
}

// warmupRunsOf sorts the summary's runs into those the warm-up chart
// draws and those its caption names.
func warmupRunsOf(s *analyze.Summary, sv seriesView) warmupRuns {
	var w warmupRuns
	for _, r := range s.Runs {
		if r.Failed {
			w.failed++
			continue
		}
		if sv.index(r.Series) < 0 {
			continue // a series the charts leave out (the caption names it)
		}
		if r.Warmup.Outcome == analyze.WarmupUnavailable {
			w.unavailable = append(w.unavailable, r.Dir)
			continue
		}
		valid := false
		for _, pt := range r.Warmup.Trace {
			if pt.TTFTms.Valid() || pt.BlockMedian.Valid() || pt.TTFTStat.Valid() || pt.TPOTStat.Valid() {
				valid = true
			}
			w.anyStat = w.anyStat || pt.TTFTStat.Valid() || pt.TPOTStat.Valid()
		}
		if !valid {
			continue
		}
		if len(w.groups) == 0 || w.groups[len(w.groups)-1].level != r.LevelKey {
			w.groups = append(w.groups, warmupGroup{level: r.LevelKey})
		}
		g := &w.groups[len(w.groups)-1]
		g.runs = append(g.runs, r)
		w.shown++
		w.anyCut = w.anyCut || r.Warmup.Discarded > 0
		if r.Warmup.Outcome == analyze.WarmupNotStabilised {
			w.notCut = append(w.notCut, r.Dir)
		}
	}
	return w
}

// warmupStatLabel names the statistic of a warm-up mode on its axis.
func warmupStatLabel(mode string) string {
	label := map[string]string{
		"changepoint":   "U_t ÷ critical value",
		"mser5":         "MSER(d) ÷ MSER(0)",
		"stabilisation": "median change ÷ tolerance",
	}[mode]
	if label == "" {
		return "statistic"
	}
	return label
}

// warmupStyles gives each repeat number one style, the same in every
// panel.
type warmupStyles struct {
	repeats []int
}

func newWarmupStyles(groups []warmupGroup) warmupStyles {
	var repeats []int
	for _, g := range groups {
		for _, r := range g.runs {
			if !chartHasInt(repeats, r.Repeat) {
				repeats = append(repeats, r.Repeat)
			}
		}
	}
	slices.Sort(repeats)
	return warmupStyles{repeats: repeats}
}

// repeat is a repeat's line style and, faint, its dots' style.
func (st warmupStyles) repeat(repeat int) (draw.LineStyle, draw.GlyphStyle) {
	ls, faint := chart.SeriesStyle(slices.Index(st.repeats, repeat))
	faint.Color = chart.Faint(ls.Color, 0x55)
	faint.Radius = vg.Points(1.5)
	return ls, faint
}

// warmupCutStyle draws a warm-up cut in colour c.
func warmupCutStyle(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
}

// warmupTPOTStyle draws TPOT's statistic in the repeat's line style, faint.
func warmupTPOTStyle(ls draw.LineStyle) draw.LineStyle {
	ls.Color = chart.Faint(ls.Color, 0x55)
	return ls
}

// warmupThresholdStyle draws the threshold 1 of a rule's statistic.
var warmupThresholdStyle = draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}

// warmupPanels draws the warm-up chart's panels: per level, the TTFT
// panel and, with stat, the statistic's panel beside it.
type warmupPanels struct {
	styles    warmupStyles
	statLabel string
	// threshold says whether the rule compares its statistic with 1.
	threshold bool
	stat      bool
	name      func(analyze.LevelKey) string
	// clamped says whether a statistic was drawn at warmupStatMax.
	clamped bool
}

// legend names the repeats, the statistics and the cut drawn.
func (wp *warmupPanels) legend(anyCut bool) plot.Legend {
	legend := chart.NewLegend()
	for _, rp := range wp.styles.repeats {
		ls, faint := wp.styles.repeat(rp)
		legend.Add(fmt.Sprintf("repeat %d", rp), &plotter.Scatter{GlyphStyle: faint}, &plotter.Line{LineStyle: ls})
	}
	if wp.stat {
		black := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		legend.Add("TTFT statistic", &plotter.Line{LineStyle: black})
		legend.Add("TPOT statistic", &plotter.Line{LineStyle: warmupTPOTStyle(black)})
		if wp.threshold {
			legend.Add("threshold (1)", &plotter.Line{LineStyle: warmupThresholdStyle})
		}
	}
	if anyCut {
		legend.Add("warm-up cut", &chart.VLine{Style: warmupCutStyle(color.Black)})
	}
	return legend
}

// grid lays the panels out: one row per level with the statistic, else
// the levels side by side.
func (wp *warmupPanels) grid(groups []warmupGroup) ([][]*plot.Plot, error) {
	var grid [][]*plot.Plot
	for _, g := range groups {
		row, err := wp.row(g)
		if err != nil {
			return nil, err
		}
		grid = append(grid, row)
	}
	if wp.stat {
		return grid, nil
	}
	var plots []*plot.Plot
	for _, row := range grid {
		plots = append(plots, row[0])
	}
	cols := 1
	switch {
	case len(plots) > 4:
		cols = 3
	case len(plots) > 1:
		cols = 2
	}
	return chart.Rows(plots, cols), nil
}

// row draws one level's panels.
func (wp *warmupPanels) row(g warmupGroup) ([]*plot.Plot, error) {
	left := chartNewPlot()
	chart.SmallText(left)
	left.Title.Text = wp.name(g.level)
	left.X.Label.Text = "request index (send order)"
	left.Y.Label.Text = "TTFT (ms)"
	var right *plot.Plot
	if wp.stat {
		right = chartNewPlot()
		chart.SmallText(right)
		right.Title.Text = wp.name(g.level) + ": the rule's statistic"
		right.X.Label.Text = "request index (send order)"
		right.Y.Label.Text = wp.statLabel
	}
	for _, r := range g.runs {
		if err := wp.addRun(left, right, r); err != nil {
			return nil, err
		}
	}
	chart.FromZero(&left.Y)
	if right == nil {
		return []*plot.Plot{left}, nil
	}
	if wp.threshold {
		one := plotter.NewFunction(func(float64) float64 { return 1 })
		one.Samples = 2
		one.LineStyle = warmupThresholdStyle
		right.Add(one)
		right.Y.Max = math.Max(right.Y.Max, 1.1)
	}
	chart.FromZero(&right.Y)
	// Both panels of a level share their request axis.
	lo, hi := math.Min(left.X.Min, right.X.Min), math.Max(left.X.Max, right.X.Max)
	left.X.Min, left.X.Max, right.X.Min, right.X.Max = lo, hi, lo, hi
	return []*plot.Plot{left, right}, nil
}

// addRun draws one run: its TTFT dots, block medians and cut on the left,
// its statistics (when right is not nil) and cut on the right.
func (wp *warmupPanels) addRun(left, right *plot.Plot, r analyze.RunSummary) error {
	ls, faint := wp.styles.repeat(r.Repeat)
	var dots plotter.XYs
	for _, pt := range r.Warmup.Trace {
		if pt.TTFTms.Valid() {
			dots = append(dots, plotter.XY{X: float64(pt.Index), Y: float64(pt.TTFTms)})
		}
	}
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return fmt.Errorf("plot warmup: %w", err)
		}
		sc.GlyphStyle = faint
		left.Add(sc)
	}
	if err := addWarmupLines(left, wp.lines(r.Warmup.Trace, func(pt analyze.WarmupPoint) analyze.Num { return pt.BlockMedian }, false), ls); err != nil {
		return err
	}
	if right != nil {
		if err := addWarmupLines(right, wp.lines(r.Warmup.Trace, func(pt analyze.WarmupPoint) analyze.Num { return pt.TTFTStat }, true), ls); err != nil {
			return err
		}
		if err := addWarmupLines(right, wp.lines(r.Warmup.Trace, func(pt analyze.WarmupPoint) analyze.Num { return pt.TPOTStat }, true), warmupTPOTStyle(ls)); err != nil {
			return err
		}
	}
	if r.Warmup.Discarded > 0 {
		// Trace indices count from 1: the cut falls after request
		// number Discarded.
		x := float64(r.Warmup.Discarded) + 0.5
		left.Add(&chart.VLine{X: x, Style: warmupCutStyle(ls.Color), Stretch: true})
		if right != nil {
			right.Add(&chart.VLine{X: x, Style: warmupCutStyle(ls.Color), Stretch: true})
		}
	}
	return nil
}

// lines turns the valid points of a trace into line segments, split where
// the value is missing; a statistic is drawn up to warmupStatMax.
func (wp *warmupPanels) lines(pts []analyze.WarmupPoint, get func(analyze.WarmupPoint) analyze.Num, statistic bool) []plotter.XYs {
	var out []plotter.XYs
	var seg plotter.XYs
	for _, pt := range pts {
		v := get(pt)
		if !v.Valid() {
			if len(seg) > 0 {
				out = append(out, seg)
				seg = nil
			}
			continue
		}
		y := float64(v)
		if statistic && y > warmupStatMax {
			y, wp.clamped = warmupStatMax, true
		}
		seg = append(seg, plotter.XY{X: float64(pt.Index), Y: y})
	}
	if len(seg) > 0 {
		out = append(out, seg)
	}
	return out
}

// addWarmupLines adds each segment to p as a line in style ls.
func addWarmupLines(p *plot.Plot, segs []plotter.XYs, ls draw.LineStyle) error {
	for _, sg := range segs {
		line, err := plotter.NewLine(sg)
		if err != nil {
			return fmt.Errorf("plot warmup: %w", err)
		}
		line.LineStyle = ls
		p.Add(line)
	}
	return nil
}

// warmupCaption says what the warm-up chart draws, how the rule decided,
// and which runs it leaves out; clamped says whether a statistic was
// drawn at warmupStatMax.
func warmupCaption(s *analyze.Summary, v levelView, w warmupRuns, clamped bool) string {
	mode := s.Method.Warmup
	caption := "The TTFT of the first requests of each run in send order (faint dots; requests without a TTFT are not drawn)"
	if w.anyStat {
		caption = "Left: t" + caption[1:]
	}
	if mode == "stabilisation" {
		caption += " and the median of each block of requests the rule compares (step line; none for an incomplete block)"
	}
	if w.anyCut {
		caption += ", with the warm-up cut (dashed vertical line after the last discarded request)"
	}
	caption += "."
	if w.anyStat {
		caption += warmupStatCaption(s, clamped)
	}
	layout := "One panel"
	if w.anyStat {
		layout = "One row"
	}
	caption += fmt.Sprintf(" %s per %s, one colour per repeat. Warm-up mode: %s.", layout, v.perLevel(), warmupModeName(mode))
	switch {
	case len(w.notCut) > 0 && len(w.notCut) == w.shown:
		caption += " The rule never held for any run, so nothing was cut."
	case len(w.notCut) > 0:
		caption += fmt.Sprintf(" The rule never held, so nothing was cut, for: %s.", strings.Join(w.notCut, ", "))
	}
	if len(w.unavailable) > 0 {
		caption += fmt.Sprintf(" Not shown, their send order being unknown (warm-up detection unavailable): %s.", strings.Join(w.unavailable, ", "))
	}
	if w.failed > 0 {
		caption += fmt.Sprintf(" Failed runs (%d) are not shown.", w.failed)
	}
	return caption
}

// warmupStatCaption describes the right-hand panels: the rule's statistic
// and where its cut falls on the curve.
func warmupStatCaption(s *analyze.Summary, clamped bool) string {
	caption := fmt.Sprintf(" Right: the statistic the rule decided by, for a cut right after each request, on TTFT (the repeat's colour) and on TPOT (the same, faint): %s.", s.Method.WarmupStatistic)
	switch s.Method.Warmup {
	case "changepoint":
		caption += " The cut is located on the first 2τ requests, so it can sit a request or two before the curve's peak; the curve covers the prefix the test was decided on."
	case "mser5":
		caption += " The cut is at the curve's minimum."
	}
	if clamped {
		caption += fmt.Sprintf(" Values above %g are drawn at %g.", warmupStatMax, warmupStatMax)
	}
	return caption
}

// warmupAlt is the warm-up chart's text alternative.
func warmupAlt(s *analyze.Summary, v levelView, w warmupRuns) string {
	var levels []ingest.LoadLevel
	for _, g := range w.groups {
		levels = append(levels, g.level.Load())
	}
	alt := fmt.Sprintf("Small multiples, one per %s (%s): each run's TTFT per request in send order and a vertical line where the warm-up was cut", v.perLevel(), v.list(levels))
	if s.Method.Warmup == ingest.WarmupNone {
		alt = fmt.Sprintf("Small multiples, one per %s (%s): each run's TTFT per request in send order; warm-up handling is off, so nothing was cut", v.perLevel(), v.list(levels))
	}
	if w.anyStat {
		alt += ", beside the warm-up rule's statistic per request"
	}
	return alt + "."
}
