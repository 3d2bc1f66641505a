package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// A sweep of several series (configurations) names each by the labels
// that differ between them ("max_num_seqs=128"), the labels all share
// stated once. Every per-level table is then one table per series, each
// under its series' name: a Series column would repeat a name of up to
// 32 labels on every row and widen every table by it, pushing the numbers
// past the 760 pixels of a pull-request comment, while a line above each
// table names the series once and leaves the columns as they are. A sweep
// of one series renders exactly as before.

// seriesNaming names a sweep's series.
type seriesNaming struct {
	// list holds every series of the levels, runs and reported runs, in
	// series order.
	list      []ingest.Series
	differing []string
	common    ingest.Series
}

func seriesOf(s *analyze.Summary) seriesNaming {
	seen := map[ingest.Series]bool{}
	var v seriesNaming
	add := func(ser ingest.Series) {
		if !seen[ser] {
			seen[ser] = true
			v.list = append(v.list, ser)
		}
	}
	for _, l := range s.Levels {
		add(l.Series)
	}
	for _, r := range s.Runs {
		add(r.Series)
	}
	for _, r := range s.Reported {
		add(r.Series)
	}
	slices.SortStableFunc(v.list, ingest.Series.Compare)
	v.differing, v.common = ingest.Differing(v.list)
	return v
}

// several reports whether the sweep has more than one series.
func (v seriesNaming) several() bool { return len(v.list) > 1 }

// name is a series' name as text (escape it for Markdown): the labels
// that differ between series, "(no labels)" for the unlabelled one.
func (v seriesNaming) name(ser ingest.Series) string {
	if n := ser.Only(v.differing); n != "" {
		return n
	}
	return "(no labels)"
}

// commonPhrase states the labels every series shares, for a caption: "
// (every series has engine=vllm)", or "".
func (v seriesNaming) commonPhrase() string {
	if v.common.IsZero() {
		return ""
	}
	return " (every series has " + mdEscape(v.common.String()) + ")"
}

// levelGroup is the levels of one series.
type levelGroup struct {
	series ingest.Series
	levels []analyze.Level
}

// seriesGroups splits levels, in series order, into those of each series.
func seriesGroups(levels []analyze.Level) []levelGroup {
	var out []levelGroup
	for _, l := range levels {
		if n := len(out); n > 0 && out[n-1].series == l.Series {
			out[n-1].levels = append(out[n-1].levels, l)
			continue
		}
		out = append(out, levelGroup{series: l.Series, levels: []analyze.Level{l}})
	}
	return out
}

// seriesHeading is the line above a series' table.
func (v seriesNaming) heading(ser ingest.Series) string {
	return fmt.Sprintf("**Series %s**\n\n", mdEscape(v.name(ser)))
}

// perSeries writes one table per series, each under its series' name,
// when the sweep has several; one table of the levels otherwise.
func perSeries(s *analyze.Summary, levels []analyze.Level, one func([]analyze.Level) string) string {
	v := seriesOf(s)
	if !v.several() {
		return one(levels)
	}
	var b strings.Builder
	for i, g := range seriesGroups(levels) {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(v.heading(g.series))
		b.WriteString(one(g.levels))
	}
	return b.String()
}

// perSeriesRuns does for runs what perSeries does for levels.
func perSeriesRuns(s *analyze.Summary, runs []analyze.RunSummary, one func([]analyze.RunSummary) string) string {
	return bySeries(seriesOf(s), runs, func(r analyze.RunSummary) ingest.Series { return r.Series }, one)
}

// bySeries writes one(items) when the sweep has one series; otherwise,
// for each series holding some of the items, in series order, its name
// as a heading and one(its items).
func bySeries[T any](v seriesNaming, items []T, seriesOfItem func(T) ingest.Series, one func([]T) string) string {
	if !v.several() {
		return one(items)
	}
	var b strings.Builder
	first := true
	for _, ser := range v.list {
		var mine []T
		for _, it := range items {
			if seriesOfItem(it) == ser {
				mine = append(mine, it)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if !first {
			b.WriteString("\n")
		}
		first = false
		b.WriteString(v.heading(ser))
		b.WriteString(one(mine))
	}
	return b.String()
}

// onlySeries is a shallow copy of s holding only the levels, runs,
// reported runs and answers of one series, for a table of that series
// alone. Nothing is recomputed: the series' own figures are all there is.
func onlySeries(s *analyze.Summary, ser ingest.Series) *analyze.Summary {
	c := *s
	c.Levels, c.Runs, c.Reported, c.Answers = nil, nil, nil, nil
	c.Configurations = nil
	for _, l := range s.Levels {
		if l.Series == ser {
			c.Levels = append(c.Levels, l)
		}
	}
	for _, r := range s.Runs {
		if r.Series == ser {
			c.Runs = append(c.Runs, r)
		}
	}
	for _, r := range s.Reported {
		if r.Series == ser {
			c.Reported = append(c.Reported, r)
		}
	}
	for _, a := range s.Answers {
		if a.Series == ser {
			c.Answers = append(c.Answers, a)
		}
	}
	return &c
}
