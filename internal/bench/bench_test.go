// Package bench measures benchnote on a generated sweep of 10,000,000
// requests (5 concurrency levels × 5 runs × 400,000 rows), once as Parquet
// and once as CSV. Nothing here asserts a time: run
//
//	go test ./internal/bench -run '^$' -bench . -benchtime 1x -timeout 60m
//
// and read rows/s and peak RSS from the output (docs/benchmarks.md). The
// sweeps are generated on first use under $BENCHNOTE_BENCH_DIR (default:
// the system temp dir) and reused by later runs.
package bench

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
)

const (
	levels      = 5
	runsPerLvl  = 5
	rowsPerRun  = 400_000
	totalRows   = levels * runsPerLvl * rowsPerRun
	rowGroupLen = 100_000
)

// sweepDir returns the generated sweep of the given format, writing it if absent.
func sweepDir(b *testing.B, format string) string {
	b.Helper()
	base := os.Getenv("BENCHNOTE_BENCH_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "benchnote-10M-"+format)
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return dir
	}
	b.Logf("generating %s (first run only)", dir)
	os.RemoveAll(dir)
	for l := 0; l < levels; l++ {
		conc := 1 << (2 * l) // 1, 4, 16, 64, 256
		for r := 1; r <= runsPerLvl; r++ {
			run := filepath.Join(dir, fmt.Sprintf("c%d", conc), fmt.Sprintf("run-%d", r))
			if err := os.MkdirAll(run, 0o755); err != nil {
				b.Fatal(err)
			}
			seed := uint64(l*runsPerLvl + r)
			var err error
			if format == "parquet" {
				err = writeParquet(filepath.Join(run, "requests.parquet"), seed, conc)
			} else {
				err = writeCSV(filepath.Join(run, "requests.csv"), seed, conc)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// row returns generated request i of a run: a queueing-flavoured latency
// that grows with concurrency, with a few 0- and 1-token outputs.
func row(seed uint64, conc, i int) (id string, prompt, completion int64, ttft, e2e float64) {
	x := (uint64(i)+seed<<32)*0x9E3779B97F4A7C15 + seed
	x ^= x >> 29
	prompt = int64(64 + x%1900)
	completion = int64((x >> 12) % 300)
	ttft = 40 + 3*float64(conc) + float64((x>>24)%1000)/10
	tpot := 15 + 0.05*float64(conc) + float64((x>>40)%100)/20
	e2e = ttft
	if completion > 1 {
		e2e += float64(completion-1) * tpot
	}
	return "r" + strconv.Itoa(i), prompt, completion, math.Round(ttft*1000) / 1000, math.Round(e2e*1000) / 1000
}

func writeCSV(path string, seed uint64, conc int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n")
	for i := 0; i < rowsPerRun; i++ {
		id, p, c, t, e := row(seed, conc, i)
		fmt.Fprintf(w, "%s,%d,%d,%s,%s\n", id, p, c, strconv.FormatFloat(t, 'f', 3, 64), strconv.FormatFloat(e, 'f', 3, 64))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func writeParquet(path string, seed uint64, conc int) error {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(rowGroupLen))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	for start := 0; start < rowsPerRun; start += rowGroupLen {
		for i := start; i < start+rowGroupLen; i++ {
			id, p, c, t, e := row(seed, conc, i)
			bld.Field(0).(*array.StringBuilder).Append(id)
			bld.Field(1).(*array.Int64Builder).Append(p)
			bld.Field(2).(*array.Int64Builder).Append(c)
			bld.Field(3).(*array.Float64Builder).Append(t)
			bld.Field(4).(*array.Float64Builder).Append(e)
		}
		rec := bld.NewRecord()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return w.Close()
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

// columnsMiB is the size of the five columns held for the whole sweep:
// request_id (bytes + a 4-byte offset), four 8-byte numbers and the 4-byte
// source row.
func columnsMiB(sw *ingest.Sweep) float64 {
	var bytes int
	for _, r := range sw.Runs {
		if r.Requests == nil {
			continue
		}
		q := r.Requests.Requests
		for i := range q.N {
			bytes += len(q.IDs.At(i)) + 4 // id bytes and offset
		}
		bytes += q.N * (4*8 + 4)
	}
	return float64(bytes) / (1 << 20)
}

func load(b *testing.B, dir string) *ingest.Sweep {
	sw, err := ingest.Load(dir, ingest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rows := 0
	for _, r := range sw.Runs {
		if r.Failed {
			b.Fatalf("run %s failed: %v", r.Dir, r.Diagnostics)
		}
		rows += r.Requests.Requests.N
	}
	if rows != totalRows {
		b.Fatalf("read %d rows, want %d", rows, totalRows)
	}
	return sw
}

func benchIngest(b *testing.B, format string) {
	dir := sweepDir(b, format)
	resetPeakRSS()
	b.ResetTimer()
	var sw *ingest.Sweep
	for i := 0; i < b.N; i++ {
		sw = load(b, dir)
	}
	b.StopTimer()
	b.ReportMetric(float64(totalRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
	b.ReportMetric(columnsMiB(sw), "columns-MiB")
}

// BenchmarkIngestParquet10M reads the 10M-request Parquet sweep.
func BenchmarkIngestParquet10M(b *testing.B) { benchIngest(b, "parquet") }

// BenchmarkIngestCSV10M reads the 10M-request CSV sweep.
func BenchmarkIngestCSV10M(b *testing.B) { benchIngest(b, "csv") }

// BenchmarkAnalyze10M analyses the 10M-request sweep (ingest excluded).
func BenchmarkAnalyze10M(b *testing.B) {
	sw := load(b, sweepDir(b, "parquet"))
	resetPeakRSS()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		analyze.Analyze(sw)
	}
	b.StopTimer()
	b.ReportMetric(float64(totalRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}

// BenchmarkReport10M runs the whole pipeline of `benchnote report`:
// ingest, analyze, render and write.
func BenchmarkReport10M(b *testing.B) {
	dir := sweepDir(b, "parquet")
	out := b.TempDir()
	resetPeakRSS()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := analyze.Analyze(load(b, dir))
		files, err := report.Build(s, report.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteDir(filepath.Join(out, "report"), files); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}
