package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/benchnote/benchnote/internal/outdir"
)

// tinyCSV is a run of 3 requests with 2 output tokens or more.
const tinyCSV = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
	"a,10,3,100,140,ok\nb,10,4,110,170,ok\nc,10,5,120,200,ok\n"

// tinySweep writes a sweep of 3 runs at concurrency 2 under dir and
// returns its path; extra adds files (slash paths under the sweep). The
// runs' figures are the same, their first request's id not (identical
// files would be one run).
func tinySweep(t *testing.T, dir string, extra map[string]string) string {
	t.Helper()
	files := map[string]string{
		"sweep.yaml":            "title: tiny\nwarmup: none\n",
		"c2/run-1/requests.csv": tinyCSV,
		"c2/run-2/requests.csv": strings.Replace(tinyCSV, "\na,", "\nd,", 1),
		"c2/run-3/requests.csv": strings.Replace(tinyCSV, "\na,", "\ne,", 1),
	}
	for p, c := range extra {
		files[p] = c
	}
	sweep := filepath.Join(dir, "sweep")
	for p, c := range files {
		full := filepath.Join(sweep, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return sweep
}

// treeHash hashes every name, type, permission, content and link target
// under root, so that any change to the tree changes it.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		line := fmt.Sprintf("%q %s", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(lines, "\n"))))
}

// TestReportRefusesOUT gives report every kind of OUT it must not
// replace: exit code 2, one line on stderr naming the path and the reason,
// nothing on stdout, and not one byte changed anywhere in the test's tree.
func TestReportRefusesOUT(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, root, sweep string) (in, out, reason string)
		chdir  string // directory to run in, relative to root
		prefix string
	}{
		{name: "the input sweep", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			return sweep, sweep, fmt.Sprintf("it is the input %q", sweep)
		}},
		{name: "the input sweep, relative and spelt another way", chdir: ".", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			return "sweep", "sweep/c2/..", `it is the input "sweep"`
		}},
		{name: "the input sweep, given through a link", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			link := filepath.Join(root, "link")
			if err := os.Symlink(sweep, link); err != nil {
				t.Fatal(err)
			}
			return link, sweep, fmt.Sprintf("it is the input %q", link)
		}},
		{name: "one run of the sweep", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			return sweep, filepath.Join(sweep, "c2", "run-1"), fmt.Sprintf("it lies inside the input %q (write it beside the input instead)", sweep)
		}},
		{name: "a level of the sweep", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			return sweep, filepath.Join(sweep, "c2"), fmt.Sprintf("it lies inside the input %q (write it beside the input instead)", sweep)
		}},
		{name: "a new directory inside the sweep", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			return sweep, filepath.Join(sweep, "report"), fmt.Sprintf("it lies inside the input %q (write it beside the input instead)", sweep)
		}},
		{name: "the directory above the sweep", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			return sweep, root, fmt.Sprintf("it contains the input %q", sweep)
		}},
		{name: "a directory with other files", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			d := filepath.Join(root, "project")
			os.MkdirAll(filepath.Join(d, "src"), 0o755)
			os.WriteFile(filepath.Join(d, "go.mod"), []byte("module x\n"), 0o644)
			return sweep, d, `it holds 2 entries that benchnote did not write (first: "go.mod")`
		}},
		{name: "a regular file", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			f := filepath.Join(root, "results.txt")
			os.WriteFile(f, []byte("precious"), 0o600)
			return sweep, f, "it is a file, not a directory"
		}},
		{name: "the current directory", chdir: "empty", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			os.Mkdir(filepath.Join(root, "empty"), 0o755)
			return sweep, ".", "it is the current directory"
		}},
		{name: "a link to an empty directory", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			os.Mkdir(filepath.Join(root, "empty"), 0o755)
			link := filepath.Join(root, "out")
			os.Symlink("empty", link)
			return sweep, link, "it is a symbolic link (benchnote replaces only a real directory, never a link or what it points to)"
		}},
		{name: "an old report with a file the user added", setup: func(t *testing.T, root, sweep string) (string, string, string) {
			out := filepath.Join(root, "out")
			if code := Run([]string{"report", sweep, "-o", out}, &bytes.Buffer{}, &bytes.Buffer{}); code != ExitClean {
				t.Fatalf("first report: exit %d", code)
			}
			os.WriteFile(filepath.Join(out, "notes.md"), []byte("my notes"), 0o644)
			return sweep, out, fmt.Sprintf("it holds %q, which benchnote did not write", filepath.Join(out, "notes.md"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			sweep := tinySweep(t, root, nil)
			in, out, reason := tt.setup(t, root, sweep)
			if tt.chdir != "" {
				t.Chdir(filepath.Join(root, tt.chdir))
			}
			before := treeHash(t, root)
			var stdout, stderr bytes.Buffer
			code := Run([]string{"report", in, "-o", out}, &stdout, &stderr)
			want := "benchnote report: " + (&outdir.RefusedError{Path: out, Reason: reason}).Error() + "\n"
			if code != ExitErrors || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q\nstderr %q\nwant 2 and %q", code, stdout.String(), stderr.String(), want)
			}
			if after := treeHash(t, root); after != before {
				t.Error("the refused run changed the disk")
			}
		})
	}
}

