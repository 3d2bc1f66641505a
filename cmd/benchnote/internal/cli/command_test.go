package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/report"
)

// goldenPrefix marks an expected output kept in a golden file.
const goldenPrefix = "golden:"

// TestCommandLine pins what every kind of invocation prints and returns:
// help, version, usage mistakes, verdicts. An expected output starting
// with "golden:" is compared with that file under testdata/golden.
func TestCommandLine(t *testing.T) {
	empty := t.TempDir()
	version := "benchnote " + report.Version + "\n"
	const (
		usage         = "golden:usage/benchnote.txt"
		reportUsage   = "golden:usage/report.txt"
		validateUsage = "golden:usage/validate.txt"
		helpUsage     = "golden:usage/help.txt"
		versionUsage  = "golden:usage/version.txt"
		compareUsage  = "golden:usage/compare.txt"
	)
	hint := func(cmd string) string { return "run 'benchnote " + cmd + " -h' for usage\n" }
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		// benchnote itself.
		{"no arguments: usage on stderr", nil, ExitErrors, "", usage},
		{"-h", []string{"-h"}, ExitClean, usage, ""},
		{"--help", []string{"--help"}, ExitClean, usage, ""},
		{"-help", []string{"-help"}, ExitClean, usage, ""},
		{"help", []string{"help"}, ExitClean, usage, ""},
		{"--version", []string{"--version"}, ExitClean, version, ""},
		{"-version", []string{"-version"}, ExitClean, version, ""},
		{"version", []string{"version"}, ExitClean, version, ""},
		{"-v is not the version", []string{"-v"}, ExitErrors, "",
			"benchnote: -v (verbose progress) goes after a command, as in 'benchnote report -v SWEEP -o OUT'; for the version run 'benchnote --version'\n"},
		{"--verbose before a command", []string{"--verbose", "report"}, ExitErrors, "",
			"benchnote: --verbose (verbose progress) goes after a command, as in 'benchnote report -v SWEEP -o OUT'; for the version run 'benchnote --version'\n"},
		{"unknown global flag", []string{"-x"}, ExitErrors, "", "benchnote: unknown flag -x\nrun 'benchnote -h' for usage\n"},
		{"unknown command", []string{"frobnicate"}, ExitErrors, "", "benchnote: unknown command \"frobnicate\"\nrun 'benchnote -h' for usage\n"},
		{"mistyped command", []string{"reprot", "runs"}, ExitErrors, "", "benchnote: unknown command \"reprot\" (did you mean \"report\"?)\nrun 'benchnote -h' for usage\n"},

		// Help on every command, wherever -h is.
		{"report -h", []string{"report", "-h"}, ExitClean, reportUsage, ""},
		{"report --help", []string{"report", "--help"}, ExitClean, reportUsage, ""},
		{"report -h after arguments", []string{"report", exampleSweep, "-o", "x", "-h"}, ExitClean, reportUsage, ""},
		{"help report", []string{"help", "report"}, ExitClean, reportUsage, ""},
		{"validate --help", []string{"validate", "--help"}, ExitClean, validateUsage, ""},
		{"help validate", []string{"help", "validate"}, ExitClean, validateUsage, ""},
		{"help help", []string{"help", "help"}, ExitClean, helpUsage, ""},
		{"help -h", []string{"help", "-h"}, ExitClean, helpUsage, ""},
		{"version -h", []string{"version", "-h"}, ExitClean, versionUsage, ""},
		{"help version", []string{"help", "version"}, ExitClean, versionUsage, ""},
		{"compare -h", []string{"compare", "-h"}, ExitClean, compareUsage, ""},
		{"help on an unknown command", []string{"help", "reprot"}, ExitErrors, "",
			"benchnote help: unknown command \"reprot\" (did you mean \"report\"?)\nrun 'benchnote -h' for the list of commands\n"},
		{"help with two commands", []string{"help", "report", "validate"}, ExitErrors, "",
			"benchnote help: expected at most 1 argument ([COMMAND]), got 2: \"report\" \"validate\"\n" + hint("help")},
		{"version takes no arguments", []string{"version", "now"}, ExitErrors, "",
			"benchnote version: expected no arguments, got 1: \"now\"\n" + hint("version")},

		// Usage mistakes: one error, one hint, exit 2.
		{"report without -o", []string{"report", exampleSweep}, ExitErrors, "", "benchnote report: -o OUT is required\n" + hint("report")},
		{"report with an unknown flag", []string{"report", "-x", exampleSweep, "-o", "out"}, ExitErrors, "", "benchnote report: unknown flag -x\n" + hint("report")},
		{"report with a mistyped flag", []string{"report", exampleSweep, "--notbook", "nb.md"}, ExitErrors, "",
			"benchnote report: unknown flag --notbook (did you mean --notebook?)\n" + hint("report")},
		{"report -o without a value", []string{"report", exampleSweep, "-o"}, ExitErrors, "", "benchnote report: flag needs an argument: -o\n" + hint("report")},
		{"report -q and -v", []string{"report", "-q", "-v", exampleSweep, "-o", "out"}, ExitErrors, "", "benchnote report: -q and -v cannot be used together\n" + hint("report")},
		{"report with two sweeps", []string{"report", "a", "b", "-o", "out"}, ExitErrors, "",
			"benchnote report: expected 1 argument (SWEEP), got 2: \"a\" \"b\"\n" + hint("report")},
		{"validate without a sweep", []string{"validate"}, ExitErrors, "", "benchnote validate: expected 1 argument (SWEEP), got none\n" + hint("validate")},
		{"validate with two sweeps", []string{"validate", "a", "b"}, ExitErrors, "", "benchnote validate: expected 1 argument (SWEEP), got 2: \"a\" \"b\"\n" + hint("validate")},
		{"report with -out", []string{"report", exampleSweep, "-out", "out"}, ExitErrors, "", "benchnote report: unknown flag --out (did you mean -o?)\n" + hint("report")},
		{"report with --output", []string{"report", exampleSweep, "--output", "out"}, ExitErrors, "", "benchnote report: unknown flag --output (did you mean -o?)\n" + hint("report")},
		{"validate has no -o", []string{"validate", "-o", "out", exampleSweep}, ExitErrors, "", "benchnote validate: unknown flag -o\n" + hint("validate")},
		{"validate --json and -q", []string{"validate", "--json", "-q", exampleSweep}, ExitErrors, "", "benchnote validate: --json and -q cannot be used together\n" + hint("validate")},
		{"validate --quiet and --verbose", []string{"validate", "--quiet", "--verbose", exampleSweep}, ExitErrors, "", "benchnote validate: -q and -v cannot be used together\n" + hint("validate")},
		{"validate --max-rows-per-run 0", []string{"validate", "--max-rows-per-run", "0", exampleSweep}, ExitErrors, "",
			"benchnote validate: --max-rows-per-run 0: expected at least 1\n" + hint("validate")},
		{"report --max-rows-per-run -5", []string{"report", "--max-rows-per-run", "-5", exampleSweep, "-o", filepath.Join(empty, "out")}, ExitErrors, "",
			"benchnote report: --max-rows-per-run -5: expected at least 1\n" + hint("report")},

		// Errors that are not usage mistakes: no hint.
		{"validate a missing directory", []string{"validate", "no/such/dir"}, ExitErrors, "", "benchnote validate: sweep: stat no/such/dir: no such file or directory\n"},
		{"after -- a dash is an argument", []string{"validate", "--", "-dir"}, ExitErrors, "", "benchnote validate: sweep: stat -dir: no such file or directory\n"},
		{"report on a directory without runs", []string{"report", empty, "-o", filepath.Join(t.TempDir(), "out")}, ExitErrors, "",
			"benchnote report: " + empty + ": no run directory found (a run directory holds requests.csv or requests.parquet); nothing to report\n"},
		{"validate a directory without runs", []string{"validate", empty}, ExitErrors, "",
			"benchnote validate: no run directory found under " + empty + " (a run directory holds requests.csv or requests.parquet)\n"},
		{"validate -q a directory without runs", []string{"validate", "-q", empty}, ExitErrors, "",
			"benchnote validate: no run directory found under " + empty + " (a run directory holds requests.csv or requests.parquet)\n"},
		{"report with a missing notebook", []string{"report", exampleSweep, "-o", filepath.Join(empty, "out"), "--notebook", "no/such.md"}, ExitErrors, "",
			"benchnote report: open no/such.md: no such file or directory\n"},

		// Verdicts: -q prints the verdict line only, with the exit code of the full output.
		{"validate -q with an error finding", []string{"validate", "-q", exampleSweep}, ExitErrors, exampleSweep + ": errors (9 runs; 1 error, 1 warning)\n", ""},
		{"validate --quiet with warnings only", []string{"validate", "testdata/onerun", "--quiet"}, ExitWarnings, "testdata/onerun: warnings (1 run; 3 warnings)\n", ""},
		{"validate -q with errors", []string{"validate", "-q", "testdata/badsweep"}, ExitErrors, "testdata/badsweep: errors (6 runs; 8 errors, 15 warnings)\n", ""},
		{"validate with warnings only: singulars", []string{"validate", "testdata/onerun"}, ExitWarnings, "golden:validate-onerun.txt", ""},
		{"validate --json with an error finding", []string{"validate", "--json", exampleSweep}, ExitErrors, "golden:validate-example.json", ""},
		{"validate --json with warnings only", []string{"validate", "--json", "testdata/onerun"}, ExitWarnings, "golden:validate-onerun.json", ""},
		{"validate --json with errors", []string{"validate", "testdata/badsweep", "--json"}, ExitErrors, "golden:validate-badsweep.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("Run(%q) exit code %d, want %d", tt.args, code, tt.code)
			}
			checkOutput(t, "stdout", stdout.String(), tt.stdout)
			checkOutput(t, "stderr", stderr.String(), tt.stderr)
		})
	}
}

