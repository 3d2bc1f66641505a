package chart

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TrendPoint is one entry of a Trend: at time X (unix seconds) the median
// and the band [Lo, Hi] around it (median ∓ MAD).
type TrendPoint struct {
	X, Median, Lo, Hi float64
	// Segment numbers the stretch of comparable entries the point belongs
	// to; the line and band break where it changes.
	Segment int
	// Excluded points are drawn as grey rings, not joined and not banded.
	Excluded bool
}

// MarkerKind is what a vertical marker on a Trend means.
type MarkerKind int

// Marker kinds.
const (
	// MarkerEnvironment marks an environment change that keeps entries
	// comparable (a caveat).
	MarkerEnvironment MarkerKind = iota
	// MarkerIncomparable marks a boundary across which entries are not
	// comparable.
	MarkerIncomparable
	// MarkerChange marks a detected change point.
	MarkerChange
)

var markerStyles = []struct {
	name  string
	style draw.LineStyle
}{
	MarkerEnvironment:  {"environment change", draw.LineStyle{Color: color.Gray{Y: 0x70}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
	MarkerIncomparable: {"not comparable across", draw.LineStyle{Color: color.NRGBA{0xB0, 0x00, 0x20, 0xFF}, Width: vg.Points(1.6)}},
	MarkerChange:       {"change point", draw.LineStyle{Color: Palette[3], Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}},
}

// Marker is a vertical line at time X.
type Marker struct {
	X    float64
	Kind MarkerKind
}

// Trend draws a time series of medians with their MAD band, or several:
// one line per series (configuration), each in its own colour, marker and
// dash.
type Trend struct {
	Title, YLabel string
	// Points is the one, unnamed line.
	Points []TrendPoint
	// Lines, when set instead of Points, are drawn in SeriesStyle order,
	// each named in the legend; at most MaxTrendLines, so that every line
	// keeps a colour of its own.
	Lines   []TrendLine
	Markers []Marker
	// Ticks, when set, label the time axis at these times (the entries,
	// by the names they were given) instead of at round dates; where two
	// labels would overlap, the later is kept and the earlier is a tick
	// without a label.
	Ticks []TrendTick
	// XLabel names the time axis; "time (UTC)" when empty.
	XLabel string
}

// TrendTick is a labelled tick of a Trend's time axis.
type TrendTick struct {
	X     float64
	Label string
}

// TrendLine is one named line of a Trend.
type TrendLine struct {
	Name   string
	Points []TrendPoint
}

// MaxTrendLines is the most lines a Trend draws: one per colour of the
// Palette.
var MaxTrendLines = len(Palette)

// SVG renders the chart. The time axis is labelled in UTC dates (with the
// time of day when the points span less than two days).
func (t Trend) SVG() ([]byte, error) {
	lines, named, lo, hi, err := t.checked()
	if err != nil {
		return nil, err
	}
	xLabel := t.XLabel
	if xLabel == "" {
		xLabel = "time (UTC)"
	}
	p := NewPlot(t.Title, xLabel, t.YLabel)
	legend := NewLegend()
	excluded, err := addTrendLines(p, &legend, lines, named)
	if err != nil {
		return nil, err
	}
	if err := addExcluded(p, &legend, excluded, named); err != nil {
		return nil, err
	}
	addTrendMarkers(p, &legend, t.Markers)
	t.setTimeAxis(p, &legend, lo, hi)
	FromZero(&p.Y)
	f := Single(p, &legend)
	f.Height = ShortHeight // one per level (compare) or per statistic (history)
	return f.SVG()
}

// checked validates the trend and returns its lines (the unnamed Points
// as one line when Lines is empty), whether they are named, and the
// span of their times.
func (t Trend) checked() (lines []TrendLine, named bool, lo, hi float64, err error) {
	lines = t.Lines
	named = len(lines) > 0
	switch {
	case named && len(t.Points) > 0:
		return nil, false, 0, 0, errors.New("chart: a trend of both Points and Lines")
	case len(lines) > MaxTrendLines:
		return nil, false, 0, 0, fmt.Errorf("chart: a trend of %d lines: at most %d keep a colour of their own", len(lines), MaxTrendLines)
	case !named:
		lines = []TrendLine{{Points: t.Points}}
	}
	n := 0
	lo, hi = math.Inf(1), math.Inf(-1)
	for li, l := range lines {
		if err := checkTrendLine(l, named); err != nil {
			return nil, false, 0, 0, err
		}
		if k := len(l.Points); k > 0 {
			n += k
			lo, hi = min(lo, l.Points[0].X), max(hi, l.Points[k-1].X)
		} else if named {
			return nil, false, 0, 0, fmt.Errorf("chart: trend line %d (%q) has no point", li, l.Name)
		}
	}
	if n == 0 {
		return nil, false, 0, 0, ErrNoData
	}
	for i, m := range t.Markers {
		if !finite(m.X) || m.Kind < 0 || int(m.Kind) >= len(markerStyles) {
			return nil, false, 0, 0, fmt.Errorf("chart: marker %d: x %v kind %d", i, m.X, m.Kind)
		}
	}
	for i, tk := range t.Ticks {
		if !finite(tk.X) {
			return nil, false, 0, 0, fmt.Errorf("chart: tick %d (%q): x %v is not finite", i, tk.Label, tk.X)
		}
	}
	return lines, named, lo, hi, nil
}

// checkTrendLine says which point of l is not finite or comes before
// the previous one in time.
func checkTrendLine(l TrendLine, named bool) error {
	what := "trend point"
	if named {
		what = fmt.Sprintf("trend %q: point", l.Name)
	}
	for i, p := range l.Points {
		if !finite(p.X) || !finite(p.Median) || !finite(p.Lo) || !finite(p.Hi) {
			return fmt.Errorf("chart: %s %d: (%v, %v, [%v, %v]) is not finite", what, i, p.X, p.Median, p.Lo, p.Hi)
		}
		if i > 0 && p.X < l.Points[i-1].X {
			return fmt.Errorf("chart: %s %d: time %v before the previous point's %v", what, i, p.X, l.Points[i-1].X)
		}
	}
	return nil
}

// trendDrawn is one line's bands and median lines (each a line and its
// marks), one of each per segment.
type trendDrawn struct {
	bands []plot.Plotter
	lines [][]plot.Plotter
}

// addTrendLines draws the lines' bands and medians and names them in the
// legend; it returns the excluded points, drawn apart. One line has each
// band under its own stretch of the line; named lines have every band
// under every line, so that no band veils a line.
func addTrendLines(p *plot.Plot, legend *plot.Legend, lines []TrendLine, named bool) (plotter.XYs, error) {
	var excluded plotter.XYs
	var all []trendDrawn
	for li, l := range lines {
		ls, gs := SeriesStyle(li)
		bandAlpha := uint8(0x33)
		if named {
			gs.Radius = vg.Points(2.6)
			bandAlpha = 0x22
		} else {
			ls.Dashes = nil
			gs.Radius = vg.Points(2.2)
		}
		var d trendDrawn
		for _, seg := range trendSegments(l.Points, &excluded) {
			band, line, marks, err := trendSegment(seg, ls, gs, bandAlpha)
			if err != nil {
				return nil, err
			}
			d.bands = append(d.bands, band)
			d.lines = append(d.lines, []plot.Plotter{line, marks})
			if named {
				continue
			}
			p.Add(band)
			if len(d.bands) == 1 {
				legend.Add("median ± MAD across runs", band)
			}
			p.Add(line, marks)
			if len(d.lines) == 1 {
				legend.Add("median across runs", line, marks)
			}
		}
		if named {
			// The legend names the line by its colour, dash and marker.
			line, marks := &plotter.Line{LineStyle: ls}, &plotter.Scatter{GlyphStyle: gs}
			legend.Add(l.Name, line, marks)
		}
		all = append(all, d)
	}
	if named {
		for _, d := range all {
			p.Add(d.bands...)
		}
		for _, d := range all {
			for _, l := range d.lines {
				p.Add(l...)
			}
		}
		key := &plotter.Polygon{Color: Faint(color.Gray{Y: 0x60}, 0x44)}
		legend.Add("± MAD across runs (band)", key)
	}
	return excluded, nil
}

// trendSegments splits a line's points into segments of included points
// (a new one where the Segment changes) and appends the excluded points
// to excluded.
func trendSegments(points []TrendPoint, excluded *plotter.XYs) [][]TrendPoint {
	var segments [][]TrendPoint
	for i, pt := range points {
		if pt.Excluded {
			*excluded = append(*excluded, plotter.XY{X: pt.X, Y: pt.Median})
			continue
		}
		if len(segments) == 0 || i == 0 || segments[len(segments)-1][0].Segment != pt.Segment {
			segments = append(segments, nil)
		}
		segments[len(segments)-1] = append(segments[len(segments)-1], pt)
	}
	return segments
}

// trendSegment makes one segment's MAD band and its median line and marks.
func trendSegment(seg []TrendPoint, ls draw.LineStyle, gs draw.GlyphStyle, bandAlpha uint8) (*plotter.Polygon, *plotter.Line, *plotter.Scatter, error) {
	var ring plotter.XYs
	for _, pt := range seg {
		ring = append(ring, plotter.XY{X: pt.X, Y: pt.Hi})
	}
	for k := len(seg) - 1; k >= 0; k-- {
		ring = append(ring, plotter.XY{X: seg[k].X, Y: seg[k].Lo})
	}
	band, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("chart: band: %w", err)
	}
	band.Color = Faint(ls.Color, bandAlpha)
	band.LineStyle.Width = 0
	var med plotter.XYs
	for _, pt := range seg {
		med = append(med, plotter.XY{X: pt.X, Y: pt.Median})
	}
	line, marks, err := plotter.NewLinePoints(med)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("chart: median: %w", err)
	}
	line.LineStyle, marks.GlyphStyle = ls, gs
	return band, line, marks, nil
}

