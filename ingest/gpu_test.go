package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gpuDir writes files into a run directory and reads its GPU telemetry.
func gpuDir(t *testing.T, files map[string]string) (*GPUTelemetry, []Diagnostic) {
	t.Helper()
	root := t.TempDir()
	var names []string
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	sortStrings(names)
	return readGPUTelemetry(root, ".", names)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestGPUNative(t *testing.T) {
	tel, diags := gpuDir(t, map[string]string{"gpu.csv": "" +
		"timestamp,gpu_uuid,gpu_index,gpu_name,power_w,energy_j,util_percent,memory_used_mib,memory_total_mib,temperature_c,extra\n" +
		"2025-01-15T06:27:34Z,GPU-a,0,A100,100,1000,50,2048,81920,40,x\n" +
		"2025-01-15T06:27:34Z,GPU-b,1,A100,200,,60,,,41,x\n" +
		"1736922455.5,GPU-a,0,A100,abc,1100,50,2048,81920,40,x\n" +
		"2025-01-15T06:27:35Z,GPU-a,0,A100,110,1100,101,2048,81920,40,x\n" +
		"2025-01-15T06:27:36Z,,,A100,110,1100,50,2048,81920,40,x\n" +
		"2025-01-15T06:27:36Z,GPU-a,0,A100,120,1220,55,4096,81920,42,x\n" +
		"2025-01-15T06:27:37Z,GPU-a,0,A100,120,1220,55,4096,81920,42,x,y\n"})
	if tel == nil {
		t.Fatalf("no telemetry; diagnostics %v", diags)
	}
	f := tel.Files[0]
	if f.Format != GPUFormatNative || f.Rows != 7 || f.Used != 3 || strings.Join(f.UnusedColumns, ",") != "extra" {
		t.Fatalf("file = %+v", f)
	}
	wantExcl := []ReasonCount{{"non-numeric", 1}, {"out of range", 1}, {"no GPU key", 1}, {"wrong number of fields", 1}}
	if len(f.Excluded) != len(wantExcl) {
		t.Fatalf("excluded = %v, want %v", f.Excluded, wantExcl)
	}
	for i, w := range wantExcl {
		if f.Excluded[i] != w {
			t.Errorf("excluded[%d] = %v, want %v", i, f.Excluded[i], w)
		}
	}
	// The non-numeric power is on line 4, column 5.
	var found bool
	for _, d := range diags {
		if d.Reason == "non-numeric" {
			found = true
			if d.Line != 4 || d.Column != 5 || d.ColumnName != "power_w" || !strings.Contains(d.Message, `"abc"`) {
				t.Errorf("non-numeric diagnostic = %+v", d)
			}
		}
	}
	if !found {
		t.Errorf("no non-numeric diagnostic in %v", diags)
	}
	if len(tel.GPUs) != 2 {
		t.Fatalf("GPUs = %d, want 2", len(tel.GPUs))
	}
	a, b := tel.GPUs[0], tel.GPUs[1]
	if a.Key != "GPU-a" || a.Index != 0 || a.Name != "A100" || a.MemoryTotalMiB != 81920 || len(a.Samples) != 2 {
		t.Fatalf("GPU a = %+v", a)
	}
	t0 := float64(time.Date(2025, 1, 15, 6, 27, 34, 0, time.UTC).Unix())
	if s := a.Samples[1]; s.Time != t0+2 || s.PowerW != 120 || s.EnergyJ != 1220 || s.UtilPercent != 55 || s.MemoryUsedMiB != 4096 || s.TemperatureC != 42 {
		t.Errorf("GPU a's second sample = %+v", s)
	}
	if s := b.Samples[0]; s.PowerW != 200 || !math.IsNaN(s.EnergyJ) || !math.IsNaN(s.MemoryUsedMiB) || !math.IsNaN(b.MemoryTotalMiB) {
		t.Errorf("GPU b's sample = %+v (not recorded must be NaN)", s)
	}
	if tel.Unplaced != "" {
		t.Errorf("Unplaced = %q", tel.Unplaced)
	}
}

func TestGPUNvidiaSMIQuery(t *testing.T) {
	for _, tc := range []struct {
		name, body string
	}{
		{"units", "timestamp, index, uuid, name, power.draw [W], utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu\n" +
			"2025/01/15 06:27:34.166, 0, GPU-x, NVIDIA H100 80GB HBM3, 250.50 W, 41 %, 1024 MiB, 81559 MiB, 40\n" +
			"2025/01/15 06:27:35.166, 0, GPU-x, NVIDIA H100 80GB HBM3, [N/A], 42 %, 1024 MiB, 81559 MiB, 40\n"},
		{"nounits", "timestamp, index, uuid, name, power.draw [W], utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu\n" +
			"2025/01/15 06:27:34.166, 0, GPU-x, NVIDIA H100 80GB HBM3, 250.50, 41, 1024, 81559, 40\n" +
			"2025/01/15 06:27:35.166, 0, GPU-x, NVIDIA H100 80GB HBM3, [N/A], 42, 1024, 81559, 40\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tel, diags := gpuDir(t, map[string]string{"gpu-node1.csv": tc.body})
			if tel == nil || len(tel.GPUs) != 1 {
				t.Fatalf("telemetry %+v, diagnostics %v", tel, diags)
			}
			f := tel.Files[0]
			if f.Format != GPUFormatNvidiaQuery || f.Rows != 2 || f.Used != 2 || f.Relative {
				t.Fatalf("file = %+v", f)
			}
			g := tel.GPUs[0]
			want := float64(time.Date(2025, 1, 15, 6, 27, 34, 0, time.UTC).Unix()) + 0.166
			s := g.Samples[0]
			if math.Abs(s.Time-want) > 1e-6 || s.PowerW != 250.5 || s.UtilPercent != 41 || s.MemoryUsedMiB != 1024 || s.TemperatureC != 40 {
				t.Errorf("sample = %+v, time want %v", s, want)
			}
			if g.Key != "GPU-x" || g.Index != 0 || g.Name != "NVIDIA H100 80GB HBM3" || g.MemoryTotalMiB != 81559 {
				t.Errorf("GPU = %+v", g)
			}
			if !math.IsNaN(g.Samples[1].PowerW) {
				t.Errorf("[N/A] power = %v, want NaN", g.Samples[1].PowerW)
			}
			if len(tel.Notes) != 1 || !strings.Contains(tel.Notes[0], "read as UTC") {
				t.Errorf("notes = %q", tel.Notes)
			}
		})
	}
}

