// Package cli is benchnote's command line: flag parsing and wiring of
// ingest → analyze → report. It holds no logic of its own beyond choosing
// what to print and which exit code to return.
package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/outdir"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
)

// Exit codes.
const (
	ExitClean    = 0 // no problem found (info findings only)
	ExitWarnings = 1 // validate: warnings only (rows excluded, files ignored, warning findings, ...)
	ExitErrors   = 2 // errors: a run or file unusable, an error finding, or bad usage
)

// Run executes the command line args (without the program name) and
// returns the exit code. Data goes to stdout; progress, errors and
// usage mistakes go to stderr, each printed once.
func Run(args []string, stdout, stderr io.Writer) int {
	// Input strings (names, messages) must not drive the terminal.
	stdout, stderr = controls.NewWriter(stdout), controls.NewWriter(stderr)
	return run(args, stdout, stderr, system{now: time.Now, isTerminal: isTerminal, redraw: 200 * time.Millisecond})
}

// commands is the command table, in the order "benchnote help" lists them.
//
// To add a command, write a function returning its *command in a file of
// its own (see validateCommand below) and add one line here. The table
// gives every command the same behaviour: -h/--help and "benchnote help
// NAME" print its usage (synopsis, help text, flags) on stdout and exit 0;
// a bad flag or a wrong number of arguments prints one error and the hint
// "run 'benchnote NAME -h' for usage" on stderr and exits 2; flags may
// come before or after the arguments. Inside the run function, return
// c.fail(err) for an error, c.usageError(...) for a usage mistake, and
// use addOutputFlags and c.progress for -q, -v and progress on stderr.
// A command written as func(args []string, stdout, stderr io.Writer) int
// becomes: its flag definitions move into flags, the rest of its body into
// the function flags returns (args are the positional arguments; write to
// c.stdout and c.stderr). For example:
//
//	func importCommand() *command {
//		return &command{
//			name: "import", summary: "turn another tool's results into a sweep",
//			args: "SRC", minArgs: 1, maxArgs: 1, requiredFlags: "-o SWEEP",
//			help: "What it reads, what it writes.\n\nexit codes: 0 ..., 2 errors or bad usage.",
//			flags: func(fs *flag.FlagSet) func(*call, []string) int {
//				out := fs.String("o", "", "write the sweep into `SWEEP` (required)")
//				return func(c *call, args []string) int {
//					if *out == "" {
//						return c.usageError("-o SWEEP is required")
//					}
//					if err := convert(args[0], *out); err != nil {
//						return c.fail(err)
//					}
//					return ExitClean
//				}
//			},
//		}
//	}
//
// Document its flags in docs/cli.md: TestFlagsAreDocumented checks them.
func commands() []*command {
	return []*command{
		validateCommand(),
		reportCommand(),
		importCommand(),
		exportCommand(),
		compareCommand(),
		archiveCommand(),
		historyCommand(),
		helpCommand(),
		versionCommand(),
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is Run with the machine's clock and terminal check replaceable.
func run(args []string, stdout, stderr io.Writer, sys system) int {
	if len(args) == 0 {
		printGlobalUsage(stderr)
		return ExitErrors
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		printGlobalUsage(stdout)
		return ExitClean
	case "-version", "--version":
		printVersion(stdout)
		return ExitClean
	case "-v", "-verbose", "--verbose":
		fmt.Fprintf(stderr, "benchnote: %s (verbose progress) goes after a command, as in 'benchnote report -v SWEEP -o OUT'; for the version run 'benchnote --version'\n", name)
		return ExitErrors
	default:
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(stderr, "benchnote: unknown flag %s\nrun 'benchnote -h' for usage\n", name)
			return ExitErrors
		}
		cmd := lookup(name)
		if cmd == nil {
			fmt.Fprintf(stderr, "benchnote: unknown command %q%s\nrun 'benchnote -h' for usage\n", name, didYouMean(name))
			return ExitErrors
		}
		return cmd.invoke(args[1:], &call{cmd: cmd, stdout: stdout, stderr: stderr, sys: sys})
	}
}

// didYouMean suggests the command name closest to a mistyped one.
func didYouMean(name string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if s := closest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// printGlobalUsage lists the commands from the table.
func printGlobalUsage(w io.Writer) {
	fmt.Fprint(w, `benchnote turns recorded LLM-serving benchmark runs into notebook-style reports.

usage: benchnote COMMAND [flags] [arguments]

commands:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
flags:
  -h, --help  print this help and exit
  --version   print the version and exit

Run 'benchnote help COMMAND' or 'benchnote COMMAND -h' for a command's
arguments and flags.

exit codes: validate 0 clean, 1 warnings, 2 errors; report 0 when the
report was written, 2 when it was not; 2 for bad usage; compare (a CI
gate) 0 pass, 1 flagged regression, 2 not comparable or too few runs,
3 input error or bad usage
`)
}

func printVersion(w io.Writer) { fmt.Fprintln(w, "benchnote", report.Version) }

// isTerminal reports whether w is an interactive terminal.
func isTerminal(w io.Writer) bool {
	f, ok := unwrap(w).(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// unwrap returns the writer under a controls.Writer, or w.
func unwrap(w io.Writer) io.Writer {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		return u.Unwrap()
	}
	return w
}

func helpCommand() *command {
	return &command{
		name:    "help",
		summary: "print the usage of benchnote or of one command",
		args:    "[COMMAND]", minArgs: 0, maxArgs: 1,
		help: "Without COMMAND, lists the commands. With one, prints its usage, as\n'benchnote COMMAND -h' does.",
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			return func(c *call, args []string) int {
				if len(args) == 0 {
					printGlobalUsage(c.stdout)
					return ExitClean
				}
				cmd := lookup(args[0])
				if cmd == nil {
					fmt.Fprintf(c.stderr, "benchnote help: unknown command %q%s\nrun 'benchnote -h' for the list of commands\n", args[0], didYouMean(args[0]))
					return ExitErrors
				}
				fs, _ := cmd.flagSet()
				cmd.printUsage(c.stdout, fs)
				return ExitClean
			}
		},
	}
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the version",
		help:    "Prints \"benchnote\" and the version. Reports are byte-identical for the same\ninputs and version. 'benchnote --version' does the same.",
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			return func(c *call, _ []string) int {
				printVersion(c.stdout)
				return ExitClean
			}
		},
	}
}