// checkOutput compares got with want, or with the golden file want names.
func checkOutput(t *testing.T, stream, got, want string) {
	t.Helper()
	if name, ok := strings.CutPrefix(want, goldenPrefix); ok {
		golden(t, name, []byte(got))
		return
	}
	if got != want {
		t.Errorf("%s:\n got %q\nwant %q", stream, got, want)
	}
}

// TestReportOutput pins what report prints on stdout: one line on
// success, nothing with -q. (TestReportRepeatsFindingsOnStderr pins
// stderr.)
func TestReportOutput(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		args   []string
		stdout string
	}{
		{"default", nil, "wrote OUT (17 files): report.md, report.html, pr.md, summary.json, 13 plots\n"},
		{"quiet", []string{"-q"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name)
			var stdout, stderr bytes.Buffer
			code := Run(append([]string{"report", exampleSweep, "-o", out}, tt.args...), &stdout, &stderr)
			if code != ExitClean {
				t.Fatalf("exit %d, stderr %q; want 0", code, stderr.String())
			}
			if want := strings.ReplaceAll(tt.stdout, "OUT", out); stdout.String() != want {
				t.Errorf("stdout %q, want %q", stdout.String(), want)
			}
			if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestValidateJSONMatchesText checks that --json carries what the text
// output says: the same verdict, exit code and diagnostics.
func TestValidateJSONMatchesText(t *testing.T) {
	for _, sweep := range []string{exampleSweep, "testdata/badsweep", "testdata/onerun"} {
		var text, js, stderr bytes.Buffer
		textCode := Run([]string{"validate", sweep}, &text, &stderr)
		jsonCode := Run([]string{"validate", "--json", sweep}, &js, &stderr)
		if textCode != jsonCode {
			t.Errorf("%s: exit code %d with --json, %d without", sweep, jsonCode, textCode)
		}
		var doc struct {
			Schema      string `json:"schema"`
			ExitCode    int    `json:"exit_code"`
			Verdict     string `json:"verdict"`
			Diagnostics []struct {
				Severity, File, Message string
				Line, Column            int
			} `json:"diagnostics"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v", sweep, err)
		}
		if doc.Schema != "benchnote.validate/v1" || doc.ExitCode != textCode {
			t.Errorf("%s: schema %q exit_code %d; want benchnote.validate/v1 and %d", sweep, doc.Schema, doc.ExitCode, textCode)
		}
		if !strings.Contains(text.String(), ": "+doc.Verdict+" (") {
			t.Errorf("%s: verdict %q not in the text output", sweep, doc.Verdict)
		}
		for _, d := range doc.Diagnostics {
			if !strings.Contains(text.String(), d.File) || !strings.Contains(text.String(), ": "+d.Severity+": "+d.Message+"\n") {
				t.Errorf("%s: diagnostic %+v not in the text output", sweep, d)
			}
		}
	}
}

// fixedClock always returns the same instant, so durations are 0 and
// rates are left out: progress output becomes exact.
func fixedClock(t0 time.Time) func() time.Time { return func() time.Time { return t0 } }

// TestProgressThroughRun pins the progress a command writes on stderr in
// each mode: nothing when stderr is not a terminal, plain lines with -v,
// a live line on a terminal only once the work takes over a second, and
// nothing with -q.
func TestProgressThroughRun(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// late returns t0 on the first call and 5 s later afterwards: the work
	// seems to have run for 5 s when the first stage begins.
	late := func() func() time.Time {
		calls := 0
		return func() time.Time {
			calls++
			if calls == 1 {
				return t0
			}
			return t0.Add(5 * time.Second)
		}
	}
	badNotebook := filepath.Join(t.TempDir(), "bad.md")
	if err := os.WriteFile(badNotebook, []byte("see {{value ttft.p42}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		now      func() time.Time
		terminal bool
		stderr   string
	}{
		{"not a terminal", []string{"validate", "testdata/onerun"}, fixedClock(t0), false, ""},
		{"verbose", []string{"validate", "-v", "testdata/onerun"}, fixedClock(t0), false,
			"read run 1/1: c1/run-1, 5 rows\nread and analysed 1 run, 5 rows in 0.0 s\n"},
		{"verbose report", []string{"report", "--verbose", "testdata/onerun", "-o", filepath.Join(t.TempDir(), "out")}, fixedClock(t0), false,
			"read run 1/1: c1/run-1, 5 rows\nread and analysed 1 run, 5 rows in 0.0 s\nrendered in 0.0 s\nwrote the files in 0.0 s\nbenchnote report: warning: fewer-than-3-runs: …"},
		{"verbose json", []string{"validate", "-v", "--json", "testdata/onerun"}, fixedClock(t0), false,
			"read run 1/1: c1/run-1, 5 rows\nread and analysed 1 run, 5 rows in 0.0 s\n"},
		{"terminal, under a second", []string{"validate", "testdata/onerun"}, fixedClock(t0), true, ""},
		{"terminal, over a second", []string{"validate", "testdata/onerun"}, late(), true,
			"\rreading and analysing runs, 5.0 s\x1b[K\rreading and analysing runs: 1/1, 5 rows, 5.0 s\x1b[K\r\x1b[K"},
		{"terminal, report", []string{"report", "testdata/onerun", "-o", filepath.Join(t.TempDir(), "out")}, late(), true,
			"\rreading and analysing runs, 5.0 s\x1b[K\rreading and analysing runs: 1/1, 5 rows, 5.0 s\x1b[K\rrendering, 5.0 s\x1b[K\rwriting, 5.0 s\x1b[K\r\x1b[K" +
				"benchnote report: warning: fewer-than-3-runs: …"},
		{"terminal, quiet", []string{"validate", "-q", "testdata/onerun"}, late(), true, ""},
		{"terminal, an error erases the line first", []string{"report", "testdata/onerun", "-o", filepath.Join(t.TempDir(), "out"), "--notebook", badNotebook}, late(), true,
			"\rreading and analysing runs, 5.0 s\x1b[K\rreading and analysing runs: 1/1, 5 rows, 5.0 s\x1b[K\rrendering, 5.0 s\x1b[K\r\x1b[K" +
				"benchnote report: " + badNotebook + ":1:5: unknown metric \"ttft.p42\"…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			isTerm := func(w io.Writer) bool { return tt.terminal }
			run(tt.args, &stdout, &stderr, system{now: tt.now, isTerminal: isTerm})
			// A trailing "…" leaves the rest of a message (not this
			// package's) unchecked.
			if prefix, ok := strings.CutSuffix(tt.stderr, "…"); ok {
				if !strings.HasPrefix(stderr.String(), prefix) || strings.Count(stderr.String(), "\x1b") != strings.Count(prefix, "\x1b") {
					t.Errorf("stderr\n got %q\nwant %q and the rest of the line", stderr.String(), prefix)
				}
				return
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr\n got %q\nwant %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestFlagsAreDocumented checks that docs/cli.md names every command and
// every flag, so the documentation cannot fall behind the table.
func TestFlagsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range commands() {
		if !bytes.Contains(doc, []byte("benchnote "+cmd.name)) {
			t.Errorf("docs/cli.md does not mention `benchnote %s`", cmd.name)
		}
		fs, _ := cmd.flagSet()
		fs.VisitAll(func(f *flag.Flag) {
			if !bytes.Contains(doc, []byte("`"+dash(f.Name))) {
				t.Errorf("docs/cli.md does not document %s %s", cmd.name, dash(f.Name))
			}
		})
	}
}

