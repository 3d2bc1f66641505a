// Package chart holds benchnote's chart style and the charts that more
// than one renderer draws, as deterministic SVG built with
// gonum.org/v1/plot. Every chart of every page (report, compare, history)
// is drawn through it, so they share one look:
//
//   - the style: NewPlot (sans-serif text, round-number Ticks and
//     LogTicks, SetLogScale, which says "log scale" in the axis label),
//     the colour-blind-safe Palette with SeriesStyle, NewLegend, and the
//     reference lines HLine and VLine (SLO targets, warm-up cuts);
//   - Figure: one plot or a grid of plots, its legend in a strip right of
//     the data, rendered at the page's content width (Width) with the
//     text in FontFamily, control characters escaped;
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
// error, never a silently missing point. Finite data of any magnitude is
// drawn: the tickers (Ticks, LogTicks and the date ticks of a Trend) give
// at most MaxTicks ticks for any range, from ±MaxFloat64 to subnormals,
// and pad axes without overflowing. The same chart value always
// renders to the same bytes: fonts are referenced, not embedded, and
// nothing depends on time or map order.
package chart

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
)

// ErrNoData is returned for a chart with nothing to draw.
var ErrNoData = errors.New("chart: nothing to draw")

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

// padded returns lo and hi, a finite range, each moved outwards by frac of
// the span (frac ≥ 0), without overflow: an end that would pass
// ±MaxFloat64 stops there.
func padded(lo, hi, frac float64) (float64, float64) {
	d := (hi - lo) * frac
	if math.IsInf(d, 0) {
		d = (hi/2 - lo/2) * (2 * frac)
	}
	return math.Max(lo-d, -math.MaxFloat64), math.Min(hi+d, math.MaxFloat64)
}

func xys(pts []Point) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return out
}
