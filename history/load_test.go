package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/archive"
	"github.com/benchnote/benchnote/compare"
)

// writeEntry writes an entry into the archive at dir by hand, as an
// older benchnote (or a hand) could have: entry.json and a stats.parquet
// holding ttft.p95's per-run values at concurrency 4, and, with exclude,
// an exclusion.
func writeEntry(t *testing.T, dir string, day int, ttft []float64, exclude string) string {
	t.Helper()
	id := fmt.Sprintf("%016x", day+1)
	var runs []string
	var perRun []analyze.Num
	s := &analyze.Summary{Schema: analyze.SchemaVersion}
	for i, v := range ttft {
		run := fmt.Sprintf("c4/run-%d", i+1)
		runs = append(runs, run)
		perRun = append(perRun, analyze.Num(v))
		s.Runs = append(s.Runs, analyze.RunSummary{Dir: run, Repeat: i + 1, LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 4}})
	}
	s.Levels = []analyze.Level{{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 4}, Runs: runs,
		Stats: []analyze.AcrossRuns{{Key: "ttft.p95", Unit: "ms", PerRun: perRun}}}}
	// No inputs: the input hash is that of an empty manifest.
	e := archive.Entry{Schema: archive.EntrySchema, ID: id, InputHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Time: fmt.Sprintf("2026-11-%02dT09:00:00Z", day+2), Label: fmt.Sprintf("rev-%d", day),
		Fingerprint: "fp", Levels: []archive.EntryLevel{{Level: compare.LevelID{Mode: "concurrency", Value: 4}, Runs: len(runs)}}}
	var stats bytes.Buffer
	if err := archive.WriteStats(&stats, e, s); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(stats.Bytes())
	e.Stats = archive.InputFile{Path: archive.StatsFile, Bytes: int64(stats.Len()), SHA256: hex.EncodeToString(sum[:])}
	entryJSON, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		filepath.Join(id, archive.EntryFile):   entryJSON,
		filepath.Join(id, archive.StatsFile):   stats.Bytes(),
		filepath.Join(id, archive.SummaryFile): []byte("{}\n"),
	}
	if exclude != "" {
		x, _ := json.Marshal(archive.Exclusion{Schema: archive.ExclusionSchema, ID: id, Why: exclude})
		files[filepath.Join(archive.ExclusionsDir, id+".json")] = x
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// TestLoadLeavesOutWhatItCannotUse: an excluded entry is listed without
// its statistics being read (here, a stats.parquet that no longer
// matches entry.json); an entry whose statistics are damaged or out of
// range is left out with the reason; the others load.
func TestLoadLeavesOutWhatItCannotUse(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, archive.MarkerFile), []byte(`{"schema":"`+archive.Schema+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := writeEntry(t, dir, 0, []float64{100, 101, 99}, "")
	huge := writeEntry(t, dir, 1, []float64{100, 1.797e308, 99}, "")
	negative := writeEntry(t, dir, 2, []float64{-1e308, 100, 99}, "")
	excluded := writeEntry(t, dir, 3, []float64{1.797e308, 1.797e308, 1.797e308}, "E2E of 1.797e308 ms")
	damaged := writeEntry(t, dir, 4, []float64{100, 101, 99}, "")
	damagedExcluded := writeEntry(t, dir, 5, []float64{100, 101, 99}, "damaged")
	for _, id := range []string{damaged, damagedExcluded} {
		if err := os.WriteFile(filepath.Join(dir, id, archive.StatsFile), []byte("PAR1 not really"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Load(a)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	type row struct {
		id               string
		excluded         bool
		why, unreadable  string
		runs, ttftValues int
	}
	var got []row
	for _, e := range in {
		got = append(got, row{e.ID, e.Excluded, e.Why, e.Unreadable, e.Runs, len(e.Values[level4]["ttft.p95"])})
	}
	want := []row{
		{good, false, "", "", 3, 3},
		{huge, true, "", `stats.parquet: ttft.p95 of run "c4/run-2" at concurrency 4: 1.797e308 is outside [0, 1e10] ms`, 3, 0},
		{negative, true, "", `stats.parquet: ttft.p95 of run "c4/run-1" at concurrency 4: -1e308 is outside [0, 1e10] ms`, 3, 0},
		{excluded, true, "E2E of 1.797e308 ms", "", 3, 0},
		{damaged, true, "", "modified since it was added: stats.parquet: 15 bytes, recorded 3347", 3, 0},
		{damagedExcluded, true, "damaged", "", 3, 0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("loaded\n%+v\nwant\n%+v", got, want)
	}
	// ttft.p95 and the error rate (which stats.parquet always holds), of
	// the one entry used.
	h := Build(in, DefaultOptions())
	if len(h.Entries) != 6 || len(h.Trends) != 2 || len(h.Trends[0].Points) != 1 || len(h.Trends[1].Points) != 1 {
		t.Errorf("%d entries, %d trends: want 6, and 2 trends of one point", len(h.Entries), len(h.Trends))
	}
}
