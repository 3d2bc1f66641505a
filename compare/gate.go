package compare

import (
	"fmt"
	"strings"
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
	ExitPass       = 0 // nothing flagged that fails
	ExitFail       = 1 // a flagged regression (or what --fail-on chose)
	ExitUndecided  = 2 // not comparable, too few runs to decide, or no common level
	ExitInputError = 3 // the inputs or options could not be used
)

// GateOptions says what fails the gate.
type GateOptions struct {
	// FailOn is FailOnRegression, FailOnErrorRate or FailOnAny.
	FailOn string
	// AllowIncomparable turns "not comparable" and "too few runs to
	// decide" from exit 2 into a pass (flagged rows still fail).
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
// no level in common (unless allowed), else 1 when something chosen by
// FailOn is flagged, else 2 when a change beyond the threshold in a
// direction that would fail could not be tested for want of runs (unless
// allowed), else 0.
func (r *Result) Gate(g GateOptions) Gate {
	var out Gate
	if r.Comparability.Verdict == NotComparable && !g.AllowIncomparable {
		var why []string
		for _, c := range r.Comparability.Blockers() {
			why = append(why, fmt.Sprintf("%s (%s vs %s)", c.Key, quoteOr(c.Base), quoteOr(c.New)))
		}
		out.Code = ExitUndecided
		out.Lines = append(out.Lines, "not comparable: "+strings.Join(why, "; ")+" (--expect KEY declares an intended change; --allow-incomparable compares anyway)")
		return out
	}
	if r.Outcome == OutcomeNothingCompared && !g.AllowIncomparable {
		out.Code = ExitUndecided
		if r.Series != nil && len(r.Series.Compared) == 0 {
			out.Lines = append(out.Lines, fmt.Sprintf("nothing compared: no series is present on both sides (base %s, new %s; --base-series and --new-series compare two series) (--allow-incomparable passes anyway)",
				SeriesList(seriesNames(r.Series.OnlyBase), 5), SeriesList(seriesNames(r.Series.OnlyNew), 5)))
			return out
		}
		out.Lines = append(out.Lines, fmt.Sprintf("nothing compared: no level is present on both sides (base %s, new %s) (--allow-incomparable passes anyway)",
			levelList(r.OnlyBase), levelList(r.OnlyNew)))
		return out
	}
	var fails []string
	if g.FailOn != FailOnErrorRate {
		verdicts := []string{VerdictRegression}
		if g.FailOn == FailOnAny {
			verdicts = append(verdicts, VerdictImprovement)
		}
		for _, lr := range r.BySeverity(verdicts...) {
			fails = append(fails, fmt.Sprintf("%s: %s at %s: %s → %s (%s, p = %s)", lr.Verdict, lr.Metric.Name, lr.Label,
				plainNum(float64(lr.Base.Median), lr.Metric.Unit), plainNum(float64(lr.New.Median), lr.Metric.Unit),
				ChangeText(lr.Row), plainP(float64(lr.Test.PAdjusted))))
		}
	}
	for _, e := range r.ErrorRate {
		fails = append(fails, fmt.Sprintf("error-rate rise at %s: median %.2f %% → %.2f %%, worst run %.2f %% → %.2f %% (threshold %g pp)",
			e.Label, e.BaseMedian, e.NewMedian, e.BaseWorst, e.NewWorst, e.Threshold))
	}
	if len(fails) > 0 {
		out.Code, out.Lines = ExitFail, fails
		return out
	}
	if g.FailOn != FailOnErrorRate && !g.AllowIncomparable {
		for _, lr := range r.BySeverity(VerdictUndecided) {
			if lr.Direction != "worse" && g.FailOn != FailOnAny {
				continue
			}
			out.Lines = append(out.Lines, fmt.Sprintf("undecided: %s at %s changed %s with %d vs %d runs: need ≥ %d runs per side to test it",
				lr.Metric.Name, lr.Label, ChangeText(lr.Row), lr.Base.N, lr.New.N, lr.NeedRuns))
		}
		if len(out.Lines) > 0 {
			out.Code = ExitUndecided
		}
	}
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
