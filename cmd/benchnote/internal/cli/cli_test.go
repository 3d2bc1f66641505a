package cli

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"github.com/benchnote/benchnote/analyze"
	goldenfile "github.com/benchnote/benchnote/internal/golden"
	"github.com/benchnote/benchnote/internal/outdir"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got, *update)
}

func TestValidateGolden(t *testing.T) {
	tests := []struct {
		name, sweep, golden string
		code                int
	}{
		// c16/run-2 has 6 failed requests of 444 (1.35 %), above the 1 %
		// error-rate threshold: the same error finding the report makes.
		{"example sweep has one error finding", exampleSweep, "validate-example.txt", ExitErrors},
		{"broken sweep lists every problem", "testdata/badsweep", "validate-badsweep.txt", ExitErrors},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run([]string{"validate", tt.sweep}, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			golden(t, tt.golden, stdout.Bytes())
		})
	}
}

// reportFiles renders a sweep and returns every output file by relative path.
func reportFiles(t *testing.T, sweep string, extra ...string) map[string][]byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := append([]string{"report", sweep, "-o", out}, extra...)
	if code := Run(args, &stdout, &stderr); code != ExitClean {
		t.Fatalf("report exit code %d: %s", code, stderr.String())
	}
	return readTree(t, out)
}

// manifest lists every file with its size and SHA-256, sorted.
func manifest(files map[string][]byte) []byte {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%x  %8d  %s\n", sha256.Sum256(files[n]), len(files[n]), n)
	}
	return b.Bytes()
}

// TestReportGolden pins the whole example report: report.md and
// summary.json as text, and every file (report.html and the SVGs included)
// by its SHA-256 in a manifest.
func TestReportGolden(t *testing.T) {
	files := reportFiles(t, exampleSweep)
	golden(t, "example/report.md", files["report.md"])
	golden(t, "example/summary.json", files["summary.json"])
	golden(t, "example/pr.md", files["pr.md"])
	golden(t, "example/MANIFEST", manifest(files))
	if len(files) != 18 {
		t.Errorf("%d files written, want 18 (report.md, report.html, pr.md, summary.json, 13 plots and the %s marker)", len(files), outdir.MarkerName)
	}
}

func TestReportIsReproducible(t *testing.T) {
	a, b := reportFiles(t, exampleSweep), reportFiles(t, exampleSweep)
	if !bytes.Equal(manifest(a), manifest(b)) {
		t.Errorf("two renders differ:\n%s\n%s", manifest(a), manifest(b))
	}
}

func TestBrokenSweepStillReports(t *testing.T) {
	files := reportFiles(t, "testdata/badsweep")
	golden(t, "badsweep/report.md", files["report.md"])
}

func TestUserNotebook(t *testing.T) {
	nb := filepath.Join(t.TempDir(), "writeup.md")
	text := "# My write-up\n\nAt c=16 the p95 TTFT was {{value ttft.p95 c=16}}.\n\n{{table goodput}}\n\n{{plot goodput}}\n"
	if err := os.WriteFile(nb, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files := reportFiles(t, exampleSweep, "--notebook", nb)
	golden(t, "writeup.md", files["report.md"])
	if !bytes.Contains(files["report.html"], []byte(`<figure id="plot-goodput"`)) {
		t.Error("report.html does not inline the goodput figure")
	}

	// An unknown metric is an error naming the notebook line, and leaves no output.
	bad := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(bad, []byte("line 1\n\nsee {{value ttft.p42}}\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := Run([]string{"report", exampleSweep, "-o", out, "--notebook", bad}, &stdout, &stderr)
	if code != ExitErrors || !strings.Contains(stderr.String(), "bad.md:3:5: unknown metric \"ttft.p42\"") {
		t.Errorf("exit %d, stderr %q; want 2 and an error at bad.md:3", code, stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory exists after a failed render: %v", err)
	}
}

// TestReportRepeatsFindingsOnStderr: report writes the report (exit 0)
// and repeats each error and warning finding on stderr, one line each.
func TestReportRepeatsFindingsOnStderr(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"report", "testdata/badsweep", "-o", out}, &stdout, &stderr); code != ExitClean {
		t.Fatalf("exit code %d, want 0 (the report was written); stderr: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	var rules []string
	for _, l := range lines {
		rest, ok := strings.CutPrefix(l, "benchnote report: ")
		if !ok {
			t.Errorf("stderr line %q lacks the benchnote report: prefix", l)
			continue
		}
		sev, rest, _ := strings.Cut(rest, ": ")
		rule, _, _ := strings.Cut(rest, ": ")
		rules = append(rules, sev+" "+rule)
	}
	want := []string{
		"error run-failed", "error error-rate", "error several-engines-in-scrape",
		"warning fewer-than-3-runs", "warning no-warm-up-handling", "warning missing-window",
		"warning unknown-settings", "warning environment-differs", "warning zero-output-requests",
	}
	if strings.Join(rules, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr findings:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(rules, "\n"), strings.Join(want, "\n"), stderr.String())
	}
}

func TestFindingLine(t *testing.T) {
	f := analyze.Finding{Severity: "error", Rule: "run-failed", Message: "7 run(s) could not be used",
		Runs: []string{"a", "b\x1b[31m", "c", "d", "e", "f", "g"}}
	const want = `error: run-failed: 7 run(s) could not be used [a; b\x1b[31m; c; d; e; 2 more]`
	if got := findingLine(f); got != want {
		t.Errorf("findingLine = %q, want %q", got, want)
	}
}
