package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/xitongsys/parquet-go-source/local"
	"github.com/xitongsys/parquet-go/reader"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
)

const example = "../runs/example"

func addExample(t *testing.T, dir string, opts AddOptions) Entry {
	t.Helper()
	if opts.Version == "" {
		opts.Version = "test"
	}
	e, err := Add(dir, example, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAddExample(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	e := addExample(t, dir, AddOptions{Label: "abc123"})

	// Identity: SHA-256 of "sha256  bytes  path" lines over the sorted inputs.
	inputs, _, err := ingest.InputFiles(example)
	if err != nil {
		t.Fatal(err)
	}
	var manifest bytes.Buffer
	for _, p := range inputs {
		data, err := os.ReadFile(filepath.Join(example, p))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&manifest, "%x  %d  %s\n", sha256.Sum256(data), len(data), p)
		// Copied byte for byte.
		got, err := os.ReadFile(filepath.Join(dir, e.ID, InputsDir, p))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: archived copy differs (%v)", p, err)
		}
	}
	sum := sha256.Sum256(manifest.Bytes())
	if want := hex.EncodeToString(sum[:]); e.InputHash != want || e.ID != want[:16] {
		t.Errorf("input hash %s id %s, want %s", e.InputHash, e.ID, want)
	}
	// sweep.yaml, env.json, env.txt and 9 runs × (requests, run.yaml, two
	// scrapes, gpu.csv).
	if len(e.Inputs) != 48 {
		t.Errorf("%d inputs, want 48", len(e.Inputs))
	}
	// The time is the first request sent (the example's c1/run-1 window
	// starts with it), never a file time.
	if e.Time != "2026-11-02T09:01:23.996298Z" || e.TimeSource != TimeFromRequests {
		t.Errorf("time %s from %q", e.Time, e.TimeSource)
	}
	if e.Label != "abc123" || e.BenchnoteVersion != "test" || len(e.Levels) != 3 || e.Levels[2].Label != "concurrency 16" || e.Levels[2].Runs != 3 {
		t.Errorf("entry %+v", e)
	}
	// The entry's summary is the report's summary of the same sweep.
	want, err := os.ReadFile("../cmd/benchnote/internal/cli/testdata/golden/example/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, e.ID, SummaryFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("archived summary.json differs from the report's (%v)", err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	list, err := a.Entries()
	if err != nil || len(list) != 1 || list[0].ID != e.ID || list[0].Excluded != nil {
		t.Fatalf("entries %+v, %v", list, err)
	}
	// Nothing is left in the temporary area.
	left, _ := os.ReadDir(filepath.Join(dir, tmpDir))
	if len(left) != 0 {
		t.Errorf("%d leftovers in %s", len(left), tmpDir)
	}
}

func TestAddTwiceIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	e := addExample(t, dir, AddOptions{Label: "first"})
	before := treeHash(t, filepath.Join(dir, e.ID))
	_, err := Add(dir, example, AddOptions{Label: "second", Version: "test"})
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.Existing.ID != e.ID {
		t.Fatalf("second add: %v, want a DuplicateError naming %s", err, e.ID)
	}
	want := fmt.Sprintf("these inputs are already archived as entry %s (time 2026-11-02T09:01:23.996298Z, label \"first\")", e.ID)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q", err)
	}
	if after := treeHash(t, filepath.Join(dir, e.ID)); after != before {
		t.Error("the existing entry changed")
	}
	// A copy of the sweep elsewhere is the same inputs.
	copyDir := filepath.Join(t.TempDir(), "copy")
	copyTree(t, example, copyDir)
	if _, err := Add(dir, copyDir, AddOptions{}); !errors.As(err, &dup) {
		t.Errorf("copy of the sweep: %v", err)
	}
	// One changed byte is another entry.
	p := filepath.Join(copyDir, "c1", "run-1", "run.yaml")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, '\n'), 0o644)
	e2, err := Add(dir, copyDir, AddOptions{})
	if err != nil || e2.ID == e.ID {
		t.Errorf("changed sweep: %v, id %s", err, e2.ID)
	}
}