func validateCommand() *command {
	return &command{
		name:    "validate",
		summary: "check a sweep and list every problem",
		args:    "SWEEP", minArgs: 1, maxArgs: 1,
		help: `Reads the sweep directory SWEEP (layout: docs/input-format.md), runs the
same analysis and lint as report (without rendering) and prints one row per
run, every diagnostic as path:line:column: severity: message, every lint
finding as severity: rule: message [runs], and a verdict line:
"SWEEP: clean (...)", "SWEEP: warnings (...)" or "SWEEP: errors (...)".
Nothing is written to disk.

exit codes, from the worst diagnostic or finding: 0 clean (info findings
only), 1 warnings (the sweep is usable and the report lists them), 2 errors
(a run or file unusable, an error finding) or bad usage.`,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			asJSON := fs.Bool("json", false, "print the runs, diagnostics and lint findings as one JSON document (schema benchnote.validate/v1, docs/cli.md)")
			maxRows := addMaxRowsFlag(fs)
			out := addOutputFlags(fs, "print only the verdict line (redirect stdout for nothing but the exit code)")
			return func(c *call, args []string) int {
				if err := out.check(); err != nil {
					return c.usageError("%v", err)
				}
				if *asJSON && out.quiet {
					return c.usageError("--json and -q cannot be used together")
				}
				if err := checkMaxRows(*maxRows); err != nil {
					return c.usageError("%v", err)
				}
				p := c.progress(out)
				defer p.close()
				sw, err := ingest.Open(args[0], ingest.Options{RunRead: p.readRuns(), MaxRowsPerRun: *maxRows})
				if err != nil {
					return c.fail(err)
				}
				// The same analysis as report, for the same lint findings;
				// nothing is rendered.
				if len(sw.Runs) == 0 && len(sw.Reported) == 0 && !*asJSON {
					// Nothing to list: one line, not an empty table.
					p.finish()
					return c.fail(fmt.Errorf("no run directory found under %s (a run directory holds requests.csv or requests.parquet)", args[0]))
				}
				summary := analyze.Analyze(sw)
				p.finish()
				switch {
				case *asJSON:
					v := check(sw, summary)
					if err := writeValidationJSON(c.stdout, sw, v); err != nil {
						return c.fail(err)
					}
					return v.exitCode()
				case out.quiet:
					v := check(sw, summary)
					fmt.Fprintln(c.stdout, v.verdictLine(sw))
					return v.exitCode()
				}
				return printValidation(sw, summary, c.stdout)
			}
		},
	}
}

