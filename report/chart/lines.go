package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HLine is a horizontal reference line across the data area (an SLO
// target, 100 % of a base median). Name it in the legend: a label written
// on the chart would sit on top of whatever data cross the line there.
//
// A line outside the y range is not drawn; its Label is, at the top (or
// bottom) edge of the data area with an arrow and "(above the axis)" (or
// "(below the axis)"), so the reader still learns where the target is.
type HLine struct {
	Y     float64
	Style draw.LineStyle
	// Label names the line in the note drawn when it is out of range.
	Label string
	// Stretch makes the y axis extend to show the line; otherwise the
	// line never changes the axis range.
	Stretch bool
}

// Plot implements plot.Plotter.
func (h *HLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.Y)
	sty := referenceText(draw.XLeft, draw.YBottom)
	pad := vg.Points(4)
	switch {
	case c.ContainsY(y):
		c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
	case h.Label == "":
	case y > c.Max.Y:
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X + pad, Y: c.Max.Y - vg.Points(2)}, "↑ "+h.Label+" (above the axis)")
	default:
		sty.XAlign = draw.XRight
		c.FillText(sty, vg.Point{X: c.Max.X - pad, Y: c.Min.Y + vg.Points(2)}, "↓ "+h.Label+" (below the axis)")
	}
}

// DataRange implements plot.DataRanger: Y only, and only to Stretch.
func (h *HLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	if !h.Stretch {
		return math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	}
	return math.Inf(1), math.Inf(-1), h.Y, h.Y
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (h *HLine) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
}

// VLine is a vertical line across the data area (a warm-up cut, a change
// point, an SLO target on a latency axis), named in the legend.
//
// A line outside the x range is not drawn; its Label is, at the left or
// right edge, as for HLine.
type VLine struct {
	X     float64
	Style draw.LineStyle
	// Label names the line in the note drawn when it is out of range.
	Label string
	// Stretch makes the x axis extend to show the line.
	Stretch bool
}

// Plot implements plot.Plotter.
func (v *VLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.X)
	sty := referenceText(draw.XLeft, draw.YTop)
	pad := vg.Points(4)
	switch {
	case c.ContainsX(x):
		c.StrokeLine2(v.Style, x, c.Min.Y, x, c.Max.Y)
	case v.Label == "":
	case x > c.Max.X:
		// Bottom right: where a CDF has already reached 1.
		sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
		c.FillText(sty, vg.Point{X: c.Max.X - pad, Y: c.Min.Y + pad}, v.Label+" (right of the axis) →")
	default:
		c.FillText(sty, vg.Point{X: c.Min.X + pad, Y: c.Max.Y - pad}, "← "+v.Label+" (left of the axis)")
	}
}

// DataRange implements plot.DataRanger: X only, and only to Stretch.
func (v *VLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	if !v.Stretch {
		return math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	}
	return v.X, v.X, math.Inf(1), math.Inf(-1)
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (v *VLine) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.Style, x, c.Min.Y, x, c.Max.Y)
}

// referenceText is the style of a reference line's label.
func referenceText(x draw.XAlignment, y draw.YAlignment) text.Style {
	return text.Style{
		Color:   color.Gray{Y: 0x33},
		Font:    Font(vg.Points(referenceSize)),
		XAlign:  x,
		YAlign:  y,
		Handler: plot.DefaultTextHandler,
	}
}
