package cli

import (
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
)

func archiveCommand() *command {
	return &command{
		name:    "archive",
		summary: "keep sweeps in an append-only archive: add, list, exclude, verify",
		args:    "add SWEEP | list ARCHIVE | exclude ARCHIVE ID | verify ARCHIVE", minArgs: 1, maxArgs: 3,
		help: `archive add SWEEP --to ARCHIVE [--label L] [--time T]
    copies the sweep's inputs into a new entry of ARCHIVE (created when absent
    or empty), analyses the copy and writes summary.json, stats.parquet and
    entry.json. The entry is named by a content hash of the inputs; adding
    the same inputs twice is refused, naming the existing entry. Its time is
    the earliest request send time or window start, or --time.
archive list ARCHIVE
    lists the entries, oldest first, with their status; an entry whose files
    are missing or of another size than recorded is "modified", one whose
    entry.json cannot be read "unreadable" (history leaves both out).
archive exclude ARCHIVE ID --why TEXT
    marks an entry as excluded (ID may be a unique prefix); nothing is deleted.
archive verify ARCHIVE
    re-hashes every file of every entry and names each one that changed,
    was added or is missing.

Layout, the stats.parquet columns and a DuckDB query: docs/archive.md.

exit codes: 0 done (verify: every entry intact), 2 an error, bad usage, or
(verify) an entry that changed.`,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			to := fs.String("to", "", "add: the archive directory `ARCHIVE` (required)")
			label := fs.String("label", "", "add: a label stored with the entry, e.g. a git revision (`L`)")
			when := fs.String("time", "", "add: the sweep's time `T` (RFC 3339 or a date) instead of its earliest request send time")
			why := fs.String("why", "", "exclude: why the entry is excluded (`TEXT`, required)")
			return func(c *call, args []string) int {
				set := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
				only := func(sub string, allowed ...string) int {
					ok := map[string]bool{}
					for _, a := range allowed {
						ok[a] = true
					}
					for _, name := range []string{"to", "label", "time", "why"} {
						if set[name] && !ok[name] {
							return c.usageError("%s does not apply to archive %s", dash(name), sub)
						}
					}
					return -1
				}
				switch args[0] {
				case "add":
					if code := only("add", "to", "label", "time"); code >= 0 {
						return code
					}
					if len(args) != 2 {
						return c.usageError("archive add takes one sweep directory, got %s after add", textfmt.Count(len(args)-1, "argument", "arguments"))
					}
					if *to == "" {
						return c.usageError("archive add: --to ARCHIVE is required")
					}
					opts := archive.AddOptions{Label: *label, Version: report.Version}
					if *when != "" {
						t, err := archive.ParseTime(*when)
						if err != nil {
							return c.usageError("%v", err)
						}
						opts.Time = t
					}
					e, err := archive.Add(*to, args[1], opts)
					if err != nil {
						return c.fail(err)
					}
					levels := textfmt.Count(len(e.Levels), "level", "levels")
					if n := entrySeries(e); n > 1 {
						levels += fmt.Sprintf(" of %d series", n)
					}
					fmt.Fprintf(c.stdout, "added entry %s to %s: %s, %s, time %s (%s)\n", e.ID, *to,
						levels, textfmt.Count(len(e.Inputs), "input file", "input files"), e.Time, e.TimeSource)
					if len(e.Ignored) > 0 {
						fmt.Fprintf(c.stdout, "not archived (not inputs of the analysis): %s, listed in entry.json\n", textfmt.Count(len(e.Ignored), "file", "files"))
					}
					return ExitClean
				case "list":
					if code := only("list"); code >= 0 {
						return code
					}
					if len(args) != 2 {
						return c.usageError("archive list takes one archive directory, got %s after list", textfmt.Count(len(args)-1, "argument", "arguments"))
					}
					return archiveList(c, args[1])
				case "verify":
					if code := only("verify"); code >= 0 {
						return code
					}
					if len(args) != 2 {
						return c.usageError("archive verify takes one archive directory, got %s after verify", textfmt.Count(len(args)-1, "argument", "arguments"))
					}
					return archiveVerify(c, args[1])
				case "exclude":
					if code := only("exclude", "why"); code >= 0 {
						return code
					}
					if len(args) != 3 {
						return c.usageError("archive exclude takes ARCHIVE and ID, got %s after exclude", textfmt.Count(len(args)-1, "argument", "arguments"))
					}
					a, err := archive.Open(args[1])
					if err != nil {
						return c.fail(err)
					}
					e, err := a.Exclude(args[2], *why, report.Version)
					if err != nil {
						return c.fail(err)
					}
					fmt.Fprintf(c.stdout, "excluded entry %s (%s): %s\n", e.ID, e.Time, oneLine(e.Excluded.Why))
					return ExitClean
				}
				return c.usageError("unknown archive subcommand %q (expected add, list, exclude or verify)", args[0])
			}
		},
	}
}

