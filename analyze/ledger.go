package analyze

import (
	"sort"
)

// Exclusion scopes, in report order.
const (
	ScopeFile      = "file"
	ScopeRun       = "run"
	ScopeSeries    = "series"
	ScopeRequest   = "request"
	ScopeStatistic = "statistic"
)

var scopeOrder = map[string]int{ScopeFile: 0, ScopeRun: 1, ScopeSeries: 2, ScopeRequest: 3, ScopeStatistic: 4}

const maxExamples = 5

// ledger accumulates exclusions by (scope, reason).
type ledger struct {
	entries map[[2]string]*Exclusion
}

func newLedger() *ledger { return &ledger{entries: map[[2]string]*Exclusion{}} }

// add counts n exclusions of a reason, keeping the first few examples.
func (l *ledger) add(scope, reason string, n int, example string) {
	if n <= 0 {
		return
	}
	key := [2]string{scope, reason}
	e, ok := l.entries[key]
	if !ok {
		e = &Exclusion{Scope: scope, Reason: reason}
		l.entries[key] = e
	}
	e.Count += n
	if example != "" && len(e.Examples) < maxExamples {
		e.Examples = append(e.Examples, example)
	}
}

// merge adds another ledger's entries to l, examples after l's own. Each
// key is merged on its own, so the result does not depend on map order.
func (l *ledger) merge(o *ledger) {
	for key, e := range o.entries {
		mine, ok := l.entries[key]
		if !ok {
			mine = &Exclusion{Scope: e.Scope, Reason: e.Reason}
			l.entries[key] = mine
		}
		mine.Count += e.Count
		for _, x := range e.Examples {
			if len(mine.Examples) < maxExamples {
				mine.Examples = append(mine.Examples, x)
			}
		}
	}
}

// list returns the exclusions sorted by scope, then reason.
func (l *ledger) list() []Exclusion {
	out := make([]Exclusion, 0, len(l.entries))
	for _, e := range l.entries {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return scopeOrder[out[i].Scope] < scopeOrder[out[j].Scope]
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// sortedReasonCounts turns a count map into a slice, largest first, then by reason.
func sortedReasonCounts(m map[string]int) []ReasonCount {
	out := make([]ReasonCount, 0, len(m))
	for k, v := range m {
		out = append(out, ReasonCount{Reason: k, Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}
