//go:build linux

package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/internal/outdir"
)

// Hostile numbers (issue 20): values at the edge of float64 in a sweep, a
// summary.json or an archive, bad float flags, and summary.json files too
// large to read, each refused or handled within hostileTime and
// hostileRSS (see runBounded).

// logBounded records what a bounded run cost, for the figures.
func logBounded(t *testing.T, b bounded) {
	t.Helper()
	t.Logf("exit %d, %v, peak RSS %d MB", b.code, b.wall.Round(1e6), b.peakRSS>>20)
}

// TestHostileReportNumbers: a report on a sweep with an E2E of 1.797e308
// ms excludes that row at read time as out of range, lists it, and writes
// a summary.json that compare reads;
// a sweep with latencies from a subnormal to 10^10 ms, both in range,
// gets charts whose axes span hundreds of decades.
func TestHostileReportNumbers(t *testing.T) {
	tests := []struct {
		name, row, want string
	}{
		{"an E2E of 1.797e308 ms", "d,10,5,120,1.797e308,ok", `"reason": "bad row: out of range"`},
		{"latencies from 5e-324 to 1e10 ms", "d,10,5,5e-324,1e10,ok", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			sweep := tinySweep(t, root, map[string]string{"c2/run-1/requests.csv": tinyCSV + tt.row + "\n"})
			out := filepath.Join(root, "out")
			b := runBounded(t, "", nil, "report", sweep, "-o", out)
			logBounded(t, b)
			if b.code != ExitClean {
				t.Fatalf("report: exit %d, stderr %q", b.code, b.stderr)
			}
			summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(summary, []byte(tt.want)) {
				t.Errorf("summary.json does not list %q", tt.want)
			}
			// What report wrote, compare reads.
			c := runBounded(t, "", nil, "compare", out, out)
			if c.code != 0 {
				t.Errorf("compare of the report with itself: exit %d, stderr %q", c.code, c.stderr)
			}
		})
	}
}

// hostileSummary writes the example's summary.json with one per-run value
// of e2e.p95 replaced by v, and returns its path.
func hostileSummary(t *testing.T, dir, name string, v float64) string {
	t.Helper()
	s := exampleSummary(t)
	setPerRun(t, s, "e2e.p95", v)
	return writeSummary(t, dir, name, s)
}

// setPerRun sets the first per-run value of the statistic key at the
// first level.
func setPerRun(t *testing.T, s *analyze.Summary, key string, v float64) {
	t.Helper()
	for j := range s.Levels[0].Stats {
		if st := &s.Levels[0].Stats[j]; st.Key == key {
			st.PerRun[0] = analyze.Num(v)
			return
		}
	}
	t.Fatalf("no statistic %s", key)
}

// TestHostileCompareInputs: compare refuses, with its input-error code 3
// and the JSON path of the value, a summary.json holding ±1e308 or a
// title of 1 MiB; refuses a bad --threshold; and refuses a summary.json too large to read, or
// whose decoded summary would be, without reading or decoding it whole:
// a 300 MB sparse file (by its size), a FIFO that never ends (a size
// that says nothing), 60 MB of zero bytes inside a string (a sparse
// file), a million empty runs and five million per-run values.
func TestHostileCompareInputs(t *testing.T) {
	dir := t.TempDir()
	good := writeSummary(t, dir, "good", exampleSummary(t))
	sparse := func(name string, prefix, suffix string, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(prefix), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte(suffix), size-int64(len(suffix))); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repeated := func(name, prefix, item string, n int, suffix string) string {
		p := filepath.Join(dir, name)
		data := prefix + item + strings.Repeat(","+item, n-1) + suffix
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "endless.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer func() {
		close(stop)
		// Unblock a writer still waiting for a reader.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	go func() {
		// Endless white space, to every reader in turn.
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			for err == nil {
				_, err = f.Write(chunk)
			}
			f.Close()
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	longTitle := exampleSummary(t)
	longTitle.Title = strings.Repeat("t", 1<<20)
	titled := writeSummary(t, dir, "titled", longTitle)
	huge := hostileSummary(t, dir, "huge", 1e308)
	negative := hostileSummary(t, dir, "negative", -1e308)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a per-run value of 1e308", []string{good, huge}, huge + ": levels[0].stats[9].per_run[0] (e2e.p95): 1e308 is outside [0, 1e10] ms"},
		{"a per-run value of -1e308", []string{negative, good}, negative + ": levels[0].stats[9].per_run[0] (e2e.p95): -1e308 is outside [0, 1e10] ms"},
		{"--threshold NaN%", []string{good, good, "--threshold", "NaN%"}, `threshold "NaN%": "NaN" is not a number from 0 to 1000000`},
		// Texts are copied into every output: one of 30 MB made compare
		// take 380 MB.
		{"a title of 1 MiB", []string{good, titled}, titled + ": title: a text of 1048576 bytes is longer than 65536 bytes"},
		{"a 300 MB sparse summary.json", []string{good, sparse("sparse.json", `{"schema":"`, `"}`, 300<<20)}, "larger than 67108864 bytes (64 MiB)"},
		{"a FIFO of endless white space", []string{good, fifo}, fifo + ": larger than 67108864 bytes (64 MiB)"},
		{"60 MB of zero bytes in a string", []string{good, sparse("zeros.json", `{"title":"`, `"}`, 60<<20)},
			"zeros.json:offset 62914559: decoded, the summary would take more than 32 MiB of memory"},
		{"a million empty runs", []string{good, repeated("runs.json", `{"runs":[`, "{}", 1_000_000, "]}")},
			"runs.json:offset 49353: decoded, the summary would take more than 32 MiB of memory"},
		{"five million per-run values", []string{good, repeated("perrun.json", `{"levels":[{"stats":[{"per_run":[`, "0", 5_000_000, "]}]}]}")},
			"perrun.json:offset 8388217: decoded, the summary would take more than 32 MiB of memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := runBounded(t, "", nil, append([]string{"compare"}, tt.args...)...)
			logBounded(t, b)
			if b.code != compare.ExitInputError || !strings.Contains(b.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", b.code, b.stderr, compare.ExitInputError, tt.want)
			}
		})
	}
}

