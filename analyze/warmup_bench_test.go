package analyze

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// benchRun is a 400,000-request run (the size of one run of the 10M
// benchmark sweep in internal/bench): log-normal TTFT and TPOT with a
// 40-request warm-up, 1 % failed requests and a few one-token outputs.
func benchRun() *ingest.Run {
	const n = 400_000
	r := rand.New(rand.NewPCG(3, 5))
	q := &ingest.Requests{N: n}
	q.Status = &ingest.StatusColumn{}
	for i := 0; i < n; i++ {
		slow := 1.0
		if i < 40 {
			slow = 3
		}
		ttft := slow * 80 * math.Exp(0.4*r.NormFloat64())
		tpot := slow * 20 * math.Exp(0.2*r.NormFloat64())
		tokens := int64(2 + r.IntN(300))
		if i%97 == 0 {
			tokens = 1
		}
		q.SourceRow = append(q.SourceRow, int32(i+2))
		q.IDs.Append("r")
		q.PromptTokens = append(q.PromptTokens, 500)
		q.CompletionTokens = append(q.CompletionTokens, tokens)
		q.TTFTms = append(q.TTFTms, ttft)
		q.E2Ems = append(q.E2Ems, ttft+float64(tokens-1)*tpot)
		status := ""
		if i%101 == 0 {
			status = "HTTP 503"
		}
		q.Status.Append(status)
	}
	return &ingest.Run{Dir: "c1/r1", Concurrency: 1, Repeat: 1,
		Requests: &ingest.RequestFile{Path: "c1/r1/requests.csv", Format: "csv", RowsRead: n, Requests: q},
		Window:   ingest.Window{Source: "unknown"}}
}

var benchModes = []ingest.WarmupConfig{
	{Mode: ingest.WarmupChangePoint, Alpha: 0.01},
	{Mode: ingest.WarmupMSER5},
	{Mode: ingest.WarmupStabilisation, Window: 10, Tolerance: 0.02, Consecutive: 3},
	{Mode: ingest.WarmupNone},
}

// processCPU is the CPU time this process has used (user + system). On a
// shared machine wall time depends on the neighbours; CPU time much less.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ms/op, the process CPU time per iteration since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkWarmup400k times the warm-up rule alone on a 400,000-request
// run: series in send order, the rule on TTFT and TPOT, and the trace.
//
//	GOMAXPROCS=1 go test ./analyze -run '^$' -bench 'Warmup400k|AnalyzeRun400k' -benchmem
//
// cpu-ms/op is the process CPU time per run (garbage collection included),
// the figure to compare on a shared machine.
func BenchmarkWarmup400k(b *testing.B) {
	run := benchRun()
	req := run.Requests.Requests
	order, basis := sendOrder(req)
	classes := classifyAll(req)
	for _, wc := range benchModes {
		b.Run(wc.Mode, func(b *testing.B) {
			start := processCPU()
			for i := 0; i < b.N; i++ {
				warmup(req, order, basis, classes, wc, run.Window)
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkAnalyzeRun400k times the whole analysis of the same run with
// each warm-up rule; the difference to "none" is what the rule costs.
func BenchmarkAnalyzeRun400k(b *testing.B) {
	run := benchRun()
	for _, wc := range benchModes {
		cfg := ingest.DefaultConfig()
		cfg.Warmup = wc
		b.Run(wc.Mode, func(b *testing.B) {
			start := processCPU()
			for i := 0; i < b.N; i++ {
				analyzeRun(runInput{run: run, cfg: cfg, led: newLedger()})
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkWarmupShare400k analyses the 400,000-request run with
// warmup: none and with the default rule, alternately in one loop so
// that both see the same load on a shared machine, and reports the CPU
// time of each and the default rule's share of the analysis with it.
func BenchmarkWarmupShare400k(b *testing.B) {
	run := benchRun()
	none, def := ingest.DefaultConfig(), ingest.DefaultConfig()
	none.Warmup.Mode = ingest.WarmupNone
	var tNone, tDef time.Duration
	for i := 0; i < b.N; i++ {
		start := processCPU()
		analyzeRun(runInput{run: run, cfg: none, led: newLedger()})
		mid := processCPU()
		analyzeRun(runInput{run: run, cfg: def, led: newLedger()})
		tNone, tDef = tNone+mid-start, tDef+processCPU()-mid
	}
	b.ReportMetric(float64(tNone)/1e6/float64(b.N), "none-cpu-ms/op")
	b.ReportMetric(float64(tDef)/1e6/float64(b.N), "changepoint-cpu-ms/op")
	b.ReportMetric(100*float64(tDef-tNone)/float64(tDef), "rule-%")
}
