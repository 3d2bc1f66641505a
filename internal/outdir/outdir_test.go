package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// Three versions of a small report; their file names differ so that a
// mix of two would show.
var (
	reportA = map[string][]byte{"report.md": []byte("old report\n"), "plots/a.svg": []byte("<svg>a</svg>"), "summary.json": []byte("{\"v\": 1}\n")}
	reportB = map[string][]byte{"report.md": []byte("new report\n"), "plots/b.svg": []byte("<svg>b</svg>"), "plots/c.svg": []byte("<svg>c</svg>"), "summary.json": []byte("{\"v\": 2}\n")}
	reportC = map[string][]byte{"report.md": []byte("third\n"), "summary.json": []byte("{\"v\": 3}\n")}
)

// snapshot maps every path under root (relative, slash-separated) to its
// type, permissions and content, or link target. A missing root gives nil.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			snap[rel] = "link -> " + target
		case d.IsDir():
			snap[rel] = "dir " + info.Mode().Perm().String()
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			snap[rel] = "file " + info.Mode().Perm().String() + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// want is the snapshot of a directory Replace wrote with files.
func want(t *testing.T, files map[string][]byte) map[string]string {
	t.Helper()
	m, err := newManifest(files)
	if err != nil {
		t.Fatal(err)
	}
	snap := map[string]string{".": "dir -rwxr-xr-x", MarkerName: "file -rw-r--r-- " + string(m.marker())}
	for name, data := range files {
		snap[name] = "file -rw-r--r-- " + string(data)
		for d := filepath.ToSlash(filepath.Dir(name)); d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			snap[d] = "dir -rwxr-xr-x"
		}
	}
	return snap
}

// names lists a directory's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, data string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMarker pins the marker's layout (sums from sha256sum(1)) and that
// it parses back to the same manifest.
func TestMarker(t *testing.T) {
	m, err := newManifest(reportA)
	if err != nil {
		t.Fatal(err)
	}
	got := string(m.marker())
	wantText := "benchnote report directory, format 1\n" +
		"Written by `benchnote report`, which replaces or removes this directory only while it holds nothing but the files listed here, unchanged.\n" +
		"0aafb3298f8f5afd708a79e660945ac69ca189c582c653f86de6f88042a3d67c  12  plots/a.svg\n" +
		"1eb61b4513b285380c48fe89d63c387b3d0230d122e0a5c646bb7fa359b39e9f  11  report.md\n" +
		"4a48c7348d7982e297f57d640574d85d03aade6d7d7cd6c6ae2d0806bff62219  9  summary.json\n"
	if got != wantText {
		t.Errorf("marker:\n%s\nwant:\n%s", got, wantText)
	}
	back, err := parseMarker([]byte(got), false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("parsed marker %+v, want %+v", back, m)
	}
}

