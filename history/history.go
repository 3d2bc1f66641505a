// Package history follows every headline statistic of an archive's
// entries over time: per series (configuration) and level, each entry's
// median ± MAD across its runs; where the environment changed (and
// whether entries stay comparable across the change); and change points,
// detected only within one series and one environment fingerprint and
// only when the change holds over two consecutive entries, with the same
// test and thresholds as compare.
//
// Build is pure computation on Input values; Load reads them from an
// archive. Nothing depends on map order or the clock: the same archive
// always gives the same History.
package history

import (
	"fmt"
	"math"
	"sort"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/stats"
)

// Input is one archive entry as history needs it.
type Input struct {
	ID          string
	Time        float64 // unix seconds
	TimeText    string  // RFC 3339, as recorded
	Label       string
	Title       string
	Fingerprint string
	Profile     compare.Profile
	// Runs is the entry's number of runs, over its levels.
	Runs int
	// Excluded is set, with Why, for an entry marked excluded, and, with
	// Unreadable, for one whose statistics could not be read.
	Excluded   bool
	Why        string
	Unreadable string
	// Values holds each level's per-run values of each headline
	// statistic (NaN where a run has none); a level's series is part of
	// its key, so runs of two series are never pooled.
	Values map[compare.LevelID]map[string][]float64
}

// Options tunes Build.
type Options struct {
	// Compare supplies α, the correction and the thresholds, exactly as
	// for compare.
	Compare compare.Options
	// Window is how many preceding entries of the same fingerprint form
	// the baseline a candidate change is tested against.
	Window int
}

// DefaultOptions returns compare's defaults and a baseline of 5 entries.
func DefaultOptions() Options {
	o := compare.DefaultOptions()
	// History's change points are per level and statistic, uncorrected
	// unless --correct holm (docs/archive.md).
	o.Correction = compare.CorrectionNone
	return Options{Compare: o, Window: 5}
}

// Boundary kinds between segments.
const (
	BoundaryStart        = "start"
	BoundaryEnvironment  = "environment change"
	BoundaryIncomparable = "not comparable"
)

// Entry is one entry on the time line.
type Entry struct {
	ID       string `json:"id"`
	Time     string `json:"time"`
	Label    string `json:"label"`
	Title    string `json:"title"`
	Excluded bool   `json:"excluded"`
	Why      string `json:"why,omitempty"`
	// Unreadable says why the entry's statistics could not be read: it
	// is then excluded without being marked so.
	Unreadable string `json:"unreadable,omitempty"`
	// Segment is the index of the segment the entry belongs to (an
	// excluded entry shows with the segment before it).
	Segment int `json:"segment"`
	Runs    int `json:"runs"`
}

// Segment is a stretch of consecutive included entries with one
// environment fingerprint.
type Segment struct {
	Index       int    `json:"index"`
	Fingerprint string `json:"fingerprint"`
	First       string `json:"first"`
	Last        string `json:"last"`
	Entries     int    `json:"entries"`
	// Boundary says how the segment starts: BoundaryStart for the first,
	// else BoundaryEnvironment (comparable with caveats) or
	// BoundaryIncomparable.
	Boundary string `json:"boundary"`
	// Changes are the comparability checks that differ from the segment
	// before.
	Changes []compare.Check `json:"changes"`
}

// Point is one entry's value of one statistic at one level.
type Point struct {
	Entry    string      `json:"entry"`
	Time     float64     `json:"time"`
	Median   analyze.Num `json:"median"`
	MAD      analyze.Num `json:"mad"`
	N        int         `json:"n"`
	PerRun   []float64   `json:"per_run"`
	Segment  int         `json:"segment"`
	Excluded bool        `json:"excluded"`
}

// Series is one statistic at one level of one series (the level's
// configuration labels, Level.Series) over time: what a change point is
// looked for in.
type Series struct {
	// Level is the level with its series.
	Level compare.LevelID `json:"level"`
	// Label is the load level as read, without the series.
	Label  string         `json:"label"`
	Metric compare.Metric `json:"metric"`
	Points []Point        `json:"points"`
}

// Kinds of detected changes.
const (
	// KindChange: confirmed over two entries and distinguishable (p < α).
	KindChange = "change point"
	// KindUndecided: beyond the threshold over two entries, but too few
	// runs for the test to reach α.
	KindUndecided = "undecided"
	// KindPending: the latest entry is beyond the threshold and no later
	// entry can confirm it yet.
	KindPending = "awaiting confirmation"
)

