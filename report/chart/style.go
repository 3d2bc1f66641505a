package chart

import (
	"bytes"
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
// size on a wide screen: its smallest text (MinTextSize) is 16 px, the size of the
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
	// CompactWidth and CompactHeight are the size of a chart with little
	// to show (the few points of a sweep of one level): half the column,
	// shown at its natural size rather than stretched to the column's
	// width (see IsCompact).
	CompactWidth  vg.Length = Width / 2
	CompactHeight vg.Length = 300
)

// IsCompact reports whether an SVG document drawn by this package is
// narrower than Width (a compact chart): a page shows such a chart at its
// natural size, not stretched to the column.
func IsCompact(svg []byte) bool {
	i := bytes.Index(svg, []byte("<svg width=\""))
	if i < 0 {
		return false
	}
	rest := svg[i+len("<svg width=\""):]
	j := bytes.Index(rest, []byte("pt\""))
	if j < 0 {
		return false
	}
	w, err := strconv.ParseFloat(string(rest[:j]), 64)
	return err == nil && w < float64(Width)
}

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

// MinTextSize is the smallest text of any chart, in canvas units: 12 per
// Width (864) is 16 px on a wide screen and some 11 px when the chart is
// shown 800 px wide, against the page's 16 px body text. Every size below
// is at least this.
const MinTextSize = 12

