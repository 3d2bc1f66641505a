package compare

import (
	"fmt"
	"math"
	"sort"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// fakeSweep describes a summary to build: levels, runs per level, and a
// function giving each run's value of each headline statistic.
type fakeSweep struct {
	levels []int
	runs   int
	// runsAt overrides runs at some concurrency levels.
	runsAt map[int]int
	env    map[string]string
	// value returns run r's value of key at concurrency c; the error rate
	// is given as a percentage of 1000 measured requests.
	value  func(c, r int, key string) float64
	slo    analyze.SLO
	prompt float64 // pooled prompt-length median (tokens)
	// series labels every level and run ("tp=2,engine=vllm"); its runs'
	// directories start with the labels ("tp=2/c4/run-1").
	series string
	// energy gives the levels the optional statistics (GPU telemetry's).
	energy bool
}

// mustSeries parses "KEY=V[,KEY=V]" into a series ("" is the zero one).
func mustSeries(s string) ingest.Series {
	if s == "" {
		return ingest.Series{}
	}
	sel, err := ParseSelector(s)
	if err != nil {
		panic(err)
	}
	return sel.labels
}

// join builds one summary of several series: the first sweep's method and
// environment, every sweep's levels and runs, in series order.
func join(sweeps ...fakeSweep) *analyze.Summary {
	s := sweeps[0].build()
	for _, f := range sweeps[1:] {
		o := f.build()
		s.Levels = append(s.Levels, o.Levels...)
		s.Runs = append(s.Runs, o.Runs...)
	}
	sort.SliceStable(s.Levels, func(i, j int) bool { return LevelOf(s.Levels[i]).Less(LevelOf(s.Levels[j])) })
	return s
}

var baseEnv = map[string]string{
	"gpu": "NVIDIA L40S", "gpu_count": "1", "driver": "580.119.02", "cuda": "12.9",
	"engine": "vllm", "engine_version": "0.16.0", "model": "meta-llama/Llama-3.1-8B-Instruct", "precision": "bfloat16",
}

// baseValue is a plausible run value: latencies grow with concurrency,
// runs differ a little.
func baseValue(c, r int, key string) float64 {
	jitter := 1 + 0.01*float64(r%3) - 0.004*float64(r%2)
	switch key {
	case ErrorRateKey:
		return 0
	case GoodputKey:
		return 100 - float64(c)/4
	case "throughput.output_tokens_per_s":
		return 40 * float64(c) * jitter
	case "throughput.requests_per_s":
		return 0.2 * float64(c) * jitter
	}
	return (100 + 10*float64(c)) * jitter
}

func (f fakeSweep) build() *analyze.Summary {
	env := f.env
	if env == nil {
		env = baseEnv
	}
	s := &analyze.Summary{Schema: analyze.SchemaVersion, Title: "fake",
		Method: analyze.Method{Percentile: "nearest-rank", MAD: "raw", Warmup: "stabilisation", WarmupRule: "rule", SLO: f.slo, MinRuns: 3}}
	for _, k := range []string{"gpu", "gpu_count", "driver", "cuda", "engine", "engine_version", "model", "precision"} {
		if v, ok := env[k]; ok {
			s.Environment.Canonical = append(s.Environment.Canonical, analyze.EnvField{Key: k, Value: v})
		}
	}
	value := f.value
	if value == nil {
		value = baseValue
	}
	prompt := f.prompt
	if prompt == 0 {
		prompt = 500
	}
	for _, c := range f.levels {
		runs := f.runs
		if n, ok := f.runsAt[c]; ok {
			runs = n
		}
		key := analyze.LevelKey{Series: mustSeries(f.series), Mode: "concurrency", Concurrency: c}
		l := analyze.Level{LevelKey: key}
		for r := 1; r <= runs; r++ {
			dir := fmt.Sprintf("c%d/run-%d", c, r)
			if f.series != "" {
				dir = f.series + "/" + dir
			}
			l.Runs = append(l.Runs, dir)
			errs := int(math.Round(value(c, r, ErrorRateKey) * 10))
			s.Runs = append(s.Runs, analyze.RunSummary{Dir: dir, LevelKey: key, Repeat: r,
				Counts: analyze.Counts{Measured: 1000, Errors: errs, MultiToken: 1000 - errs}})
		}
		for _, m := range Headline {
			if m.Key == ErrorRateKey || m.Optional && !f.energy {
				continue
			}
			ar := analyze.AcrossRuns{Key: m.Key, Unit: m.Unit}
			var vals []float64
			for r := 1; r <= runs; r++ {
				v := value(c, r, m.Key)
				ar.PerRun = append(ar.PerRun, analyze.Num(v))
				if !math.IsNaN(v) {
					vals = append(vals, v)
				}
			}
			ar.Runs = len(vals)
			ar.Median, ar.MAD = analyze.NaN, analyze.NaN
			if len(vals) > 0 {
				ar.Median, ar.MAD = analyze.Num(analyze.Median(vals)), analyze.Num(analyze.MAD(vals, false))
			}
			l.Stats = append(l.Stats, ar)
		}
		l.Workload.PromptTokens.P50 = analyze.Num(prompt)
		l.Workload.OutputTokens.P50 = 180
		l.Workload.EarlyStopPercent = 90
		s.Levels = append(s.Levels, l)
	}
	return s
}

// scaled returns a value function multiplying every latency by k.
func scaled(k float64) func(c, r int, key string) float64 {
	return func(c, r int, key string) float64 {
		v := baseValue(c, r, key)
		if m, ok := MetricByKey(key); ok && m.Unit == "ms" {
			return v * k
		}
		return v
	}
}

func withEnv(key, value string) map[string]string {
	env := map[string]string{}
	for k, v := range baseEnv {
		env[k] = v
	}
	env[key] = value
	return env
}

// coreHeadline is the number of headline statistics every sweep has
// (not Optional): the rows and findings of a sweep without GPU telemetry.
func coreHeadline() int {
	n := 0
	for _, m := range Headline {
		if !m.Optional {
			n++
		}
	}
	return n
}
