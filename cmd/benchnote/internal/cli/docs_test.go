package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
)

// repoRoot is the repository root, relative to this package's directory.
const repoRoot = "../../../.."

// citationKey matches what findings cite: a numbered section of the
// serving-workloads text, the latency-and-throughput text, Prometheus's
// histogram rules, benchnote's own protocol or its input contract.
var citationKey = regexp.MustCompile(`serving-workloads §[0-9]+(?:\.[0-9]+)*|latency-and-throughput|Prometheus histogram_quantile|Prometheus histograms|benchnote protocol|input contract`)

// ruleHeadings returns the headings of docs/measurement-rules.md.
func ruleHeadings(t *testing.T) []string {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join(repoRoot, "docs", "measurement-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, line := range strings.Split(string(rules), "\n") {
		if strings.HasPrefix(line, "#") {
			headings = append(headings, strings.TrimSpace(strings.TrimLeft(line, "#")))
		}
	}
	return headings
}

// hasKey reports whether s starts with, or (within) holds, key as a whole
// citation: "§4" is not "§4.2".
func hasKey(s, key string, anywhere bool) bool {
	pattern := regexp.QuoteMeta(key) + `(?:$|[^0-9.]|\.[^0-9])`
	if !anywhere {
		pattern = "^" + pattern
	}
	return regexp.MustCompile(pattern).MatchString(s)
}

// TestCitationsResolve checks that every citation key in the Go sources
// and templates has a heading in docs/measurement-rules.md, so a reader
// of a report can look up every rule it cites.
func TestCitationsResolve(t *testing.T) {
	headings := ruleHeadings(t)
	cited := map[string][]string{} // key -> files citing it
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "runs") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(p, ".go") && !strings.HasPrefix(rel, "templates/") || rel == "cmd/benchnote/internal/cli/docs_test.go" {
			return nil // this file names every key in its pattern
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, k := range citationKey.FindAllString(string(data), -1) {
			cited[k] = append(cited[k], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The analysis cites at least these; if the scan finds fewer, it is broken.
	for _, k := range []string{"serving-workloads §2.4", "serving-workloads §4.2", "latency-and-throughput"} {
		if len(cited[k]) == 0 {
			t.Errorf("no Go source cites %q: the scan over %s is broken", k, repoRoot)
		}
	}
	var keys []string
	for k := range cited {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		found := false
		for _, h := range headings {
			found = found || hasKey(h, k, true)
		}
		if !found {
			t.Errorf("%q is cited (in %s) but docs/measurement-rules.md has no heading for it", k, strings.Join(unique(cited[k]), ", "))
		}
	}
}

// TestFindingSourcesResolve checks the citations findings actually carry:
// every Source of every finding on the test sweeps starts with the key of
// a heading of docs/measurement-rules.md (the text before " — "). This
// catches a new kind of citation that citationKey does not know.
func TestFindingSourcesResolve(t *testing.T) {
	var keys []string
	for _, h := range ruleHeadings(t) {
		if k, _, ok := strings.Cut(h, " — "); ok {
			keys = append(keys, k)
		}
	}
	seen := 0
	for _, sweep := range []string{exampleSweep, "testdata/badsweep", "testdata/onerun"} {
		sw, err := ingest.Load(sweep, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range analyze.Analyze(sw).Findings {
			seen++
			found := false
			for _, k := range keys {
				found = found || hasKey(f.Source, k, false)
			}
			if !found {
				t.Errorf("%s: finding %s cites %q, which starts with no heading key of docs/measurement-rules.md", sweep, f.Rule, f.Source)
			}
		}
	}
	if seen < 10 {
		t.Errorf("only %d findings on the test sweeps: the check covers too little", seen)
	}
}

func unique(xs []string) []string {
	sort.Strings(xs)
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// TestReadmeFirstScreen checks the README's promises: the two commands
// that work on a fresh machine are on its first screen, the test command
// is exactly the one .ci/run runs, and the rules are linked.
func TestReadmeFirstScreen(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^TEST_CMD="([^"]+)"$`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(`.ci/run has no TEST_CMD="..." line`)
	}
	testCmd := string(m[1])
	firstScreen := string(readme)
	if i := strings.Index(firstScreen, "\n## "); i >= 0 {
		firstScreen = firstScreen[:i]
	}
	var commands []string
	for _, line := range strings.Split(firstScreen, "\n") {
		if cmd, ok := strings.CutPrefix(line, "    "); ok {
			if i := strings.Index(cmd, " #"); i >= 0 {
				cmd = cmd[:i]
			}
			commands = append(commands, strings.TrimSpace(cmd))
		}
	}
	for _, want := range []string{"go run ./cmd/benchnote report runs/example -o out", testCmd, "go install ./cmd/benchnote"} {
		found := false
		for _, c := range commands {
			found = found || c == want
		}
		if !found {
			t.Errorf("the README's first screen lacks the command %q (it has %q)", want, commands)
		}
	}
	if !bytes.Contains(readme, []byte("(docs/measurement-rules.md)")) {
		t.Error("README.md does not link docs/measurement-rules.md")
	}
}

// TestDocumentedCommandsExist checks that every benchnote command line in
// the README and docs/cli.md names a command of the table.
func TestDocumentedCommandsExist(t *testing.T) {
	for _, name := range []string{"README.md", "docs/cli.md"} {
		f, err := os.Open(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			n++
			line := strings.TrimSpace(sc.Text())
			rest, ok := strings.CutPrefix(line, "benchnote ")
			if !ok || !strings.HasPrefix(sc.Text(), "    ") {
				continue
			}
			word := strings.Fields(rest)[0]
			if strings.HasSuffix(word, ":") {
				continue // output, as in "benchnote report: -o OUT is required"
			}
			if lookup(word) == nil && word != "--version" && word != "-h" && word != "--help" {
				t.Errorf("%s:%d: %q is not a benchnote command", name, n, word)
			}
		}
		f.Close()
	}
}

// TestReadmeWindowSnippet runs the README's shell lines for recording the
// measurement window, with curl replaced by a copy of a real scrape, and
// checks that benchnote reads the window they write into run.yaml.
func TestReadmeWindowSnippet(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed: the README's shell snippet cannot run")
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	start := len(lines)
	for i, line := range lines {
		if strings.HasPrefix(line, "    t0=$(date") {
			start = i
			break
		}
	}
	var snippet []string
	for _, line := range lines[start:] {
		code, ok := strings.CutPrefix(line, "    ")
		if !ok {
			break
		}
		snippet = append(snippet, code)
		if strings.Contains(code, ">> run.yaml") {
			break
		}
	}
	if len(snippet) < 3 || !strings.Contains(snippet[len(snippet)-1], ">> run.yaml") {
		t.Fatalf("README.md has no window snippet from `t0=$(date` to `>> run.yaml` (found %q)", snippet)
	}
	sweep := t.TempDir()
	runDir := filepath.Join(sweep, "c1", "run-1")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join("testdata", "onerun", "c1", "run-1", "requests.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "requests.csv"), csv, 0o644); err != nil {
		t.Fatal(err)
	}
	scrape, err := filepath.Abs(filepath.Join(exampleSweep, "c1", "run-1", "metrics-start.prom"))
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("set -e\ncurl() { cat %q; }\n%s\n", scrape, strings.Join(snippet, "\n"))
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = runDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's window snippet failed: %v\n%s", err, out)
	}
	sw, err := ingest.Load(sweep, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(sw.Runs))
	}
	r := sw.Runs[0]
	if len(r.Diagnostics) > 0 {
		t.Errorf("diagnostics: %v", r.Diagnostics)
	}
	if !r.Window.Known() || r.Window.Source != "run.yaml" || r.Window.Seconds() > 60 {
		t.Errorf("window %+v (%g s): want one from run.yaml, under a minute long", r.Window, r.Window.Seconds())
	}
	if r.ScrapeStart == nil || r.ScrapeEnd == nil {
		t.Error("the scrapes the snippet wrote were not read")
	}
}

