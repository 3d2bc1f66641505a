package compare

import "github.com/benchnote/benchnote/analyze"

// Rate keys a latency-vs-throughput curve can use, in order of preference.
const (
	ServerRateKey = "throughput.output_tokens_per_s"
	ClientRateKey = "throughput.client_output_tokens_per_s"
)

// CurveLevel is one level of a latency-vs-throughput curve: the rate and
// the latency statistic, each across the level's runs. PerRun values of
// the two share the run order, so index i of both is one run.
type CurveLevel struct {
	Level   LevelID
	Rate    Across
	Latency Across
}

// Curve returns, for every level of a summary, the rate (rateKey) and a
// latency statistic (latencyKey) across runs. Levels lacking either are
// left out.
func Curve(s *analyze.Summary, rateKey, latencyKey string) []CurveLevel {
	runs := indexRuns(s)
	var out []CurveLevel
	for _, l := range s.Levels {
		r, okR := across(s, runs, l, rateKey)
		y, okY := across(s, runs, l, latencyKey)
		if okR && okY && r.Median.Valid() && y.Median.Valid() {
			out = append(out, CurveLevel{Level: LevelOf(l), Rate: r, Latency: y})
		}
	}
	return out
}

// RateKeyFor returns the rate both summaries can draw curves with: the
// server counter rate when both have it at some level, else the client
// rate.
func RateKeyFor(a, b *analyze.Summary) string {
	has := func(s *analyze.Summary) bool {
		for _, l := range s.Levels {
			if st, ok := l.Stat(ServerRateKey); ok && st.Median.Valid() {
				return true
			}
		}
		return false
	}
	if has(a) && has(b) {
		return ServerRateKey
	}
	return ClientRateKey
}
