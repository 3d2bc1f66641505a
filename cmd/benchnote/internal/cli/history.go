package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
	"github.com/benchnote/benchnote/history/render"
	"github.com/benchnote/benchnote/report"
)

// runHistory is `benchnote history ARCHIVE -o OUT`.
func runHistory(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output directory for history.md, history.html, history.json (written atomically)")
	def := history.DefaultOptions()
	correct := fs.String("correct", compare.CorrectionNone, "correction over all change-point tests: none or holm")
	alpha := fs.Float64("alpha", def.Compare.Alpha, "significance level")
	window := fs.Int("window", def.Window, "entries of the same environment a candidate change is tested against")
	var thresholds listFlag
	fs.Var(&thresholds, "threshold", "smallest change to flag, as for compare (repeatable)")
	pos, err := parsePositional(fs, args)
	switch {
	case err != nil:
		return ExitErrors
	case len(pos) != 1:
		err = fmt.Errorf("expected one archive directory, got %d arguments", len(pos))
	case *out == "":
		err = errors.New("-o OUT is required")
	case *window < 1:
		err = fmt.Errorf("--window %d: at least 1", *window)
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchnote history: %v\n%s", err, usage)
		return ExitErrors
	}
	opts := def
	opts.Window = *window
	opts.Compare.Alpha, opts.Compare.Correction = *alpha, *correct
	for _, t := range thresholds {
		th, err := compare.ParseThreshold(t)
		if err != nil {
			fmt.Fprintf(stderr, "benchnote history: %v\n", err)
			return ExitErrors
		}
		if th.Key == "" && !th.Points {
			opts.Compare.Threshold = th.Value
		} else {
			opts.Compare.Overrides = append(opts.Compare.Overrides, th)
		}
	}
	if err := opts.Compare.Validate(); err != nil {
		fmt.Fprintf(stderr, "benchnote history: %v\n", err)
		return ExitErrors
	}
	a, err := archive.Open(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "benchnote history: %v\n", err)
		return ExitErrors
	}
	in, err := history.Load(a)
	if err != nil {
		fmt.Fprintf(stderr, "benchnote history: %v\n", err)
		return ExitErrors
	}
	h := history.Build(in, opts)
	files, err := render.Build(h, pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "benchnote history: %v\n", err)
		return ExitErrors
	}
	if err := report.WriteDir(*out, files); err != nil {
		fmt.Fprintf(stderr, "benchnote history: %v\n", err)
		return ExitErrors
	}
	changes := 0
	for _, c := range h.Changes {
		if c.Kind == history.KindChange {
			changes++
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %s, %s (%d entries, %d segment(s), %d change point(s))\n", *out,
		render.MarkdownFile, render.HTMLFile, render.JSONFile, len(h.Entries), len(h.Segments), changes)
	return ExitClean
}
