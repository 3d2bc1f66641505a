package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/internal/outdir"
)

// TestLoadSkipsReports checks that a report benchnote wrote inside the
// sweep is never read as data, even when it holds a file named like a
// run's, and is listed as ignored with the reason; a directory whose
// marker benchnote did not write is read as usual.
func TestLoadSkipsReports(t *testing.T) {
	root := writeTree(t, map[string]string{
		"c4/run-1/requests.csv":        okCSV,
		"c4/foreign/requests.csv":      okCSV,
		"c4/foreign/.benchnote-report": "my own notes\n",
	})
	if err := outdir.Replace(filepath.Join(root, "c4", "report"), map[string][]byte{"requests.csv": []byte(okCSV), "report.md": []byte("# r\n")}, outdir.Options{}); err != nil {
		t.Fatal(err)
	}
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, r := range sw.Runs {
		runs = append(runs, r.Dir)
	}
	if got, want := strings.Join(runs, " "), "c4/foreign c4/run-1"; got != want {
		t.Errorf("runs = %q, want %q", got, want)
	}
	var ignored []string
	for _, f := range sw.IgnoredFiles {
		ignored = append(ignored, f.Path+" ("+f.Reason+")")
	}
	want := "c4/foreign/.benchnote-report (not part of the input contract); c4/report/ (a report benchnote wrote (it holds .benchnote-report), not input)"
	if got := strings.Join(ignored, "; "); got != want {
		t.Errorf("ignored = %q\nwant      %q", got, want)
	}
}

// TestLoadRootSymlink loads a sweep given as a symbolic link to its
// directory: the same runs as through the real path.
func TestLoadRootSymlink(t *testing.T) {
	root := writeTree(t, map[string]string{"c2/run-1/requests.csv": okCSV, "c2/run-2/requests.csv": okCSV})
	link := filepath.Join(t.TempDir(), "sweep")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	sw, err := Load(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Runs) != 2 || sw.Runs[0].Dir != "c2/run-1" || sw.Runs[1].Dir != "c2/run-2" || sw.Runs[0].Failed {
		t.Fatalf("runs through the link = %+v, want c2/run-1 and c2/run-2", sw.Runs)
	}
	if sw.Runs[0].Requests == nil || sw.Runs[0].Requests.RowsRead != 1 {
		t.Errorf("c2/run-1 was not read through the link: %+v", sw.Runs[0].Requests)
	}
	if sw.Root != link || len(sw.Diagnostics) != 0 || len(sw.IgnoredFiles) != 0 {
		t.Errorf("root %q, diagnostics %v, ignored %v", sw.Root, sw.Diagnostics, sw.IgnoredFiles)
	}
}
