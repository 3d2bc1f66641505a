package analyze

// This file turns a run's GPU telemetry into its GPU and energy figures
// over the declared measurement window (docs/measurement-rules.md,
// "GPU telemetry and energy"):
//
//   - per GPU, the energy over the window: from the cumulative energy
//     counter, interpolated linearly at the window's bounds, when it covers
//     the window and never goes down; else ∫ power dt, the trapezoid rule
//     over consecutive samples clipped to the window. Either way the
//     samples must cover at least MinGPUCoverage of the window, where two
//     consecutive samples cover the time between them only when they are at
//     most max(10 s, 10 % of the window) apart; below full coverage the
//     covered part's mean power stands for the whole window.
//   - the run's energy is the sum over its distinct GPUs (one UUID
//     reported by two hosts is one GPU), available only when every GPU's is.
//   - J per output token = energy / output tokens over the window, output
//     tokens/s per kW = 1000 / (J per output token); output tokens are the
//     server counter's Δ generation_tokens when the run has it, else the
//     completion tokens of the requests completing inside the window.

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// MinGPUCoverage is the share of the measurement window a GPU's samples
// must cover for its energy to be computed.
const MinGPUCoverage = 0.9

// minGPUGapSeconds is the least gap between two samples that still covers
// the time between them (a wider one covers up to 10 % of the window).
const minGPUGapSeconds = 10

// Methods of a GPU's energy.
const (
	EnergyFromCounter = "energy counter"
	EnergyFromPower   = "∫ power dt"
)

// Statistic keys of the GPU and energy figures.
const (
	KeyGPUCount           = "gpu.count"
	KeyGPUPower           = "gpu.power_w"
	KeyGPUUtil            = "gpu.util_percent"
	KeyGPUMemoryUsed      = "gpu.memory_used_mib"
	KeyEnergyPerToken     = "energy.j_per_output_token"
	KeyTokensPerSecondPKW = "energy.output_tokens_per_s_per_kw"
)

// GPUSummary is a run's GPU and energy figures over its window.
type GPUSummary struct {
	// Files are the GPU telemetry files read.
	Files []string `json:"files"`
	// Count is the number of distinct GPUs.
	Count int `json:"count"`
	// Method says how the energy was found: EnergyFromCounter,
	// EnergyFromPower, or both with their GPU counts when they differ.
	Method string `json:"method,omitempty"`
	// CoveragePercent is the lowest share of the window any GPU's samples
	// cover (of the samples the energy came from), in %.
	CoveragePercent Num `json:"coverage_percent"`
	// EnergyJ is the energy of all GPUs over the window (J).
	EnergyJ Num `json:"energy_j"`
	// PowerW = EnergyJ / window: mean total power (W).
	PowerW Num `json:"power_w"`
	// UtilPercent is the time-weighted utilisation over the window,
	// averaged over the GPUs (%).
	UtilPercent Num `json:"util_percent"`
	// MemoryUsedMiB is each GPU's highest memory used in the window,
	// summed (MiB).
	MemoryUsedMiB Num `json:"memory_used_mib"`
	// OutputTokens is the output tokens over the window; OutputTokensBasis
	// says where they were counted.
	OutputTokens      Num    `json:"output_tokens"`
	OutputTokensBasis string `json:"output_tokens_basis,omitempty"`
	// JPerOutputToken = EnergyJ / OutputTokens.
	JPerOutputToken Num `json:"j_per_output_token"`
	// OutputTokensPerSPerKW = output tokens/s per kW of PowerW
	// (= 1000 / JPerOutputToken).
	OutputTokensPerSPerKW Num `json:"output_tokens_per_s_per_kw"`
	// GPUs has one entry per GPU, by key.
	GPUs []GPUFigures `json:"gpus"`
	// Unavailable says why the energy figures are missing; "" when present.
	Unavailable string `json:"unavailable,omitempty"`
	// Notes say how the files were read (timestamps without a zone read
	// as UTC, samples of one GPU reported twice).
	Notes []string `json:"notes,omitempty"`
}

