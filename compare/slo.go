package compare

import (
	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// SLOHeadline is, for each side, the highest load meeting the SLO.
type SLOHeadline struct {
	// Series is the series the headline is for, when several were compared.
	Series ingest.Series `json:"series,omitzero"`
	// Attainment is the percentage goodput a level must reach.
	Attainment float64       `json:"attainment_percent"`
	SLO        string        `json:"slo"`
	Base       SLOCapability `json:"base"`
	New        SLOCapability `json:"new"`
}

// SLOCapability is one side's highest load meeting the SLO, with its
// uncertainty expressed in levels: the highest level where every run met
// it and the highest where at least one run did.
type SLOCapability struct {
	// Met is false when no level's median reaches the attainment.
	Met bool `json:"met"`
	// Level is the highest level whose median percentage goodput across
	// runs reaches the attainment.
	Level *LevelID `json:"level"`
	// Goodput is the goodput (median ± MAD across runs) at Level.
	Goodput Across `json:"goodput"`
	// EveryRun is the highest level at which every run reached it; nil
	// when none did.
	EveryRun *LevelID `json:"every_run"`
	// SomeRun is the highest level at which at least one run reached it;
	// nil when none did.
	SomeRun *LevelID `json:"some_run"`
	// Levels is how many levels had a goodput value.
	Levels int `json:"levels"`
}

// sloHeadline is the headline of one pair of series: the levels of base
// and new of series p.Base and p.New.
func sloHeadline(base, new *analyze.Summary, p Pair, opts Options) *SLOHeadline {
	return &SLOHeadline{
		Attainment: opts.Attainment,
		SLO:        new.Method.SLO.Targets(),
		Base:       capability(base, p.Base, opts.Attainment),
		New:        capability(new, p.New, opts.Attainment),
	}
}

// capability brackets the capacity of one series of a summary with
// analyze.CapacityOf, the bracket the report's answer gives too.
func capability(s *analyze.Summary, series ingest.Series, attainment float64) SLOCapability {
	var levels []analyze.Level
	for _, l := range s.Levels {
		if l.Series == series {
			levels = append(levels, l)
		}
	}
	cp := analyze.CapacityOf(levels, attainment)
	id := func(k *analyze.LevelKey) *LevelID {
		if k == nil {
			return nil
		}
		for _, l := range levels {
			if l.LevelKey == *k {
				id := LevelOf(l)
				return &id
			}
		}
		return nil
	}
	c := SLOCapability{Level: id(cp.Level), EveryRun: id(cp.EveryRun), SomeRun: id(cp.SomeRun), Levels: cp.Levels, Met: cp.Level != nil}
	if c.Met {
		for _, l := range levels {
			if l.LevelKey == *cp.Level {
				c.Goodput, _ = across(s, indexRuns(s), l, GoodputKey)
			}
		}
	}
	return c
}
