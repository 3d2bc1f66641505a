package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/internal/outdir"
)

// TestAddRefusesNesting: an archive inside the sweep, a sweep inside the
// archive, or the two one directory, are refused before anything is
// written (issue 20: the second add held the first, 39 → 77 → 153 files).
func TestAddRefusesNesting(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "sweep")
	copyTree(t, example, sweep)
	arch := filepath.Join(root, "arch")
	addExample(t, arch, AddOptions{})
	inner := filepath.Join(arch, "sweep")
	copyTree(t, example, inner)
	tests := []struct {
		name, archive, sweep, want string
	}{
		{"archive inside the sweep", filepath.Join(sweep, "arch"), sweep,
			fmt.Sprintf("refusing to keep the archive %s inside the sweep %s: the next entry would hold this one; put the archive beside the sweep", filepath.Join(sweep, "arch"), sweep)},
		{"sweep inside the archive", arch, inner,
			fmt.Sprintf("refusing to add %s: the sweep lies inside the archive %s (archive a sweep from outside it)", inner, arch)},
		{"sweep inside another archive", filepath.Join(root, "other"), inner,
			fmt.Sprintf("refusing to add %s: the sweep lies inside the benchnote archive %s (archive a sweep from outside it)", inner, arch)},
		{"one directory", sweep, sweep, fmt.Sprintf("refusing to add %s to itself: the archive and the sweep are one directory", sweep)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := treeHash(t, root)
			_, err := Add(tt.archive, tt.sweep, AddOptions{Version: "test"})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
			if treeHash(t, root) != before {
				t.Error("a refused add changed the disk")
			}
		})
	}
}

// TestArchiveInsideSweepIsNotInput: an archive that lies inside a sweep
// (made by an earlier version) is skipped when the sweep is read, so the
// sweep's inputs are its own only.
func TestArchiveInsideSweepIsNotInput(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "sweep")
	copyTree(t, example, sweep)
	addExample(t, filepath.Join(sweep, "arch"), AddOptions{})
	e, err := Add(filepath.Join(root, "arch"), sweep, AddOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Inputs) != 48 {
		t.Errorf("%d inputs, want the example's 48", len(e.Inputs))
	}
	if len(e.Ignored) != 1 || e.Ignored[0].Path != "arch/" || !strings.HasPrefix(e.Ignored[0].Reason, "a benchnote archive (it holds archive.json), not input") {
		t.Errorf("ignored %+v, want the inner archive", e.Ignored)
	}
}

// TestManifestPathsAreQuoted: a path with a newline cannot forge another
// manifest's lines, and ordinary paths hash as they always did.
func TestManifestPathsAreQuoted(t *testing.T) {
	sum := strings.Repeat("a", 64)
	forged := []InputFile{{Path: "x\n" + sum + "  1  y", Bytes: 1, SHA256: sum}}
	split := []InputFile{{Path: "x", Bytes: 1, SHA256: sum}, {Path: "y", Bytes: 1, SHA256: sum}}
	if hashInputs(forged) == hashInputs(split) {
		t.Error("a path holding a newline hashes as two entries")
	}
	literal := []InputFile{{Path: `"x\ny"`, Bytes: 1, SHA256: sum}}
	control := []InputFile{{Path: "x\ny", Bytes: 1, SHA256: sum}}
	if hashInputs(literal) == hashInputs(control) {
		t.Error("a quoted-looking path hashes as the quoted control path")
	}
	// Unchanged for ordinary paths: the text hashed is the one the docs give.
	plain := []InputFile{{Path: "c1/run-1/requests.csv", Bytes: 12, SHA256: sum}}
	h := sha256.Sum256([]byte(sum + "  12  c1/run-1/requests.csv\n"))
	if got := hashInputs(plain); got != hex.EncodeToString(h[:]) {
		t.Errorf("plain path hash %s, want %x", got, h)
	}
	if got, want := manifestPath("a\x01b"), `"a\x01b"`; got != want {
		t.Errorf("manifestPath = %s, want %s", got, want)
	}
}

// TestZeroTimeIsRefused: a --time outside 1970–9999 (0001-01-01, the zero
// time, was silently replaced by the requests' time) is an error.
func TestZeroTimeIsRefused(t *testing.T) {
	for in, want := range map[string]string{
		"0001-01-01":           `time "0001-01-01": expected a time from 1970-01-01 to 9999-12-31, got 0001-01-01T00:00:00Z`,
		"1969-12-31T23:59:59Z": `time "1969-12-31T23:59:59Z": expected a time from 1970-01-01 to 9999-12-31, got 1969-12-31T23:59:59Z`,
	} {
		if _, err := ParseTime(in); err == nil || err.Error() != want {
			t.Errorf("ParseTime(%q): %v, want %s", in, err, want)
		}
	}
	if got, err := ParseTime("1970-01-01"); err != nil || !got.Equal(time.Unix(0, 0)) {
		t.Errorf("ParseTime(1970-01-01) = %v, %v", got, err)
	}
	_, err := Add(filepath.Join(t.TempDir(), "a"), example, AddOptions{Time: time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)})
	if want := "expected a time from 1970-01-01 to 9999-12-31, got 0001-01-02T00:00:00Z"; err == nil || err.Error() != want {
		t.Errorf("Add with year 1: %v, want %s", err, want)
	}
}