func TestAddTimeAndLabel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	when, err := ParseTime("2025-01-31")
	if err != nil {
		t.Fatal(err)
	}
	e := addExample(t, dir, AddOptions{Time: when})
	if e.Time != "2025-01-31T00:00:00Z" || e.TimeSource != TimeFromFlag {
		t.Errorf("time %s from %q", e.Time, e.TimeSource)
	}
	if _, err := ParseTime("yesterday"); err == nil {
		t.Error("ParseTime accepted \"yesterday\"")
	}
	if _, err := Add(filepath.Join(t.TempDir(), "x"), example, AddOptions{Label: "a\nb"}); err == nil || !strings.Contains(err.Error(), "control characters") {
		t.Errorf("label with a newline: %v", err)
	}
}

func TestEntryTimeFallsBackToTheWindow(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sw := &ingest.Sweep{Runs: []*ingest.Run{
		{Window: ingest.Window{Start: start.Add(time.Hour), End: start.Add(2 * time.Hour), Source: "run.yaml"}},
		{Window: ingest.Window{Start: start, End: start.Add(time.Hour), Source: "scrapes"},
			Requests: &ingest.RequestFile{Requests: &ingest.Requests{TRequestSent: nil}}},
	}}
	got, src, err := entryTime(sw, time.Time{})
	if err != nil || !got.Equal(start) || src != TimeFromWindow {
		t.Errorf("%v from %q, %v; want %v from the window", got, src, err, start)
	}
	sw.Runs[1].Requests.Requests.TRequestSent = []float64{math.NaN(), 1772366400.25}
	got, src, _ = entryTime(sw, time.Time{})
	if !got.Equal(time.Date(2026, 3, 1, 12, 0, 0, 250000000, time.UTC)) || src != TimeFromRequests {
		t.Errorf("%v from %q; want the request time", got, src)
	}
	if _, _, err := entryTime(&ingest.Sweep{Runs: []*ingest.Run{{}}}, time.Time{}); err == nil || !strings.Contains(err.Error(), "--time") {
		t.Errorf("no time at all: %v", err)
	}
}

func TestArchiveRefusesForeignDirectories(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Add(dir, example, AddOptions{}); err == nil || !strings.Contains(err.Error(), "not empty and not a benchnote archive") {
		t.Errorf("non-empty directory: %v", err)
	}
	if _, err := Open(dir); err == nil {
		t.Error("Open accepted a directory without archive.json")
	}
	// A report directory is not a sweep.
	rep := t.TempDir()
	os.WriteFile(filepath.Join(rep, "summary.json"), []byte("{}"), 0o644)
	if _, err := Add(filepath.Join(t.TempDir(), "a"), rep, AddOptions{}); err == nil || !strings.Contains(err.Error(), "looks like a report directory") {
		t.Errorf("report directory: %v", err)
	}
}

func TestExclude(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	e := addExample(t, dir, AddOptions{})
	before := treeHash(t, filepath.Join(dir, e.ID))
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exclude(e.ID[:6], "  ", "test"); err == nil {
		t.Error("excluded without a reason")
	}
	got, err := a.Exclude(e.ID[:6], "GPU was throttling", "test")
	if err != nil || got.ID != e.ID || got.Excluded.Why != "GPU was throttling" {
		t.Fatalf("exclude: %+v, %v", got, err)
	}
	list, _ := a.Entries()
	if list[0].Excluded == nil || list[0].Excluded.Why != "GPU was throttling" {
		t.Errorf("listed %+v", list[0])
	}
	if _, err := a.Exclude(e.ID, "again", "test"); err == nil || !strings.Contains(err.Error(), "already excluded") {
		t.Errorf("second exclusion: %v", err)
	}
	if _, err := a.Exclude("ffff", "x", "test"); err == nil || !strings.Contains(err.Error(), `no entry "ffff"`) {
		t.Errorf("unknown id: %v", err)
	}
	if after := treeHash(t, filepath.Join(dir, e.ID)); after != before {
		t.Error("excluding changed the entry")
	}
}

