package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// Selector picks series by their labels: a series matches when it has
// every label of the selector with the same value (text equality: tp=2
// does not match tp=2.0). The zero Selector matches every series.
type Selector struct {
	labels ingest.Series
}

// ParseSelector reads "KEY=V[,KEY=V]" (spaces around names and values are
// trimmed; a value cannot hold a comma). Names and values are checked as
// series labels are (ingest.NewSeries); a name given twice is an error.
func ParseSelector(s string) (Selector, error) {
	m := map[string]string{}
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return Selector{}, fmt.Errorf("series selector %q: expected KEY=VALUE[,KEY=VALUE], got %q", s, strings.TrimSpace(part))
		}
		if old, dup := m[k]; dup {
			return Selector{}, fmt.Errorf("series selector %q: label %s given twice (%q and %q)", s, k, old, v)
		}
		m[k] = v
	}
	labels, err := ingest.NewSeries(m)
	if err != nil {
		return Selector{}, fmt.Errorf("series selector %q: %w", s, err)
	}
	return Selector{labels: labels}, nil
}

// IsZero reports whether the selector has no label (it matches every
// series).
func (sel Selector) IsZero() bool { return sel.labels.IsZero() }

// String writes the selector as ParseSelector reads it: "max_num_seqs=128,tp=2".
func (sel Selector) String() string {
	return strings.ReplaceAll(sel.labels.String(), ", ", ",")
}

// Matches reports whether s has every label of the selector, with the
// same value.
func (sel Selector) Matches(s ingest.Series) bool {
	for name, want := range sel.labels.Labels() {
		if v, ok := s.Get(name); !ok || v != want {
			return false
		}
	}
	return true
}

// MarshalJSON writes the labels as a JSON object, names sorted.
func (sel Selector) MarshalJSON() ([]byte, error) { return json.Marshal(sel.labels) }

// UnmarshalJSON reads what MarshalJSON writes.
func (sel *Selector) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &sel.labels) }

// SeriesPair selects one series on each side: levels are then matched by
// load alone between the two. An empty selector selects a side's only
// series (an error when it has several).
type SeriesPair struct {
	Base Selector `json:"base"`
	New  Selector `json:"new"`
}

// Pair is two series compared level by level: the same series on both
// sides when series are matched by their labels, or the two selected by a
// SeriesPair.
type Pair struct {
	Base ingest.Series `json:"base"`
	New  ingest.Series `json:"new"`
}

// SeriesCount is a series with its number of levels and runs.
type SeriesCount struct {
	Series ingest.Series `json:"series"`
	Levels int           `json:"levels"`
	Runs   int           `json:"runs"`
}

// SeriesResult says which series were compared and which were left out.
// A Result has none when both sides are one unlabelled series and no
// selector was given.
type SeriesResult struct {
	// Selector is the --series selector applied to both sides (omitted
	// when none was given).
	Selector Selector `json:"selector,omitzero"`
	// Paired is true when one series of each side was selected
	// (Options.Pair) and their levels were matched by load alone.
	Paired bool `json:"paired"`
	// Compared lists the pairs of series compared, in series order.
	Compared []Pair `json:"compared"`
	// OnlyBase and OnlyNew are the (selected) series one side lacks: listed,
	// not compared, with the levels and runs left out.
	OnlyBase []SeriesCount `json:"only_base"`
	OnlyNew  []SeriesCount `json:"only_new"`
}

// Several reports whether more than one pair of series was compared: then
// level labels name their series.
func (s *SeriesResult) Several() bool { return s != nil && len(s.Compared) > 1 }

// SeriesError is a series selection that cannot be used: a selector
// naming a label no series has, or matching no series (or, for a pair,
// several) on a side.
type SeriesError struct {
	// Flag names the selector ("--series", "--base-series").
	Flag     string
	Selector Selector
	// Side is "base" or "new"; Name the input as given.
	Side, Name string
	// Problem says what is wrong, SIDE standing for the side and its
	// name; Candidates are the series of the side (or those the selector
	// matched).
	Problem    string
	Candidates []ingest.Series
}

// maxCandidates is the most series an error names.
const maxCandidates = 20

// Error reads "--series tp=3: no series of base runs/a matches; its
// series: {tp=1}, {tp=2}".
func (e *SeriesError) Error() string {
	sel := e.Flag + " " + e.Selector.String()
	if e.Selector.IsZero() {
		sel = e.Flag + ` ""`
	}
	msg := sel + ": " + strings.ReplaceAll(e.Problem, "SIDE", e.Side+" "+e.Name)
	if len(e.Candidates) > 0 {
		msg += ": " + SeriesList(e.Candidates, maxCandidates)
	}
	return msg
}