// TestEntriesAreChecked edits, removes and adds files in entries, and
// breaks one entry.json: Entries (sizes and presence) and Verify (every
// SHA-256) name what changed, per entry, and the others stay usable.
func TestEntriesAreChecked(t *testing.T) {
	root := t.TempDir()
	arch := filepath.Join(root, "arch")
	var ids []string
	for i := range 5 {
		sweep := filepath.Join(root, fmt.Sprintf("s%d", i))
		copyTree(t, example, sweep)
		os.WriteFile(filepath.Join(sweep, "sweep.yaml"), fmt.Appendf(nil, "title: sweep %d\n", i), 0o644)
		e, err := Add(arch, sweep, AddOptions{Version: "test", Time: time.Date(2026, 1, i+1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	entry := func(i int, p string) string { return filepath.Join(arch, ids[i], filepath.FromSlash(p)) }
	csv := "inputs/c1/run-1/requests.csv"
	data, err := os.ReadFile(entry(1, csv))
	if err != nil {
		t.Fatal(err)
	}
	// 1: same size, other content (only Verify sees it); 2: grown;
	// 3: a file removed and one added; 4: entry.json broken.
	same := []byte(strings.Replace(string(data), "ok", "OK", 1))
	os.WriteFile(entry(1, csv), same, 0o644)
	os.WriteFile(entry(2, csv), append(data, "\n"...), 0o644)
	os.Remove(entry(3, "summary.json"))
	os.WriteFile(entry(3, "notes.txt"), []byte("mine"), 0o644)
	os.WriteFile(entry(4, EntryFile), []byte("{"), 0o644)

	a, err := Open(arch)
	if err != nil {
		t.Fatal(err)
	}
	status := func(list []Listed) map[string]string {
		out := map[string]string{}
		for _, l := range list {
			out[l.ID] = l.Problem()
		}
		return out
	}
	cheap, err := a.Entries()
	if err != nil {
		t.Fatal(err)
	}
	wantCheap := map[string]string{
		ids[0]: "", ids[1]: "",
		ids[2]: fmt.Sprintf("modified since it was added: %s: %d bytes, recorded %d", csv, len(data)+1, len(data)),
		ids[3]: "modified since it was added: notes.txt: a file benchnote did not write (and 1 more)",
		ids[4]: fmt.Sprintf("unreadable: %s: unexpected EOF", entry(4, EntryFile)),
	}
	if got := status(cheap); !reflect.DeepEqual(got, wantCheap) {
		t.Errorf("Entries:\n%v\nwant\n%v", got, wantCheap)
	}
	if last := cheap[len(cheap)-1]; last.ID != ids[4] {
		t.Errorf("the unreadable entry is listed at %s, want last", last.ID)
	}
	full, err := a.Verify()
	if err != nil {
		t.Fatal(err)
	}
	wantFull := wantCheap
	wantFull[ids[1]] = "modified since it was added: " + csv + ": content changed (SHA-256 differs from the recorded one)"
	if got := status(full); !reflect.DeepEqual(got, wantFull) {
		t.Errorf("Verify:\n%v\nwant\n%v", got, wantFull)
	}
	for _, l := range full {
		if l.ID == ids[3] {
			if want := []string{"notes.txt: a file benchnote did not write", "summary.json: missing"}; !reflect.DeepEqual(l.Modified, want) {
				t.Errorf("entry 3: %q, want %q", l.Modified, want)
			}
		}
	}
	// An unreadable entry can still be excluded, and does not stop the others.
	if _, err := a.Exclude(ids[4][:6], "broken by hand", "test"); err != nil {
		t.Errorf("excluding the unreadable entry: %v", err)
	}
}

// TestStaleStagingIsRemoved: what a killed add left in the archive (a
// marked temporary entry) is removed by the next add; anything else there
// is left alone.
func TestStaleStagingIsRemoved(t *testing.T) {
	arch := filepath.Join(t.TempDir(), "arch")
	addExample(t, arch, AddOptions{})
	stage, err := outdir.BeginNew(arch, "entry", outdir.Options{Kind: outdir.Entry, InArchive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := stage.WriteFile("inputs/c1/run-1/requests.csv", []byte("half")); err != nil {
		t.Fatal(err)
	}
	// What a killed add leaves: the staging directory as it is now (its
	// lock dies with the process).
	left := filepath.Join(arch, ".entry.benchnote-tmp-killed")
	copyTree(t, stage.Path(), left)
	if err := stage.Abort(); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(arch, ".entry.benchnote-tmp-mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644)
	sweep := filepath.Join(t.TempDir(), "sweep")
	copyTree(t, example, sweep)
	os.WriteFile(filepath.Join(sweep, "sweep.yaml"), []byte("title: second\n"), 0o644)
	if _, err := Add(arch, sweep, AddOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the killed add's directory %s is still there (%v)", left, err)
	}
	if _, err := os.Stat(filepath.Join(mine, "notes.txt")); err != nil {
		t.Errorf("a directory benchnote did not write was touched: %v", err)
	}
}
