package report

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// The first screen of a report: the environment in one line, the answer
// (the highest load meeting the SLOs, and which SLOs), a compact table per
// level, and the data-quality box. Everything here formats what analyze
// decided (Summary.Answers, Level.OutputRateKey, Level.Suspect).

// levelOf returns the level with the given key.
func levelOf(s *analyze.Summary, k analyze.LevelKey) (analyze.Level, bool) {
	for _, l := range s.Levels {
		if l.LevelKey == k {
			return l, true
		}
	}
	return analyze.Level{}, false
}

// environmentLine is the environment in one line: GPU × count, engine and
// version, model, precision.
func environmentLine(s *analyze.Summary) string {
	env := map[string]string{}
	for _, f := range s.Environment.Canonical {
		env[f.Key] = f.Value
	}
	var parts []string
	switch gpu, n := env["gpu"], env["gpu_count"]; {
	case gpu != "" && n != "":
		parts = append(parts, mdEscape(n)+" × "+mdEscape(gpu))
	case gpu != "":
		parts = append(parts, mdEscape(gpu))
	default:
		parts = append(parts, "GPU not recorded")
	}
	switch e, v := env["engine"], env["engine_version"]; {
	case e != "" && v != "":
		parts = append(parts, mdEscape(e)+" "+mdEscape(v))
	case e != "":
		parts = append(parts, mdEscape(e)+" (version not recorded)")
	default:
		parts = append(parts, "engine not recorded")
	}
	for _, f := range []struct{ key, missing string }{{"model", "model not recorded"}, {"precision", "precision not recorded"}} {
		if v := env[f.key]; v != "" {
			parts = append(parts, mdEscape(v))
		} else {
			parts = append(parts, f.missing)
		}
	}
	line := "**Environment:** " + strings.Join(parts, " · ")
	if len(s.Environment.Diffs) > 0 {
		var keys []string
		for _, d := range s.Environment.Diffs {
			keys = append(keys, mdEscape(d.Key))
		}
		if len(keys) > maxNamedRuns {
			keys = append(keys[:maxNamedRuns], fmt.Sprintf("%d more", len(keys)-maxNamedRuns))
		}
		line += " (the first run's; it differs between runs in " + strings.Join(keys, ", ") + ")"
	}
	return line + "."
}

// sourceName names where an SLO setting came from.
func sourceName(from string) string {
	switch from {
	case analyze.FromSweepYAML:
		return "sweep.yaml"
	case analyze.FromCommandLine:
		return "the command line"
	case analyze.FromDefault:
		return "default"
	}
	return "not recorded"
}

// attainmentSource says where the attainment target came from.
func attainmentSource(slo analyze.SLO) string {
	if slo.From.Attainment == analyze.FromDefault {
		return "benchnote's default"
	}
	return sourceName(slo.From.Attainment)
}

// sloStatement says which SLOs goodput uses and where they came from.
func sloStatement(slo analyze.SLO) string {
	type target struct {
		name string
		ms   analyze.Num
		from string
	}
	all := []target{{"TTFT", slo.TTFTms, slo.From.TTFT}, {"TPOT", slo.TPOTms, slo.From.TPOT}, {"E2E", slo.E2Ems, slo.From.E2E}}
	var set []target
	var off []string
	for _, t := range all {
		if t.ms.Valid() && t.ms > 0 {
			set = append(set, t)
		} else {
			off = append(off, t.name)
		}
	}
	if len(set) == 0 {
		return "**SLOs:** none set (every target is 0), so no level can be said to meet them. Set them with `slo:` in sweep.yaml or `benchnote report --slo ttft=500ms,tpot=50ms`."
	}
	same, defaults := true, false
	for _, t := range set {
		same = same && t.from == set[0].from
		defaults = defaults || t.from == analyze.FromDefault
	}
	var parts []string
	for _, t := range set {
		p := t.name + " ≤ " + fmtNum(t.ms) + " ms"
		if !same {
			p += " (" + sourceName(t.from) + ")"
		}
		parts = append(parts, p)
	}
	b := "**SLOs:** " + strings.Join(parts, ", ")
	if same && set[0].from != analyze.FromDefault {
		b = "**SLOs** (" + sourceName(set[0].from) + "): " + strings.Join(parts, ", ")
	}
	if len(off) > 0 {
		b += "; no " + strings.Join(off, " or ") + " target"
	}
	switch {
	case same && set[0].from == analyze.FromDefault:
		b += ": the defaults from the measurement rules, which nobody chose for this sweep; set your own with `slo:` in sweep.yaml or `benchnote report --slo ttft=500ms,tpot=50ms`"
	case defaults:
		b += ` ("default": the measurement rules' example)`
	}
	att := fmtNum(analyze.Num(100*slo.Attainment)) + " %"
	attFrom := ""
	if slo.From.Attainment != analyze.FromDefault {
		attFrom = "; `slo.attainment` from " + sourceName(slo.From.Attainment)
	}
	// One line on a wide screen: the first screen holds the answer, the
	// SLOs and the data-quality box (the method names the default).
	return b + fmt.Sprintf("; a level meets them when ≥ %s of its requests do (median of runs%s).", att, attFrom)
}