// validation is what validate found in a sweep.
type validation struct {
	// diags holds every diagnostic, in the order validate prints them,
	// with paths joined to the sweep root (slash-separated).
	diags []ingest.Diagnostic
	// findings are the lint findings, most severe first.
	findings []analyze.Finding
	// errors and warnings count diagnostics and findings together.
	errors, warnings int
}

// check collects the sweep's diagnostics — the sweep's own, each run's,
// each excluded row and each ignored file — and the lint findings of its
// analysis.
func check(sw *ingest.Sweep, s *analyze.Summary) validation {
	var v validation
	var notes []analyze.Finding
	v.diags = append(v.diags, sw.Diagnostics...)
	for _, r := range sw.Runs {
		v.diags = append(v.diags, r.Diagnostics...)
		if r.Requests != nil {
			v.diags = append(v.diags, r.Requests.Excluded...)
			for _, u := range r.Requests.Unlisted {
				v.diags = append(v.diags, u.Diagnostic(r.Requests.Path))
			}
		}
	}
	for _, r := range sw.Reported {
		v.diags = append(v.diags, r.Diagnostics...)
	}
	for _, f := range sw.IgnoredFiles {
		if f.Reason == ingest.ReasonBenchnoteReport {
			// benchnote's own output, skipped as it should be: noted,
			// not a warning about the sweep.
			notes = append(notes, analyze.Finding{Severity: "info", Rule: "report-inside-sweep",
				Message: "skipped, as it should be: " + f.Reason, Runs: []string{f.Path}})
			continue
		}
		v.diags = append(v.diags, ingest.Diagnostic{Severity: ingest.Warning, File: f.Path, Reason: "ignored file", Message: "ignored: " + f.Reason})
	}
	for i := range v.diags {
		d := &v.diags[i]
		d.File = filepath.ToSlash(filepath.Join(sw.Root, filepath.FromSlash(d.File)))
		if d.Severity == ingest.Error {
			v.errors++
		} else {
			v.warnings++
		}
	}
	v.findings = append(slices.Clip(s.Findings), notes...)
	for _, f := range v.findings {
		switch f.Severity {
		case "error":
			v.errors++
		case "warning":
			v.warnings++
		}
	}
	return v
}

// verdict is "clean", "warnings" or "errors".
func (v validation) verdict() string {
	switch {
	case v.errors > 0:
		return "errors"
	case v.warnings > 0:
		return "warnings"
	}
	return "clean"
}

// exitCode is ExitErrors with any error, ExitWarnings with warnings only.
func (v validation) exitCode() int {
	switch v.verdict() {
	case "errors":
		return ExitErrors
	case "warnings":
		return ExitWarnings
	}
	return ExitClean
}

// verdictLine is validate's last line, and all -q prints:
// "runs/example: clean (9 runs, no problems found)".
func (v validation) verdictLine(sw *ingest.Sweep) string {
	runs := textfmt.Count(len(sw.Runs), "run", "runs")
	switch v.verdict() {
	case "errors":
		return fmt.Sprintf("%s: errors (%s; %s, %s)", sw.Root, runs, textfmt.Count(v.errors, "error", "errors"), textfmt.Count(v.warnings, "warning", "warnings"))
	case "warnings":
		return fmt.Sprintf("%s: warnings (%s; %s)", sw.Root, runs, textfmt.Count(v.warnings, "warning", "warnings"))
	}
	return fmt.Sprintf("%s: clean (%s, no problems found)", sw.Root, runs)
}

