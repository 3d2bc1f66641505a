package report

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/analyze"
)

// prTableColumns bounds the columns of pr.md's per-level table: at a
// pull-request comment's width (760 px) eight columns of "median ± MAD"
// fit without a cell wrapping or the table scrolling sideways, and
// goodput and errors, which answer the SLO question, stay in view.
const prTableColumns = 8

// prTableOf is pr.md's per-level table: the load, the runs, the p95 of
// TTFT, TPOT and E2E, output tokens/s, goodput and errors, one table per
// series. Its caption names the section of report.md holding the rest
// (the p50s, requests/s, p99 and means).
func prTableOf(s *analyze.Summary, levels []analyze.Level) string {
	v := viewOf(s)
	var b strings.Builder
	fmt.Fprintf(&b, "**Per %s**, median ± %s MAD across runs (at most 4 significant figures, none finer than the MAD's second; \"± <0.01\" is a MAD below the last digit shown): %s p95 over each run's measured requests (ms); output tokens/s from the server's token counter over the window (the client's Σ n / (T_last − T_first) where that is missing or suspect); goodput, %% of measured requests meeting every SLO; errors, failed / measured requests, all runs. The p50s and requests/s are in report.md's table under **Answer**, p99 and means under **Latency** and **Throughput**.\n\n",
		v.perLevel(), s.Method.MAD, s.Method.Percentile)
	sources := map[string]bool{}
	for _, l := range levels {
		sources[l.OutputRateKey] = true
	}
	b.WriteString(perSeries(s, levels, func(levels []analyze.Level) string {
		return prTableRows(s, levels, sources)
	}))
	return b.String()
}

// outputSourceLabel is how a table names the source of an output rate.
var outputSourceLabel = map[string]string{analyze.KeyServerOutputRate: "server", analyze.KeyClientOutputRate: "client"}

// prTableRows is one table of prTableOf: the levels given.
func prTableRows(s *analyze.Summary, levels []analyze.Level, sources map[string]bool) string {
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
		out := n.stat(l, l.OutputRateKey)
		if label, ok := outputSourceLabel[l.OutputRateKey]; ok && len(sources) > 1 && out != na {
			out += " (" + label + ")"
		}
		rows = append(rows, []string{v.cell(l.Load()), runsCell(l),
			n.stat(l, "ttft.p95"), n.stat(l, "tpot.p95"), n.stat(l, "e2e.p95"),
			out, n.stat(l, "goodput.percent"), errorsCell(l, s.Method.ErrorRateThreshold)})
	}
	return table([]string{v.column(), "runs", "TTFT p95", "TPOT p95", "E2E p95", outHead, "goodput", "errors"}, rows) + n.footer()
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