// headlineFigure formats an answer's figure with its unit, greyed when
// the level's data make it suspect; headlineFlags says why, after the
// sentence, so that no flag splits it.
func headlineFigure(l analyze.Level, ar analyze.AcrossRuns, unit string) string {
	if ar.Runs == 0 || !ar.Median.Valid() {
		return na
	}
	text := fmtAcross(ar, ar.Runs)
	if unit != "" {
		text += " " + unit
	}
	if len(l.Suspicions(ar.Key)) > 0 {
		return suspectOpen + text + suspectClose
	}
	return text
}

// flaggedFigure is a figure of an answer's sentence, by name and key.
type flaggedFigure struct{ name, key string }

// headlineFlags is the sentence after an answer's that says which of its
// figures rest on data that failed a check, and which checks: "⚠ Suspect:
// goodput and output tokens/s (warm-up not looked for)."; empty when none.
func headlineFlags(l analyze.Level, figs []flaggedFigure) string {
	var order []string
	names := map[string][]string{}
	for _, f := range figs {
		sus := l.Suspicions(f.key)
		if f.key == "" || len(sus) == 0 {
			continue
		}
		var why []string
		for _, su := range sus {
			why = append(why, shortSuspicion(su.Rule))
		}
		w := strings.Join(why, "; ")
		if _, ok := names[w]; !ok {
			order = append(order, w)
		}
		names[w] = append(names[w], f.name)
	}
	if len(order) == 0 {
		return ""
	}
	var parts []string
	for _, w := range order {
		parts = append(parts, andList(names[w])+" ("+w+")")
	}
	return " " + flagOpen + "⚠ Suspect: " + strings.Join(parts, "; ") + "." + flagClose
}

// andList joins "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// outputSource names where an output rate comes from.
func outputSource(key string) string {
	if key == analyze.KeyClientOutputRate {
		return "client records"
	}
	return "server counter"
}

// answerFigures is the throughput part of an answer's sentence: "at X
// output tokens/s (server counter) and Y requests/s", the tool's own
// figures, labelled as such, where benchnote has no measurement window
// to compute its own.
func answerFigures(l analyze.Level, a analyze.Answer) string {
	output := headlineFigure(l, a.Output, "") + " output tokens/s (" + outputSource(a.Output.Key) + ")"
	if !a.Output.Median.Valid() {
		output = "output tokens/s " + na
	}
	requests := headlineFigure(l, a.Requests, "requests/s")
	m := a.Measured
	toolOutput := !a.Output.Median.Valid() && m != nil && m.Output.Valid()
	toolRequests := requests == na && m != nil && m.Requests.Valid()
	if toolOutput {
		output = fmtNum(m.Output) + " output tokens/s"
	}
	if toolRequests {
		requests = fmtNum(m.Requests) + " requests/s"
	}
	if requests == na {
		// Requests/s needs the measurement window.
		requests = "requests/s " + na + " (no measurement window)"
	}
	if !toolOutput && !toolRequests {
		return "at " + output + " and " + requests
	}
	over := fmt.Sprintf("over its %s s run", fmtNum(m.DurationS))
	if m.Runs > 1 {
		over = fmt.Sprintf("over its %d runs (medians; %s s a run)", m.Runs, fmtNum(m.DurationS))
	}
	by := "as measured by " + mdEscape(m.Tool) + " " + over + " (the file gives benchnote no measurement window for its own)"
	switch {
	case toolOutput && toolRequests:
		return "at " + output + " and " + requests + " " + by
	case toolOutput:
		return "at " + output + " " + by + ", and " + requests
	default:
		return "at " + output + ", and " + requests + " " + by
	}
}