// printValidation writes the per-run table, every diagnostic, every lint
// finding and the verdict line, and returns the exit code of the worst of
// them.
func printValidation(sw *ingest.Sweep, s *analyze.Summary, w io.Writer) int {
	cols := newRunColumns(sw.Runs)
	fmt.Fprintf(w, "sweep %s: %s at %s%s\n", controls.Escape(sw.Root), textfmt.Count(len(sw.Runs), "run", "runs"), textfmt.Count(cols.levels, cols.levelNoun, cols.levelNoun+"s"), cols.seriesNote)
	fmt.Fprintf(w, "method: %s percentiles, %s MAD, warm-up %s\n\n", sw.Config.Percentile, sw.Config.MAD, sw.Config.Warmup.Mode)
	printRunTable(w, sw.Runs, cols)
	printExtraColumns(w, sw.Runs)
	printGPUTelemetry(w, sw.Runs)
	printReported(w, sw.Reported)
	v := check(sw, s)
	v.print(w, sw)
	return v.exitCode()
}

// runColumns are the level and series columns of validate's run table.
type runColumns struct {
	// levels counts the sweep's levels (of every series).
	levels int
	// levelNoun names a level in the first line, levelHead heads its
	// column and levelCell fills it.
	levelNoun, levelHead string
	levelCell            func(*ingest.Run) string
	// seriesNote (" of 2 series") is empty for a sweep without series
	// labels; else seriesHead and seriesCell add a SERIES column.
	seriesNote, seriesHead string
	seriesCell             func(*ingest.Run) string
}

// newRunColumns returns the level and series columns for runs.
func newRunColumns(runs []*ingest.Run) runColumns {
	type levelID struct {
		series ingest.Series
		load   ingest.LoadLevel
	}
	levels := map[levelID]bool{}
	series := map[ingest.Series]bool{}
	rates := false
	for _, r := range runs {
		levels[levelID{r.Series, r.Load}] = true
		series[r.Series] = true
		rates = rates || r.Load.Mode == ingest.ModeRate
	}
	// A sweep of concurrency levels keeps its plain CONC column; one with
	// request rates names every level.
	cols := runColumns{levels: len(levels), levelNoun: "concurrency level", levelHead: "CONC",
		levelCell:  func(r *ingest.Run) string { return fmt.Sprint(r.Concurrency) },
		seriesCell: func(*ingest.Run) string { return "" }}
	if rates {
		cols.levelNoun, cols.levelHead = "load level", "LEVEL"
		cols.levelCell = func(r *ingest.Run) string {
			if !r.Load.Valid() {
				return "-"
			}
			return r.Load.Describe()
		}
	}
	if len(series) > 1 || !series[ingest.Series{}] && len(series) == 1 {
		cols.seriesNote = fmt.Sprintf(" of %d series", len(series))
		// A sweep with series labels names each run's in a column of its own.
		cols.seriesHead = "SERIES\t"
		cols.seriesCell = func(r *ingest.Run) string {
			if r.Series.IsZero() {
				return "-\t"
			}
			return controls.Escape(r.Series.String()) + "\t"
		}
	}
	return cols
}

// printRunTable writes the table of runs, one line each.
func printRunTable(w io.Writer, runs []*ingest.Run, cols runColumns) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, cols.seriesHead+cols.levelHead+"\tREPEAT\tRUN\tFORMAT\tROWS\tEXCLUDED\tSCRAPES\tWINDOW\tENVIRONMENT\tSTATUS")
	for _, r := range runs {
		cells := runCells(r)
		for i, c := range cells {
			cells[i] = controls.Escape(c) // a tab or newline in a name must not break the table
		}
		fmt.Fprintf(tw, "%s%s\t%d\t%s\n", cols.seriesCell(r), cols.levelCell(r), r.Repeat, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// runCells are a run's cells from RUN to STATUS, not yet escaped.
func runCells(r *ingest.Run) []string {
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
	switch {
	case r.Failed:
		status = "FAILED"
	case r.DuplicateOf != "":
		status = "duplicate of " + r.DuplicateOf
	}
	return []string{r.Dir, format, rows, excluded, strings.Join(scrapes, "+"), window, strings.Join(env, ", "), status}
}

// printExtraColumns names, per request file, the extra columns kept by
// name.
func printExtraColumns(w io.Writer, runs []*ingest.Run) {
	var extras []string
	for _, r := range runs {
		if r.Requests != nil && len(r.Requests.Requests.ExtraColumns) > 0 {
			extras = append(extras, fmt.Sprintf("%s: extra columns kept by name, not used: %s", r.Requests.Path, strings.Join(r.Requests.Requests.ExtraColumns, ", ")))
		}
	}
	if len(extras) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(extras, "\n"))
	}
}