// Change is a change point, an undecided change or one awaiting
// confirmation.
type Change struct {
	Kind string `json:"kind"`
	// Level is the level with its series.
	Level  compare.LevelID `json:"level"`
	Label  string          `json:"label"`
	Metric compare.Metric  `json:"metric"`
	// Entry introduced the change; ConfirmedBy is the next entry, which
	// shows it too (empty while pending).
	Entry       string `json:"entry"`
	EntryTime   string `json:"entry_time"`
	EntryLabel  string `json:"entry_label"`
	ConfirmedBy string `json:"confirmed_by,omitempty"`
	Segment     int    `json:"segment"`
	// Baseline are the entries tested against (up to Window before).
	Baseline       []string    `json:"baseline"`
	BaselineMedian analyze.Num `json:"baseline_median"`
	// NewMedian is the median of the runs of Entry and ConfirmedBy.
	NewMedian analyze.Num `json:"new_median"`
	// Change is relative (or in points, for Metric.Points).
	Change    analyze.Num `json:"change"`
	Direction string      `json:"direction"`
	P         analyze.Num `json:"p"`
	PAdjusted analyze.Num `json:"p_adjusted"`
	NeedRuns  int         `json:"need_runs"`
	// Through is, when later candidates showed the same change and were
	// merged into this one, the last entry that showed it.
	Through string `json:"through,omitempty"`
}

// History is the whole trend analysis.
type History struct {
	Options  Options       `json:"options"`
	Entries  []Entry       `json:"entries"`
	Segments []Segment     `json:"segments"`
	Series   []Series      `json:"series"`
	Changes  []Change      `json:"changes"`
	Tests    compare.Tests `json:"tests"`
}

// Build analyses the entries.
func Build(in []Input, opts Options) *History {
	entries := append([]Input{}, in...)
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Time != entries[j].Time {
			return entries[i].Time < entries[j].Time
		}
		return entries[i].ID < entries[j].ID
	})
	h := &History{Options: opts}
	segOf := segment(entries, h)
	// Series.
	type skey struct {
		level compare.LevelID
		key   string
	}
	var levels []compare.LevelID
	seenLevel := map[compare.LevelID]bool{}
	for _, e := range entries {
		for l := range e.Values {
			if !seenLevel[l] {
				seenLevel[l] = true
				levels = append(levels, l)
			}
		}
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i].Less(levels[j]) })
	for _, l := range levels {
		for _, m := range compare.Headline {
			s := Series{Level: l, Label: l.Label(), Metric: m}
			for i, e := range entries {
				vals, ok := e.Values[l][m.Key]
				if !ok {
					continue
				}
				p := Point{Entry: e.ID, Time: e.Time, Median: analyze.NaN, MAD: analyze.NaN, Segment: segOf[i], Excluded: e.Excluded}
				for _, v := range vals {
					if !math.IsNaN(v) {
						p.PerRun = append(p.PerRun, v)
					}
				}
				p.N = len(p.PerRun)
				if p.N > 0 {
					p.Median = analyze.Num(analyze.Median(p.PerRun))
					p.MAD = analyze.Num(analyze.MAD(p.PerRun, e.Profile.MAD == "scaled"))
				}
				s.Points = append(s.Points, p)
			}
			if len(s.Points) > 0 {
				h.Series = append(h.Series, s)
			}
		}
	}
	byID := map[string]Input{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	h.detect(byID, opts)
	return h
}

// segment fills h.Entries and h.Segments and returns each entry's segment.
func segment(entries []Input, h *History) []int {
	segOf := make([]int, len(entries))
	var prev *Input
	cur := -1
	for i := range entries {
		e := &entries[i]
		if !e.Excluded {
			if prev == nil || prev.Fingerprint != e.Fingerprint {
				s := Segment{Index: len(h.Segments), Fingerprint: e.Fingerprint, First: e.ID, Boundary: BoundaryStart}
				if prev != nil {
					c := compare.CheckComparability(prev.Profile, e.Profile, nil)
					s.Boundary = BoundaryEnvironment
					if c.Verdict == compare.NotComparable {
						s.Boundary = BoundaryIncomparable
					}
					for _, ch := range c.Checks {
						if inFingerprint(ch.Key) && (ch.Status == compare.StatusDiffers || ch.Status == compare.StatusOneSide) {
							s.Changes = append(s.Changes, ch)
						}
					}
				}
				h.Segments = append(h.Segments, s)
				cur = s.Index
			}
			h.Segments[cur].Last = e.ID
			h.Segments[cur].Entries++
			prev = e
		}
		segOf[i] = max(cur, 0)
		h.Entries = append(h.Entries, Entry{ID: e.ID, Time: e.TimeText, Label: e.Label, Title: e.Title,
			Excluded: e.Excluded, Why: e.Why, Unreadable: e.Unreadable, Segment: segOf[i], Runs: e.Runs})
	}
	return segOf
}