// capacityLine brackets the capacity among the levels tested: "Capacity
// lies between concurrency 4 (meets the SLOs in every run) and 16 (fails);
// a level in between would narrow it."
func capacityLine(v levelView, a analyze.Answer) string {
	c := a.Capacity
	load := func(k *analyze.LevelKey) ingest.LoadLevel { return k.Load() }
	higher := func(x, y *analyze.LevelKey) bool { return x != nil && y != nil && load(x).Compare(load(y)) > 0 }
	same := func(x, y *analyze.LevelKey) bool { return x != nil && y != nil && *x == *y }
	meets := ""
	if c.Level != nil {
		switch {
		case same(c.EveryRun, c.Level) && same(a.Level, c.Level) && a.Goodput.Runs == 1:
			// "every run" of one run claims a consistency nobody measured.
			meets = "meets the SLOs in its only run"
		case same(c.EveryRun, c.Level):
			meets = "meets the SLOs in every run"
		case c.EveryRun == nil:
			meets = "meets the SLOs by the median, not in every run"
		default:
			meets = "meets the SLOs by the median; every run does up to " + v.name(load(c.EveryRun))
		}
	}
	fails := "fails"
	if c.SomeRun != nil && (c.Level == nil || higher(c.SomeRun, c.Level)) {
		fails = "fails by the median; at least one run meets the SLOs up to " + v.name(load(c.SomeRun))
	}
	switch {
	case c.Level != nil && c.Above != nil:
		lo, hi := load(c.Level), load(c.Above)
		if lo.Mode == ingest.ModeConcurrency && hi.Mode == ingest.ModeConcurrency && hi.Concurrency == lo.Concurrency+1 {
			return fmt.Sprintf("**Capacity: %s** (%s); %s, the next concurrency, %s.", v.name(lo), meets, v.number(hi), fails)
		}
		return fmt.Sprintf("**Capacity lies between %s** (%s) **and %s** (%s); a level in between would narrow it.", v.name(lo), meets, v.number(hi), fails)
	case c.Level != nil:
		tested := "the highest level tested"
		if c.Levels == 1 {
			tested = "the only level tested"
		}
		return fmt.Sprintf("**Capacity is at least %s**, %s (%s); a higher level would tell how far it goes.", v.name(load(c.Level)), tested, meets)
	case c.Above != nil:
		lo := load(c.Above)
		tested := "the lowest level tested"
		if c.Levels == 1 {
			tested = "the only level tested"
		}
		if lo.Mode == ingest.ModeConcurrency && lo.Concurrency <= 1 {
			return fmt.Sprintf("**Capacity: none.** Even %s %s (%s): no load meets the SLOs.", v.name(lo), fails, tested)
		}
		return fmt.Sprintf("**Capacity lies below %s**, %s (%s); a lower level would tell where it is.", v.name(lo), tested, fails)
	}
	return ""
}

