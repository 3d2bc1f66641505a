package chart

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParetoPoint is one point of a Pareto chart: the medians X and Y with
// their spread.
type ParetoPoint struct {
	X, Y float64
	// XErr and YErr are drawn as error bars either side; 0 draws none.
	XErr, YErr float64
	// Group indexes Pareto.Groups; -1 puts the point in the grey group
	// Pareto.OtherName names.
	Group int
	// Fails marks a point that fails the SLOs: its marker is hollow.
	Fails bool
	// Frontier marks a point on the Pareto frontier.
	Frontier bool
	// Label, when set, is written beside the point.
	Label string
}

// Pareto draws a throughput–interactivity trade-off: one marker per point
// in its group's colour and shape (filled, or hollow when the point fails
// the SLOs), ± error bars in both directions, and the Pareto frontier as a
// dashed staircase through the frontier points: the edge of what they
// dominate, higher x and higher y being better. Both axes start at zero,
// and an error bar stops there: x and y are rates, never negative.
type Pareto struct {
	Title, XLabel, YLabel string
	// Groups names the groups (series) in legend order; each gets the
	// colour and shape of its index.
	Groups []string
	// OtherName names the grey points of group -1 in the legend ("3 other
	// series").
	OtherName string
	Points    []ParetoPoint
	// FailName names the hollow markers in the legend; it is added only
	// when a point fails.
	FailName string
	// FrontierName names the frontier in the legend; it is added only
	// when a point is on it.
	FrontierName string
}

// paretoShapes are the marker shapes of a Pareto chart's groups, each
// drawn filled or hollow: polygons of sides sides turned by rot (radians;
// 0 has a vertex at the top), 0 sides for a circle.
var paretoShapes = []struct {
	sides int
	rot   float64
}{
	{0, 0},               // circle
	{4, math.Pi / 4},     // square
	{3, 0},               // triangle
	{4, 0},               // diamond
	{3, math.Pi},         // triangle, point down
	{5, 0},               // pentagon
	{6, math.Pi / 6},     // hexagon
	{3, -math.Pi / 2},    // triangle, point left
	{8, math.Pi / 8},     // octagon
	{3, math.Pi / 2},     // triangle, point right
	{4, math.Pi / 4 / 2}, // square, turned a little
}

// ParetoGlyph is a marker of a Pareto chart: shape Shape of paretoShapes,
// filled, or outlined on white when Hollow.
type ParetoGlyph struct {
	Shape  int
	Hollow bool
}

// DrawGlyph implements draw.GlyphDrawer.
func (g ParetoGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	sh := paretoShapes[g.Shape%len(paretoShapes)]
	var p vg.Path
	if sh.sides == 0 {
		p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
		p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	} else {
		// Polygons a little larger than the circle, so that shapes of
		// one radius look about the same size.
		r := float64(sty.Radius) * 1.2
		for k := 0; k < sh.sides; k++ {
			a := sh.rot + 2*math.Pi*float64(k)/float64(sh.sides)
			v := vg.Point{X: pt.X + vg.Length(r*math.Sin(a)), Y: pt.Y + vg.Length(r*math.Cos(a))}
			if k == 0 {
				p.Move(v)
			} else {
				p.Line(v)
			}
		}
	}
	p.Close()
	if g.Hollow {
		c.SetColor(color.White)
		c.Fill(p)
		c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.3)})
		c.Stroke(p)
		return
	}
	c.SetColor(sty.Color)
	c.Fill(p)
}

// paretoColour is the colour of group i; grey for the other group.
func paretoColour(i int) color.Color {
	if i < 0 {
		return color.Gray{Y: 0x99}
	}
	return Palette[i%len(Palette)]
}

// paretoMarker is the marker style of group i.
func paretoMarker(i int, hollow bool) draw.GlyphStyle {
	shape := i
	if i < 0 {
		shape = 0
	}
	return draw.GlyphStyle{Color: paretoColour(i), Radius: vg.Points(4), Shape: ParetoGlyph{Shape: shape, Hollow: hollow}}
}