// TestHostileHistoryEntry: an archive entry whose stats.parquet holds a
// per-run E2E p95 of 1.797e308 ms (as an archive written before the
// ranges could hold) is left out of the history with the reason, and,
// once excluded, is not read at all; the history is written both times.
func TestHostileHistoryEntry(t *testing.T) {
	arch := filepath.Join(t.TempDir(), "archive")
	var ids []string
	for day := 0; day < 3; day++ {
		code, out, errOut := runCLI(t, "archive", "add", simSweepDir(t, day, uint64(day+1), 1), "--to", arch)
		m := addedID.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("add day %d: exit %d, %q %q", day, code, out, errOut)
		}
		ids = append(ids, m[1])
	}
	corruptEntry(t, filepath.Join(arch, ids[1]), 1.797e308)

	out := filepath.Join(t.TempDir(), "h1")
	b := runBounded(t, "", nil, "history", arch, "-o", out)
	logBounded(t, b)
	if b.code != ExitClean {
		t.Fatalf("history: exit %d, stderr %q", b.code, b.stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "history.md"))
	want := "| " + ids[1] + ` |  | 0 | 6 | left out: stats.parquet: e2e.p95 of run "c1/run-1" at concurrency 1: 1.797e308 is outside \[0, 1e10\] ms |`
	if !bytes.Contains(md, []byte(want)) {
		t.Errorf("history.md does not leave the entry out as %q:\n%s", want, md)
	}

	if code, _, errOut := runCLI(t, "archive", "exclude", arch, ids[1], "--why", "E2E of 1.797e308 ms"); code != 0 {
		t.Fatalf("exclude: %d %q", code, errOut)
	}
	out = filepath.Join(t.TempDir(), "h2")
	b = runBounded(t, "", nil, "history", arch, "-o", out)
	logBounded(t, b)
	if b.code != ExitClean {
		t.Fatalf("history after exclude: exit %d, stderr %q", b.code, b.stderr)
	}
	md, _ = os.ReadFile(filepath.Join(out, "history.md"))
	want = "| " + ids[1] + " |  | 0 | 6 | excluded: E2E of 1.797e308 ms |"
	if !bytes.Contains(md, []byte(want)) {
		t.Errorf("history.md does not list the excluded entry as %q:\n%s", want, md)
	}
}

// corruptEntry rewrites an archive entry's summary.json and stats.parquet
// with the first per-run E2E p95 of the first level set to v, and records
// the new stats.parquet in entry.json, as a benchnote that wrote such a
// value would have.
func corruptEntry(t *testing.T, dir string, v float64) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, archive.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err := analyze.DecodeSummary(f, archive.SummaryFile)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	setPerRun(t, s, "e2e.p95", v)
	data, err := os.ReadFile(filepath.Join(dir, archive.EntryFile))
	if err != nil {
		t.Fatal(err)
	}
	var e archive.Entry
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	var stats bytes.Buffer
	if err := archive.WriteStats(&stats, e, s); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(stats.Bytes())
	e.Stats = archive.InputFile{Path: archive.StatsFile, Bytes: int64(stats.Len()), SHA256: hex.EncodeToString(sum[:])}
	entry, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// An archive written before the ranges could hold had no entry
	// markers either (with one, the edit shows as a modification).
	if err := os.Remove(filepath.Join(dir, outdir.EntryMarkerName)); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{archive.StatsFile: stats.Bytes(), archive.EntryFile: entry, archive.SummaryFile: summary} {
		p := filepath.Join(dir, name)
		// Entries are written read-only for everyone but their owner.
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