// answerLine states one load mode's answer, then brackets the capacity.
func answerLine(s *analyze.Summary, a analyze.Answer) string {
	v := viewOf(s)
	noun := map[string]string{"concurrency": "concurrency", "rate": "request rate"}[a.Mode]
	if a.Unavailable != "" {
		return fmt.Sprintf("**No answer for the %s levels:** %s.", noun, mdEscape(a.Unavailable))
	}
	key := a.Best
	if a.Level != nil {
		key = a.Level
	}
	l, _ := levelOf(s, *key)
	name := v.name(key.Load())
	target := fmtNum(analyze.Num(100*s.Method.SLO.Attainment)) + " %"
	runs := fmt.Sprintf("%d of %d %s ≥ %s", a.RunsMeeting, a.Goodput.Runs, textfmt.Plural(a.Goodput.Runs, "run", "runs"), target)
	if a.Goodput.FewRuns {
		runs += " " + fewRunsMark
	}
	figures := answerFigures(l, a)
	goodput := headlineFigure(l, a.Goodput, "")
	flags := headlineFlags(l, []flaggedFigure{{"goodput", a.Goodput.Key}, {"output tokens/s", a.Output.Key}, {"requests/s", a.Requests.Key}})
	capacity := capacityLine(v, a)
	if capacity != "" {
		capacity = " " + capacity
	}
	if a.Level == nil {
		return fmt.Sprintf("**No %s level meets the SLOs.** The best, %s, has %s of its measured requests meeting every target (%s needed; %s), %s.%s%s",
			noun, name, goodput, target, runs, figures, flags, capacity)
	}
	line := fmt.Sprintf("**Highest load meeting the SLOs: %s.** %s of its measured requests meet every target (%s), %s.%s%s",
		name, goodput, runs, figures, flags, capacity)
	if len(a.LowerNotMeeting) > 0 {
		var lower []string
		for _, k := range a.LowerNotMeeting {
			lower = append(lower, v.name(k.Load()))
		}
		line += fmt.Sprintf(" Lower levels that do not meet them: %s (goodput does not fall steadily with load).", strings.Join(lower, ", "))
	}
	return line
}

// qualityCounts counts the error and warning findings.
func qualityCounts(s *analyze.Summary) (errs, warns int) {
	for _, f := range s.Findings {
		switch f.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		}
	}
	return errs, warns
}

// countPhrase is "1 error and 2 warnings", "3 warnings", "no error or warning".
func countPhrase(errs, warns int) string {
	var parts []string
	if errs > 0 {
		parts = append(parts, textfmt.Count(errs, "error", "errors"))
	}
	if warns > 0 {
		parts = append(parts, textfmt.Count(warns, "warning", "warnings"))
	}
	if len(parts) == 0 {
		return "no error or warning"
	}
	return strings.Join(parts, " and ")
}

// headlineCell is the answer: environment and runs, the answer per load
// mode (with the number of data-quality problems when there are some),
// and the SLOs it rests on. With several series, the answers are a table
// of one row per series and the best configuration is named.
func headlineCell(s *analyze.Summary) string { return headlineCellOf(s, -1, 0) }

// headlineCellOf is headlineCell with, for several series, only the first
// rows of the series table (all when rows < 0) and series names cut to
// nameRunes (not when 0): pr.md bounds its first screen so.
func headlineCellOf(s *analyze.Summary, rows, nameRunes int) string {
	v := viewOf(s)
	sv := seriesOf(s)
	var b strings.Builder
	b.WriteString(environmentLine(s))
	// The answers go per series when the levels (not only the tools'
	// reported figures) belong to several.
	perSeries := seriesWithLevels(s) > 1
	inSeries := ""
	if perSeries {
		inSeries = fmt.Sprintf(" in %d series", seriesWithLevels(s))
	}
	if len(s.Runs) == 0 && len(s.Reported) > 0 {
		fmt.Fprintf(&b, " **Runs:** none with per-request records. The sweep holds only the figures %d %s reported: they are shown as the tools computed them, and nothing is recomputed (every figure is in report.md, under \"Figures reported by the tools\").\n\n",
			len(s.Reported), textfmt.Plural(len(s.Reported), "tool run", "tool runs"))
		b.WriteString(reportedHead(s))
	} else {
		fmt.Fprintf(&b, " **Runs:** %d at %s%s.\n\n", len(s.Runs), v.levelsPhrase(s), inSeries)
	}
	if perSeries {
		b.WriteString(seriesAnswers(s, sv, rows, nameRunes))
	} else {
		for _, a := range s.Answers {
			b.WriteString(answerLine(s, a) + "\n\n")
		}
	}
	if errs, warns := qualityCounts(s); errs+warns > 0 && len(s.Answers) > 0 {
		// Say it next to the answer: with many levels the box is below the
		// first screen.
		text := strings.TrimSuffix(b.String(), "\n\n")
		b.Reset()
		b.WriteString(text)
		if last := text[strings.LastIndexByte(text, '\n')+1:]; strings.HasPrefix(last, "|") {
			b.WriteString("\n\n") // after a table: a paragraph of its own
		} else {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "**Data quality: %s** (below).\n\n", countPhrase(errs, warns))
	}
	b.WriteString(sloStatement(s.Method.SLO) + "\n")
	return b.String()
}

