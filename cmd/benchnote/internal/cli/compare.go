package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/compare/render"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/outdir"
	"github.com/benchnote/benchnote/report"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func compareCommand() *command {
	return &command{
		name:    "compare",
		summary: "compare two sweeps: comparable? changed beyond run-to-run noise? (a CI gate)",
		args:    "BASE NEW", minArgs: 2, maxArgs: 2,
		errorExit: compare.ExitInputError,
		help:      compareHelp,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			f := addCompareFlags(fs)
			return func(c *call, args []string) int {
				if err := f.out.check(); err != nil {
					return c.usageError("%v", err)
				}
				opts, err := f.options(fs)
				if err != nil {
					return c.usageError("%v", err)
				}
				return runCompare(c, fs, f, opts, args)
			}
		},
	}
}

// compareHelp is compare's help text.
const compareHelp = `BASE and NEW are each a sweep directory, a report directory or a
summary.json. compare checks first whether the two can be compared
(hardware, model, engine, method, workload; --expect KEY declares an
intended change), then tests each headline statistic of each series once
across every level both have: a stratified rank test on the per-run values
(van Elteren's, exact; with one run a level, a sign test across levels).
The gate decides on a small family of primary statistics (--gate; by
default TTFT p95, TPOT p50, E2E p95, output tokens/s, goodput and the error
rate), Holm-corrected, and flags one only when its p < α and its change
exceeds its threshold; the others are reported, as are the per-level
tests that show where a change is (--per-level adds those to the family).
The first line of the output is the verdict in one sentence. With -o it writes
OUT/compare.md (fits a pull-request comment), compare.html and
compare.json; without -o it prints compare.md. Rules, statistics and the
table of runs needed: docs/compare.md.

series: levels are matched by series (their labels) and load. A series
of one side only is listed, not compared. --series KEY=V[,KEY=V] keeps,
on both sides, the series whose labels include all of those.
--base-series SEL --new-series SEL compares one series of each side,
levels matched by load alone, e.g. tp=1 against tp=2 of one sweep (BASE
and NEW may be the same); the comparability check then expects the
labels that differ (and what they imply, such as the environment's
max_num_seqs or tensor-parallel size) to differ. "" selects a side's only
series. A selector that names an unknown label or matches no series (or,
for one side, several) is an input error naming the series there are.

exit codes: 0 nothing flagged that fails, 1 a flagged regression (each on
stderr, one line each), 2 not comparable or nothing in common, 3 an input
error or bad usage, 4 undecided: a primary statistic moved beyond its
threshold but the runs are too few for its test (with how many are needed;
--allow-incomparable passes 2 and 4).`

// compareFlags are compare's flags.
type compareFlags struct {
	outDir                        *string
	expect, thresholds            listFlag
	correct, gate, failOn         *string
	perLevel, noTest, allow       *bool
	alpha, attainment             *float64
	series, baseSeries, newSeries *string
	out                           *outputFlags
}