func TestParseMarkerErrors(t *testing.T) {
	head := markerHeader + "\n" + markerNote + "\n"
	line := "0aafb3298f8f5afd708a79e660945ac69ca189c582c653f86de6f88042a3d67c  12  plots/a.svg\n"
	tests := []struct {
		name, data string
		partial    bool
		want       string // error, or "" for a manifest of wantFiles
		wantFiles  int
	}{
		{"empty", "", false, ".benchnote-report has no complete line", 0},
		{"foreign header", "my notes\n", false, `.benchnote-report:1: "my notes" is not benchnote's marker header`, 0},
		{"header only", markerHeader + "\n", false, ".benchnote-report:2: line missing", 0},
		{"header only, partial", markerHeader + "\n", true, "", 0},
		{"unterminated", head + strings.TrimSuffix(line, "\n"), false, ".benchnote-report: last line not terminated", 0},
		{"cut short by a kill", head + line + line[:30], true, "", 1},
		{"bad sum", head + "xyz  1  a\n", false, `.benchnote-report:3: bad SHA-256 "xyz"`, 0},
		{"upper-case sum", head + strings.ToUpper(line[:64]) + line[64:], false, `.benchnote-report:3: bad SHA-256 "0AAFB3298F8F5AFD708A79E660945AC69CA189C582C653F86DE6F88042A3D67C"`, 0},
		{"negative size", head + line[:64] + "  -1  a\n", false, `.benchnote-report:3: bad size "-1"`, 0},
		{"path escapes", head + line[:64] + "  1  ../x\n", false, `.benchnote-report:3: refusing to write "../x": not a plain path inside the output directory`, 0},
		{"listed twice", head + line + line, false, `.benchnote-report:4: "plots/a.svg" listed twice`, 0},
		{"wrong note", markerHeader + "\nhello\n", true, `.benchnote-report:2: unexpected text "hello"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseMarker([]byte(tt.data), tt.partial)
			switch {
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("error %v, want %q", err, tt.want)
			case tt.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.want == "" && len(m.files) != tt.wantFiles:
				t.Errorf("%d files, want %d", len(m.files), tt.wantFiles)
			}
		})
	}
}

// FuzzParseMarker checks that no marker makes the parser panic and that
// whatever it accepts names only plain paths inside the directory.
func FuzzParseMarker(f *testing.F) {
	m, _ := newManifest(reportB)
	f.Add(m.marker(), false)
	f.Add(m.marker()[:100], true)
	f.Add([]byte(markerHeader+"\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, partial bool) {
		var m *manifest
		var err error
		fuzzbudget.Check(t, "parseMarker", len(data), func() { m, err = parseMarker(data, partial) })
		if err != nil {
			return
		}
		for name := range m.files {
			if checkName(name) != nil {
				t.Fatalf("accepted %q", name)
			}
		}
	})
}

func TestBadFileNames(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"../escape.md", `refusing to write "../escape.md": not a plain path inside the output directory`},
		{"/abs.md", `refusing to write "/abs.md": not a plain path inside the output directory`},
		{"a/../b.md", `refusing to write "a/../b.md": not a plain path inside the output directory`},
		{"", `refusing to write "": not a plain path inside the output directory`},
		{MarkerName, `refusing to write ".benchnote-report": benchnote writes that file itself`},
		{"bad\x1bname.md", `refusing to write "bad\x1bname.md": control character in the file name`},
		{"report.md/x", `refusing to write "report.md/x": "report.md" is also a file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			if err := Replace(out, reportA, Options{}); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			files := map[string][]byte{"report.md": []byte("x"), tt.name: []byte("y")}
			err := Replace(out, files, Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("a refused write changed the disk:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestReplace writes over each kind of OUT that may be replaced and checks
// OUT then holds exactly the new files and its marker, with nothing left
// next to it.
func TestReplace(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, out string)
	}{
		{"absent", func(t *testing.T, out string) {}},
		{"absent, parent absent too", func(t *testing.T, out string) { os.Remove(filepath.Dir(out)) }},
		{"empty directory", func(t *testing.T, out string) { mkdir(t, out) }},
		{"previous report", func(t *testing.T, out string) {
			if err := Replace(out, reportA, Options{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"previous report missing a file", func(t *testing.T, out string) {
			if err := Replace(out, reportA, Options{}); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(out, "plots", "a.svg"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), "p")
			mkdir(t, parent)
			out := filepath.Join(parent, "out")
			tt.setup(t, out)
			if err := Replace(out, reportB, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := snapshot(t, out); !reflect.DeepEqual(got, want(t, reportB)) {
				t.Errorf("OUT holds %v\nwant %v", got, want(t, reportB))
			}
			if got := names(t, parent); !reflect.DeepEqual(got, []string{"out"}) {
				t.Errorf("next to OUT: %q, want only out", got)
			}
		})
	}
}

// TestRefused tries every kind of OUT that must not be replaced: Replace
// (and Check) refuse with a message naming the path and the reason, and
// not one byte under the test's directory changes.
func TestRefused(t *testing.T) {
	type setup func(t *testing.T, root string) (out string, inputs []string, reason string)
	sweep := func(t *testing.T, root string) string {
		s := filepath.Join(root, "sweep")
		write(t, filepath.Join(s, "c1", "run-1", "requests.csv"), "request_id\n1\n")
		write(t, filepath.Join(s, "sweep.yaml"), "title: t\n")
		return s
	}
	report := func(t *testing.T, root string) string {
		out := filepath.Join(root, "out")
		if err := Replace(out, reportA, Options{}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name  string
		setup setup
	}{
		{"the input sweep", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			return s, []string{s}, fmt.Sprintf("it is the input %q", s)
		}},
		{"the input sweep, spelt another way", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			return filepath.Join(s, "c1", ".."), []string{s}, fmt.Sprintf("it is the input %q", s)
		}},
		{"the input sweep, given through a link", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			link := filepath.Join(root, "link")
			if err := os.Symlink(s, link); err != nil {
				t.Fatal(err)
			}
			return s, []string{link}, fmt.Sprintf("it is the input %q", link)
		}},
		{"a directory above the sweep", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			return root, []string{s}, fmt.Sprintf("it contains the input %q", s)
		}},
		{"a run directory inside the sweep", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			return filepath.Join(s, "c1", "run-1"), []string{s}, fmt.Sprintf("it lies inside the input %q (write it beside the input instead)", s)
		}},
		{"a new directory inside the sweep", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			return filepath.Join(s, "report", "new"), []string{s}, fmt.Sprintf("it lies inside the input %q (write it beside the input instead)", s)
		}},
		{"a run directory of a sweep that is not an input", func(t *testing.T, root string) (string, []string, string) {
			s := sweep(t, root)
			return filepath.Join(s, "c1", "run-1"), nil, `it holds 1 entry that benchnote did not write (first: "requests.csv")`
		}},
		{"a user's empty directory tree", func(t *testing.T, root string) (string, []string, string) {
			p := filepath.Join(root, "proj")
			for _, d := range []string{"src/main", "docs", ".git/objects"} {
				mkdir(t, filepath.Join(p, d))
			}
			return p, nil, `it holds 3 entries that benchnote did not write (first: ".git")`
		}},
		{"inside an archive", func(t *testing.T, root string) (string, []string, string) {
			a := filepath.Join(root, "arch")
			write(t, filepath.Join(a, ArchiveMarkerName), "{\n  \"schema\": \"benchnote.archive/v1\"\n}\n")
			return filepath.Join(a, "aaaaaaaaaaaaaaaa"), nil, fmt.Sprintf("it lies inside the benchnote archive %q, where only `benchnote archive add` writes", a)
		}},
		{"an archive", func(t *testing.T, root string) (string, []string, string) {
			a := filepath.Join(root, "arch")
			write(t, filepath.Join(a, ArchiveMarkerName), "{\"schema\":\"benchnote.archive/v1\"}\n")
			return a, nil, "it is a benchnote archive"
		}},
		{"an imported sweep", func(t *testing.T, root string) (string, []string, string) {
			out := filepath.Join(root, "imp")
			if err := Replace(out, reportA, Options{Kind: Sweep}); err != nil {
				t.Fatal(err)
			}
			return out, nil, "it is an imported sweep benchnote wrote (it holds .benchnote-sweep), not a report"
		}},
		{"a directory with other files", func(t *testing.T, root string) (string, []string, string) {
			d := filepath.Join(root, "docs")
			write(t, filepath.Join(d, "b.txt"), "b")
			write(t, filepath.Join(d, "a.txt"), "a")
			return d, nil, `it holds 2 entries that benchnote did not write (first: "a.txt")`
		}},
		{"a regular file", func(t *testing.T, root string) (string, []string, string) {
			f := filepath.Join(root, "notes.txt")
			write(t, f, "precious")
			return f, nil, "it is a file, not a directory"
		}},
		{"a link to an empty directory", func(t *testing.T, root string) (string, []string, string) {
			mkdir(t, filepath.Join(root, "empty"))
			link := filepath.Join(root, "out")
			if err := os.Symlink("empty", link); err != nil {
				t.Fatal(err)
			}
			return link, nil, "it is a symbolic link (benchnote replaces only a real directory, never a link or what it points to)"
		}},
		{"a report with a file added", func(t *testing.T, root string) (string, []string, string) {
			out := report(t, root)
			write(t, filepath.Join(out, "plots", "mine.txt"), "user notes")
			return out, nil, fmt.Sprintf("it holds %q, which benchnote did not write", filepath.Join(out, "plots", "mine.txt"))
		}},
		{"a report with a directory added", func(t *testing.T, root string) (string, []string, string) {
			out := report(t, root)
			mkdir(t, filepath.Join(out, "extra"))
			return out, nil, fmt.Sprintf("it holds the directory %q, which benchnote did not write", filepath.Join(out, "extra"))
		}},
		{"a report with a file edited", func(t *testing.T, root string) (string, []string, string) {
			out := report(t, root)
			write(t, filepath.Join(out, "report.md"), "old report, annotated\n")
			return out, nil, fmt.Sprintf("%q was changed after benchnote wrote it", filepath.Join(out, "report.md"))
		}},
		{"a report with a file edited to the same size", func(t *testing.T, root string) (string, []string, string) {
			out := report(t, root)
			write(t, filepath.Join(out, "report.md"), "OLD REPORT\n")
			return out, nil, fmt.Sprintf("%q was changed after benchnote wrote it", filepath.Join(out, "report.md"))
		}},
		{"a report with a link in it", func(t *testing.T, root string) (string, []string, string) {
			out := report(t, root)
			if err := os.Symlink("/", filepath.Join(out, "root")); err != nil {
				t.Fatal(err)
			}
			return out, nil, fmt.Sprintf("it holds %q, which is not a regular file", filepath.Join(out, "root"))
		}},
		{"a directory with a foreign marker", func(t *testing.T, root string) (string, []string, string) {
			d := filepath.Join(root, "d")
			write(t, filepath.Join(d, MarkerName), "not ours\n")
			return d, nil, `its marker is not one benchnote wrote: .benchnote-report:1: "not ours" is not benchnote's marker header`
		}},
		{"the current directory", func(t *testing.T, root string) (string, []string, string) {
			d := filepath.Join(root, "cwd")
			mkdir(t, d)
			t.Chdir(d)
			return ".", nil, "it is the current directory"
		}},
		{"a directory above the current one", func(t *testing.T, root string) (string, []string, string) {
			d := filepath.Join(root, "empty", "cwd")
			mkdir(t, d)
			t.Chdir(d)
			return "..", nil, "it contains the current directory"
		}},
		{"an input notebook inside a report", func(t *testing.T, root string) (string, []string, string) {
			out := report(t, root)
			nb := filepath.Join(out, "report.md")
			return out, []string{nb}, fmt.Sprintf("it contains the input %q", nb)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			out, inputs, reason := tt.setup(t, root)
			before := snapshot(t, root)
			wantErr := (&RefusedError{Path: out, Reason: reason}).Error()
			for _, call := range []struct {
				name string
				fn   func() error
			}{
				{"Check", func() error { return Check(out, Options{Inputs: inputs}) }},
				{"Replace", func() error { return Replace(out, reportB, Options{Inputs: inputs}) }},
			} {
				err := call.fn()
				var refused *RefusedError
				if !errors.As(err, &refused) || err.Error() != wantErr {
					t.Errorf("%s: error %v\nwant %s", call.name, err, wantErr)
				}
			}
			if after := snapshot(t, root); !reflect.DeepEqual(after, before) {
				t.Errorf("refused, yet the disk changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestRemoveStale leaves temporary directories next to OUT as a killed
// run would, plus look-alikes, and checks which ones the next run removes.
func TestRemoveStale(t *testing.T) {
	mB, _ := newManifest(reportB)
	markerB := string(mB.marker())
	tests := []struct {
		name    string
		entries map[string]string // path under the parent -> content; "/" suffix: directory
		removed bool
	}{
		{"marker and some of its files", map[string]string{".out.benchnote-tmp-1/" + MarkerName: markerB, ".out.benchnote-tmp-1/report.md": "new re"}, true},
		{"marker only, cut short", map[string]string{".out.benchnote-tmp-2/" + MarkerName: markerB[:len(markerB)-20]}, true},
		{"previous copy moved aside", map[string]string{".out.benchnote-tmp-3.old/" + MarkerName: markerB, ".out.benchnote-tmp-3.old/plots/b.svg": "<svg>b</svg>"}, true},
		{"empty", map[string]string{".out.benchnote-tmp-4/": ""}, true},
		{"no marker", map[string]string{".out.benchnote-tmp-5/report.md": "mine"}, false},
		{"marker and a file it does not list", map[string]string{".out.benchnote-tmp-6/" + MarkerName: markerB, ".out.benchnote-tmp-6/mine.txt": "mine"}, false},
		{"foreign marker", map[string]string{".out.benchnote-tmp-7/" + MarkerName: "mine\n", ".out.benchnote-tmp-7/report.md": "x"}, false},
		{"another OUT's temporary directory", map[string]string{".other.benchnote-tmp-8/" + MarkerName: markerB}, false},
		{"a file named like one", map[string]string{".out.benchnote-tmp-9": "mine"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			for p, content := range tt.entries {
				if strings.HasSuffix(p, "/") {
					mkdir(t, filepath.Join(parent, p))
					continue
				}
				write(t, filepath.Join(parent, p), content)
			}
			before := snapshot(t, parent)
			if err := Replace(filepath.Join(parent, "out"), reportC, Options{}); err != nil {
				t.Fatal(err)
			}
			after := snapshot(t, parent)
			for p := range before {
				if p == "." {
					continue
				}
				_, kept := after[p]
				if kept == tt.removed {
					t.Errorf("%s: kept %v, want kept %v", p, kept, !tt.removed)
				}
				if kept && after[p] != before[p] {
					t.Errorf("%s changed: %q -> %q", p, before[p], after[p])
				}
			}
		})
	}
}

// TestConcurrentReplace runs writers of different reports to one OUT at
// once: the lock makes them take turns, so every one succeeds and OUT ends
// as exactly one of the reports, with nothing left next to it.
func TestConcurrentReplace(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if err := Replace(out, reportA, Options{}); err != nil {
		t.Fatal(err)
	}
	versions := []map[string][]byte{reportA, reportB, reportC, {"x.md": []byte("x")}}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for _, v := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if err := Replace(out, v, Options{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := snapshot(t, out)
	whole := false
	for _, v := range versions {
		whole = whole || reflect.DeepEqual(got, want(t, v))
	}
	if !whole {
		t.Errorf("OUT is not one whole report: %v", got)
	}
	if got := names(t, parent); !reflect.DeepEqual(got, []string{"out"}) {
		t.Errorf("next to OUT: %q, want only out", got)
	}
}

// TestSwapByRenames checks the portable swap on its own: the result, and
// that a failed second rename puts OUT back.
func TestSwapByRenames(t *testing.T) {
	parent := t.TempDir()
	out, next := filepath.Join(parent, "out"), filepath.Join(parent, ".out.benchnote-tmp-1")
	write(t, filepath.Join(out, "old"), "old")
	write(t, filepath.Join(next, "new"), "new")
	oldAt, err := swapByRenames(next, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if oldAt != next+".old" {
		t.Errorf("previous copy at %s, want %s", oldAt, next+".old")
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, map[string]string{".": "dir -rwxr-xr-x", "new": "file -rw-r--r-- new"}) {
		t.Errorf("OUT = %v", got)
	}
	// The second rename fails (the new directory is gone): OUT comes back.
	if _, err := swapByRenames(filepath.Join(parent, "missing"), out, nil); err == nil {
		t.Fatal("no error for a missing new directory")
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, map[string]string{".": "dir -rwxr-xr-x", "new": "file -rw-r--r-- new"}) {
		t.Errorf("OUT after a failed swap = %v", got)
	}
}
