package history

import (
	"fmt"
	"path/filepath"

	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
)

// Load reads every entry of an archive: entry.json for the identity,
// time, fingerprint and profile, the exclusion if any, and the headline
// statistics' per-run values from stats.parquet.
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
			return nil, fmt.Errorf("entry %s: %s", e.ID, e.Unreadable)
		}
		if !e.Usable() {
			// Left out, with the reason, without reading what changed.
			out = append(out, Input{ID: e.ID, Time: float64(e.When().UnixMicro()) / 1e6, TimeText: e.Time, Label: e.Label, Title: e.Title,
				Fingerprint: e.Fingerprint, Profile: e.Profile, Excluded: true, Why: e.Problem(), Values: map[compare.LevelID]map[string][]float64{}})
			continue
		}
		rows, err := archive.ReadStats(filepath.Join(e.Dir, archive.StatsFile), e.Stats, keys)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		in := Input{ID: e.ID, Time: float64(e.When().UnixMicro()) / 1e6, TimeText: e.Time, Label: e.Label, Title: e.Title,
			Fingerprint: e.Fingerprint, Profile: e.Profile, Values: map[compare.LevelID]map[string][]float64{}}
		if e.Excluded != nil {
			in.Excluded, in.Why = true, e.Excluded.Why
		}
		for _, r := range rows {
			byKey := in.Values[r.Level]
			if byKey == nil {
				byKey = map[string][]float64{}
				in.Values[r.Level] = byKey
			}
			byKey[r.Key] = append(byKey[r.Key], r.Value)
		}
		out = append(out, in)
	}
	return out, nil
}