// addCompareFlags defines compare's flags on fs.
func addCompareFlags(fs *flag.FlagSet) *compareFlags {
	def := compare.DefaultOptions()
	f := &compareFlags{}
	f.outDir = fs.String("o", "", "write compare.md, compare.html and compare.json into the directory `OUT` (default: compare.md on stdout)")
	fs.Var(&f.expect, "expect", "declare an intended change, e.g. engine.version (`KEY`, repeatable)")
	fs.Var(&f.thresholds, "threshold", "smallest change to flag: 5% for every relative metric, ttft.p99=10%, goodput=2pp (`T`, repeatable)")
	f.correct = fs.String("correct", def.Correction, "correction over the gate's family of tests: holm or none")
	f.gate = fs.String("gate", "", "the gate's family of statistics, tested per series across levels (`STAT,...`; default "+strings.Join(compare.DefaultGate, ",")+")")
	f.perLevel = fs.Bool("per-level", false, "add each level's test of the gate's statistics to the family")
	f.noTest = fs.Bool("no-test", false, "flag the gate's statistics on their threshold alone, with no statistical test (for 1 run at 1 level); the verdict says so")
	f.alpha = fs.Float64("alpha", def.Alpha, "significance level")
	f.attainment = fs.Float64("attainment", def.Attainment, "percentage goodput a level must reach to meet the SLO (default: the sweeps' slo.attainment when both have the same, else 90)")
	f.failOn = fs.String("fail-on", compare.FailOnRegression, "what fails: regression (a primary finding worse, the error rate's included), error-rate (its finding only), any (any flagged primary finding)")
	f.allow = fs.Bool("allow-incomparable", false, "pass (exit 0) instead of exit 2 when the sweeps are not comparable or have nothing in common, and instead of exit 4 when the runs are too few to decide")
	f.series = fs.String("series", "", "compare only the series whose labels include all of `KEY=V[,KEY=V]`, on both sides")
	f.baseSeries = fs.String("base-series", "", "compare the one series of BASE matching `SEL` (KEY=V[,KEY=V]; \"\" for its only series) with --new-series', levels matched by load alone")
	f.newSeries = fs.String("new-series", "", "the one series of NEW matching `SEL`, compared with --base-series'")
	f.out = addOutputFlags(fs, "print nothing on stdout with -o (gate reasons still go to stderr)")
	return f
}

// options turns the flags into compare's options; an error is a usage
// error.
func (f *compareFlags) options(fs *flag.FlagSet) (compare.Options, error) {
	opts := compare.DefaultOptions()
	opts.Alpha, opts.Correction, opts.Attainment, opts.Expect = *f.alpha, *f.correct, *f.attainment, f.expect
	opts.PerLevel, opts.NoTest = *f.perLevel, *f.noTest
	if flagSet(fs, "gate") {
		for _, k := range strings.Split(*f.gate, ",") {
			if k = strings.TrimSpace(k); k != "" {
				opts.Gate = append(opts.Gate, k)
			}
		}
		if err := compare.CheckGate(opts.Gate); err != nil {
			return opts, err
		}
	}
	if err := f.setThresholds(&opts); err != nil {
		return opts, err
	}
	if err := seriesOptions(fs, &opts, *f.series, *f.baseSeries, *f.newSeries); err != nil {
		return opts, err
	}
	if err := opts.Validate(); err != nil {
		return opts, err
	}
	return opts, compare.CheckFailOn(*f.failOn)
}

// setThresholds sets opts' default threshold and per-metric overrides
// from --threshold.
func (f *compareFlags) setThresholds(opts *compare.Options) error {
	for _, t := range f.thresholds {
		th, err := compare.ParseThreshold(t)
		if err != nil {
			return err
		}
		if th.Key == "" {
			if th.Points {
				return fmt.Errorf("threshold %q: the default threshold is relative (write it as NUMBER%%); give points per metric, e.g. goodput=2pp", t)
			}
			opts.Threshold = th.Value
			continue
		}
		opts.Overrides = append(opts.Overrides, th)
	}
	return nil
}

