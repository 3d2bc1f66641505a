package analyze

import (
	"fmt"
	"math"
	"sort"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// This file computes what a report's first screen rests on: per level the
// error and zero-output shares, the checks its data failed (which make
// some of its statistics suspect), the output rate a headline shows and
// where server quantiles lie in their buckets; and per series and load
// mode the highest level meeting the SLOs. It runs once the levels, runs
// and lint findings are known (finishSummary); configurations.go ranks
// the series after it.

// latencyKeys are the key prefixes of the client latency statistics.
var latencyKeys = []string{"ttft.", "tpot.", "e2e.", "user_tps.", "itl."}

// serverRateKeys are the server counter rates.
var serverRateKeys = []string{"throughput.output_tokens_per_s", "throughput.prompt_tokens_per_s"}

// Statistic keys of the output rates a headline can show.
const (
	KeyServerOutputRate = "throughput.output_tokens_per_s"
	KeyClientOutputRate = "throughput.client_output_tokens_per_s"
)

// attainmentSlack absorbs rounding when a goodput percentage is compared
// with 100 × the attainment target (9 of 10 passing is 90 %).
const attainmentSlack = 1e-9

// methodSLO records the goodput targets, the attainment target and where
// each came from.
func methodSLO(cfg ingest.Config) SLO {
	return SLO{
		TTFTms: Num(cfg.SLO.TTFTms), TPOTms: Num(cfg.SLO.TPOTms), E2Ems: Num(cfg.SLO.E2Ems), Attainment: cfg.SLO.Attainment,
		From: SLOFrom{TTFT: cfg.SLOFrom.TTFT, TPOT: cfg.SLOFrom.TPOT, E2E: cfg.SLOFrom.E2E, Attainment: cfg.SLOFrom.Attainment},
	}
}

// goodputBasis says which requests request goodput counts.
func goodputBasis(run *ingest.Run, req *ingest.Requests) string {
	if !wallClock(run, req) {
		return "every measured request (no wall-clock timestamps to place them in the window); warm-up excluded"
	}
	return "measured requests completing inside the window; warm-up excluded"
}

// finishSummary adds what needs the whole summary: the data-quality
// findings lint does not make, each run's notes, each level's quality
// figures and suspicions, and the answers.
func finishSummary(sw *ingest.Sweep, s *Summary) {
	notes := map[string]string{}
	for _, r := range sw.Runs {
		notes[r.Dir] = r.Notes
	}
	for i := range s.Runs {
		s.Runs[i].Notes = notes[s.Runs[i].Dir]
	}
	for i := range s.Levels {
		levelQuality(s, &s.Levels[i])
	}
	s.Findings = append(s.Findings, zeroOutputFindings(s)...)
	rank := map[string]int{"error": 0, "warning": 1, "info": 2}
	sort.SliceStable(s.Findings, func(i, j int) bool { return rank[s.Findings[i].Severity] < rank[s.Findings[j].Severity] })
	s.Answers = answers(s)
	s.Configurations = configurations(sw, s)
}

// percentNum is 100 × n / d, or NaN when d is 0.
func percentNum(n, d int) Num {
	if d == 0 {
		return NaN
	}
	return Num(100 * float64(n) / float64(d))
}

// usableRuns returns the level's runs that were not failed.
func usableRuns(s *Summary, lv *Level) []RunSummary {
	var out []RunSummary
	for _, r := range s.Runs {
		if r.LevelKey == lv.LevelKey && !r.Failed {
			out = append(out, r)
		}
	}
	return out
}

// shareOver reports whether n of d exceeds the share thr.
func shareOver(n, d int, thr float64) bool { return d > 0 && float64(n) > thr*float64(d) }

// levelQuality fills a level's error and zero-output shares, suspicions,
// headline output rate and server resolution.
func levelQuality(s *Summary, lv *Level) {
	runs := usableRuns(s, lv)
	c := lv.Counts
	lv.ErrorPercent = percentNum(c.Errors, c.Measured)
	lv.ZeroOutputPercent = percentNum(c.ZeroToken, c.Measured)
	lv.Suspect = []Suspicion{}
	thr := s.Method.ErrorRateThreshold
	tol := s.Method.CounterTolerance
	suspect := func(rule string, keys []string, levelFails bool, failed func(RunSummary) bool) {
		var names []string
		for _, r := range runs {
			if failed(r) {
				names = append(names, r.Dir)
			}
		}
		if len(names) == 0 && !levelFails {
			return
		}
		lv.Suspect = append(lv.Suspect, Suspicion{Rule: rule, Keys: keys, Runs: names, RunsOf: len(runs)})
	}
	latencyAndGoodput := append(append([]string{}, latencyKeys...), "goodput.")
	suspect("error-rate", latencyKeys, shareOver(c.Errors, c.Measured, thr),
		func(r RunSummary) bool { return shareOver(r.Counts.Errors, r.Counts.Measured, thr) })
	suspect("zero-output-requests", latencyKeys, shareOver(c.ZeroToken, c.Measured, thr),
		func(r RunSummary) bool { return shareOver(r.Counts.ZeroToken, r.Counts.Measured, thr) })
	suspect("warm-up-never-stabilised", latencyAndGoodput, false,
		func(r RunSummary) bool { return r.Warmup.Outcome == WarmupNotStabilised })
	suspect("warm-up-unavailable", latencyAndGoodput, false,
		func(r RunSummary) bool { return r.Warmup.Outcome == WarmupUnavailable })
	suspect("counter-client-mismatch", serverRateKeys, false, func(r RunSummary) bool {
		m := r.Throughput.CounterMismatch
		return m.Valid() && float64(m) > tol
	})
	suspect("scrapes-unchanged", append(append([]string{}, serverRateKeys...), "server."), false,
		func(r RunSummary) bool { return r.Scrapes.Unchanged })

	lv.OutputRateKey = KeyServerOutputRate
	server, _ := lv.Stat(KeyServerOutputRate)
	client, _ := lv.Stat(KeyClientOutputRate)
	if (server.Runs == 0 || len(lv.Suspicions(KeyServerOutputRate)) > 0) && client.Runs > 0 {
		lv.OutputRateKey = KeyClientOutputRate
	}

	for _, st := range lv.Stats {
		if b, ok := serverBucket(runs, st); ok {
			lv.ServerResolution = append(lv.ServerResolution, b)
		}
	}
}

// serverBucket spans, over the runs, the buckets a server
// histogram's quantile st lies in; false when st is not such a quantile
// or no run's histogram resolves it.
func serverBucket(runs []RunSummary, st AcrossRuns) (LevelBucket, bool) {
	role, q, ok := serverQuantileKey(st.Key)
	if !ok || st.Runs == 0 {
		return LevelBucket{}, false
	}
	b := LevelBucket{Key: st.Key, LoMs: NaN, HiMs: NaN}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		for _, h := range r.Server {
			if h.Role != role || h.Omitted != "" {
				continue
			}
			for _, res := range h.Resolution {
				if res.Quantile != q || !res.LoMs.Valid() {
					continue
				}
				b.Coarse = b.Coarse || res.Coarse
				lo = math.Min(lo, float64(res.LoMs))
				h := math.Inf(1)
				if res.HiMs.Valid() {
					h = float64(res.HiMs)
				}
				hi = math.Max(hi, h)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return LevelBucket{}, false
	}
	b.LoMs, b.HiMs = Num(lo), Num(hi) // +Inf is written as null
	return b, true
}

// serverQuantileKey splits "server.ROLE.pNN" into its role and quantile.
func serverQuantileKey(key string) (role, quantile string, ok bool) {
	const prefix = "server."
	if len(key) <= len(prefix) || key[:len(prefix)] != prefix {
		return "", "", false
	}
	rest := key[len(prefix):]
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i] == '.' {
			return rest[:i], rest[i+1:], true
		}
	}
	return "", "", false
}

