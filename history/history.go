// Package history follows every headline statistic of an archive's
// entries over time: per series (configuration) and level, each entry's
// median ± MAD across its runs; where the environment changed (and
// whether entries stay comparable across the change); and change points,
// found with compare's tests: per series and statistic, across the
// series' levels (a stratified rank test, levels as strata), only within
// one environment fingerprint and only when the change holds over two
// consecutive entries. The gate's family of primary statistics decides
// change points; the others are reported as secondary.
//
// Build is pure computation on Input values; Load reads them from an
// archive. Nothing depends on map order or the clock: the same archive
// always gives the same History.
package history

import (
	"fmt"
	"math"
	"slices"
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
	// Compare supplies α, the correction, the thresholds and the gate's
	// family (Gate; empty for compare.DefaultGate), exactly as for
	// compare. Its PerLevel and NoTest do not apply to history.
	Compare compare.Options `json:"compare"`
	// Window is how many preceding entries of the same fingerprint form
	// the baseline a candidate change is tested against.
	Window int `json:"window"`
}

// DefaultOptions returns compare's defaults without correction and a
// baseline of 5 entries.
func DefaultOptions() Options {
	// compare's defaults, Holm over the gate's tests included: a null
	// archive of 20 entries then keeps at 0 false change points where
	// uncorrected it reached 2 (measured: docs/archive.md).
	return Options{Compare: compare.DefaultOptions(), Window: 5}
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

// Trend is one statistic at one level of one series (the level's
// configuration labels, Level.Series) over time: what a chart draws.
type Trend struct {
	// Level is the level with its series.
	Level compare.LevelID `json:"level"`
	// Label is the load level as read, without the series.
	Label  string         `json:"label"`
	Metric compare.Metric `json:"metric"`
	Points []Point        `json:"points"`
}

// Kinds of detected changes.
const (
	// KindChange: a primary statistic (of the gate's family), confirmed
	// over two entries and distinguishable (p < α, Holm-adjusted over the
	// family when asked).
	KindChange = "change point"
	// KindUndecided: a primary statistic beyond the threshold over two
	// entries, but too few runs for the test to reach the level it is
	// held to.
	KindUndecided = "undecided"
	// KindSecondary: a statistic outside the gate's family, confirmed over
	// two entries with p < α (uncorrected): reported, never a change
	// point.
	KindSecondary = "secondary"
	// KindPending: the latest entry is beyond the threshold and no later
	// entry can confirm it yet.
	KindPending = "awaiting confirmation"
)

// kindRank orders kinds as pages list them.
var kindRank = map[string]int{KindChange: 0, KindUndecided: 1, KindSecondary: 2, KindPending: 3}

// Change is one statistic of one series that moved at an entry: a change
// point, an undecided change, a secondary statistic's move, or one
// awaiting confirmation. It was tested once across the series' levels;
// PerLevel says where it shows.
type Change struct {
	Kind string `json:"kind"`
	// Series is the configuration whose levels were tested together (the
	// zero Series for sweeps without labels).
	Series ingest.Series  `json:"series,omitzero"`
	Metric compare.Metric `json:"metric"`
	// Primary is set for a statistic of the gate's family.
	Primary bool `json:"primary"`
	// Entry introduced the change; ConfirmedBy is the next entry, which
	// shows it too (empty while pending).
	Entry       string `json:"entry"`
	EntryTime   string `json:"entry_time"`
	EntryLabel  string `json:"entry_label"`
	ConfirmedBy string `json:"confirmed_by,omitempty"`
	// Through is, when later candidates showed the same change and were
	// merged into this one, the last entry that showed it.
	Through string `json:"through,omitempty"`
	Segment int    `json:"segment"`
	// Baseline are the entries tested against (up to Window before).
	Baseline []string `json:"baseline"`
	// Levels is the number of levels with runs on both sides; BaseRuns
	// and NewRuns count the runs over them (NewRuns: of Entry and
	// ConfirmedBy).
	Levels   int `json:"levels"`
	BaseRuns int `json:"base_runs"`
	NewRuns  int `json:"new_runs"`
	// Change is the median over the levels of each level's change (as
	// compare's: relative, or percentage points for Metric.Points);
	// ChangeLow and ChangeHigh the smallest and largest.
	Change     analyze.Num `json:"change"`
	ChangeLow  analyze.Num `json:"change_low"`
	ChangeHigh analyze.Num `json:"change_high"`
	Threshold  float64     `json:"threshold"`
	Direction  string      `json:"direction"`
	// Severity is |Change| / Threshold, for ordering.
	Severity analyze.Num `json:"severity"`
	// Test is the stratified test across the levels; nil while pending.
	// Its Size is computed for primary statistics only (0 for the
	// others): it feeds Tests.ExpectedFalseFlags.
	Test *compare.FindingTest `json:"test"`
	// NeedRuns is, for an undecided change, how many runs each entry
	// would need at these levels and this baseline for the test to
	// reach the level it is held to; 0 otherwise.
	NeedRuns int `json:"need_runs"`
	// PerLevel describes each level: its medians and change.
	PerLevel []LevelChange `json:"per_level"`
}

// LevelChange is one level's part of a Change.
type LevelChange struct {
	// Level is the level with its series.
	Level          compare.LevelID `json:"level"`
	Label          string          `json:"label"`
	BaseRuns       int             `json:"base_runs"`
	NewRuns        int             `json:"new_runs"`
	BaselineMedian analyze.Num     `json:"baseline_median"`
	NewMedian      analyze.Num     `json:"new_median"`
	Change         analyze.Num     `json:"change"`
}

// EntryChanges sums up, for one entry, the changes it introduced (or,
// for the latest entry of a segment, those awaiting confirmation): what a
// page shows in one line.
type EntryChanges struct {
	Entry   string `json:"entry"`
	Time    string `json:"time"`
	Label   string `json:"label"`
	Segment int    `json:"segment"`
	// ChangePoints, Undecided, Secondary and Pending count the entry's
	// changes of each kind; Worse and Better its change points by
	// direction.
	ChangePoints int `json:"change_points"`
	Undecided    int `json:"undecided"`
	Secondary    int `json:"secondary"`
	Pending      int `json:"pending"`
	Worse        int `json:"worse"`
	Better       int `json:"better"`
	// Changes are the entry's changes, as indices into History.Changes;
	// Worst is the most severe of its change points (of its changes when
	// it has none).
	Changes []int `json:"changes"`
	Worst   int   `json:"worst"`
}

// Tests describes the tests history ran.
type Tests struct {
	// Statistics are the gate's family of primary statistics, per series.
	Statistics []string `json:"statistics"`
	// Count is the number of tests of primary statistics (the family
	// Holm runs over); Secondary the tests of the other statistics.
	Count     int     `json:"count"`
	Secondary int     `json:"secondary"`
	Alpha     float64 `json:"alpha"`
	// Correction is compare.CorrectionNone or compare.CorrectionHolm.
	Correction string `json:"correction"`
	// EffectiveAlpha is α, or α/Count under Holm: what the smallest p
	// must beat for anything to be flagged.
	EffectiveAlpha float64 `json:"effective_alpha"`
	// ExpectedFalseFlags is Σ over the family's tests of each exact
	// test's real size at α: how many would fall below α by chance
	// alone, uncorrected, when nothing changed (before the threshold and
	// the two-entry confirmation, which remove most of them).
	ExpectedFalseFlags float64 `json:"expected_false_flags"`
	// Family says what was tested.
	Family string `json:"family"`
}

// History is the whole trend analysis.
type History struct {
	Options  Options   `json:"options"`
	Entries  []Entry   `json:"entries"`
	Segments []Segment `json:"segments"`
	Trends   []Trend   `json:"trends"`
	// Changes are ordered by entry (time), then kind, series and
	// statistic; ByEntry groups them.
	Changes []Change       `json:"changes"`
	ByEntry []EntryChanges `json:"by_entry"`
	Tests   Tests          `json:"tests"`
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
			s := Trend{Level: l, Label: l.Label(), Metric: m}
			for i, e := range entries {
				vals, ok := e.Values[l][m.Key]
				if !ok {
					continue
				}
				p := Point{Entry: e.ID, Time: e.Time, Median: analyze.NaN, MAD: analyze.NaN, Segment: segOf[i], Excluded: e.Excluded}
				p.PerRun = finite(vals)
				p.N = len(p.PerRun)
				if p.N > 0 {
					p.Median = analyze.Num(analyze.Median(p.PerRun))
					p.MAD = analyze.Num(analyze.MAD(p.PerRun, e.Profile.MAD == "scaled"))
				}
				s.Points = append(s.Points, p)
			}
			if len(s.Points) > 0 {
				h.Trends = append(h.Trends, s)
			}
		}
	}
	h.detect(entries, segOf, levels, opts)
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
				s := newSegment(len(h.Segments), prev, e)
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