// runCompare loads BASE and NEW, compares them, writes or prints the
// result and returns the gate's exit code.
func runCompare(c *call, fs *flag.FlagSet, f *compareFlags, opts compare.Options, args []string) int {
	// OUT may not be, or hold, BASE or NEW (a report directory
	// is one benchnote wrote, so only this check keeps it);
	// refused before the work, and again under WriteDir's lock.
	inputs := args[:2]
	if *f.outDir != "" {
		if err := outdir.Check(*f.outDir, outdir.Options{Inputs: inputs}); err != nil {
			return c.fail(err)
		}
	}
	p := c.progress(f.out)
	defer p.close()
	base, err := loadSummary(args[0], p)
	if err != nil {
		return c.fail(err)
	}
	nw, err := loadSummary(args[1], p)
	if err != nil {
		return c.fail(err)
	}
	if !flagSet(fs, "attainment") {
		// The sweeps' own slo.attainment, as their reports use it,
		// when both have the same one.
		if a, b := base.Method.SLO.Attainment, nw.Method.SLO.Attainment; a > 0 && a == b {
			opts.Attainment = 100 * a
		}
	}
	p.stage("comparing", "compared")
	res, err := compare.Compare(compare.Input{Name: args[0], Summary: base}, compare.Input{Name: args[1], Summary: nw}, opts)
	if err != nil {
		return c.fail(err)
	}
	gopts := compare.GateOptions{FailOn: *f.failOn, AllowIncomparable: *f.allow}
	gate := res.Gate(gopts)
	files, err := render.Build(render.Input{Result: res, Base: base, New: nw, Gate: gate, GateOptions: gopts})
	if err != nil {
		return c.fail(err)
	}
	if *f.outDir != "" {
		p.stage("writing", "wrote the files")
		if err := report.WriteDir(*f.outDir, files, inputs...); err != nil {
			return c.fail(err)
		}
	}
	p.finish()
	printCompare(c, f, res, files)
	for _, l := range gate.Lines {
		fmt.Fprintln(c.stderr, l)
	}
	return gate.Code
}

// printCompare prints compare.md on stdout without -o, else (unless -q)
// the verdict, the files written and the series compared.
func printCompare(c *call, f *compareFlags, res *compare.Result, files map[string][]byte) {
	switch {
	case *f.outDir == "":
		c.stdout.Write(files[render.MarkdownFile])
	case !f.out.quiet:
		fmt.Fprintln(c.stdout, res.Verdict)
		fmt.Fprintf(c.stdout, "wrote %s: %s, %s, %s\n", *f.outDir, render.MarkdownFile, render.HTMLFile, render.JSONFile)
		for _, l := range render.SeriesLines(res) {
			fmt.Fprintln(c.stdout, l)
		}
	}
}

// seriesOptions sets the series selection of opts from --series, or from
// --base-series and --new-series (given together, "" for a side's only
// series), and checks that they are not mixed.
func seriesOptions(fs *flag.FlagSet, opts *compare.Options, series, base, new string) error {
	hasBase, hasNew := flagSet(fs, "base-series"), flagSet(fs, "new-series")
	switch {
	case hasBase != hasNew:
		return errors.New("--base-series and --new-series go together: each picks the series of one side")
	case hasBase && flagSet(fs, "series"):
		return errors.New("--series selects series on both sides; --base-series and --new-series pick one on each: give one or the other")
	case hasBase:
		b, err := parseSelector("--base-series", base, true)
		if err != nil {
			return err
		}
		n, err := parseSelector("--new-series", new, true)
		if err != nil {
			return err
		}
		opts.Pair = &compare.SeriesPair{Base: b, New: n}
	case flagSet(fs, "series"):
		s, err := parseSelector("--series", series, false)
		if err != nil {
			return err
		}
		opts.Series = s
	}
	return nil
}

// parseSelector reads a selector flag; "" is the empty selector where
// allowed.
func parseSelector(flag, v string, emptyOK bool) (compare.Selector, error) {
	if strings.TrimSpace(v) == "" && emptyOK {
		return compare.Selector{}, nil
	}
	s, err := compare.ParseSelector(v)
	if err != nil {
		return s, fmt.Errorf("%s: %w", flag, err)
	}
	return s, nil
}

// loadSummary reads one side of a comparison: a summary.json file, a
// report directory (holding summary.json), or a sweep directory, which is
// analysed as `benchnote report` would.
func loadSummary(path string, p *progress) (*analyze.Summary, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	file := path
	if info.IsDir() {
		file = filepath.Join(path, report.SummaryFile)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			sw, err := ingest.Open(path, ingest.Options{RunRead: p.readRuns()})
			if err != nil {
				return nil, err
			}
			if len(sw.Runs) == 0 {
				return nil, fmt.Errorf("%s: neither a sweep (no run directory with requests.csv or requests.parquet) nor a report directory (no summary.json)", path)
			}
			return analyze.Analyze(sw), nil
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return analyze.DecodeSummary(f, file)
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
