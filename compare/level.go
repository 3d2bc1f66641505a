package compare

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// LevelID identifies a load level across sweeps: the kind of load (Mode),
// its setting (Value) and, for a request rate, the arrival process when
// it was recorded. Two levels are the same level only when all three
// match, so "concurrency 16" never meets "16 req/s", nor a Poisson 16 req/s
// a constant one.
//
// Every comparison, archive row and history series keys levels through
// LevelOf, so that a summary with other kinds of levels needs a change
// here only.
type LevelID struct {
	// Series is the configuration the level belongs to; levels of two
	// series are never the same level.
	Series ingest.Series
	// Mode is the kind of load: "concurrency" or "rate".
	Mode string
	// Value is the setting: requests in flight for "concurrency",
	// requests per second for "rate" (+Inf for requests sent all at once).
	Value float64
	// Arrival is a rate level's arrival process ("poisson", "constant",
	// "gamma"), empty when not recorded.
	Arrival string
}

// The modes of a LevelID.
const (
	// ModeConcurrency is a closed-loop level with a fixed number of
	// requests in flight.
	ModeConcurrency = string(ingest.ModeConcurrency)
	// ModeRate is an open-loop level at a request rate.
	ModeRate = string(ingest.ModeRate)
)

// LevelOf returns the identity of a summary level.
func LevelOf(l analyze.Level) LevelID {
	id := levelID(l.Load())
	id.Series = l.Series
	return id
}

func levelID(l ingest.LoadLevel) LevelID {
	return LevelID{Mode: string(l.Mode), Value: l.Value(), Arrival: l.Arrival}
}

// load is the level as ingest's load level, for its labels.
func (id LevelID) load() ingest.LoadLevel {
	if id.Mode == ModeConcurrency {
		return ingest.ConcurrencyLoad(int(id.Value))
	}
	return ingest.RateLoad(id.Value, id.Arrival)
}

// Key is a stable machine key for the level: "concurrency=16", "rate=16",
// "rate=16/poisson" or "rate=inf", after its series' labels and " | "
// when it has any ("max_num_seqs=128, tp=2 | concurrency=16").
func (id LevelID) Key() string {
	if !id.Series.IsZero() {
		return id.Series.String() + " | " + id.levelKey()
	}
	return id.levelKey()
}

// levelKey is Key without the series.
func (id LevelID) levelKey() string {
	v := "inf"
	if !math.IsInf(id.Value, 1) {
		v = strconv.FormatFloat(id.Value, 'g', -1, 64)
	}
	k := id.Mode + "=" + v
	if id.Arrival != "" && !math.IsInf(id.Value, 1) {
		k += "/" + id.Arrival
	}
	return k
}

// Label is the load level as people read it: "concurrency 16", "16 req/s,
// poisson arrivals" or "rate inf" (without the series: see Describe).
func (id LevelID) Label() string {
	switch id.Mode {
	case ModeConcurrency, ModeRate:
		return id.load().Describe()
	}
	return id.Mode + " " + strconv.FormatFloat(id.Value, 'g', -1, 64)
}

// Describe is Label with the series' labels after it, when it has any:
// "concurrency 16 (max_num_seqs=128)".
func (id LevelID) Describe() string {
	if id.Series.IsZero() {
		return id.Label()
	}
	return id.Label() + " (" + id.Series.String() + ")"
}

// Less orders levels as the summary does: series by series (see
// ingest.Series.Compare), then concurrency levels ascending, then rates
// ascending with rate inf last, then by arrival process.
func (id LevelID) Less(o LevelID) bool {
	if c := id.Series.Compare(o.Series); c != 0 {
		return c < 0
	}
	if id.Mode != o.Mode {
		if id.Mode == ModeConcurrency || o.Mode == ModeConcurrency {
			return id.Mode == ModeConcurrency
		}
		return id.Mode < o.Mode
	}
	if id.Value != o.Value {
		return id.Value < o.Value
	}
	return id.Arrival < o.Arrival
}

// levelJSON is LevelID in JSON: the value of rate inf is the string "inf",
// as in summary.json (JSON has no infinity).
type levelJSON struct {
	Series  ingest.Series `json:"series,omitzero"`
	Mode    string        `json:"mode"`
	Value   analyze.Rate  `json:"value"`
	Arrival string        `json:"arrival,omitempty"`
}

// MarshalJSON writes {"mode", "value", "arrival"}, rate inf as "inf".
func (id LevelID) MarshalJSON() ([]byte, error) {
	return json.Marshal(levelJSON{Series: id.Series, Mode: id.Mode, Value: analyze.Rate(id.Value), Arrival: id.Arrival})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (id *LevelID) UnmarshalJSON(b []byte) error {
	var j levelJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*id = LevelID{Series: j.Series, Mode: j.Mode, Value: float64(j.Value), Arrival: j.Arrival}
	return nil
}
