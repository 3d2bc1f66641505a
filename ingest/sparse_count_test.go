package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchnote/benchnote/internal/hostile"
)

// TestFailedSparseCSVCountsItsRows loads CSV runs that fail on a record
// longer than MaxCSVRecordBytes made of a hole of a sparse file (the 1 GiB
// line of issue 7, and a hole inside a file with rows after it): the run
// fails with "too large" and still counts every non-blank line after the
// header as a row, holes skipped or not.
func TestFailedSparseCSVCountsItsRows(t *testing.T) {
	dir := t.TempDir()
	if err := hostile.WriteSweeps(dir); err != nil {
		t.Fatal(err)
	}
	middle := filepath.Join(dir, "hole-in-the-middle")
	csv := filepath.Join(middle, "c1", "r1", RequestsCSV)
	if err := os.MkdirAll(filepath.Dir(csv), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(csv)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,100,10,50,500\nb,")
	f.Seek(8<<20, 1) // an 8 MiB hole inside b's line
	f.WriteString(",10,60,600\n\nc,100,10,70,700\n   \nd,100,10,80,800\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sweep string
		rows  int
	}{
		{filepath.Join(dir, "csv-1GB-line"), 4}, // a, b, c and the line d,<1 GiB hole>
		{middle, 4},                             // a, b<hole>, c, d: blank lines are not rows
	}
	for _, tt := range tests {
		sw, err := Load(tt.sweep, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := sw.Runs[0]
		if !r.Failed || len(r.Diagnostics) == 0 || r.Diagnostics[0].Reason != "too large" {
			t.Errorf("%s: failed %v, diagnostics %v; want a failed run, too large", tt.sweep, r.Failed, r.Diagnostics)
		}
		if r.Requests == nil || r.Requests.RowsRead != tt.rows {
			t.Errorf("%s: requests %+v, want %d rows read", tt.sweep, r.Requests, tt.rows)
		}
	}
}
