package report

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// cellContext evaluates cells against one Summary and its rendered plots.
type cellContext struct {
	s     *analyze.Summary
	plots map[string]Plot
	// limits bound a notebook given by the user; nil for the default one.
	limits *notebookLimits
	// series names the sweep's series, worked out on first use.
	series *seriesNaming
}

// seriesView returns the sweep's series naming, worked out once for all cells.
func (c *cellContext) seriesView() seriesNaming {
	if c.series == nil {
		sv := seriesOf(c.s)
		c.series = &sv
	}
	return *c.series
}

// plotToken marks where the HTML renderer inlines a figure. It starts with
// a control character, which no input text carries into the document, so
// input cannot place a figure.
const plotToken = "\x10BENCHNOTE·FIGURE·"

// block evaluates a block cell.
func (r *render) block(args []string) (string, error) {
	c, tgt := r.ctx, r.tgt
	switch args[0] {
	case "table":
		sel := ""
		if len(args) == 3 && isSeriesArg(args[2]) {
			sel, args = args[2], args[:2]
		}
		if len(args) != 2 {
			return "", fmt.Errorf("table takes one name, one of: %s, and optionally series=LABEL=VALUE", strings.Join(tableNames(), ", "))
		}
		fn, ok := tables[args[1]]
		if !ok {
			return "", fmt.Errorf("unknown table %q%s (known: %s)", args[1], didYouMean(args[1], tableNames(), nil), strings.Join(tableNames(), ", "))
		}
		var md string
		if sel == "" {
			md = fn(c.s)
		} else {
			ser, err := c.pickSeries(sel)
			if err != nil {
				return "", err
			}
			md = fn(onlySeries(c.s, ser))
			if sv := c.seriesView(); sv.several() && md != "" {
				md = sv.heading(ser) + md
			}
		}
		if _, ok := blocks[args[1]]; ok && tgt == targetHTML {
			md = blockOpen(args[1]) + md + blockClose(args[1])
		}
		return md, nil
	case "plot":
		if len(args) != 2 {
			return "", fmt.Errorf("plot takes one name, one of: %s", strings.Join(PlotNames, ", "))
		}
		if p, ok := c.plots[args[1]]; ok && tgt == targetHTML {
			r.figureBytes += len(p.SVG) + len(p.Alt) + len(p.Caption)
		}
		return c.plot(args[1], tgt)
	case "labels":
		if len(args) != 2 || args[1] != "short" && args[1] != "full" {
			return "", errors.New("labels takes short or full: {{labels short}} puts the full label of each inline figure after it in a footnote (report.md) or a tooltip (report.html)")
		}
		r.short = args[1] == "short"
		return "", nil
	case "quality", "alerts":
		if len(args) != 1 {
			return "", fmt.Errorf("%s takes no arguments", args[0])
		}
		return qualityCell(c.s, tgt), nil
	case "headline", "exclusions", "findings", "environment", "method", "notes", "imports":
		if len(args) != 1 {
			return "", fmt.Errorf("%s takes no arguments", args[0])
		}
		return map[string]func(*analyze.Summary) string{
			"headline": headlineCell, "exclusions": exclusionsCell, "findings": findingsCell, "environment": environmentCell,
			"method": methodCell, "notes": notesCell, "imports": importsCell,
		}[args[0]](c.s), nil
	}
	return "", fmt.Errorf("unknown cell %q%s (known: %s)", args[0], didYouMean(args[0], cellNames(), cellSynonyms), knownCells())
}

func (c *cellContext) plot(name string, tgt target) (string, error) {
	known := false
	for _, n := range PlotNames {
		known = known || n == name
	}
	if !known {
		return "", fmt.Errorf("unknown plot %q%s (known: %s)", name, didYouMean(name, PlotNames, nil), strings.Join(PlotNames, ", "))
	}
	p, ok := c.plots[name]
	if !ok {
		if why := plotAbsent(c.s, name); why != "" {
			return fmt.Sprintf("*Plot %s not drawn: %s.*\n", code(name), mdEscape(why)), nil
		}
		return fmt.Sprintf("*Plot %s not drawn: the sweep has no data for it.*\n", code(name)), nil
	}
	if tgt == targetHTML {
		return "\n" + plotToken + name + "\n\n", nil
	}
	return fmt.Sprintf("\n![%s](plots/%s.svg)\n\n*%s*\n\n", mdEscape(p.Alt), name, mdEscape(p.Caption)), nil
}

