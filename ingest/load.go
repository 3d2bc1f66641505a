package ingest

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// LoadMode says how a run's load was applied.
type LoadMode string

// The load modes.
const (
	// ModeConcurrency keeps a fixed number of requests in flight.
	ModeConcurrency LoadMode = "concurrency"
	// ModeRate sends requests at a fixed average rate (requests per second),
	// or all at once ("rate inf").
	ModeRate LoadMode = "rate"
)

// Arrival processes of a rate level.
const (
	ArrivalPoisson  = "poisson"  // exponential gaps
	ArrivalConstant = "constant" // equal gaps
	ArrivalGamma    = "gamma"    // gamma-distributed gaps (vLLM --burstiness ≠ 1)
)

// LoadLevel is a run's load level: concurrency N, rate R req/s (with its arrival
// process when recorded) or rate inf. The zero LoadLevel is no level at all.
type LoadLevel struct {
	Mode LoadMode
	// Concurrency is N for a concurrency level.
	Concurrency int
	// Rate is R in requests per second for a rate level; +Inf for "rate inf".
	Rate float64
	// Arrival is "poisson", "constant", "gamma" or "" (not recorded), for a
	// finite rate level.
	Arrival string
}

// ConcurrencyLoad is the level "concurrency n".
func ConcurrencyLoad(n int) LoadLevel { return LoadLevel{Mode: ModeConcurrency, Concurrency: n} }

// RateLoad is the level "rate r req/s" with the given arrival process
// ("" when not recorded); r may be +Inf.
func RateLoad(r float64, arrival string) LoadLevel {
	if math.IsInf(r, 1) {
		arrival = ""
	}
	return LoadLevel{Mode: ModeRate, Rate: r, Arrival: arrival}
}

// Valid reports whether l is a level at all.
func (l LoadLevel) Valid() bool {
	switch l.Mode {
	case ModeConcurrency:
		return l.Concurrency > 0
	case ModeRate:
		return l.Rate > 0 && !math.IsNaN(l.Rate)
	}
	return false
}

// Unbounded reports whether l is "rate inf": every request sent at once.
func (l LoadLevel) Unbounded() bool { return l.Mode == ModeRate && math.IsInf(l.Rate, 1) }

// Label names the level for people: "concurrency 16", "16 req/s" or
// "rate inf". The arrival process is not part of it; see Describe.
func (l LoadLevel) Label() string {
	switch {
	case l.Mode == ModeConcurrency:
		return "concurrency " + strconv.Itoa(l.Concurrency)
	case l.Unbounded():
		return "rate inf"
	case l.Mode == ModeRate:
		return FormatRate(l.Rate) + " req/s"
	}
	return "no level"
}

// Describe is Label with the arrival process: "16 req/s, poisson arrivals".
func (l LoadLevel) Describe() string {
	if l.Mode == ModeRate && l.Arrival != "" && !l.Unbounded() {
		return l.Label() + ", " + l.Arrival + " arrivals"
	}
	return l.Label()
}

// Key is the level as a notebook selector: "c=16", "rate=16" or "rate=inf".
// Two runs are at the same level exactly when their keys and arrival
// processes are equal.
func (l LoadLevel) Key() string {
	switch {
	case l.Mode == ModeConcurrency:
		return "c=" + strconv.Itoa(l.Concurrency)
	case l.Unbounded():
		return "rate=inf"
	case l.Mode == ModeRate:
		return "rate=" + FormatRate(l.Rate)
	}
	return ""
}

// Value is the level's number on an axis: N, R, or +Inf.
func (l LoadLevel) Value() float64 {
	if l.Mode == ModeConcurrency {
		return float64(l.Concurrency)
	}
	return l.Rate
}

// DirName is the directory name importers give a level: "c16", "rate16",
// "rate0.5-poisson", "rate-inf".
func (l LoadLevel) DirName() string {
	switch {
	case l.Mode == ModeConcurrency:
		return "c" + strconv.Itoa(l.Concurrency)
	case l.Unbounded():
		return "rate-inf"
	case l.Arrival != "":
		return "rate" + FormatRate(l.Rate) + "-" + l.Arrival
	}
	return "rate" + FormatRate(l.Rate)
}

// Compare orders levels: concurrency levels ascending, then rate levels
// ascending with rate inf last, then by arrival process.
func (l LoadLevel) Compare(o LoadLevel) int {
	if l.Mode != o.Mode {
		if l.Mode == ModeConcurrency {
			return -1
		}
		if o.Mode == ModeConcurrency {
			return 1
		}
		return strings.Compare(string(l.Mode), string(o.Mode))
	}
	if a, b := l.Value(), o.Value(); a != b {
		if a < b {
			return -1
		}
		return 1
	}
	return strings.Compare(l.Arrival, o.Arrival)
}

// FormatRate writes a rate the shortest way that reads back exactly.
func FormatRate(r float64) string {
	if math.IsInf(r, 1) {
		return "inf"
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

// ParseRate reads a rate: a positive number, or "inf" (also "Infinity",
// ".inf") for requests sent all at once.
func ParseRate(s string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "inf", "+inf", ".inf", "+.inf", "infinity":
		return math.Inf(1), nil
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || r <= 0 || r > MaxRate {
		return 0, fmt.Errorf("rate %q: expected a positive number up to %d, or inf", s, MaxRate)
	}
	return r, nil
}

// ParseArrival reads an arrival process name.
func ParseArrival(s string) (string, bool) {
	switch a := strings.ToLower(strings.TrimSpace(s)); a {
	case ArrivalPoisson, ArrivalConstant, ArrivalGamma:
		return a, true
	}
	return "", false
}

// ParseLoadKey reads a level selector as Key writes it: "c=16", "rate=16",
// "rate=inf" (also "concurrency=16", "qps=16").
func ParseLoadKey(s string) (LoadLevel, error) {
	k, v, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return LoadLevel{}, fmt.Errorf("level %q: expected c=N, rate=R or rate=inf", s)
	}
	switch strings.ToLower(k) {
	case "c", "conc", "concurrency":
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > MaxConcurrency {
			return LoadLevel{}, fmt.Errorf("level %q: expected a whole concurrency from 1 to %d", s, MaxConcurrency)
		}
		return ConcurrencyLoad(n), nil
	case "rate", "qps", "rps":
		r, err := ParseRate(v)
		if err != nil {
			return LoadLevel{}, fmt.Errorf("level %q: expected a positive rate up to %d, or inf", s, MaxRate)
		}
		return RateLoad(r, ""), nil
	}
	return LoadLevel{}, fmt.Errorf("level %q: expected c=N, rate=R or rate=inf", s)
}

// rateSegment matches a path segment naming a rate level: rate16, rate-16,
// rate_0.5, rate=inf, rate-inf, qps16, rps16, 16qps, 16.0qps, 16rps, and
// the importers' rate16-poisson (an arrival process may follow).
var rateSegment = regexp.MustCompile(`^(?i:(?:rate|qps|rps)[-_=]?(\d+(?:\.\d+)?|inf)|(\d+(?:\.\d+)?|inf)[-_]?(?:qps|rps))(?:-(poisson|constant|gamma))?$`)

// rateFromPath finds a rate level in the path segment closest to the run
// directory.
func rateFromPath(dir string) (LoadLevel, bool) {
	segs := strings.Split(dir, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		m := rateSegment.FindStringSubmatch(segs[i])
		if m == nil {
			continue
		}
		if r, err := ParseRate(m[1] + m[2]); err == nil {
			return RateLoad(r, strings.ToLower(m[3])), true
		}
	}
	return LoadLevel{}, false
}
