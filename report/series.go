package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// How the charts draw a sweep of several series (configurations): one
// colour and marker per series, the legend naming each by the labels that
// differ between the series drawn, the labels they share in the caption.
// At most chartMaxSeries series are drawn; with more, the charts draw
// those with the highest output tokens/s per GPU at a level meeting the
// SLOs (the Pareto figures analyze computed) and the caption names the
// others. A sweep of one series is drawn as it always was.

// chartMaxSeries is the most series a chart tells apart: the palette's
// colours.
const chartMaxSeries = 8

// chartLabelRunes is the longest legend label, in characters; a longer
// one is cut with "…" and the caption gives it in full.
const chartLabelRunes = 40

// seriesView is the series a report's charts draw.
type seriesView struct {
	// all holds every series of the sweep in level order; drawn those
	// the charts draw (all of them, or the chartMaxSeries first by
	// rank), in level order; left the others, in level order.
	all, drawn, left []ingest.Series
	// differ names the labels whose values differ between the drawn
	// series; common holds the labels they share.
	differ []string
	common ingest.Series
	// cut lists the series whose legend label was shortened.
	cut []ingest.Series
	// per is what the ranking's throughput is per ("GPU", "server");
	// "" when the summary has no Pareto figures to rank by.
	per string
}

// seriesViewOf finds the series of a summary's levels.
func seriesViewOf(s *analyze.Summary) seriesView {
	var sv seriesView
	for _, l := range s.Levels {
		if !slices.Contains(sv.all, l.Series) {
			sv.all = append(sv.all, l.Series)
		}
	}
	sv.drawn = sv.all
	sv.per = s.Pareto.Per
	if len(sv.all) > chartMaxSeries {
		ranked := rankSeries(s, sv.all)
		keep := ranked[:chartMaxSeries]
		sv.drawn, sv.left = nil, nil
		for _, ser := range sv.all {
			if slices.Contains(keep, ser) {
				sv.drawn = append(sv.drawn, ser)
			} else {
				sv.left = append(sv.left, ser)
			}
		}
	}
	sv.differ, sv.common = ingest.Differing(sv.drawn)
	for _, ser := range sv.drawn {
		if utf8.RuneCountInString(ser.Only(sv.differ)) > chartLabelRunes {
			sv.cut = append(sv.cut, ser)
		}
	}
	return sv
}

// several reports whether the charts tell series apart.
func (sv seriesView) several() bool { return len(sv.all) > 1 }

// index is the style index of a drawn series, -1 for one not drawn.
func (sv seriesView) index(ser ingest.Series) int { return slices.Index(sv.drawn, ser) }

// label names a series in a legend: the labels that differ between the
// drawn series, shortened to chartLabelRunes characters.
func (sv seriesView) label(ser ingest.Series) string {
	l := ser.Only(sv.differ)
	if l == "" {
		return "(no label of " + strings.Join(sv.differ, ", ") + ")"
	}
	return textfmt.Clip(l, chartLabelRunes)
}

// levelsOf returns the levels of one series, in level order.
func levelsOf(s *analyze.Summary, ser ingest.Series) []analyze.Level {
	var out []analyze.Level
	for _, l := range s.Levels {
		if l.Series == ser {
			out = append(out, l)
		}
	}
	return out
}

// sentence is what a chart's caption says about the series: how many,
// which labels they share, the labels shortened in the legend, and which
// were left out. "" for a sweep of one unlabelled series.
func (sv seriesView) sentence() string {
	if len(sv.all) == 1 {
		if sv.all[0].IsZero() {
			return ""
		}
		return " Series: " + sv.all[0].String() + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, " One colour and marker per series (%d series", len(sv.drawn))
	if len(sv.differ) > 0 {
		fmt.Fprintf(&b, ", told apart by %s", strings.Join(sv.differ, ", "))
	}
	b.WriteString(")")
	if !sv.common.IsZero() {
		fmt.Fprintf(&b, "; every series has %s", sv.common.String())
	}
	b.WriteString(".")
	if len(sv.cut) > 0 {
		var full []string
		for _, ser := range sv.cut {
			full = append(full, ser.Only(sv.differ))
		}
		fmt.Fprintf(&b, " Shortened in the legend: %s.", strings.Join(full, "; "))
	}
	if len(sv.left) > 0 {
		var names []string
		for _, ser := range sv.left {
			names = append(names, ser.Only(sv.differ2()))
		}
		if sv.per == "" {
			fmt.Fprintf(&b, " Only the first %d series are drawn; left out (%d): %s.", len(sv.drawn), len(sv.left), strings.Join(names, "; "))
		} else {
			fmt.Fprintf(&b, " Only the %d series with the highest output tokens/s per %s at a level meeting the SLOs are drawn (then those highest at any level); left out (%d): %s.",
				len(sv.drawn), sv.per, len(sv.left), strings.Join(names, "; "))
		}
	}
	return b.String()
}