// The shared real files: a dmon CSV with a units row and a --query-gpu
// CSV prefixed with a relative "time [s]" column (vLLMBatchingMemoryGap,
// Apache-2.0; ingest/testdata/envlogs/README.md).
func TestGPURealRelative(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		rows         int
		key          string
		firstPower   float64
		firstMem     float64
		lastTime     float64
	}{
		{"bsc-nvidia-smi-dmon-timeseries-llama-2-13b.csv", GPUFormatNvidiaDmon, 134, "/0", 109, math.NaN(), 133.8592280521989},
		{"bsc-nvidia-smi-query-gpu-timeseries-llama-2-13b.csv", GPUFormatNvidiaQuery, 134, "GPU-31785635-835f-8ea5-0dc3-adb14fd7195f", math.NaN(), 59648, 0},
	} {
		t.Run(tc.format, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "envlogs", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tel, diags := gpuDir(t, map[string]string{"gpu.csv": string(data)})
			if tel == nil {
				t.Fatalf("diagnostics %v", diags)
			}
			f := tel.Files[0]
			if f.Format != tc.format || f.Rows != tc.rows || f.Used != tc.rows || !f.Relative {
				t.Fatalf("file = %+v", f)
			}
			if !strings.Contains(tel.Unplaced, "not wall-clock times") {
				t.Errorf("Unplaced = %q", tel.Unplaced)
			}
			if len(tel.GPUs) != 1 || tel.GPUs[0].Key != tc.key || len(tel.GPUs[0].Samples) != tc.rows {
				t.Fatalf("GPUs = %+v", tel.GPUs)
			}
			s := tel.GPUs[0].Samples[0]
			if s.Time != 0.15138310752809048 || !sameNum(s.PowerW, tc.firstPower) || !sameNum(s.MemoryUsedMiB, tc.firstMem) {
				t.Errorf("first sample = %+v", s)
			}
			if tc.lastTime > 0 && tel.GPUs[0].Samples[tc.rows-1].Time != tc.lastTime {
				t.Errorf("last time = %v", tel.GPUs[0].Samples[tc.rows-1].Time)
			}
		})
	}
}

