package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/report"
)

// runArchive is `benchnote archive add|list|exclude`.
func runArchive(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "benchnote archive: expected add, list or exclude\n%s", usage)
		return ExitErrors
	}
	switch args[0] {
	case "add":
		return archiveAdd(args[1:], stdout, stderr)
	case "list":
		return archiveList(args[1:], stdout, stderr)
	case "exclude":
		return archiveExclude(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "benchnote archive: unknown subcommand %q (expected add, list or exclude)\n%s", args[0], usage)
	return ExitErrors
}

func archiveAdd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("archive add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "archive directory (created when absent or empty)")
	label := fs.String("label", "", "label stored with the entry: a git revision or any text")
	when := fs.String("time", "", "the sweep's time (RFC 3339 or a date) instead of its earliest request send time")
	pos, err := parsePositional(fs, args)
	switch {
	case err != nil:
		return ExitErrors
	case len(pos) != 1:
		err = fmt.Errorf("expected one sweep directory, got %d arguments", len(pos))
	case *to == "":
		err = errors.New("--to ARCHIVE is required")
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchnote archive add: %v\n%s", err, usage)
		return ExitErrors
	}
	opts := archive.AddOptions{Label: *label, Version: report.Version}
	if *when != "" {
		if opts.Time, err = archive.ParseTime(*when); err != nil {
			fmt.Fprintf(stderr, "benchnote archive add: %v\n", err)
			return ExitErrors
		}
	}
	e, err := archive.Add(*to, pos[0], opts)
	if err != nil {
		fmt.Fprintf(stderr, "benchnote archive add: %v\n", err)
		return ExitErrors
	}
	fmt.Fprintf(stdout, "added entry %s to %s: %d levels, %d inputs, time %s (%s)\n", e.ID, *to, len(e.Levels), len(e.Inputs), e.Time, e.TimeSource)
	if len(e.Ignored) > 0 {
		fmt.Fprintf(stdout, "not archived (not inputs): %d file(s), listed in entry.json\n", len(e.Ignored))
	}
	return ExitClean
}

func archiveList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("archive list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pos, err := parsePositional(fs, args)
	if err != nil {
		return ExitErrors
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "benchnote archive list: expected one archive directory, got %d arguments\n%s", len(pos), usage)
		return ExitErrors
	}
	a, err := archive.Open(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "benchnote archive list: %v\n", err)
		return ExitErrors
	}
	entries, err := a.Entries()
	if err != nil {
		fmt.Fprintf(stderr, "benchnote archive list: %v\n", err)
		return ExitErrors
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tLABEL\tLEVELS\tRUNS\tFINGERPRINT\tSTATUS\tTITLE")
	for _, e := range entries {
		runs := 0
		for _, l := range e.Levels {
			runs += l.Runs
		}
		status := "included"
		if e.Excluded != nil {
			status = "excluded: " + oneLine(e.Excluded.Why)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", e.ID, e.When().UTC().Format(time.RFC3339), orDash(oneLine(e.Label)),
			len(e.Levels), runs, e.Fingerprint, status, oneLine(e.Title))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d entries\n", len(entries))
	return ExitClean
}

func archiveExclude(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("archive exclude", flag.ContinueOnError)
	fs.SetOutput(stderr)
	why := fs.String("why", "", "why the entry is excluded (required)")
	pos, err := parsePositional(fs, args)
	if err != nil {
		return ExitErrors
	}
	if len(pos) != 2 {
		fmt.Fprintf(stderr, "benchnote archive exclude: expected ARCHIVE and ID, got %d arguments\n%s", len(pos), usage)
		return ExitErrors
	}
	a, err := archive.Open(pos[0])
	if err == nil {
		var e archive.Listed
		e, err = a.Exclude(pos[1], *why, report.Version)
		if err == nil {
			fmt.Fprintf(stdout, "excluded entry %s (%s): %s\n", e.ID, e.Time, e.Excluded.Why)
			return ExitClean
		}
	}
	fmt.Fprintf(stderr, "benchnote archive exclude: %v\n", err)
	return ExitErrors
}

// oneLine keeps a value from the inputs on one line of a listing.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