// newSegment starts segment index at entry e; prev is the entry before
// it, nil for the first. The boundary and the changes say how e's
// environment differs from prev's.
func newSegment(index int, prev, e *Input) Segment {
	s := Segment{Index: index, Fingerprint: e.Fingerprint, First: e.ID, Boundary: BoundaryStart}
	if prev == nil {
		return s
	}
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
	return s
}

// track is one statistic of one series within one segment: the entries
// (indices into the sorted inputs) that have runs of it at some level of
// the series, in time order.
type track struct {
	series  ingest.Series
	metric  compare.Metric
	primary bool
	seg     int
	levels  []compare.LevelID
	entries []int
}

// candidate is one test of a track: the runs of entries[k] and
// entries[k+1] against those of up to Window entries before.
type candidate struct {
	track  int
	k      int
	change Change
	// both: each of the two entries, alone, lies beyond the threshold in
	// the direction of the pooled change.
	both bool
	// prevAlone is, for the latest entry of a track, the change of the
	// entry before it against that entry's baseline.
	prevAlone float64
}

// newChange describes the change at position k of a track against the
// entries base (indices into entries): of the entry at k and the next
// one when there is one, else of the entry at k alone. It returns the strata to test and each new
// entry's own per-level changes.
func newChange(entries []Input, tr track, base []int, k int, thr float64) (Change, []stats.Stratum, [][]float64) {
	at := tr.entries[k]
	c := Change{Series: tr.series, Metric: tr.metric, Primary: tr.primary, Segment: tr.seg, Threshold: thr,
		Change: analyze.NaN, ChangeLow: analyze.NaN, ChangeHigh: analyze.NaN, Severity: analyze.NaN, Direction: "n/a"}
	c.Entry, c.EntryTime, c.EntryLabel = entries[at].ID, entries[at].TimeText, entries[at].Label
	for _, b := range base {
		c.Baseline = append(c.Baseline, entries[b].ID)
	}
	newSide := []int{at}
	if k+1 < len(tr.entries) {
		newSide = append(newSide, tr.entries[k+1])
		c.ConfirmedBy = entries[tr.entries[k+1]].ID
	}
	strata, alone := describe(&c, entries, tr, base, newSide)
	return c, strata, alone
}