// test is one test of a series: the runs of the included points at and
// next against the runs of the base points.
type test struct {
	series    int
	seg       int
	k         int // position of at among the segment's included points
	at, next  int
	change    Change
	both      bool // at and next each beyond the threshold, in the direction of the change
	minP      float64
	pAdjusted float64
}

// detect finds change points. For every included point of a series that
// has at least one included point of its segment before it and one after,
// the runs of the point and the next one are tested (exact Mann–Whitney)
// against the runs of up to Window preceding points of the segment. A
// change point is flagged where p < α (Holm-corrected over every test when
// asked), the pooled change and each of the two entries' medians lie
// beyond the threshold in the same direction; consecutive flagged tests of
// a series in one direction are one change point, introduced by the first.
func (h *History) detect(byID map[string]Input, opts Options) {
	var tests []test
	var ps []float64
	var pending []test
	for si, s := range h.Series {
		thr := opts.Compare.ThresholdFor(s.Metric)
		bySeg := map[int][]int{}
		var segs []int
		for pi, p := range s.Points {
			if p.Excluded || p.N == 0 {
				continue
			}
			if _, ok := bySeg[p.Segment]; !ok {
				segs = append(segs, p.Segment)
			}
			bySeg[p.Segment] = append(bySeg[p.Segment], pi)
		}
		for _, seg := range segs {
			pts := bySeg[seg]
			for k := 1; k < len(pts); k++ {
				base := pts[max(0, k-opts.Window):k]
				var baseRuns []float64
				var baseIDs []string
				for _, b := range base {
					baseRuns = append(baseRuns, s.Points[b].PerRun...)
					baseIDs = append(baseIDs, s.Points[b].Entry)
				}
				baseMed := analyze.Median(baseRuns)
				at := s.Points[pts[k]]
				c := Change{Level: s.Level, Label: s.Label, Metric: s.Metric, Entry: at.Entry, Segment: seg,
					Baseline: baseIDs, BaselineMedian: analyze.Num(baseMed), P: analyze.NaN, PAdjusted: analyze.NaN}
				e := byID[at.Entry]
				c.EntryTime, c.EntryLabel = e.TimeText, e.Label
				if k == len(pts)-1 {
					// Nothing after it yet: say so when it is beyond the threshold.
					ch := relChange(s.Metric, float64(at.Median), baseMed)
					if math.Abs(ch) > thr {
						c.Kind, c.NewMedian, c.Change = KindPending, at.Median, analyze.Num(ch)
						c.Direction = direction(s.Metric, ch)
						pending = append(pending, test{series: si, seg: seg, k: k, at: pts[k], change: c})
					}
					continue
				}
				next := s.Points[pts[k+1]]
				cand := append(append([]float64{}, at.PerRun...), next.PerRun...)
				candMed := analyze.Median(cand)
				ch := relChange(s.Metric, candMed, baseMed)
				c.ConfirmedBy, c.NewMedian, c.Change = next.Entry, analyze.Num(candMed), analyze.Num(ch)
				c.Direction = direction(s.Metric, ch)
				ca := relChange(s.Metric, float64(at.Median), baseMed)
				cn := relChange(s.Metric, float64(next.Median), baseMed)
				both := math.Abs(ca) > thr && math.Abs(cn) > thr && math.Abs(ch) > thr &&
					math.Signbit(ca) == math.Signbit(ch) && math.Signbit(cn) == math.Signbit(ch)
				mw, err := stats.MannWhitney(cand, baseRuns)
				if err != nil || mw.NoVariation {
					continue
				}
				c.P = analyze.Num(mw.P)
				tests = append(tests, test{series: si, seg: seg, k: k, at: pts[k], next: pts[k+1], change: c, both: both, minP: mw.MinP})
				ps = append(ps, mw.P)
			}
		}
	}
	o := opts.Compare
	h.Tests = compare.Tests{Count: len(ps), Alpha: o.Alpha, Correction: o.Correction,
		ExpectedFalseFlags: float64(len(ps)) * o.Alpha, EffectiveAlpha: o.Alpha,
		Family: fmt.Sprintf("every entry with an earlier and a later entry of the same fingerprint, in each of the %d series (%s)", len(h.Series), seriesKinds(h))}
	adjusted := ps
	if o.Correction == compare.CorrectionHolm && len(ps) > 0 {
		adjusted = stats.Holm(ps)
		h.Tests.EffectiveAlpha = o.Alpha / float64(len(ps))
	}
	h.Tests.RunsNeeded = stats.RunsNeeded(h.Tests.EffectiveAlpha)
	var found []Change
	var flaggedTests []*test
	var last *test
	for i := range tests {
		t := &tests[i]
		t.change.PAdjusted = analyze.Num(adjusted[i])
		// As in compare: a floor not below α/m does not stop Holm's later
		// steps from rejecting the test when other tests have more runs.
		if t.minP >= h.Tests.EffectiveAlpha && !(adjusted[i] < o.Alpha) {
			t.change.NeedRuns = h.Tests.RunsNeeded
		}
		if !t.both {
			continue
		}
		switch {
		case t.change.NeedRuns > 0:
			t.change.Kind = KindUndecided
		case adjusted[i] < o.Alpha:
			t.change.Kind = KindChange
		default:
			continue
		}
		flaggedTests = append(flaggedTests, t)
		if last != nil && last.series == t.series && last.seg == t.seg && last.k+1 == t.k &&
			last.change.Kind == t.change.Kind && last.change.Direction == t.change.Direction {
			// The same change seen again with a baseline that still holds
			// entries from before it.
			found[len(found)-1].Through = t.change.ConfirmedBy
			last = t
			continue
		}
		found = append(found, t.change)
		last = t
	}
	// The latest entry awaits confirmation, unless it already confirms a
	// change found with the entry before it.
	confirmed := map[[3]int]bool{}
	for _, t := range flaggedTests {
		confirmed[[3]int{t.series, t.seg, t.k + 1}] = true
	}
	for _, p := range pending {
		if !confirmed[[3]int{p.series, p.seg, p.k}] {
			found = append(found, p.change)
		}
	}
	h.Changes = found
	sortChanges(h.Changes)
}

