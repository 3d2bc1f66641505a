package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/compare/render"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parsePositional parses flags that may come before, between or after
// the positional arguments, and returns the positional ones.
func parsePositional(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	return positional, nil
}

// runCompare is `benchnote compare BASE NEW [-o OUT]`. Its exit code is
// the gate's: 0 pass, 1 flagged regression, 2 not comparable or too few
// runs to decide, 3 input error.
func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output directory for compare.md, compare.html, compare.json (written atomically); without it compare.md goes to stdout")
	var expect, thresholds listFlag
	fs.Var(&expect, "expect", "declare an intended change, e.g. engine.version (repeatable)")
	fs.Var(&thresholds, "threshold", "smallest change to flag: 5% (all relative metrics), ttft.p99=10%, goodput=2pp (repeatable)")
	def := compare.DefaultOptions()
	correct := fs.String("correct", compare.CorrectionNone, "correction for many tests: none or holm")
	alpha := fs.Float64("alpha", def.Alpha, "significance level")
	attainment := fs.Float64("attainment", def.Attainment, "percentage goodput a level must reach to meet the SLO")
	failOn := fs.String("fail-on", compare.FailOnRegression, "what fails the gate: regression (and error-rate rises), error-rate, any")
	allow := fs.Bool("allow-incomparable", false, "do not exit 2 when the sweeps are not comparable or have too few runs to decide")
	fail := func(err error) int {
		fmt.Fprintf(stderr, "benchnote compare: %v\n", err)
		return compare.ExitInputError
	}
	pos, err := parsePositional(fs, args)
	if err != nil {
		fmt.Fprint(stderr, usage)
		return compare.ExitInputError
	}
	if len(pos) != 2 {
		fmt.Fprintf(stderr, "benchnote compare: expected BASE and NEW, got %d arguments\n%s", len(pos), usage)
		return compare.ExitInputError
	}
	opts := def
	opts.Alpha, opts.Correction, opts.Attainment, opts.Expect = *alpha, *correct, *attainment, expect
	for _, t := range thresholds {
		th, err := compare.ParseThreshold(t)
		if err != nil {
			return fail(err)
		}
		if th.Key == "" {
			if th.Points {
				return fail(fmt.Errorf("threshold %q: the default threshold is relative (write it as NUMBER%%); give points per metric, e.g. goodput=2pp", t))
			}
			opts.Threshold = th.Value
			continue
		}
		opts.Overrides = append(opts.Overrides, th)
	}
	if err := opts.Validate(); err != nil {
		return fail(err)
	}
	if err := compare.CheckFailOn(*failOn); err != nil {
		return fail(err)
	}
	base, err := loadSummary(pos[0], stderr)
	if err != nil {
		return fail(err)
	}
	nw, err := loadSummary(pos[1], stderr)
	if err != nil {
		return fail(err)
	}
	res := compare.Compare(compare.Input{Name: pos[0], Summary: base}, compare.Input{Name: pos[1], Summary: nw}, opts)
	gopts := compare.GateOptions{FailOn: *failOn, AllowIncomparable: *allow}
	gate := res.Gate(gopts)
	files, err := render.Build(render.Input{Result: res, Base: base, New: nw, Gate: gate, GateOptions: gopts})
	if err != nil {
		return fail(err)
	}
	if *out != "" {
		if err := report.WriteDir(*out, files); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "wrote %s: %s, %s, %s\n", *out, render.MarkdownFile, render.HTMLFile, render.JSONFile)
	} else {
		stdout.Write(files[render.MarkdownFile])
	}
	for _, l := range gate.Lines {
		fmt.Fprintln(stderr, l)
	}
	return gate.Code
}

// loadSummary reads one side of a comparison: a summary.json file, a
// report directory (holding summary.json), or a sweep directory, which is
// analysed as `benchnote report` would.
func loadSummary(path string, stderr io.Writer) (*analyze.Summary, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	file := path
	if info.IsDir() {
		file = filepath.Join(path, report.SummaryFile)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			sw, err := ingest.Load(path, ingest.Options{Progress: progressWriter(stderr)})
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