// TestReportInsideSweepIsSkipped: report never writes inside its sweep
// (TestReportRefusesOUT), but a report that lies inside one (written there
// by an earlier benchnote, or made from another sweep) is skipped by its
// marker: validate and report list it as ignored and read the same runs.
func TestReportInsideSweepIsSkipped(t *testing.T) {
	sweep := tinySweep(t, t.TempDir(), nil)
	other := tinySweep(t, t.TempDir(), nil)
	out := filepath.Join(sweep, "report")
	first := reportTree(t, other, out)
	if _, ok := first[outdir.MarkerName]; !ok {
		t.Fatalf("no %s in the report: %v", outdir.MarkerName, first)
	}
	var stdout, stderr bytes.Buffer
	code := Run([]string{"validate", sweep}, &stdout, &stderr)
	if code != ExitWarnings {
		t.Errorf("validate exit %d, want 1 (the sweep's own two warnings)\n%s", code, stdout.String())
	}
	for _, want := range []string{
		": 3 runs at 1 concurrency level\n",
		"\ninfo: report-inside-sweep: skipped, as it should be: a report benchnote wrote (it holds .benchnote-report), not input [report/]\n",
		": warnings (3 runs; 2 warnings)\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("validate output lacks %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "diagnostic") {
		t.Errorf("the report inside the sweep is a diagnostic:\n%s", stdout.String())
	}
	second := summaryOf(t, reportTree(t, sweep, filepath.Join(t.TempDir(), "out")))
	if got, want := fmt.Sprint(second.Runs), "[{c2/run-1} {c2/run-2} {c2/run-3}]"; got != want {
		t.Errorf("second report's runs %s, want %s", got, want)
	}
	if second.Accounting.Runs != 3 || second.Accounting.Requests.RowsRead != 9 {
		t.Errorf("second report's accounting %+v, want 3 runs and 9 rows", second.Accounting)
	}
	ex := second.Exclusions[0]
	if ex.Reason != "ignored file: a report benchnote wrote (it holds .benchnote-report), not input" || fmt.Sprint(ex.Examples) != "[report/]" {
		t.Errorf("first exclusion %+v, want the previous report, ignored", ex)
	}
}

// summary is the part of summary.json these tests read.
type summary struct {
	Runs []struct {
		Dir string `json:"dir"`
	} `json:"runs"`
	Accounting struct {
		Runs     int `json:"runs"`
		Requests struct {
			RowsRead int `json:"rows_read"`
		} `json:"requests"`
	} `json:"accounting"`
	Exclusions []struct {
		Reason   string   `json:"reason"`
		Examples []string `json:"examples"`
	} `json:"exclusions"`
}

func summaryOf(t *testing.T, files map[string][]byte) summary {
	t.Helper()
	var s summary
	if err := json.Unmarshal(files["summary.json"], &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// reportTree runs report sweep -o out and returns every file written.
func reportTree(t *testing.T, sweep, out string) map[string][]byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"report", sweep, "-o", out}, &stdout, &stderr); code != ExitClean {
		t.Fatalf("report exit %d: %s", code, stderr.String())
	}
	return readTree(t, out)
}

