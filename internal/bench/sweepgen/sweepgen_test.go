package sweepgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnsureRefusesForeignFiles: Ensure writes over a partial sweep of its
// own, but never into a directory holding a file it does not write.
func TestEnsureRefusesForeignFiles(t *testing.T) {
	cfg := Config{Levels: []int{1}, Runs: 1, Rows: 5, Format: "csv"}
	dir := filepath.Join(t.TempDir(), "sweep")
	own := filepath.Join(dir, "c1", "run-1", "requests.csv")
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(dir, cfg); err != nil {
		t.Fatalf("a partial sweep of its own: %v", err)
	}
	foreign := filepath.Join(t.TempDir(), "sweep")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(foreign, cfg); err == nil || !strings.Contains(err.Error(), "holds notes.txt") {
		t.Errorf("Ensure into a directory with notes.txt: %v, want a refusal naming the file", err)
	}
	if data, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(data) != "mine" {
		t.Error("notes.txt changed")
	}
}
