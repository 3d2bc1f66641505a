package history_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
	"github.com/benchnote/benchnote/history/render"
	"github.com/benchnote/benchnote/report"
)

// benchEntries is the size of the generated archive.
const benchEntries = 1000

// writeArchive writes an archive of n entries in the documented layout
// (archive.json, ID/entry.json, ID/stats.parquet), one a day, 3 levels ×
// 3 runs each, every headline statistic noisy by about ±2 %, latencies 20 %
// higher from entry 600, and a driver change at entry 800. Inputs are left
// out and summary.json is "{}": history reads neither, and the archive's
// check asks only that summary.json be there.
func writeArchive(tb testing.TB, dir string, n int) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, archive.MarkerFile), []byte(`{"schema":"`+archive.Schema+`"}`), 0o644)
	t0 := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		driver := "580.119.02"
		if i >= 800 {
			driver = "590.10"
		}
		s := &analyze.Summary{Schema: analyze.SchemaVersion, Title: "bench",
			Method:      analyze.Method{Percentile: "nearest-rank", MAD: "raw", Warmup: "none", WarmupRule: "none"},
			Environment: analyze.EnvironmentSummary{Canonical: []analyze.EnvField{{Key: "gpu", Value: "NVIDIA L40S"}, {Key: "driver", Value: driver}, {Key: "model", Value: "m"}}}}
		for _, c := range []int{1, 4, 16} {
			l := analyze.Level{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: c}}
			for r := 1; r <= 3; r++ {
				dir := fmt.Sprintf("c%d/run-%d", c, r)
				l.Runs = append(l.Runs, dir)
				s.Runs = append(s.Runs, analyze.RunSummary{Dir: dir, LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: c}, Repeat: r, Counts: analyze.Counts{Measured: 1000, Errors: (i + r) % 3}})
			}
			for _, m := range compare.Headline {
				if m.Key == compare.ErrorRateKey {
					continue
				}
				ar := analyze.AcrossRuns{Key: m.Key, Unit: m.Unit}
				var vals []float64
				for r := 0; r < 3; r++ {
					v := float64(10*c) * (1 + 0.02*float64((i*7+r*13+c)%5-2)/2)
					if m.Unit == "%" {
						// A share (goodput) stays within 0..100 %.
						v = 90 * (1 + 0.02*float64((i*7+r*13+c)%5-2)/2)
					}
					if m.Unit == "ms" && i >= 600 {
						v *= 1.2
					}
					ar.PerRun = append(ar.PerRun, analyze.Num(v))
					vals = append(vals, v)
				}
				ar.Runs, ar.Median, ar.MAD = 3, analyze.Num(analyze.Median(vals)), analyze.Num(analyze.MAD(vals, false))
				l.Stats = append(l.Stats, ar)
			}
			s.Levels = append(s.Levels, l)
		}
		p := compare.ProfileOf(s)
		id := fmt.Sprintf("%016x", 0xbe00000000+i)
		// No inputs: the input hash is that of an empty manifest, so the
		// archive's check finds the entry as it was added.
		e := archive.Entry{Schema: archive.EntrySchema, ID: id, InputHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Time: t0.Add(time.Duration(i) * 24 * time.Hour).Format(time.RFC3339Nano),
			TimeSource: archive.TimeFromFlag, Label: fmt.Sprintf("rev-%d", i), BenchnoteVersion: report.Version, SummarySchema: s.Schema,
			Title: s.Title, Fingerprint: p.Fingerprint(), Profile: p}
		for _, l := range s.Levels {
			e.Levels = append(e.Levels, archive.EntryLevel{Level: compare.LevelOf(l), Label: compare.LevelOf(l).Label(), Runs: 3})
		}
		ed := filepath.Join(dir, id)
		os.MkdirAll(ed, 0o755)
		var buf bytes.Buffer
		if err := archive.WriteStats(&buf, e, s); err != nil {
			tb.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		e.Stats = archive.InputFile{Path: archive.StatsFile, Bytes: int64(buf.Len()), SHA256: hex.EncodeToString(sum[:])}
		js, _ := json.Marshal(e)
		os.WriteFile(filepath.Join(ed, archive.EntryFile), js, 0o644)
		os.WriteFile(filepath.Join(ed, archive.StatsFile), buf.Bytes(), 0o644)
		os.WriteFile(filepath.Join(ed, archive.SummaryFile), []byte("{}\n"), 0o644)
	}
}

// BenchmarkHistory1000 runs history (load, analyse, render, write) over an
// archive of 1,000 entries. It reports the peak heap in use as peak-MB;
// measure the process's peak RSS with /usr/bin/time -v (docs/benchmarks.md).
func BenchmarkHistory1000(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "archive")
	writeArchive(b, dir, benchEntries)
	out := filepath.Join(b.TempDir(), "out")
	runtime.GC()
	cpu0 := cpuTime()
	b.ResetTimer()
	var changes int
	var size int
	for b.Loop() {
		a, err := archive.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		in, err := history.Load(a)
		if err != nil {
			b.Fatal(err)
		}
		h := history.Build(in, history.DefaultOptions())
		files, err := render.Build(h, "archive")
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteDir(out, files); err != nil {
			b.Fatal(err)
		}
		changes = len(h.Changes)
		size = len(files[render.HTMLFile])
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MB")
	b.ReportMetric(float64(size)/(1<<20), "html-MB")
	b.ReportMetric(float64(changes), "changes")
}

// cpuTime is the user and system CPU time the process has used: on a
// shared machine it says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