// SeriesList writes series as "{max_num_seqs=128}, {max_num_seqs=256}",
// "{} (unlabelled)" for the zero series, the first max then "and N more";
// "none" for no series.
func SeriesList(ss []ingest.Series, max int) string {
	if len(ss) == 0 {
		return "none"
	}
	var parts []string
	for i, s := range ss {
		if max >= 0 && i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(ss)-i))
			break
		}
		parts = append(parts, SeriesName(s))
	}
	return strings.Join(parts, ", ")
}

// SeriesName writes a series as "{tp=2, max_num_seqs=128}", or
// "{} (unlabelled)".
func SeriesName(s ingest.Series) string {
	if s.IsZero() {
		return "{} (unlabelled)"
	}
	return "{" + s.String() + "}"
}

// seriesOf returns the series of a summary's levels, in level (series)
// order, with their levels and runs.
func seriesOf(s *analyze.Summary) []SeriesCount {
	var out []SeriesCount
	for _, l := range s.Levels {
		if n := len(out); n == 0 || out[n-1].Series != l.Series {
			out = append(out, SeriesCount{Series: l.Series})
		}
		out[len(out)-1].Levels++
		out[len(out)-1].Runs += len(l.Runs)
	}
	return out
}

func seriesNames(cs []SeriesCount) []ingest.Series {
	out := make([]ingest.Series, len(cs))
	for i, c := range cs {
		out[i] = c.Series
	}
	return out
}

// selectSide returns the series of one side the selector matches, or an
// error naming the series the side has.
func selectSide(flag string, sel Selector, side string, in Input, all []SeriesCount) ([]SeriesCount, error) {
	fail := func(problem string, cands []ingest.Series) error {
		return &SeriesError{Flag: flag, Selector: sel, Side: side, Name: in.Name, Problem: problem, Candidates: cands}
	}
	names := seriesNames(all)
	for _, n := range sel.labels.Names() {
		known := slices.ContainsFunc(names, func(s ingest.Series) bool { _, ok := s.Get(n); return ok })
		if !known {
			return nil, fail(fmt.Sprintf("no series of SIDE has a label %s; its series", n), names)
		}
	}
	var out []SeriesCount
	for _, c := range all {
		if sel.Matches(c.Series) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fail("no series of SIDE matches; its series", names)
	}
	return out, nil
}

// selection is what a comparison compares.
type selection struct {
	// result is nil when both sides are one unlabelled series and nothing
	// was selected.
	result *SeriesResult
	// pairs are the series compared; base and new keep the levels of
	// their side's compared series.
	pairs []Pair
}

// selectSeries matches the series of two summaries under the options.
func selectSeries(base, new Input, opts Options) (selection, error) {
	bAll, nAll := seriesOf(base.Summary), seriesOf(new.Summary)
	res := &SeriesResult{Selector: opts.Series, Compared: []Pair{}, OnlyBase: []SeriesCount{}, OnlyNew: []SeriesCount{}}
	if p := opts.Pair; p != nil {
		res.Paired = true
		pick := func(flag string, sel Selector, side string, in Input, all []SeriesCount) (ingest.Series, error) {
			if len(all) == 0 {
				return ingest.Series{}, &SeriesError{Flag: flag, Selector: sel, Side: side, Name: in.Name, Problem: "SIDE has no level, so no series"}
			}
			got, err := selectSide(flag, sel, side, in, all)
			if err != nil {
				return ingest.Series{}, err
			}
			if len(got) > 1 {
				problem := fmt.Sprintf("%d series of SIDE match; add labels to pick one", len(got))
				if sel.IsZero() {
					problem = fmt.Sprintf("SIDE has %d series, and an empty selector picks a side's only one; pick one", len(got))
				}
				return ingest.Series{}, &SeriesError{Flag: flag, Selector: sel, Side: side, Name: in.Name, Problem: problem, Candidates: seriesNames(got)}
			}
			return got[0].Series, nil
		}
		b, err := pick("--base-series", p.Base, "base", base, bAll)
		if err != nil {
			return selection{}, err
		}
		n, err := pick("--new-series", p.New, "new", new, nAll)
		if err != nil {
			return selection{}, err
		}
		res.Compared = []Pair{{Base: b, New: n}}
		return selection{result: res, pairs: res.Compared}, nil
	}
	bSel, nSel := bAll, nAll
	if !opts.Series.IsZero() {
		var err error
		if bSel, err = selectSide("--series", opts.Series, "base", base, bAll); err != nil {
			return selection{}, err
		}
		if nSel, err = selectSide("--series", opts.Series, "new", new, nAll); err != nil {
			return selection{}, err
		}
	}
	inNew := map[ingest.Series]bool{}
	for _, c := range nSel {
		inNew[c.Series] = true
	}
	inBase := map[ingest.Series]bool{}
	for _, c := range bSel {
		inBase[c.Series] = true
		if inNew[c.Series] {
			res.Compared = append(res.Compared, Pair{Base: c.Series, New: c.Series})
		} else {
			res.OnlyBase = append(res.OnlyBase, c)
		}
	}
	for _, c := range nSel {
		if !inBase[c.Series] {
			res.OnlyNew = append(res.OnlyNew, c)
		}
	}
	sel := selection{result: res, pairs: res.Compared}
	unlabelled := func(all []SeriesCount) bool { return len(all) == 0 || len(all) == 1 && all[0].Series.IsZero() }
	if opts.Series.IsZero() && unlabelled(bAll) && unlabelled(nAll) {
		// One unlabelled series (or none) on each side: compared as
		// always, levels one side lacks listed as levels.
		sel.result, sel.pairs = nil, []Pair{{}}
	}
	return sel, nil
}

