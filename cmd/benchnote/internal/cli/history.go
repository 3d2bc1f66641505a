package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
	"github.com/benchnote/benchnote/history/render"
	"github.com/benchnote/benchnote/internal/outdir"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
)

func historyCommand() *command {
	def := history.DefaultOptions()
	return &command{
		name:    "history",
		summary: "trend report over an archive: changes, environment segments, change points",
		args:    "ARCHIVE", minArgs: 1, maxArgs: 1,
		requiredFlags: "-o OUT",
		help: `Reads every entry of ARCHIVE (see benchnote archive) and writes
OUT/history.md, history.html and history.json: each headline statistic per
level over time (median ± MAD across runs; per series, one line each, when
the sweeps have series labels; the time axis names entries by their
--label), environment changes and incomparable boundaries, excluded
entries, and change points, grouped by the entry that introduced them.
A change point is found only within one series and one environment
fingerprint, confirmed over two consecutive entries, with compare's test
(each statistic of a series tested once across its levels) and
thresholds; the gate's family of primary statistics (--gate) decides
change points, the others are reported as secondary. Details:
docs/archive.md.

exit codes: 0 written, 2 an error or bad usage.`,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			outDir := fs.String("o", "", "write the history into the directory `OUT` (required)")
			correct := fs.String("correct", def.Compare.Correction, "correction over the tests of the gate's statistics: holm or none")
			gate := fs.String("gate", "", "the gate's family of statistics, which decide change points (`STAT,...`; default "+strings.Join(compare.DefaultGate, ",")+")")
			alpha := fs.Float64("alpha", def.Compare.Alpha, "significance level")
			window := fs.Int("window", def.Window, "number of preceding entries a candidate change is tested against")
			var thresholds listFlag
			fs.Var(&thresholds, "threshold", "smallest change to flag, as for compare (`T`, repeatable)")
			return func(c *call, args []string) int {
				if *outDir == "" {
					return c.usageError("-o OUT is required")
				}
				if *window < 1 {
					return c.usageError("--window %d: at least 1", *window)
				}
				opts := def
				opts.Window = *window
				opts.Compare.Alpha, opts.Compare.Correction = *alpha, *correct
				if flagSet(fs, "gate") {
					for _, k := range strings.Split(*gate, ",") {
						if k = strings.TrimSpace(k); k != "" {
							opts.Compare.Gate = append(opts.Compare.Gate, k)
						}
					}
					if err := compare.CheckGate(opts.Compare.Gate); err != nil {
						return c.usageError("%v", err)
					}
				}
				for _, t := range thresholds {
					th, err := compare.ParseThreshold(t)
					if err != nil {
						return c.usageError("%v", err)
					}
					if th.Key == "" && !th.Points {
						opts.Compare.Threshold = th.Value
					} else {
						opts.Compare.Overrides = append(opts.Compare.Overrides, th)
					}
				}
				if err := opts.Compare.Validate(); err != nil {
					return c.usageError("%v", err)
				}
				// OUT may not be, or hold, the archive.
				if err := outdir.Check(*outDir, outdir.Options{Inputs: args[:1]}); err != nil {
					return c.fail(err)
				}
				a, err := archive.Open(args[0])
				if err != nil {
					return c.fail(err)
				}
				in, err := history.Load(a)
				if err != nil {
					return c.fail(err)
				}
				h := history.Build(in, opts)
				files, err := render.Build(h, args[0])
				if err != nil {
					return c.fail(err)
				}
				if err := report.WriteDir(*outDir, files, args[0]); err != nil {
					return c.fail(err)
				}
				changes := textfmt.Count(h.ChangePoints(), "change point", "change points")
				at := 0
				for _, g := range h.ByEntry {
					if g.ChangePoints > 0 {
						at++
					}
				}
				if at > 0 {
					changes += " at " + textfmt.Count(at, "entry", "entries")
				}
				fmt.Fprintf(c.stdout, "wrote %s: %s, %s, %s (%s, %s, %s)\n", *outDir, render.MarkdownFile, render.HTMLFile, render.JSONFile,
					textfmt.Count(len(h.Entries), "entry", "entries"), textfmt.Count(len(h.Segments), "segment", "segments"), changes)
				return ExitClean
			}
		},
	}
}