// entrySeries counts the distinct series of an entry's levels.
func entrySeries(e archive.Entry) int {
	seen := map[ingest.Series]bool{}
	for _, l := range e.Levels {
		seen[l.Level.Series] = true
	}
	return len(seen)
}

// archiveList prints one line per entry, oldest first.
func archiveList(c *call, dir string) int {
	a, err := archive.Open(dir)
	if err != nil {
		return c.fail(err)
	}
	entries, err := a.Entries()
	if err != nil {
		return c.fail(err)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tLABEL\tLEVELS\tRUNS\tFINGERPRINT\tSTATUS\tTITLE")
	for _, e := range entries {
		runs := 0
		for _, l := range e.Levels {
			runs += l.Runs
		}
		status := "included"
		switch {
		case e.Unreadable != "":
			status = "unreadable"
		case len(e.Modified) > 0:
			status = fmt.Sprintf("modified (%s; benchnote archive verify names them)", textfmt.Count(len(e.Modified), "difference", "differences"))
		case e.Excluded != nil:
			status = "excluded: " + oneLine(e.Excluded.Why)
		}
		if e.Unreadable != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s\t-\n", e.ID, status)
			continue
		}
		label := oneLine(e.Label)
		if label == "" {
			label = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", e.ID, e.When().UTC().Format(time.RFC3339), label,
			len(e.Levels), runs, e.Fingerprint, status, oneLine(e.Title))
	}
	tw.Flush()
	fmt.Fprintln(c.stdout, textfmt.Count(len(entries), "entry", "entries"))
	return ExitClean
}

// archiveVerify re-hashes every entry and prints, per entry, "ok" or what
// changed, one line each.
func archiveVerify(c *call, dir string) int {
	a, err := archive.Open(dir)
	if err != nil {
		return c.fail(err)
	}
	entries, err := a.Verify()
	if err != nil {
		return c.fail(err)
	}
	bad := 0
	for _, e := range entries {
		switch {
		case e.Unreadable != "":
			bad++
			fmt.Fprintf(c.stdout, "%s  unreadable: %s\n", e.ID, oneLine(e.Unreadable))
		case len(e.Modified) > 0:
			bad++
			fmt.Fprintf(c.stdout, "%s  modified:\n", e.ID)
			for _, m := range e.Modified {
				fmt.Fprintf(c.stdout, "    %s\n", oneLine(m))
			}
		default:
			fmt.Fprintf(c.stdout, "%s  ok\n", e.ID)
		}
	}
	if bad > 0 {
		fmt.Fprintf(c.stdout, "%s of %d changed since they were added\n", textfmt.Count(bad, "entry", "entries"), len(entries))
		return ExitErrors
	}
	fmt.Fprintf(c.stdout, "%s intact\n", textfmt.Count(len(entries), "entry", "entries"))
	return ExitClean
}
