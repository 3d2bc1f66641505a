package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// tables are the named table cells.
var tables = map[string]func(*analyze.Summary) string{
	"ttft":       latencyTable("ttft", "Client TTFT", "ms", "time from sending the request to the first text-bearing chunk"),
	"tpot":       latencyTable("tpot", "Client TPOT", "ms", "(E2E − TTFT) / (n − 1) per request with n ≥ 2 output tokens"),
	"e2e":        latencyTable("e2e", "Client E2E latency", "ms", "time from sending the request to the last text-bearing chunk"),
	"user_tps":   latencyTable("user_tps", "User TPS", "tokens/s", "(n − 1) / (E2E − TTFT) per request with n ≥ 2 (never 1 / median TPOT)"),
	"itl":        itlTable,
	"pooled":     pooledTable,
	"throughput": throughputTable,
	"server":     serverTable,
	"goodput":    goodputTable,
	"workload":   workloadTable,
	"runs":       runsTable,
	"headline":   headlineTable,
	"warmup":     warmupTable,
	"reported":   reportedTable,
	"gpu":        gpuTable,
}

func tableNames() []string {
	var names []string
	for k := range tables {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func runsCell(l analyze.Level) string {
	s := strconv.Itoa(len(l.Runs))
	if len(l.Runs) < analyze.MinRuns {
		s += " " + fewRunsMark
	}
	return s
}

// acrossCaption is the sentence a table of across-run figures ends its
// caption with: what a cell is, once for the whole table.
func acrossCaption(s *analyze.Summary) string {
	return fmt.Sprintf("Cells: median ± %s MAD across the level's runs (the runs column), %s; a cell resting on fewer runs says how many, and one from a single run has no ±.", s.Method.MAD, roundingRule)
}

func latencyTable(prefix, title, unit, def string) func(*analyze.Summary) string {
	return func(s *analyze.Summary) string {
		var b strings.Builder
		fmt.Fprintf(&b, "**%s (%s)**: %s. Each run's p50/p95/p99 are %s percentiles over its measured requests (per-request sample); the mean is request-weighted. %s\n\n",
			title, unit, def, s.Method.Percentile, acrossCaption(s))
		b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
			n := newNotes(s)
			var rows [][]string
			for _, l := range levels {
				rows = append(rows, []string{viewOf(s).cell(l.Load()), runsCell(l), textfmt.Thousands(requestsFor(prefix, l)),
					n.stat(l, prefix+".p50"), n.stat(l, prefix+".p95"), n.stat(l, prefix+".p99"), n.stat(l, prefix+".mean")})
			}
			return table([]string{viewOf(s).column(), "runs", "samples (requests)",
				"p50 (" + unit + ")", "p95 (" + unit + ")", "p99 (" + unit + ")", "mean, request-weighted (" + unit + ")"}, rows) + n.footer()
		}))
		return b.String()
	}
}

// requestsFor is the number of per-request samples a metric rests on at a level.
func requestsFor(prefix string, l analyze.Level) int {
	switch prefix {
	case "ttft", "e2e":
		return l.Counts.OneToken + l.Counts.MultiToken
	}
	return l.Counts.MultiToken
}

