package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/outdir"
)

func layoutOf(t *testing.T, files ...string) map[string][]byte {
	t.Helper()
	imp, err := ImportFiles(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Layout(imp)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Write replaces nothing it did not write: an empty or missing directory
// is written, a previous import is replaced, and a directory holding
// anything else, or a previous import with a file changed or added, or an
// import of an earlier version, is refused and left as it was.
func TestWriteSafety(t *testing.T) {
	src := filepath.Join(fixtures, "vllm", "recent.json")
	files := layoutOf(t, src)
	root := t.TempDir()
	out := filepath.Join(root, "sweep")
	refused := func(dir, reason string) string {
		return (&outdir.RefusedError{Path: dir, Reason: reason, Kind: outdir.Sweep}).Error()
	}

	if err := Write(out, files, []string{src}); err != nil {
		t.Fatalf("new directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "c4", "run-1", ingest.RequestsParquet)); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, files, []string{src}); err != nil {
		t.Fatalf("replacing a previous import: %v", err)
	}

	added := filepath.Join(out, "c4", "run-1", ingest.ScrapeEndFile)
	if err := os.WriteFile(added, []byte("# scrape\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, files, nil); err == nil || err.Error() != refused(out, fmt.Sprintf("it holds %q, which benchnote did not write", added)) {
		t.Fatalf("added file: %v", err)
	}
	if _, err := os.Stat(added); err != nil {
		t.Fatalf("the user's file is gone: %v", err)
	}
	os.Remove(added)

	runYAML := filepath.Join(out, "c4", "run-1", ingest.RunConfigFile)
	if err := os.WriteFile(runYAML, []byte("concurrency: 4\nnotes: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, files, nil); err == nil || err.Error() != refused(out, fmt.Sprintf("%q was changed after benchnote wrote it", runYAML)) {
		t.Fatalf("changed file: %v", err)
	}

	other := filepath.Join(root, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o644)
	if err := Write(other, files, nil); err == nil || err.Error() != refused(other, `it holds 1 entry that benchnote did not write (first: "notes.txt")`) {
		t.Fatalf("foreign directory: %v", err)
	}
	earlier := filepath.Join(root, "earlier")
	os.MkdirAll(earlier, 0o755)
	os.WriteFile(filepath.Join(earlier, ingest.ImportRecordFile), []byte("written_by: benchnote import\n"), 0o644)
	if err := Write(earlier, files, nil); err == nil || err.Error() != refused(earlier,
		"it is an import written by an earlier benchnote (it holds benchnote-import.yaml but no .benchnote-sweep marker), which this version does not replace; remove it yourself if you no longer need it") {
		t.Fatalf("an earlier import: %v", err)
	}
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)
	if err := Write(empty, files, nil); err != nil {
		t.Fatalf("empty directory: %v", err)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
}

// The same input gives the same bytes, and the written sweep loads.
func TestLayoutDeterministicAndLoads(t *testing.T) {
	a := layoutOf(t, filepath.Join(fixtures, "aiperf"))
	b := layoutOf(t, filepath.Join(fixtures, "aiperf"))
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for name, data := range a {
		if string(b[name]) != string(data) {
			t.Errorf("%s differs between two imports", name)
		}
	}
	out := filepath.Join(t.TempDir(), "sweep")
	if err := Write(out, a, nil); err != nil {
		t.Fatal(err)
	}
	sw, err := ingest.Load(out, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Runs) != 1 || sw.Runs[0].Failed || len(sw.IgnoredFiles) != 0 || len(sw.Diagnostics) != 0 {
		t.Fatalf("runs %d, ignored %v, diagnostics %v", len(sw.Runs), sw.IgnoredFiles, sw.Diagnostics)
	}
	r := sw.Runs[0]
	if r.Provenance == nil || r.Provenance.Tool != "AIPerf" || r.Load != ingest.ConcurrencyLoad(2) || len(r.Diagnostics) != 0 {
		t.Errorf("run %+v, diagnostics %v", r.Provenance, r.Diagnostics)
	}
	if r.Requests.RowsRead != 5 || len(r.Requests.Excluded) != 0 {
		t.Errorf("rows %d, excluded %v", r.Requests.RowsRead, r.Requests.Excluded)
	}
}
