package export

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/ingest/importer"
)

// exampleStages exports the repository's example sweep (3 levels × 3
// runs).
func exampleStages(t *testing.T) (*analyze.Summary, []Stage) {
	t.Helper()
	sw, err := ingest.Open("../runs/example", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := analyze.Analyze(sw)
	stages, leftOut, err := LLMDStages(s, "runs/example")
	if err != nil || len(leftOut) != 0 {
		t.Fatal(err, leftOut)
	}
	if len(stages) != len(s.Levels) || len(stages) != 3 {
		t.Fatalf("%d stages for %d levels, want 3", len(stages), len(s.Levels))
	}
	return s, stages
}

// Every exported report validates against the JSON Schema llm-d-benchmark
// publishes for v0.2 (testdata/llm-d, Apache-2.0, with its licence).
func TestLLMDReportsValidate(t *testing.T) {
	c := jsonschema.NewCompiler()
	schemaFile, err := os.Open("testdata/llm-d/br_v0_2_json_schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer schemaFile.Close()
	doc, err := jsonschema.UnmarshalJSON(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("br_v0_2_json_schema.json", doc); err != nil {
		t.Fatal(err)
	}
	c.AssertFormat()
	sch, err := c.Compile("br_v0_2_json_schema.json")
	if err != nil {
		t.Fatal(err)
	}
	_, stages := exampleStages(t)
	for _, st := range stages {
		b, err := st.Report.JSON()
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s does not validate: %v", st.Name, err)
		}
		// The schema forbids members it does not name: a broken report
		// must fail, or the check above proves nothing.
		bad := bytes.Replace(b, []byte(`"version": "0.2",`), []byte(`"version": "0.2", "extra": 1,`), 1)
		v, err = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("%s with an extra member validates", st.Name)
		}
	}
}

// Export then import: each stage's figures are the level's medians.
func TestLLMDRoundTrip(t *testing.T) {
	s, stages := exampleStages(t)
	for _, form := range []string{"json", "yaml"} {
		t.Run(form, func(t *testing.T) {
			dir := t.TempDir()
			for _, st := range stages {
				b, err := st.Report.YAML()
				name := st.Name
				if form == "json" {
					b, err = st.Report.JSON()
					name = name[:len(name)-len(".yaml")] + ".json"
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			imp, err := importer.ImportFiles([]string{dir}, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(imp.Runs) != len(stages) {
				t.Fatalf("%d runs imported, want %d", len(imp.Runs), len(stages))
			}
			checked := 0
			for i, run := range imp.Runs {
				lv := s.Levels[i]
				if got, want := run.Config.Load.Key(), lv.Load().Key(); got != want {
					t.Fatalf("run %d at %s, want %s", i, got, want)
				}
				figs := map[string]float64{}
				for _, f := range run.Config.Provenance.Reported {
					figs[f.Key] = f.Value
				}
				for _, key := range []string{"ttft.mean", "ttft.p50", "ttft.p95", "ttft.p99", "tpot.mean", "tpot.p50", "tpot.p95", "tpot.p99",
					"e2e.mean", "e2e.p50", "e2e.p95", "e2e.p99", "itl.gap_weighted_mean", "throughput.client_output_tokens_per_s", "throughput.requests_per_s"} {
					st, ok := lv.Stat(key)
					if !ok || !st.Median.Valid() {
						if _, has := figs[key]; has {
							t.Errorf("%s: %s exported without a median", lv.Load().Key(), key)
						}
						continue
					}
					if got, ok := figs[key]; !ok || got != float64(st.Median) {
						t.Errorf("%s: %s = %v (present %v), want %v", lv.Load().Key(), key, got, ok, float64(st.Median))
					}
					checked++
				}
			}
			// 3 levels × 12 latency statistics and the gap-weighted ITL;
			// the example's runs have a client rate and requests/s.
			if checked != 3*15 {
				t.Errorf("%d figures compared, want %d", checked, 3*15)
			}
		})
	}
}

// The report says the figures are medians across runs.
func TestLLMDSaysMedians(t *testing.T) {
	_, stages := exampleStages(t)
	b, err := stages[1].Report.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Run struct {
			Description string   `json:"description"`
			Keywords    []string `json:"keywords"`
		} `json:"run"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := "benchnote export of runs/example, level c4 (stage 1): every figure is the median across the level's 3 runs of each run's statistic, as in benchnote's summary.json; percentiles are each run's, not pooled over the level's requests"
	if doc.Run.Description != want || len(doc.Run.Keywords) != 2 || doc.Run.Keywords[1] != MediansKeyword {
		t.Errorf("run %+v\nwant description %q", doc.Run, want)
	}
}

// Ours tells a report benchnote wrote, unchanged, from anything else.
func TestOurs(t *testing.T) {
	_, stages := exampleStages(t)
	for _, render := range []func(*LLMDReport) ([]byte, error){(*LLMDReport).JSON, (*LLMDReport).YAML} {
		b, err := render(stages[0].Report)
		if err != nil {
			t.Fatal(err)
		}
		if !Ours(b) {
			t.Fatalf("a fresh export is not recognised:\n%.300s", b)
		}
		edited := bytes.Replace(b, []byte("ms/token"), []byte("s/token"), 1)
		if Ours(edited) {
			t.Error("an edited export is taken for benchnote's")
		}
		if Ours([]byte("version: '0.2'\nrun:\n  uid: " + uidPlaceholder + "\n")) {
			t.Error("a file with benchnote's placeholder is taken for benchnote's")
		}
	}
}

// A level whose runs all failed has no statistic: it is left out and
// named; a summary with no usable level is an error.
func TestLLMDLeftOut(t *testing.T) {
	s, _ := exampleStages(t)
	failed := analyze.Level{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 64}}
	s.Levels = append(s.Levels, failed)
	stages, leftOut, err := LLMDStages(s, "x")
	if err != nil || len(stages) != 3 || len(leftOut) != 1 || leftOut[0] != "c=64" {
		t.Errorf("%d stages, left out %q, %v; want 3 and c=64", len(stages), leftOut, err)
	}
	_, _, err = LLMDStages(&analyze.Summary{Levels: []analyze.Level{failed}}, "x")
	if err == nil {
		t.Error("a summary with no usable level exported")
	}
}

// Rate levels export as rate_qps; rate inf, which JSON cannot write as
// .inf, through native.config.benchnote.level: both import at their level,
// the arrival process kept.
func TestLLMDRateLevels(t *testing.T) {
	s, _ := exampleStages(t)
	s.Levels[0].LevelKey = analyze.LevelKey{Mode: "rate", Rate: analyze.Rate(math.Inf(1))}
	s.Levels[1].LevelKey = analyze.LevelKey{Mode: "rate", Rate: 2.5, Arrival: "poisson"}
	stages, _, err := LLMDStages(s, "x")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, st := range stages[:2] {
		b, err := st.Report.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && bytes.Contains(b, []byte("rate_qps")) {
			t.Errorf("rate inf written as rate_qps:\n%s", b)
		}
		if err := os.WriteFile(filepath.Join(dir, st.Name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	imp, err := importer.ImportFiles([]string{dir}, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range imp.Runs {
		got = append(got, r.Config.Load.DirName())
	}
	if strings.Join(got, " ") != "rate-inf rate2.5-poisson" {
		t.Errorf("imported at %q, want rate-inf rate2.5-poisson", got)
	}
}