// seriesWithLevels counts the series the levels belong to.
func seriesWithLevels(s *analyze.Summary) int {
	n := 0
	for i, l := range s.Levels {
		if i == 0 || l.Series != s.Levels[i-1].Series {
			n++
		}
	}
	return n
}

// seriesAnswers is the answer of a sweep of several series: a table of
// one row per series (per series and load mode when a series has both),
// the levels below an answer that do not meet the SLOs, and the best
// configuration. rows and nameRunes are as for headlineCellOf.
func seriesAnswers(s *analyze.Summary, sv seriesNaming, rows, nameRunes int) string {
	answers := s.Answers
	same := len(answers) > 0
	for _, a := range answers {
		same = same && a.Unavailable != "" && a.Unavailable == answers[0].Unavailable
	}
	if same {
		return fmt.Sprintf("**No answer for any series:** %s.\n\n", mdEscape(answers[0].Unavailable))
	}
	t := newSeriesAnswerTable(s, sv, nameRunes)
	var b strings.Builder
	b.WriteString(t.caption())
	var body [][]string
	if rows < 0 || rows > len(answers) {
		rows = len(answers)
	}
	for _, a := range answers[:rows] {
		body = append(body, t.row(a))
	}
	header := []string{"series", "highest load meeting the SLOs", "goodput (runs ≥ " + t.target + ")", t.outHead}
	if t.perGPU {
		header = append(header, "output tokens/s per GPU")
	}
	if len(body) > 0 {
		b.WriteString(table(append(header, "requests/s"), body))
		b.WriteString(t.n.footer())
		b.WriteString("\n")
	}
	if t.bracketed {
		b.WriteString("A series' capacity lies between its highest load meeting the SLOs (\"every run\" when each of its runs does) and the next level, which fails; a level in between would narrow it.\n\n")
	}
	if t.lower {
		b.WriteString("\"Not at\" names lower levels of the series that do not meet the SLOs: goodput does not fall steadily with load.\n\n")
	}
	if c := s.Configurations; c != nil {
		b.WriteString(bestLine(s, sv, c, t.name) + "\n\n")
	}
	return b.String()
}

// seriesAnswerTable is what the per-series answer table needs across its
// rows, and what the rows found that the sentences after it explain.
type seriesAnswerTable struct {
	s         *analyze.Summary
	sv        seriesNaming
	v         levelView
	n         *notes
	nameRunes int
	perGPU    bool
	ranks     map[ingest.Series]analyze.SeriesRank
	sources   map[string]bool // the output rate keys of the answers
	gpuCounts map[int]bool    // of the ranked series
	target    string          // the SLO attainment, "90 %"
	outHead   string          // the output rate's column head

	// lower and bracketed say whether a row names lower levels that do
	// not meet the SLOs, or a level above the answer that fails.
	lower, bracketed bool
}

// newSeriesAnswerTable gathers the ranks, output rate keys and GPU counts
// of the answers.
func newSeriesAnswerTable(s *analyze.Summary, sv seriesNaming, nameRunes int) *seriesAnswerTable {
	c := s.Configurations
	t := &seriesAnswerTable{
		s: s, sv: sv, v: viewOf(s), nameRunes: nameRunes,
		perGPU:    c != nil && c.Per == analyze.PerGPU,
		ranks:     map[ingest.Series]analyze.SeriesRank{},
		sources:   map[string]bool{},
		gpuCounts: map[int]bool{},
		target:    fmtNum(analyze.Num(100*s.Method.SLO.Attainment)) + " %",
		outHead:   "output tokens/s",
	}
	if c != nil {
		for _, r := range c.Series {
			t.ranks[r.Series] = r
		}
	}
	for _, a := range s.Answers {
		if a.Output.Key != "" {
			t.sources[a.Output.Key] = true
		}
	}
	if len(t.sources) == 1 {
		for k := range t.sources {
			t.outHead += " (" + map[string]string{analyze.KeyServerOutputRate: "server", analyze.KeyClientOutputRate: "client"}[k] + ")"
		}
	}
	for _, r := range t.ranks {
		if r.Rank > 0 {
			t.gpuCounts[r.GPUs] = true
		}
	}
	t.n = newNotes(s)
	t.n.series = &t.sv
	return t
}

