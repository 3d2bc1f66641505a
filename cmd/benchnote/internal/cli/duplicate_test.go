package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run directory copied beside its original is one run: validate warns
// and names it a duplicate (text and --json), and the report leaves it
// out, counted under Exclusions.
func TestDuplicateRunCopied(t *testing.T) {
	sweep := filepath.Join(t.TempDir(), "sweep")
	copyDir(t, exampleSweep, sweep)
	copyDir(t, filepath.Join(sweep, "c4", "run-1"), filepath.Join(sweep, "c4", "run-4"))
	if err := os.Remove(filepath.Join(sweep, "c4", "run-4", "run.yaml")); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	Run([]string{"validate", sweep}, &out, &errb)
	text := out.String()
	for _, want := range []string{
		"c4/run-4   parquet  400   0         start+end  unknown             env.json [json], env.txt [collect_env_sectioned]  duplicate of c4/run-1\n",
		"c4/run-4/requests.parquet: warning: identical to c4/run-1/requests.parquet: the same run, not another repeat; it is left out of the analysis\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("validate lacks %q:\n%s", want, text)
		}
	}
	out.Reset()
	Run([]string{"validate", "--json", sweep}, &out, &errb)
	var doc struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range doc.Runs {
		if r["dir"] == "c4/run-4" {
			found = r["status"] == "duplicate" && r["duplicate_of"] == "c4/run-1"
		} else if _, ok := r["duplicate_of"]; ok {
			t.Errorf("%v: duplicate_of", r["dir"])
		}
	}
	if !found {
		t.Errorf("validate --json: c4/run-4 is not a duplicate of c4/run-1:\n%s", out.String())
	}
	md := string(reportFiles(t, sweep)["report.md"])
	if !strings.Contains(md, "duplicate of c4/run-1: identical requests file") {
		t.Error("report.md does not name the duplicate under Exclusions")
	}
}
