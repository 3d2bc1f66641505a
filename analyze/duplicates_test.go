package analyze

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// copyDir copies the files under src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A run directory copied beside its original is the same run: it is left
// out, counted and named in the exclusions, and every level is what it
// was without the copy.
func TestDuplicateRunLeftOut(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "../runs/example", dir)
	analyse := func() *Summary {
		sw, err := ingest.Open(dir, ingest.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		return Analyze(sw)
	}
	before := analyse()
	copyDir(t, filepath.Join(dir, "c4", "run-1"), filepath.Join(dir, "c4", "run-4"))
	// Its own run.yaml would claim repeat 1 again.
	os.Remove(filepath.Join(dir, "c4", "run-4", "run.yaml"))
	after := analyse()
	levels := func(s *Summary) string {
		b, err := json.Marshal(s.Levels)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if levels(after) != levels(before) {
		t.Error("the levels changed with a copied run")
	}
	if len(after.Runs) != len(before.Runs) {
		t.Errorf("%d runs, want %d", len(after.Runs), len(before.Runs))
	}
	i := slices.IndexFunc(after.Exclusions, func(e Exclusion) bool { return e.Reason == "duplicate of c4/run-1: identical requests file" })
	if i < 0 {
		t.Fatalf("no exclusion for the copy in %+v", after.Exclusions)
	}
	if e := after.Exclusions[i]; e.Scope != ScopeRun || e.Count != 1 || !slices.Equal(e.Examples, []string{"c4/run-4"}) {
		t.Errorf("exclusion %+v", e)
	}
}