// zeroOutputFindings reports, per level, a share of measured requests that
// succeeded without any output token above the error-rate threshold, in
// the level as a whole or in any of its runs: they count against goodput
// and are not latency samples, so the latency figures rest on the rest.
func zeroOutputFindings(s *Summary) []Finding {
	thr := s.Method.ErrorRateThreshold
	var fs []Finding
	for i := range s.Levels {
		lv := &s.Levels[i]
		runs := usableRuns(s, lv)
		var over []string
		for _, r := range runs {
			if c := r.Counts; shareOver(c.ZeroToken, c.Measured, thr) {
				over = append(over, fmt.Sprintf("%s (%d of %d measured requests returned no output token, %s)", r.Dir, c.ZeroToken, c.Measured, percentOf(c.ZeroToken, c.Measured)))
			}
		}
		c := lv.Counts
		if !shareOver(c.ZeroToken, c.Measured, thr) && len(over) == 0 {
			continue
		}
		msg := fmt.Sprintf("%s: %d of %d measured requests (%s) succeeded without any output token (n = 0), more than the error-rate threshold of %.4g%%; %s %s above it. They fail goodput and are not latency samples, so latency figures describe only the requests that returned output",
			describeLevel(lv.LevelKey), c.ZeroToken, c.Measured, percentOf(c.ZeroToken, c.Measured), 100*thr, ofRuns(len(over), len(runs)), textfmt.Plural(len(over), "is", "are"))
		fs = append(fs, Finding{Severity: "warning", Rule: "zero-output-requests",
			Source: "serving-workloads §2.2: TPOT undefined for n ≤ 1", Message: msg, Runs: over})
	}
	return fs
}

// answerID is what one answer is for: a load mode of a series.
type answerID struct {
	series ingest.Series
	mode   string
}

