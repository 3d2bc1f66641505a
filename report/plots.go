package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report/chart"
)

// Plot is one rendered chart.
type Plot struct {
	// Name is the file base name: "latency-ttft" is written as
	// plots/latency-ttft.svg.
	Name  string
	Title string
	// Caption says which sample and statistic the chart shows.
	Caption string
	// Alt is a text alternative for readers who cannot see the chart.
	Alt string
	// SVG is a standalone SVG document (see InlineSVG for HTML).
	SVG []byte
}

// Plots draws the report's charts from the summary, in a fixed order:
// latency-ttft, latency-tpot, latency-e2e, throughput-ttft,
// throughput-tpot, runs-spread, cdf-ttft, cdf-tpot, cdf-e2e, lengths,
// warmup, goodput, pareto. A chart with no data in the summary is left
// out without error. With several series, every chart tells them apart
// (series.go).
//
// Plots only draws: every value comes from the summary as it is, and
// values that are not available (NaN) are never drawn. The same summary
// always gives byte-identical SVG. The charts are in the style of package
// chart, shared with compare and history (docs/charts.md).
func Plots(s *analyze.Summary) ([]Plot, error) {
	if s == nil {
		return nil, errors.New("plots: nil summary")
	}
	builders := []func(*analyze.Summary) (*Plot, error){
		func(s *analyze.Summary) (*Plot, error) { return latencyChart(s, chartTTFT) },
		func(s *analyze.Summary) (*Plot, error) { return latencyChart(s, chartTPOT) },
		func(s *analyze.Summary) (*Plot, error) { return latencyChart(s, chartE2E) },
		func(s *analyze.Summary) (*Plot, error) { return throughputChart(s, chartTTFT) },
		func(s *analyze.Summary) (*Plot, error) { return throughputChart(s, chartTPOT) },
		runsSpreadChart,
		func(s *analyze.Summary) (*Plot, error) { return cdfChart(s, chartTTFT) },
		func(s *analyze.Summary) (*Plot, error) { return cdfChart(s, chartTPOT) },
		func(s *analyze.Summary) (*Plot, error) { return cdfChart(s, chartE2E) },
		lengthsChart,
	}
	warmupAt := len(builders)
	builders = append(builders, warmupChart, goodputChart, paretoChart)
	// The charts are independent: they are drawn side by side, and kept
	// in builder order. The warm-up chart, which draws every run's series
	// and takes longest, starts first, so that the others fill the other
	// cores instead of waiting for it at the end.
	order := []int{warmupAt}
	for i := range builders {
		if i != warmupAt {
			order = append(order, i)
		}
	}
	built := make([]*Plot, len(builders))
	errs := make([]error, len(builders))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, i := range order {
		build := builders[i]
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			built[i], errs[i] = build(s)
		}()
	}
	wg.Wait()
	var out []Plot
	for i, p := range built {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// chartMetric is one client latency metric.
type chartMetric struct {
	key  string // prefix of the AcrossRuns keys, "ttft"
	name string // fallback display name when the summary has none
	cdf  func(analyze.Level) ([]analyze.CDFPoint, analyze.Distribution)
}

var (
	chartTTFT = chartMetric{"ttft", "TTFT", func(l analyze.Level) ([]analyze.CDFPoint, analyze.Distribution) { return l.CDFTTFT, l.PooledTTFT }}
	chartTPOT = chartMetric{"tpot", "TPOT", func(l analyze.Level) ([]analyze.CDFPoint, analyze.Distribution) { return l.CDFTPOT, l.PooledTPOT }}
	chartE2E  = chartMetric{"e2e", "E2E latency", func(l analyze.Level) ([]analyze.CDFPoint, analyze.Distribution) { return l.CDFE2E, l.PooledE2E }}
)

// chartOutputRate is the key of the server output token rate.
const chartOutputRate = "throughput.output_tokens_per_s"

// chartGoodput is the key of the goodput percentage.
const chartGoodput = "goodput.percent"

// chartStatLabel returns the metric name and unit of an across-runs
// statistic as the summary labels it, with fallbacks when no level has it.
func chartStatLabel(s *analyze.Summary, key, name, unit string) (string, string) {
	for _, l := range s.Levels {
		if st, ok := l.Stat(key); ok {
			if st.Metric != "" {
				name = st.Metric
			}
			if st.Unit != "" {
				unit = st.Unit
			}
			return name, unit
		}
	}
	return name, unit
}

// chartStatSample returns the sample of an across-runs statistic, as a
// caption writes it inside parentheses (see chartFlat).
func chartStatSample(s *analyze.Summary, key string) string {
	for _, l := range s.Levels {
		if st, ok := l.Stat(key); ok && st.Sample != "" {
			return chartFlat(st.Sample)
		}
	}
	return ""
}

// chartFlat rewrites a phrase with a parenthesis of its own for a
// caption that puts it inside parentheses: "pooled per-gap (all runs)"
// becomes "pooled per-gap, all runs", never "(pooled per-gap (all runs))".
func chartFlat(phrase string) string {
	return strings.NewReplacer(" (", ", ", "(", "", ")", "").Replace(phrase)
}

// chartPooledSample is what a CDF caption says of its sample after
// "pooled over every measured request of each level's runs": nothing for
// the pooled per-request sample, which that phrase already describes,
// else the sample in parentheses.
func chartPooledSample(sample string) string {
	if sample == analyze.SamplePooled {
		return ""
	}
	return " (sample: " + chartFlat(sample) + ")"
}

// chartLoads returns every level's load, in level order.
func chartLoads(s *analyze.Summary) []ingest.LoadLevel {
	out := make([]ingest.LoadLevel, 0, len(s.Levels))
	for _, l := range s.Levels {
		out = append(out, l.Load())
	}
	return out
}

// medianLine is one across-runs statistic drawn over levels: each level's
// median (xys), the medians that have a MAD (bars) with their ± MAD
// (errs), the values for the text alternative, and how far the bars reach.
type medianLine struct {
	xys, bars plotter.XYs
	errs      plotter.YErrors
	vals      []string
	lo, hi    float64
}

// medianPoints draws statistic key of each level at its load (moved by
// dodge), recording what it drew in used; a level without a median is
// recorded as missing, named by missing.
func medianPoints(s *analyze.Summary, levels []analyze.Level, key string, used *chartUsed, dodge func(float64) float64, missing func(ingest.LoadLevel) string) medianLine {
	v := viewOf(s)
	ml := medianLine{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, l := range levels {
		load := l.Load()
		st, ok := l.Stat(key)
		if !ok || !st.Median.Valid() {
			used.missing = append(used.missing, missing(load))
			continue
		}
		used.add(load, st)
		x := dodge(axisX(s, load))
		y := float64(st.Median)
		ml.xys = append(ml.xys, plotter.XY{X: x, Y: y})
		ml.vals = append(ml.vals, fmt.Sprintf("%s: %s", v.number(load), chartNum(y)))
		spread := 0.0
		if st.MAD.Valid() {
			spread = float64(st.MAD)
			ml.bars = append(ml.bars, plotter.XY{X: x, Y: y})
			ml.errs = append(ml.errs, struct{ Low, High float64 }{spread, spread})
		}
		ml.lo, ml.hi = math.Min(ml.lo, y-spread), math.Max(ml.hi, y+spread)
	}
	return ml
}

// chartUsed records which across-runs statistics a chart drew, for the
// caption's run counts and few-runs warning.
type chartUsed struct {
	minRuns, maxRuns int
	few              []ingest.LoadLevel // levels with fewer runs than Method.MinRuns
	missing          []string
}

func (u *chartUsed) add(level ingest.LoadLevel, st analyze.AcrossRuns) {
	if u.maxRuns == 0 || st.Runs < u.minRuns {
		u.minRuns = st.Runs
	}
	if st.Runs > u.maxRuns {
		u.maxRuns = st.Runs
	}
	// Each level once, however many panels or statistics draw it.
	if st.FewRuns && !slices.Contains(u.few, level) {
		u.few = append(u.few, level)
	}
}

// runsPhrase says how many runs each drawn median rests on.
func (u *chartUsed) runsPhrase() string {
	switch {
	case u.maxRuns == 0:
		return ""
	case u.minRuns == u.maxRuns:
		return fmt.Sprintf("n = %d %s per level", u.maxRuns, textfmt.Plural(u.maxRuns, "run", "runs"))
	default:
		return fmt.Sprintf("n = %d–%d runs per level", u.minRuns, u.maxRuns)
	}
}

// notes returns the caption's closing sentences.
func (u *chartUsed) notes(s *analyze.Summary) string {
	var b strings.Builder
	if len(u.few) > 0 && len(u.few) == len(loads(s)) {
		fmt.Fprintf(&b, " Every level has fewer than %d runs: drawn all the same, read with care.", chartMinRuns(s))
	} else if len(u.few) > 0 {
		v := viewOf(s)
		what := textfmt.Plural(len(u.few), "Concurrency", "Concurrency levels")
		if !v.concurrencyOnly() {
			what = textfmt.Plural(len(u.few), "Level", "Levels")
		}
		fmt.Fprintf(&b, " %s %s (fewer than %d runs): drawn all the same, read with care.",
			what, v.list(u.few), chartMinRuns(s))
	}
	if len(u.missing) > 0 {
		fmt.Fprintf(&b, " Not drawn (no value): %s.", strings.Join(u.missing, "; "))
	}
	return b.String()
}

func chartMinRuns(s *analyze.Summary) int {
	if s.Method.MinRuns > 0 {
		return s.Method.MinRuns
	}
	return analyze.MinRuns
}

// chartMADPhrase names the MAD form in use.
func chartMADPhrase(s *analyze.Summary) string {
	switch s.Method.MAD {
	case "":
		return "MAD"
	case "scaled":
		return "scaled MAD"
	case "raw":
		return "raw MAD"
	}
	return "MAD (" + s.Method.MAD + ")"
}

// chartPercentilePhrase names the percentile method in use.
func chartPercentilePhrase(s *analyze.Summary) string {
	if s.Method.Percentile == "" {
		return "percentiles"
	}
	return s.Method.Percentile + " percentiles"
}

// latencyChart draws p50/p95/p99 of one latency metric against
// concurrency: medians across runs with ± MAD error bars, the three set
// slightly apart at each level so their bars do not overlap, and the
// metric's SLO target as a labelled reference line.
func latencyChart(s *analyze.Summary, m chartMetric) (*Plot, error) {
	sv := seriesViewOf(s)
	if sv.several() {
		return latencySeriesChart(s, m, sv)
	}
	name, unit := chartStatLabel(s, m.key+".p50", m.name, "ms")
	v := viewOf(s)
	p := chartNewPlot()
	p.Title.Text = name + " percentiles vs " + v.noun()
	p.Y.Label.Text = fmt.Sprintf("%s (%s)", name, unit)
	legend := chart.NewLegend()
	levels := chartLevels(s)

	var used chartUsed
	var alt []string
	drawn := 0
	lo, hi := math.Inf(1), math.Inf(-1) // extent of the error bars
	stats := []string{"p50", "p95", "p99"}
	for i, stat := range stats {
		for k, ser := range v.series(s.Levels) {
			pts := medianPoints(s, ser.levels, m.key+"."+stat, &used,
				func(x float64) float64 { return levels.dodge(x, i, len(stats)) },
				func(load ingest.LoadLevel) string { return fmt.Sprintf("%s at %s", stat, v.name(load)) })
			xys, exys, errs, vals := pts.xys, pts.bars, pts.errs, pts.vals
			lo, hi = math.Min(lo, pts.lo), math.Max(hi, pts.hi)
			if len(xys) == 0 {
				continue
			}
			drawn++
			ls, gs := chart.SeriesStyle(i + 3*k)
			if err := chartAddLinePoints(p, &legend, stat+ser.suffix, xys, ls, gs); err != nil {
				return nil, fmt.Errorf("plot latency-%s: %w", m.key, err)
			}
			if len(exys) > 0 {
				if err := chartAddYErrors(p, exys, errs, ls.Color); err != nil {
					return nil, fmt.Errorf("plot latency-%s: %w", m.key, err)
				}
			}
			alt = append(alt, fmt.Sprintf("%s%s (%s)", stat, ser.suffix, strings.Join(vals, ", ")))
		}
	}
	if drawn == 0 {
		return nil, nil
	}
	chartLevelAxis(p, s)
	// A level that queues can sit orders of magnitude above the others:
	// then a log axis keeps the lower levels readable.
	logY := chartLogAxis(lo, hi)
	if logY {
		chart.SetLogScale(&p.Y)
		chartLogFloor(&p.Y)
	} else {
		chart.FromZero(&p.Y)
	}
	sloSentence, inLegend := chartAddSLO(p, &legend, s, m.key, unit, lo, hi, logY, false)
	chartAddHeadroom(&p.Y, logY, chartSLONotedAbove(s, m.key, unit, hi, inLegend))

	svg, err := chartSingle(s, p, &legend).SVG()
	if err != nil {
		return nil, fmt.Errorf("plot latency-%s: %w", m.key, err)
	}
	sample := chartStatSample(s, m.key+".p50")
	caption := fmt.Sprintf("Per-run p50/p95/p99 of client %s (%s sample, %s), median across runs with ± %s error bars; %s. At each %s p50, p95 and p99 sit slightly apart (in that order) so their bars do not overlap.",
		name, sample, chartPercentilePhrase(s), chartMADPhrase(s), used.runsPhrase(), v.perLevel()) + used.notes(s)
	switch {
	case logY && levels.log:
		caption += fmt.Sprintf(" The latency and %s axes are logarithmic.", v.noun())
	case logY:
		caption += " The latency axis is logarithmic."
	case levels.log:
		caption += fmt.Sprintf(" The %s axis is logarithmic.", v.noun())
	}
	caption += sloSentence + sv.sentence()
	return &Plot{
		Name:    "latency-" + m.key,
		Title:   p.Title.Text,
		Caption: caption,
		Alt: fmt.Sprintf("Line chart of %s p50, p95 and p99 in %s against %s; medians across runs (%s: value) are %s.",
			name, unit, v.noun(), v.noun(), strings.Join(alt, "; ")) + sloSentence,
		SVG: svg,
	}, nil
}

// throughputChart draws median server output tokens/s against the median
// per-run p95 of one latency metric, one point per level.
func throughputChart(s *analyze.Summary, m chartMetric) (*Plot, error) {
	name, unit := chartStatLabel(s, m.key+".p95", m.name, "ms")
	v := viewOf(s)
	sv := seriesViewOf(s)
	p := chartNewPlot()
	p.Title.Text = "p95 " + name + " vs output throughput"
	p.X.Label.Text = "output tokens/s (server counters)"
	p.Y.Label.Text = fmt.Sprintf("p95 %s (%s)", name, unit)

	name2 := "throughput-" + m.key
	d := throughputDrawn{lo: math.Inf(1), hi: math.Inf(-1)}
	drawn := 0
	// The legend names the series, when there are several, and the SLO.
	sloLegend := chart.NewLegend()
	for _, ln := range chartLines(s, v, sv) {
		pts := d.points(ln, m, unit, v, sv)
		if len(pts.xys) == 0 {
			continue
		}
		drawn++
		var lg *plot.Legend
		if sv.several() {
			lg = &sloLegend
		}
		// Labels of several series would run into each other: the
		// caption says the points are joined in load order.
		if err := addThroughputLine(p, lg, ln, pts, !sv.several()); err != nil {
			return nil, fmt.Errorf("plot %s: %w", name2, err)
		}
	}
	if drawn == 0 {
		return nil, nil
	}
	lo, hi := d.lo, d.hi
	chart.FromZero(&p.X)
	// Levels far apart (one that queues) would flatten the others
	// against a linear axis from zero.
	logY := chartLogAxis(lo, hi)
	if logY {
		chart.SetLogScale(&p.Y)
		chartLogFloor(&p.Y)
	} else {
		chart.FromZero(&p.Y)
		lo = 0
	}
	// Leave room right of the last point for its label ("c=16"), which
	// would otherwise be clipped at the edge of the data area.
	p.X.Max *= 1.08
	sloSentence, inLegend := chartAddSLO(p, &sloLegend, s, m.key, unit, lo, hi, logY, false)
	chartAddHeadroom(&p.Y, logY, chartSLONotedAbove(s, m.key, unit, hi, inLegend))
	var legend *plot.Legend // only for the series and an SLO line
	if inLegend || sv.several() {
		legend = &sloLegend
	}

	svg, err := chartSingle(s, p, legend).SVG()
	if err != nil {
		return nil, fmt.Errorf("plot %s: %w", name2, err)
	}
	caption := throughputCaption(s, m, name, v, sv, d.used)
	if logY {
		caption += chartLogSentence([]string{"p95 " + name})
	}
	caption += sloSentence + sv.sentence()
	return &Plot{
		Name:    name2,
		Title:   p.Title.Text,
		Caption: caption,
		Alt:     fmt.Sprintf("Scatter chart of p95 %s (%s) against output tokens/s, one labelled point per %s: %s.", name, unit, v.perLevel(), strings.Join(d.alt, "; ")) + sloSentence,
		SVG:     svg,
	}, nil
}

// throughputDrawn is what the throughput chart's caption, alt text and
// axis need of the points drawn: the figures used, each point's alt
// text, and the extent of the latency error bars.
type throughputDrawn struct {
	used   chartUsed
	alt    []string
	lo, hi float64
}

// throughputPoints is one line of the throughput chart: its points with
// their labels, and the points with a throughput or latency MAD with
// their error bars.
type throughputPoints struct {
	xys, exys, eyys plotter.XYs
	xerrs           plotter.XErrors
	yerrs           plotter.YErrors
	labels          []string
}

// points makes ln's points, each level with both a median output rate
// and a median p95 of m (the others noted missing), and notes them.
func (d *throughputDrawn) points(ln chartLine, m chartMetric, unit string, v levelView, sv seriesView) throughputPoints {
	var out throughputPoints
	for _, l := range ln.levels {
		load := l.Load()
		rate, okR := l.Stat(chartOutputRate)
		lat, okL := l.Stat(m.key + ".p95")
		if !okR || !okL || !rate.Median.Valid() || !lat.Median.Valid() {
			d.used.missing = append(d.used.missing, v.name(load))
			continue
		}
		d.used.add(load, rate)
		d.used.add(load, lat)
		pt := plotter.XY{X: float64(rate.Median), Y: float64(lat.Median)}
		out.xys = append(out.xys, pt)
		out.labels = append(out.labels, v.short(load))
		where := v.name(load)
		if sv.several() {
			where += " of " + ln.name
		}
		d.alt = append(d.alt, fmt.Sprintf("%s: %s tokens/s, %s %s", where, chartNum(pt.X), chartNum(pt.Y), unit))
		if rate.MAD.Valid() {
			out.exys = append(out.exys, pt)
			out.xerrs = append(out.xerrs, struct{ Low, High float64 }{float64(rate.MAD), float64(rate.MAD)})
		}
		top, bottom := pt.Y, pt.Y
		if lat.MAD.Valid() {
			out.eyys = append(out.eyys, pt)
			out.yerrs = append(out.yerrs, struct{ Low, High float64 }{float64(lat.MAD), float64(lat.MAD)})
			top += float64(lat.MAD)
			bottom -= float64(lat.MAD)
		}
		d.lo, d.hi = math.Min(d.lo, bottom), math.Max(d.hi, top)
	}
	return out
}

// addThroughputLine draws one line of the throughput chart in its
// series' style: the points joined, their error bars both ways, and,
// when labelled, each point's level below and to the right of it.
func addThroughputLine(p *plot.Plot, lg *plot.Legend, ln chartLine, pts throughputPoints, labelled bool) error {
	ls, gs := chart.SeriesStyle(ln.style)
	if err := chartAddLinePoints(p, lg, ln.name, pts.xys, ls, gs); err != nil {
		return err
	}
	if len(pts.exys) > 0 {
		eb, err := plotter.NewXErrorBars(struct {
			plotter.XYs
			plotter.XErrors
		}{pts.exys, pts.xerrs})
		if err != nil {
			return err
		}
		eb.LineStyle.Color = ls.Color
		p.Add(eb)
	}
	if len(pts.eyys) > 0 {
		if err := chartAddYErrors(p, pts.eyys, pts.yerrs, ls.Color); err != nil {
			return err
		}
	}
	if !labelled {
		return nil
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts.xys, Labels: pts.labels})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = chart.Font(p.X.Tick.Label.Font.Size)
	}
	// Below and to the right of the point: clear of a curve that rises.
	lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-13)}
	p.Add(lb)
	return nil
}