// name is a series' name in the table, clipped to nameRunes.
func (t *seriesAnswerTable) name(ser ingest.Series) string {
	n := t.sv.name(ser)
	if t.nameRunes > 0 {
		n = textfmt.Clip(n, t.nameRunes)
	}
	return mdEscape(n)
}

// caption says what the table's columns hold. The GPU count goes in the
// caption when every ranked series has the same, in the cells otherwise:
// a column of its own would not fit in a pull-request comment.
func (t *seriesAnswerTable) caption() string {
	var b strings.Builder
	closest := ""
	for _, a := range t.s.Answers {
		if a.Unavailable == "" && a.Level == nil {
			closest = " (or, when none does, the level closest to them, in italics)"
		}
	}
	fmt.Fprintf(&b, "**Per series**, named by the labels that differ between them%s: the highest load meeting the SLOs%s and its figures, median ± %s MAD across runs; goodput with the runs whose own goodput reaches %s; output tokens/s as in the table below",
		t.sv.commonPhrase(), closest, t.s.Method.MAD, t.target)
	if t.perGPU {
		b.WriteString(", and divided by the series' GPU count (from its environment)")
		if len(t.gpuCounts) == 1 {
			for n := range t.gpuCounts {
				fmt.Fprintf(&b, ", %d %s for every ranked series", n, textfmt.Plural(n, "GPU", "GPUs"))
			}
		}
	}
	b.WriteString(".\n\n")
	return b.String()
}

// row is one series' row: its name, its answer (or why there is none)
// and the answer level's goodput, output rate, output rate per GPU when
// ranked per GPU, and request rate.
func (t *seriesAnswerTable) row(a analyze.Answer) []string {
	row := []string{t.name(a.Series)}
	if a.Unavailable != "" {
		row = append(row, "no answer: "+mdEscape(a.Unavailable), na, na)
		if t.perGPU {
			row = append(row, na)
		}
		return append(row, na)
	}
	key := a.Best
	if a.Level != nil {
		key = a.Level
	}
	l, _ := levelOf(t.s, *key)
	goodput := t.n.stat(l, "goodput.percent")
	if goodput != na {
		goodput += fmt.Sprintf(" (%d of %d)", a.RunsMeeting, a.Goodput.Runs)
	}
	out := t.n.stat(l, l.OutputRateKey)
	if len(t.sources) > 1 && out != na {
		out += map[string]string{analyze.KeyServerOutputRate: " (server)", analyze.KeyClientOutputRate: " (client)"}[l.OutputRateKey]
	}
	row = append(row, t.load(a), goodput, out)
	if t.perGPU {
		row = append(row, t.perGPUCell(a, l))
	}
	return append(row, t.n.stat(l, "throughput.requests_per_s"))
}

// load is a row's answer: the highest level meeting the SLOs, with the
// lower levels that do not, whether every run meets them, and the level
// above that fails; or, when no level does, the closest, in italics.
func (t *seriesAnswerTable) load(a analyze.Answer) string {
	v := t.v
	if a.Level == nil {
		return "none (closest: *" + v.name(a.Best.Load()) + "*)"
	}
	load := v.name(a.Level.Load())
	if len(a.LowerNotMeeting) > 0 {
		var names []string
		for _, k := range a.LowerNotMeeting {
			names = append(names, v.number(k.Load()))
		}
		load += " (not at " + strings.Join(names, ", ") + ")"
		t.lower = true
	}
	if c := a.Capacity; c.EveryRun != nil && *c.EveryRun == *a.Level {
		load += " (every run)"
	}
	if c := a.Capacity; c.Above != nil {
		load += "; " + v.number(c.Above.Load()) + " fails"
		t.bracketed = true
	} else if a.Capacity.Levels > 0 {
		load += "; highest tested"
	}
	return load
}