// detect finds the changes. For every track and every entry of it with an
// earlier and a later entry, the runs of the entry and the next one are
// tested against the runs of up to Window preceding entries, level by
// level as strata (stats.Stratified: van Elteren's test, exact; a sign
// test with one run a level and side). A primary statistic's candidate is
// a change point where p < α (Holm-adjusted over every primary test when
// asked) and the pooled change and each entry's change lie beyond the
// threshold in one direction; a secondary statistic's is reported as
// secondary on the same rule at α. Consecutive flagged candidates of a
// track in one direction and kind are one change, introduced by the entry
// of the one with the largest |z|. The latest entry of a primary
// statistic's track may await confirmation (see below).
func (h *History) detect(entries []Input, segOf []int, levels []compare.LevelID, opts Options) {
	o := opts.Compare
	gate := o.Gate
	if len(gate) == 0 {
		gate = compare.DefaultGate
	}
	tracks := tracksOf(entries, segOf, levels, gate)
	cands, pending := testCandidates(entries, tracks, opts)
	h.testFamily(cands, gate, entries, tracks, o)
	runs, flagged := h.flaggedRuns(cands, o)
	found, since := changesOfRuns(runs)
	found = append(found, pendingChanges(entries, tracks, pending, flagged, since, opts)...)
	h.Changes = found
	h.sortChanges()
	h.group()
}

