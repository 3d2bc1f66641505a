package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// wantKind is want for a directory of kind.
func wantKind(t *testing.T, kind Kind, files map[string][]byte) map[string]string {
	t.Helper()
	snap := want(t, files)
	m, _ := newManifest(files)
	delete(snap, MarkerName)
	snap[kind.MarkerName()] = "file -rw-r--r-- " + string(m.markerOf(kind))
	return snap
}

// TestSweepKind writes an imported sweep: its own marker, replaced by a
// later import, never by a report, and never replacing one.
func TestSweepKind(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "sweep")
	if err := Replace(out, reportA, Options{Kind: Sweep}); err != nil {
		t.Fatal(err)
	}
	if err := Replace(out, reportB, Options{Kind: Sweep}); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, wantKind(t, Sweep, reportB)) {
		t.Errorf("OUT holds %v\nwant %v", got, wantKind(t, Sweep, reportB))
	}
	wantMarker := "benchnote imported sweep, format 1\n" +
		"Written by `benchnote import`, which replaces or removes this directory only while it holds nothing but the files listed here, unchanged.\n"
	if m := snapshot(t, out)[SweepMarkerName]; !strings.HasPrefix(m, "file -rw-r--r-- "+wantMarker) {
		t.Errorf("marker %q, want it to start %q", m, wantMarker)
	}
	err := Replace(out, reportC, Options{})
	want := fmt.Sprintf(`refusing to write the report to %q: it is an imported sweep benchnote wrote (it holds .benchnote-sweep), not a report; the output directory must be absent, empty or a report benchnote wrote (marked by .benchnote-report); nothing was changed`, out)
	if err == nil || err.Error() != want {
		t.Errorf("a report over an import: %v\nwant %s", err, want)
	}
	rep := filepath.Join(parent, "report")
	if err := Replace(rep, reportA, Options{}); err != nil {
		t.Fatal(err)
	}
	err = Replace(rep, reportC, Options{Kind: Sweep})
	want = fmt.Sprintf(`refusing to write an imported sweep to %q: it is a report benchnote wrote (it holds .benchnote-report), not an imported sweep; the output directory must be absent, empty or an imported sweep benchnote wrote (marked by .benchnote-sweep); nothing was changed`, rep)
	if err == nil || err.Error() != want {
		t.Errorf("an import over a report: %v\nwant %s", err, want)
	}
	if IsMarked(out) || !IsMarked(rep) {
		t.Errorf("IsMarked: import %v, report %v; want false, true (only reports are skipped as input)", IsMarked(out), IsMarked(rep))
	}
}