func itlTable(s *analyze.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Inter-token latency (ms)**. The gap-weighted mean is Σ(E2E − TTFT) / Σ(n − 1) over each run's requests with n ≥ 2, weighting every gap equally (unlike mean TPOT, which weights every request equally). Per-gap percentiles come from the chunk arrival times and only when every chunk carried exactly one token; otherwise they are n/a. %s\n\n", acrossCaption(s))
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		n := newNotes(s)
		var rows [][]string
		for _, l := range levels {
			rows = append(rows, []string{viewOf(s).cell(l.Load()), runsCell(l), n.stat(l, "itl.gap_weighted_mean"),
				n.stat(l, "itl.p50"), n.stat(l, "itl.p95"), n.stat(l, "itl.p99")})
		}
		return table([]string{viewOf(s).column(), "runs", "mean, gap-weighted (ms)", "per-gap p50 (ms)", "per-gap p95 (ms)", "per-gap p99 (ms)"}, rows) + n.footer()
	}))
	var unknown []string
	for _, r := range s.Runs {
		if r.Failed || r.GapDistributionKnown {
			continue
		}
		note := fmt.Sprintf("- %s: %s", code(r.Dir), mdEscape(r.ITL.Unavailable))
		if r.ITL.Sample == analyze.SampleChunkGap && r.ITL.N > 0 {
			note += fmt.Sprintf("; chunk-arrival gaps (not per-token): p50 %s, p95 %s, p99 %s ms over %s gaps (%s)",
				fmtNum(r.ITL.P50), fmtNum(r.ITL.P95), fmtNum(r.ITL.P99), textfmt.Thousands(r.ITL.N), r.ITL.Method)
		}
		unknown = append(unknown, note)
	}
	if len(unknown) > 0 {
		b.WriteString("\nRuns without a per-gap distribution:\n\n" + strings.Join(unknown, "\n") + "\n")
	}
	return b.String()
}

func pooledTable(s *analyze.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Pooled percentiles (ms)**: %s percentiles over all measured requests of all runs at a level taken together (labelled \"pooled\"); they are not averages of per-run percentiles.\n\n", s.Method.Percentile)
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		var rows [][]string
		for _, l := range levels {
			for _, d := range []analyze.Distribution{l.PooledTTFT, l.PooledTPOT, l.PooledE2E, l.PooledITL} {
				if d.N == 0 {
					continue
				}
				rows = append(rows, []string{viewOf(s).cell(l.Load()), "pooled " + d.Metric, d.Sample, textfmt.Thousands(d.N),
					fmtNum(d.P50), fmtNum(d.P95), fmtNum(d.P99), fmtNum(d.Max)})
			}
		}
		return table([]string{viewOf(s).column(), "metric", "sample", "n", "p50 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)"}, rows)
	}))
	return b.String()
}

func throughputTable(s *analyze.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Throughput**. Server rates are counter deltas (end scrape − start scrape) divided by each run's declared window; output and prompt tokens are separate rates and are never added. Requests/s counts successful requests completing inside the window. Client output tokens/s is Σ completion_tokens / (T_last − T_first) over the measured requests, a different denominator. %s\n\n", acrossCaption(s))
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		n := newNotes(s)
		var rows [][]string
		for _, l := range levels {
			rows = append(rows, []string{viewOf(s).cell(l.Load()), runsCell(l),
				n.stat(l, "throughput.output_tokens_per_s"), n.stat(l, "throughput.prompt_tokens_per_s"),
				n.stat(l, "throughput.requests_per_s"), n.stat(l, "throughput.client_output_tokens_per_s")})
		}
		return table([]string{viewOf(s).column(), "runs", "output tokens/s (server counter / window)", "prompt tokens/s (server counter / window)",
			"requests/s (client, in window)", "output tokens/s (client, T_last − T_first)"}, rows) + n.footer()
	}))
	b.WriteString("\nWindows and counter checks per run:\n\n")
	var usable []analyze.RunSummary
	for _, r := range s.Runs {
		if !r.Failed {
			usable = append(usable, r)
		}
	}
	b.WriteString(perSeriesRuns(s, usable, func(runs []analyze.RunSummary) string {
		var wrows [][]string
		for _, r := range runs {
			t := r.Throughput
			window := na
			if t.WindowSeconds.Valid() {
				window = fmt.Sprintf("%s → %s (%s s, %s)", t.WindowStart, t.WindowEnd, fmtNum(t.WindowSeconds), t.WindowSource)
			}
			check := na
			if t.CounterMismatch.Valid() {
				check = fmt.Sprintf("Δ generation_tokens %s vs Σ completion_tokens %s (%s%%)", fmtNum(t.GenerationTokensDelta), textfmt.Thousands(t.ClientCompletionTokens), fmtNum(analyze.Num(100*float64(t.CounterMismatch))))
			}
			note := t.ServerUnavailable
			wrows = append(wrows, []string{code(r.Dir), window, check, mdEscape(note)})
		}
		return table([]string{"run", "window (start → end, length, source)", "counter cross-check", "server throughput unavailable because"}, wrows)
	}))
	return b.String()
}