// printGPUTelemetry writes a line per run with GPU telemetry: its GPUs and
// the files read, used and not read.
func printGPUTelemetry(w io.Writer, runs []*ingest.Run) {
	var gpu []string
	for _, r := range runs {
		if r.GPU != nil {
			gpu = append(gpu, controls.Escape(gpuLine(r)))
		}
	}
	if len(gpu) > 0 {
		fmt.Fprintf(w, "\nGPU telemetry:\n%s\n", strings.Join(gpu, "\n"))
	}
}

// gpuLine is printGPUTelemetry's line for r, not yet escaped.
func gpuLine(r *ingest.Run) string {
	var files []string
	for _, f := range r.GPU.Files {
		file := fmt.Sprintf("%s [%s] %s read, %d used", path.Base(f.Path), f.Format, textfmt.Count(f.Rows, "row", "rows"), f.Used)
		for _, e := range f.Excluded {
			file += fmt.Sprintf(", %d %s", e.Rows, e.Reason)
		}
		files = append(files, file)
	}
	for _, u := range r.GPU.Unread {
		files = append(files, path.Base(u.Path)+" not read ("+u.Reason+")")
	}
	line := fmt.Sprintf("  %s: %s from %s", r.Dir, textfmt.Count(len(r.GPU.GPUs), "GPU", "GPUs"), strings.Join(files, "; "))
	if r.GPU.Unplaced != "" {
		line += "; not placed in the window: " + r.GPU.Unplaced
	}
	return line
}

// printReported lists the runs known only by their tools' aggregates.
func printReported(w io.Writer, reported []*ingest.ReportedRun) {
	if len(reported) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s known only by their tools' aggregates (reported.yaml: shown as reported, in no level):\n", textfmt.Count(len(reported), "run", "runs"))
	for _, r := range reported {
		tool := "?"
		if r.Provenance != nil {
			tool = r.Provenance.Tool
		}
		fmt.Fprintf(w, "  %s (%s)\n", r.Dir, tool)
	}
}

// print writes the diagnostics, the findings and the verdict line.
func (v validation) print(w io.Writer, sw *ingest.Sweep) {
	if len(v.diags) > 0 {
		fmt.Fprintf(w, "\n%s:\n", textfmt.Count(len(v.diags), "diagnostic", "diagnostics"))
	}
	for _, d := range v.diags {
		fmt.Fprintln(w, controls.Escape(d.String()))
	}
	if len(v.findings) > 0 {
		fmt.Fprintf(w, "\n%s:\n", textfmt.Count(len(v.findings), "finding", "findings"))
	}
	for _, f := range v.findings {
		fmt.Fprintln(w, findingLine(f))
	}
	fmt.Fprintf(w, "\n%s\n", v.verdictLine(sw))
}

// maxRunsShown is how many of a finding's runs one line names.
const maxRunsShown = 5

// findingLine renders a finding on one line: severity, rule, message and
// the first runs it names.
func findingLine(f analyze.Finding) string {
	line := fmt.Sprintf("%s: %s: %s", f.Severity, f.Rule, f.Message)
	if len(f.Runs) > 0 {
		runs := f.Runs
		more := ""
		if len(runs) > maxRunsShown {
			runs, more = runs[:maxRunsShown], fmt.Sprintf("; %d more", len(f.Runs)-maxRunsShown)
		}
		line += " [" + strings.Join(runs, "; ") + more + "]"
	}
	return oneLine(line)
}

// oneLine escapes control characters (newlines, NUL, terminal escapes),
// so that a string from the inputs prints as one inert line.
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
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