// differ2 names the labels that differ between all series, for naming
// those left out.
func (sv seriesView) differ2() []string {
	names, _ := ingest.Differing(sv.all)
	return names
}

// rankSeries orders series by the Pareto throughput analyze computed:
// first those with a level meeting the SLOs, by their highest median
// output tokens/s per GPU (or per server) at such a level; then the
// others by their highest median at any level; then the rest, in level
// order. It only picks among figures; it computes none.
func rankSeries(s *analyze.Summary, all []ingest.Series) []ingest.Series {
	type rank struct {
		ser         ingest.Series
		order       int
		meets, best float64
	}
	ranks := make([]rank, len(all))
	for i, ser := range all {
		ranks[i] = rank{ser: ser, order: i, meets: math.Inf(-1), best: math.Inf(-1)}
	}
	for _, pt := range s.Pareto.Points {
		i := slices.Index(all, pt.Series)
		if i < 0 || !pt.Throughput.Median.Valid() {
			continue
		}
		x := float64(pt.Throughput.Median)
		ranks[i].best = math.Max(ranks[i].best, x)
		if pt.MeetsSLO != nil && *pt.MeetsSLO {
			ranks[i].meets = math.Max(ranks[i].meets, x)
		}
	}
	sort.SliceStable(ranks, func(a, b int) bool {
		ra, rb := ranks[a], ranks[b]
		if ra.meets != rb.meets {
			return ra.meets > rb.meets
		}
		if ra.best != rb.best {
			return ra.best > rb.best
		}
		return ra.order < rb.order
	})
	out := make([]ingest.Series, len(ranks))
	for i, r := range ranks {
		out[i] = r.ser
	}
	return out
}

// chartLine is one line of a chart: the levels of one drawn series in one
// load mode.
type chartLine struct {
	// name is its legend entry; suffix names its mode when the sweep
	// mixes modes ("" otherwise).
	name, suffix string
	// style is its style index: the series' index, or for a sweep of
	// one series the mode's.
	style  int
	levels []analyze.Level
}

// chartLines splits the levels into the lines a chart draws: per drawn
// series, per load mode. For one series it is exactly levelView.series,
// so such a sweep is drawn as it always was.
func chartLines(s *analyze.Summary, v levelView, sv seriesView) []chartLine {
	if !sv.several() {
		var out []chartLine
		for k, ls := range v.series(s.Levels) {
			out = append(out, chartLine{name: strings.TrimSpace(strings.Trim(ls.suffix, " ()")), suffix: ls.suffix, style: k, levels: ls.levels})
		}
		return out
	}
	var out []chartLine
	modes := v.series(s.Levels)
	for mi, ls := range modes {
		for ci, ser := range sv.drawn {
			var levels []analyze.Level
			for _, l := range ls.levels {
				if l.Series == ser {
					levels = append(levels, l)
				}
			}
			if len(levels) == 0 {
				continue
			}
			out = append(out, chartLine{name: sv.label(ser) + ls.suffix, suffix: ls.suffix, style: ci + mi*len(sv.drawn), levels: levels})
		}
	}
	return out
}

// drawnLoads returns the distinct loads of the drawn series' levels, in
// load order (concurrency levels, then rates).
func drawnLoads(s *analyze.Summary, sv seriesView) []ingest.LoadLevel {
	var out []ingest.LoadLevel
	for _, l := range s.Levels {
		if sv.index(l.Series) >= 0 && !slices.Contains(out, l.Load()) {
			out = append(out, l.Load())
		}
	}
	slices.SortStableFunc(out, func(a, b ingest.LoadLevel) int { return a.Compare(b) })
	return out
}
