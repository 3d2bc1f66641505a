package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report/chart"
)

// paretoChart draws the Pareto figures analyze computed (Summary.Pareto):
// output tokens/s per GPU against output tokens/s per user, one point per
// level of each series with its ± MAD, the frontier, and the levels that
// fail the SLOs hollow. It is absent, and plotAbsent says why, when no
// level has both figures.
func paretoChart(s *analyze.Summary) (*Plot, error) {
	pa := s.Pareto
	drawable := false
	for _, pt := range pa.Points {
		drawable = drawable || pt.Drawable()
	}
	if !drawable {
		return nil, nil
	}
	v := viewOf(s)
	sv := seriesViewOf(s)
	pc := newParetoChart(pa, sv)
	d := paretoDrawn{others: map[string]bool{}, gpus: map[int]bool{}, keys: map[string]bool{}}
	for _, pt := range pa.Points {
		if cp, ok := d.add(pt, pa, v, sv); ok {
			pc.Points = append(pc.Points, cp)
		}
	}
	if len(pc.Points) == 0 {
		return nil, nil
	}
	if len(d.others) > 0 {
		pc.OtherName = fmt.Sprintf("%d other series", len(d.others))
	}
	svg, err := pc.SVG()
	if err != nil {
		return nil, fmt.Errorf("plot pareto: %w", err)
	}
	return &Plot{
		Name:    "pareto",
		Title:   pc.Title,
		Caption: d.caption(s, v, sv, pc.OtherName),
		Alt: fmt.Sprintf("Scatter chart of output tokens/s per user against output tokens/s per %s, medians across runs ± MAD: %s.",
			paretoPer(pa), strings.Join(d.alt, "; ")),
		SVG: svg,
	}, nil
}

// newParetoChart is the Pareto chart's titles, axes and groups (one per
// series drawn, or the one level's series), without its points.
func newParetoChart(pa analyze.Pareto, sv seriesView) chart.Pareto {
	pc := chart.Pareto{
		Title:        "Output tokens/s per " + paretoPer(pa) + " vs per user",
		XLabel:       "output tokens/s per GPU",
		YLabel:       "output tokens/s per user (median user TPS)",
		FailName:     "fails the SLOs (hollow)",
		FrontierName: "Pareto frontier",
	}
	if pa.Per != analyze.ParetoPerGPU {
		pc.XLabel = "output tokens/s per server (GPU count not recorded)"
	}
	if sv.several() {
		for _, ser := range sv.drawn {
			pc.Groups = append(pc.Groups, sv.label(ser))
		}
	} else {
		name := "one level (median ± MAD)"
		if len(sv.all) == 1 && !sv.all[0].IsZero() {
			name = sv.all[0].String()
		}
		pc.Groups = []string{name}
	}
	return pc
}

// paretoDrawn is what the caption and alt text say of the points drawn:
// the figures used, each point's alt text, the levels not drawn, the
// series left to the other group, the GPU counts, the throughput keys and
// the SLO verdicts.
type paretoDrawn struct {
	used            chartUsed
	alt, missing    []string
	others          map[string]bool
	gpus            map[int]bool
	keys            map[string]bool
	fails, verdicts int
}

// add makes pt's chart point and notes it, or notes it missing and says
// false when it has not both figures.
func (d *paretoDrawn) add(pt analyze.ParetoPoint, pa analyze.Pareto, v levelView, sv seriesView) (chart.ParetoPoint, bool) {
	load := pt.Load()
	where := v.name(load)
	if sv.several() {
		where += " of " + sv.label(pt.Series)
	}
	if !pt.Drawable() {
		d.missing = append(d.missing, where+" ("+pt.Unavailable+")")
		return chart.ParetoPoint{}, false
	}
	g := 0
	if sv.several() {
		g = sv.index(pt.Series)
		if g < 0 {
			d.others[pt.Series.String()] = true
		}
	}
	x, y := pt.Throughput, pt.UserTPS
	cp := chart.ParetoPoint{X: float64(x.Median), Y: float64(y.Median), Group: g, Frontier: pt.OnFrontier}
	if x.MAD.Valid() {
		cp.XErr = float64(x.MAD)
	}
	if y.MAD.Valid() {
		cp.YErr = float64(y.MAD)
	}
	if pt.MeetsSLO != nil {
		d.verdicts++
		if !*pt.MeetsSLO {
			cp.Fails = true
			d.fails++
		}
	}
	if !sv.several() {
		cp.Label = v.short(load)
	}
	d.used.add(load, x)
	d.used.add(load, y)
	d.gpus[pt.GPUs] = true
	d.keys[strings.TrimSuffix(x.Key, "_per_gpu")] = true
	verdict := ""
	switch {
	case pt.MeetsSLO == nil:
	case *pt.MeetsSLO:
		verdict = ", meets the SLOs"
	default:
		verdict = ", fails the SLOs"
	}
	if pt.OnFrontier {
		verdict += ", on the frontier"
	}
	d.alt = append(d.alt, fmt.Sprintf("%s: %s ± %s tokens/s per %s, %s ± %s tokens/s per user%s",
		where, chartNum(cp.X), chartNum(cp.XErr), paretoPer(pa), chartNum(cp.Y), chartNum(cp.YErr), verdict))
	return cp, true
}