func TestArgumentCounts(t *testing.T) {
	tests := []struct {
		min, max int
		args     []string
		want     string
	}{
		{1, 1, []string{"a"}, ""},
		{1, 1, nil, "expected 1 argument (X), got none"},
		{2, 2, []string{"a"}, `expected 2 arguments (X), got 1: "a"`},
		{0, 0, []string{"a"}, `expected no arguments, got 1: "a"`},
		{0, 2, []string{"a", "b", "c"}, `expected at most 2 arguments (X), got 3: "a" "b" "c"`},
		{2, -1, []string{"a"}, `expected at least 2 arguments (X), got 1: "a"`},
		{2, -1, []string{"a", "b", "c", "d"}, ""},
		{1, 3, nil, "expected 1 to 3 arguments (X), got none"},
	}
	for _, tt := range tests {
		cmd := &command{name: "x", args: "X", minArgs: tt.min, maxArgs: tt.max}
		got := ""
		if err := cmd.checkArgs(tt.args); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("min %d max %d args %q: got %q, want %q", tt.min, tt.max, tt.args, got, tt.want)
		}
	}
}

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		args []string
		want string // positional arguments, then the flag values
	}{
		{[]string{"a", "-o", "x", "b"}, "a b | o=x q=false"},
		{[]string{"-q", "a", "--o=y"}, "a | o=y q=true"},
		{[]string{"a", "--", "-q", "-o"}, "a -q -o | o= q=false"},
		{[]string{"-o", "--", "a"}, "a | o=-- q=false"},
		{nil, " | o= q=false"},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		o := fs.String("o", "", "")
		q := fs.Bool("q", false, "")
		pos, err := parseInterleaved(fs, tt.args)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		got := strings.Join(pos, " ") + " | o=" + *o + " q=" + map[bool]string{true: "true", false: "false"}[*q]
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"validate", "report", "help", "version"}
	for in, want := range map[string]string{
		"reprot": "report", "valdate": "validate", "verison": "version", "hlep": "help",
		"x": "", "compare": "", "rep": "", "": "",
	} {
		if got := closest(in, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRowCount: row counts group their digits, unlike other counts.
func TestRowCount(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 rows"}, {1, "1 row"}, {999, "999 rows"}, {1000, "1,000 rows"}, {1234567, "1,234,567 rows"}} {
		if got := rowCount(tt.n); got != tt.want {
			t.Errorf("rowCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&bytes.Buffer{}) {
		t.Error("a regular file or a buffer is taken for a terminal")
	}
}

// TestErrorsAreOneLineEach: an error naming a file whose name holds a
// newline prints as one escaped line, and errors.Join prints a line per
// error.
func TestErrorsAreOneLineEach(t *testing.T) {
	dir := t.TempDir()
	forged := filepath.Join(dir, "a\nbenchnote import: nothing wrong")
	code, stdout, stderr := runCLI(t, "import", forged, "-o", filepath.Join(dir, "out"))
	if code != ExitErrors || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `a\nbenchnote import: nothing wrong`) {
		t.Errorf("exit %d, stdout %q, stderr %q: want one line with the newline escaped", code, stdout, stderr)
	}
	if got := errorLines(errors.Join(errors.New("first"), nil, errors.New("sec\x1bond"))); !slices.Equal(got, []string{"first", `sec\x1bond`}) {
		t.Errorf("errorLines = %q", got)
	}
}

// TestUsageStatesEachDefaultOnce: a flag whose usage text states its own
// default (one that depends on the inputs) is not given the flag
// package's "(default 90)" as well.
func TestUsageStatesEachDefaultOnce(t *testing.T) {
	code, stdout, _ := runCLI(t, "compare", "-h")
	if code != ExitClean {
		t.Fatalf("compare -h: exit %d", code)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "--attainment") {
			if n := strings.Count(line, "(default"); n != 1 {
				t.Errorf("--attainment states %d defaults: %q", n, line)
			}
			return
		}
	}
	t.Fatal("compare -h lists no --attainment")
}
