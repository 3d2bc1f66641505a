package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// FuzzReadStats feeds ReadStats arbitrary files against the sum of a good
// one: anything but the good bytes must be refused before the Parquet
// reader sees it, and the good bytes must read back. (Fed directly to
// Arrow's reader, a damaged stats.parquet can claim a multi-gigabyte
// schema message and exhaust memory: the checksum is the guard.)
func FuzzReadStats(f *testing.F) {
	var good bytes.Buffer
	s := &analyze.Summary{Schema: analyze.SchemaVersion, Levels: []analyze.Level{{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 2}, Runs: []string{"r"},
		Stats: []analyze.AcrossRuns{{Key: "ttft.p95", Unit: "ms", PerRun: []analyze.Num{12.5}}}}},
		Runs: []analyze.RunSummary{{Dir: "r", Repeat: 1, Counts: analyze.Counts{Measured: 4, Errors: 1}}}}
	if err := WriteStats(&good, Entry{ID: "0123456789abcdef", Time: "2026-01-01T00:00:00Z"}, s); err != nil {
		f.Fatal(err)
	}
	h := sha256.Sum256(good.Bytes())
	sum := InputFile{Path: StatsFile, Bytes: int64(good.Len()), SHA256: hex.EncodeToString(h[:])}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), StatsFile)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var rows []StatRow
		var err error
		fuzzbudget.Check(t, "ReadStats", len(data), func() { rows, err = ReadStats(p, sum, nil) })
		switch {
		case bytes.Equal(data, good.Bytes()):
			// ttft.p95 and the error rate (1 of 4 failed) of the one run.
			if err != nil || len(rows) != 2 || rows[0].Value != 12.5 || rows[1].Value != 25 {
				t.Fatalf("good file: %+v, %v", rows, err)
			}
		case err == nil:
			t.Fatalf("a file of %d bytes that is not the recorded one was read", len(data))
		}
	})
}
