package cli

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchnote/benchnote/export"
	"github.com/benchnote/benchnote/internal/outdir"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/report"
)

func exportCommand() *command {
	return &command{
		name:    "export",
		summary: "write benchnote's analysis in another tool's format: llm-d Benchmark Report v0.2",
		args:    "SWEEP|summary.json", minArgs: 1, maxArgs: 1,
		requiredFlags: "--format llm-d -o OUT",
		help: `Reads a sweep (analysed as benchnote report would), a report directory or its
summary.json, and writes an llm-d Benchmark Report v0.2 (the common schema
of llm-d-benchmark) per load level: one report per stage, one stage per
level. Every figure of a stage is the median across the level's runs of
each run's statistic, as in summary.json (ttft.p95 is the median of the
runs' p95s, not a pooled percentile); each report says so in
run.description and run.keywords (medians-across-runs).

OUT ending in .yaml, .yml or .json is one file, in that encoding, for a
sweep of one level; otherwise OUT is a directory holding one
benchmark_report_v0.2_stage_N_LEVEL.yaml per level, written as report
writes its directory. A file is replaced only when benchnote wrote it and
nobody changed it since (its run.uid is the digest of its content); a
directory only when it is absent, empty or one benchnote wrote. Anything
else is refused and left untouched; the new output replaces the old
atomically.

exit codes: 0 written, 2 an error or bad usage.`,
		flags: func(fs *flag.FlagSet) func(*call, []string) int {
			format := fs.String("format", "", "the format to write: llm-d (required)")
			outPath := fs.String("o", "", "write to `OUT`: a .yaml/.yml/.json file (one level) or a directory (required)")
			out := addOutputFlags(fs, "print nothing on success")
			return func(c *call, args []string) int {
				if *format == "" {
					return c.usageError("--format llm-d is required")
				}
				if *format != "llm-d" {
					return c.usageError("--format %q: benchnote exports llm-d (llm-d Benchmark Report v0.2)", *format)
				}
				if *outPath == "" {
					return c.usageError("-o OUT is required")
				}
				if err := out.check(); err != nil {
					return c.usageError("%v", err)
				}
				ext := strings.ToLower(filepath.Ext(*outPath))
				single := ext == ".yaml" || ext == ".yml" || ext == ".json"
				if !single {
					if err := outdir.Check(*outPath, outdir.Options{Inputs: args[:1]}); err != nil {
						return c.fail(err)
					}
				}
				p := c.progress(out)
				defer p.close()
				summary, err := loadSummary(args[0], p)
				if err != nil {
					return c.fail(err)
				}
				stages, leftOut, err := export.LLMDStages(summary, args[0])
				if err != nil {
					return c.fail(fmt.Errorf("%s: %w", args[0], err))
				}
				for _, l := range leftOut {
					fmt.Fprintf(c.stderr, "benchnote export: %s left out: no usable run, so no statistic\n", l)
				}
				var levels []string
				for _, st := range stages {
					levels = append(levels, st.Label())
				}
				if single {
					if len(stages) != 1 {
						return c.fail(fmt.Errorf("%s has %d levels (%s) and a Benchmark Report holds one stage: give -o a directory, which gets one report per level", args[0], len(stages), strings.Join(levels, ", ")))
					}
					render := stages[0].Report.YAML
					if ext == ".json" {
						render = stages[0].Report.JSON
					}
					data, err := render()
					if err != nil {
						return c.fail(err)
					}
					err = outdir.WriteSingleFile(*outPath, data, outdir.FileOptions{Inputs: args[:1], Ours: export.Ours, What: "the llm-d Benchmark Report"})
					if err != nil {
						return c.fail(err)
					}
				} else {
					files := map[string][]byte{}
					for _, st := range stages {
						data, err := st.Report.YAML()
						if err != nil {
							return c.fail(err)
						}
						files[st.Name] = data
					}
					if err := report.WriteDir(*outPath, files, args[0]); err != nil {
						return c.fail(err)
					}
				}
				p.finish()
				if !out.quiet {
					fmt.Fprintf(c.stdout, "wrote %s: llm-d Benchmark Report v0.2, %s (%s), each figure the median across the level's runs\n",
						*outPath, textfmt.Count(len(stages), "stage", "stages"), strings.Join(levels, ", "))
				}
				return ExitClean
			}
		},
	}
}