// TestInstalledBinary runs the README's install command into a temporary
// GOBIN and checks the installed benchnote end to end: main's exit codes
// and streams, not just Run's.
func TestInstalledBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs the binary; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := t.TempDir()
	install := exec.Command(goTool, "install", "./cmd/benchnote")
	install.Dir = repoRoot
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/benchnote: %v\n%s", err, out)
	}
	sweep, err := filepath.Abs(exampleSweep)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--version"}, 0, "benchnote " + report.Version + "\n", ""},
		{[]string{"validate", "-q", sweep}, 2, sweep + ": errors (9 runs; 1 error, 1 warning)\n", ""},
		{[]string{"report", sweep}, 2, "", "benchnote report: -o OUT is required\nrun 'benchnote report -h' for usage\n"},
	}
	for _, tt := range tests {
		cmd := exec.Command(filepath.Join(bin, "benchnote"), tt.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
			t.Errorf("benchnote %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
	// The usage is on stdout and long; its first line is enough here.
	out, err := exec.Command(filepath.Join(bin, "benchnote"), "report", "-h").Output()
	if err != nil || !strings.HasPrefix(string(out), "usage: benchnote report [flags] SWEEP -o OUT\n") {
		t.Errorf("benchnote report -h: %v, stdout %.80q", err, out)
	}
}

// TestReadmeNotebookRenders renders the README's example notebook (its
// ```markdown block) against runs/example: every cell it shows must work.
func TestReadmeNotebookRenders(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```markdown\n")
	nb, _, closed := strings.Cut(rest, "\n```")
	if !ok || !closed {
		t.Fatal("README.md has no ```markdown block")
	}
	path := filepath.Join(t.TempDir(), "writeup.md")
	if err := os.WriteFile(path, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	files := reportFiles(t, exampleSweep, "--notebook", path)
	md := string(files["report.md"])
	for _, want := range []string{"**Highest load meeting the SLOs: concurrency 4.**", "[^v1]: median ± raw MAD of per-run p95 TTFT"} {
		if !strings.Contains(md, want) {
			t.Errorf("the README's notebook renders without %q", want)
		}
	}
}