// throughputCaption says what the throughput chart's axes, points and
// error bars are, before its log-axis, SLO and series sentences.
func throughputCaption(s *analyze.Summary, m chartMetric, name string, v levelView, sv seriesView, used chartUsed) string {
	points := "one point per concurrency level (c=…), joined in concurrency order"
	switch {
	case v.mixed:
		points = "one point per load level, concurrency levels and request rates joined as separate series in level order"
	case !v.concurrencyOnly():
		points = "one point per request rate, joined in rate order"
	}
	if sv.several() {
		points = "one point per level of each series, joined in load order, the lowest load at the start of each line (the alt text lists them)"
	}
	return fmt.Sprintf("Median across runs of server output tokens/s (%s) against the median across runs of per-run p95 client %s (%s sample, %s); %s, with ± %s error bars in both directions; %s. Server counters and client timings are separate measurements, shown side by side and not joined.",
		chartStatSample(s, chartOutputRate), name, chartStatSample(s, m.key+".p95"), chartPercentilePhrase(s), points, chartMADPhrase(s), used.runsPhrase()) + used.notes(s)
}

// runsSpreadChart draws each run's value of a few per-run statistics per
// level as dots, with the median across runs as a bar.
func runsSpreadChart(s *analyze.Summary) (*Plot, error) {
	sv := seriesViewOf(s)
	if sv.several() {
		return runsSpreadSeriesChart(s, sv)
	}
	panels := runsSpreadPanels(s)
	v := viewOf(s)
	levels := chartLoads(s)
	var used chartUsed
	var plots []*plot.Plot
	var names, logNames []string
	for _, pn := range panels {
		p, logY, err := runsSpreadPanel(s, v, pn, len(levels), &used)
		if err != nil {
			return nil, fmt.Errorf("plot runs-spread: %w", err)
		}
		if p == nil {
			continue
		}
		if logY {
			logNames = append(logNames, pn.name)
		}
		plots = append(plots, p)
		names = append(names, pn.name)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	title := "Run-to-run spread"
	dotStyle, medianStyle := runsSpreadStyles()
	legend := chart.NewLegend()
	legend.Add("one run", &plotter.Scatter{GlyphStyle: dotStyle})
	legend.Add("median", &plotter.Line{LineStyle: medianStyle})
	fig := chart.Figure{Title: title, Grid: chart.Rows(plots, min(len(plots), 2)), Legend: &legend}
	if chartCompact(s) {
		fig.Height = vg.Length(len(fig.Grid))*chartCompactTile + vg.Points(28)
	}
	svg, err := fig.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot runs-spread: %w", err)
	}
	caption := fmt.Sprintf("Each run's own value of %s at each "+v.perLevel()+": one dot per run (spread sideways in repeat order so equal values stay visible; runs without a value are not drawn), black bar = median across runs. Latency percentiles are per-run %s of the %s sample",
		chartJoinAnd(names), chartPercentilePhrase(s), chartStatSample(s, "ttft.p95"))
	if slices.Contains(names, panels[len(panels)-1].name) {
		caption += fmt.Sprintf("; output tokens/s is from server counters (%s)", chartStatSample(s, chartOutputRate))
	}
	caption += "; " + used.runsPhrase() + "." + used.notes(s) + chartLogSentence(logNames) + sv.sentence()
	return &Plot{
		Name:    "runs-spread",
		Title:   title,
		Caption: caption,
		Alt:     fmt.Sprintf("Dot plots, one panel each for %s, showing every run's value per %s (%s) with the median across runs marked.", chartJoinAnd(names), v.perLevel(), v.list(levels)),
		SVG:     svg,
	}, nil
}