// readTree returns every file under dir by slash path.
func readTree(t *testing.T, out string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(out, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReportConcurrentRuns runs two reports of different sweeps to one
// OUT at once: both succeed, one after the other, and OUT is exactly one
// of the two reports with nothing left beside it.
func TestReportConcurrentRuns(t *testing.T) {
	root := t.TempDir()
	sweepA := tinySweep(t, filepath.Join(root, "a"), nil)
	sweepB := tinySweep(t, filepath.Join(root, "b"), map[string]string{"sweep.yaml": "title: other\nwarmup: none\n"})
	alone := map[string][]byte{}
	for name, sw := range map[string]string{"a": sweepA, "b": sweepB} {
		alone[name] = manifest(reportTree(t, sw, filepath.Join(root, "alone-"+name)))
	}
	out := filepath.Join(root, "shared", "out")
	var wg sync.WaitGroup
	codes := make([]int, 4)
	stderrs := make([]bytes.Buffer, 4)
	for i := range codes {
		sw := sweepA
		if i%2 == 1 {
			sw = sweepB
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = Run([]string{"report", sw, "-o", out}, &bytes.Buffer{}, &stderrs[i])
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != ExitClean {
			t.Errorf("run %d: exit %d: %s", i, c, stderrs[i].String())
		}
	}
	got := manifest(readTree(t, out))
	if !bytes.Equal(got, alone["a"]) && !bytes.Equal(got, alone["b"]) {
		t.Errorf("after the concurrent runs, OUT is neither whole report:\n%s\nwant either\n%s\nor\n%s", got, alone["a"], alone["b"])
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("left next to OUT: %v", entries)
	}
}

// TestCompareAndHistoryRefuseTheirInputs gives compare and history an OUT
// that is, or holds, one of their inputs. A report directory given to
// compare is one benchnote wrote, so without the input check it would be
// replaced by the comparison (it was, before): each case must exit with
// the command's error code, print the refusal naming the input, and change
// nothing on disk.
func TestCompareAndHistoryRefuseTheirInputs(t *testing.T) {
	root := t.TempDir()
	sweep := tinySweep(t, root, nil)
	base, nw := filepath.Join(root, "base"), filepath.Join(root, "new")
	reportTree(t, sweep, base)
	reportTree(t, sweep, nw)
	arch := filepath.Join(root, "archive")
	if code, _, stderr := runCLI(t, "archive", "add", sweep, "--to", arch, "--label", "rev-1", "--time", "2026-12-01T00:00:00Z"); code != 0 {
		t.Fatalf("archive add: exit %d: %s", code, stderr)
	}
	tests := []struct {
		args   []string
		code   int
		out    string
		reason string
	}{
		{[]string{"compare", base, nw, "-o", base}, 3, base, fmt.Sprintf("it is the input %q", base)},
		{[]string{"compare", base, filepath.Join(nw, "summary.json"), "-o", nw}, 3, nw,
			fmt.Sprintf("it contains the input %q", filepath.Join(nw, "summary.json"))},
		{[]string{"history", arch, "-o", arch}, 2, arch, fmt.Sprintf("it is the input %q", arch)},
		{[]string{"history", arch, "-o", filepath.Join(arch, "aaaaaaaaaaaaaaaa")}, 2, filepath.Join(arch, "aaaaaaaaaaaaaaaa"),
			fmt.Sprintf("it lies inside the input %q (write it beside the input instead)", arch)},
		{[]string{"report", sweep, "-o", filepath.Join(arch, "r")}, 2, filepath.Join(arch, "r"),
			fmt.Sprintf("it lies inside the benchnote archive %q, where only `benchnote archive add` writes", arch)},
		{[]string{"compare", base, nw, "-o", filepath.Join(arch, "c")}, 3, filepath.Join(arch, "c"),
			fmt.Sprintf("it lies inside the benchnote archive %q, where only `benchnote archive add` writes", arch)},
	}
	for _, tt := range tests {
		before := treeHash(t, root)
		code, stdout, stderr := runCLI(t, tt.args...)
		want := "benchnote " + tt.args[0] + ": " + (&outdir.RefusedError{Path: tt.out, Reason: tt.reason}).Error() + "\n"
		if code != tt.code || stderr != want || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q\nstderr %q\nwant %d and %q", tt.args, code, stdout, stderr, tt.code, want)
		}
		if treeHash(t, root) != before {
			t.Errorf("%q changed the disk", tt.args)
		}
	}
}

// TestValidateEscapesControlCharacters names a run directory and a stray
// file with terminal escape sequences: validate prints them escaped, and
// no control byte but newline reaches its output.
func TestValidateEscapesControlCharacters(t *testing.T) {
	sweep := tinySweep(t, t.TempDir(), map[string]string{
		"c2/run\x1b[2J\x1b]0;pwned\a-4/requests.csv": tinyCSV,
		"notes\x01\u202e.txt":                        "stray",
	})
	var stdout, stderr bytes.Buffer
	Run([]string{"validate", sweep}, &stdout, &stderr)
	out := stdout.String()
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("validate printed control byte %#x after %q", c, out[max(0, i-30):i])
		}
	}
	for _, want := range []string{
		`c2/run\x1b[2J\x1b]0;pwned\a-4  csv`,
		sweep + `/notes\x01\u202e.txt: warning: ignored: not in a run directory`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
}

// TestSweepThroughSymlink validates and reports a sweep given as a link
// to its directory.
func TestSweepThroughSymlink(t *testing.T) {
	root := t.TempDir()
	sweep := tinySweep(t, root, nil)
	link := filepath.Join(root, "link")
	if err := os.Symlink(sweep, link); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	// Exit 1: the tiny sweep has no warm-up rule and no windows (two warning findings).
	if code := Run([]string{"validate", link}, &stdout, &stderr); code != ExitWarnings ||
		!strings.HasPrefix(stdout.String(), "sweep "+link+": 3 runs at 1 concurrency level\n") ||
		!strings.HasSuffix(stdout.String(), "\n"+link+": warnings (3 runs; 2 warnings)\n") {
		t.Errorf("validate through a link: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	s := summaryOf(t, reportTree(t, link, filepath.Join(root, "out")))
	if got, want := fmt.Sprint(s.Runs), "[{c2/run-1} {c2/run-2} {c2/run-3}]"; got != want || s.Accounting.Requests.RowsRead != 9 {
		t.Errorf("report through a link: runs %s, %d rows; want %s, 9 rows", got, s.Accounting.Requests.RowsRead, want)
	}
}