// caption says what a point, each axis, the error bars, the staircase
// and the hollow markers are, and what is not drawn.
func (d *paretoDrawn) caption(s *analyze.Summary, v levelView, sv seriesView, otherName string) string {
	pa := s.Pareto
	var b strings.Builder
	b.WriteString("One point per ")
	if sv.several() {
		b.WriteString(v.perLevel() + " of each series (its colour and marker)")
	} else {
		b.WriteString(v.perLevel())
	}
	fmt.Fprintf(&b, ". Horizontal: the median across runs of each run's %s", paretoRates(d.keys))
	switch {
	case pa.Per != analyze.ParetoPerGPU:
		fmt.Fprintf(&b, " per server: the %s, so the rate is not divided by it", strings.TrimSuffix(pa.PerNote, "."))
	case len(d.gpus) == 1:
		for n := range d.gpus {
			fmt.Fprintf(&b, " ÷ its GPU count (%d %s, the environment's gpu_count)", n, textfmt.Plural(n, "GPU", "GPUs"))
		}
	default:
		b.WriteString(" ÷ the GPU count its runs record (the environment's gpu_count)")
	}
	fmt.Fprintf(&b, ". Vertical: the median across runs of each run's median user TPS, (n − 1) / (E2E − TTFT) per request with n ≥ 2 output tokens (%s; never 1 / median TPOT). Error bars: ± %s across runs, both ways (stopped at zero); %s.",
		chartPercentilePhrase(s), chartMADPhrase(s), d.used.runsPhrase())
	b.WriteString(d.used.notes(s))
	b.WriteString(" Dashed staircase: the Pareto frontier, the points that no other point beats on both axes (higher is better on both), drawn whether or not they meet the SLOs; below and left of it lies what they dominate.")
	switch {
	case d.verdicts == 0:
		b.WriteString(" No level has an SLO verdict (" + chartSLOPhrase(s.Method.SLO) + "), so no marker is hollow.")
	case d.fails == 0:
		fmt.Fprintf(&b, " Every level drawn meets the SLOs (median goodput ≥ %s %%; %s).", strconv.FormatFloat(100*s.Method.SLO.Attainment, 'g', -1, 64), chartSLOPhrase(s.Method.SLO))
	default:
		fmt.Fprintf(&b, " Hollow markers: levels whose median goodput across runs is below %s %% (%s).", strconv.FormatFloat(100*s.Method.SLO.Attainment, 'g', -1, 64), chartSLOPhrase(s.Method.SLO))
	}
	if len(d.missing) > 0 {
		fmt.Fprintf(&b, " Not drawn: %s.", strings.Join(d.missing, "; "))
	}
	if len(d.others) > 0 {
		fmt.Fprintf(&b, " Grey: the %s the other charts leave out.", otherName)
	}
	b.WriteString(sv.sentence())
	return b.String()
}

// paretoPer is what the throughput is per: "GPU" or "server".
func paretoPer(pa analyze.Pareto) string {
	if pa.Per == analyze.ParetoPerGPU {
		return "GPU"
	}
	return "server"
}

// paretoRates names the output rates the points use.
func paretoRates(keys map[string]bool) string {
	var out []string
	if keys[analyze.KeyServerOutputRate] {
		out = append(out, "output tokens/s from the server's counters")
	}
	if keys[analyze.KeyClientOutputRate] {
		out = append(out, "output tokens/s from client records (where the counters are missing or suspect)")
	}
	if len(out) == 0 {
		return "output tokens/s"
	}
	return strings.Join(out, " or ")
}

// plotAbsent says why a chart of the notebook was not drawn, when the
// summary says it; "" when it does not.
func plotAbsent(s *analyze.Summary, name string) string {
	if name != "pareto" {
		return ""
	}
	if s.Pareto.Points == nil {
		return "the summary has no Pareto figures"
	}
	return s.Pareto.Unavailable
}