func sameNum(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// One GPU reported by two hosts (two DCGM endpoints) is one GPU; its
// sample at a time already seen is counted, not used twice.
func TestGPUUUIDUnderTwoHosts(t *testing.T) {
	tel, _ := gpuDir(t, map[string]string{
		"gpu.csv": "timestamp,host,gpu_uuid,gpu_index,power_w\n" +
			"100,localhost:9400,GPU-a,0,100\n101,localhost:9400,GPU-a,0,110\n",
		"gpu-b.csv": "timestamp,host,gpu_uuid,gpu_index,power_w\n" +
			"100,localhost:9401,GPU-a,0,100\n102,localhost:9401,GPU-a,0,120\n" +
			"100,node2,,3,50\n",
	})
	if len(tel.GPUs) != 2 || tel.DuplicateSamples != 1 {
		t.Fatalf("GPUs %d, duplicates %d; want 2 and 1", len(tel.GPUs), tel.DuplicateSamples)
	}
	a := tel.GPUs[0]
	if a.Key != "GPU-a" || len(a.Samples) != 3 || strings.Join(a.Hosts, " ") != "localhost:9400 localhost:9401" {
		t.Errorf("GPU-a = %+v", a)
	}
	if tel.GPUs[1].Key != "node2/3" {
		t.Errorf("second GPU key = %q", tel.GPUs[1].Key)
	}
}

func TestGPUFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body     string
		line, col      int
		reason, substr string
	}{
		{"empty", "", 0, 0, "empty file", "expected a header row"},
		{"unrecognised", "a,b,c\n1,2,3\n", 1, 0, "unrecognised header", "not GPU telemetry"},
		{"no key", "timestamp,power_w\n1,2\n", 1, 0, "missing column", "uuid or index"},
		{"no time", "gpu_uuid,power_w\nGPU-a,2\n", 1, 0, "missing column", "timestamp"},
		{"duplicate column", "timestamp,gpu_uuid,power_w,power_w\n1,a,2,3\n", 1, 4, "duplicate column", "as column 3 does"},
		{"bad header unit", "timestamp, uuid, power.draw [mW]\n", 1, 3, "bad unit", "expected [W]"},
		{"line too long", "timestamp,gpu_uuid,power_w\n1,GPU-" + strings.Repeat("a", MaxGPULineBytes) + ",1\n", 2, 0, "too large", "longer than the limit"},
		{"dmon units", "time,gpu,pwr\ns,Idx,kW\n0.1,0,1\n", 2, 0, "bad units", `"kW", expected "W"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tel, diags := gpuDir(t, map[string]string{"gpu.csv": tc.body})
			if tel == nil || len(tel.Files) != 0 || len(tel.GPUs) != 0 || len(tel.Unread) != 1 || tel.Unread[0].Path != "gpu.csv" {
				t.Fatalf("telemetry %+v, want gpu.csv unread", tel)
			}
			if len(diags) != 1 {
				t.Fatalf("diagnostics = %v", diags)
			}
			d := diags[0]
			if d.Severity != Warning || d.File != "gpu.csv" || d.Line != tc.line || d.Column != tc.col || d.Reason != tc.reason || !strings.Contains(d.Message, tc.substr) {
				t.Errorf("diagnostic = %+v", d)
			}
		})
	}
}

func TestGPURowUnits(t *testing.T) {
	tel, diags := gpuDir(t, map[string]string{"gpu.csv": "timestamp, uuid, power.draw [W], memory.used [MiB]\n" +
		"2025/01/15 06:27:34.166, GPU-a, 250 mW, 1 MiB\n" +
		"2025/01/15 06:27:35.166, GPU-a, [Not Supported], 2 MiB\n" +
		"15/01/2025 06:27:36, GPU-a, 1 W, 2 MiB\n"})
	f := tel.Files[0]
	if f.Rows != 3 || f.Used != 1 || len(f.Excluded) != 2 || f.Excluded[0].Reason != "bad unit" || f.Excluded[1].Reason != "bad timestamp" {
		t.Fatalf("file = %+v; diagnostics %v", f, diags)
	}
	if d := diags[0]; d.Line != 2 || d.Column != 3 || !strings.Contains(d.Message, `unit "mW", expected "W"`) {
		t.Errorf("diagnostic = %+v", d)
	}
}

// FuzzReadGPUFile: whatever a GPU file holds, reading it stays within the
// budget, every row is either used or counted, and every kept sample is
// finite where recorded and within its range, sorted, of a keyed GPU.
func FuzzReadGPUFile(f *testing.F) {
	for _, name := range []string{"bsc-nvidia-smi-dmon-timeseries-llama-2-13b.csv", "bsc-nvidia-smi-query-gpu-timeseries-llama-2-13b.csv"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "envlogs", name)); err == nil {
			f.Add(data[:min(len(data), 4<<10)])
		}
	}
	for _, s := range []string{
		"timestamp,gpu_uuid,gpu_index,power_w,energy_j,util_percent,memory_used_mib\n1700000000,GPU-a,0,100,5,50,1024\n1700000001,GPU-a,0,110,,,\n",
		"timestamp, index, uuid, power.draw [W], utilization.gpu [%]\n2025/01/15 06:27:34.166, 0, GPU-x, 250.50 W, 41 %\n",
		"time,gpu,pwr,sm,fb\ns,Idx,W,%,MB\n0.1,0,100,50,1000\n",
		"timestamp,host,gpu_index,power_w\n\"1\n2\",h,0,1\n",
		"\ufefftimestamp,gpu_uuid,power_w\n1e999,a,1\nNaN,a,2\n1,a,-1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			gf   GPUFile
			recs []gpuRecord
			err  error
		)
		withinBudget(t, "readGPUFile", len(data), func() { gf, recs, _, err = readGPUFile(bytes.NewReader(data), "gpu.csv") })
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != "gpu.csv" {
				t.Fatalf("error %v is not a FileError naming the file", err)
			}
			return
		}
		excluded := 0
		for _, e := range gf.Excluded {
			excluded += e.Rows
		}
		if gf.Used != len(recs) || gf.Used+excluded != gf.Rows {
			t.Fatalf("rows %d = used %d + excluded %d? records %d", gf.Rows, gf.Used, excluded, len(recs))
		}
		tel := &GPUTelemetry{}
		if msg := mergeGPURecords(tel, recs); msg != "" {
			return
		}
		n := 0
		for _, g := range tel.GPUs {
			if g.Key == "" {
				t.Fatal("a GPU without a key")
			}
			for i, s := range g.Samples {
				n++
				if math.IsNaN(s.Time) || i > 0 && s.Time <= g.Samples[i-1].Time {
					t.Fatalf("GPU %s: sample %d at %v, not after the previous", g.Key, i, s.Time)
				}
				for _, v := range []float64{s.PowerW, s.EnergyJ, s.UtilPercent, s.MemoryUsedMiB} {
					if math.IsInf(v, 0) || v < 0 {
						t.Fatalf("GPU %s: sample %+v out of range", g.Key, s)
					}
				}
			}
		}
		if n+tel.DuplicateSamples != len(recs) {
			t.Fatalf("%d samples + %d duplicates != %d records", n, tel.DuplicateSamples, len(recs))
		}
	})
}

// A GPU file of one endless line, or of a million rows, costs no more
// than the limits allow: the line is refused at MaxGPULineBytes.
func TestGPUHostileLongLine(t *testing.T) {
	r := io.MultiReader(strings.NewReader("timestamp,gpu_uuid,power_w\n1,GPU-"), hostileRepeat('a'))
	_, _, _, err := readGPUFile(r, "gpu.csv")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Reason != "too large" || fe.Line != 2 {
		t.Fatalf("error %v, want a too-large error on line 2", err)
	}
}

// hostileRepeat is an endless stream of one byte.
type hostileRepeat byte

func (b hostileRepeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// More distinct GPUs (UUIDs, hosts and names) than a run may hold stop
// the file at the row that passes the limit.
func TestGPUTooManyDistinct(t *testing.T) {
	var b strings.Builder
	b.WriteString("timestamp,gpu_uuid,power_w\n")
	for i := range 3*MaxGPUsPerRun + 1 {
		fmt.Fprintf(&b, "1,GPU-%d,1\n", i)
	}
	_, _, _, err := readGPUFile(strings.NewReader(b.String()), "gpu.csv")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Reason != "too large" || fe.Line != 3*MaxGPUsPerRun+2 {
		t.Fatalf("error %v, want too large on line %d", err, 3*MaxGPUsPerRun+2)
	}
}
