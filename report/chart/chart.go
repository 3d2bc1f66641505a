// Package chart draws the charts that benchnote's comparison and history
// reports share, as deterministic SVG built with gonum.org/v1/plot:
//
//   - Overlay: several series on shared axes, each a line through labelled
//     points plus faint unjoined points (for example the latency-vs-
//     throughput curve of a base and a new sweep, with every run's own
//     point so the noise is visible);
//   - Strip: per-run values of several categories for two groups side by
//     side, each group's median as a bar;
//   - Trend: a time series of medians with a MAD band, broken where a
//     segment ends, with excluded points drawn apart and vertical markers.
//
// Charts only draw what they are given. Constructors-by-value validate:
// a NaN or infinite coordinate, or a chart with nothing to draw, is an
// error, never a silently missing point. The same chart value always
// renders to the same bytes: fonts are referenced, not embedded, and
// nothing depends on time or map order.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of every chart: 16 cm × 10 cm.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

// ErrNoData is returned for a chart with nothing to draw.
var ErrNoData = errors.New("chart: nothing to draw")

// Palette is the Okabe–Ito colour-blind-safe palette in the order series
// use it: the first colour is the base (or only) series, the second the
// new one.
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
}

// glyphs and dashes vary with the colour, so series stay apart in grey.
var (
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}}
	dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
)

// seriesStyle returns the line and marker style of series i.
func seriesStyle(i int) (draw.LineStyle, draw.GlyphStyle) {
	c := Palette[i%len(Palette)]
	return draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: dashes[i%len(dashes)]},
		draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: glyphs[i%len(glyphs)]}
}

// faint returns c at low opacity, for per-run points and bands.
func faint(c color.Color, alpha uint8) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = alpha
	return n
}

// Point is one point; Label, when set, is written next to it.
type Point struct {
	X, Y  float64
	Label string
}

func checkPoints(what string, pts []Point) error {
	for i, p := range pts {
		if !finite(p.X) || !finite(p.Y) {
			return fmt.Errorf("chart: %s point %d: (%v, %v) is not finite", what, i, p.X, p.Y)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func xys(pts []Point) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return out
}

// newPlot returns a plot with benchnote's tick style.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	return p
}

// niceTicks places major ticks at 1, 2 or 5 × 10^k, the step giving
// closest to six ticks, labelled with no more decimals than the step
// needs, and a minor tick halfway between them.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	e0 := int(math.Floor(math.Log10(hi - lo)))
	step, best := 0.0, math.MaxInt
	for e := e0 - 2; e <= e0+1; e++ {
		for _, m := range []float64{1, 2, 5} {
			st := m * math.Pow(10, float64(e))
			n := int(math.Floor(hi/st+1e-9) - math.Ceil(lo/st-1e-9) + 1)
			if d := max(n-6, 6-n); d <= best {
				step, best = st, d
			}
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	first := math.Ceil(lo/step-1e-9) * step
	var ticks []plot.Tick
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > hi+step*1e-9 {
			break
		}
		if v == 0 {
			v = 0 // no "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	for i := 0; ; i++ {
		v := first - step/2 + float64(i)*step
		if v > hi {
			break
		}
		if v >= lo {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// logTicks is a ticker for log axes: labelled ticks at 1, 2 and 5 × 10^k
// (only 10^k beyond three decades), unlabelled ones at the other
// multiples.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return niceTicks{}.Ticks(lo, hi)
	}
	majors := map[int]bool{1: true, 2: true, 5: true}
	if hi/lo > 1000 {
		majors = map[int]bool{1: true}
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if majors[m] {
				t.Label = strconv.FormatFloat(v, 'f', max(0, -e), 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// fromZero makes a non-negative axis start at zero.
func fromZero(a *plot.Axis) {
	if a.Min > 0 {
		a.Min = 0
	}
}

// newLegend returns a legend placed in a strip right of the data.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(9)
	l.ThumbnailWidth = vg.Points(18)
	return l
}

// render draws the plot with its legend in a strip to its right, where
// it never covers data, on a white canvas without embedded fonts. gonum
// panics on some degenerate input; that becomes an error.
func render(p *plot.Plot, legend *plot.Legend) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("chart: drawing: %v", r)
		}
	}()
	c := vgsvg.NewWith(vgsvg.UseWH(Width, Height), vgsvg.EmbedFonts(false))
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{
		{X: dc.Min.X, Y: dc.Min.Y}, {X: dc.Max.X, Y: dc.Min.Y},
		{X: dc.Max.X, Y: dc.Max.Y}, {X: dc.Min.X, Y: dc.Max.Y},
	})
	area := dc
	if legend != nil {
		// A quarter more than measured: a browser without Liberation
		// fonts substitutes a wider face, which would be clipped.
		if w := legend.Rectangle(dc).Size().X; w > 0 {
			area.Max.X -= w*5/4 + vg.Points(14)
		}
	} else {
		area.Max.X -= vg.Points(12)
	}
	area.Max.Y -= vg.Points(4)
	p.Draw(area)
	if legend != nil {
		strip := dc
		strip.Min.X = area.Max.X + vg.Points(10)
		strip.Max.Y = p.DataCanvas(area).Max.Y
		legend.Draw(strip)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// vline draws a vertical line across the whole data area; it never
// stretches the Y axis.
type vline struct {
	x     float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (v *vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	if !c.ContainsX(x) {
		return
	}
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// DataRange implements plot.DataRanger: X only.
func (v *vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (v *vline) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// hline draws a horizontal reference line across the data area.
type hline struct {
	y     float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (h *hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	if !c.ContainsY(y) {
		return
	}
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: Y only.
func (h *hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (h *hline) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}
