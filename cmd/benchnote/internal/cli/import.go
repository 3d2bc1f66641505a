package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/ingest/importer"
)

const importUsage = `usage: benchnote import [--format F] [--level c=N|rate=R|rate=inf] [--max-requests N] FILE|DIR... -o SWEEP
`

// runImport converts other tools' result files into a sweep directory.
func runImport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "sweep directory to write (atomically; an existing one only when it is a previous import)")
	format := fs.String("format", "", "the files' format, instead of detecting it from their content: "+formatNames())
	level := fs.String("level", "", "load level of files that do not record one: c=N, rate=R or rate=inf")
	maxRequests := fs.Int("max-requests", importer.DefaultMaxRequests, "refuse a file holding more requests than this")
	var files []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			fmt.Fprint(stderr, importUsage)
			return ExitErrors
		}
		rest = fs.Args()
		if len(rest) > 0 {
			files = append(files, rest[0])
			rest = rest[1:]
		}
	}
	var err error
	switch {
	case len(files) == 0:
		err = errors.New("expected at least one result file or directory")
	case *out == "":
		err = errors.New("-o SWEEP is required")
	}
	opts := importer.Options{MaxRequests: *maxRequests}
	if err == nil && *format != "" {
		opts.Format, err = importer.ParseFormat(*format)
	}
	if err == nil && *level != "" {
		opts.Level, err = ingest.ParseLoadKey(*level)
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchnote import: %v\n%s", err, importUsage)
		return ExitErrors
	}
	imp, err := importer.ImportFiles(files, opts)
	if err != nil {
		fmt.Fprintf(stderr, "benchnote import: %v\n", err)
		return ExitErrors
	}
	if len(imp.Runs) == 0 {
		fmt.Fprintf(stderr, "benchnote import: nothing to import from %s\n", strings.Join(files, ", "))
		return ExitErrors
	}
	written, err := importer.Layout(imp)
	if err == nil {
		err = importer.Write(*out, written)
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchnote import: %v\n", err)
		return ExitErrors
	}
	printImport(stdout, *out, imp)
	for _, w := range imp.Warnings() {
		fmt.Fprintf(stderr, "benchnote import: warning: %s\n", w)
	}
	return ExitClean
}

// printImport lists the runs written, one line each, and the files skipped.
func printImport(w io.Writer, out string, imp *importer.Import) {
	reported := 0
	for _, r := range imp.Runs {
		if r.Requests == nil {
			reported++
		}
	}
	fmt.Fprintf(w, "wrote %s: %s with per-request records, %d with the tool's aggregates only, from %s\n\n",
		out, count(len(imp.Runs)-reported, "run"), reported, count(len(imp.Files), "file"))
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Dir, level, requests, r.Source, tool)
	}
	tw.Flush()
	for _, s := range imp.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.Path, s.Note)
	}
}

// count writes "1 run", "3 runs".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func formatNames() string {
	var names []string
	for _, f := range importer.Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}
