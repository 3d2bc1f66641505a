package ingest

import (
	"bytes"
	"testing"

	"github.com/benchnote/benchnote/internal/hostile"
)

// BenchmarkHostileInputs reads each small input of issue 7 that used to
// cost gigabytes (the figures in docs/benchmarks.md), in the reader that
// meets it. Each must now cost milliseconds and kilobytes; B/op is the
// memory allocated per read. scripts/hostile-rss.sh measures the whole
// command (validate, report) with its peak RSS.
func BenchmarkHostileInputs(b *testing.B) {
	b.Run("openmetrics-4KB-label", func(b *testing.B) {
		data := hostile.OpenMetricsLongLabel(4000)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseScrape(bytes.NewReader(data), "m.prom", DefaultMetricNames(), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parquet-bomb", func(b *testing.B) {
		data := hostile.Bomb()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReadRequestsParquet(bytes.NewReader(data), "r.parquet"); err == nil {
				b.Fatal("the bomb was read")
			}
		}
	})
	b.Run("csv-1GB-line", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReadRequestsCSV(hostile.CSVLongLine(1<<30), "r.csv"); err == nil {
				b.Fatal("the line was read")
			}
		}
	})
	b.Run("sweep-yaml-alias-bomb", func(b *testing.B) {
		data := hostile.YAMLAliasBomb(9)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ParseSweepConfig(data, "sweep.yaml"); err == nil {
				b.Fatal("the bomb was read")
			}
		}
	})
	b.Run("env-yaml-alias-bomb", func(b *testing.B) {
		data := hostile.YAMLAliasBomb(9)
		b.ReportAllocs()
		for b.Loop() {
			ParseEnvFile(data, "env.yaml")
		}
	})
}
