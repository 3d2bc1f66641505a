package analyze

import (
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// This file answers across the series of a sweep with several: per
// series its GPU count and its output tokens/s per GPU at the level its
// answer names, ranked, and whether the best is told apart from the
// runner-up by more than the spread. It runs after the answers
// (finishSummary).

// Per says what a configuration's output rate is divided by.
const (
	// PerGPU: by the series' GPU count (the environment's gpu_count).
	PerGPU = "GPU"
	// PerServer: not divided; the figure is per server, because the GPU
	// count of some ranked series is not known.
	PerServer = "server"
)

// PerGPUSuffix ends the key of an output rate divided by the GPU count
// ("throughput.output_tokens_per_s_per_gpu").
const PerGPUSuffix = "_per_gpu"

// Configurations is the answer across the series of a sweep with several:
// which configuration delivers the most output tokens/s per GPU at a level
// meeting the SLOs. Each series' figure is taken at the level its answer
// names (of its load modes, the one with the highest figure), so it is the
// figure the first screen's table shows.
type Configurations struct {
	// Differing names the labels whose values differ between series,
	// sorted; Common holds the labels every series shares.
	Differing []string      `json:"differing"`
	Common    ingest.Series `json:"common"`
	// Per is PerGPU when every ranked series' GPU count is known, else
	// PerServer (every figure is then per server).
	Per string `json:"per"`
	// Series holds one entry per series, in series order.
	Series []SeriesRank `json:"series"`
	// WithinSpread is set when the runner-up's figure is within the
	// spread of the best's: their median ± MAD ranges overlap (touching
	// counts), so the runs do not tell the two apart.
	WithinSpread bool `json:"within_spread"`
	// Unavailable says why no series is ranked (no SLO target, no level
	// meeting the SLOs, no output rate there); empty otherwise.
	Unavailable string `json:"unavailable,omitempty"`
}

// SeriesRank is one series of Configurations.
type SeriesRank struct {
	Series ingest.Series `json:"series"`
	// GPUs is the GPU count its usable runs' environments record
	// (gpu_count); 0 when it is not recorded or its runs disagree, and
	// GPUsUnknown then says which.
	GPUs        int    `json:"gpus"`
	GPUsUnknown string `json:"gpus_unknown,omitempty"`
	// Level is the level its figure is taken at: of its answers naming a
	// level meeting the SLOs, the one with the highest Output median; nil
	// when no level of the series meets them or none of those has an
	// output rate.
	Level *LevelKey `json:"level"`
	// Output is the answer's output tokens/s at Level with each run's
	// value divided by GPUs (its key then ends in PerGPUSuffix, its metric
	// in " per GPU") when Per is PerGPU, or
	// the answer's figure unchanged when Per is PerServer; median ± MAD
	// across runs as every level statistic. Left out when Level is nil.
	Output AcrossRuns `json:"output,omitzero"`
	// Rank is 1 for the best configuration, 2 for the runner-up, ...; 0
	// when the series is not ranked (Level is nil). Equal medians keep
	// series order.
	Rank int `json:"rank"`
}

// configurations ranks the series of a sweep with several; nil otherwise.
func configurations(sw *ingest.Sweep, s *Summary) *Configurations {
	var series []ingest.Series
	seen := map[ingest.Series]bool{}
	for _, l := range s.Levels {
		if !seen[l.Series] {
			seen[l.Series] = true
			series = append(series, l.Series)
		}
	}
	if len(series) < 2 {
		return nil
	}
	c := &Configurations{Per: PerGPU, Series: make([]SeriesRank, len(series))}
	c.Differing, c.Common = ingest.Differing(series)
	if c.Differing == nil {
		c.Differing = []string{}
	}
	counts := gpuCounts(sw)
	byAnswer := map[ingest.Series][]Answer{}
	for _, a := range s.Answers {
		byAnswer[a.Series] = append(byAnswer[a.Series], a)
	}
	chosen := make([]*Answer, len(series))
	for i, ser := range series {
		r := &c.Series[i]
		r.Series = ser
		r.GPUs, r.GPUsUnknown = counts.of(ser)
		for j, a := range byAnswer[ser] {
			if a.Level == nil || a.Output.Runs == 0 || !a.Output.Median.Valid() {
				continue
			}
			if chosen[i] == nil || a.Output.Median > chosen[i].Output.Median {
				chosen[i] = &byAnswer[ser][j]
			}
		}
		if chosen[i] != nil && r.GPUs == 0 {
			c.Per = PerServer
		}
	}
	var ranked []int
	for i, a := range chosen {
		if a == nil {
			continue
		}
		r := &c.Series[i]
		k := *a.Level
		r.Level = &k
		r.Output = a.Output
		if c.Per == PerGPU {
			r.Output = perGPU(a.Output, r.GPUs, s.Method.MAD == "scaled")
		}
		ranked = append(ranked, i)
	}
	if len(ranked) == 0 {
		c.Unavailable = noRankReason(s)
		return c
	}
	sort.SliceStable(ranked, func(x, y int) bool {
		return c.Series[ranked[x]].Output.Median > c.Series[ranked[y]].Output.Median
	})
	for n, i := range ranked {
		c.Series[i].Rank = n + 1
	}
	if len(ranked) > 1 {
		best, next := c.Series[ranked[0]].Output, c.Series[ranked[1]].Output
		c.WithinSpread = float64(best.Median)-spread(best) <= float64(next.Median)+spread(next)
	}
	return c
}

// spread is a figure's MAD, 0 when it has none (a single run).
func spread(ar AcrossRuns) float64 {
	if !ar.MAD.Valid() {
		return 0
	}
	return float64(ar.MAD)
}

// noRankReason says why no series could be ranked.
func noRankReason(s *Summary) string {
	if !s.Method.SLO.Set() {
		return "no SLO target is set"
	}
	for _, a := range s.Answers {
		if a.Level != nil {
			return "no level meeting the SLOs has an output tokens/s figure"
		}
	}
	return "no series has a level meeting the SLOs"
}

// perGPU divides each run's value of an output rate by the GPU count and
// summarises them across runs again.
func perGPU(ar AcrossRuns, gpus int, scaled bool) AcrossRuns {
	out := ar
	out.Key = ar.Key + PerGPUSuffix
	out.Metric = ar.Metric + " per GPU"
	out.Sample = ar.Sample + ", ÷ " + textfmt.Count(gpus, "GPU", "GPUs")
	out.PerRun = make([]Num, len(ar.PerRun))
	var vals []float64
	for i, v := range ar.PerRun {
		out.PerRun[i] = NaN
		if v.Valid() {
			out.PerRun[i] = v / Num(gpus)
			vals = append(vals, float64(out.PerRun[i]))
		}
	}
	out.Median, out.MAD = NaN, NaN
	if len(vals) > 0 {
		out.Median = Num(Median(vals))
		out.MAD = Num(MAD(vals, scaled))
	}
	return out
}

// seriesGPUs is, per series, the gpu_count values its usable runs record
// (the empty string for a run recording none).
type seriesGPUs map[ingest.Series]map[string]bool

func gpuCounts(sw *ingest.Sweep) seriesGPUs {
	out := seriesGPUs{}
	for _, r := range sw.Runs {
		if r.Failed {
			continue
		}
		if out[r.Series] == nil {
			out[r.Series] = map[string]bool{}
		}
		out[r.Series][strings.TrimSpace(r.Env.Canonical["gpu_count"])] = true
	}
	return out
}

// of returns a series' GPU count, or 0 and why it is unknown.
func (g seriesGPUs) of(s ingest.Series) (int, string) {
	vals := g[s]
	if len(vals) == 0 || vals[""] && len(vals) == 1 {
		return 0, "not recorded (no gpu_count in the environment)"
	}
	if vals[""] {
		return 0, "recorded for some of its runs only"
	}
	var counts []string
	for v := range vals {
		counts = append(counts, v)
	}
	sort.Strings(counts)
	if len(counts) > 1 {
		return 0, "its runs disagree (" + strings.Join(counts, ", ") + ")"
	}
	n, err := strconv.Atoi(counts[0])
	if err != nil || n <= 0 {
		return 0, "not a GPU count: " + strconv.Quote(counts[0])
	}
	return n, ""
}
