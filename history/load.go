package history

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
)

// Load reads every entry of an archive: entry.json for the identity,
// time, fingerprint, profile and run count, the exclusion if any, and,
// for an entry not excluded, the headline statistics' per-run values
// from stats.parquet. An excluded entry's statistics are not read: it is
// listed, never drawn or tested, so a damaged entry once excluded can
// no longer affect a history. An entry whose statistics cannot be read
// (a damaged stats.parquet, a level or value outside the ranges a
// summary allows) is left out of the trends in the same way, with the
// reason (Input.Unreadable), and so is an entry the archive's cheap check
// finds modified since it was added, or whose entry.json cannot be read
// (listed last: it has no time); only an archive that cannot be read is
// an error.
func Load(a *archive.Archive) ([]Input, error) {
	listed, err := a.Entries()
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, m := range compare.Headline {
		keys[m.Key] = true
	}
	out := make([]Input, 0, len(listed))
	for _, e := range listed {
		if e.Unreadable != "" {
			// No time, no fingerprint: listed last, left out, with why.
			out = append(out, Input{ID: e.ID, Time: math.Inf(1), Excluded: true, Unreadable: e.Problem()})
			continue
		}
		in := Input{ID: e.ID, Time: float64(e.When().UnixMicro()) / 1e6, TimeText: e.Time, Label: e.Label, Title: e.Title,
			Fingerprint: e.Fingerprint, Profile: e.Profile}
		for _, l := range e.Levels {
			in.Runs += l.Runs
		}
		if e.Excluded != nil {
			in.Excluded, in.Why = true, e.Excluded.Why
		}
		if e.Excluded == nil && !e.Usable() {
			// Left out, with the reason, without reading what changed.
			in.Excluded, in.Unreadable = true, e.Problem()
		}
		if in.Excluded {
			out = append(out, in)
			continue
		}
		values, err := readValues(e, keys)
		if err != nil {
			in.Excluded, in.Unreadable = true, err.Error()
			out = append(out, in)
			continue
		}
		in.Values = values
		out = append(out, in)
	}
	return out, nil
}

// readValues reads an entry's per-run values of the statistics in keys,
// by level, refusing a level or a value outside the ranges a summary
// allows.
func readValues(e archive.Listed, keys map[string]bool) (map[compare.LevelID]map[string][]float64, error) {
	rows, err := archive.ReadStats(filepath.Join(e.Dir, archive.StatsFile), e.Stats, keys)
	if err != nil {
		return nil, err
	}
	values := map[compare.LevelID]map[string][]float64{}
	for _, r := range rows {
		if err := checkLevel(r.Level); err != nil {
			return nil, fmt.Errorf("%s: run %q: %v", archive.StatsFile, r.Run, err)
		}
		m, _ := compare.MetricByKey(r.Key)
		if err := analyze.CheckStatistic(m.Unit, r.Value); err != nil {
			return nil, fmt.Errorf("%s: %s of run %q at %s: %v", archive.StatsFile, r.Key, r.Run, r.Level.Describe(), err)
		}
		byKey := values[r.Level]
		if byKey == nil {
			byKey = map[string][]float64{}
			values[r.Level] = byKey
		}
		byKey[r.Key] = append(byKey[r.Key], r.Value)
	}
	return values, nil
}

// checkLevel refuses a level that no summary can hold.
func checkLevel(l compare.LevelID) error {
	switch {
	case l.Mode == compare.ModeConcurrency && l.Value >= 1 && l.Value <= ingest.MaxConcurrency && l.Value == math.Trunc(l.Value) && l.Arrival == "":
	case l.Mode == compare.ModeRate && (l.Value > 0 && l.Value <= ingest.MaxRate || math.IsInf(l.Value, 1)) &&
		(l.Arrival == "" || l.Arrival == ingest.ArrivalPoisson || l.Arrival == ingest.ArrivalConstant || l.Arrival == ingest.ArrivalGamma):
	default:
		return fmt.Errorf("level %q with value %v and arrival %q is not a load level", l.Mode, l.Value, l.Arrival)
	}
	return nil
}