// testCandidates tests every entry of every track with an earlier and a
// later entry: the candidates with a test, and, for the primary tracks,
// their latest entries, decided once the changes are known.
func testCandidates(entries []Input, tracks []track, opts Options) (cands, pending []candidate) {
	o := opts.Compare
	sizes := sizeCache{}
	for ti, tr := range tracks {
		thr := o.ThresholdFor(tr.metric)
		prevAlone := math.NaN() // the previous entry's own change against its baseline
		for k := 1; k < len(tr.entries); k++ {
			if k == len(tr.entries)-1 {
				// Nothing after it yet: decided once the changes are known.
				if tr.primary {
					pending = append(pending, candidate{track: ti, k: k, prevAlone: prevAlone})
				}
				break
			}
			c, strata, alone := newChange(entries, tr, tr.entries[max(0, k-opts.Window):k], k, thr)
			prevAlone = median(alone[0])
			r, err := stats.Stratified(strata)
			if err != nil || r.Used == 0 {
				continue
			}
			c.Test = &compare.FindingTest{P: analyze.Num(r.P), PAdjusted: analyze.Num(r.P), MinP: analyze.Num(r.MinP),
				Z: analyze.Num(r.Z), Method: r.Method, Ties: r.Ties}
			if tr.primary {
				c.Test.Size = sizes.of(strata, o.Alpha)
			}
			ch := float64(c.Change)
			ca, cn := median(alone[0]), median(alone[1])
			both := math.Abs(ca) > thr && math.Abs(cn) > thr && math.Abs(ch) > thr &&
				math.Signbit(ca) == math.Signbit(ch) && math.Signbit(cn) == math.Signbit(ch)
			cands = append(cands, candidate{track: ti, k: k, change: c, both: both})
		}
	}
	return cands, pending
}

// testFamily sets h.Tests: the family is every primary test, Holm over
// them when asked (adjusting the candidates' p).
func (h *History) testFamily(cands []candidate, gate []string, entries []Input, tracks []track, o compare.Options) {
	var fam []int
	var ps []float64
	h.Tests = Tests{Statistics: familyPresent(gate, entries), Alpha: o.Alpha, Correction: o.Correction, EffectiveAlpha: o.Alpha}
	for i, c := range cands {
		if c.change.Primary {
			fam = append(fam, i)
			ps = append(ps, float64(c.change.Test.P))
			h.Tests.ExpectedFalseFlags += c.change.Test.Size
		} else {
			h.Tests.Secondary++
		}
	}
	h.Tests.Count = len(fam)
	if o.Correction == compare.CorrectionHolm && len(ps) > 0 {
		adj := stats.Holm(ps)
		for j, i := range fam {
			cands[i].change.Test.PAdjusted = analyze.Num(adj[j])
		}
		h.Tests.EffectiveAlpha = o.Alpha / float64(len(ps))
	}
	h.Tests.Family = familyText(h, tracks)
}

// flaggedRuns gives each candidate that lies beyond the threshold its
// kind, when its test flags it, and groups them: runs of consecutive
// flagged candidates of a track, in one kind and direction, are one
// change. flagged holds every flagged candidate's track and position.
func (h *History) flaggedRuns(cands []candidate, o compare.Options) (runs [][]*candidate, flagged map[[2]int]bool) {
	flagged = map[[2]int]bool{} // track, k
	for i := range cands {
		t := &cands[i]
		if !t.both || !h.flag(&t.change, o) {
			continue
		}
		flagged[[2]int{t.track, t.k}] = true
		if n := len(runs); n > 0 {
			last := runs[n-1][len(runs[n-1])-1]
			if last.track == t.track && last.k+1 == t.k && last.change.Kind == t.change.Kind && last.change.Direction == t.change.Direction {
				runs[n-1] = append(runs[n-1], t)
				continue
			}
		}
		runs = append(runs, []*candidate{t})
	}
	return runs, flagged
}