// runsSpreadStyles are the run-to-run spread's styles: a dot per run, a
// bar at the median.
func runsSpreadStyles() (dot draw.GlyphStyle, median draw.LineStyle) {
	return draw.GlyphStyle{Color: chart.Palette[0], Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}},
		draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}
}

// runsSpreadStat is one panel of the run-to-run spread: the statistic's
// key, its display name and its unit.
type runsSpreadStat struct{ key, name, unit string }

// runsSpreadPanels are the run-to-run spread's panels: p95 TTFT, TPOT
// and E2E, then the server's output tokens/s.
func runsSpreadPanels(s *analyze.Summary) []runsSpreadStat {
	var panels []runsSpreadStat
	for _, m := range []chartMetric{chartTTFT, chartTPOT, chartE2E} {
		name, unit := chartStatLabel(s, m.key+".p95", m.name, "ms")
		panels = append(panels, runsSpreadStat{m.key + ".p95", "p95 " + name, unit})
	}
	_, rateUnit := chartStatLabel(s, chartOutputRate, "output tokens/s", "tokens/s")
	return append(panels, runsSpreadStat{chartOutputRate, "output tokens/s (server counters)", rateUnit})
}

// runsSpreadPanel draws one statistic's panel: each run's value as a dot
// per level, the median across runs as a bar. It returns a nil plot when
// no run has a value, and whether the y axis is logarithmic.
func runsSpreadPanel(s *analyze.Summary, v levelView, pn runsSpreadStat, nLevels int, used *chartUsed) (*plot.Plot, bool, error) {
	dotStyle, medianStyle := runsSpreadStyles()
	p := chartNewPlot()
	chart.SmallText(p)
	// The title names the statistic and the axis only its unit: a
	// long rotated label would run past a tile's height into the
	// title above it.
	p.Title.Text = "per-run " + pn.name
	p.Y.Label.Text = pn.unit
	var dots plotter.XYs
	var ticks []plot.Tick
	drew := false
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, l := range s.Levels {
		label := v.number(l.Load())
		if chartCompact(s) {
			// The tick names the one level; no axis label below it.
			label = v.name(l.Load())
		}
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: label})
		st, ok := l.Stat(pn.key)
		if !ok {
			continue
		}
		k := len(st.PerRun)
		for r, v := range st.PerRun {
			if !v.Valid() {
				continue
			}
			// Spread the runs sideways in repeat order so equal
			// values stay visible.
			dx := 0.0
			if k > 1 {
				dx = (float64(r) - float64(k-1)/2) * 0.4 / float64(k-1)
			}
			dots = append(dots, plotter.XY{X: float64(i) + dx, Y: float64(v)})
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
			drew = true
		}
		if st.Median.Valid() {
			used.add(l.Load(), st)
			med, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.3, Y: float64(st.Median)}, {X: float64(i) + 0.3, Y: float64(st.Median)}})
			if err != nil {
				return nil, false, err
			}
			med.LineStyle = medianStyle
			p.Add(med)
		}
	}
	if !drew {
		return nil, false, nil
	}
	sc, err := plotter.NewScatter(dots)
	if err != nil {
		return nil, false, err
	}
	sc.GlyphStyle = dotStyle
	p.Add(sc)
	p.X.Label.Text = v.axisLabel()
	if chartCompact(s) {
		p.X.Label.Text = ""
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(nLevels)-0.5
	logY := chartLogAxis(lo, hi)
	if logY {
		chart.SetLogScale(&p.Y)
		chartLogFloor(&p.Y)
	}
	return p, logY, nil
}

