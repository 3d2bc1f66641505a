package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report/chart"
)

// The charts of a sweep of several series: where a one-series chart
// tells levels or statistics apart by colour, these give the colour to
// the series and split the rest into small multiples (see series.go).

// latencySeriesChart draws p50, p95 and p99 of one latency metric against
// the load, one panel each, every drawn series a line of its own colour
// and marker with ± MAD error bars, the series at one level set slightly
// apart.
func latencySeriesChart(s *analyze.Summary, m chartMetric, sv seriesView) (*Plot, error) {
	name, unit := chartStatLabel(s, m.key+".p50", m.name, "ms")
	v := viewOf(s)
	levels := chartLevels(s)
	lines := chartLines(s, v, sv)
	legend := chart.NewLegend()
	var used chartUsed
	var alt []string
	var panels []*plot.Plot
	var sloSentence string
	anyLog, sloNamed := false, false
	for _, stat := range []string{"p50", "p95", "p99"} {
		p := chartNewPlot()
		chart.SmallText(p)
		p.Title.Text = stat
		p.Y.Label.Text = fmt.Sprintf("%s (%s)", name, unit)
		lo, hi := math.Inf(1), math.Inf(-1)
		drawn := 0
		for li, ln := range lines {
			pts := medianPoints(s, ln.levels, m.key+"."+stat, &used,
				func(x float64) float64 { return levels.dodge(x, li, len(lines)) },
				func(load ingest.LoadLevel) string { return fmt.Sprintf("%s at %s of %s", stat, v.name(load), ln.name) })
			xys, exys, errs, vals := pts.xys, pts.bars, pts.errs, pts.vals
			lo, hi = math.Min(lo, pts.lo), math.Max(hi, pts.hi)
			if len(xys) == 0 {
				continue
			}
			drawn++
			ls, gs := chart.SeriesStyle(ln.style)
			var lg *plot.Legend
			if stat == "p50" {
				lg = &legend
			}
			if err := chartAddLinePoints(p, lg, ln.name, xys, ls, gs); err != nil {
				return nil, fmt.Errorf("plot latency-%s: %w", m.key, err)
			}
			if len(exys) > 0 {
				if err := chartAddYErrors(p, exys, errs, ls.Color); err != nil {
					return nil, fmt.Errorf("plot latency-%s: %w", m.key, err)
				}
			}
			alt = append(alt, fmt.Sprintf("%s of %s (%s)", stat, ln.name, strings.Join(vals, ", ")))
		}
		if drawn == 0 {
			continue
		}
		chartLevelAxis(p, s)
		logY := chartLogAxis(lo, hi)
		if logY {
			chart.SetLogScale(&p.Y)
			chartLogFloor(&p.Y)
			anyLog = true
		} else {
			chart.FromZero(&p.Y)
		}
		// The SLO line is named once in the legend, from the first panel
		// that draws it within reach. A target out of reach is said in
		// the caption only: a note at the edge of each narrow panel would
		// run into the data.
		if n, target, ok := chartSLO(s, m.key); ok && unit == "ms" {
			label, stretch, sentence := chartSLOLine(n, unit, target, lo, hi, logY, false)
			if stretch {
				line := &chart.HLine{Y: target, Style: chart.ReferenceStyle, Label: label, Stretch: true}
				p.Add(line)
				if !sloNamed {
					legend.Add(label, line)
					sloNamed, sloSentence = true, sentence
				}
			}
			if !sloNamed {
				sloSentence = strings.Replace(sentence, " (noted at the edge)", "", 1)
			}
		}
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	title := name + " percentiles vs " + v.noun()
	// Two to a row: three in one row leave too little width for the
	// level axis beside a legend of long series names.
	svg, err := chart.Figure{Title: title, Grid: chart.Rows(panels, min(len(panels), 2)), Legend: &legend}.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot latency-%s: %w", m.key, err)
	}
	sample := chartStatSample(s, m.key+".p50")
	caption := fmt.Sprintf("Per-run p50, p95 and p99 of client %s (%s sample, %s), one panel each (two to a row): median across runs with ± %s error bars, one line per series; %s. At each %s the series sit slightly apart (in legend order) so their bars do not overlap.",
		name, sample, chartPercentilePhrase(s), chartMADPhrase(s), used.runsPhrase(), v.perLevel()) + used.notes(s)
	if anyLog {
		caption += " A panel whose values span more than 10× has a logarithmic latency axis."
	}
	if levels.log {
		caption += fmt.Sprintf(" The %s axis is logarithmic.", v.noun())
	}
	caption += sloSentence + sv.sentence()
	return &Plot{
		Name:    "latency-" + m.key,
		Title:   title,
		Caption: caption,
		Alt: fmt.Sprintf("Three line charts of %s p50, p95 and p99 in %s against %s, one line per series; medians across runs (%s: value) are %s.",
			name, unit, v.noun(), v.noun(), strings.Join(alt, "; ")) + sloSentence,
		SVG: svg,
	}, nil
}