// perGPUCell is a row's output rate per GPU: the series' ranked figure,
// when it was ranked at the answer's level, with its GPU count when the
// ranked series differ in theirs.
func (t *seriesAnswerTable) perGPUCell(a analyze.Answer, l analyze.Level) string {
	r := t.ranks[a.Series]
	if r.Level == nil || a.Level == nil || *r.Level != *a.Level {
		return na
	}
	fig := fmtAcross(r.Output, len(l.Runs))
	if len(t.gpuCounts) > 1 {
		fig += fmt.Sprintf(" (%d %s)", r.GPUs, textfmt.Plural(r.GPUs, "GPU", "GPUs"))
	}
	return t.n.mark(l, strings.TrimSuffix(r.Output.Key, analyze.PerGPUSuffix), fig)
}

// bestLine names the best configuration under the SLOs, with the
// runner-up and whether the runs tell the two apart.
func bestLine(s *analyze.Summary, sv seriesNaming, c *analyze.Configurations, name func(ingest.Series) string) string {
	if c.Unavailable != "" {
		return fmt.Sprintf("**No best configuration under the SLOs:** %s.", mdEscape(c.Unavailable))
	}
	v := viewOf(s)
	var best, next *analyze.SeriesRank
	for i := range c.Series {
		switch c.Series[i].Rank {
		case 1:
			best = &c.Series[i]
		case 2:
			next = &c.Series[i]
		}
	}
	unit := "output tokens/s per GPU"
	if c.Per != analyze.PerGPU {
		unit = "output tokens/s per server"
	}
	figure := func(r *analyze.SeriesRank) string {
		l, _ := levelOf(s, *r.Level)
		text := headlineFigure(l, r.Output, "")
		if text == na {
			return na
		}
		if r.Output.FewRuns {
			text += " " + fewRunsMark
		}
		return text
	}
	line := fmt.Sprintf("**Best configuration under the SLOs: %s**, with %s %s at %s", name(best.Series), figure(best), unit, v.name(best.Level.Load()))
	if next == nil {
		line += "; no other series has a level meeting the SLOs with an output rate."
	} else {
		line += fmt.Sprintf(", against %s for %s at %s, the runner-up.", figure(next), name(next.Series), v.name(next.Level.Load()))
	}
	bl, _ := levelOf(s, *best.Level)
	line += headlineFlags(bl, []flaggedFigure{{"the best configuration's output tokens/s", best.Output.Key}})
	if next != nil {
		nl, _ := levelOf(s, *next.Level)
		line += headlineFlags(nl, []flaggedFigure{{"the runner-up's output tokens/s", next.Output.Key}})
	}
	if next != nil && best.Output.Key != next.Output.Key {
		line += " The two figures come from different sources (" + outputSource(strings.TrimSuffix(best.Output.Key, analyze.PerGPUSuffix)) + " and " + outputSource(strings.TrimSuffix(next.Output.Key, analyze.PerGPUSuffix)) + ")."
	}
	if c.WithinSpread {
		line += " **Within the spread:** the two median ± MAD ranges overlap, so these runs do not tell the two configurations apart."
	}
	if c.Per != analyze.PerGPU {
		var unknown []string
		for _, r := range c.Series {
			if r.Rank > 0 && r.GPUs == 0 {
				unknown = append(unknown, name(r.Series)+": "+mdEscape(r.GPUsUnknown))
			}
		}
		line += " Figures are per server, not per GPU, as the GPU count is unknown for " + strings.Join(unknown, "; ") + "."
	}
	return line
}

// headlineTable is the compact table of the first screen: p50 and p95 of
// TTFT, TPOT and E2E, output tokens/s with its source, requests/s,
// goodput and the error rate, per level.
func headlineTable(s *analyze.Summary) string { return headlineTableOf(s, s.Levels) }