// GPUFigures are one GPU's figures over the window.
type GPUFigures struct {
	// Key is the GPU's UUID, else "host/index".
	Key   string   `json:"key"`
	Index int      `json:"index"`
	Name  string   `json:"name,omitempty"`
	Hosts []string `json:"hosts,omitempty"`
	// Method is EnergyFromCounter or EnergyFromPower; "" when unavailable.
	Method          string `json:"method,omitempty"`
	CoveragePercent Num    `json:"coverage_percent"`
	EnergyJ         Num    `json:"energy_j"`
	// PowerW = EnergyJ / window (W).
	PowerW        Num `json:"power_w"`
	UtilPercent   Num `json:"util_percent"`
	MemoryUsedMiB Num `json:"memory_used_mib"`
	// Unavailable says why EnergyJ is missing; "" when present.
	Unavailable string `json:"unavailable,omitempty"`
	// Note says why the energy counter was not used when it was present.
	Note string `json:"note,omitempty"`
}

// gpuSummary computes a run's GPU figures; nil when the run has no GPU
// telemetry.
func gpuSummary(run *ingest.Run, tp Throughput, led *ledger) *GPUSummary {
	tel := run.GPU
	if tel == nil {
		return nil
	}
	g := &GPUSummary{Count: len(tel.GPUs), CoveragePercent: NaN, EnergyJ: NaN, PowerW: NaN, UtilPercent: NaN,
		MemoryUsedMiB: NaN, OutputTokens: NaN, JPerOutputToken: NaN, OutputTokensPerSPerKW: NaN, GPUs: []GPUFigures{}}
	for _, f := range tel.Files {
		g.Files = append(g.Files, f.Path)
		for _, e := range f.Excluded {
			led.add(ScopeFile, "GPU telemetry row not used: "+e.Reason, e.Rows, f.Path)
		}
		for _, c := range f.UnusedColumns {
			led.add(ScopeFile, "GPU telemetry column not used: "+c, 1, f.Path)
		}
	}
	for _, u := range tel.Unread {
		led.add(ScopeFile, "GPU telemetry file not used", 1, u.Reason)
	}
	g.Notes = append(g.Notes, tel.Notes...)
	if tel.DuplicateSamples > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d %s of a GPU at a time it already had one (the same GPU reported twice) not used",
			tel.DuplicateSamples, textfmt.Plural(tel.DuplicateSamples, "sample", "samples")))
		led.add(ScopeFile, "GPU sample repeated (one GPU reported twice): not used", tel.DuplicateSamples, run.Dir)
	}
	win := run.Window
	switch {
	case len(tel.Files) == 0 && len(tel.Unread) > 0:
		g.Unavailable = "no GPU file could be read: " + tel.Unread[0].Reason
	case tel.Unplaced != "":
		g.Unavailable = tel.Unplaced
	case !win.Known():
		g.Unavailable = "the measurement window is unknown: GPU samples cannot be placed in it"
	case len(tel.GPUs) == 0:
		g.Unavailable = "no GPU samples"
	}
	if g.Unavailable != "" {
		led.add(ScopeStatistic, "GPU and energy figures unavailable: "+g.Unavailable, 1, run.Dir)
		return g
	}
	a, b := unixSec(win.Start), unixSec(win.End)
	methods := map[string]int{}
	var energy, util, mem float64
	utilN, memN := 0, 0
	minCov := math.Inf(1)
	var missing []string
	for _, s := range tel.GPUs {
		f := gpuFigures(s, a, b)
		g.GPUs = append(g.GPUs, f)
		if f.EnergyJ.Valid() {
			energy += float64(f.EnergyJ)
			methods[f.Method]++
			minCov = math.Min(minCov, float64(f.CoveragePercent))
		} else {
			missing = append(missing, "GPU "+f.Key+": "+f.Unavailable)
		}
		if f.UtilPercent.Valid() {
			util += float64(f.UtilPercent)
			utilN++
		}
		if f.MemoryUsedMiB.Valid() {
			mem += float64(f.MemoryUsedMiB)
			memN++
		}
	}
	if utilN == len(tel.GPUs) {
		g.UtilPercent = Num(util / float64(utilN))
	}
	if memN == len(tel.GPUs) {
		g.MemoryUsedMiB = Num(mem)
	}
	if len(missing) > 0 {
		g.Unavailable = strings.Join(missing, "; ")
		led.add(ScopeStatistic, "energy unavailable: a GPU's samples do not cover the window", 1, run.Dir)
		return g
	}
	switch {
	case methods[EnergyFromCounter] == 0:
		g.Method = EnergyFromPower
	case methods[EnergyFromPower] == 0:
		g.Method = EnergyFromCounter
	default:
		g.Method = fmt.Sprintf("%s (%s), %s (%s)", EnergyFromCounter, textfmt.Count(methods[EnergyFromCounter], "GPU", "GPUs"), EnergyFromPower, textfmt.Count(methods[EnergyFromPower], "GPU", "GPUs"))
	}
	g.CoveragePercent = Num(minCov)
	g.EnergyJ = Num(energy)
	g.PowerW = Num(energy / (b - a))
	switch {
	case tp.GenerationTokensDelta.Valid():
		g.OutputTokens = tp.GenerationTokensDelta
		g.OutputTokensBasis = "server counter Δ generation_tokens over the window"
	case tp.RequestsBasis != "" && tp.ClientCompletionTokens > 0:
		g.OutputTokens = Num(tp.ClientCompletionTokens)
		g.OutputTokensBasis = "completion tokens of the requests completing inside the window"
	}
	if g.OutputTokens.Valid() && g.OutputTokens > 0 && energy > 0 {
		g.JPerOutputToken = Num(energy / float64(g.OutputTokens))
		g.OutputTokensPerSPerKW = Num(1000 * float64(g.OutputTokens) / energy)
	}
	return g
}

