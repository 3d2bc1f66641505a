package analyze

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

// This file computes what the report's Pareto chart draws: per level (of
// each series) the output token rate per GPU against the output token rate
// each user sees, both as median ± MAD across runs, which levels no other
// level beats on both, and which meet the SLOs.

// Pareto is the trade-off between what a server delivers and what each
// of its users sees: one point per level of each series.
type Pareto struct {
	// Per is what the throughput is divided by: ParetoPerGPU when every
	// point with a throughput has a GPU count, else ParetoPerServer.
	Per string `json:"per"`
	// PerNote says why the throughput is per server ("" when per GPU).
	PerNote string `json:"per_note,omitempty"`
	// Points holds one point per level, in level order.
	Points []ParetoPoint `json:"points"`
	// Unavailable says why no point has both coordinates ("" when one
	// does).
	Unavailable string `json:"unavailable,omitempty"`
}

// What a Pareto throughput is divided by.
const (
	ParetoPerGPU    = "GPU"
	ParetoPerServer = "server"
)

// ParetoPoint is one level of the Pareto chart.
type ParetoPoint struct {
	LevelKey
	// GPUs is the GPU count of the level's runs (the environment's
	// gpu_count); 0 when a run does not record it or the runs disagree.
	GPUs int `json:"gpus"`
	// Throughput is the level's output token rate (the statistic
	// Level.OutputRateKey names), each run's value divided by GPUs when
	// Pareto.Per is ParetoPerGPU: median ± MAD across runs.
	Throughput AcrossRuns `json:"throughput"`
	// UserTPS is the level's user_tps.p50: each run's median of the
	// per-request (n − 1) / (E2E − TTFT) over requests with n ≥ 2, median
	// ± MAD across runs.
	UserTPS AcrossRuns `json:"user_tps"`
	// OnFrontier is set when no other point has a throughput and a user
	// TPS at least as high, one of them higher (medians; points with
	// both coordinates only).
	OnFrontier bool `json:"on_frontier"`
	// MeetsSLO says whether the level's median goodput across runs
	// reaches 100 × Method.SLO.Attainment %; null when no SLO target is
	// set or the level has no goodput figure.
	MeetsSLO *bool `json:"meets_slo"`
	// Unavailable says why the point lacks a coordinate ("" when it has
	// both).
	Unavailable string `json:"unavailable,omitempty"`
}

// Drawable reports whether the point has both coordinates.
func (p ParetoPoint) Drawable() bool { return p.Throughput.Median.Valid() && p.UserTPS.Median.Valid() }

// KeyUserTPSMedian is the statistic a Pareto point's user TPS copies.
const KeyUserTPSMedian = "user_tps.p50"

// paretoOf computes the Pareto points of a summary whose levels and runs
// are final; envs maps a run directory to its canonical environment.
func paretoOf(s *Summary, envs map[string]map[string]string) Pareto {
	p := Pareto{Per: ParetoPerGPU, Points: []ParetoPoint{}}
	var noGPU []string
	for i := range s.Levels {
		lv := &s.Levels[i]
		pt := ParetoPoint{LevelKey: lv.LevelKey}
		pt.GPUs = levelGPUs(lv, envs)
		pt.UserTPS, _ = lv.Stat(KeyUserTPSMedian)
		if pt.UserTPS.Key == "" {
			pt.UserTPS = AcrossRuns{Key: KeyUserTPSMedian, Median: NaN, MAD: NaN}
		}
		pt.MeetsSLO = meetsSLO(s.Method.SLO, lv)
		if rate, _ := lv.Stat(lv.OutputRateKey); rate.Median.Valid() && pt.GPUs == 0 {
			noGPU = append(noGPU, describeLevel(lv.LevelKey))
		}
		p.Points = append(p.Points, pt)
	}
	if len(noGPU) > 0 {
		p.Per = ParetoPerServer
		p.PerNote = "GPU count (environment gpu_count) not recorded, or not the same in every run, for " + listSome(noGPU, len(s.Levels))
	}
	for i := range p.Points {
		pt := &p.Points[i]
		lv := &s.Levels[i]
		rate, _ := lv.Stat(lv.OutputRateKey)
		div := 1
		if p.Per == ParetoPerGPU {
			div = pt.GPUs
		}
		pt.Throughput = perDivisor(rate, lv.OutputRateKey, div, p.Per, s.Method.MAD == "scaled")
		pt.Unavailable = paretoMissing(s, lv, *pt)
	}
	markFrontier(p.Points)
	drawable := false
	for _, pt := range p.Points {
		drawable = drawable || pt.Drawable()
	}
	if !drawable {
		p.Unavailable = paretoUnavailable(s, p.Points)
	}
	return p
}

// listSome joins up to five names, and says how many of total there were
// when more.
func listSome(names []string, total int) string {
	const most = 5
	out := strings.Join(names[:min(len(names), most)], "; ")
	if len(names) > most {
		out += fmt.Sprintf("; and %d more", len(names)-most)
	}
	return out + fmt.Sprintf(" (%d of %d levels)", len(names), total)
}

// levelGPUs returns the GPU count every one of the level's runs records
// (the environment's gpu_count, a positive whole number), or 0.
func levelGPUs(lv *Level, envs map[string]map[string]string) int {
	n := 0
	for _, dir := range lv.Runs {
		k, err := strconv.Atoi(strings.TrimSpace(envs[dir]["gpu_count"]))
		if err != nil || k <= 0 || n != 0 && k != n {
			return 0
		}
		n = k
	}
	return n
}