// flag sets the kind of a candidate's change that its test flags, and
// says whether it did: secondary where p < α, for a primary statistic a
// change point where the adjusted p < α, or undecided where even the
// smallest p its runs allow cannot reach α.
func (h *History) flag(c *Change, o compare.Options) bool {
	alphaFor := o.Alpha
	if c.Primary {
		alphaFor = h.Tests.EffectiveAlpha
	}
	p, adj := float64(c.Test.P), float64(c.Test.PAdjusted)
	switch {
	case !c.Primary && p < o.Alpha:
		c.Kind = KindSecondary
	case !c.Primary:
		return false
	case float64(c.Test.MinP) >= alphaFor && !(adj < o.Alpha):
		// As in compare: a floor not below α/m does not stop Holm's
		// later steps from rejecting the test when others have more
		// runs.
		c.Kind = KindUndecided
		c.NeedRuns = RunsPerEntryNeeded(alphaFor, c.Levels, len(c.Baseline))
	case adj < o.Alpha:
		c.Kind = KindChange
	default:
		return false
	}
	return true
}

// changesOfRuns makes each run of flagged candidates one change: the
// candidate that shows it most clearly (the largest |z|, the first of
// equals): the one before it holds one entry of the new level, the ones
// after a baseline that does. since maps each track to the position of
// the entry of its last change.
func changesOfRuns(runs [][]*candidate) (found []Change, since map[int]int) {
	since = map[int]int{}
	for _, run := range runs {
		best := run[0]
		for _, t := range run[1:] {
			if z := math.Abs(float64(t.change.Test.Z)); z > math.Abs(float64(best.change.Test.Z)) || math.IsNaN(float64(best.change.Test.Z)) && !math.IsNaN(z) {
				best = t
			}
		}
		since[best.track] = max(since[best.track], best.k)
		c := best.change
		if last := run[len(run)-1].change.ConfirmedBy; last != c.ConfirmedBy {
			c.Through = last
		}
		found = append(found, c)
	}
	return found, since
}

// pendingChanges are the latest entries of tracks that await
// confirmation: each lies beyond the threshold against the entries since
// the track's last change (a change already found is not announced
// again), unless it confirms a change found with the entry before it, or
// that entry lay beyond the threshold in the same direction too (the test
// of the two judged it).
func pendingChanges(entries []Input, tracks []track, pending []candidate, flagged map[[2]int]bool, since map[int]int, opts Options) []Change {
	var found []Change
	for _, p := range pending {
		if flagged[[2]int{p.track, p.k - 1}] {
			continue
		}
		tr := tracks[p.track]
		thr := opts.Compare.ThresholdFor(tr.metric)
		c, _, alone := newChange(entries, tr, tr.entries[max(since[p.track], p.k-opts.Window):p.k], p.k, thr)
		at := median(alone[0])
		prevSame := math.Abs(p.prevAlone) > thr && math.Signbit(p.prevAlone) == math.Signbit(at)
		if math.Abs(at) > thr && !prevSame {
			c.Kind = KindPending
			found = append(found, c)
		}
	}
	return found
}

// sizeCache remembers the sizes of stratified tests, which depend only
// on each stratum's sizes and pattern of ties: a history repeats a few of
// them many times.
type sizeCache map[string]float64

// of returns stats.StratifiedSize of the strata.
func (sc sizeCache) of(strata []stats.Stratum, alpha float64) float64 {
	var key []byte
	for _, s := range strata {
		x, y := finite(s.X), finite(s.Y)
		all := append(append([]float64(nil), x...), y...)
		sort.Float64s(all)
		key = fmt.Appendf(key, "%d:", len(x))
		for i := 0; i < len(all); {
			j := i + 1
			for j < len(all) && all[j] == all[i] {
				j++
			}
			key = fmt.Appendf(key, "%d,", j-i)
			i = j
		}
		key = append(key, ';')
	}
	v, ok := sc[string(key)]
	if !ok {
		v = stats.StratifiedSize(strata, alpha)
		sc[string(key)] = v
	}
	return v
}

