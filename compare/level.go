package compare

import (
	"strconv"

	"github.com/benchnote/benchnote/analyze"
)

// LevelID identifies a load level across sweeps: the kind of load (Mode)
// and its setting (Value). Two levels are the same level only when both
// match, so "concurrency 16" never meets "16 req/s".
//
// Every comparison, archive row and history series keys levels through
// LevelOf, so that a summary with other kinds of levels needs a change
// here only.
type LevelID struct {
	// Mode is the kind of load: "concurrency" today.
	Mode string `json:"mode"`
	// Value is the setting: requests in flight for "concurrency".
	Value float64 `json:"value"`
}

// ModeConcurrency is the Mode of a closed-loop level with a fixed number
// of requests in flight.
const ModeConcurrency = "concurrency"

// LevelOf returns the identity of a summary level.
func LevelOf(l analyze.Level) LevelID {
	return LevelID{Mode: ModeConcurrency, Value: float64(l.Concurrency)}
}

// Key is a stable machine key for the level: "concurrency=16".
func (id LevelID) Key() string {
	return id.Mode + "=" + strconv.FormatFloat(id.Value, 'g', -1, 64)
}

// Label is the level as people read it: "concurrency 16".
func (id LevelID) Label() string {
	v := strconv.FormatFloat(id.Value, 'g', -1, 64)
	switch id.Mode {
	case ModeConcurrency:
		return "concurrency " + v
	case "rate":
		return v + " req/s"
	}
	return id.Mode + " " + v
}

// Less orders levels: by mode, then by value, so that load rises within a
// mode.
func (id LevelID) Less(o LevelID) bool {
	if id.Mode != o.Mode {
		return id.Mode < o.Mode
	}
	return id.Value < o.Value
}