// view narrows a summary to the levels of the series keep accepts, with
// the runs of those series, their environment (see narrowEnv) and the
// findings about them. With
// strip, the levels and runs lose their series, so that levels of two
// different series meet by load alone. A view shares the summary's
// statistics; it is never modified.
func view(s *analyze.Summary, keep func(ingest.Series) bool, strip bool) *analyze.Summary {
	v := *s
	v.Levels = nil
	for _, l := range s.Levels {
		if keep(l.Series) {
			if strip {
				l.Series = ingest.Series{}
			}
			v.Levels = append(v.Levels, l)
		}
	}
	v.Runs = nil
	for _, r := range s.Runs {
		if keep(r.Series) {
			if strip {
				r.Series = ingest.Series{}
			}
			v.Runs = append(v.Runs, r)
		}
	}
	if len(v.Runs) < len(s.Runs) {
		v.Environment = narrowEnv(s.Environment, s.Runs, keep)
		// A finding about runs belongs to the series of those runs; one
		// naming no run, to the whole sweep. A finding names a run by its
		// directory, maybe followed by " (why)".
		kept := map[string]bool{}
		for _, r := range v.Runs {
			kept[r.Dir] = true
		}
		names := func(d string) bool {
			dir, _, _ := strings.Cut(d, " (")
			return kept[dir]
		}
		v.Findings = nil
		for _, f := range s.Findings {
			if len(f.Runs) == 0 || slices.ContainsFunc(f.Runs, names) {
				v.Findings = append(v.Findings, f)
			}
		}
	}
	return &v
}

// narrowEnv is the environment of the runs keep accepts: the canonical
// fields of the first of them that did not fail (as analyze takes the
// sweep's first), and the keys that differ between those runs alone. The
// summary keeps the first run's canonical fields and, for every key that
// differs, each value's runs, which is all it takes.
func narrowEnv(e analyze.EnvironmentSummary, runs []analyze.RunSummary, keep func(ingest.Series) bool) analyze.EnvironmentSummary {
	kept := map[string]bool{}
	first := ""
	for _, r := range runs {
		if !keep(r.Series) {
			continue
		}
		kept[r.Dir] = true
		if first == "" && !r.Failed {
			first = r.Dir
		}
	}
	if first == "" {
		for _, r := range runs {
			if keep(r.Series) {
				first = r.Dir
				break
			}
		}
	}
	canonical := map[string]string{}
	for _, f := range e.Canonical {
		canonical[f.Key] = f.Value
	}
	out := e
	out.Diffs = nil
	for _, d := range e.Diffs {
		values := narrowDiff(d, kept, first, canonical)
		if len(values) > 1 {
			out.Diffs = append(out.Diffs, analyze.EnvDiff{Key: d.Key, Values: values})
		}
	}
	out.Canonical = nil
	for _, k := range ingest.CanonicalFields {
		if v, ok := canonical[k]; ok {
			out.Canonical = append(out.Canonical, analyze.EnvField{Key: k, Value: v})
		}
	}
	return out
}

// narrowDiff is the values of diff d among the kept runs. The value of the
// first run, first, becomes its canonical field (no value removes it).
func narrowDiff(d analyze.EnvDiff, kept map[string]bool, first string, canonical map[string]string) []analyze.EnvDiffValue {
	var values []analyze.EnvDiffValue
	for _, v := range d.Values {
		var dirs []string
		for _, dir := range v.Runs {
			if kept[dir] {
				dirs = append(dirs, dir)
			}
			if dir != first {
				continue
			}
			if v.Value == "" {
				delete(canonical, d.Key)
			} else if slices.Contains(ingest.CanonicalFields, d.Key) {
				canonical[d.Key] = v.Value
			}
		}
		if len(dirs) > 0 {
			values = append(values, analyze.EnvDiffValue{Value: v.Value, Runs: dirs})
		}
	}
	return values
}
