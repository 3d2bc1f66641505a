package ingest

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// BenchmarkReadGPUFile reads an hour of telemetry of 8 GPUs sampled every
// second (28,800 rows, about 4 MB) in benchnote's gpu.csv format.
func BenchmarkReadGPUFile(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("timestamp,host,gpu_uuid,gpu_index,gpu_name,power_w,energy_j,util_percent,memory_used_mib,memory_total_mib,temperature_c\n")
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for s := range 3600 {
		ts := start.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano)
		for g := range 8 {
			fmt.Fprintf(&buf, "%s,node-1,GPU-%08d-0000-4000-8000-000000000000,%d,NVIDIA H100 80GB HBM3,%g,%g,%d,%d,81559,%d\n",
				ts, g, g, 300+float64(s%50), 1e7+float64(s)*300, s%100, 40000+s%1000, 50+s%20)
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, recs, diags, err := readGPUFile(bytes.NewReader(data), "c1/run-1/gpu.csv")
		if err != nil || len(recs) != 28800 || len(diags) != 0 {
			b.Fatalf("%d records, %d diagnostics, %v", len(recs), len(diags), err)
		}
	}
}
