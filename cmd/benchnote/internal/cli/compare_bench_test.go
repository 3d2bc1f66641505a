package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
)

// sweepSummary is the summary of a sweep of levels × runs shaped like
// the 10M-request benchmark sweep (internal/bench: 5 levels × 5 runs of
// 400,000 requests): a summary grows with runs, not requests, and the
// largest per-run part is the warm-up trace, here at its cap of 2,000
// points. Latencies are multiplied by slower.
func sweepSummary(tb testing.TB, levels, runs int, slower float64) *analyze.Summary {
	return syntheticSummary(tb, levels, runs, true, func(l, r int, st analyze.AcrossRuns) float64 {
		v := 1 + 0.02*float64((r*7+l)%5-2)/2
		if st.Unit == "ms" {
			v *= slower
		}
		return v
	})
}

// BenchmarkCompareSummaries runs `benchnote compare BASE NEW -o OUT` on two
// summary.json files, end to end (decode, compare, render, write). Run:
//
//	go test ./cmd/benchnote/internal/cli -run '^$' -bench CompareSummaries -benchtime 5x
func BenchmarkCompareSummaries(b *testing.B) {
	for _, size := range []struct{ levels, runs int }{{5, 5}, {10, 10}} {
		b.Run(fmt.Sprintf("%dlevels-%druns", size.levels, size.runs), func(b *testing.B) {
			dir := b.TempDir()
			base := writeSummary(b, dir, "base", sweepSummary(b, size.levels, size.runs, 1))
			nw := writeSummary(b, dir, "new", sweepSummary(b, size.levels, size.runs, 1.3))
			info, _ := os.Stat(base)
			out := filepath.Join(dir, "out")
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				if code := Run([]string{"compare", base, nw, "-o", out}, &stdout, &stderr); code != 1 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(info.Size())/(1<<20), "summary-MB")
		})
	}
}

// cpuTime is the user and system CPU time the process has used: on a
// shared machine it says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