func serverTable(s *analyze.Summary) string {
	none := len(serverLevels(s)) == 0
	if line, ok := serverNone(s); none && ok {
		return line
	}
	var b strings.Builder
	if none {
		// Nothing to describe but why: the list below.
		b.WriteString("No server histogram was available.\n")
		b.WriteString(serverOmittedAndRepaired(s))
		return b.String()
	}
	b.WriteString("**Server-side distributions (ms)**, from the servers' Prometheus histograms: bucket deltas (end − start) over each run's window, quantiles by histogram_quantile's linear interpolation inside buckets (so they are only as fine as the bucket bounds). These measure server-side intervals over every request the server saw in the window; they are not joinable with the client records above and are never subtracted from them.")
	if s.Method.SpeculativeDecoding {
		b.WriteString(" Speculative decoding is on: the inter-token histogram is per step, not per token.")
	}
	fmt.Fprintf(&b, " Cells: median ± %s MAD of per-run quantiles across the level's runs, %s.", s.Method.MAD, roundingRule)
	b.WriteString(" A quantile that falls in the lowest bucket (interpolated up from 0), the +Inf bucket or a bucket wider than half its estimate is not resolved by the buckets: its cell gives only the bound the buckets support, \"≤ 300 (bucket 0–300)\" or \"> 10000 (+Inf bucket)\", with the bucket's bounds in ms over the level's runs.\n\n")
	serverRows := func(levels []analyze.Level, n *notes) [][]string {
		var rows [][]string
		for _, l := range levels {
			for _, role := range []string{"ttft", "itl", "request_tpot", "e2e", "prefill", "queue", "decode"} {
				ar, ok := l.Stat("server." + role + ".p50")
				if !ok || ar.Runs == 0 {
					continue
				}
				obs := 0.0
				for _, rc := range l.ServerObservations {
					if rc.Role == role {
						obs = rc.Count
					}
				}
				row := []string{viewOf(s).cell(l.Load()), ar.Metric, serverSample(s, role), textfmt.Thousands(int64(obs))}
				for _, q := range []string{"p50", "p95", "p99"} {
					row = append(row, n.mark(l, "server."+role+"."+q, serverCell(l, "server."+role+"."+q)))
				}
				rows = append(rows, row)
			}
		}
		return rows
	}
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		n := newNotes(s)
		rows := serverRows(levels, n)
		if len(rows) == 0 {
			return "No server histogram was available.\n"
		}
		return table([]string{viewOf(s).column(), "histogram", "one observation is", "observations (Δcount, all runs)", "p50 (ms)", "p95 (ms)", "p99 (ms)"}, rows) + n.footer()
	}))
	b.WriteString(serverOmittedAndRepaired(s))
	return b.String()
}

