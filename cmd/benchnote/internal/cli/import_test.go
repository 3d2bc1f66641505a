package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importerData is the importer's test data: hand-written fixtures and
// copies of real results (ingest/importer/testdata/real/README.md).
const importerData = "../../../../ingest/importer/testdata"

// runImportCmd runs benchnote import and returns stdout with the output
// directory replaced by OUT.
func runImportCmd(t *testing.T, out string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(append(append([]string{"import"}, args...), "-o", out), &stdout, &stderr)
	return strings.ReplaceAll(stdout.String(), out, "OUT"), strings.ReplaceAll(stderr.String(), out, "OUT"), code
}

// An LLMPerf result imports as one run at the concurrency of its summary,
// validates, and reports where it came from and what it cannot support.
func TestImportLLMPerfReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	stdout, stderr, code := runImportCmd(t, out,
		filepath.Join(importerData, "real", "llmperf-leaderboard-bedrock_70b_individual_responses.json"),
		filepath.Join(importerData, "real", "llmperf-leaderboard-bedrock_70b_summary.json"))
	if code != ExitClean {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	golden(t, "import-llmperf.txt", []byte(strings.ReplaceAll(stdout, importerData, "TESTDATA")))
	var vout, verr bytes.Buffer
	if code := Run([]string{"validate", out}, &vout, &verr); code != ExitClean {
		t.Errorf("validate exit %d:\n%s", code, vout.String())
	}
	files := reportFiles(t, out)
	golden(t, "import-llmperf/report.md", files["report.md"])
	for _, want := range []string{"## Where these results came from", "client: too few tokens", "rows are not in send order"} {
		if !bytes.Contains(files["report.md"], []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func TestImportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "notes.json")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import", "-o", filepath.Join(dir, "x")}, "expected at least one result file or directory"},
		{[]string{"import", notJSON}, "-o SWEEP is required"},
		{[]string{"import", "--format", "csv", notJSON, "-o", filepath.Join(dir, "x")}, `unknown format "csv"`},
		{[]string{"import", "--level", "c=zero", notJSON, "-o", filepath.Join(dir, "x")}, `level "c=zero": expected a positive integer concurrency`},
		{[]string{"import", notJSON, "-o", filepath.Join(dir, "x")}, "notes.json: not a result file benchnote can import: not JSON (or empty)"},
		{[]string{"import", filepath.Join(importerData, "fixtures", "aiperf"), "-o", dir}, "is not empty and was not written by benchnote import"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := Run(tt.args, &stdout, &stderr); code != ExitErrors || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("Run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