// runsSpreadSeriesChart draws each run's value of a few per-run
// statistics per level, the series side by side in their colours, each
// series' median across runs a bar of its colour.
func runsSpreadSeriesChart(s *analyze.Summary, sv seriesView) (*Plot, error) {
	type panel struct{ key, name, unit string }
	var panels []panel
	for _, m := range []chartMetric{chartTTFT, chartTPOT, chartE2E} {
		name, unit := chartStatLabel(s, m.key+".p95", m.name, "ms")
		panels = append(panels, panel{m.key + ".p95", "p95 " + name, unit})
	}
	_, rateUnit := chartStatLabel(s, chartOutputRate, "output tokens/s", "tokens/s")
	panels = append(panels, panel{chartOutputRate, "output tokens/s (server counters)", rateUnit})

	v := viewOf(s)
	loads := drawnLoads(s, sv)
	n := len(sv.drawn)
	width := 0.7 / float64(n)
	var used chartUsed
	var plots []*plot.Plot
	var names, logNames []string
	for _, pn := range panels {
		p := chartNewPlot()
		chart.SmallText(p)
		p.Title.Text = "per-run " + pn.name
		lo, hi := math.Inf(1), math.Inf(-1)
		p.Y.Label.Text = pn.unit
		var ticks []plot.Tick
		for i, load := range loads {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: v.number(load)})
		}
		drew := false
		for ci, ser := range sv.drawn {
			_, gs := chart.SeriesStyle(ci)
			gs.Radius = vg.Points(2.2)
			dots, err := spreadSeriesLevels(p, s, ser, pn.key, loads, spreadSlot{ci, width}, gs, &used, &lo, &hi)
			if err != nil {
				return nil, err
			}
			if len(dots) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(dots)
			if err != nil {
				return nil, fmt.Errorf("plot runs-spread: %w", err)
			}
			sc.GlyphStyle = gs
			p.Add(sc)
			drew = true
		}
		if !drew {
			continue
		}
		p.X.Label.Text = v.axisLabel()
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.5, float64(len(loads))-0.5
		if chartLogAxis(lo, hi) {
			chart.SetLogScale(&p.Y)
			chartLogFloor(&p.Y)
			logNames = append(logNames, pn.name)
		}
		plots = append(plots, p)
		names = append(names, pn.name)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	title := "Run-to-run spread"
	legend := chart.NewLegend()
	for ci, ser := range sv.drawn {
		_, gs := chart.SeriesStyle(ci)
		gs.Radius = vg.Points(2.2)
		legend.Add(sv.label(ser), &plotter.Scatter{GlyphStyle: gs})
	}
	legend.Add("median (bar)", &plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}})
	svg, err := chart.Figure{Title: title, Grid: chart.Rows(plots, min(len(plots), 2)), Legend: &legend}.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot runs-spread: %w", err)
	}
	caption := fmt.Sprintf("Each run's own value of %s at each "+v.perLevel()+": one dot per run in its series' colour and marker, the series side by side (each spread sideways in repeat order so equal values stay visible; runs without a value are not drawn), a bar of the series' colour = its median across runs. Latency percentiles are per-run %s of the %s sample",
		chartJoinAnd(names), chartPercentilePhrase(s), chartStatSample(s, "ttft.p95"))
	if names[len(names)-1] == panels[len(panels)-1].name {
		caption += fmt.Sprintf("; output tokens/s is from server counters (%s)", chartStatSample(s, chartOutputRate))
	}
	caption += "; " + used.runsPhrase() + "." + used.notes(s) + chartLogSentence(logNames) + sv.sentence()
	return &Plot{
		Name:    "runs-spread",
		Title:   title,
		Caption: caption,
		Alt:     fmt.Sprintf("Dot plots, one panel each for %s, showing every run's value per %s (%s) and series, with each series' median across runs marked.", chartJoinAnd(names), v.perLevel(), v.list(loads)),
		SVG:     svg,
	}, nil
}

