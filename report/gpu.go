package report

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// gpuKeyPrefixes are the statistic keys of the GPU and energy figures, as
// importers name the tools' reported figures too.
var gpuKeyPrefixes = []string{"gpu.", "energy."}

func isGPUKey(key string) bool {
	for _, p := range gpuKeyPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// gpuTable is the "GPU and energy" section: per level the GPU figures
// (median ± MAD across runs), per run and GPU the mean power, and the
// figures tools reported without telemetry benchnote could read.
func gpuTable(s *analyze.Summary) string {
	hasRuns := false
	for _, r := range s.Runs {
		hasRuns = hasRuns || r.GPU != nil
	}
	reported := gpuReportedRows(s)
	if !hasRuns && len(reported) == 0 {
		return "*No run has GPU telemetry (a `gpu.csv` in the run directory): no power or energy figures.*\n"
	}
	var b strings.Builder
	if hasRuns {
		fmt.Fprintf(&b, "**GPU and energy**, from each run's GPU telemetry over its declared window. A GPU's energy comes from its cumulative energy counter, interpolated at the window's bounds, when the counter covers the window and never goes down; otherwise from ∫ power dt (trapezoids between consecutive samples, clipped to the window). A GPU's samples must cover at least %g %% of the window (two samples cover the time between them when at most max(10 s, 10 %% of the window) apart), else the run has no energy figures. The run's energy is the sum over its distinct GPUs (one UUID reported twice counts once); mean power = energy / window. **J per output token** = energy / output tokens over the window (the server's generation-token counter delta, else the completion tokens of requests completing in the window); **output tokens/s per kW** = 1000 / (J per output token). %s\n\n",
			100*analyze.MinGPUCoverage, acrossCaption(s))
		b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
			n := newNotes(s)
			var rows [][]string
			for _, l := range levels {
				if _, ok := l.Stat(analyze.KeyGPUCount); !ok {
					continue
				}
				rows = append(rows, []string{viewOf(s).cell(l.Load()), runsCell(l),
					n.stat(l, analyze.KeyGPUCount), n.stat(l, analyze.KeyGPUPower), n.stat(l, analyze.KeyGPUUtil),
					n.stat(l, analyze.KeyGPUMemoryUsed), n.stat(l, analyze.KeyEnergyPerToken), n.stat(l, analyze.KeyTokensPerSecondPKW),
					mdEscape(levelGPUMethod(s, l))})
			}
			return table([]string{viewOf(s).column(), "runs", "GPUs", "mean power, all GPUs (W)", "GPU utilisation (%)",
				"memory used, max (MiB)", "energy per output token (J)", "output tokens/s per kW", "energy from"}, rows) + n.footer()
		}))
		b.WriteString("\n**Mean power per GPU over the window**, run by run (energy / window).\n\n")
		var rows [][]string
		var unavailable, notes []string
		for _, r := range s.Runs {
			g := r.GPU
			if g == nil {
				continue
			}
			for _, f := range g.GPUs {
				name := textfmt.OrDash(f.Name)
				method := f.Method
				if method == "" {
					method = "n/a: " + f.Unavailable
				}
				if f.Note != "" {
					method += " (" + f.Note + ")"
				}
				rows = append(rows, []string{code(r.Dir), code(f.Key), mdEscape(name), fmtNum(f.PowerW), fmtNum(f.UtilPercent),
					fmtNum(f.MemoryUsedMiB), coverageCell(f.CoveragePercent), mdEscape(method)})
			}
			if g.Unavailable != "" {
				unavailable = append(unavailable, fmt.Sprintf("- %s: %s", code(r.Dir), mdEscape(g.Unavailable)))
			}
			for _, note := range g.Notes {
				notes = append(notes, fmt.Sprintf("- %s: %s", code(r.Dir), mdEscape(note)))
			}
		}
		if len(rows) > 0 {
			b.WriteString(table([]string{"run", "GPU", "name", "mean power (W)", "utilisation (%)", "memory used, max (MiB)", "window covered", "energy from"}, rows))
		}
		if len(unavailable) > 0 {
			b.WriteString("\nRuns without energy figures:\n\n" + strings.Join(unavailable, "\n") + "\n")
		}
		if len(notes) > 0 {
			b.WriteString("\nHow the GPU files were read:\n\n" + strings.Join(notes, "\n") + "\n")
		}
	}
	if len(reported) > 0 {
		if hasRuns {
			b.WriteString("\n")
		}
		b.WriteString("**GPU and energy figures as reported by the tools**, from runs whose tools kept only aggregates of their telemetry: not recomputed, and in no level statistic.\n\n")
		b.WriteString(table([]string{"run", "level", "figure", "value", "unit", "source", "how"}, reported))
	}
	return b.String()
}

// levelGPUMethod lists the energy methods of a level's runs, in run order.
func levelGPUMethod(s *analyze.Summary, l analyze.Level) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.Runs {
		if r.LevelKey != l.LevelKey || r.GPU == nil || r.Failed {
			continue
		}
		m := r.GPU.Method
		if m == "" {
			m = "n/a"
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return strings.Join(out, "; ")
}

func coverageCell(v analyze.Num) string {
	if !v.Valid() {
		return na
	}
	return fmtNum(v) + " %"
}

// gpuReportedRows lists the tools' reported GPU and energy figures: those
// of runs known only by their tools' figures, and those of imported runs
// that have no GPU telemetry of their own.
func gpuReportedRows(s *analyze.Summary) [][]string {
	var rows [][]string
	v := viewOf(s)
	add := func(dir, level string, imp *analyze.ImportSummary) {
		if imp == nil {
			return
		}
		for _, f := range imp.Figures {
			if !isGPUKey(f.Key) {
				continue
			}
			rows = append(rows, []string{code(dir), level, mdEscape(f.Label), fmtNum(f.Reported), mdEscape(f.Unit),
				"as reported by " + mdEscape(imp.Tool), mdEscape(f.Note)})
		}
	}
	for _, r := range s.Runs {
		if r.GPU == nil {
			level := "not recorded"
			if l := r.Load(); l.Valid() {
				level = mdEscape(v.name(l))
			}
			add(r.Dir, level, r.Import)
		}
	}
	for _, r := range s.Reported {
		level := "not recorded"
		if l := r.Load(); l.Valid() {
			level = mdEscape(v.name(l))
		}
		imp := r.Import
		add(r.Dir, level, &imp)
	}
	return rows
}