// cdfChart draws the pooled CDF of one latency metric, one line per
// level, on an axis that starts where the data start, with the metric's
// SLO target as a labelled vertical line.
func cdfChart(s *analyze.Summary, m chartMetric) (*Plot, error) {
	sv := seriesViewOf(s)
	if sv.several() {
		return cdfSeriesChart(s, m, sv)
	}
	name, unit := chartStatLabel(s, m.key+".p50", m.name, "ms")
	p := chartNewPlot()
	p.Title.Text = "Pooled " + name + " distribution"
	p.X.Label.Text = fmt.Sprintf("%s (%s)", name, unit)
	p.Y.Label.Text = "cumulative fraction of requests"
	legend := chart.NewLegend()

	var sample, method string
	lo, hi := math.Inf(1), math.Inf(-1)
	v := viewOf(s)
	var drawnLevels, missing []ingest.LoadLevel
	var feet []string // levels whose first step is long: see chartCDFGap
	for i, l := range s.Levels {
		pts, dist := m.cdf(l)
		xys := chartCDFSteps(pts)
		for _, pt := range xys {
			lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
		}
		if len(xys) >= 3 && xys[1].X > 0 && xys[2].X >= chartCDFGap*xys[1].X {
			pct := func(p float64) string { return strconv.FormatFloat(100*p, 'g', 3, 64) + " %" }
			feet = append(feet, fmt.Sprintf("%s: %s of requests by %s %s, %s by %s %s",
				v.short(l.Load()), pct(xys[1].Y), chartNum(xys[1].X), unit, pct(xys[2].Y), chartNum(xys[2].X), unit))
		}
		if len(xys) == 0 {
			missing = append(missing, l.Load())
			continue
		}
		if sample == "" {
			sample, method = dist.Sample, dist.Method
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot cdf-%s: %w", m.key, err)
		}
		line.StepStyle = plotter.PostStep
		line.LineStyle, _ = chart.SeriesStyle(i)
		p.Add(line)
		legend.Add(fmt.Sprintf("%s (n=%d)", v.short(l.Load()), dist.N), line)
		drawnLevels = append(drawnLevels, l.Load())
	}
	if len(drawnLevels) == 0 {
		return nil, nil
	}
	// Latency tails and levels far apart squeeze the fast levels against
	// the axis; a log scale keeps every curve readable.
	logX := chartLogAxis(lo, hi)
	if logX {
		chart.SetLogScale(&p.X)
	}
	p.Y.Min, p.Y.Max = 0, 1
	sloSentence, _ := chartAddSLO(p, &legend, s, m.key, unit, lo, hi, logX, true)
	// A little room left of the first rise, so it is not drawn on the
	// edge of the data area; the axis starts where the data start, never
	// at a zero the data are far from.
	chartPadLow(&p.X, logX, 0.02)

	svg, err := chart.Single(p, &legend).SVG()
	if err != nil {
		return nil, fmt.Errorf("plot cdf-%s: %w", m.key, err)
	}
	if sample == "" {
		sample = analyze.SamplePooled
	}
	// The summary samples every CDF at nearest-rank quantiles, whatever
	// percentile method the tables use.
	method = analyze.NearestRank
	caption := fmt.Sprintf("Empirical CDF of client %s pooled over every measured request of each level's runs%s, drawn as steps through the quantile points stored in the summary (%s, p = 0.01 … 1); one line per %s, n = requests pooled. Each line rises from 0 at its p = 0.01 value, the lowest point the summary stores.",
		name, chartPooledSample(sample), method, v.perLevel())
	if logX {
		caption += fmt.Sprintf(" The %s axis is logarithmic.", name)
	}
	if len(feet) > 0 {
		caption += fmt.Sprintf(" A line's long flat foot is real: a few requests finished far sooner than the rest (%s).", strings.Join(feet, "; "))
	}
	caption += sloSentence
	if len(missing) > 0 {
		if v.concurrencyOnly() {
			caption += fmt.Sprintf(" Not drawn (no requests): concurrency %s.", v.list(missing))
		} else {
			caption += fmt.Sprintf(" Not drawn (no requests): %s.", v.list(missing))
		}
	}
	caption += sv.sentence()
	return &Plot{
		Name:    "cdf-" + m.key,
		Title:   p.Title.Text,
		Caption: caption,
		Alt:     fmt.Sprintf("Cumulative distribution of %s in %s, one line per %s (%s); cumulative fraction from 0 to 1 on the vertical axis.", name, unit, v.perLevel(), v.list(drawnLevels)) + sloSentence,
		SVG:     svg,
	}, nil
}