// Text sizes, in canvas units (points; 1 pt is 4/3 CSS px at natural size).
const (
	titleSize     = 14
	labelSize     = 12.5
	tickSize      = 12
	legendSize    = 12
	smallTitle    = 13
	smallLabel    = 12
	smallTick     = MinTextSize
	pointLabelSz  = MinTextSize
	referenceSize = MinTextSize
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
//
// Any range gets at most MaxTicks ticks, in time independent of the range.
// A range with a NaN or infinite end gets none. A range that is empty
// (lo ≥ hi) gets one tick at lo, and a range too narrow for float64 to
// hold a multiple of a round step inside it (a span of a few units in the
// last place of its ends) gets its two ends, labelled in full.
type Ticks struct{}

// MaxTicks is the most ticks, major and minor, Ticks and LogTicks return
// for any range.
const MaxTicks = 64

// maxMultiple is the largest |x / step| at which multiples of the step
// are still exact integers in float64: beyond it consecutive multiples
// round to the same value.
const maxMultiple = 1 << 52

// Ticks implements plot.Ticker.
func (Ticks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) {
		return nil
	}
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	step := linearStep(lo, hi)
	if step == 0 {
		return []plot.Tick{
			{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)},
			{Value: hi, Label: strconv.FormatFloat(hi, 'g', -1, 64)},
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	k := math.Ceil(lo/step - 1e-9)
	first := k * step
	// The tolerance for the last tick, unless it overflows (hi near
	// MaxFloat64): then hi itself.
	limit := hi + step*1e-9
	if math.IsInf(limit, 0) {
		limit = hi
	}
	var ticks []plot.Tick
	for i := 0; i < MaxTicks/2; i++ {
		off := float64(i) * step
		v := first + off
		if math.IsInf(off, 0) {
			v = (k + float64(i)) * step // near ±MaxFloat64
		}
		if v > limit {
			break
		}
		if v == 0 {
			v = 0 // no "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, step, decimals)})
	}
	for i := 0; i < MaxTicks/2; i++ {
		off := float64(i) * step
		v := first - step/2 + off
		if math.IsInf(off, 0) {
			v = (k + float64(i) - 0.5) * step
		}
		if v > hi {
			break
		}
		if v >= lo {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// linearStep returns the round step (1, 2 or 5 × 10^k) giving closest to
// six ticks in [lo, hi], a finite range with lo < hi; 0 when no round
// step has two exact multiples there.
func linearStep(lo, hi float64) float64 {
	logSpan := math.Log10(hi - lo)
	if math.IsInf(hi-lo, 1) {
		// The span overflows (ends of opposite signs beyond ±MaxFloat64/2).
		logSpan = math.Log10(hi/2-lo/2) + math.Log10(2)
	}
	e0 := int(math.Floor(logSpan))
	step, best, count := 0.0, math.MaxInt, 0
	for e := e0 - 2; e <= e0+1; e++ {
		for _, m := range []float64{1, 2, 5} {
			st := m * math.Pow(10, float64(e))
			if !(st > 0) || math.IsInf(st, 0) {
				continue // under- or overflows
			}
			a, b := math.Ceil(lo/st-1e-9), math.Floor(hi/st+1e-9)
			if !(math.Abs(a) <= maxMultiple && math.Abs(b) <= maxMultiple) {
				continue
			}
			n := int(b - a + 1)
			if d := max(n-6, 6-n); d <= best {
				step, best, count = st, d, n
			}
		}
	}
	if count < 2 {
		// Too narrow for two multiples of any step (a span of a few ulps).
		return 0
	}
	return step
}

// tickLabel writes a major tick with the decimals its step needs, or, for
// a value or step too large or small to write out in full, in exponent
// form with as many significant digits as the step needs.
func tickLabel(v, step float64, decimals int) string {
	if math.Abs(v) < 1e21 && decimals <= 20 {
		return strconv.FormatFloat(v, 'f', decimals, 64)
	}
	digits := 1
	if v != 0 {
		digits = int(math.Floor(math.Log10(math.Abs(v)))) - int(math.Floor(math.Log10(step)+1e-9)) + 1
	}
	return strconv.FormatFloat(v, 'g', min(max(digits, 1), 17), 64)
}

// LogTicks is a ticker for log axes: labelled ticks at 1, 2 and 5 × 10^k
// (only at 10^k when the range spans more than three decades), unlabelled
// ones at the other multiples. A range that is not positive gets Ticks.
// A range of more than maxDecades decades gets ticks at powers of ten
// only, labelled every few decades (see decadeTicks).
type LogTicks struct {
	// Narrow labels only 10^k from two decades up rather than three: for
	// the horizontal axis of a tile too narrow for nine labels of
	// MinTextSize text ("5000" would run into "10000").
	Narrow bool
}

// maxDecades is the widest range, in decades, that LogTicks ticks at
// every multiple of each power of ten (at most 9 ticks a decade).
const maxDecades = 6

// Ticks implements plot.Ticker.
func (lt LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return Ticks{}.Ticks(lo, hi)
	}
	elo, ehi := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	if math.Log10(hi)-math.Log10(lo) > maxDecades {
		return decadeTicks(lo, hi, elo, ehi)
	}
	majors := []int{1, 2, 5}
	if hi/lo > 1000 || (lt.Narrow && hi/lo > 100) {
		majors = []int{1}
	}
	// The tolerance at the top end, unless it overflows.
	top := hi * (1 + 1e-9)
	if math.IsInf(top, 0) {
		top = hi
	}
	var ticks []plot.Tick
	for e := elo; e <= ehi; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if v < lo*(1-1e-9) || v > top {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(majors, m) {
				t.Label = powerLabel(v, e)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// decadeTicks ticks a log range of many decades (exponents elo to ehi) at
// powers of ten: a label every d decades, d the first of 1, 2, 5, 10, 20,
// 50, ... giving at most seven labels, and an unlabelled tick at the other
// powers when there are fewer than MaxTicks of them.
func decadeTicks(lo, hi float64, elo, ehi int) []plot.Tick {
	d := 1
	for k := 0; (ehi-elo)/d > 6; k++ {
		d = []int{2, 5, 10}[k%3] * int(math.Pow10(k/3))
	}
	var ticks []plot.Tick
	for e := elo; e <= ehi; e++ {
		v := math.Pow(10, float64(e))
		if v < lo || v > hi {
			continue
		}
		switch {
		case e%d == 0:
			ticks = append(ticks, plot.Tick{Value: v, Label: powerLabel(v, e)})
		case ehi-elo < MaxTicks:
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// powerLabel labels m × 10^e: written out from 10^-20 to 10^20, in
// exponent form beyond.
func powerLabel(v float64, e int) string {
	if e < -20 || e > 20 {
		return strconv.FormatFloat(v, 'g', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, -e), 64)
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