func reportCommand() *command {
	return &command{
		name:    "report",
		summary: "write the report of a sweep: report.md, report.html, pr.md, summary.json, plots",
		args:    "SWEEP", minArgs: 1, maxArgs: 1,
		requiredFlags: "-o OUT",
		help: `Reads the sweep directory SWEEP (layout: docs/input-format.md), computes the
serving metrics as docs/measurement-rules.md states them, and writes
OUT/report.md, OUT/report.html, OUT/pr.md (the first screen, for a
pull-request comment: at most 60,000 characters, no images or links),
OUT/summary.json and OUT/plots/*.svg. The report is rendered from the
default notebook, or from your own with --notebook. Goodput uses the SLOs
of sweep.yaml, or the defaults of the measurement rules; --slo overrides
them. OUT must be absent, an empty directory or a report benchnote
wrote (it holds .benchnote-report); anything else is refused and left
untouched. The new report replaces the old one atomically; a failure
leaves OUT as it was.

exit codes: 0 report written, whatever it found (its error and warning
findings are repeated on stderr; use validate to fail on them), 2 the
report was not written, or bad usage.`,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			outDir := fs.String("o", "", "write the report into the directory `OUT` (required)")
			notebook := fs.String("notebook", "", "render the Markdown notebook `FILE` instead of the default write-up")
			slo := fs.String("slo", "", "goodput targets overriding sweep.yaml's, as a `LIST` such as ttft=500ms,tpot=50ms,e2e=10s,attainment=95% (0 disables a target)")
			maxRows := addMaxRowsFlag(fs)
			out := addOutputFlags(fs, "print nothing on success; errors and repeated findings still go to stderr")
			return func(c *call, args []string) int {
				if *outDir == "" {
					return c.usageError("-o OUT is required")
				}
				if err := out.check(); err != nil {
					return c.usageError("%v", err)
				}
				if err := checkMaxRows(*maxRows); err != nil {
					return c.usageError("%v", err)
				}
				override, err := parseSLO(*slo)
				if err != nil {
					return c.usageError("--slo: %v", err)
				}
				root := args[0]
				inputs := []string{root}
				if *notebook != "" {
					inputs = append(inputs, *notebook)
				}
				// Refuse a bad OUT before the work; WriteDir checks again under its lock.
				if err := outdir.Check(*outDir, outdir.Options{Inputs: inputs}); err != nil {
					return c.fail(err)
				}
				opts := report.Options{}
				if *notebook != "" {
					data, err := report.ReadNotebook(*notebook)
					if err != nil {
						return c.fail(err)
					}
					opts.Notebook, opts.NotebookName = data, *notebook
				}
				p := c.progress(out)
				defer p.close()
				sw, err := ingest.Open(root, ingest.Options{RunRead: p.readRuns(), MaxRowsPerRun: *maxRows})
				if err != nil {
					return c.fail(err)
				}
				if len(sw.Runs) == 0 && len(sw.Reported) == 0 {
					return c.fail(fmt.Errorf("%s: no run directory found (a run directory holds requests.csv or requests.parquet); nothing to report", root))
				}
				override.apply(&sw.Config)
				summary := analyze.Analyze(sw)
				p.stage("rendering", "rendered")
				files, err := report.Build(summary, opts)
				if err != nil {
					return c.fail(err)
				}
				p.stage("writing", "wrote the files")
				if err := report.WriteDir(*outDir, files, inputs...); err != nil {
					return c.fail(err)
				}
				p.finish()
				if !out.quiet {
					fmt.Fprintf(c.stdout, "wrote %s (%s): report.md, report.html, pr.md, summary.json, %s\n", *outDir,
						textfmt.Count(len(files), "file", "files"), textfmt.Count(len(files)-4, "plot", "plots"))
				}
				// The report is written, so the exit code is 0; its problems
				// are repeated here so that a script or a person watching the
				// terminal sees them (benchnote validate exits non-zero on them).
				for _, f := range summary.Findings {
					if f.Severity == "error" || f.Severity == "warning" {
						fmt.Fprintln(c.stderr, "benchnote report: "+findingLine(f))
					}
				}
				return ExitClean
			}
		},
	}
}

// addMaxRowsFlag adds --max-rows-per-run, the most rows a run's requests
// file may hold (validate and report); checkMaxRows checks the value.
func addMaxRowsFlag(fs *flag.FlagSet) *int {
	return fs.Int("max-rows-per-run", ingest.DefaultMaxRowsPerRun, "fail a run whose requests file holds more than `N` rows")
}

// checkMaxRows refuses a --max-rows-per-run below 1, which would otherwise
// mean the default without saying so.
func checkMaxRows(n int) error {
	if n < 1 {
		return fmt.Errorf("--max-rows-per-run %d: expected at least 1", n)
	}
	return nil
}