// serverOmittedAndRepaired lists the server histograms left out, with
// why, and the buckets repaired before interpolating.
func serverOmittedAndRepaired(s *analyze.Summary) string {
	var b strings.Builder
	omitted := map[string]int{}
	for _, r := range s.Runs {
		for _, h := range r.Server {
			if h.Omitted != "" {
				omitted[h.Label+": "+h.Omitted]++
			}
		}
	}
	if len(omitted) > 0 {
		var keys []string
		for k := range omitted {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\nNot shown:\n\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "- %s (%d %s)\n", mdEscape(k), omitted[k], textfmt.Plural(omitted[k], "run", "runs"))
		}
	}
	var repaired []string
	for _, r := range s.Runs {
		for _, h := range r.Server {
			if len(h.MergedBounds) > 0 {
				repaired = append(repaired, fmt.Sprintf("- %s %s (%s): buckets sharing an upper bound written differently were merged by adding their counts, at le = %s",
					code(r.Dir), mdEscape(h.Label), code(h.Metric), mdEscape(strings.Join(h.MergedBounds, ", "))))
			}
			for _, rb := range h.RaisedBuckets {
				repaired = append(repaired, fmt.Sprintf("- %s %s (%s): the bucket le = %s counted %s over the window, fewer than a lower bucket, and was raised to %s",
					code(r.Dir), mdEscape(h.Label), code(h.Metric), mdEscape(rb.Le), fmtNum(analyze.Num(rb.Count)), fmtNum(analyze.Num(rb.RaisedTo))))
			}
		}
	}
	if len(repaired) > 0 {
		b.WriteString("\nBuckets repaired before interpolating, as Prometheus's histogram_quantile does (the quantiles above rest on the repaired buckets):\n\n" + strings.Join(repaired, "\n") + "\n")
	}
	return b.String()
}