// perDivisor divides every run's value of an across-runs rate by div (≥ 1)
// and summarises them again, labelled per GPU or per server.
func perDivisor(rate AcrossRuns, key string, div int, per string, scaled bool) AcrossRuns {
	metric := "output tokens/s"
	if key == KeyClientOutputRate {
		metric = "client output tokens/s"
	}
	out := AcrossRuns{Key: key, Metric: metric + " per " + per, Statistic: "rate", Unit: "tokens/s",
		Sample: rate.Sample, Median: NaN, MAD: NaN, PerRun: []Num{}}
	if per == ParetoPerGPU {
		out.Key = key + "_per_gpu"
		out.Sample = rate.Sample + " ÷ GPU count"
	}
	if rate.Key == "" || div <= 0 {
		out.FewRuns = true
		return out
	}
	var vals []float64
	for _, v := range rate.PerRun {
		if v.Valid() {
			v /= Num(div)
			vals = append(vals, float64(v))
		}
		out.PerRun = append(out.PerRun, v)
	}
	out.Runs = len(vals)
	if len(vals) > 0 {
		out.Median = Num(Median(vals))
		out.MAD = Num(MAD(vals, scaled))
	}
	out.FewRuns = out.Runs < MinRuns
	return out
}

// meetsSLO says whether the level's median goodput reaches the attainment
// target, as the answers decide it; nil when that cannot be said.
func meetsSLO(slo SLO, lv *Level) *bool {
	g, ok := lv.Stat("goodput.percent")
	if !slo.Set() || !ok || g.Runs == 0 || !g.Median.Valid() {
		return nil
	}
	meets := float64(g.Median) >= 100*slo.Attainment-attainmentSlack
	return &meets
}

// markFrontier sets OnFrontier on the points that no other point
// dominates: none has a throughput and a user TPS at least as high with
// one of them higher (medians). Equal points do not dominate each other,
// so both are on the frontier.
func markFrontier(pts []ParetoPoint) {
	var idx []int
	for i, p := range pts {
		if p.Drawable() {
			idx = append(idx, i)
		}
	}
	x := func(i int) float64 { return float64(pts[i].Throughput.Median) }
	y := func(i int) float64 { return float64(pts[i].UserTPS.Median) }
	// Highest throughput first, and within one throughput highest user
	// TPS first; then a point is on the frontier when it has the highest
	// user TPS of its throughput and a higher one than every point with a
	// higher throughput.
	sort.SliceStable(idx, func(a, b int) bool {
		if x(idx[a]) != x(idx[b]) {
			return x(idx[a]) > x(idx[b])
		}
		return y(idx[a]) > y(idx[b])
	})
	best := 0.0
	seen := false
	for g := 0; g < len(idx); {
		// The group of points with the same throughput.
		e := g
		for e < len(idx) && x(idx[e]) == x(idx[g]) {
			e++
		}
		top := y(idx[g])
		if !seen || top > best {
			for _, i := range idx[g:e] {
				pts[i].OnFrontier = y(i) == top
			}
		}
		if !seen || top > best {
			best, seen = top, true
		}
		g = e
	}
}

// paretoMissing says why a point lacks a coordinate, "" when it has both.
func paretoMissing(s *Summary, lv *Level, pt ParetoPoint) string {
	var why []string
	if !pt.UserTPS.Median.Valid() {
		why = append(why, "no user TPS: "+userTPSMissing(usableRuns(s, lv)))
	}
	if !pt.Throughput.Median.Valid() {
		why = append(why, "no output token rate: neither server counters nor client timings give one")
	}
	return strings.Join(why, "; ")
}

// userTPSMissing says why runs have no user TPS.
func userTPSMissing(runs []RunSummary) string {
	streamed, multi := 0, 0
	for _, r := range runs {
		if r.Streamed {
			streamed++
		}
		multi += r.Counts.MultiToken
	}
	switch {
	case len(runs) == 0:
		return "no usable run"
	case streamed == 0:
		return "the responses were not streamed (TTFT = E2E), so no request has a decode time"
	case multi == 0:
		return "every measured request had fewer than 2 output tokens, and user TPS = (n − 1) / (E2E − TTFT) needs n ≥ 2"
	}
	return "no run has a median user TPS"
}

// paretoUnavailable says why no point has both coordinates.
func paretoUnavailable(s *Summary, pts []ParetoPoint) string {
	if len(pts) == 0 {
		return "the sweep has no load level"
	}
	var runs []RunSummary
	tps, rate := false, false
	for i, pt := range pts {
		runs = append(runs, usableRuns(s, &s.Levels[i])...)
		tps = tps || pt.UserTPS.Median.Valid()
		rate = rate || pt.Throughput.Median.Valid()
	}
	switch {
	case !tps:
		return "no level has a user TPS: " + userTPSMissing(runs)
	case !rate:
		return "no level has an output token rate: neither server counters nor client timings give one"
	}
	return "no level has both a user TPS and an output token rate"
}

// runEnvs maps each run directory of a sweep to its canonical environment.
func runEnvs(sw *ingest.Sweep) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, r := range sw.Runs {
		out[r.Dir] = r.Env.Canonical
	}
	return out
}
