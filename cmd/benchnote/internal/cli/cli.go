// Package cli is benchnote's command line: flag parsing and wiring of
// ingest → analyze → report. It holds no logic of its own beyond choosing
// what to print and which exit code to return.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
)

// Exit codes.
const (
	ExitClean    = 0 // no problem found
	ExitWarnings = 1 // validate: warnings only (rows excluded, files ignored, ...)
	ExitErrors   = 2 // errors: a run or file unusable, or bad usage
)

const usage = `usage:
  benchnote validate SWEEP                       check a sweep and list every problem
  benchnote report SWEEP -o OUT [--notebook MD]  write OUT/report.md, report.html, summary.json, plots/
  (both take --max-rows-per-run N, default 50000000: refuse a requests file of more rows)
  benchnote version

exit codes: 0 clean, 1 warnings only (validate), 2 errors
`

// Run executes the command line args and returns the exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitErrors
	}
	switch args[0] {
	case "validate":
		return validate(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "benchnote", report.Version)
		return ExitClean
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return ExitClean
	}
	fmt.Fprintf(stderr, "benchnote: unknown command %q\n%s", args[0], usage)
	return ExitErrors
}

// progressWriter returns stderr when it is a terminal, else nil.
func progressWriter(stderr io.Writer) io.Writer {
	if f, ok := stderr.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return stderr
		}
	}
	return nil
}

// parseArgs parses flags that may come before or after the one positional
// argument (the sweep directory).
func parseArgs(fs *flag.FlagSet, args []string) (string, error) {
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	if len(positional) != 1 {
		return "", fmt.Errorf("expected one sweep directory, got %d arguments", len(positional))
	}
	return positional[0], nil
}

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxRows := fs.Int("max-rows-per-run", ingest.DefaultMaxRowsPerRun, "refuse a requests file of more rows than this")
	root, err := parseArgs(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "benchnote validate: %v\n%s", err, usage)
		return ExitErrors
	}
	sw, err := ingest.Load(root, ingest.Options{Progress: progressWriter(stderr), MaxRowsPerRun: *maxRows})
	if err != nil {
		fmt.Fprintf(stderr, "benchnote validate: %v\n", err)
		return ExitErrors
	}
	return printValidation(sw, stdout)
}

// printValidation writes the per-run table and every diagnostic, and
// returns the exit code.
func printValidation(sw *ingest.Sweep, w io.Writer) int {
	levels := map[int]bool{}
	for _, r := range sw.Runs {
		levels[r.Concurrency] = true
	}
	fmt.Fprintf(w, "sweep %s: %d runs at %d concurrency levels\n", sw.Root, len(sw.Runs), len(levels))
	fmt.Fprintf(w, "method: %s percentiles, %s MAD, warm-up %s\n\n", sw.Config.Percentile, sw.Config.MAD, sw.Config.Warmup.Mode)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONC\tREPEAT\tRUN\tFORMAT\tROWS\tEXCLUDED\tSCRAPES\tWINDOW\tENVIRONMENT\tSTATUS")
	for _, r := range sw.Runs {
		format, rows, excluded := "-", "-", "-"
		if r.Requests != nil {
			format = r.Requests.Format
			rows = fmt.Sprint(r.Requests.RowsRead)
			excluded = excludedSummary(r.Requests)
			if r.Failed {
				excluded = "all (run failed)"
			}
		}
		var scrapes []string
		if r.ScrapeStart != nil {
			scrapes = append(scrapes, "start")
		}
		if r.ScrapeEnd != nil {
			scrapes = append(scrapes, "end")
		}
		if len(scrapes) == 0 {
			scrapes = []string{"none"}
		}
		window := "unknown"
		if r.Window.Known() {
			window = fmt.Sprintf("%.1f s (%s)", r.Window.Seconds(), r.Window.Source)
		}
		var env []string
		for _, s := range r.Env.Sources {
			env = append(env, s.Path+" ["+s.Format+"]")
		}
		if len(env) == 0 {
			env = []string{"none"}
		}
		status := "ok"
		if r.Failed {
			status = "FAILED"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Concurrency, r.Repeat, r.Dir, format, rows, excluded,
			strings.Join(scrapes, "+"), window, strings.Join(env, ", "), status)
	}
	tw.Flush()

	var diags []ingest.Diagnostic
	var extras []string
	diags = append(diags, sw.Diagnostics...)
	for _, r := range sw.Runs {
		diags = append(diags, r.Diagnostics...)
		if r.Requests != nil {
			diags = append(diags, r.Requests.Excluded...)
			for _, u := range r.Requests.Unlisted {
				diags = append(diags, u.Diagnostic(r.Requests.Path))
			}
			if len(r.Requests.Requests.ExtraColumns) > 0 {
				extras = append(extras, fmt.Sprintf("%s: extra columns kept by name, not used: %s", r.Requests.Path, strings.Join(r.Requests.Requests.ExtraColumns, ", ")))
			}
		}
	}
	for _, f := range sw.IgnoredFiles {
		diags = append(diags, ingest.Diagnostic{Severity: ingest.Warning, File: f.Path, Reason: "ignored file", Message: "ignored: " + f.Reason})
	}
	if len(extras) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(extras, "\n"))
	}
	code := ExitClean
	if len(diags) > 0 {
		fmt.Fprintf(w, "\n%d diagnostics:\n", len(diags))
	}
	for _, d := range diags {
		d.File = filepath.ToSlash(filepath.Join(sw.Root, filepath.FromSlash(d.File)))
		fmt.Fprintln(w, d.String())
		switch {
		case d.Severity == ingest.Error:
			code = ExitErrors
		case code == ExitClean:
			code = ExitWarnings
		}
	}
	if len(diags) == 0 {
		fmt.Fprintln(w, "\nno problems found")
	}
	return code
}