// inline evaluates an inline cell.
func (r *render) inline(args []string) (string, error) {
	c := r.ctx
	if len(args) == 0 {
		return "", errors.New("empty cell: write a cell name inside {{ }}, e.g. {{value ttft.p95}}")
	}
	if isBlockCell(args[0]) {
		return "", fmt.Errorf("cell %q must stand alone on its line", args[0])
	}
	noArgs := func() error {
		if len(args) > 1 {
			return fmt.Errorf("%s takes no arguments; unexpected %q", args[0], args[1])
		}
		return nil
	}
	switch args[0] {
	case "title":
		return mdEscape(c.s.Title), noArgs()
	case "runs":
		return strconv.Itoa(len(c.s.Runs)), noArgs()
	case "levels":
		v := viewOf(c.s)
		var ls []string
		for _, l := range loads(c.s) {
			ls = append(ls, v.cell(l))
		}
		return strings.Join(ls, ", "), noArgs()
	case "load":
		return viewOf(c.s).noun(), noArgs()
	case "value":
		return r.value(args[1:])
	case "pooled":
		return r.pooled(args[1:])
	case "count":
		return c.count(args[1:])
	}
	if strings.Contains(args[0], ".") {
		// No cell name has a dot; every statistic key does:
		// {{ttft.p95 c=16}} is {{value ttft.p95 c=16}}.
		return r.value(args)
	}
	return "", fmt.Errorf("unknown cell %q%s (known: %s)", args[0], didYouMean(args[0], cellNames(), cellSynonyms), knownCells())
}

// labelArgs takes the short and full arguments out of a cell's arguments:
// short reports whether the figure's label is to be moved into a footnote
// or tooltip (the notebook's {{labels}} setting unless the cell says).
func (r *render) labelArgs(args []string) (rest []string, short bool) {
	short = r.short
	for _, a := range args {
		switch a {
		case "short":
			short = true
		case "full":
			short = false
		default:
			rest = append(rest, a)
		}
	}
	return rest, short
}

// oneKey checks that a cell got exactly one key besides its level, and
// says what is wrong otherwise.
func oneKey(cell, takes, example string, rest []string) error {
	switch {
	case len(rest) == 0:
		return fmt.Errorf("%s takes a key, e.g. %s", cell, example)
	case len(rest) > 1:
		extra := rest[1]
		hint := ""
		if _, err := strconv.ParseFloat(extra, 64); err == nil {
			hint = fmt.Sprintf(" (a level is written c=%s or rate=%s)", extra, extra)
		}
		return fmt.Errorf("%s takes %s; unexpected %q%s, e.g. %s", cell, takes, extra, hint, example)
	}
	return nil
}

// isLevelArg reports whether a cell argument selects a level.
func isLevelArg(a string) bool {
	return strings.HasPrefix(a, "c=") || strings.HasPrefix(a, "rate=") || strings.HasPrefix(a, "level=")
}