// paretoFrontierStyle is the style of the frontier line.
var paretoFrontierStyle = draw.LineStyle{Color: color.Gray{Y: 0x33}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}

// ParetoStaircase returns the frontier line through the frontier points:
// sorted by x, from each point down to the next one's y, then across to
// it; the edge of the region the points dominate.
func ParetoStaircase(pts []ParetoPoint) plotter.XYs {
	var f []ParetoPoint
	for _, p := range pts {
		if p.Frontier {
			f = append(f, p)
		}
	}
	sort.SliceStable(f, func(i, j int) bool {
		if f[i].X != f[j].X {
			return f[i].X < f[j].X
		}
		return f[i].Y > f[j].Y
	})
	var out plotter.XYs
	for i, p := range f {
		if i > 0 {
			out = append(out, plotter.XY{X: f[i-1].X, Y: p.Y})
		}
		out = append(out, plotter.XY{X: p.X, Y: p.Y})
	}
	return out
}

// SVG renders the chart.
func (pc Pareto) SVG() ([]byte, error) {
	if err := pc.check(); err != nil {
		return nil, err
	}
	p := NewPlot(pc.Title, pc.XLabel, pc.YLabel)
	legend := NewLegend()
	// The frontier first, under the points.
	frontierLine, err := addParetoFrontier(p, pc.Points)
	if err != nil {
		return nil, err
	}
	// Error bars, then markers, the other group first (under the rest),
	// then the groups in order.
	order := make([]int, 0, len(pc.Groups)+1)
	order = append(order, -1)
	for g := range pc.Groups {
		order = append(order, g)
	}
	var labels plotter.XYs
	var texts []string
	for _, g := range order {
		var pts []ParetoPoint
		for _, pt := range pc.Points {
			if pt.Group == g {
				pts = append(pts, pt)
			}
		}
		if len(pts) == 0 {
			continue
		}
		if err := addParetoErrorBars(p, pts, paretoColour(g)); err != nil {
			return nil, err
		}
		if err := addParetoMarkers(p, pts, g); err != nil {
			return nil, err
		}
		for _, pt := range pts {
			if pt.Label != "" {
				labels = append(labels, plotter.XY{X: pt.X, Y: pt.Y})
				texts = append(texts, pt.Label)
			}
		}
	}
	pc.addLegend(&legend, frontierLine)
	if err := addParetoLabels(p, labels, texts); err != nil {
		return nil, err
	}
	FromZero(&p.X)
	FromZero(&p.Y)
	// Room right of and above the outermost points for their labels and
	// error bars; an axis with nothing but zero gets a unit range.
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if !(a.Max > a.Min) {
			a.Max = a.Min + 1
		}
		_, a.Max = padded(a.Min, a.Max, 0.08)
	}
	return Single(p, &legend).SVG()
}

// check says which point is not finite, has a negative value or spread,
// or names a group the chart does not have.
func (pc Pareto) check() error {
	if len(pc.Points) == 0 {
		return ErrNoData
	}
	for i, pt := range pc.Points {
		if !finite(pt.X) || !finite(pt.Y) || !finite(pt.XErr) || !finite(pt.YErr) || pt.X < 0 || pt.Y < 0 || pt.XErr < 0 || pt.YErr < 0 {
			return fmt.Errorf("chart: pareto point %d: (%v ± %v, %v ± %v): want finite values and spreads ≥ 0", i, pt.X, pt.XErr, pt.Y, pt.YErr)
		}
		if pt.Group < -1 || pt.Group >= len(pc.Groups) {
			return fmt.Errorf("chart: pareto point %d: group %d of %d", i, pt.Group, len(pc.Groups))
		}
	}
	return nil
}

