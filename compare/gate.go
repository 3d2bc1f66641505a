package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// What a CI gate fails on.
const (
	// FailOnRegression fails on flagged regressions and on error-rate
	// rises (the default).
	FailOnRegression = "regression"
	// FailOnErrorRate fails on error-rate rises only.
	FailOnErrorRate = "error-rate"
	// FailOnAny fails on any flagged change, better or worse, and on
	// error-rate rises.
	FailOnAny = "any"
)

// Exit codes of a gate.
const (
	ExitPass = 0 // nothing flagged that fails
	ExitFail = 1 // a flagged regression (or what --fail-on chose)
	// ExitIncomparable: not comparable, or nothing in common.
	ExitIncomparable = 2
	ExitInputError   = 3 // the inputs or options could not be used
	// ExitUndecided: a primary statistic moved beyond its threshold in a
	// failing direction, but the runs are too few for its test to reach
	// the level it is held to.
	ExitUndecided = 4
)

// GateOptions says what fails the gate.
type GateOptions struct {
	// FailOn is FailOnRegression, FailOnErrorRate or FailOnAny.
	FailOn string
	// AllowIncomparable turns "not comparable" and "nothing in common"
	// (exit 2) and "too few runs to decide" (exit 4) into a pass (flagged
	// findings still fail).
	AllowIncomparable bool
}

// Gate is the decision of a CI gate.
type Gate struct {
	Code int `json:"exit_code"`
	// Lines are one line per reason, for stderr.
	Lines []string `json:"reasons"`
}

// CheckFailOn returns an error for an unknown --fail-on value.
func CheckFailOn(s string) error {
	switch s {
	case FailOnRegression, FailOnErrorRate, FailOnAny:
		return nil
	}
	return fmt.Errorf("--fail-on %q: expected %s, %s or %s", s, FailOnRegression, FailOnErrorRate, FailOnAny)
}

// Gate decides the exit code: 2 when the sweeps are not comparable or have
// nothing in common (unless allowed), else 1 when a primary finding chosen
// by FailOn is flagged (with --per-level, also a level's test of a primary
// statistic), else 4 when a primary statistic moved beyond its threshold
// in a direction that would fail but its test cannot reach the level it
// is held to (unless allowed), else 0. Secondary statistics never gate.
func (r *Result) Gate(g GateOptions) Gate {
	var out Gate
	if r.Comparability.Verdict == NotComparable && !g.AllowIncomparable {
		var why []string
		for _, c := range r.Comparability.Blockers() {
			why = append(why, fmt.Sprintf("%s (%s vs %s)", c.Key, quoteOr(c.Base), quoteOr(c.New)))
		}
		out.Code = ExitIncomparable
		out.Lines = append(out.Lines, "not comparable: "+strings.Join(why, "; ")+" (--expect KEY declares an intended change; --allow-incomparable compares anyway)")
		return out
	}
	if r.Outcome == OutcomeNothingCompared && !g.AllowIncomparable {
		out.Code = ExitIncomparable
		if r.Series != nil && len(r.Series.Compared) == 0 {
			out.Lines = append(out.Lines, fmt.Sprintf("nothing compared: no series is present on both sides (base %s, new %s; --base-series and --new-series compare two series) (--allow-incomparable passes anyway)",
				SeriesList(seriesNames(r.Series.OnlyBase), 5), SeriesList(seriesNames(r.Series.OnlyNew), 5)))
			return out
		}
		out.Lines = append(out.Lines, fmt.Sprintf("nothing compared: no level is present on both sides (base %s, new %s) (--allow-incomparable passes anyway)",
			levelList(r.OnlyBase), levelList(r.OnlyNew)))
		return out
	}
	fails := func(f Finding) bool {
		switch {
		case !f.Primary || !f.Flagged():
			return false
		case g.FailOn == FailOnErrorRate:
			return f.Metric.Key == ErrorRateKey && f.Verdict == VerdictRegression
		case g.FailOn == FailOnAny:
			return true
		}
		return f.Verdict == VerdictRegression
	}
	var lines []string
	for _, f := range r.findingsBySeverity() {
		if fails(f) {
			lines = append(lines, fmt.Sprintf("%s: %s", f.Verdict, findingPhrase(f, r)))
		}
	}
	if r.Options.PerLevel && g.FailOn != FailOnErrorRate {
		verdicts := []string{VerdictRegression}
		if g.FailOn == FailOnAny {
			verdicts = append(verdicts, VerdictImprovement)
		}
		for _, lr := range r.BySeverity(verdicts...) {
			if !r.Options.inGate(lr.Metric.Key) {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s at one level: %s at %s: %s → %s (%s, p = %s)", lr.Verdict, lr.Metric.Name, lr.Label,
				plainNum(float64(lr.Base.Median), lr.Metric.Unit), plainNum(float64(lr.New.Median), lr.Metric.Unit),
				ChangeText(lr.Row), plainP(float64(lr.Test.PAdjusted))))
		}
	}
	if len(lines) > 0 {
		out.Code, out.Lines = ExitFail, lines
		return out
	}
	if !g.AllowIncomparable {
		for _, f := range r.findingsBySeverity() {
			if !f.Primary || f.Verdict != VerdictUndecided {
				continue
			}
			if f.Direction != "worse" && g.FailOn != FailOnAny || g.FailOn == FailOnErrorRate && f.Metric.Key != ErrorRateKey {
				continue
			}
			out.Lines = append(out.Lines, fmt.Sprintf("undecided: %s changed %s across %s with %s: need ≥ %d runs a side at these levels to test it (--no-test flags on the threshold alone)",
				f.Metric.Name, ChangeText(Row{Metric: f.Metric, Change: f.Change}), textfmt.Count(f.Levels, "level", "levels"), runsPhrase(f), f.NeedRuns))
		}
		if len(out.Lines) > 0 {
			out.Code = ExitUndecided
		}
	}
	return out
}

// findingsBySeverity returns the findings, most severe first, ties in
// their order.
func (r *Result) findingsBySeverity() []Finding {
	out := append([]Finding(nil), r.Findings...)
	key := func(f Finding) float64 {
		if !f.Severity.Valid() {
			return -1
		}
		return math.Round(float64(f.Severity) * 1e6)
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) > key(out[j]) })
	return out
}

// levelList names up to five levels: "concurrency 1, concurrency 4 and 3 more".
func levelList(ls []OneSided) string {
	if len(ls) == 0 {
		return "none"
	}
	var names []string
	for i, l := range ls {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(ls)-i))
			break
		}
		names = append(names, l.Label)
	}
	return strings.Join(names, ", ")
}

func quoteOr(s string) string {
	if s == "" {
		return "absent"
	}
	return fmt.Sprintf("%q", s)
}

// ChangeText renders a row's change: "+30.0 %", "−2.1 pp", "from 0".
func ChangeText(r Row) string {
	c := float64(r.Change)
	switch {
	case !r.Change.Valid() && (c > 0 || c < 0):
		return "from 0"
	case !r.Change.Valid():
		return "n/a"
	case r.Metric.Points:
		return signed(c, "pp")
	}
	return signed(100*c, "%")
}

func signed(v float64, unit string) string {
	s := fmt.Sprintf("%+.1f %s", v, unit)
	if s == "-0.0 "+unit {
		s = "+0.0 " + unit
	}
	return strings.Replace(s, "-", "−", 1)
}

func plainNum(v float64, unit string) string {
	return fmt.Sprintf("%.4g %s", v, unit)
}

func plainP(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}
