package report

import (
	"errors"
	"fmt"
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
}

// plotToken marks where the HTML renderer inlines a figure.
const plotToken = "BENCHNOTE·FIGURE·"

func (c *cellContext) block(args []string, tgt target) (string, error) {
	switch args[0] {
	case "table":
		if len(args) != 2 {
			return "", fmt.Errorf("table takes one name, one of: %s", strings.Join(tableNames(), ", "))
		}
		fn, ok := tables[args[1]]
		if !ok {
			return "", fmt.Errorf("unknown table %q (known: %s)", args[1], strings.Join(tableNames(), ", "))
		}
		return fn(c.s), nil
	case "plot":
		if len(args) != 2 {
			return "", fmt.Errorf("plot takes one name, one of: %s", strings.Join(PlotNames, ", "))
		}
		return c.plot(args[1], tgt)
	case "exclusions", "findings", "alerts", "environment", "method", "notes", "imports":
		if len(args) != 1 {
			return "", fmt.Errorf("%s takes no arguments", args[0])
		}
		return map[string]func(*analyze.Summary) string{
			"exclusions": exclusionsCell, "findings": findingsCell, "alerts": alertsCell, "environment": environmentCell,
			"method": methodCell, "notes": notesCell, "imports": importsCell,
		}[args[0]](c.s), nil
	}
	return "", fmt.Errorf("unknown cell %q (known: %s)", args[0], knownCells())
}

func (c *cellContext) plot(name string, tgt target) (string, error) {
	known := false
	for _, n := range PlotNames {
		known = known || n == name
	}
	if !known {
		return "", fmt.Errorf("unknown plot %q (known: %s)", name, strings.Join(PlotNames, ", "))
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

func (c *cellContext) inline(args []string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("empty cell")
	}
	if isBlockCell(args[0]) {
		return "", fmt.Errorf("cell %q must stand alone on its line", args[0])
	}
	switch args[0] {
	case "title":
		return mdEscape(c.s.Title), nil
	case "runs":
		return strconv.Itoa(len(c.s.Runs)), nil
	case "levels":
		v := viewOf(c.s)
		var ls []string
		for _, l := range c.s.Levels {
			ls = append(ls, v.cell(l.Load()))
		}
		return strings.Join(ls, ", "), nil
	case "load":
		return viewOf(c.s).noun(), nil
	case "value":
		return c.value(args[1:])
	case "pooled":
		return c.pooled(args[1:])
	case "count":
		return c.count(args[1:])
	}
	return "", fmt.Errorf("unknown cell %q (known: %s)", args[0], knownCells())
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
	if kind == "c" && v.concurrencyOnly() {
		var have []string
		for _, l := range c.s.Levels {
			have = append(have, strconv.Itoa(l.Concurrency))
		}
		return analyze.Level{}, nil, fmt.Errorf("no concurrency level %d in the sweep (have %s)", want.Concurrency, strings.Join(have, ", "))
	}
	return analyze.Level{}, nil, fmt.Errorf("no level %s in the sweep (have %s)", want.Label(), c.levelNames(v))
}

// levelNames lists the sweep's levels by name.
func (c *cellContext) levelNames(v levelView) string {
	var have []string
	for _, l := range c.s.Levels {
		have = append(have, v.name(l.Load()))
	}
	return strings.Join(have, ", ")
}

func (c *cellContext) value(args []string) (string, error) {
	lv, rest, err := c.level(args)
	if err != nil {
		return "", err
	}
	if len(rest) != 1 {
		return "", errors.New("value takes one statistic key, e.g. {{value ttft.p95 c=8}}")
	}
	ar, ok := lv.Stat(rest[0])
	if !ok {
		var keys []string
		for _, s := range lv.Stats {
			keys = append(keys, s.Key)
		}
		return "", fmt.Errorf("unknown metric %q (known: %s)", rest[0], strings.Join(keys, ", "))
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
	s := fmt.Sprintf("%s ± %s %s (median ± %s MAD of per-run %s; %s; %d %s at %s)",
		fmtNum(ar.Median), fmtNum(ar.MAD), ar.Unit, c.s.Method.MAD, what, strings.Join(labels, "; "),
		ar.Runs, plural(ar.Runs, "run", "runs"), viewOf(c.s).name(lv.Load()))
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

func (c *cellContext) pooled(args []string) (string, error) {
	lv, rest, err := c.level(args)
	if err != nil {
		return "", err
	}
	if len(rest) != 1 || !strings.Contains(rest[0], ".") {
		return "", errors.New("pooled takes METRIC.STAT, e.g. {{pooled ttft.p99 c=8}}")
	}
	parts := strings.SplitN(rest[0], ".", 2)
	dists := map[string]analyze.Distribution{"ttft": lv.PooledTTFT, "tpot": lv.PooledTPOT, "e2e": lv.PooledE2E, "itl": lv.PooledITL}
	d, ok := dists[parts[0]]
	stat := parts[1]
	if !ok || (stat != "p50" && stat != "p95" && stat != "p99" && stat != "max" && stat != "mean") {
		return "", fmt.Errorf("unknown pooled metric %q (known: ttft, tpot, e2e, itl with .p50, .p95, .p99, .max, .mean)", rest[0])
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
	return fmt.Sprintf("%s %s (%s %s, %s over %s values from %d %s at %s)",
		fmtNum(v), d.Unit, stat, d.Metric, how, fmtInt(int64(d.N)), len(lv.Runs), plural(len(lv.Runs), "run", "runs"), viewOf(c.s).name(lv.Load())), nil
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
	if len(rest) != 1 {
		return "", errors.New("count takes one field, e.g. {{count measured}}")
	}
	n, ok := fields[rest[0]]
	if !ok {
		var names []string
		for k := range fields {
			names = append(names, k)
		}
		sort.Strings(names)
		return "", fmt.Errorf("unknown count %q (known: %s)", rest[0], strings.Join(names, ", "))
	}
	return fmtInt(int64(n)), nil
}

// PlotNames are every chart a notebook can place with {{plot NAME}}, in the
// order Plots draws them.
var PlotNames = []string{
	"latency-ttft", "latency-tpot", "latency-e2e", "throughput-ttft", "throughput-tpot", "runs-spread",
	"cdf-ttft", "cdf-tpot", "cdf-e2e", "lengths", "warmup", "goodput",
}