// tracksOf lays out the tracks: per series, per headline statistic, per
// segment, in that order.
func tracksOf(entries []Input, segOf []int, levels []compare.LevelID, gate []string) []track {
	var order []ingest.Series
	bySeries := map[ingest.Series][]compare.LevelID{}
	for _, l := range levels {
		if _, ok := bySeries[l.Series]; !ok {
			order = append(order, l.Series)
		}
		bySeries[l.Series] = append(bySeries[l.Series], l)
	}
	var out []track
	for _, ser := range order {
		ls := bySeries[ser]
		for _, m := range compare.Headline {
			bySeg := map[int]int{} // segment → index into out
			for i, e := range entries {
				if e.Excluded || !hasRuns(e, ls, m.Key) {
					continue
				}
				ti, ok := bySeg[segOf[i]]
				if !ok {
					ti = len(out)
					bySeg[segOf[i]] = ti
					out = append(out, track{series: ser, metric: m, primary: slices.Contains(gate, m.Key), seg: segOf[i], levels: ls})
				}
				out[ti].entries = append(out[ti].entries, i)
			}
		}
	}
	return out
}

// familyPresent is the gate's statistics without the optional ones (the
// energy figures) that no entry has.
func familyPresent(gate []string, entries []Input) []string {
	var out []string
	for _, k := range gate {
		if m, ok := compare.MetricByKey(k); ok && m.Optional && !anyHas(entries, k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// anyHas reports whether an entry has a value of key at some level.
func anyHas(entries []Input, key string) bool {
	for _, e := range entries {
		for _, vals := range e.Values {
			for _, v := range vals[key] {
				if !math.IsNaN(v) {
					return true
				}
			}
		}
	}
	return false
}

// hasRuns reports whether the entry has a value of key at some level.
func hasRuns(e Input, levels []compare.LevelID, key string) bool {
	for _, l := range levels {
		for _, v := range e.Values[l][key] {
			if !math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}

// describe fills the change's per-level description and pooled change
// for the runs of newSide against those of base, and returns the strata
// to test and, for each entry of newSide, its own per-level changes
// against the baseline.
func describe(c *Change, entries []Input, tr track, base, newSide []int) ([]stats.Stratum, [][]float64) {
	var strata []stats.Stratum
	alone := make([][]float64, len(newSide))
	var changes []float64
	for _, l := range tr.levels {
		var y, x []float64
		for _, b := range base {
			y = append(y, finite(entries[b].Values[l][tr.metric.Key])...)
		}
		var own [][]float64
		for _, n := range newSide {
			v := finite(entries[n].Values[l][tr.metric.Key])
			own = append(own, v)
			x = append(x, v...)
		}
		if len(x) == 0 || len(y) == 0 {
			continue
		}
		strata = append(strata, stats.Stratum{X: x, Y: y})
		bm, nm := analyze.Median(y), analyze.Median(x)
		ch := relChange(tr.metric, nm, bm)
		lc := LevelChange{Level: l, Label: l.Label(), BaseRuns: len(y), NewRuns: len(x),
			BaselineMedian: analyze.Num(bm), NewMedian: analyze.Num(nm), Change: analyze.Num(ch)}
		c.PerLevel = append(c.PerLevel, lc)
		c.Levels++
		c.BaseRuns += len(y)
		c.NewRuns += len(x)
		if lc.Change.Valid() {
			changes = append(changes, ch)
		}
		for j, v := range own {
			if len(v) > 0 {
				alone[j] = append(alone[j], relChange(tr.metric, analyze.Median(v), bm))
			}
		}
	}
	if len(changes) > 0 {
		sort.Float64s(changes)
		c.Change = analyze.Num(analyze.Median(changes))
		c.ChangeLow, c.ChangeHigh = analyze.Num(changes[0]), analyze.Num(changes[len(changes)-1])
		c.Direction = direction(tr.metric, float64(c.Change))
		if c.Threshold > 0 {
			c.Severity = analyze.Num(math.Abs(float64(c.Change)) / c.Threshold)
		} else {
			c.Severity = analyze.Num(math.Abs(float64(c.Change)))
		}
	}
	return strata, alone
}

// median is the median of the changes that are not NaN, NaN for none.
func median(changes []float64) float64 { return analyze.Median(finite(changes)) }

// RunsPerEntryNeeded is the smallest number of runs r each entry would
// need, at levels levels, for a test of 2 entries against baseEntries
// entries to reach p < alpha at all: 2 · C((2 + b)·r, 2r)^−levels <
// alpha. 0 when no r up to 1000 does.
func RunsPerEntryNeeded(alpha float64, levels, baseEntries int) int {
	if levels < 1 || baseEntries < 1 {
		return 0
	}
	for r := 1; r <= 1000; r++ {
		lg, _ := math.Lgamma(float64((2+baseEntries)*r) + 1)
		la, _ := math.Lgamma(float64(2*r) + 1)
		lb, _ := math.Lgamma(float64(baseEntries*r) + 1)
		if math.Log(2)-float64(levels)*(lg-la-lb) < math.Log(alpha) {
			return r
		}
	}
	return 0
}

// familyText says what was tested.
func familyText(h *History, tracks []track) string {
	series := map[ingest.Series]bool{}
	for _, t := range tracks {
		series[t.series] = true
	}
	what := "the sweeps"
	if h.Labelled() {
		what = fmt.Sprintf("each of the %d series", len(series))
	}
	return fmt.Sprintf("every entry with an earlier and a later entry of the same fingerprint, for each headline statistic of %s, across its levels", what)
}

// sortChanges orders changes by entry (time), kind, series, then
// statistic.
func (h *History) sortChanges() {
	pos := map[string]int{}
	for i, e := range h.Entries {
		pos[e.ID] = i
	}
	rank := map[string]int{}
	for i, m := range compare.Headline {
		rank[m.Key] = i
	}
	sort.SliceStable(h.Changes, func(i, j int) bool {
		a, b := h.Changes[i], h.Changes[j]
		switch {
		case pos[a.Entry] != pos[b.Entry]:
			return pos[a.Entry] < pos[b.Entry]
		case kindRank[a.Kind] != kindRank[b.Kind]:
			return kindRank[a.Kind] < kindRank[b.Kind]
		case a.Series != b.Series:
			return a.Series.Compare(b.Series) < 0
		}
		return rank[a.Metric.Key] < rank[b.Metric.Key]
	})
}

// group fills ByEntry, one per entry with changes, in time order.
func (h *History) group() {
	h.ByEntry = nil
	for i, c := range h.Changes {
		n := len(h.ByEntry)
		if n == 0 || h.ByEntry[n-1].Entry != c.Entry {
			h.ByEntry = append(h.ByEntry, EntryChanges{Entry: c.Entry, Time: c.EntryTime, Label: c.EntryLabel, Segment: c.Segment, Worst: -1})
			n++
		}
		g := &h.ByEntry[n-1]
		g.Changes = append(g.Changes, i)
		switch c.Kind {
		case KindChange:
			g.ChangePoints++
			if c.Direction == "worse" {
				g.Worse++
			} else {
				g.Better++
			}
		case KindUndecided:
			g.Undecided++
		case KindSecondary:
			g.Secondary++
		case KindPending:
			g.Pending++
		}
	}
	sev := func(c Change) float64 {
		if !c.Severity.Valid() {
			return math.Inf(1) // a change from 0
		}
		return float64(c.Severity)
	}
	for gi := range h.ByEntry {
		g := &h.ByEntry[gi]
		for _, i := range g.Changes {
			c := h.Changes[i]
			if g.Worst < 0 {
				g.Worst = i
				continue
			}
			w := h.Changes[g.Worst]
			cp, wp := c.Kind == KindChange, w.Kind == KindChange
			if cp && !wp || cp == wp && sev(c) > sev(w) {
				g.Worst = i
			}
		}
	}
}

// ChangePoints returns the number of change points.
func (h *History) ChangePoints() int {
	n := 0
	for _, c := range h.Changes {
		if c.Kind == KindChange {
			n++
		}
	}
	return n
}

// Labelled reports whether any level has series labels: the history then
// follows several configurations, kept apart.
func (h *History) Labelled() bool {
	for _, s := range h.Trends {
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
	for _, s := range h.Trends {
		if !seen[s.Level.Series] {
			seen[s.Level.Series] = true
			out = append(out, s.Level.Series)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

// finite returns the values that are not NaN.
func finite(vals []float64) []float64 {
	var out []float64
	for _, v := range vals {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
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
	case change != 0 && !math.IsNaN(change):
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
