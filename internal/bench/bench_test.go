// Package bench measures benchnote on the generated sweep of
// internal/bench/sweepgen: 10,000,000 requests (5 concurrency levels × 5
// runs × 400,000 rows) with the eleven columns a streaming client writes,
// once as zstd Parquet and once as CSV. Nothing here asserts a time: run
//
//	go test ./internal/bench -run '^$' -bench . -benchtime 1x -timeout 60m
//
// and read rows/s and peak RSS from the output (docs/benchmarks.md). The
// sweeps are generated on first use under $BENCHNOTE_BENCH_DIR (default:
// the system temp dir), as benchnote-sweep-FORMAT-400000, the directories
// scripts/bench-vs-duckdb.sh uses, and reused by later runs.
package bench

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/bench/sweepgen"
	"github.com/benchnote/benchnote/report"
)

// sweepDir returns the generated 10M sweep of the given format, writing
// it if absent.
func sweepDir(b *testing.B, format string) (string, sweepgen.Config) {
	return sweepOf(b, sweepgen.Default10M(format))
}

// sweepOf returns the generated sweep of cfg, writing it if absent, under
// the name scripts/bench-vs-duckdb.sh gives it: benchnote-sweep-FORMAT-ROWS,
// with "-NNlevels" when it has other levels than the 10M sweep's.
func sweepOf(b *testing.B, cfg sweepgen.Config) (string, sweepgen.Config) {
	b.Helper()
	base := os.Getenv("BENCHNOTE_BENCH_DIR")
	if base == "" {
		base = os.TempDir()
	}
	name := "benchnote-sweep-" + cfg.Format + "-" + strconv.Itoa(cfg.Rows)
	if len(cfg.Levels) != len(sweepgen.Default10M(cfg.Format).Levels) {
		name += "-" + strconv.Itoa(len(cfg.Levels)) + "levels"
	}
	dir := filepath.Join(base, name)
	if _, err := sweepgen.Ensure(dir, cfg); err != nil {
		b.Fatal(err)
	}
	return dir, cfg
}

// resetPeakRSS resets the kernel's high-water mark of this process's
// resident memory, so peakRSS measures only what follows.
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident memory in MiB since the last reset.
func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return math.NaN()
}

// checkRows fails the benchmark unless every run was read whole.
func checkRows(b *testing.B, sw *ingest.Sweep, want int) {
	b.Helper()
	rows := 0
	for _, r := range sw.Runs {
		if r.Failed || r.Requests == nil {
			b.Fatalf("run %s failed: %v", r.Dir, r.Diagnostics)
		}
		rows += r.Requests.RowsRead
	}
	if rows != want {
		b.Fatalf("read %d rows, want %d", rows, want)
	}
}

// benchReport runs what `benchnote report` does: open the sweep, stream
// it through the analysis, render and write the report.
func benchReport(b *testing.B, format string) { benchReportOf(b, sweepgen.Default10M(format)) }

// benchReportOf is benchReport on the sweep of cfg.
func benchReportOf(b *testing.B, cfg sweepgen.Config) {
	dir, cfg := sweepOf(b, cfg)
	out := b.TempDir()
	resetPeakRSS()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sw, err := ingest.Open(dir, ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s := analyze.Analyze(sw)
		checkRows(b, sw, cfg.TotalRows())
		files, err := report.Build(s, report.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteDir(filepath.Join(out, "report"), files); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cfg.TotalRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}

// BenchmarkReportParquet10M is `benchnote report` on the 10M Parquet sweep.
func BenchmarkReportParquet10M(b *testing.B) { benchReport(b, "parquet") }

// BenchmarkReportCSV10M is `benchnote report` on the 10M CSV sweep.
func BenchmarkReportCSV10M(b *testing.B) { benchReport(b, "csv") }

// BenchmarkReportLongRuns20M is `benchnote report` on 20M Parquet requests
// as runs twice as long as the 10M sweep's (5 levels × 5 runs × 800,000):
// its peak RSS against BenchmarkReportParquet10M's is what a level's
// exact percentiles cost per request (docs/benchmarks.md, "Long runs").
func BenchmarkReportLongRuns20M(b *testing.B) {
	cfg := sweepgen.Default10M("parquet")
	cfg.Rows = 800_000
	benchReportOf(b, cfg)
}

// BenchmarkReportManyLevels20M is `benchnote report` on 20M Parquet
// requests as twice the levels of the 10M sweep (10 levels × 5 runs ×
// 400,000): its peak RSS should match BenchmarkReportParquet10M's.
func BenchmarkReportManyLevels20M(b *testing.B) {
	cfg := sweepgen.Default10M("parquet")
	cfg.Levels = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
	benchReportOf(b, cfg)
}

// benchLoad reads the whole sweep into memory (ingest.Load, as archive and
// import do), without analysing it.
func benchLoad(b *testing.B, format string) {
	dir, cfg := sweepDir(b, format)
	resetPeakRSS()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sw, err := ingest.Load(dir, ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		checkRows(b, sw, cfg.TotalRows())
	}
	b.StopTimer()
	b.ReportMetric(float64(cfg.TotalRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}

// BenchmarkLoadParquet10M reads the 10M Parquet sweep whole.
func BenchmarkLoadParquet10M(b *testing.B) { benchLoad(b, "parquet") }

// BenchmarkLoadCSV10M reads the 10M CSV sweep whole.
func BenchmarkLoadCSV10M(b *testing.B) { benchLoad(b, "csv") }

// BenchmarkAnalyze10M analyses the 10M Parquet sweep already in memory
// (ingest.Load once, outside the timer): the analysis alone.
func BenchmarkAnalyze10M(b *testing.B) {
	dir, cfg := sweepDir(b, "parquet")
	sw, err := ingest.Load(dir, ingest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	checkRows(b, sw, cfg.TotalRows())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		analyze.Analyze(sw)
	}
	b.StopTimer()
	b.ReportMetric(float64(cfg.TotalRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
