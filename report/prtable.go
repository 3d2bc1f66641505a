package report

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// prTableColumns bounds the columns of pr.md's per-level table: at a
// pull-request comment's width (760 px) no more than eight columns of
// "median ± MAD" fit without a cell wrapping or the table scrolling
// sideways, with goodput and errors, which answer the SLO question, in
// view.
const prTableColumns = 8

// prTableOf is pr.md's per-level table: the load, the p95 of TTFT, TPOT
// and E2E, output tokens/s, goodput and errors, one table per series.
// To fit a comment its figures do not break at their spaces (nbsp), it
// has no runs column (the caption says how many runs
// each level has, or a load cell when they differ) and a level's marks
// sit on its load cell, not on each figure. Its caption names the
// sections of report.md holding the rest (the p50s, requests/s, p99 and
// means).
func prTableOf(s *analyze.Summary, levels []analyze.Level) string {
	v := viewOf(s)
	var b strings.Builder
	runs := -1
	for _, l := range levels {
		if runs == -1 {
			runs = len(l.Runs)
		} else if runs != len(l.Runs) {
			runs = -2
		}
	}
	each := ""
	if runs >= 0 {
		each = fmt.Sprintf("; each level has %d %s", runs, textfmt.Plural(runs, "run", "runs"))
		if runs < analyze.MinRuns {
			each += ", fewer than 3"
		}
	}
	fmt.Fprintf(&b, "**Per %s**, median ± %s MAD across runs (at most 4 significant figures, none finer than the MAD's second; \"± <0.01\" is a MAD below the last digit shown%s): %s p95 over each run's measured requests (ms); output tokens/s from the server's token counter over the window (the client's Σ n / (T_last − T_first) where that is missing or suspect); goodput, %% of measured requests meeting every SLO; errors, failed / measured requests, all runs. A level marked ⚠ failed a check (notes below the table). The p50s, requests/s and runs are in report.md's table under **Answer**, p99 and means under **Latency** and **Throughput**.\n\n",
		v.perLevel(), s.Method.MAD, each, s.Method.Percentile)
	sources := map[string]bool{}
	for _, l := range levels {
		sources[l.OutputRateKey] = true
	}
	b.WriteString(perSeries(s, levels, func(levels []analyze.Level) string {
		return prTableRows(s, levels, sources, runs < 0)
	}))
	return b.String()
}

// nbsp joins the parts of a figure ("22.65 ± 0.01 %") so that a narrow
// table wraps its headers, not its numbers.
const nbsp = "\u00a0"

// outputSourceLabel is how a table names the source of an output rate.
var outputSourceLabel = map[string]string{analyze.KeyServerOutputRate: "server", analyze.KeyClientOutputRate: "client"}

// prTableRows is one table of prTableOf: the levels given, each load
// cell with its runs when showRuns.
func prTableRows(s *analyze.Summary, levels []analyze.Level, sources map[string]bool, showRuns bool) string {
	v := viewOf(s)
	outHead := "output tokens/s"
	if len(sources) == 1 {
		for k := range sources {
			if label, ok := outputSourceLabel[k]; ok {
				outHead += " (" + label + ")"
			}
		}
	}
	n := newNotes(s)
	var rows [][]string
	for _, l := range levels {
		keys := []string{"ttft.p95", "tpot.p95", "e2e.p95", l.OutputRateKey, "goodput.percent"}
		cells := make([]string, len(keys))
		var ids []string
		seen := map[string]bool{}
		for i, key := range keys {
			cells[i] = na
			if ar, ok := l.Stat(key); ok {
				cells[i] = fmtAcross(ar, len(l.Runs))
			}
			if cells[i] == na {
				continue
			}
			for _, su := range l.Suspicions(key) {
				if id := n.id(l.LevelKey, su.Rule); !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		if label, ok := outputSourceLabel[l.OutputRateKey]; ok && len(sources) > 1 && cells[3] != na {
			cells[3] += " (" + label + ")"
		}
		load := v.cell(l.Load())
		if showRuns {
			load += " (" + textfmt.Count(len(l.Runs), "run", "runs")
			if len(l.Runs) < analyze.MinRuns {
				load += " ⚠"
			}
			load += ")"
		}
		if len(ids) > 0 {
			load += " ⚠" + strings.Join(ids, ",")
		}
		cells = append(cells, errorsCell(l, s.Method.ErrorRateThreshold))
		for i := range cells {
			cells[i] = strings.ReplaceAll(cells[i], " ", nbsp)
		}
		rows = append(rows, append([]string{load}, cells...))
	}
	return table([]string{v.column(), "TTFT p95", "TPOT p95", "E2E p95", outHead, "goodput", "errors"}, rows) + n.footer()
}

// errorsCell is a level's error rate, flagged above the threshold (a
// fraction of measured requests).
func errorsCell(l analyze.Level, threshold float64) string {
	if !l.ErrorPercent.Valid() {
		return na
	}
	c := fmtNum(l.ErrorPercent) + " %"
	if float64(l.ErrorPercent) > 100*threshold {
		c = flagOpen + c + " ⚠" + flagClose
	}
	return c
}
