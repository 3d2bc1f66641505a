package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/ingest/importer"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// importCommand converts other tools' result files into a sweep directory.
func importCommand() *command {
	return &command{
		name:    "import",
		summary: "convert other benchmark tools' results into a sweep (docs/import.md)",
		args:    "FILE|DIR...", minArgs: 1, maxArgs: -1,
		requiredFlags: "-o SWEEP",
		help: `Reads result files of vLLM bench serve, SGLang bench_serving, GenAI-Perf,
AIPerf, GuideLLM, LLMPerf or inference-perf (the format is detected from the
content unless --format names it) and writes them as a sweep: one run
directory per run with requests.parquet, run.yaml and env.json, so validate,
report and compare read them unchanged. SWEEP is written atomically and
only replaced when it is a previous import (benchnote-import.yaml).

exit codes: 0 imported, 2 an input could not be imported, or bad usage.`,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			out := fs.String("o", "", "write the sweep into the directory `SWEEP` (required; atomically; an existing one only when it is a previous import)")
			format := fs.String("format", "", "the files' `format`, instead of detecting it from their content: "+formatNames())
			level := fs.String("level", "", "load `level` of files that do not record one: c=N, rate=R or rate=inf")
			maxRequests := fs.Int("max-requests", importer.DefaultMaxRequests, "refuse a file holding more than `N` requests (at least 1)")
			return func(c *call, files []string) int {
				if *out == "" {
					return c.usageError("-o SWEEP is required")
				}
				if *maxRequests < 1 {
					// 0 or less would mean the default to the importer:
					// a limit the user did not ask for.
					return c.usageError("--max-requests %d: expected a number of requests of at least 1", *maxRequests)
				}
				opts := importer.Options{MaxRequests: *maxRequests}
				var err error
				if *format != "" {
					if opts.Format, err = importer.ParseFormat(*format); err != nil {
						return c.usageError("%v", err)
					}
				}
				if *level != "" {
					if opts.Level, err = ingest.ParseLoadKey(*level); err != nil {
						return c.usageError("%v", err)
					}
				}
				imp, err := importer.ImportFiles(files, opts)
				if err != nil {
					return c.fail(err)
				}
				if len(imp.Runs) == 0 {
					var why []string
					for _, sk := range imp.Skipped {
						why = append(why, sk.Path+": "+sk.Note)
					}
					if len(why) > 0 {
						return c.fail(fmt.Errorf("nothing to import from %s; skipped %s", strings.Join(files, ", "), strings.Join(why, "; ")))
					}
					return c.fail(fmt.Errorf("nothing to import from %s", strings.Join(files, ", ")))
				}
				written, err := importer.Layout(imp)
				if err == nil {
					err = importer.Write(*out, written, files)
				}
				if err != nil {
					return c.fail(err)
				}
				printImport(c.stdout, *out, imp)
				for _, w := range imp.Warnings() {
					fmt.Fprintf(c.stderr, "benchnote import: warning: %s\n", w)
				}
				return ExitClean
			}
		},
	}
}

// printImport lists the runs written, one line each, which series labels
// they were given and why, and the files skipped.
// Names and the tool's version come from the command line, the file system
// and the files themselves: their control characters (a newline, a tab)
// are escaped, so no name can break the table or forge a row.
func printImport(w io.Writer, out string, imp *importer.Import) {
	reported := 0
	for _, r := range imp.Runs {
		if r.Requests == nil {
			reported++
		}
	}
	fmt.Fprintf(w, "wrote %s: %s with per-request records, %d with the tool's aggregates only, from %s\n\n",
		controls.Escape(out), textfmt.Count(len(imp.Runs)-reported, "run", "runs"), reported, textfmt.Count(len(imp.Files), "file", "files"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tLEVEL\tREQUESTS\tSOURCE\tTOOL")
	for _, r := range imp.Runs {
		requests := "aggregates only"
		if r.Requests != nil {
			requests = fmt.Sprint(r.Requests.N)
		}
		level := "unknown"
		if r.Config.Load.Valid() {
			level = r.Config.Load.Describe()
		}
		tool := r.Config.Provenance.Tool
		if v := r.Config.Provenance.Version; v != "" {
			tool += " (" + v + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", controls.Escape(r.Dir), level, requests, controls.Escape(r.Source), controls.Escape(tool))
	}
	tw.Flush()
	if imp.SeriesNote != "" {
		fmt.Fprintf(w, "\n%s\n", controls.Escape(imp.SeriesNote))
	}
	for _, s := range imp.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", controls.Escape(s.Path), controls.Escape(s.Note))
	}
}

func formatNames() string {
	var names []string
	for _, f := range importer.Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}