// serverLevels returns the levels with a server quantile to show.
func serverLevels(s *analyze.Summary) []analyze.Level {
	var out []analyze.Level
	for _, l := range s.Levels {
		for _, role := range []string{"ttft", "itl", "request_tpot", "e2e", "prefill", "queue", "decode"} {
			if ar, ok := l.Stat("server." + role + ".p50"); ok && ar.Runs > 0 {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// serverNone is the server section of a sweep with no server quantile to
// show, as one line, when one line says it all: every histogram left out
// for the same reason and no bucket repaired ("No server histogram was
// available: no end scrape (1 run)."). ok is false when there is more to
// say (see serverOmittedAndRepaired).
func serverNone(s *analyze.Summary) (line string, ok bool) {
	why := ""
	runs := map[string]bool{}
	for _, r := range s.Runs {
		for _, h := range r.Server {
			if len(h.MergedBounds) > 0 || len(h.RaisedBuckets) > 0 {
				return "", false
			}
			if h.Omitted == "" {
				continue
			}
			if why != "" && h.Omitted != why {
				return "", false
			}
			why = h.Omitted
			runs[r.Dir] = true
		}
	}
	if why == "" {
		return "No server histogram was available.\n", true
	}
	return fmt.Sprintf("No server histogram was available: %s (%d %s).\n", mdEscape(why), len(runs), textfmt.Plural(len(runs), "run", "runs")), true
}

// serverCell is a server quantile's cell: median ± MAD when the buckets
// resolve it in every run, else the bound they support and the bucket.
func serverCell(l analyze.Level, key string) string {
	ar, ok := l.Stat(key)
	if !ok || ar.Runs == 0 {
		return na
	}
	for _, b := range l.ServerResolution {
		if b.Key != key || !b.Coarse {
			continue
		}
		runs := ""
		if ar.Runs != len(l.Runs) {
			runs = fmt.Sprintf(", %d %s", ar.Runs, textfmt.Plural(ar.Runs, "run", "runs"))
		}
		if !b.HiMs.Valid() {
			return fmt.Sprintf("> %s (+Inf bucket%s)", fmtNum(b.LoMs), runs)
		}
		return fmt.Sprintf("≤ %s (bucket %s–%s%s)", fmtNum(b.HiMs), fmtNum(b.LoMs), fmtNum(b.HiMs), runs)
	}
	return fmtAcross(ar, len(l.Runs))
}

func serverSample(s *analyze.Summary, role string) string {
	for _, r := range s.Runs {
		for _, h := range r.Server {
			if h.Role == role {
				return mdEscape(h.Sample)
			}
		}
	}
	return ""
}

func goodputTable(s *analyze.Summary) string {
	var b strings.Builder
	slo := s.Method.SLO.Targets()
	fmt.Fprintf(&b, "**Goodput** against the per-request targets %s. Percentage goodput = requests meeting every applicable target / all measured requests × 100 (errors and n = 0 count as failures; the TPOT target does not apply at n = 1). Request goodput = passing measured requests completing inside the window / window (req/s); warm-up requests are not counted, and since requests/s counts every successful request in the window, request goodput never exceeds it. This is a per-request pass rate, not a statement about a percentile. %s\n\n", slo, acrossCaption(s))
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		n := newNotes(s)
		var rows [][]string
		for _, l := range levels {
			var fs []string
			for _, f := range l.Goodput.FailedBy {
				fs = append(fs, fmt.Sprintf("%s: %s", mdEscape(f.Reason), textfmt.Thousands(f.Count)))
			}
			passedCell := fmt.Sprintf("%s / %s", textfmt.Thousands(l.Goodput.Passed), textfmt.Thousands(l.Goodput.Measured))
			if ar, ok := l.Stat("goodput.percent"); !ok || ar.Runs == 0 {
				passedCell = na
			}
			rows = append(rows, []string{viewOf(s).cell(l.Load()), runsCell(l), n.stat(l, "goodput.percent"), n.stat(l, "goodput.requests_per_s"),
				passedCell, strings.Join(fs, "; ")})
		}
		return table([]string{viewOf(s).column(), "runs", "goodput (% of measured requests)", "request goodput (req/s, warm-up excluded)", "passed / measured (all runs)", "failures by first failed target"}, rows) + n.footer()
	}))
	return b.String()
}

func workloadTable(s *analyze.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Workload** of the measured successful requests. Lengths are pooled over each level's runs (%s percentiles). Early stop = share of requests with n < max_tokens. Inter-arrival time (gaps between consecutive sends, per-run p50) and achieved concurrency (Σ request durations / (T_last − T_first)) need the `t_request_sent` column; they are median ± %s MAD across the level's runs (the runs column), %s.\n\n", s.Method.Percentile, s.Method.MAD, roundingRule)
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		n := newNotes(s)
		var rows [][]string
		for _, l := range levels {
			w := l.Workload
			rows = append(rows, []string{viewOf(s).cell(l.Load()), runsCell(l), textfmt.Thousands(w.PromptTokens.N),
				fmtNum(w.PromptTokens.P50), fmtNum(w.PromptTokens.P95), fmtNum(w.PromptTokens.Max),
				fmtNum(w.OutputTokens.P50), fmtNum(w.OutputTokens.P95), fmtNum(w.OutputTokens.Max),
				pct(w.EarlyStopPercent), n.stat(l, "workload.inter_arrival.p50"), n.stat(l, "workload.achieved_concurrency")})
		}
		return table([]string{viewOf(s).column(), "runs", "requests (pooled)", "prompt p50 (tokens)", "prompt p95", "prompt max", "output p50 (tokens)", "output p95", "output max", "early stop (%)", "inter-arrival p50 (ms)", "achieved concurrency (requests)"}, rows)
	}))
	return b.String()
}

func pct(v analyze.Num) string {
	if !v.Valid() {
		return na
	}
	return fmtNum(v) + " %"
}