// spreadSlot is a series' place beside the others at a level of the
// run-to-run spread chart: the index-th of slots width wide.
type spreadSlot struct {
	index int
	width float64
}

// spreadSeriesLevels draws series ser's median bar of statistic key at
// each of its levels in panel p and returns the dots of its runs, each
// level's spread sideways in repeat order; lo and hi widen to the values
// drawn, used notes the medians drawn.
func spreadSeriesLevels(p *plot.Plot, s *analyze.Summary, ser ingest.Series, key string, loads []ingest.LoadLevel, slot spreadSlot, gs draw.GlyphStyle, used *chartUsed, lo, hi *float64) (plotter.XYs, error) {
	width := slot.width
	var dots plotter.XYs
	for _, l := range levelsOf(s, ser) {
		i := -1
		for k, load := range loads {
			if load == l.Load() {
				i = k
			}
		}
		st, ok := l.Stat(key)
		if !ok || i < 0 {
			continue
		}
		center := float64(i) - 0.35 + width*(float64(slot.index)+0.5)
		k := len(st.PerRun)
		for r, val := range st.PerRun {
			if !val.Valid() {
				continue
			}
			dx := 0.0
			if k > 1 {
				dx = (float64(r) - float64(k-1)/2) * width * 0.5 / float64(k-1)
			}
			dots = append(dots, plotter.XY{X: center + dx, Y: float64(val)})
			*lo, *hi = math.Min(*lo, float64(val)), math.Max(*hi, float64(val))
		}
		if st.Median.Valid() {
			used.add(l.Load(), st)
			med, err := plotter.NewLine(plotter.XYs{{X: center - width*0.4, Y: float64(st.Median)}, {X: center + width*0.4, Y: float64(st.Median)}})
			if err != nil {
				return nil, fmt.Errorf("plot runs-spread: %w", err)
			}
			med.LineStyle = draw.LineStyle{Color: gs.Color, Width: vg.Points(1.5)}
			p.Add(med)
		}
	}
	return dots, nil
}