// addExcluded draws the excluded entries as grey rings (in time order
// when several lines contributed them).
func addExcluded(p *plot.Plot, legend *plot.Legend, excluded plotter.XYs, named bool) error {
	if len(excluded) == 0 {
		return nil
	}
	if named {
		sort.SliceStable(excluded, func(i, j int) bool { return excluded[i].X < excluded[j].X })
	}
	sc, err := plotter.NewScatter(excluded)
	if err != nil {
		return fmt.Errorf("chart: excluded: %w", err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 0x90}, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
	p.Add(sc)
	legend.Add("excluded entry", sc)
	return nil
}

// addTrendMarkers draws the markers as vertical lines and names each
// kind drawn once in the legend, in markerStyles order.
func addTrendMarkers(p *plot.Plot, legend *plot.Legend, markers []Marker) {
	seen := map[MarkerKind]bool{}
	for _, m := range markers {
		v := &VLine{X: m.X, Style: markerStyles[m.Kind].style, Stretch: true}
		p.Add(v)
		seen[m.Kind] = true
	}
	for k := range markerStyles {
		if seen[MarkerKind(k)] {
			legend.Add(markerStyles[k].name, &VLine{Style: markerStyles[k].style})
		}
	}
}

// setTimeAxis spans the time axis over the points (lo to hi) and the
// markers, at least an hour wide, and ticks it at round dates or at the
// trend's own Ticks.
func (t Trend) setTimeAxis(p *plot.Plot, legend *plot.Legend, lo, hi float64) {
	for _, m := range t.Markers {
		lo, hi = min(lo, m.X), max(hi, m.X)
	}
	const day = 86400.0
	if hi-lo < day/24 {
		lo, hi = lo-day/2, hi+day/2
	}
	p.X.Min, p.X.Max = padded(lo, hi, 0.03)
	p.X.Tick.Marker = dateTicks{}
	if len(t.Ticks) > 0 {
		// The data's width, estimated short: the figure less the legend
		// strip (as Figure lays it out) and a generous y axis.
		w := Width - vg.Points(4) - legend.Rectangle(draw.Canvas{}).Size().X*5/4 - vg.Points(14) - vg.Points(70)
		p.X.Tick.Marker = newLabelTicks(t.Ticks, w, p.X.Tick.Label)
	}
}

// labelTicks ticks a time axis at given times with given labels: each
// is labelled unless its label would come within labelGap of a later
// one's, so that the latest entries keep theirs; the others are minor
// ticks, when there are no more than MaxTicks in all. width is the
// axis' length in canvas units; half each label's half width.
type labelTicks struct {
	ticks []TrendTick
	half  []float64
	width vg.Length
}

// newLabelTicks sorts the ticks by time and measures their labels once:
// gonum asks for the ticks more than once a drawing.
func newLabelTicks(ticks []TrendTick, width vg.Length, style text.Style) labelTicks {
	l := labelTicks{ticks: append([]TrendTick(nil), ticks...), width: width}
	sort.SliceStable(l.ticks, func(i, j int) bool { return l.ticks[i].X < l.ticks[j].X })
	for _, t := range l.ticks {
		l.half = append(l.half, float64(style.Width(t.Label))/2)
	}
	return l
}

// labelGap is the least room between two tick labels, in points.
const labelGap = 8

// Ticks implements plot.Ticker.
func (l labelTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := -1, -1 // the ticks in range
	for i, t := range l.ticks {
		if t.X >= lo && t.X <= hi {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || !(hi > lo) {
		return nil
	}
	all := make([]plot.Tick, last-first+1)
	var labelled []plot.Tick              // latest first
	scale := float64(l.width) / (hi - lo) // canvas units per second
	left := math.Inf(1)                   // left edge of the last label kept
	for i := last; i >= first; i-- {
		t := &all[i-first]
		t.Value = l.ticks[i].X
		at := (l.ticks[i].X - lo) * scale
		if len(labelled) < MaxTicks && l.ticks[i].Label != "" && at+l.half[i]+labelGap <= left {
			t.Label = l.ticks[i].Label
			labelled = append(labelled, *t)
			left = at - l.half[i]
		}
	}
	if len(all) <= MaxTicks {
		return all
	}
	slices.Reverse(labelled)
	return labelled
}

// dateTicks labels a unix-seconds axis in UTC at round steps (hours, days,
// weeks, months of 30 days, years of 365, and beyond 6 years 1, 2 or 5 ×
// 10^k years), the step giving at most seven labels, counted from UTC
// midnight of 1970-01-01 so the same range always gets the same ticks. A
// range with a NaN or infinite end gets none.
type dateTicks struct{}

// Ticks implements plot.Ticker.
func (dateTicks) Ticks(lo, hi float64) []plot.Tick {
	const hour, day, year = 3600.0, 86400.0, 365 * 86400.0
	if !finite(lo) || !finite(hi) {
		return nil
	}
	steps := []float64{hour, 3 * hour, 6 * hour, 12 * hour, day, 2 * day, 7 * day, 14 * day, 30 * day, 91 * day, year}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if (hi-lo)/s <= 6 {
			step = s
			break
		}
	}
	if half := hi/2 - lo/2; half > 3*year {
		// More than six years: 1, 2 or 5 × 10^k years (halves, so that
		// the span cannot overflow; 10^k years reaches +Inf, so it ends).
	outer:
		for e := 0.0; ; e++ {
			for _, m := range []float64{1, 2, 5} {
				if st := m * math.Pow(10, e) * year; half/st <= 3 {
					step = st
					break outer
				}
			}
		}
	}
	format := "2006-01-02"
	if step < day {
		format = "01-02 15:04"
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step) * step
	for i := 0; i < MaxTicks/4; i++ {
		v := first + float64(i)*step
		if v > hi {
			break
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: dateLabel(v, format)})
	}
	return ticks
}

// Unix times of the years 0001 to 9999, the years a date label can show.
const minDate, maxDate = -62135596800, 253402300799

// dateLabel writes a unix time as a UTC date in format, or, outside the
// years 0001 to 9999, as a number of seconds.
func dateLabel(v float64, format string) string {
	if v < minDate || v > maxDate {
		return strconv.FormatFloat(v, 'g', 3, 64) + " s"
	}
	return time.Unix(int64(v), 0).UTC().Format(format)
}