// level picks a level of a series: c=N, rate=R or rate=inf, or min and
// max among the concurrency levels (c=min), the rate levels (rate=max) or
// all levels (level=min, level=max, and the default: level=max). min and
// max prefer the levels with at least one usable run. The series is chosen
// with series=LABEL=VALUE[,LABEL=VALUE] (see pickSeries).
func (c *cellContext) level(args []string) (analyze.Level, []string, error) {
	var rest []string
	sel := "level=max"
	seriesSel := ""
	for _, a := range args {
		switch {
		case isLevelArg(a):
			sel = a
		case isSeriesArg(a):
			seriesSel = a
		default:
			rest = append(rest, a)
		}
	}
	if len(c.s.Levels) == 0 {
		return analyze.Level{}, nil, errors.New("the sweep has no load level")
	}
	series, err := c.pickSeries(seriesSel)
	if err != nil {
		return analyze.Level{}, nil, err
	}
	var levels []analyze.Level
	for _, l := range c.s.Levels {
		if l.Series == series {
			levels = append(levels, l)
		}
	}
	if len(levels) == 0 {
		return analyze.Level{}, nil, fmt.Errorf("%s: the series has no load level", seriesSel)
	}
	v := viewOf(c.s)
	kind, val, _ := strings.Cut(sel, "=")
	candidates := levels
	switch kind {
	case "c", "rate":
		mode := ingest.ModeConcurrency
		if kind == "rate" {
			mode = ingest.ModeRate
		}
		candidates = nil
		for _, l := range levels {
			if l.Load().Mode == mode {
				candidates = append(candidates, l)
			}
		}
	}
	if val == "min" || val == "max" {
		if len(candidates) == 0 {
			return analyze.Level{}, nil, fmt.Errorf("%s: the %s no %s level (its levels: %s); use level=%s", sel, c.seriesNoun(series), map[string]string{"c": "concurrency", "rate": "rate"}[kind], levelNames(v, levels), val)
		}
		var usable []analyze.Level
		for _, l := range candidates {
			if len(l.Runs) > 0 {
				usable = append(usable, l)
			}
		}
		if len(usable) == 0 {
			usable = candidates
		}
		if val == "max" {
			return usable[len(usable)-1], rest, nil
		}
		return usable[0], rest, nil
	}
	if kind == "level" {
		return analyze.Level{}, nil, fmt.Errorf("%s: expected level=min or level=max", sel)
	}
	arrival := ""
	if k, a, ok := strings.Cut(sel, ":"); ok && kind == "rate" {
		sel, arrival = k, a
	}
	want, err := ingest.ParseLoadKey(sel)
	if err != nil {
		if kind == "c" {
			return analyze.Level{}, nil, fmt.Errorf("%s: expected a concurrency level, min or max", sel)
		}
		return analyze.Level{}, nil, fmt.Errorf("%s: expected a request rate, inf, min or max", sel)
	}
	var found []analyze.Level
	for _, l := range candidates {
		if l.Load().Key() == want.Key() && (arrival == "" || l.Load().Arrival == arrival) {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 1:
		return found[0], rest, nil
	case 0:
	default:
		var names []string
		for _, l := range found {
			names = append(names, l.Load().Describe())
		}
		return analyze.Level{}, nil, fmt.Errorf("%s matches %d levels (%s): add the arrival process, e.g. %s:%s", sel, len(found), strings.Join(names, "; "), sel, found[0].Load().Arrival)
	}
	hint := ""
	if near, ok := nearestLevel(candidates, want); ok {
		hint = fmt.Sprintf("; did you mean %s?", near.Key())
	}
	if kind == "c" && v.concurrencyOnly() {
		var have []string
		for _, l := range levels {
			have = append(have, strconv.Itoa(l.Concurrency))
		}
		return analyze.Level{}, nil, fmt.Errorf("no concurrency level %d in the %s (have %s)%s", want.Concurrency, c.seriesName(series), strings.Join(have, ", "), hint)
	}
	return analyze.Level{}, nil, fmt.Errorf("no level %s in the %s (have %s)%s", want.Label(), c.seriesName(series), levelNames(v, levels), hint)
}

// where names a level in a figure's label: its load, and its series when
// the sweep has several ("concurrency 16 of max_num_seqs=128").
func (c *cellContext) where(lv analyze.Level) string {
	name := viewOf(c.s).name(lv.Load())
	if sv := c.seriesView(); sv.several() {
		name += " of " + mdEscape(sv.name(lv.Series))
	}
	return name
}

// isSeriesArg reports whether a cell argument selects a series.
func isSeriesArg(a string) bool { return strings.HasPrefix(a, "series=") }

// maxListedSeries is how many series an error lists, each name cut to
// maxListedSeriesRunes: a sweep may have hundreds of series of 32 labels.
const (
	maxListedSeries      = 10
	maxListedSeriesRunes = 200
)

// seriesName names the sweep ("sweep") or, when it has several series,
// the series ("series max_num_seqs=128"), for a message.
func (c *cellContext) seriesName(ser ingest.Series) string {
	sv := c.seriesView()
	if !sv.several() {
		return "sweep"
	}
	return "series " + textfmt.Clip(sv.name(ser), maxListedSeriesRunes)
}

// seriesNoun is seriesName with its verb: "sweep has", "series tp=2 has".
func (c *cellContext) seriesNoun(ser ingest.Series) string { return c.seriesName(ser) + " has" }

// selectors lists series as the selectors that choose them
// ("series=tp=1", ...), at most maxListedSeries of them.
func selectors(sv seriesNaming, list []ingest.Series) string {
	var out []string
	for i, ser := range list {
		if i == maxListedSeries {
			out = append(out, fmt.Sprintf("and %d more", len(list)-maxListedSeries))
			break
		}
		sel := "series=" + strings.ReplaceAll(ser.Only(sv.differing), ", ", ",")
		if ser.IsZero() {
			sel = "(the series without labels, which no selector chooses: give its runs labels)"
		}
		out = append(out, textfmt.Clip(sel, maxListedSeriesRunes))
	}
	return strings.Join(out, ", ")
}

// pickSeries returns the series a selector chooses: sel is
// "series=LABEL=VALUE[,LABEL=VALUE]" (a series matches when it has every
// label with that value), or "" for the sweep's only series. No selector
// in a sweep of several series, a selector matching none or several is an
// error naming the series to choose from.
func (c *cellContext) pickSeries(sel string) (ingest.Series, error) {
	sv := c.seriesView()
	if sel == "" {
		if !sv.several() {
			if len(sv.list) == 0 {
				return ingest.Series{}, nil
			}
			return sv.list[0], nil
		}
		return ingest.Series{}, fmt.Errorf("the sweep has %d series: choose one with series=LABEL=VALUE, one of %s", len(sv.list), selectors(sv, sv.list))
	}
	want := map[string]string{}
	var order []string
	for _, pair := range strings.Split(strings.TrimPrefix(sel, "series="), ",") {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || name == "" || value == "" {
			return ingest.Series{}, fmt.Errorf("%s: expected series=LABEL=VALUE, several joined by commas (series=tp=2,engine=vllm)", textfmt.Clip(sel, maxListedSeriesRunes))
		}
		if _, dup := want[name]; dup {
			return ingest.Series{}, fmt.Errorf("%s: label %q given twice", textfmt.Clip(sel, maxListedSeriesRunes), name)
		}
		want[name] = value
		order = append(order, name)
	}
	var found []ingest.Series
	for _, ser := range sv.list {
		match := true
		for _, name := range order {
			if v, ok := ser.Get(name); !ok || v != want[name] {
				match = false
				break
			}
		}
		if match {
			found = append(found, ser)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return ingest.Series{}, fmt.Errorf("%s matches %d series: add a label that tells them apart, one of %s", textfmt.Clip(sel, maxListedSeriesRunes), len(found), selectors(sv, found))
	}
	labels := map[string]bool{}
	for _, ser := range sv.list {
		for _, n := range ser.Names() {
			labels[n] = true
		}
	}
	var names []string
	for n := range labels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range order {
		if !labels[name] {
			if len(names) == 0 {
				return ingest.Series{}, fmt.Errorf("%s: the sweep's series has no labels: leave series= out", textfmt.Clip(sel, maxListedSeriesRunes))
			}
			return ingest.Series{}, fmt.Errorf("%s: no series has the label %q%s (labels: %s)", textfmt.Clip(sel, maxListedSeriesRunes), name, didYouMean(name, names, nil), strings.Join(names, ", "))
		}
	}
	if !sv.several() {
		return ingest.Series{}, fmt.Errorf("%s matches no series: the sweep has one, %s", textfmt.Clip(sel, maxListedSeriesRunes), textfmt.Clip(sv.list[0].String(), maxListedSeriesRunes))
	}
	return ingest.Series{}, fmt.Errorf("%s matches no series (have %s)", textfmt.Clip(sel, maxListedSeriesRunes), selectors(sv, sv.list))
}

// nearestLevel returns the level of want's mode closest to it in value
// (on a log scale, as load is swept; the lower of two equally close).
func nearestLevel(levels []analyze.Level, want ingest.LoadLevel) (ingest.LoadLevel, bool) {
	var best ingest.LoadLevel
	bestDist := math.Inf(1)
	for _, l := range levels {
		load := l.Load()
		if load.Mode != want.Mode {
			continue
		}
		a, b := load.Value(), want.Value()
		d := math.Inf(1)
		switch {
		case math.IsInf(a, 1) && math.IsInf(b, 1):
			d = 0
		case !math.IsInf(a, 1) && !math.IsInf(b, 1) && a > 0 && b > 0:
			d = math.Abs(math.Log(a / b))
		}
		if d < bestDist {
			best, bestDist = load, d
		}
	}
	return best, !math.IsInf(bestDist, 1)
}

// levelNames lists levels by name.
func levelNames(v levelView, levels []analyze.Level) string {
	var have []string
	for _, l := range levels {
		have = append(have, v.name(l.Load()))
	}
	return strings.Join(have, ", ")
}

func (r *render) value(args []string) (string, error) {
	c := r.ctx
	args, short := r.labelArgs(args)
	lv, rest, err := c.level(args)
	if err != nil {
		return "", err
	}
	if err := oneKey("value", "one key, a level and short or full", "{{value ttft.p95 c=8}}", rest); err != nil {
		return "", err
	}
	ar, ok := lv.Stat(rest[0])
	if !ok {
		var keys []string
		for _, s := range lv.Stats {
			keys = append(keys, s.Key)
		}
		return "", fmt.Errorf("unknown metric %q%s (known: %s)", rest[0], didYouMean(rest[0], keys, nil), strings.Join(keys, ", "))
	}
	if ar.Runs == 0 || !ar.Median.Valid() {
		return fmt.Sprintf("n/a (%s %s not available at %s)", ar.Statistic, ar.Metric, c.where(lv)), nil
	}
	what := ar.Metric
	if isPercentile(ar.Statistic) || ar.Statistic == "mean" {
		what = ar.Statistic + " " + ar.Metric
	}
	labels := []string{ar.Sample}
	if m := statMethod(ar, c.s.Method.Percentile); m != "" {
		labels = append(labels, m)
	}
	label := fmt.Sprintf("median ± %s MAD of per-run %s; %s; %d %s at %s",
		c.s.Method.MAD, what, strings.Join(labels, "; "), ar.Runs, textfmt.Plural(ar.Runs, "run", "runs"), c.where(lv))
	figure := fmtSpread(ar.Median, ar.MAD) + " " + ar.Unit
	var s string
	if short {
		s = r.label(figure, label)
	} else {
		s = figure + " (" + label + ")"
	}
	s = suspectInline(lv, ar.Key, s)
	if ar.FewRuns {
		s += " " + fewRunsMark
	}
	return s, nil
}

// statMethod names how a per-run statistic was computed: the percentile
// method or the weighting of a mean; "" for a rate or count, whose sample
// says it all.
func statMethod(ar analyze.AcrossRuns, method string) string {
	if isPercentile(ar.Statistic) {
		if strings.HasPrefix(ar.Key, "server.") {
			return "histogram_quantile interpolation"
		}
		return method + " percentile"
	}
	if ar.Statistic == "mean" {
		if strings.HasPrefix(ar.Key, "itl.") {
			return analyze.WeightGap + " mean"
		}
		return analyze.WeightRequest + " mean"
	}
	return ""
}

// isPercentile reports whether a statistic name is a percentile: "p" and digits.
func isPercentile(stat string) bool {
	if len(stat) < 2 || stat[0] != 'p' {
		return false
	}
	for _, r := range stat[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (r *render) pooled(args []string) (string, error) {
	c := r.ctx
	args, short := r.labelArgs(args)
	lv, rest, err := c.level(args)
	if err != nil {
		return "", err
	}
	if err := oneKey("pooled", "one key, a level and short or full", "{{pooled ttft.p99 c=8}}", rest); err != nil {
		return "", err
	}
	var known []string
	for _, m := range []string{"ttft", "tpot", "e2e", "itl"} {
		for _, st := range []string{"p50", "p95", "p99", "max", "mean"} {
			known = append(known, m+"."+st)
		}
	}
	metric, stat, _ := strings.Cut(rest[0], ".")
	dists := map[string]analyze.Distribution{"ttft": lv.PooledTTFT, "tpot": lv.PooledTPOT, "e2e": lv.PooledE2E, "itl": lv.PooledITL}
	d, ok := dists[metric]
	if !ok || (stat != "p50" && stat != "p95" && stat != "p99" && stat != "max" && stat != "mean") {
		return "", fmt.Errorf("unknown pooled metric %q%s (known: ttft, tpot, e2e, itl with .p50, .p95, .p99, .max, .mean)", rest[0], didYouMean(rest[0], known, nil))
	}
	v := d.Value(stat)
	if !v.Valid() {
		return fmt.Sprintf("n/a (pooled %s %s not available at %s)", stat, d.Metric, c.where(lv)), nil
	}
	how := c.s.Method.Percentile + " percentile"
	if stat == "mean" {
		how = d.MeanWeighting + " mean"
	} else if stat == "max" {
		how = "maximum"
	}
	figure := fmtNum(v) + " " + d.Unit
	label := fmt.Sprintf("%s %s, %s over %s values from %d %s at %s",
		stat, d.Metric, how, textfmt.Thousands(d.N), len(lv.Runs), textfmt.Plural(len(lv.Runs), "run", "runs"), c.where(lv))
	if short {
		return r.label(figure, "pooled "+label), nil
	}
	return figure + " (" + label + ")", nil
}

func (c *cellContext) count(args []string) (string, error) {
	var counts analyze.Counts
	rest := args
	hasLevel, hasSeries := false, false
	for _, a := range args {
		hasLevel = hasLevel || isLevelArg(a)
		hasSeries = hasSeries || isSeriesArg(a)
	}
	if hasSeries && !hasLevel {
		return "", errors.New("count with series= needs a level too (c=N, rate=R, level=max): a series' counts are given per level; without both, count gives the whole sweep's")
	}
	if hasLevel {
		lv, r, err := c.level(args)
		if err != nil {
			return "", err
		}
		counts, rest = lv.Counts, r
	} else {
		counts = c.s.Accounting.Requests
	}
	fields := map[string]int{
		"rows_read": counts.RowsRead, "failed_run_rows": counts.FailedRunRows, "bad_rows": counts.BadRows, "accepted": counts.Accepted, "warm_up": counts.WarmUp, "cool_down": counts.CoolDown,
		"measured": counts.Measured, "errors": counts.Errors, "zero_token": counts.ZeroToken, "one_token": counts.OneToken, "multi_token": counts.MultiToken,
	}
	if err := oneKey("count", "one field and a level", "{{count measured c=8}}", rest); err != nil {
		return "", err
	}
	n, ok := fields[rest[0]]
	if !ok {
		var names []string
		for k := range fields {
			names = append(names, k)
		}
		sort.Strings(names)
		return "", fmt.Errorf("unknown count %q%s (known: %s)", rest[0], didYouMean(rest[0], names, nil), strings.Join(names, ", "))
	}
	return textfmt.Thousands(n), nil
}

// PlotNames are every chart a notebook can place with {{plot NAME}}, in the
// order Plots draws them.
var PlotNames = []string{
	"latency-ttft", "latency-tpot", "latency-e2e", "throughput-ttft", "throughput-tpot", "runs-spread",
	"cdf-ttft", "cdf-tpot", "cdf-e2e", "lengths", "warmup", "goodput", "pareto",
}