// chartCDFSteps returns the points of a CDF line: the summary's valid
// quantile points, preceded by a rise from 0 at the first value. The
// summary stores no quantile below its first p, so without the rise a
// line would float above the axis where the data start.
func chartCDFSteps(pts []analyze.CDFPoint) plotter.XYs {
	var xys plotter.XYs
	for _, pt := range pts {
		if !pt.Value.Valid() || math.IsNaN(pt.P) || math.IsInf(pt.P, 0) {
			continue
		}
		if len(xys) == 0 {
			xys = append(xys, plotter.XY{X: float64(pt.Value), Y: 0})
		}
		xys = append(xys, plotter.XY{X: float64(pt.Value), Y: pt.P})
	}
	return xys
}

// chartCDFGap is the ratio of a CDF's second quantile point to its first
// from which the caption explains the long flat foot that the line draws
// between them (requests that failed fast or returned almost nothing).
const chartCDFGap = 2

// chartPadLow moves an axis's lower end down by frac of its span (on a
// log axis, of its span in decades), not below zero on a linear one.
func chartPadLow(a *plot.Axis, logAxis bool, frac float64) {
	if !(a.Max > a.Min) {
		return
	}
	if logAxis {
		// Not to zero, which a log axis cannot show (a span of more decades
		// than float64 has below a subnormal end): then no room at all.
		if lo := a.Min / math.Pow(a.Max/a.Min, frac); lo > 0 {
			a.Min = lo
		}
		return
	}
	lo := a.Min - frac*(a.Max-a.Min)
	if a.Min >= 0 && lo < 0 {
		lo = 0
	}
	a.Min = lo
}