// excludedSummary counts excluded rows by reason: "3 (non-numeric 2, negative 1)".
func excludedSummary(rf *ingest.RequestFile) string {
	total := rf.ExcludedRows()
	if total == 0 {
		return "0"
	}
	var parts []string
	for _, rc := range rf.ExcludedByReason() {
		parts = append(parts, fmt.Sprintf("%s %d", rc.Reason, rc.Rows))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output directory (written atomically)")
	notebook := fs.String("notebook", "", "Markdown notebook to render instead of the default write-up")
	maxRows := fs.Int("max-rows-per-run", ingest.DefaultMaxRowsPerRun, "refuse a requests file of more rows than this")
	root, err := parseArgs(fs, args)
	if err == nil && *out == "" {
		err = errors.New("-o OUT is required")
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchnote report: %v\n%s", err, usage)
		return ExitErrors
	}
	opts := report.Options{}
	if *notebook != "" {
		data, err := os.ReadFile(*notebook)
		if err != nil {
			fmt.Fprintf(stderr, "benchnote report: %v\n", err)
			return ExitErrors
		}
		opts.Notebook, opts.NotebookName = data, *notebook
	}
	sw, err := ingest.Load(root, ingest.Options{Progress: progressWriter(stderr), MaxRowsPerRun: *maxRows})
	if err != nil {
		fmt.Fprintf(stderr, "benchnote report: %v\n", err)
		return ExitErrors
	}
	if len(sw.Runs) == 0 {
		fmt.Fprintf(stderr, "benchnote report: %s: no run directory found (a run directory holds requests.csv or requests.parquet); nothing to report\n", root)
		return ExitErrors
	}
	summary := analyze.Analyze(sw)
	files, err := report.Build(summary, opts)
	if err != nil {
		fmt.Fprintf(stderr, "benchnote report: %v\n", err)
		return ExitErrors
	}
	if err := report.WriteDir(*out, files); err != nil {
		fmt.Fprintf(stderr, "benchnote report: %v\n", err)
		return ExitErrors
	}
	fmt.Fprintf(stdout, "wrote %s (%d files): report.md, report.html, summary.json, %d plots\n", *out, len(files), len(files)-3)
	for _, f := range summary.Findings {
		if f.Severity == "error" {
			fmt.Fprintf(stderr, "finding: %s: %s\n", f.Rule, f.Message)
		}
	}
	return ExitClean
}