// addParetoFrontier draws the frontier's staircase and returns its line,
// or nil when there is none.
func addParetoFrontier(p *plot.Plot, points []ParetoPoint) (*plotter.Line, error) {
	stairs := ParetoStaircase(points)
	if len(stairs) == 0 {
		return nil, nil
	}
	l, err := plotter.NewLine(stairs)
	if err != nil {
		return nil, fmt.Errorf("chart: pareto frontier: %w", err)
	}
	l.LineStyle = paretoFrontierStyle
	p.Add(l)
	return l, nil
}

// addParetoErrorBars draws one group's horizontal and vertical error
// bars in its colour, each clipped at zero: neither rate can be negative.
func addParetoErrorBars(p *plot.Plot, pts []ParetoPoint, col color.Color) error {
	var xe, ye plotter.XYs
	var xerr plotter.XErrors
	var yerr plotter.YErrors
	for _, pt := range pts {
		if pt.XErr > 0 {
			xe = append(xe, plotter.XY{X: pt.X, Y: pt.Y})
			xerr = append(xerr, struct{ Low, High float64 }{math.Min(pt.XErr, pt.X), pt.XErr})
		}
		if pt.YErr > 0 {
			ye = append(ye, plotter.XY{X: pt.X, Y: pt.Y})
			yerr = append(yerr, struct{ Low, High float64 }{math.Min(pt.YErr, pt.Y), pt.YErr})
		}
	}
	if len(xe) > 0 {
		eb, err := plotter.NewXErrorBars(struct {
			plotter.XYs
			plotter.XErrors
		}{xe, xerr})
		if err != nil {
			return fmt.Errorf("chart: pareto: %w", err)
		}
		eb.LineStyle.Color = col
		p.Add(eb)
	}
	if len(ye) > 0 {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{ye, yerr})
		if err != nil {
			return fmt.Errorf("chart: pareto: %w", err)
		}
		eb.LineStyle.Color = col
		p.Add(eb)
	}
	return nil
}

// addParetoMarkers draws one group's markers: filled for the points that
// pass, then hollow for those that fail.
func addParetoMarkers(p *plot.Plot, pts []ParetoPoint, g int) error {
	for _, hollow := range []bool{false, true} {
		var xys plotter.XYs
		for _, pt := range pts {
			if pt.Fails == hollow {
				xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("chart: pareto: %w", err)
		}
		sc.GlyphStyle = paretoMarker(g, hollow)
		p.Add(sc)
	}
	return nil
}

// addLegend names the groups, the other group, the failing points and
// the frontier, each only when the chart has them.
func (pc Pareto) addLegend(legend *plot.Legend, frontierLine *plotter.Line) {
	fails, frontier := false, false
	for _, pt := range pc.Points {
		fails = fails || pt.Fails
		frontier = frontier || pt.Frontier
	}
	for g, name := range pc.Groups {
		legend.Add(name, &plotter.Scatter{GlyphStyle: paretoMarker(g, false)})
	}
	for _, pt := range pc.Points {
		if pt.Group == -1 && pc.OtherName != "" {
			legend.Add(pc.OtherName, &plotter.Scatter{GlyphStyle: paretoMarker(-1, false)})
			break
		}
	}
	if fails && pc.FailName != "" {
		legend.Add(pc.FailName, &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Gray{Y: 0x33}, Radius: vg.Points(4), Shape: ParetoGlyph{Hollow: true}}})
	}
	if frontier && frontierLine != nil && pc.FrontierName != "" {
		legend.Add(pc.FrontierName, frontierLine)
	}
}

// addParetoLabels writes the points' labels above right of each point:
// clear of its marker and of a frontier that falls to the right.
func addParetoLabels(p *plot.Plot, labels plotter.XYs, texts []string) error {
	if len(labels) == 0 {
		return nil
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: labels, Labels: texts})
	if err != nil {
		return fmt.Errorf("chart: pareto: %w", err)
	}
	lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(4)}
	for k := range lb.TextStyle {
		lb.TextStyle[k].Font = Font(vg.Points(pointLabelSz))
		lb.TextStyle[k].Color = color.Gray{Y: 0x33}
	}
	p.Add(lb)
	return nil
}