// seriesKinds says what a history series is: a level and a headline
// statistic, and a configuration too when any level has series labels.
func seriesKinds(h *History) string {
	if h.Labelled() {
		return "configuration × level × headline statistic"
	}
	return "level × headline statistic"
}

// Labelled reports whether any level has series labels: the history then
// follows several configurations, kept apart.
func (h *History) Labelled() bool {
	for _, s := range h.Series {
		if !s.Level.Series.IsZero() {
			return true
		}
	}
	return false
}

// Configurations returns the distinct series (configuration labels) of
// the history's levels, ordered as levels are (ingest.Series.Compare); the
// unlabelled series, when some level has it, comes first.
func (h *History) Configurations() []ingest.Series {
	var out []ingest.Series
	seen := map[ingest.Series]bool{}
	for _, s := range h.Series {
		if !seen[s.Level.Series] {
			seen[s.Level.Series] = true
			out = append(out, s.Level.Series)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

// sortChanges orders changes by kind: change points, then undecided ones,
// then those awaiting confirmation; within a kind the order stays that of
// the series (level, statistic) and time.
func sortChanges(cs []Change) {
	rank := map[string]int{KindChange: 0, KindUndecided: 1, KindPending: 2}
	sort.SliceStable(cs, func(i, j int) bool { return rank[cs[i].Kind] < rank[cs[j].Kind] })
}

// relChange is the change from base to v: relative, or in points.
func relChange(m compare.Metric, v, base float64) float64 {
	switch {
	case m.Points:
		return v - base
	case base != 0:
		return (v - base) / math.Abs(base)
	case v == 0:
		return 0
	}
	return math.Copysign(math.Inf(1), v)
}

func direction(m compare.Metric, change float64) string {
	switch {
	case change > 0 && m.LowerIsBetter, change < 0 && !m.LowerIsBetter:
		return "worse"
	case change != 0:
		return "better"
	}
	return "same"
}

// inFingerprint reports whether a comparability check reads a value that
// the fingerprint covers (environment and method, not workload or
// findings).
func inFingerprint(key string) bool {
	r, ok := compare.RuleByKey(key)
	return ok && r.Class != compare.ClassWorkload && key != "environment.within" && key != "findings"
}