// cdfSeriesChart draws the pooled CDF of one latency metric, one panel
// per load level, one line per series.
func cdfSeriesChart(s *analyze.Summary, m chartMetric, sv seriesView) (*Plot, error) {
	name, unit := chartStatLabel(s, m.key+".p50", m.name, "ms")
	v := viewOf(s)
	loads := drawnLoads(s, sv)
	var sample string
	lo, hi := math.Inf(1), math.Inf(-1)
	type line struct {
		panel, style int
		xys          plotter.XYs
	}
	var lines []line
	var counts, missing []string
	for _, l := range s.Levels {
		ci := sv.index(l.Series)
		if ci < 0 {
			continue
		}
		pts, dist := m.cdf(l)
		xys := chartCDFSteps(pts)
		if len(xys) == 0 {
			missing = append(missing, v.short(l.Load())+" of "+sv.label(l.Series))
			continue
		}
		if sample == "" {
			sample = dist.Sample
		}
		for _, pt := range xys {
			lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
		}
		panel := 0
		for k, load := range loads {
			if load == l.Load() {
				panel = k
			}
		}
		lines = append(lines, line{panel, ci, xys})
		counts = append(counts, fmt.Sprintf("%s of %s: n = %d", v.short(l.Load()), sv.label(l.Series), dist.N))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	logX := chartLogAxis(lo, hi)
	var plots []*plot.Plot
	var sloSentence string
	sloInLegend := false
	for k, load := range loads {
		p := chartNewPlot()
		chart.SmallText(p)
		p.Title.Text = v.name(load)
		p.X.Label.Text = fmt.Sprintf("%s (%s)", name, unit)
		p.Y.Label.Text = "fraction of requests"
		drew := false
		for _, ln := range lines {
			if ln.panel != k {
				continue
			}
			pl, err := plotter.NewLine(ln.xys)
			if err != nil {
				return nil, fmt.Errorf("plot cdf-%s: %w", m.key, err)
			}
			pl.StepStyle = plotter.PostStep
			pl.LineStyle, _ = chart.SeriesStyle(ln.style)
			p.Add(pl)
			drew = true
		}
		if !drew {
			plots = append(plots, nil) // an empty tile: no series has requests there
			continue
		}
		// One axis for every panel, so that the series compare across
		// levels too.
		p.X.Min, p.X.Max = lo, hi
		if logX {
			chart.SetLogScale(&p.X)
			// Up to three tiles to a row.
			p.X.Tick.Marker = chart.LogTicks{Narrow: true}
		}
		p.Y.Min, p.Y.Max = 0, 1
		throwaway := chart.NewLegend()
		sloSentence, sloInLegend = chartAddSLO(p, &throwaway, s, m.key, unit, lo, hi, logX, true)
		chartPadLow(&p.X, logX, 0.02)
		plots = append(plots, p)
	}
	grid := chart.Rows(plots, min(len(plots), 3))
	legend := chart.NewLegend()
	for ci, ser := range sv.drawn {
		ls, _ := chart.SeriesStyle(ci)
		legend.Add(sv.label(ser), &plotter.Line{LineStyle: ls})
	}
	if sloInLegend {
		n, target, _ := chartSLO(s, m.key)
		label, _, _ := chartSLOLine(n, unit, target, lo, hi, logX, true)
		legend.Add(label, &chart.VLine{Style: chart.ReferenceStyle})
	}
	title := "Pooled " + name + " distribution"
	svg, err := chart.Figure{Title: title, Grid: grid, Legend: &legend}.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot cdf-%s: %w", m.key, err)
	}
	if sample == "" {
		sample = analyze.SamplePooled
	}
	caption := fmt.Sprintf("Empirical CDF of client %s pooled over every measured request of each level's runs%s, drawn as steps through the quantile points stored in the summary (%s, p = 0.01 … 1); one panel per %s on one shared %s axis, one line per series (%s). Each line rises from 0 at its p = 0.01 value, the lowest point the summary stores.",
		name, chartPooledSample(sample), analyze.NearestRank, v.perLevel(), name, strings.Join(counts, "; "))
	if logX {
		caption += fmt.Sprintf(" The %s axis is logarithmic.", name)
	}
	caption += sloSentence
	if len(missing) > 0 {
		caption += fmt.Sprintf(" Not drawn (no requests): %s.", strings.Join(missing, "; "))
	}
	caption += sv.sentence()
	return &Plot{
		Name:    "cdf-" + m.key,
		Title:   title,
		Caption: caption,
		Alt:     fmt.Sprintf("Cumulative distributions of %s in %s, one panel per %s (%s), one line per series; cumulative fraction from 0 to 1 on the vertical axes.", name, unit, v.perLevel(), v.list(loads)) + sloSentence,
		SVG:     svg,
	}, nil
}

// seriesLoadName names a level of a series in a panel title: the labels
// that differ, and the load.
func seriesLoadName(sv seriesView, v levelView, k analyze.LevelKey) string {
	return sv.label(k.Series) + ", " + v.name(k.Load())
}