// lengthsChart draws the prompt and output length histograms of every
// level as outlines, each over the level's own bins.
func lengthsChart(s *analyze.Summary) (*Plot, error) {
	type side struct {
		label string
		unit  string
		bins  func(analyze.Level) []analyze.HistogramBin
	}
	sides := []side{
		{"prompt length", "tokens", func(l analyze.Level) []analyze.HistogramBin { return l.Workload.PromptHistogram }},
		{"output length", "tokens", func(l analyze.Level) []analyze.HistogramBin { return l.Workload.OutputHistogram }},
	}
	if len(s.Levels) > 0 {
		if u := s.Levels[0].Workload.PromptTokens.Unit; u != "" {
			sides[0].unit = u
		}
		if u := s.Levels[0].Workload.OutputTokens.Unit; u != "" {
			sides[1].unit = u
		}
	}
	var plots []*plot.Plot
	var names []string
	var drawnLevels []ingest.LoadLevel
	v := viewOf(s)
	sv := seriesViewOf(s)
	var drawnSeries []ingest.Series
	legend := chart.NewLegend()
	for _, sd := range sides {
		p := chartNewPlot()
		chart.SmallText(p)
		p.Title.Text = sd.label
		p.X.Label.Text = fmt.Sprintf("%s (%s)", sd.label, sd.unit)
		p.Y.Label.Text = "requests per bin"
		drawn := 0
		for i, l := range s.Levels {
			outline := chartStepOutline(sd.bins(l))
			style := i
			if sv.several() {
				// One colour per series: its levels share it.
				style = sv.index(l.Series)
			}
			if len(outline) == 0 || style < 0 {
				continue
			}
			line, err := plotter.NewLine(outline)
			if err != nil {
				return nil, fmt.Errorf("plot lengths: %w", err)
			}
			line.LineStyle, _ = chart.SeriesStyle(style)
			p.Add(line)
			drawn++
			if sv.several() {
				if !slices.Contains(drawnSeries, l.Series) {
					drawnSeries = append(drawnSeries, l.Series)
					legend.Add(sv.label(l.Series), line)
				}
				if !slices.Contains(drawnLevels, l.Load()) {
					drawnLevels = append(drawnLevels, l.Load())
				}
				continue
			}
			if !slices.Contains(drawnLevels, l.Load()) {
				// Both panels give level i the same style.
				drawnLevels = append(drawnLevels, l.Load())
				legend.Add(v.short(l.Load()), line)
			}
		}
		if drawn == 0 {
			continue
		}
		chart.FromZero(&p.X)
		chart.FromZero(&p.Y)
		plots = append(plots, p)
		names = append(names, sd.label)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	title := "Request lengths"
	svg, err := chart.Figure{Title: title, Grid: [][]*plot.Plot{plots}, Legend: &legend}.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot lengths: %w", err)
	}
	caption := fmt.Sprintf("Histograms of %s of the measured requests, pooled over each level's runs: one outline per %s, each drawn over that level's own equal-width bins. Bins differ between levels, so counts are not summed across levels; heights are requests per bin of that level.",
		chartJoinAnd(names), v.perLevel())
	if sv.several() {
		caption += " The levels of one series share its colour."
	}
	caption += sv.sentence()
	return &Plot{
		Name:    "lengths",
		Title:   title,
		Caption: caption,
		Alt:     fmt.Sprintf("Histogram outlines of %s in tokens, one outline per %s (%s).", chartJoinAnd(names), v.perLevel(), v.list(drawnLevels)),
		SVG:     svg,
	}, nil
}

// chartStepOutline turns histogram bins [Lo, Hi) into the outline of
// their bars, down to zero at both ends and across gaps.
func chartStepOutline(bins []analyze.HistogramBin) plotter.XYs {
	var out plotter.XYs
	open := false
	var last float64
	for _, b := range bins {
		if math.IsNaN(b.Lo) || math.IsNaN(b.Hi) || math.IsInf(b.Lo, 0) || math.IsInf(b.Hi, 0) || b.Hi < b.Lo {
			continue
		}
		c := float64(b.Count)
		if open && b.Lo != last {
			out = append(out, plotter.XY{X: last, Y: 0})
			open = false
		}
		if !open {
			out = append(out, plotter.XY{X: b.Lo, Y: 0})
		}
		out = append(out, plotter.XY{X: b.Lo, Y: c}, plotter.XY{X: b.Hi, Y: c})
		last, open = b.Hi, true
	}
	if open {
		out = append(out, plotter.XY{X: last, Y: 0})
	}
	return out
}