// TestStreamedFiles writes a directory in pieces with Create, reads it
// back through Path before Commit, and checks the marker pins what was
// written.
func TestStreamedFiles(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	d, err := Begin(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	f, err := d.Create("plots/a.svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, piece := range []string{"<svg>", "a", "</svg>"} {
		if _, err := f.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Commit(); err == nil || err.Error() != "outdir: 1 files of "+out+" still open at Commit" {
		t.Errorf("Commit with a file open: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"report.md": "old report\n", "summary.json": "{\"v\": 1}\n"} {
		if err := d.WriteFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteFile("report.md", nil); err == nil || err.Error() != `refusing to write "report.md" twice` {
		t.Errorf("a second report.md: %v", err)
	}
	if err := d.WriteFile("plots", nil); err == nil || err.Error() != `refusing to write "plots": it is also a directory` {
		t.Errorf("a file named like a directory: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(d.Path(), "report.md")); err != nil || string(data) != "old report\n" {
		t.Errorf("read back before Commit: %q, %v", data, err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OUT exists before Commit: %v", err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, want(t, reportA)) {
		t.Errorf("OUT holds %v\nwant %v", got, want(t, reportA))
	}
	if err := d.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	if err := d.WriteFile("late.md", nil); err == nil {
		t.Error("a write after Commit was accepted")
	}
	if got := names(t, parent); !reflect.DeepEqual(got, []string{"out"}) {
		t.Errorf("next to OUT: %q", got)
	}
}

// TestAbortLeavesNothing aborts a half-written directory: OUT keeps its
// previous content and nothing is left beside it.
func TestAbortLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if err := Replace(out, reportA, Options{}); err != nil {
		t.Fatal(err)
	}
	d, err := Begin(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("report.md", []byte("half")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Create("plots/b.svg"); err != nil {
		t.Fatal(err)
	}
	if err := d.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, want(t, reportA)) {
		t.Errorf("OUT holds %v\nwant the previous report", got)
	}
	if got := names(t, parent); !reflect.DeepEqual(got, []string{"out"}) {
		t.Errorf("next to OUT: %q", got)
	}
}

// TestBeginNew writes two directories named at commit, as archive entries
// are: the second with a name taken fails with fs.ErrExist and leaves the
// first untouched.
func TestBeginNew(t *testing.T) {
	parent := t.TempDir()
	write(t, filepath.Join(parent, ArchiveMarkerName), `{"schema": "benchnote.archive/v1"}`)
	add := func(name string, files map[string][]byte) error {
		d, err := BeginNew(parent, "entry", Options{Kind: Entry, InArchive: true})
		if err != nil {
			return err
		}
		defer d.Abort()
		for n, data := range files {
			if err := d.WriteFile(n, data); err != nil {
				return err
			}
		}
		return d.CommitNew(name)
	}
	if err := add("0123456789abcdef", reportA); err != nil {
		t.Fatal(err)
	}
	err := add("0123456789abcdef", reportB)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("a second entry with the same name: %v, want fs.ErrExist", err)
	}
	if got := snapshot(t, filepath.Join(parent, "0123456789abcdef")); !reflect.DeepEqual(got, wantKind(t, Entry, reportA)) {
		t.Errorf("entry holds %v\nwant %v", got, wantKind(t, Entry, reportA))
	}
	if got := names(t, parent); !reflect.DeepEqual(got, []string{"0123456789abcdef", ArchiveMarkerName}) {
		t.Errorf("in the archive: %q", got)
	}
	if err := add("../x", reportC); err == nil || err.Error() != `outdir: "../x" is not a plain directory name` {
		t.Errorf("a name outside the parent: %v", err)
	}
	_, err = BeginNew(parent, "entry", Options{Kind: Entry})
	if want := "it lies inside the benchnote archive"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("an entry without InArchive: %v, want %q", err, want)
	}
}

// TestRemoveStalePending leaves the temporary directory of a run killed
// while writing (its marker names pending files), of each kind: the next
// run removes it; one holding a file its marker does not name stays.
func TestRemoveStalePending(t *testing.T) {
	for k := range numKinds {
		t.Run(k.String(), func(t *testing.T) {
			parent := t.TempDir()
			info := k.info()
			head := info.header + "\n" + info.note + "\n"
			stale := filepath.Join(parent, ".out.benchnote-tmp-1")
			write(t, filepath.Join(stale, info.marker), head+"-  -  report.md\n-  -  plots/a.svg\n-  -  plo")
			write(t, filepath.Join(stale, "report.md"), "whole")
			write(t, filepath.Join(stale, "plots", "a.svg"), "<sv")
			for i, cut := range []int{0, 10, len(head) - 1} {
				write(t, filepath.Join(parent, fmt.Sprintf(".out.benchnote-tmp-begun%d", i), info.marker), head[:cut])
			}
			write(t, filepath.Join(parent, ".out.benchnote-tmp-3", info.marker), "not a marker")
			kept := filepath.Join(parent, ".out.benchnote-tmp-2")
			write(t, filepath.Join(kept, info.marker), head+"-  -  report.md\n")
			write(t, filepath.Join(kept, "notes.txt"), "mine")
			if err := Replace(filepath.Join(parent, "out"), reportC, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := names(t, parent); !reflect.DeepEqual(got, []string{".out.benchnote-tmp-2", ".out.benchnote-tmp-3", "out"}) {
				t.Errorf("after the next run: %q, want the foreign one kept and OUT", got)
			}
		})
	}
}

// TestParsePendingMarker: pending lines are read only from a marker being
// written (partial), never from a complete one.
func TestParsePendingMarker(t *testing.T) {
	data := []byte(markerHeader + "\n" + markerNote + "\n-  -  report.md\n")
	m, err := parseMarker(data, true)
	if err != nil || len(m.files) != 1 || !m.files["report.md"].pending {
		t.Errorf("partial: %+v, %v", m, err)
	}
	if _, err := parseMarker(data, false); err == nil || err.Error() != `.benchnote-report:3: bad SHA-256 "-"` {
		t.Errorf("complete: %v", err)
	}
}