// xitongsysRow is stats.parquet as read by xitongsys/parquet-go, a reader
// that shares no code with the Arrow writer.
type xitongsysRow struct {
	EntryID       string   `parquet:"name=entry_id, type=BYTE_ARRAY, convertedtype=UTF8"`
	Time          int64    `parquet:"name=time, type=INT64"`
	Label         *string  `parquet:"name=label, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	Fingerprint   string   `parquet:"name=fingerprint, type=BYTE_ARRAY, convertedtype=UTF8"`
	GPU           *string  `parquet:"name=gpu, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	GPUCount      *string  `parquet:"name=gpu_count, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	Model         *string  `parquet:"name=model, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	Precision     *string  `parquet:"name=precision, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	Engine        *string  `parquet:"name=engine, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	EngineVersion *string  `parquet:"name=engine_version, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	Level         string   `parquet:"name=level, type=BYTE_ARRAY, convertedtype=UTF8"`
	LevelMode     string   `parquet:"name=level_mode, type=BYTE_ARRAY, convertedtype=UTF8"`
	LevelValue    float64  `parquet:"name=level_value, type=DOUBLE"`
	LevelArrival  *string  `parquet:"name=level_arrival, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	Run           string   `parquet:"name=run, type=BYTE_ARRAY, convertedtype=UTF8"`
	Repeat        int32    `parquet:"name=repeat, type=INT32"`
	Statistic     string   `parquet:"name=statistic, type=BYTE_ARRAY, convertedtype=UTF8"`
	Unit          string   `parquet:"name=unit, type=BYTE_ARRAY, convertedtype=UTF8"`
	Value         *float64 `parquet:"name=value, type=DOUBLE, repetitiontype=OPTIONAL"`
}

// readXitongsys reads every row of a stats.parquet with xitongsys/parquet-go.
func readXitongsys(t *testing.T, path string) []xitongsysRow {
	t.Helper()
	fr, err := local.NewLocalFileReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	pr, err := reader.NewParquetReader(fr, new(xitongsysRow), 1)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]xitongsysRow, pr.GetNumRows())
	if err := pr.Read(&rows); err != nil {
		t.Fatal(err)
	}
	pr.ReadStop()
	return rows
}

func TestStatsParquetRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	e := addExample(t, dir, AddOptions{Label: "rev-42"})
	data, err := os.ReadFile(filepath.Join(dir, e.ID, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err := analyze.DecodeSummary(bytes.NewReader(data), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	want := compare.RunValues(s)

	rows := readXitongsys(t, filepath.Join(dir, e.ID, StatsFile))
	n := len(rows)
	// 3 levels × 3 runs × (50 summary statistics + 6 GPU and energy
	// statistics + the error rate).
	if n != len(want) || n != 3*3*57 {
		t.Fatalf("%d rows, want %d", n, len(want))
	}
	micro := e.When().UnixMicro()
	nulls := 0
	for i, r := range rows {
		w := want[i]
		if r.EntryID != e.ID || r.Time != micro || r.Label == nil || *r.Label != "rev-42" || r.Fingerprint != e.Fingerprint {
			t.Fatalf("row %d: identity %s %d %v %s", i, r.EntryID, r.Time, r.Label, r.Fingerprint)
		}
		if r.GPU == nil || *r.GPU != "NVIDIA L40S" || *r.GPUCount != "1" || *r.Model != "meta-llama/Llama-3.1-8B-Instruct" ||
			*r.Precision != "bfloat16" || *r.Engine != "vllm" || *r.EngineVersion != "0.16.0" {
			t.Fatalf("row %d: environment %v %v %v", i, r.GPU, r.Model, r.EngineVersion)
		}
		if r.Level != w.Level.Label() || r.LevelMode != "concurrency" || r.LevelValue != w.Level.Value || r.LevelArrival != nil ||
			r.Run != w.Run || int(r.Repeat) != w.Repeat || r.Statistic != w.Key || r.Unit != w.Unit {
			t.Fatalf("row %d: %+v, want %+v", i, r, w)
		}
		switch {
		case math.IsNaN(w.Value):
			nulls++
			if r.Value != nil {
				t.Fatalf("row %d (%s %s): %v, want null", i, w.Run, w.Key, *r.Value)
			}
		case r.Value == nil || *r.Value != w.Value:
			t.Fatalf("row %d (%s %s): %v, want %v", i, w.Run, w.Key, r.Value, w.Value)
		}
	}
	// Some statistics have no value in some runs (a server histogram left
	// out): those are nulls, never zeros.
	if nulls == 0 {
		t.Error("no null value: the example has statistics missing in some runs")
	}

	// The Arrow reader history uses agrees.
	got, err := ReadStats(filepath.Join(dir, e.ID, StatsFile), e.Stats, map[string]bool{"ttft.p95": true})
	if err != nil || len(got) != 9 || got[0].Key != "ttft.p95" || got[0].Run != "c1/run-1" || got[0].Value != float64(s.Levels[0].Stats[1].PerRun[0]) {
		t.Errorf("ReadStats: %+v, %v", got, err)
	}
}

func TestDamagedStatsAreNotParsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	e := addExample(t, dir, AddOptions{})
	p := filepath.Join(dir, e.ID, StatsFile)
	data, _ := os.ReadFile(p)
	if int64(len(data)) != e.Stats.Bytes || e.Stats.Path != StatsFile {
		t.Fatalf("recorded %+v for a %d-byte file", e.Stats, len(data))
	}
	// A changed byte, a truncation, an extension: refused before parsing.
	for _, bad := range [][]byte{
		append(append([]byte{}, data[:100]...), append([]byte{data[100] ^ 1}, data[101:]...)...),
		data[:len(data)-1],
		append(append([]byte{}, data...), 0),
	} {
		os.Chmod(p, 0o644)
		os.WriteFile(p, bad, 0o644)
		if _, err := ReadStats(p, e.Stats, nil); err == nil || !strings.Contains(err.Error(), "does not match the size and SHA-256 recorded") {
			t.Errorf("damaged file (%d bytes): %v", len(bad), err)
		}
	}
	if _, err := ReadStats(p, InputFile{}, nil); err == nil || !strings.Contains(err.Error(), "no size and SHA-256 recorded") {
		t.Errorf("no recorded sum: %v", err)
	}
}

func TestStatsParquetIsDeterministic(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	ea := addExample(t, a, AddOptions{Label: "x"})
	eb := addExample(t, b, AddOptions{Label: "x"})
	for _, name := range []string{EntryFile, SummaryFile, StatsFile} {
		x, err1 := os.ReadFile(filepath.Join(a, ea.ID, name))
		y, err2 := os.ReadFile(filepath.Join(b, eb.ID, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two archives of the same sweep (%v %v)", name, err1, err2)
		}
	}
}

// treeHash hashes every file under dir with its path.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(h, "%s %x\n", p, sha256.Sum256(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStatsParquetRoundTripRateLevels: rate levels keep their value
// (+Infinity for rate inf) and arrival process through xitongsys/parquet-go;
// an absent label and arrival are nulls, a missing value is a null.
func TestStatsParquetRoundTripRateLevels(t *testing.T) {
	rate := func(r float64, arrival string) analyze.LevelKey {
		return analyze.LevelKey{Mode: "rate", Rate: analyze.Rate(r), Arrival: arrival}
	}
	s := &analyze.Summary{Schema: analyze.SchemaVersion}
	for _, k := range []analyze.LevelKey{rate(16, "poisson"), rate(math.Inf(1), "")} {
		l := analyze.Level{LevelKey: k, Runs: []string{"a/run-1", "a/run-2"}}
		if k.Arrival == "" {
			l.Runs = []string{"b/run-1", "b/run-2"}
		}
		l.Stats = []analyze.AcrossRuns{{Key: "ttft.p95", Unit: "ms", PerRun: []analyze.Num{120.5, analyze.NaN}}}
		for i, dir := range l.Runs {
			s.Runs = append(s.Runs, analyze.RunSummary{Dir: dir, LevelKey: k, Repeat: i + 1, Counts: analyze.Counts{Measured: 200, Errors: 5 * i}})
		}
		s.Levels = append(s.Levels, l)
	}
	e := Entry{ID: "0123456789abcdef", Time: "2026-03-01T12:00:00.25Z", Fingerprint: "fedcba9876543210"}
	p := filepath.Join(t.TempDir(), StatsFile)
	var buf bytes.Buffer
	if err := WriteStats(&buf, e, s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := readXitongsys(t, p)
	type row struct {
		level, arrival, run, key string
		value                    float64
		repeat                   int32
	}
	// Per level: ttft.p95 of both runs, then the error rate (0/200, 5/200).
	nan := math.NaN()
	want := []row{
		{"16 req/s, poisson arrivals", "poisson", "a/run-1", "ttft.p95", 120.5, 1},
		{"16 req/s, poisson arrivals", "poisson", "a/run-2", "ttft.p95", nan, 2},
		{"16 req/s, poisson arrivals", "poisson", "a/run-1", "errors.percent", 0, 1},
		{"16 req/s, poisson arrivals", "poisson", "a/run-2", "errors.percent", 2.5, 2},
		{"rate inf", "", "b/run-1", "ttft.p95", 120.5, 1},
		{"rate inf", "", "b/run-2", "ttft.p95", nan, 2},
		{"rate inf", "", "b/run-1", "errors.percent", 0, 1},
		{"rate inf", "", "b/run-2", "errors.percent", 2.5, 2},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		w := want[i]
		arrival, value := "", nan
		if r.LevelArrival != nil {
			arrival = *r.LevelArrival
		}
		if r.Value != nil {
			value = *r.Value
		}
		wantValue := 16.0
		if w.level == "rate inf" {
			wantValue = math.Inf(1)
		}
		if r.EntryID != e.ID || r.Time != 1772366400250000 || r.Label != nil || r.Fingerprint != e.Fingerprint || r.GPU != nil ||
			r.Level != w.level || r.LevelMode != "rate" || r.LevelValue != wantValue || arrival != w.arrival ||
			(r.LevelArrival == nil) != (w.arrival == "") || r.Run != w.run || r.Repeat != w.repeat || r.Statistic != w.key ||
			!(value == w.value || math.IsNaN(value) && math.IsNaN(w.value)) {
			t.Errorf("row %d: %+v (arrival %q, value %v), want %+v", i, r, arrival, value, w)
		}
	}
}

// TestReadmeShowsTheArchiveQuery: README shows the same DuckDB query over
// every entry's stats.parquet as docs/archive.md, with columns that exist.
func TestReadmeShowsTheArchiveQuery(t *testing.T) {
	const query = "SELECT time, entry_id, label, level, run, value AS ttft_p95_ms\n" +
		"FROM read_parquet('ARCHIVE/*/stats.parquet')\n" +
		"WHERE statistic = 'ttft.p95'\n" +
		"ORDER BY time, level_value, repeat;\n"
	for _, doc := range []string{"../README.md", "../docs/archive.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "```sql\n"+query+"```") {
			t.Errorf("%s does not show the archive query:\n%s", doc, query)
		}
	}
	cols := map[string]bool{}
	for _, f := range StatsColumns {
		cols[f.Name] = true
	}
	for _, c := range []string{"time", "entry_id", "label", "level", "run", "value", "statistic", "level_value", "repeat"} {
		if !cols[c] {
			t.Errorf("the query uses %q, which stats.parquet does not have", c)
		}
	}
}

// xitongsysSeriesRow is the series columns of stats.parquet as
// xitongsys/parquet-go reads them, beside the level, run and value.
type xitongsysSeriesRow struct {
	Level        string            `parquet:"name=level, type=BYTE_ARRAY, convertedtype=UTF8"`
	Run          string            `parquet:"name=run, type=BYTE_ARRAY, convertedtype=UTF8"`
	Repeat       int32             `parquet:"name=repeat, type=INT32"`
	Statistic    string            `parquet:"name=statistic, type=BYTE_ARRAY, convertedtype=UTF8"`
	Value        *float64          `parquet:"name=value, type=DOUBLE, repetitiontype=OPTIONAL"`
	Series       *string           `parquet:"name=series, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	SeriesLabels map[string]string `parquet:"name=series_labels, type=MAP, convertedtype=MAP, keytype=BYTE_ARRAY, keyconvertedtype=UTF8, valuetype=BYTE_ARRAY, valueconvertedtype=UTF8, repetitiontype=OPTIONAL"`
}

// seriesSummary is a summary of two series of two runs at concurrency 4,
// and, when unlabelled is set, a third, unlabelled series of one run.
func seriesSummary(t *testing.T, unlabelled bool) *analyze.Summary {
	t.Helper()
	s := &analyze.Summary{Schema: analyze.SchemaVersion}
	add := func(labels map[string]string, dirs []string, ttft []analyze.Num) {
		series, err := ingest.NewSeries(labels)
		if err != nil {
			t.Fatal(err)
		}
		k := analyze.LevelKey{Series: series, Mode: "concurrency", Concurrency: 4}
		s.Levels = append(s.Levels, analyze.Level{LevelKey: k, Runs: dirs,
			Stats: []analyze.AcrossRuns{{Key: "ttft.p95", Unit: "ms", PerRun: ttft}}})
		for i, dir := range dirs {
			s.Runs = append(s.Runs, analyze.RunSummary{Dir: dir, LevelKey: k, Repeat: i + 1, Counts: analyze.Counts{Measured: 100, Errors: i}})
		}
	}
	if unlabelled {
		add(nil, []string{"c4/run-1"}, []analyze.Num{90})
	}
	add(map[string]string{"max_num_seqs": "128", "engine": "vllm"}, []string{"m128/c4/run-1", "m128/c4/run-2"}, []analyze.Num{120.5, 130.25})
	add(map[string]string{"max_num_seqs": "256", "engine": "vllm"}, []string{"m256/c4/run-1", "m256/c4/run-2"}, []analyze.Num{250, analyze.NaN})
	return s
}

// TestStatsParquetRoundTripSeries: a sweep with series labels gets the
// series and series_labels columns, read back exactly by xitongsys (the
// text in name order, the map of every label; nulls for the unlabelled
// series) and by ReadStats; filtering on one label, as the documented
// DuckDB query does, selects that series' rows only.
func TestStatsParquetRoundTripSeries(t *testing.T) {
	s := seriesSummary(t, true)
	if !HasSeries(s) {
		t.Fatal("HasSeries is false for a summary with labels")
	}
	e := Entry{ID: "0123456789abcdef", Time: "2026-03-01T12:00:00Z", Fingerprint: "fedcba9876543210"}
	var buf bytes.Buffer
	if err := WriteStats(&buf, e, s); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), StatsFile)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every column of an unlabelled sweep still reads as before.
	if rows := readXitongsys(t, p); len(rows) != 10 || rows[0].Run != "c4/run-1" || *rows[0].Value != 90 {
		t.Fatalf("the unlabelled columns: %+v", rows)
	}
	fr, err := local.NewLocalFileReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	pr, err := reader.NewParquetReader(fr, new(xitongsysSeriesRow), 1)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]xitongsysSeriesRow, pr.GetNumRows())
	if err := pr.Read(&rows); err != nil {
		t.Fatal(err)
	}
	pr.ReadStop()
	type row struct {
		run, key, series string
		labels           map[string]string
		value            float64
	}
	m128 := map[string]string{"engine": "vllm", "max_num_seqs": "128"}
	m256 := map[string]string{"engine": "vllm", "max_num_seqs": "256"}
	nan := math.NaN()
	// Per level: ttft.p95 of each run, then the error rate (0 and 1 of 100).
	want := []row{
		{"c4/run-1", "ttft.p95", "", nil, 90},
		{"c4/run-1", "errors.percent", "", nil, 0},
		{"m128/c4/run-1", "ttft.p95", "engine=vllm, max_num_seqs=128", m128, 120.5},
		{"m128/c4/run-2", "ttft.p95", "engine=vllm, max_num_seqs=128", m128, 130.25},
		{"m128/c4/run-1", "errors.percent", "engine=vllm, max_num_seqs=128", m128, 0},
		{"m128/c4/run-2", "errors.percent", "engine=vllm, max_num_seqs=128", m128, 1},
		{"m256/c4/run-1", "ttft.p95", "engine=vllm, max_num_seqs=256", m256, 250},
		{"m256/c4/run-2", "ttft.p95", "engine=vllm, max_num_seqs=256", m256, nan},
		{"m256/c4/run-1", "errors.percent", "engine=vllm, max_num_seqs=256", m256, 0},
		{"m256/c4/run-2", "errors.percent", "engine=vllm, max_num_seqs=256", m256, 1},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	var picked []string
	for i, r := range rows {
		w := want[i]
		series, value := "", nan
		if r.Series != nil {
			series = *r.Series
		}
		if r.Value != nil {
			value = *r.Value
		}
		if r.Level != "concurrency 4" || r.Run != w.run || r.Statistic != w.key || (r.Series == nil) != (w.series == "") || series != w.series ||
			len(r.SeriesLabels) != len(w.labels) || !(value == w.value || math.IsNaN(value) && math.IsNaN(w.value)) {
			t.Errorf("row %d: %+v (series %q, value %v), want %+v", i, r, series, value, w)
		}
		for k, v := range w.labels {
			if r.SeriesLabels[k] != v {
				t.Errorf("row %d: label %s = %q, want %q", i, k, r.SeriesLabels[k], v)
			}
		}
		// WHERE statistic = 'ttft.p95' AND series_labels['max_num_seqs'] = '256'
		if r.Statistic == "ttft.p95" && r.SeriesLabels["max_num_seqs"] == "256" {
			picked = append(picked, r.Run)
		}
	}
	if strings.Join(picked, " ") != "m256/c4/run-1 m256/c4/run-2" {
		t.Errorf("filtering on max_num_seqs = 256 picked %q", picked)
	}

	// ReadStats gives each row its level's series.
	h := sha256.Sum256(buf.Bytes())
	got, err := ReadStats(p, InputFile{Path: StatsFile, Bytes: int64(buf.Len()), SHA256: hex.EncodeToString(h[:])}, map[string]bool{"ttft.p95": true})
	if err != nil || len(got) != 5 {
		t.Fatalf("ReadStats: %+v, %v", got, err)
	}
	for i, r := range got {
		if r.Level != compare.LevelOf(s.Levels[min(i+1, 4)/2]) || r.Run != want[[]int{0, 2, 3, 6, 7}[i]].run {
			t.Errorf("ReadStats row %d: %+v", i, r)
		}
	}
}

// TestStatsParquetWithoutSeriesIsUnchanged: a sweep without labels gets
// no series columns, so its stats.parquet is the file it was before
// series existed (the example's bytes are pinned by their SHA-256), and
// its entry.json keeps schema v1; a sweep with labels gets v2 and its
// levels carry their series.
//
// The example as it was then had no GPU telemetry: its copy here leaves
// out the gpu.csv files.
func TestStatsParquetWithoutSeriesIsUnchanged(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "sweep")
	copyTree(t, example, sweep)
	gpuFiles, err := filepath.Glob(filepath.Join(sweep, "*", "*", "gpu.csv"))
	if err != nil || len(gpuFiles) != 9 {
		t.Fatalf("gpu.csv files %v, %v", gpuFiles, err)
	}
	for _, f := range gpuFiles {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "archive")
	e, err := Add(dir, sweep, AddOptions{Label: "x", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, e.ID, StatsFile))
	if err != nil {
		t.Fatal(err)
	}
	const before = "83391665ffdbe3075c0120f22f0a392ab5d0b4299ced93e312d85f1f2d412ee8"
	if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != before {
		t.Errorf("stats.parquet of the example: SHA-256 %s, want %s (as written before series)", got, before)
	}
	entry, _ := os.ReadFile(filepath.Join(dir, e.ID, EntryFile))
	if e.Schema != EntrySchemaV1 || !strings.Contains(string(entry), `"schema": "benchnote.archive-entry/v1"`) || strings.Contains(string(entry), `"series"`) {
		t.Errorf("entry.json of an unlabelled sweep: schema %q", e.Schema)
	}

	sweep = filepath.Join(t.TempDir(), "sweep")
	copyTree(t, example, sweep)
	for _, run := range []string{"c1/run-1", "c1/run-2", "c1/run-3"} {
		p := filepath.Join(sweep, run, "run.yaml")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, append(data, []byte("series: {max_num_seqs: 128}\n")...), 0o644)
	}
	e2, err := Add(dir, sweep, AddOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if e2.Schema != EntrySchema || len(e2.Levels) != 3 {
		t.Fatalf("entry of a labelled sweep: schema %q, %d levels", e2.Schema, len(e2.Levels))
	}
	var got []string
	for _, l := range e2.Levels {
		got = append(got, l.Level.Describe())
	}
	if strings.Join(got, "; ") != "concurrency 4; concurrency 16; concurrency 1 (max_num_seqs=128)" {
		t.Errorf("levels %q", got)
	}
	// The labels are a configuration within the sweep, not its environment.
	if e2.Fingerprint != e.Fingerprint {
		t.Errorf("fingerprint %s with a series label, %s without", e2.Fingerprint, e.Fingerprint)
	}
	a, _ := Open(dir)
	list, err := a.Entries()
	if err != nil || len(list) != 2 || !list[0].Usable() || !list[1].Usable() {
		t.Errorf("entries of both schemas: %+v, %v", list, err)
	}
	rows, err := ReadStats(filepath.Join(dir, e2.ID, StatsFile), e2.Stats, map[string]bool{"ttft.p95": true})
	if err != nil || len(rows) != 9 || !rows[0].Level.Series.IsZero() || rows[8].Level.Describe() != "concurrency 1 (max_num_seqs=128)" {
		t.Errorf("ReadStats of the labelled entry: %+v, %v", rows, err)
	}
}

// TestDocsShowTheSeriesQuery: docs/archive.md shows the DuckDB query of
// one series by a label, with columns that a labelled sweep's
// stats.parquet has (TestStatsParquetRoundTripSeries applies its filter).
func TestDocsShowTheSeriesQuery(t *testing.T) {
	const query = "SELECT time, entry_id, label, series, level, run, value AS ttft_p95_ms\n" +
		"FROM read_parquet('ARCHIVE/*/stats.parquet', union_by_name = true)\n" +
		"WHERE statistic = 'ttft.p95' AND series_labels['max_num_seqs'] = '256'\n" +
		"ORDER BY time, level_value, repeat;\n"
	data, err := os.ReadFile("../docs/archive.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "```sql\n"+query+"```") {
		t.Errorf("docs/archive.md does not show the series query:\n%s", query)
	}
	cols := map[string]bool{}
	for _, f := range append(append([]arrow.Field{}, StatsColumns...), SeriesColumns...) {
		cols[f.Name] = true
	}
	for _, c := range []string{"time", "entry_id", "label", "series", "level", "run", "value", "statistic", "series_labels", "level_value", "repeat"} {
		if !cols[c] {
			t.Errorf("the query uses %q, which stats.parquet does not have", c)
		}
	}
}
