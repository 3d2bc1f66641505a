package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/stats"
)

// verdictSentence is the outcome in one sentence, e.g. "Slower: E2E p95
// +11.0 % (+8.0 % to +14.0 %) across 3 levels, stratified exact p =
// 0.0004, 3 runs a side."
func verdictSentence(r *Result) string {
	if r.Comparability.Verdict == NotComparable {
		var why []string
		for _, c := range r.Comparability.Blockers() {
			why = append(why, fmt.Sprintf("%s (%s vs %s)", c.Key, quoteOr(c.Base), quoteOr(c.New)))
		}
		verb := " differ"
		if len(why) == 1 {
			verb = " differs"
		}
		return "Not comparable: " + strings.Join(why, "; ") + verb + "; --expect KEY declares an intended change."
	}
	if r.Outcome == OutcomeNothingCompared {
		return "Nothing compared: no level of a series is present on both sides."
	}
	primary := func(verdict, dir string) []Finding {
		var out []Finding
		for _, f := range r.findingsBySeverity() {
			if f.Primary && f.Verdict == verdict && (dir == "" || f.Direction == dir) {
				out = append(out, f)
			}
		}
		return out
	}
	more := func(fs []Finding) string {
		if n := len(fs) - 1; n == 1 {
			return "; 1 more primary statistic"
		} else if n > 1 {
			return fmt.Sprintf("; %d more primary statistics", n)
		}
		return ""
	}
	switch r.Outcome {
	case OutcomeRegression:
		if fs := primary(VerdictRegression, ""); len(fs) > 0 {
			return word(fs[0]) + ": " + findingPhrase(fs[0], r) + more(fs) + "."
		}
		return "Worse: a per-level test of a primary statistic (--per-level) flagged a regression."
	case OutcomeImprovement:
		if fs := primary(VerdictImprovement, ""); len(fs) > 0 {
			return word(fs[0]) + ": " + findingPhrase(fs[0], r) + more(fs) + "."
		}
		return "Better: a per-level test of a primary statistic (--per-level) flagged an improvement."
	case OutcomeUndecided:
		fs := primary(VerdictUndecided, "worse")
		f := fs[0]
		return fmt.Sprintf("Undecided: %s %s across %s, but %s cannot reach p < %s%s: need ≥ %d runs a side at these levels (or more levels; --no-test flags on the threshold alone)%s.",
			f.Metric.Name, ChangeText(Row{Metric: f.Metric, Change: f.Change}), textfmt.Count(f.Levels, "level", "levels"), runsPhrase(f),
			plainP(r.Family.EffectiveAlpha), holmPhrase(r.Family), f.NeedRuns, more(fs))
	}
	tested := 0
	for _, f := range r.Findings {
		if f.Primary && f.Test != nil {
			tested++
		}
	}
	n := 0
	for _, f := range r.Findings {
		if f.Primary && f.Verdict != VerdictNotAvailable {
			n++
		}
	}
	if r.Family.NoTest {
		return fmt.Sprintf("No change: none of the %d primary statistics moved beyond its threshold; no statistical test was made (--no-test).", n)
	}
	untested := ""
	if tested < n {
		untested = fmt.Sprintf("; %d without variation to test", n-tested)
	}
	return fmt.Sprintf("No change: none of the %d primary statistics moved beyond its threshold with p < %s%s%s.",
		n, strconv.FormatFloat(r.Family.Alpha, 'g', -1, 64), holmPhrase(r.Family), untested)
}

// word names the kind of change: "Slower", "Faster", "Less throughput", ...
func word(f Finding) string {
	worse := f.Direction == "worse"
	switch f.Metric.Family {
	case "ttft", "tpot", "e2e", "itl":
		if worse {
			return "Slower"
		}
		return "Faster"
	case "throughput":
		if worse {
			return "Less throughput"
		}
		return "More throughput"
	case "goodput":
		if worse {
			return "Lower goodput"
		}
		return "Higher goodput"
	case "errors":
		if worse {
			return "More errors"
		}
		return "Fewer errors"
	}
	if worse {
		return "Worse"
	}
	return "Better"
}

// findingPhrase is "E2E p95 +11.0 % (+8.0 % to +14.0 %) across 3 levels,
// stratified exact p = 0.0004, 3 runs a side".
func findingPhrase(f Finding, r *Result) string {
	var b strings.Builder
	b.WriteString(f.Metric.Name + " " + ChangeText(Row{Metric: f.Metric, Change: f.Change}))
	if r := ChangeRange(f); r != "" {
		b.WriteString(" (" + r + ")")
	}
	fmt.Fprintf(&b, " across %s", textfmt.Count(f.Levels, "level", "levels"))
	if !f.Series.IsZero() {
		fmt.Fprintf(&b, " of series %s", f.Series)
	}
	if f.Test == nil {
		fmt.Fprintf(&b, ", beyond its threshold; no statistical test was made (--no-test), %s", runsPhrase(f))
		return b.String()
	}
	fmt.Fprintf(&b, ", %s p %s", methodShort(f.Test.Method), pIs(float64(f.Test.P)))
	if r.Family.Correction == CorrectionHolm && r.Family.Tests > 1 && f.Primary {
		fmt.Fprintf(&b, " (Holm over %d tests: %s)", r.Family.Tests, plainP(float64(f.Test.PAdjusted)))
	}
	b.WriteString(", " + runsPhrase(f))
	return b.String()
}

// methodShort names a stratified test's method in a sentence.
func methodShort(m string) string {
	switch m {
	case stats.MethodSignTest:
		return "sign test across levels"
	case stats.MethodStratifiedNormal:
		return "stratified (normal approximation)"
	}
	return "stratified exact"
}

// runsPhrase is "3 runs a side", or "3 vs 5 runs a level" when the sides
// or levels differ.
func runsPhrase(f Finding) string {
	if f.Levels > 0 && f.BaseRuns == f.NewRuns && f.BaseRuns%f.Levels == 0 {
		k := f.BaseRuns / f.Levels
		return fmt.Sprintf("%s a side", textfmt.Count(k, "run", "runs"))
	}
	return fmt.Sprintf("%d vs %d runs over %s", f.BaseRuns, f.NewRuns, textfmt.Count(f.Levels, "level", "levels"))
}

func holmPhrase(f Family) string {
	if f.Correction == CorrectionHolm && f.Tests > 1 {
		return fmt.Sprintf(" (Holm over %d tests)", f.Tests)
	}
	return ""
}

// ChangeRange is "+8.0 % to +14.0 %", the range of a finding's per-level
// changes, or "" when it has one level or the ends read the same.
func ChangeRange(f Finding) string {
	if f.Levels < 2 || !f.ChangeLow.Valid() || !f.ChangeHigh.Valid() {
		return ""
	}
	lo, hi := ChangeText(Row{Metric: f.Metric, Change: f.ChangeLow}), ChangeText(Row{Metric: f.Metric, Change: f.ChangeHigh})
	if lo == hi {
		return ""
	}
	return lo + " to " + hi
}

// pIs is "= 0.0004", or "< 0.0001".
func pIs(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return "= " + plainP(p)
}
