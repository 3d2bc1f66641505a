package ingest

import (
	"strings"
	"testing"
)

func TestInputFiles(t *testing.T) {
	inputs, ignored, err := InputFiles("../runs/example")
	if err != nil {
		t.Fatal(err)
	}
	// sweep.yaml, two environment logs, and five files in each of nine
	// runs (gpu.csv among them).
	if len(inputs) != 3+9*5 || len(ignored) != 0 {
		t.Fatalf("%d inputs, %d ignored; want 48 and 0: %v", len(inputs), len(ignored), inputs)
	}
	want := []string{"c1/run-1/gpu.csv", "c1/run-1/metrics-end.prom", "c1/run-1/metrics-start.prom", "c1/run-1/requests.csv", "c1/run-1/run.yaml"}
	if strings.Join(inputs[:5], ",") != strings.Join(want, ",") || inputs[len(inputs)-1] != "sweep.yaml" {
		t.Errorf("inputs start %v, end %q", inputs[:5], inputs[len(inputs)-1])
	}
	if !inputsContain(inputs, "env.json") || !inputsContain(inputs, "c4/run-2/requests.parquet") {
		t.Errorf("inputs lack env.json or a Parquet requests file: %v", inputs)
	}

	inputs, ignored, err = InputFiles("../cmd/benchnote/internal/cli/testdata/badsweep")
	if err != nil {
		t.Fatal(err)
	}
	if !inputsContain(inputs, "conc2/r2/env.json") || inputsContain(inputs, "README.txt") {
		t.Errorf("badsweep inputs %v", inputs)
	}
	found := false
	for _, f := range ignored {
		found = found || f.Path == "README.txt" && f.Reason == reasonOutsideRun
	}
	if !found {
		t.Errorf("README.txt not ignored as outside a run: %+v", ignored)
	}
	if _, _, err := InputFiles("no/such/dir"); err == nil {
		t.Error("no error for a missing directory")
	}
}

func inputsContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
