package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// levelView says how a sweep's load levels are named: a sweep of
// concurrency levels only keeps the plain "concurrency 16" wording (and
// bare numbers under a "concurrency" column); a sweep of rates names them
// "16 req/s"; a sweep mixing both names each level in full.
type levelView struct {
	mixed bool
	mode  ingest.LoadMode // the one mode, when not mixed
	// ambiguous holds the keys of rate levels that differ only by their
	// arrival process, whose names then say it.
	ambiguous map[string]bool
}

func viewOf(s *analyze.Summary) levelView {
	v := levelView{mode: ingest.ModeConcurrency, ambiguous: map[string]bool{}}
	seen := map[ingest.LoadMode]bool{}
	// Counted per series: each series of a sweep has its own levels.
	type key struct {
		series ingest.Series
		load   string
	}
	keys := map[key]int{}
	for _, l := range s.Levels {
		load := l.Load()
		seen[load.Mode] = true
		keys[key{l.Series, load.Key()}]++
	}
	for k, n := range keys {
		if n > 1 {
			v.ambiguous[k.load] = true
		}
	}
	switch {
	case len(seen) > 1:
		v.mixed = true
	case seen[ingest.ModeRate]:
		v.mode = ingest.ModeRate
	}
	return v
}

// concurrencyOnly reports whether every level is a concurrency level.
func (v levelView) concurrencyOnly() bool { return !v.mixed && v.mode == ingest.ModeConcurrency }

// name is a level's full name: "concurrency 16", "16 req/s" ("16 req/s,
// poisson arrivals" when another level differs only by its arrivals).
func (v levelView) name(l ingest.LoadLevel) string {
	if v.ambiguous[l.Key()] {
		return l.Describe()
	}
	return l.Label()
}

// column is the header of the level column of a table.
func (v levelView) column() string {
	switch {
	case v.mixed:
		return "load level"
	case v.mode == ingest.ModeRate:
		return "request rate"
	}
	return "concurrency"
}

// cell is a level as a table cell: the number under a "concurrency"
// column, the full name otherwise.
func (v levelView) cell(l ingest.LoadLevel) string {
	if v.concurrencyOnly() {
		return strconv.Itoa(l.Concurrency)
	}
	return v.name(l)
}

// short is a level in a chart legend or label: "c=16", "16 req/s".
func (v levelView) short(l ingest.LoadLevel) string {
	if l.Mode == ingest.ModeConcurrency {
		return "c=" + strconv.Itoa(l.Concurrency)
	}
	return v.name(l)
}

// number is a level in a list of values: "16" for concurrency, "16 req/s"
// for a rate.
func (v levelView) number(l ingest.LoadLevel) string {
	if l.Mode == ingest.ModeConcurrency {
		return strconv.Itoa(l.Concurrency)
	}
	return v.name(l)
}

// noun names what the levels are: "concurrency", "request rate", "load".
func (v levelView) noun() string {
	switch {
	case v.mixed:
		return "load"
	case v.mode == ingest.ModeRate:
		return "request rate"
	}
	return "concurrency"
}

// perLevel names one level for "one line per …": "concurrency level",
// "request rate", "load level".
func (v levelView) perLevel() string {
	switch {
	case v.mixed:
		return "load level"
	case v.mode == ingest.ModeRate:
		return "request rate"
	}
	return "concurrency level"
}

// list joins levels: "1, 4, 16" for concurrency, names otherwise.
func (v levelView) list(levels []ingest.LoadLevel) string {
	var parts []string
	for _, l := range levels {
		parts = append(parts, v.number(l))
	}
	return strings.Join(parts, ", ")
}

// levelsPhrase names the sweep's levels for prose: "concurrency levels 1,
// 4, 16", "request rates 1 req/s, 2 req/s", "load levels concurrency 4,
// 16 req/s".
func (v levelView) levelsPhrase(s *analyze.Summary) string {
	var parts []string
	for _, l := range loads(s) {
		if v.concurrencyOnly() {
			parts = append(parts, strconv.Itoa(l.Concurrency))
		} else {
			parts = append(parts, v.name(l))
		}
	}
	switch {
	case v.mixed:
		return "load levels " + strings.Join(parts, ", ")
	case v.mode == ingest.ModeRate:
		return "request rates " + strings.Join(parts, ", ")
	}
	return "concurrency levels " + strings.Join(parts, ", ")
}

// loads returns the sweep's load levels, each once however many series
// have it, in load order.
func loads(s *analyze.Summary) []ingest.LoadLevel {
	var out []ingest.LoadLevel
	seen := map[ingest.LoadLevel]bool{}
	for _, l := range s.Levels {
		if load := l.Load(); !seen[load] {
			seen[load] = true
			out = append(out, load)
		}
	}
	slices.SortStableFunc(out, ingest.LoadLevel.Compare)
	return out
}

// axisX is where a level sits on a chart's level axis: its concurrency or
// rate; rate inf sits at twice the highest finite level.
func axisX(s *analyze.Summary, l ingest.LoadLevel) float64 {
	if !l.Unbounded() {
		return l.Value()
	}
	top := 0.0
	for _, o := range s.Levels {
		if v := o.Load().Value(); !math.IsInf(v, 1) {
			top = math.Max(top, v)
		}
	}
	if top == 0 {
		return 1
	}
	return 2 * top
}

// axisLabel says what a chart's level axis shows.
func (v levelView) axisLabel() string {
	switch {
	case v.mixed:
		return "load: concurrency (requests in flight) or request rate (req/s)"
	case v.mode == ingest.ModeRate:
		return "request rate (requests sent per second; inf = all at once)"
	}
	return "concurrency (requests in flight)"
}

// series splits levels by mode when a sweep mixes them: each mode is
// drawn as its own series. The suffix names the series ("" when not mixed).
func (v levelView) series(levels []analyze.Level) []levelSeries {
	if !v.mixed {
		return []levelSeries{{levels: levels}}
	}
	var c, r []analyze.Level
	for _, l := range levels {
		if l.Load().Mode == ingest.ModeConcurrency {
			c = append(c, l)
		} else {
			r = append(r, l)
		}
	}
	return []levelSeries{{suffix: " (concurrency)", levels: c}, {suffix: " (request rate)", levels: r}}
}

// levelSeries is the levels one series of a chart draws.
type levelSeries struct {
	suffix string
	levels []analyze.Level
}