// unixSec is t in unix seconds.
func unixSec(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// gpuFigures computes one GPU's figures over the window [a, b].
func gpuFigures(s ingest.GPUSeries, a, b float64) GPUFigures {
	f := GPUFigures{Key: s.Key, Index: s.Index, Name: s.Name, Hosts: s.Hosts,
		CoveragePercent: NaN, EnergyJ: NaN, PowerW: NaN, UtilPercent: NaN, MemoryUsedMiB: NaN}
	T := b - a
	maxGap := math.Max(minGPUGapSeconds, 0.1*T)
	series := func(get func(ingest.GPUSample) float64) (ts, vs []float64) {
		for _, x := range s.Samples {
			if v := get(x); !math.IsNaN(v) {
				ts, vs = append(ts, x.Time), append(vs, v)
			}
		}
		return ts, vs
	}
	// Energy counter first.
	cts, cvs := series(func(x ingest.GPUSample) float64 { return x.EnergyJ })
	counterCov := 0.0
	if len(cts) >= 2 {
		if t, down := counterGoesDown(cts, cvs, a, b, maxGap); down {
			f.Note = fmt.Sprintf("the energy counter goes down at %s (a reset?): %s used", fmtUnix(t), EnergyFromPower)
		} else {
			cov, delta := clipped(cts, cvs, a, b, maxGap, false)
			counterCov = cov / T
			if counterCov >= MinGPUCoverage {
				f.Method, f.CoveragePercent, f.EnergyJ = EnergyFromCounter, Num(100*counterCov), Num(delta*T/cov)
			} else {
				f.Note = fmt.Sprintf("the energy counter's samples cover %.1f %% of the window: %s used", 100*counterCov, EnergyFromPower)
			}
		}
	}
	if f.Method == "" {
		pts, pvs := series(func(x ingest.GPUSample) float64 { return x.PowerW })
		cov, integral := clipped(pts, pvs, a, b, maxGap, true)
		switch {
		case len(pts) == 0 && len(cts) == 0:
			f.Unavailable = "no power or energy samples"
		case cov/T < MinGPUCoverage:
			f.Unavailable = fmt.Sprintf("its samples cover %.1f %% of the window, less than the %g %% required", 100*math.Max(cov/T, counterCov), 100*MinGPUCoverage)
			f.CoveragePercent = Num(100 * math.Max(cov/T, counterCov))
		default:
			f.Method, f.CoveragePercent, f.EnergyJ = EnergyFromPower, Num(100*cov/T), Num(integral*T/cov)
		}
	}
	if f.EnergyJ.Valid() {
		f.PowerW = Num(float64(f.EnergyJ) / T)
	}
	uts, uvs := series(func(x ingest.GPUSample) float64 { return x.UtilPercent })
	if cov, integral := clipped(uts, uvs, a, b, maxGap, true); cov/T >= MinGPUCoverage {
		f.UtilPercent = Num(integral / cov)
	}
	mem := math.Inf(-1)
	for _, x := range s.Samples {
		if x.Time >= a && x.Time <= b && !math.IsNaN(x.MemoryUsedMiB) {
			mem = math.Max(mem, x.MemoryUsedMiB)
		}
	}
	if !math.IsInf(mem, -1) {
		f.MemoryUsedMiB = Num(mem)
	}
	return f
}

// clipped walks the pairs of consecutive samples (ts ascending) at most
// maxGap apart that overlap [a, b], each clipped to it with the values
// interpolated linearly at the clip points. It returns the time they
// cover and, when integrate is set, ∫ v dt over it (trapezoids), else the
// sum of the increases v(hi) − v(lo) (a counter's delta).
func clipped(ts, vs []float64, a, b, maxGap float64, integrate bool) (covered, total float64) {
	for i := 1; i < len(ts); i++ {
		t0, t1 := ts[i-1], ts[i]
		if t1-t0 > maxGap || t1 <= a || t0 >= b || t1 == t0 {
			continue
		}
		lo, hi := math.Max(t0, a), math.Min(t1, b)
		at := func(t float64) float64 { return vs[i-1] + (vs[i]-vs[i-1])*(t-t0)/(t1-t0) }
		vlo, vhi := at(lo), at(hi)
		covered += hi - lo
		if integrate {
			total += (hi - lo) * (vlo + vhi) / 2
		} else {
			total += vhi - vlo
		}
	}
	return covered, total
}

// counterGoesDown reports whether a counter decreases between two
// consecutive samples used for the window, and when.
func counterGoesDown(ts, vs []float64, a, b, maxGap float64) (float64, bool) {
	for i := 1; i < len(ts); i++ {
		if ts[i] <= a || ts[i-1] >= b || ts[i]-ts[i-1] > maxGap {
			continue
		}
		if vs[i] < vs[i-1] {
			return ts[i], true
		}
	}
	return 0, false
}

// fmtUnix writes unix seconds as an RFC 3339 UTC time.
func fmtUnix(t float64) string {
	sec, frac := math.Modf(t)
	return formatTime(time.Unix(int64(sec), int64(math.Round(frac*1e9))))
}

// gpuStatSpecs are the GPU and energy statistics of a level, after the
// others; a level has them when one of its runs has GPU telemetry.
func gpuStatSpecs() []statSpec {
	get := func(f func(*GPUSummary) Num) func(RunSummary) Num {
		return func(r RunSummary) Num {
			if r.GPU == nil {
				return NaN
			}
			return f(r.GPU)
		}
	}
	const window = "GPU telemetry over the window"
	return []statSpec{
		{KeyGPUCount, "GPUs", "count", "GPUs", "distinct GPUs in the run's GPU telemetry", get(func(g *GPUSummary) Num {
			if g.Count == 0 {
				return NaN
			}
			return Num(g.Count)
		})},
		{KeyGPUPower, "GPU power", "mean", "W", window + " (energy / window, all GPUs summed)", get(func(g *GPUSummary) Num { return g.PowerW })},
		{KeyGPUUtil, "GPU utilisation", "mean", "%", window + " (time-weighted, averaged over GPUs)", get(func(g *GPUSummary) Num { return g.UtilPercent })},
		{KeyGPUMemoryUsed, "GPU memory used", "max", "MiB", window + " (each GPU's highest, summed)", get(func(g *GPUSummary) Num { return g.MemoryUsedMiB })},
		{KeyEnergyPerToken, "energy per output token", "ratio", "J/token", "GPU energy over the window / output tokens over the window", get(func(g *GPUSummary) Num { return g.JPerOutputToken })},
		{KeyTokensPerSecondPKW, "output tokens/s per kW", "ratio", "tokens/s/kW", "output tokens/s / mean total GPU power in kW", get(func(g *GPUSummary) Num { return g.OutputTokensPerSPerKW })},
	}
}

// gpuFigure returns the run's value of a GPU or energy statistic key, for
// a tool's reported figure of that key; ok is false for another key. A
// gpu.power_w figure whose label names one GPU ("GPU 0 NVIDIA A100
// (GPU-8962cc8a…) mean power") is that GPU's mean power, found by its
// UUID (or the UUID's prefix before "…") in the label, else by "GPU N ".
func (r *RunSummary) gpuFigure(key, label string) (Num, string, bool) {
	if !strings.HasPrefix(key, "gpu.") && !strings.HasPrefix(key, "energy.") {
		return NaN, "", false
	}
	g := r.GPU
	if g == nil {
		return NaN, "the run has no GPU telemetry benchnote could read", true
	}
	if key == KeyGPUPower && strings.HasPrefix(label, "GPU ") {
		for _, f := range g.GPUs {
			if gpuNamedIn(f, label) {
				if !f.PowerW.Valid() {
					return NaN, "GPU " + f.Key + ": " + f.Unavailable, true
				}
				return f.PowerW, "GPU " + f.Key + "'s energy / window (" + f.Method + ")", true
			}
		}
		return NaN, "no GPU of the run's telemetry matches the label", true
	}
	why := g.Unavailable
	if why == "" {
		why = "unavailable"
	}
	val := func(v Num, basis string) (Num, string, bool) {
		if !v.Valid() {
			return NaN, why, true
		}
		return v, basis, true
	}
	switch key {
	case KeyGPUCount:
		return Num(g.Count), "distinct GPUs in the run's GPU telemetry", true
	case KeyGPUPower:
		return val(g.PowerW, "energy of all GPUs / window ("+g.Method+")")
	case KeyGPUUtil:
		return val(g.UtilPercent, "time-weighted over the window, averaged over GPUs")
	case KeyGPUMemoryUsed:
		return val(g.MemoryUsedMiB, "each GPU's highest in the window, summed")
	case KeyEnergyPerToken:
		return val(g.JPerOutputToken, "energy over the window ("+g.Method+") / "+g.OutputTokensBasis)
	case KeyTokensPerSecondPKW:
		return val(g.OutputTokensPerSPerKW, "1000 / J per output token")
	}
	return NaN, "no benchnote counterpart", true
}

// gpuNamedIn reports whether a figure's label names GPU f.
func gpuNamedIn(f GPUFigures, label string) bool {
	if strings.Contains(label, f.Key) {
		return true
	}
	// A label may shorten the UUID: "(GPU-8962cc8a…)".
	for _, part := range strings.FieldsFunc(label, func(r rune) bool { return r == '(' || r == ')' || r == ' ' }) {
		if p, ok := strings.CutSuffix(part, "…"); ok && len(p) >= 8 && strings.HasPrefix(f.Key, p) {
			return true
		}
	}
	return f.Index >= 0 && strings.HasPrefix(label, fmt.Sprintf("GPU %d ", f.Index))
}