// goodputChart draws the goodput percentage against concurrency.
func goodputChart(s *analyze.Summary) (*Plot, error) {
	v := viewOf(s)
	sv := seriesViewOf(s)
	p := chartNewPlot()
	p.Title.Text = "Goodput vs " + v.noun()
	p.Y.Label.Text = "goodput (% of measured requests)"
	var used chartUsed
	var alt []string
	var legend *plot.Legend
	if v.mixed || sv.several() {
		l := chart.NewLegend()
		legend = &l
	}
	drawn := 0
	for _, ln := range chartLines(s, v, sv) {
		var xys, exys plotter.XYs
		var errs plotter.YErrors
		for _, l := range ln.levels {
			load := l.Load()
			st, ok := l.Stat(chartGoodput)
			if !ok || !st.Median.Valid() {
				used.missing = append(used.missing, v.name(load))
				continue
			}
			used.add(load, st)
			pt := plotter.XY{X: axisX(s, load), Y: float64(st.Median)}
			xys = append(xys, pt)
			where := v.number(load)
			if sv.several() {
				where += " of " + ln.name
			}
			alt = append(alt, fmt.Sprintf("%s: %s%%", where, chartNum(pt.Y)))
			if st.MAD.Valid() {
				exys = append(exys, pt)
				errs = append(errs, struct{ Low, High float64 }{float64(st.MAD), float64(st.MAD)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		drawn++
		ls, gs := chart.SeriesStyle(ln.style)
		if err := chartAddLinePoints(p, legend, ln.name, xys, ls, gs); err != nil {
			return nil, fmt.Errorf("plot goodput: %w", err)
		}
		if len(exys) > 0 {
			if err := chartAddYErrors(p, exys, errs, ls.Color); err != nil {
				return nil, fmt.Errorf("plot goodput: %w", err)
			}
		}
	}
	if drawn == 0 {
		return nil, nil
	}
	chartLevelAxis(p, s)
	// A level at 100 % clear of the top of the frame.
	p.Y.Min, p.Y.Max = 0, 100*(1+chartHeadroom)

	svg, err := chartSingle(s, p, legend).SVG()
	if err != nil {
		return nil, fmt.Errorf("plot goodput: %w", err)
	}
	caption := fmt.Sprintf("Per-run goodput (%s), median across runs with ± %s error bars (clipped to 0–100 %%); %s; %s.",
		chartStatSample(s, chartGoodput), chartMADPhrase(s), chartSLOPhrase(s.Method.SLO), used.runsPhrase()) + used.notes(s) + sv.sentence()
	return &Plot{
		Name:    "goodput",
		Title:   p.Title.Text,
		Caption: caption,
		Alt:     fmt.Sprintf("Line chart of goodput in percent (0 to 100) against %s; medians across runs (%s: value) are %s.", v.noun(), v.noun(), strings.Join(alt, ", ")),
		SVG:     svg,
	}, nil
}

// chartSLOPhrase lists the targets that were applied.
func chartSLOPhrase(slo analyze.SLO) string {
	if !slo.Set() {
		return "no SLO targets recorded"
	}
	return "SLO: " + slo.Targets()
}

// chartNewPlot returns a plot in the shared chart style whose x axis is,
// until chartLevelAxis says otherwise, the concurrency.
func chartNewPlot() *plot.Plot {
	return chart.NewPlot("", "concurrency (requests in flight)", "")
}

// chartAddLinePoints adds a line with markers, and an entry to legend
// when it is not nil.
func chartAddLinePoints(p *plot.Plot, legend *plot.Legend, name string, xys plotter.XYs, ls draw.LineStyle, gs draw.GlyphStyle) error {
	line, sc, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.LineStyle = ls
	sc.GlyphStyle = gs
	p.Add(line, sc)
	if legend != nil {
		legend.Add(name, line, sc)
	}
	return nil
}

// chartAddYErrors adds vertical error bars.
func chartAddYErrors(p *plot.Plot, xys plotter.XYs, errs plotter.YErrors, c color.Color) error {
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return err
	}
	eb.LineStyle.Color = c
	p.Add(eb)
	return nil
}

// chartLevelRange is the extent of a level axis and whether it is drawn
// on a log scale: when every level is positive and they span 8× or more.
type chartLevelRange struct {
	lo, hi float64
	log    bool
}

func chartLevels(s *analyze.Summary) chartLevelRange {
	r := chartLevelRange{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, l := range s.Levels {
		x := axisX(s, l.Load())
		r.lo, r.hi = math.Min(r.lo, x), math.Max(r.hi, x)
	}
	r.log = len(s.Levels) > 0 && r.lo > 0 && r.hi >= 8*r.lo
	return r
}

// chartDodgeStep is how far apart, as a fraction of the level axis, the
// statistics drawn at one level are set so that their error bars do not
// overlap: 1.5 % is some 10 pt on a full-width chart, more than a
// marker's 6 pt and an error bar cap's 5 pt.
const chartDodgeStep = 0.015

// chartLevelPad is the room left beyond the first and last level, as a
// fraction of the level axis.
const chartLevelPad = 0.04

// dodge returns level x moved sideways for statistic i of n, centred on
// x: by chartDodgeStep of the axis per step, measured in log space on a
// log axis. A single level gets the ±1 range gonum gives a flat axis.
func (r chartLevelRange) dodge(x float64, i, n int) float64 {
	f := (float64(i) - float64(n-1)/2) * chartDodgeStep
	switch {
	case r.log:
		return x * math.Pow(r.hi/r.lo, f)
	case r.hi > r.lo:
		return x + f*(r.hi-r.lo)
	}
	return x + 2*f
}

// chartLevelAxis sets up a chart's level axis: the concurrency axis for a
// sweep of concurrency levels; otherwise an axis of request rates (rate
// inf drawn at twice the highest finite level, ticked "inf"), or of both
// when a sweep mixes them, labelled with what it shows and, when the
// levels span 8× or more, drawn on a log scale that the label names.
func chartLevelAxis(p *plot.Plot, s *analyze.Summary) {
	v := viewOf(s)
	r := chartLevels(s)
	p.X.Label.Text = v.axisLabel()
	if len(s.Levels) == 0 {
		return
	}
	if r.log {
		chart.SetLogScale(&p.X)
	}
	// Some room beyond the first and last level, wider than the dodge,
	// so no marker or error bar sits on the edge of the data area.
	lo, hi := r.lo, r.hi
	switch {
	case r.log:
		f := math.Pow(r.hi/r.lo, chartLevelPad)
		lo, hi = r.lo/f, r.hi*f
	case r.hi > r.lo:
		lo, hi = r.lo-chartLevelPad*(r.hi-r.lo), r.hi+chartLevelPad*(r.hi-r.lo)
	default:
		lo, hi = r.lo-1, r.hi+1
	}
	p.X.Min = math.Min(p.X.Min, lo)
	p.X.Max = math.Max(p.X.Max, hi)
	var ticks []plot.Tick
	seen := map[float64]bool{}
	for _, l := range s.Levels {
		load := l.Load()
		x := axisX(s, load)
		if seen[x] {
			continue
		}
		seen[x] = true
		label := ingest.FormatRate(load.Value())
		if v.concurrencyOnly() {
			label = strconv.Itoa(l.Concurrency)
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: label})
	}
	switch {
	case len(ticks) <= 12:
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	case r.log && v.concurrencyOnly():
		// Powers of two, the usual concurrency steps.
		ticks = ticks[:0]
		// Up to 2^62: doubling further overflows int.
		for k := 0; k < 63; k++ {
			c := 1 << k
			if float64(c) > r.hi {
				break
			}
			if float64(c) >= r.lo {
				ticks = append(ticks, plot.Tick{Value: float64(c), Label: strconv.Itoa(c)})
			}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
}

// chartLogSpan is the ratio of largest to smallest value beyond which a
// value axis is drawn on a log scale: past 10× the lowest values would
// be squeezed into the bottom tenth of a linear axis.
const chartLogSpan = 10

// chartLogAxis reports whether values from lo to hi are drawn on a log
// axis: when all are positive and hi is more than chartLogSpan × lo.
func chartLogAxis(lo, hi float64) bool {
	return lo > 0 && hi > chartLogSpan*lo
}

// chartCompact reports whether the charts against the level axis are
// drawn compact: a sweep of one level puts its few points at one place on
// that axis, which a full-size frame would leave empty.
func chartCompact(s *analyze.Summary) bool { return len(s.Levels) == 1 }

// chartSingle is the figure of one plot, compact (chart.CompactWidth ×
// chart.CompactHeight) when chartCompact says so.
func chartSingle(s *analyze.Summary, p *plot.Plot, legend *plot.Legend) chart.Figure {
	f := chart.Single(p, legend)
	if chartCompact(s) {
		f.Width, f.Height = chart.CompactWidth, chart.CompactHeight
	}
	return f
}

// chartCompactTile is the height of a row of tiles of a compact chart
// (see chartCompact): one level needs no room for a level axis label.
const chartCompactTile vg.Length = 170

// chartHeadroom is the room left above the highest value of a value
// axis, as a fraction of its span (in decades on a log axis), so that no
// marker or error bar touches the top of the frame; chartNoteHeadroom
// when a line of text (an SLO target above the axis) is noted there.
const (
	chartHeadroom     = 0.05
	chartNoteHeadroom = 0.15
)

// chartAddHeadroom raises the top of a value axis by chartHeadroom, or by
// chartNoteHeadroom when a note sits at the top.
func chartAddHeadroom(a *plot.Axis, logAxis, note bool) {
	if !(a.Max > a.Min) || math.IsInf(a.Max-a.Min, 0) {
		return
	}
	f := chartHeadroom
	if note {
		f = chartNoteHeadroom
	}
	if logAxis {
		if top := a.Max * math.Pow(a.Max/a.Min, f); a.Min > 0 && !math.IsInf(top, 0) {
			a.Max = top
		}
		return
	}
	if top := a.Max + f*(a.Max-a.Min); !math.IsInf(top, 0) {
		a.Max = top
	}
}

// chartSLONotedAbove reports whether chartAddSLO noted the target of
// metric key at the top edge: applied, in the axis's unit, not in the
// legend, above the data's top hi.
func chartSLONotedAbove(s *analyze.Summary, key, unit string, hi float64, inLegend bool) bool {
	_, target, ok := chartSLO(s, key)
	return ok && unit == "ms" && !inLegend && target > hi
}

// chartLogFloor moves the lower end of a log axis down to the nearest
// 1, 2 or 5 × 10^k at or below it, the values LogTicks labels, so that
// the lowest points have a labelled tick beneath them: without it, data
// from 115 to 6000 ms show no label below 200.
func chartLogFloor(a *plot.Axis) {
	if !(a.Min > 0) || math.IsInf(a.Min, 0) {
		return
	}
	e := math.Pow(10, math.Floor(math.Log10(a.Min)))
	for _, m := range []float64{5, 2, 1} {
		if v := m * e; v <= a.Min*(1+1e-9) {
			a.Min = math.Min(a.Min, v)
			return
		}
	}
}

// chartLogSentence is the caption's sentence naming the panels drawn on a
// log axis (see chartLogAxis), "" when none is.
func chartLogSentence(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" The %s axis is logarithmic: its values span more than %d×.", names[0], chartLogSpan)
	}
	return fmt.Sprintf(" The %s axes are logarithmic: their values span more than %d×.", chartJoinAnd(names), chartLogSpan)
}

// chartSLO returns the name and SLO target of a latency metric in ms,
// and whether one was applied (the summary records 0 or NaN for none).
func chartSLO(s *analyze.Summary, key string) (string, float64, bool) {
	var name string
	var v analyze.Num
	switch key {
	case "ttft":
		name, v = "TTFT", s.Method.SLO.TTFTms
	case "tpot":
		name, v = "TPOT", s.Method.SLO.TPOTms
	case "e2e":
		name, v = "E2E", s.Method.SLO.E2Ems
	default:
		return "", 0, false
	}
	return name, float64(v), v.Valid() && v > 0
}

// chartSLOStretch is how far past the data an axis is stretched to show
// an SLO line: at most to 1.5× the largest value (or, on a log axis, half
// the smallest), so the data keep two thirds of the height. A target
// further out is named at the edge instead (see chart.HLine).
const chartSLOStretch = 1.5

// chartAddSLO draws the SLO target of latency metric key, when one was
// applied and the axis is in ms, as a reference line across p: on the y
// axis, or on the x axis when vertical, whose data run from lo to hi. A
// line within reach of the data is named in legend (inLegend); one far
// outside is noted at the edge. The caption's sentence about it is
// returned, "" when there is no target.
func chartAddSLO(p *plot.Plot, legend *plot.Legend, s *analyze.Summary, key, unit string, lo, hi float64, logAxis, vertical bool) (sentence string, inLegend bool) {
	name, target, ok := chartSLO(s, key)
	if !ok || unit != "ms" {
		return "", false
	}
	label, stretch, sentence := chartSLOLine(name, unit, target, lo, hi, logAxis, vertical)
	var line interface {
		plot.Plotter
		plot.Thumbnailer
	}
	if vertical {
		line = &chart.VLine{X: target, Style: chart.ReferenceStyle, Label: label, Stretch: stretch}
	} else {
		line = &chart.HLine{Y: target, Style: chart.ReferenceStyle, Label: label, Stretch: stretch}
	}
	p.Add(line)
	if stretch {
		legend.Add(label, line)
	}
	return sentence, stretch
}

// chartSLOLine returns the label of the reference line of an SLO target
// of target ms, on an axis whose data run from lo to hi (vertical: the
// x axis), whether the axis should stretch to show it, and the caption's
// sentence about it. name is the metric ("TTFT"), unit the axis unit.
func chartSLOLine(name, unit string, target, lo, hi float64, logAxis, vertical bool) (label string, stretch bool, sentence string) {
	value := strconv.FormatFloat(target, 'g', -1, 64) + " " + unit
	label = fmt.Sprintf("SLO: %s ≤ %s", name, value)
	stretch = target <= hi*chartSLOStretch && (!logAxis || target >= lo/chartSLOStretch)
	where := ""
	switch {
	case stretch:
		return label, true, fmt.Sprintf(" Dashed grey line: the %s SLO that goodput uses (≤ %s).", name, value)
	case target > hi && vertical:
		where = "right of"
	case target > hi:
		where = "above"
	case vertical:
		where = "left of"
	default:
		where = "below"
	}
	return label, false, fmt.Sprintf(" The %s SLO that goodput uses (≤ %s) lies %s the drawn range (noted at the edge).", name, value, where)
}

// chartNum formats a value to about three significant digits.
func chartNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

func chartJoinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func chartHasInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