func runsTable(s *analyze.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Every run.** Per-run values: %s p95 over the run's measured requests (per-request sample); output tokens/s from server counters over the run's window; goodput as a percentage of measured requests.\n\n", s.Method.Percentile)
	b.WriteString(perSeriesRuns(s, s.Runs, func(runs []analyze.RunSummary) string {
		var rows [][]string
		for _, r := range runs {
			if r.Failed {
				rows = append(rows, []string{viewOf(s).cell(r.Load()), strconv.Itoa(r.Repeat), code(r.Dir), "FAILED: " + mdEscape(r.FailReason), "", "", "", "", "", "", ""})
				continue
			}
			warm := warmupCell(r.Warmup)
			rows = append(rows, []string{viewOf(s).cell(r.Load()), strconv.Itoa(r.Repeat), code(r.Dir),
				textfmt.Thousands(r.Counts.RowsRead), textfmt.Thousands(r.Counts.Measured), warm,
				fmtNum(r.TTFT.P95), fmtNum(r.TPOT.P95), fmtNum(r.E2E.P95), fmtNum(r.Throughput.OutputTokensPerSec), pct(r.Goodput.Percent)})
		}
		return table([]string{viewOf(s).column(), "repeat", "run", "rows read", "measured", "warm-up discarded", "TTFT p95 (ms)", "TPOT p95 (ms)", "E2E p95 (ms)", "output tokens/s", "goodput"}, rows)
	}))
	var notes []string
	for _, r := range s.Runs {
		if strings.TrimSpace(r.Notes) != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s", code(r.Dir), mdEscape(strings.TrimSpace(r.Notes))))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes from the runs' run.yaml, as written:\n\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}

// markedWarmup counts the requests source tools marked as warm-up.
func markedWarmup(s *analyze.Summary) int {
	n := 0
	for _, r := range s.Runs {
		n += r.Warmup.MarkedWarmup
	}
	return n
}

func exclusionsCell(s *analyze.Summary) string {
	var b strings.Builder
	a := s.Accounting.Requests
	b.WriteString("**Accounting of every input row** (all runs):\n\n")
	rows := [][]string{
		{"rows read", textfmt.Thousands(a.RowsRead), "= rows of failed runs + bad rows + accepted"},
		{"rows of failed runs (excluded)", textfmt.Thousands(a.FailedRunRows), "the run could not be used; see the run exclusions"},
		{"bad rows (excluded)", textfmt.Thousands(a.BadRows), "non-numeric, negative, NaN/Inf, out of range, E2E < TTFT, duplicate or missing fields, bad chunk_ms or phase"},
		{"accepted", textfmt.Thousands(a.Accepted), "= warm-up + measured"},
		{"warm-up (excluded)", textfmt.Thousands(a.WarmUp), "discarded as warm-up (see Method)"},
	}
	if s.Method.Warmup == "none" {
		rows[4][2] = "none: warm-up handling is off (warmup: none), every accepted request is measured"
	}
	if a.CoolDown > 0 || markedWarmup(s) > 0 {
		rows[3][2] = "= warm-up + cool-down + measured"
		rows[4][2] = fmt.Sprintf("discarded as warm-up (see Method), or marked as warm-up by the source tool (%s)", textfmt.Thousands(markedWarmup(s)))
		rows = append(rows, []string{"cool-down (excluded)", textfmt.Thousands(a.CoolDown), "marked by the source tool: counted after its measurement"})
	}
	rows = append(rows, [][]string{
		{"measured", textfmt.Thousands(a.Measured), "= errors + n = 0 + n = 1 + n ≥ 2"},
		{"errors (not latency samples)", textfmt.Thousands(a.Errors), "status ≠ ok"},
		{"n = 0 (not latency samples)", textfmt.Thousands(a.ZeroToken), "no output token"},
		{"n = 1 (TTFT and E2E only)", textfmt.Thousands(a.OneToken), "TPOT undefined"},
		{"n ≥ 2 (every metric)", textfmt.Thousands(a.MultiToken), ""},
	}...)
	b.WriteString(table([]string{"requests", "count", "note"}, rows))
	ok := a.RowsRead == a.FailedRunRows+a.BadRows+a.Accepted && a.Accepted == a.WarmUp+a.CoolDown+a.Measured && a.Measured == a.Errors+a.ZeroToken+a.OneToken+a.MultiToken
	if ok {
		b.WriteString("\nThe counts add up.\n")
	} else {
		b.WriteString("\n**The counts do not add up: this is a benchnote bug, please report it.**\n")
	}
	fmt.Fprintf(&b, "\nRuns: %d, of which %d failed.\n\n", s.Accounting.Runs, s.Accounting.FailedRuns)
	if len(s.Exclusions) == 0 {
		b.WriteString("Nothing was excluded.\n")
		return b.String()
	}
	b.WriteString("**Everything excluded or not used**, grouped by reason:\n\n")
	var erows [][]string
	for _, e := range s.Exclusions {
		var ex []string
		for _, x := range e.Examples {
			ex = append(ex, code(x))
		}
		erows = append(erows, []string{e.Scope, mdEscape(e.Reason), textfmt.Thousands(e.Count), strings.Join(ex, ", ")})
	}
	b.WriteString(table([]string{"scope", "reason", "count", "examples (first 5)"}, erows))
	return b.String()
}

func findingsCell(s *analyze.Summary) string {
	if len(s.Findings) == 0 {
		return "No lint findings.\n"
	}
	var rows [][]string
	for _, f := range s.Findings {
		var runs []string
		for _, r := range f.Runs {
			runs = append(runs, code(r))
		}
		sev := f.Severity
		if sev == "error" {
			sev = "**error**"
		}
		rows = append(rows, []string{sev, code(f.Rule), mdEscape(f.Message), mdEscape(f.Source), strings.Join(runs, ", ")})
	}
	return table([]string{"severity", "rule", "finding", "measurement rule", "runs"}, rows)
}

func environmentCell(s *analyze.Summary) string {
	var b strings.Builder
	e := s.Environment
	if len(e.Canonical) == 0 {
		b.WriteString("No environment field was found.\n")
	} else {
		var rows [][]string
		for _, f := range e.Canonical {
			rows = append(rows, []string{f.Key, mdEscape(f.Value)})
		}
		b.WriteString(table([]string{"field", "value"}, rows))
	}
	if len(e.Missing) > 0 {
		fmt.Fprintf(&b, "\nNot recorded in any environment log: %s.\n", strings.Join(e.Missing, ", "))
	}
	if len(e.Sources) > 0 {
		var srcs []string
		for _, src := range e.Sources {
			srcs = append(srcs, code(src))
		}
		fmt.Fprintf(&b, "\nSources: %s.\n", strings.Join(srcs, ", "))
	}
	if len(e.Diffs) == 0 {
		b.WriteString("\nEvery run has the same environment.\n")
		return b.String()
	}
	b.WriteString("\n**The environment differs between runs:**\n\n")
	var rows [][]string
	for _, d := range e.Diffs {
		for _, v := range d.Values {
			val := mdEscape(v.Value)
			if v.Value == "" {
				val = "(absent)"
			}
			var runs []string
			for _, r := range v.Runs {
				runs = append(runs, code(r))
			}
			rows = append(rows, []string{mdEscape(d.Key), val, strings.Join(runs, ", ")})
		}
	}
	b.WriteString(table([]string{"key", "value", "runs"}, rows))
	return b.String()
}

func methodCell(s *analyze.Summary) string {
	m := s.Method
	rows := [][]string{
		{"percentiles", m.Percentile, mdEscape(m.PercentileRule)},
		{"spread across runs", m.MAD + " MAD", mdEscape(m.MADRule)},
		{"warm-up", mdEscape(warmupModeName(m.Warmup)), mdEscape(m.WarmupRule)},
		{"goodput targets", m.SLO.Targets(), "per request; all applicable targets must hold"},
		{"SLO attainment", fmtNum(analyze.Num(100*m.SLO.Attainment)) + " % (`slo.attainment`, " + attainmentSource(m.SLO) + ")", "a level meets the SLOs when the median across its runs of goodput, % of measured requests meeting every target, reaches it"},
		{"counter cross-check tolerance", fmtNum(analyze.Num(100*m.CounterTolerance)) + " %", "Δ generation_tokens vs Σ completion_tokens"},
		{"error-rate threshold", fmtNum(analyze.Num(100*m.ErrorRateThreshold)) + " %", "a run or level with a larger share of failed measured requests is an error finding"},
		{"runs per level", fmt.Sprintf("at least %d", m.MinRuns), "levels with fewer are flagged " + fewRunsMark},
	}
	ignored := []string{}
	for _, x := range m.IgnoredSettings {
		ignored = append(ignored, fmt.Sprintf("%s (%s)", code(x.Setting), code(fmt.Sprintf("%s:%d:%d", x.File, x.Line, x.Column))))
	}
	if len(ignored) == 0 {
		rows = append(rows, []string{"ignored settings", "none", "every key in sweep.yaml and run.yaml was understood"})
	} else {
		rows = append(rows, []string{"ignored settings", strings.Join(ignored, ", "), "unknown keys: ignored, so their defaults were used (a misspelt key?)"})
	}
	return table([]string{"setting", "value", "meaning"}, rows)
}

func notesCell(s *analyze.Summary) string {
	var b strings.Builder
	for _, n := range s.Notes {
		b.WriteString("- " + mdEscape(n) + "\n")
	}
	return b.String()
}

// warmupModeName names a warm-up mode in words (plain text).
func warmupModeName(mode string) string {
	switch mode {
	case "changepoint":
		return "change point (Pettitt 1979)"
	case "mser5":
		return "MSER-5 (White 1997)"
	case "stabilisation":
		return "stabilisation (the protocol's illustrative heuristic)"
	case "fixed":
		return "fixed count, an explicit override the measurement rules discourage"
	case "none":
		return "none (nothing discarded)"
	case "":
		return "not recorded"
	}
	return mode
}

// warmupCell says what the warm-up rule did to one run.
func warmupCell(w analyze.WarmupResult) string {
	n := textfmt.Thousands(w.Discarded)
	switch w.Outcome {
	case analyze.WarmupCut:
		if w.DecidedBy != "" {
			return n + " (by " + w.DecidedBy + ")"
		}
		return n
	case analyze.WarmupNotDetected:
		return "0 (no warm-up detected)"
	case analyze.WarmupNotStabilised:
		return "0 (never stabilised)"
	case analyze.WarmupUnavailable:
		return "0 (unavailable: send order unknown)"
	case analyze.WarmupFixedCount:
		return n + " (fixed override)"
	case analyze.WarmupDisabled:
		return "0 (warm-up handling off)"
	}
	return n
}

// warmupTable lists, per level, the warm-up cut of each usable run:
// median and range, the requests discarded and what the rule decided.
func warmupTable(s *analyze.Summary) string {
	var b strings.Builder
	intro := "**Warm-up per level.** Each usable run's cut is the number of requests discarded from its start, in send order, by the rule in the Method table"
	switch s.Method.Warmup {
	case "fixed":
		intro = "**Warm-up per level: a fixed override.** Each run's first requests were discarded by count, not found from the data; the measurement rules discourage this"
	case "none":
		intro = "**Warm-up per level: handling is off** (`warmup: none`); nothing was discarded"
	}
	fmt.Fprintf(&b, "%s. The table shows the median and the range of the cuts across the level's runs, the requests discarded in all, and how many runs had each outcome.\n\n", intro)
	b.WriteString(perSeries(s, s.Levels, func(levels []analyze.Level) string {
		var rows [][]string
		for _, l := range levels {
			w := l.Warmup
			cutRange := na
			if w.Runs > 0 {
				cutRange = textfmt.Thousands(w.CutMin) + " – " + textfmt.Thousands(w.CutMax)
			}
			var outcomes []string
			for _, o := range w.Outcomes {
				outcomes = append(outcomes, fmt.Sprintf("%s: %d", o.Reason, o.Count))
			}
			rows = append(rows, []string{viewOf(s).cell(l.Load()), strconv.Itoa(w.Runs), fmtNum(w.CutMedian), cutRange,
				textfmt.Thousands(w.Discarded), mdEscape(strings.Join(outcomes, "; "))})
		}
		return table([]string{viewOf(s).column(), "runs", "cut, median (requests)", "cut, range (requests)", "requests discarded", "runs by outcome"}, rows)
	}))
	return b.String()
}
