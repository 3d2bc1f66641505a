package chart

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of the charts. The width is the content width of the report page
// (templates/style.css: main { max-width: 72rem }, 72 × 16 px = 1152 CSS
// px = 864 pt), so a chart shown at width 100 % is drawn at its natural
// size on a wide screen: its 12-unit title is 16 px, the size of the
// page's body text, and it scales down with the column on a narrow one.
// vg.Length counts points.
const (
	Width vg.Length = 864
	// Height is the height of a chart of one plot or one row of plots.
	Height vg.Length = 400
	// ShortHeight is the height of a chart that a page repeats many
	// times (one per level or per statistic).
	ShortHeight vg.Length = 300
	// TileHeight is the height of one row of a grid of two rows or more.
	TileHeight vg.Length = 240
)

// GridHeight is the canvas height of a grid of rows rows.
func GridHeight(rows int) vg.Length {
	if rows <= 1 {
		return Height
	}
	return vg.Length(rows)*TileHeight + vg.Points(28)
}

// Text of every chart is set in Liberation Sans: gonum measures it with
// the copy of the font compiled into the binary
// (codeberg.org/go-fonts/liberation, through gonum.org/v1/plot/font), so
// layout never depends on the fonts of the machine that renders the
// report, and the SVG only references the font, as FontFamily, rather
// than embedding it (a whole TTF is some 400 kB per chart).
//
// FontFamily is the CSS font stack written in every <text> element: the
// measured face first, then faces with the same advance widths (Arimo is
// the same design; Arial and Helvetica are the faces Liberation Sans was
// drawn to match metrically), then the generic sans-serif of the page.
// A reader who has none of the four sees the browser's sans-serif, which
// may run some 10 % wider: legends keep a quarter of their width spare
// for that.
const FontFamily = "'Liberation Sans', Arimo, Arial, Helvetica, sans-serif"

// Font returns the chart font at the given size.
func Font(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// Text sizes, in canvas units (points; 1 pt is 4/3 CSS px at natural size).
const (
	titleSize     = 12
	labelSize     = 10.5
	tickSize      = 9.5
	legendSize    = 10
	smallTitle    = 10.5
	smallLabel    = 9.5
	smallTick     = 8.5
	pointLabelSz  = 8.5
	referenceSize = 8.5
)

// NewPlot returns a plot in benchnote's style: sans-serif text, ticks at
// round numbers (Ticks) on both axes.
func NewPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = Font(vg.Points(titleSize))
	// Clear of the data area: vertical lines run to its top edge.
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Font(vg.Points(labelSize))
		a.Tick.Label.Font = Font(vg.Points(tickSize))
		a.Tick.Marker = Ticks{}
	}
	return p
}

// SmallText shrinks the text of a plot drawn as one tile of several.
func SmallText(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(smallTitle)
	p.X.Label.TextStyle.Font.Size = vg.Points(smallLabel)
	p.Y.Label.TextStyle.Font.Size = vg.Points(smallLabel)
	p.X.Tick.Label.Font.Size = vg.Points(smallTick)
	p.Y.Tick.Label.Font.Size = vg.Points(smallTick)
}

// NewLegend returns a legend meant for the strip right of the data (see
// Figure), its entries a little apart.
func NewLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font = Font(vg.Points(legendSize))
	l.ThumbnailWidth = vg.Points(20)
	l.Padding = vg.Points(3)
	return l
}

// SetLogScale draws the axis on a log scale, ticks it with LogTicks and
// says so in its label (see LogLabel).
func SetLogScale(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = LogTicks{}
	a.Label.Text = LogLabel(a.Label.Text)
}

// LogLabel adds "log scale" to an axis label: inside a closing
// parenthesis ("TTFT (ms)" becomes "TTFT (ms, log scale)"), otherwise as
// " (log scale)".
func LogLabel(label string) string {
	if strings.Contains(label, "log scale") {
		return label
	}
	if strings.HasSuffix(label, ")") {
		return label[:len(label)-1] + ", log scale)"
	}
	return label + " (log scale)"
}

// Ticks places major ticks at multiples of 1, 2 or 5 × 10^k, the step
// giving closest to six ticks, labelled with no more decimals than the
// step needs, and a minor tick halfway between them.
type Ticks struct{}

// Ticks implements plot.Ticker.
func (Ticks) Ticks(lo, hi float64) []plot.Tick {
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

// LogTicks is a ticker for log axes: labelled ticks at 1, 2 and 5 × 10^k
// (only at 10^k when the range spans more than three decades), unlabelled
// ones at the other multiples. A range that is not positive gets Ticks.
type LogTicks struct{}

// Ticks implements plot.Ticker.
func (LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return Ticks{}.Ticks(lo, hi)
	}
	majors := []int{1, 2, 5}
	if hi/lo > 1000 {
		majors = []int{1}
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(majors, m) {
				t.Label = strconv.FormatFloat(v, 'f', max(0, -e), 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// FromZero makes a non-negative axis start at zero.
func FromZero(a *plot.Axis) {
	if a.Min > 0 {
		a.Min = 0
	}
}

// Palette is the Okabe–Ito colour-blind-safe palette in the order series
// use it (yellow last: it is hard to see on white). For a comparison the
// first colour is the base, the second the new series.
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// glyphs and dashes vary with the colour, so series stay apart in grey.
var (
	glyphs = []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{},
		draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
	}
	dashes = [][]vg.Length{
		nil,
		{vg.Points(6), vg.Points(3)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	}
)

// SeriesStyle returns the line and marker style of series i.
func SeriesStyle(i int) (draw.LineStyle, draw.GlyphStyle) {
	c := Palette[i%len(Palette)]
	return draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: dashes[i%len(dashes)]},
		draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: glyphs[i%len(glyphs)]}
}

// Faint returns c at opacity alpha, for dense points and bands.
func Faint(c color.Color, alpha uint8) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = alpha
	return n
}

// ReferenceStyle is the style of a reference line such as an SLO target:
// dark grey, long dashes, apart from every series colour.
var ReferenceStyle = draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(7), vg.Points(3)}}
