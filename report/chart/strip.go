package chart

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// StripGroup is one group of a Strip chart (for example the base runs).
type StripGroup struct {
	Name string
	// Values holds, per category, the group's per-run values; a category
	// may be empty for a group.
	Values [][]float64
}

// Strip draws, for each category along the x axis, every value of each
// group as a dot, the groups side by side, with each group's median as a
// short horizontal bar. The legend names the groups "NAME runs"; callers
// say in a caption that the bars are medians.
type Strip struct {
	Title, YLabel string
	Categories    []string
	Groups        []StripGroup
	// Reference, when set, draws a horizontal line at *Reference (for
	// example 100 % = the base median) named ReferenceName in the legend.
	Reference     *float64
	ReferenceName string
}

// SVG renders the chart.
func (s Strip) SVG() ([]byte, error) {
	if len(s.Categories) == 0 || len(s.Groups) == 0 {
		return nil, ErrNoData
	}
	n := 0
	for _, g := range s.Groups {
		if len(g.Values) != len(s.Categories) {
			return nil, fmt.Errorf("chart: group %s has values for %d categories, want %d", g.Name, len(g.Values), len(s.Categories))
		}
		for c, vs := range g.Values {
			for k, v := range vs {
				if !finite(v) {
					return nil, fmt.Errorf("chart: group %s, %s, value %d: %v is not finite", g.Name, s.Categories[c], k, v)
				}
			}
			n += len(vs)
		}
	}
	if n == 0 {
		return nil, ErrNoData
	}
	if s.Reference != nil && !finite(*s.Reference) {
		return nil, fmt.Errorf("chart: reference %v is not finite", *s.Reference)
	}
	p := NewPlot(s.Title, "", s.YLabel)
	legend := NewLegend()
	width := 0.6 / float64(len(s.Groups))
	for gi, g := range s.Groups {
		_, gs := SeriesStyle(gi)
		gs.Radius = vg.Points(2.5)
		var dots plotter.XYs
		var bars []plotter.XYs
		for c, vs := range g.Values {
			center := float64(c) - 0.3 + width*(float64(gi)+0.5)
			for k, v := range vs {
				// Spread equal values a little so each run stays visible.
				off := (float64(k%5) - 2) * width * 0.08
				dots = append(dots, plotter.XY{X: center + off, Y: v})
			}
			if len(vs) > 0 {
				m := median(vs)
				bars = append(bars, plotter.XYs{{X: center - width*0.4, Y: m}, {X: center + width*0.4, Y: m}})
			}
		}
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, fmt.Errorf("chart: %s: %w", g.Name, err)
		}
		sc.GlyphStyle = gs
		p.Add(sc)
		legend.Add(g.Name+" runs", sc)
		for _, b := range bars {
			l, err := plotter.NewLine(b)
			if err != nil {
				return nil, fmt.Errorf("chart: %s: %w", g.Name, err)
			}
			l.LineStyle = draw.LineStyle{Color: gs.Color, Width: vg.Points(2)}
			p.Add(l)
		}
	}
	if s.Reference != nil {
		h := &HLine{Y: *s.Reference, Style: ReferenceStyle, Stretch: true}
		p.Add(h)
		if s.ReferenceName != "" {
			legend.Add(s.ReferenceName, h)
		}
	}
	var ticks []plot.Tick
	for c, name := range s.Categories {
		ticks = append(ticks, plot.Tick{Value: float64(c), Label: name})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.Font.Size = vg.Points(smallTick)
	p.X.Min, p.X.Max = -0.5, float64(len(s.Categories))-0.5
	f := Single(p, &legend)
	f.Height = ShortHeight // one per level (compare) or per statistic (history)
	return f.SVG()
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	// Halves first: the sum of two large values overflows. Halving is
	// exact, so for any other values this is (a + b) / 2 to the bit.
	return s[n/2-1]/2 + s[n/2]/2
}
