package analyze

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// streamSweeps are sweeps with levels, failed runs, runs without a level,
// duplicate repeats and bad rows: everything whose order the streamed
// analysis must keep.
func streamSweeps(t *testing.T) []string {
	t.Helper()
	dirs := []string{"../runs/example", "../cmd/benchnote/internal/cli/testdata/badsweep", "../cmd/benchnote/internal/cli/testdata/onerun"}
	corpus, err := filepath.Glob("../cmd/benchnote/internal/cli/testdata/corpus/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range corpus {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// TestStreamedAnalysisMatchesLoaded checks that analysing a sweep as it is
// read (ingest.Open, each run released once analysed) gives the summary
// that analysing it whole (ingest.Load) gives, byte for byte, and that the
// streamed runs no longer hold their columns.
func TestStreamedAnalysisMatchesLoaded(t *testing.T) {
	for _, dir := range streamSweeps(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			loaded, err := ingest.Load(dir, ingest.Options{})
			if err != nil {
				// A malformed sweep.yaml: Open must refuse it the same way.
				if _, oerr := ingest.Open(dir, ingest.Options{}); oerr == nil || oerr.Error() != err.Error() {
					t.Errorf("Load: %v; Open: %v", err, oerr)
				}
				return
			}
			want, err := json.Marshal(Analyze(loaded))
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := ingest.Open(dir, ingest.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(Analyze(streamed))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("streamed summary differs from the loaded one:\n got %.300s\nwant %.300s", got, want)
			}
			for i, r := range streamed.Runs {
				lr := loaded.Runs[i]
				if r.Dir != lr.Dir || len(r.Diagnostics) != len(lr.Diagnostics) {
					t.Errorf("run %d: streamed %s with %d diagnostics, loaded %s with %d", i, r.Dir, len(r.Diagnostics), lr.Dir, len(lr.Diagnostics))
				}
				if r.Requests == nil || r.Requests.Requests == nil {
					continue
				}
				if a, b := r.Requests.FirstSent(), lr.Requests.FirstSent(); a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
					t.Errorf("%s: first send time %v after the analysis, %v loaded", r.Dir, a, b)
				}
				q, lq := r.Requests.Requests, lr.Requests.Requests
				if q.N != lq.N || q.TTFTms != nil || len(q.ExtraColumns) != len(lq.ExtraColumns) {
					t.Errorf("%s: after the analysis N = %d (loaded %d), TTFT column held = %v, %d extra columns (loaded %d); want the counts kept and the columns released",
						r.Dir, q.N, lq.N, q.TTFTms != nil, len(q.ExtraColumns), len(lq.ExtraColumns))
				}
				if lq.N > 0 && lq.TTFTms == nil {
					t.Errorf("%s: a loaded sweep lost its columns in the analysis", lr.Dir)
				}
			}
		})
	}
}

// TestAnalyzeTwiceReadsReleasedRunsAgain checks that a sweep from Open can
// be analysed again: the first analysis released every run's columns, so
// the second Stream reads them again (it used to yield the released runs,
// whose columns are gone, and the analysis indexed past them and crashed),
// and the second summary and the runs' diagnostics are those of the first.
func TestAnalyzeTwiceReadsReleasedRunsAgain(t *testing.T) {
	for _, dir := range streamSweeps(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			sw, err := ingest.Open(dir, ingest.Options{Workers: 2})
			if err != nil {
				return // a malformed sweep.yaml: TestStreamedAnalysisMatchesLoaded covers it
			}
			first, err := json.Marshal(Analyze(sw))
			if err != nil {
				t.Fatal(err)
			}
			diags := make([]int, len(sw.Runs))
			for i, r := range sw.Runs {
				diags[i] = len(r.Diagnostics)
			}
			second, err := json.Marshal(Analyze(sw))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, second) {
				t.Errorf("second summary differs from the first:\n got %.300s\nwant %.300s", second, first)
			}
			for i, r := range sw.Runs {
				if len(r.Diagnostics) != diags[i] {
					t.Errorf("%s: %d diagnostics after the second analysis, %d after the first", r.Dir, len(r.Diagnostics), diags[i])
				}
			}
		})
	}
}
