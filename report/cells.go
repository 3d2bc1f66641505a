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
)

// cellContext evaluates cells against one Summary and its rendered plots.
type cellContext struct {
	s     *analyze.Summary
	plots map[string]Plot
	// limits bound a notebook given by the user; nil for the default one.
	limits *notebookLimits
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
		if len(args) != 2 {
			return "", fmt.Errorf("table takes one name, one of: %s", strings.Join(tableNames(), ", "))
		}
		fn, ok := tables[args[1]]
		if !ok {
			return "", fmt.Errorf("unknown table %q%s (known: %s)", args[1], didYouMean(args[1], tableNames(), nil), strings.Join(tableNames(), ", "))
		}
		md := fn(c.s)
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

// level picks a level: c=N, rate=R or rate=inf, or min and max among the
// concurrency levels (c=min), the rate levels (rate=max) or all levels
// (level=min, level=max, and the default: level=max). min and max prefer
// the levels with at least one usable run.
func (c *cellContext) level(args []string) (analyze.Level, []string, error) {
	var rest []string
	sel := "level=max"
	for _, a := range args {
		if isLevelArg(a) {
			sel = a
			continue
		}
		rest = append(rest, a)
	}
	if len(c.s.Levels) == 0 {
		return analyze.Level{}, nil, errors.New("the sweep has no load level")
	}
	v := viewOf(c.s)
	kind, val, _ := strings.Cut(sel, "=")
	candidates := c.s.Levels
	switch kind {
	case "c", "rate":
		mode := ingest.ModeConcurrency
		if kind == "rate" {
			mode = ingest.ModeRate
		}
		candidates = nil
		for _, l := range c.s.Levels {
			if l.Load().Mode == mode {
				candidates = append(candidates, l)
			}
		}
	}
	if val == "min" || val == "max" {
		if len(candidates) == 0 {
			return analyze.Level{}, nil, fmt.Errorf("%s: the sweep has no %s level (its levels: %s); use level=%s", sel, map[string]string{"c": "concurrency", "rate": "rate"}[kind], c.levelNames(v), val)
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
		for _, l := range c.s.Levels {
			have = append(have, strconv.Itoa(l.Concurrency))
		}
		return analyze.Level{}, nil, fmt.Errorf("no concurrency level %d in the sweep (have %s)%s", want.Concurrency, strings.Join(have, ", "), hint)
	}
	return analyze.Level{}, nil, fmt.Errorf("no level %s in the sweep (have %s)%s", want.Label(), c.levelNames(v), hint)
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

// levelNames lists the sweep's levels by name.
func (c *cellContext) levelNames(v levelView) string {
	var have []string
	for _, l := range c.s.Levels {
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
		return fmt.Sprintf("n/a (%s %s not available at %s)", ar.Statistic, ar.Metric, viewOf(c.s).name(lv.Load())), nil
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
		c.s.Method.MAD, what, strings.Join(labels, "; "), ar.Runs, plural(ar.Runs, "run", "runs"), viewOf(c.s).name(lv.Load()))
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
		return fmt.Sprintf("n/a (pooled %s %s not available at %s)", stat, d.Metric, viewOf(c.s).name(lv.Load())), nil
	}
	how := c.s.Method.Percentile + " percentile"
	if stat == "mean" {
		how = d.MeanWeighting + " mean"
	} else if stat == "max" {
		how = "maximum"
	}
	figure := fmtNum(v) + " " + d.Unit
	label := fmt.Sprintf("%s %s, %s over %s values from %d %s at %s",
		stat, d.Metric, how, fmtInt(int64(d.N)), len(lv.Runs), plural(len(lv.Runs), "run", "runs"), viewOf(c.s).name(lv.Load()))
	if short {
		return r.label(figure, "pooled "+label), nil
	}
	return figure + " (" + label + ")", nil
}

func (c *cellContext) count(args []string) (string, error) {
	var counts analyze.Counts
	rest := args
	hasLevel := false
	for _, a := range args {
		hasLevel = hasLevel || isLevelArg(a)
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
	return fmtInt(int64(n)), nil
}

// PlotNames are every chart a notebook can place with {{plot NAME}}, in the
// order Plots draws them.
var PlotNames = []string{
	"latency-ttft", "latency-tpot", "latency-e2e", "throughput-ttft", "throughput-tpot", "runs-spread",
	"cdf-ttft", "cdf-tpot", "cdf-e2e", "lengths", "warmup", "goodput",
}
