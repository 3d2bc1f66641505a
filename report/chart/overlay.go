package chart

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named series of an Overlay.
type Series struct {
	Name string
	// Line is joined in order and marked; a point's Label is written
	// beside it.
	Line []Point
	// Scatter is drawn as faint, unjoined dots of the series' colour.
	Scatter []Point
}

// Overlay draws several series on shared axes.
type Overlay struct {
	Title, XLabel, YLabel string
	Series                []Series
	// ScatterName names the faint dots in the legend ("one run").
	ScatterName string
}

// LogSpan is the ratio of the largest to the smallest y value from which
// an Overlay draws its y axis on a log scale, so that a level far above
// the others does not flatten them.
const LogSpan = 20

// LogY reports whether the chart draws its y axis on a log scale: every y
// is positive and the largest is at least LogSpan times the smallest.
func (o Overlay) LogY() bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range o.Series {
		for _, pts := range [][]Point{s.Line, s.Scatter} {
			for _, p := range pts {
				lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
			}
		}
	}
	return lo > 0 && hi >= LogSpan*lo
}

// SVG renders the chart. Both axes start at zero, unless the y axis is
// logarithmic (see LogY).
func (o Overlay) SVG() ([]byte, error) {
	n := 0
	for _, s := range o.Series {
		if err := checkPoints(s.Name+" line", s.Line); err != nil {
			return nil, err
		}
		if err := checkPoints(s.Name+" scatter", s.Scatter); err != nil {
			return nil, err
		}
		n += len(s.Line) + len(s.Scatter)
	}
	if n == 0 {
		return nil, ErrNoData
	}
	p := NewPlot(o.Title, o.XLabel, o.YLabel)
	legend := NewLegend()
	for i, s := range o.Series {
		ls, gs := SeriesStyle(i)
		if len(s.Scatter) > 0 {
			sc, err := plotter.NewScatter(xys(s.Scatter))
			if err != nil {
				return nil, fmt.Errorf("chart: %s: %w", s.Name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: Faint(ls.Color, 0x66), Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			if o.ScatterName != "" {
				legend.Add(s.Name+": "+o.ScatterName, sc)
			}
		}
		if len(s.Line) == 0 {
			continue
		}
		line, marks, err := plotter.NewLinePoints(xys(s.Line))
		if err != nil {
			return nil, fmt.Errorf("chart: %s: %w", s.Name, err)
		}
		line.LineStyle, marks.GlyphStyle = ls, gs
		p.Add(line, marks)
		legend.Add(s.Name, line, marks)
		labels := make([]string, len(s.Line))
		hasLabel := false
		for k, pt := range s.Line {
			labels[k] = pt.Label
			hasLabel = hasLabel || pt.Label != ""
		}
		if hasLabel {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys(s.Line), Labels: labels})
			if err != nil {
				return nil, fmt.Errorf("chart: %s: %w", s.Name, err)
			}
			// The first series' labels sit above left of their points,
			// the others' below right: clear of a curve that rises, and
			// apart when two sweeps put their points one above the other
			// (the same throughput, different latency).
			lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(-3)}
			xAlign, yAlign := draw.XLeft, draw.YTop
			if i == 0 {
				lb.Offset = vg.Point{X: vg.Points(-5), Y: vg.Points(3)}
				xAlign, yAlign = draw.XRight, draw.YBottom
			}
			for k := range lb.TextStyle {
				lb.TextStyle[k].Color = ls.Color
				lb.TextStyle[k].Font = Font(vg.Points(pointLabelSz))
				lb.TextStyle[k].XAlign, lb.TextStyle[k].YAlign = xAlign, yAlign
			}
			p.Add(lb)
		}
	}
	FromZero(&p.X)
	if o.LogY() {
		SetLogScale(&p.Y)
	} else {
		FromZero(&p.Y)
	}
	// Room right of the last point for its label.
	if finite(p.X.Min) && finite(p.X.Max) {
		_, p.X.Max = padded(p.X.Min, p.X.Max, 0.08)
	}
	return Single(p, &legend).SVG()
}