// answers finds, per series and load mode, the highest level meeting the
// SLOs, in level order (series, then mode).
func answers(s *Summary) []Answer {
	var modes []answerID
	byMode := map[answerID][]*Level{}
	for i := range s.Levels {
		lv := &s.Levels[i]
		id := answerID{lv.Series, lv.Mode}
		if _, ok := byMode[id]; !ok {
			modes = append(modes, id)
		}
		byMode[id] = append(byMode[id], lv)
	}
	out := []Answer{}
	slo := s.Method.SLO
	target := 100 * slo.Attainment
	for _, mode := range modes {
		a := Answer{Series: mode.series, Mode: mode.mode}
		if !slo.Set() {
			a.Unavailable = "no SLO target is set"
			out = append(out, a)
			continue
		}
		meets := func(v Num) bool { return v.Valid() && float64(v) >= target-attainmentSlack }
		var met, best *Level
		bestGoodput := math.Inf(-1)
		for _, lv := range byMode[mode] {
			g, ok := lv.Stat("goodput.percent")
			if !ok || g.Runs == 0 || !g.Median.Valid() {
				continue
			}
			if meets(g.Median) {
				met = lv
			}
			if float64(g.Median) >= bestGoodput {
				best, bestGoodput = lv, float64(g.Median)
			}
		}
		chosen := met
		switch {
		case best == nil:
			a.Unavailable = "no level has a goodput figure"
			out = append(out, a)
			continue
		case met == nil:
			chosen = best
			k := best.LevelKey
			a.Best = &k
		default:
			k := met.LevelKey
			a.Level = &k
			for _, lv := range byMode[mode] {
				if lv == met {
					break
				}
				if g, ok := lv.Stat("goodput.percent"); ok && g.Runs > 0 && !meets(g.Median) {
					a.LowerNotMeeting = append(a.LowerNotMeeting, lv.LevelKey)
				}
			}
		}
		a.Goodput, _ = chosen.Stat("goodput.percent")
		a.Output, _ = chosen.Stat(chosen.OutputRateKey)
		a.Requests, _ = chosen.Stat("throughput.requests_per_s")
		var levels []Level
		for _, lv := range byMode[mode] {
			levels = append(levels, *lv)
		}
		a.Capacity = CapacityOf(levels, target)
		if !a.Output.Median.Valid() || !a.Requests.Median.Valid() {
			a.Measured = toolMeasured(s, chosen)
		}
		for _, v := range a.Goodput.PerRun {
			if meets(v) {
				a.RunsMeeting++
			}
		}
		out = append(out, a)
	}
	return out
}

// CapacityOf brackets the capacity under the SLOs among levels, given in
// ascending load (one series and load mode), for a level meeting them
// when its goodput.percent reaches attainmentPercent: the median for
// Level, every run for EveryRun, at least one run for SomeRun. compare
// reports the same bracket for each side.
func CapacityOf(levels []Level, attainmentPercent float64) Capacity {
	meets := func(v Num) bool { return v.Valid() && float64(v) >= attainmentPercent-attainmentSlack }
	var c Capacity
	for _, lv := range levels {
		g, ok := lv.Stat("goodput.percent")
		if !ok || g.Runs == 0 || !g.Median.Valid() {
			continue
		}
		c.Levels++
		k := lv.LevelKey
		if c.Above == nil && (c.Level != nil || !meets(g.Median)) {
			c.Above = &k
		}
		if meets(g.Median) {
			c.Level, c.Above = &k, nil
		}
		every, some := false, false
		n := 0
		for _, v := range g.PerRun {
			if !v.Valid() {
				continue
			}
			if n == 0 {
				every = true
			}
			n++
			if meets(v) {
				some = true
			} else {
				every = false
			}
		}
		if every {
			c.EveryRun = &k
		}
		if some {
			c.SomeRun = &k
		}
	}
	return c
}

// toolMeasured is the source tool's own throughput for a level: the
// median, across the level's runs that report a duration, of the tool's
// duration, output tokens/s and requests/s; nil when no run reports a
// duration with either rate.
func toolMeasured(s *Summary, lv *Level) *ToolMeasured {
	var tool string
	var dur, out, req []float64
	runs := 0
	for _, r := range usableRuns(s, lv) {
		if r.Import == nil {
			continue
		}
		fig := map[string]float64{}
		for _, f := range r.Import.Figures {
			if f.Reported.Valid() {
				fig[f.Key] = float64(f.Reported)
			}
		}
		d, ok := fig["duration_s"]
		o, hasOut := fig[KeyClientOutputRate]
		q, hasReq := fig["throughput.requests_per_s"]
		if !ok || d <= 0 || (!hasOut && !hasReq) {
			continue
		}
		runs++
		if tool == "" {
			tool = toolShortName(r.Import.Tool)
		}
		dur = append(dur, d)
		if hasOut {
			out = append(out, o)
		}
		if hasReq {
			req = append(req, q)
		}
	}
	if runs == 0 {
		return nil
	}
	med := func(xs []float64) Num {
		if len(xs) == 0 {
			return NaN
		}
		return Num(Median(xs))
	}
	return &ToolMeasured{Tool: tool, Runs: runs, DurationS: med(dur), Output: med(out), Requests: med(req)}
}

// toolShortName is a tool's name without its script or format:
// "vLLM benchmark_serving.py" is "vLLM".
func toolShortName(tool string) string {
	for i, r := range tool {
		if r == ' ' || r == '(' {
			return tool[:i]
		}
	}
	return tool
}