// headlineTableOf is the headline table of some of the sweep's levels.
func headlineTableOf(s *analyze.Summary, levels []analyze.Level) string {
	v := viewOf(s)
	var b strings.Builder
	sources := map[string]bool{}
	for _, l := range levels {
		sources[l.OutputRateKey] = true
	}
	fmt.Fprintf(&b, "**Per %s**, median ± %s MAD across runs: %s p50 and p95 over each run's measured requests (ms); output tokens/s from the server's token counter over the window (the client's Σ n / (T_last − T_first) where that is missing or suspect); successful requests/s in the window; goodput, %% of measured requests meeting every SLO. Errors: failed / measured requests, all runs.\n\n",
		v.perLevel(), s.Method.MAD, s.Method.Percentile)
	b.WriteString(perSeries(s, levels, func(levels []analyze.Level) string {
		return headlineRows(s, levels, sources)
	}))
	return b.String()
}

// headlineRows is one table of the headline table: the levels given.
func headlineRows(s *analyze.Summary, levels []analyze.Level, sources map[string]bool) string {
	v := viewOf(s)
	var b strings.Builder
	outHead := "output tokens/s"
	if len(sources) == 1 {
		for k := range sources {
			outHead += " (" + map[string]string{analyze.KeyServerOutputRate: "server", analyze.KeyClientOutputRate: "client"}[k] + ")"
		}
	}
	n := newNotes(s)
	thr := s.Method.ErrorRateThreshold
	var rows [][]string
	for _, l := range levels {
		out := n.stat(l, l.OutputRateKey)
		if len(sources) > 1 && out != na {
			out += map[string]string{analyze.KeyServerOutputRate: " (server)", analyze.KeyClientOutputRate: " (client)"}[l.OutputRateKey]
		}
		errCell := na
		if l.ErrorPercent.Valid() {
			errCell = fmtNum(l.ErrorPercent) + " %"
			if float64(l.ErrorPercent) > 100*thr {
				errCell = flagOpen + errCell + " ⚠" + flagClose
			}
		}
		rows = append(rows, []string{v.cell(l.Load()), runsCell(l),
			n.stat(l, "ttft.p50"), n.stat(l, "ttft.p95"), n.stat(l, "tpot.p50"), n.stat(l, "tpot.p95"), n.stat(l, "e2e.p50"), n.stat(l, "e2e.p95"),
			out, n.stat(l, "throughput.requests_per_s"), n.stat(l, "goodput.percent"), errCell})
	}
	b.WriteString(table([]string{v.column(), "runs", "TTFT p50", "TTFT p95", "TPOT p50", "TPOT p95", "E2E p50", "E2E p95",
		outHead, "requests/s", "goodput", "errors"}, rows))
	b.WriteString(n.footer())
	return b.String()
}

// qualityLines lists the error and warning findings, one line each.
func qualityLines(s *analyze.Summary) []string {
	var lines []string
	for _, f := range s.Findings {
		sev := ""
		switch f.Severity {
		case "error":
			sev = "**error**"
		case "warning":
			sev = "warning"
		default:
			continue
		}
		lines = append(lines, fmt.Sprintf("- %s %s: %s", sev, code(f.Rule), mdEscape(f.Message)))
	}
	return lines
}

// qualityCell is the data-quality box: every error and warning finding,
// one line each (their runs and measurement rules are in the lint
// findings), or a line saying there is none. In report.md it is a block quote; in
// report.html a framed box (the HTML target wraps it).
func qualityCell(s *analyze.Summary, tgt target) string {
	errs, warns := qualityCounts(s)
	infos := len(s.Findings) - errs - warns
	var body string
	if errs+warns == 0 {
		body = fmt.Sprintf("**Nothing to report.** No lint finding is an error or a warning (%d %s, listed with the lint findings).\n", infos, textfmt.Plural(infos, "info finding", "info findings"))
	} else {
		body = strings.Join(qualityLines(s), "\n") + "\n"
	}
	if tgt == targetHTML {
		return blockOpen("quality") + body + blockClose("quality")
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
	}
	return b.String()
}
