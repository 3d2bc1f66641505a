package importer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

const (
	llmdV01Example = "testdata/real/llm-d-benchmark-docs-example-br_v0_1_example.yaml"
	llmdV02Example = "testdata/real/llm-d-benchmark-docs-example-br_v0_2_example.yaml"
)

// The v0.2 example: its stage (3, rate_qps 10 with concurrency .inf) is
// the level; its figures are the file's, in ms.
func TestLLMDV02Example(t *testing.T) {
	run := importOne(t, llmdV02Example)
	if got, want := run.Config.Load, ingest.RateLoad(10, ""); got != want {
		t.Errorf("level %v, want %v", got, want)
	}
	if run.Requests != nil {
		t.Error("a report holds aggregates only; got per-request records")
	}
	p := run.Config.Provenance
	// The file's seconds, times 1000 at run time as the importer does.
	ms := func(s float64) float64 { return s * 1000 }
	if p.Tool != "llm-d Benchmark Report" || p.Version != "0.2, from inference-perf 0.3.0, stage 3" {
		t.Errorf("tool %q version %q", p.Tool, p.Version)
	}
	for key, want := range map[string]float64{
		"ttft.mean":                             ms(0.0368578234128654),
		"ttft.p50":                              ms(0.03622930939309299),
		"ttft.p90":                              ms(0.04262634576298297),
		"ttft.p95":                              ms(0.045246614259667695),
		"ttft.p99":                              ms(0.05029489721637218),
		"ttft.max":                              ms(0.0574655020609498),
		"tpot.mean":                             ms(0.0368578234128654),
		"itl.gap_weighted_mean":                 ms(0.0368578234128654),
		"e2e.mean":                              ms(0.0368578234128654),
		"prompt_tokens.mean":                    2262.448,
		"output_tokens.p50":                     2262,
		"throughput.client_output_tokens_per_s": 2262.448,
		"throughput.requests_per_s":             2262.448,
		"counts.sent":                           500,
		"counts.errors":                         0,
		"duration_s":                            49.97206788184121,
	} {
		if got := figure(t, p, key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if n := len(p.Reported); n != 23 {
		t.Errorf("%d figures, want 23", n)
	}
	// 4 latencies give only their mean (4 values); ttft 14 statistics, 6
	// kept; lengths 14 each, 3 kept; 4 rates of 14, the mean kept.
	if want := "the report's other statistics (min, p0.1, p1, p5, p10, p25, p75, p99.9, stddev, mode): 82 values, not kept"; !slices.Contains(p.AsReported, want) {
		t.Errorf("as_reported %q, want it to hold %q", p.AsReported, want)
	}
	env := map[string]string{}
	for _, kv := range run.Env {
		env[kv.Key] = kv.Value
	}
	if env["model"] != "Qwen/Qwen3-0.6B" || env["engine.tool"] != "llm-d, llm-d-inference-scheduler" || env["accelerator"] != "NVIDIA-H100-80GB-HBM3" {
		t.Errorf("env %v", run.Env)
	}
}

// The v0.1 example: the level from inference-perf's native qps_values,
// plain-number throughput, the duration in seconds.
func TestLLMDV01Example(t *testing.T) {
	run := importOne(t, llmdV01Example)
	if got, want := run.Config.Load, ingest.RateLoad(1.34, ""); got != want {
		t.Errorf("level %v, want %v", got, want)
	}
	p := run.Config.Provenance
	for key, want := range map[string]float64{
		"ttft.p50":                              0.203539535985328,
		"e2e.p90":                               5.94717199734878,
		"tpot.max":                              0.17837208439984,
		"ntpot.mean":                            0.104340420636009,
		"throughput.client_output_tokens_per_s": 32.544923821416,
		"throughput.requests_per_s":             1.0238155253639,
		"counts.sent":                           32,
		"counts.incomplete":                     1,
		"duration_s":                            16.531641244888306,
	} {
		if got := figure(t, p, key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
}

// The same report as JSON imports to the same figures as its YAML.
func TestLLMDJSONSameAsYAML(t *testing.T) {
	data, err := os.ReadFile(llmdV02Example)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := yamlToJSON(data, llmdV02Example)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "report.json")
	// NaN and Infinity are Python's JSON, as json.dumps writes .inf.
	if err := os.WriteFile(p, doc.json, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := importOne(t, llmdV02Example), importOne(t, p)
	if a.Config.Load != b.Config.Load || !slices.Equal(a.Config.Provenance.Reported, b.Config.Provenance.Reported) {
		t.Errorf("JSON: %v %v\nYAML: %v %v", b.Config.Load, b.Config.Provenance.Reported, a.Config.Load, a.Config.Provenance.Reported)
	}
}

// Reports of a run's stages are its levels: a directory of three stage
// reports becomes three levels, each a reported.yaml.
func TestLLMDStagesAreLevels(t *testing.T) {
	data, err := os.ReadFile(llmdV02Example)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, load := range []string{"rate_qps: 5\n      concurrency: .inf", "rate_qps: 10\n      concurrency: .inf", "rate_qps: null\n      concurrency: 8"} {
		text := strings.Replace(string(data), "rate_qps: 10\n      concurrency: .inf", load, 1)
		text = strings.Replace(text, "stage: 3", fmt.Sprintf("stage: %d", i), 1)
		if text == string(data) && i != 1 {
			t.Fatal("the example's load was not found")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("benchmark_report_v0.2,_stage_%d.yaml", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Not a report: a YAML file of another kind is listed as skipped.
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("api:\n  streaming: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	imp, err := ImportFiles([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Layout(imp)
	if err != nil {
		t.Fatal(err)
	}
	var reported []string
	for name := range out {
		if strings.HasSuffix(name, "reported.yaml") {
			reported = append(reported, name)
		}
	}
	slices.Sort(reported)
	if want := []string{"c8/reported-1/reported.yaml", "rate10/reported-1/reported.yaml", "rate5/reported-1/reported.yaml"}; !slices.Equal(reported, want) {
		t.Errorf("reported.yaml files %q, want %q", reported, want)
	}
	if len(imp.Skipped) != 1 || filepath.Base(imp.Skipped[0].Path) != "config.yaml" ||
		imp.Skipped[0].Note != "not a result file benchnote can import: a YAML mapping with members api, which match no known tool's result" {
		t.Errorf("skipped %+v", imp.Skipped)
	}
}

func TestISODuration(t *testing.T) {
	for in, want := range map[string]float64{"PT49.97S": 49.97, "PT1M": 60, "PT2H3M4.5S": 7384.5, "P1D": 86400, "P1DT1S": 86401, "PT0S": 0} {
		if got, ok := isoDuration(in); !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("isoDuration(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"P", "PT", "P1Y", "P1M", "P1W", "49.97", "PT-1S", "pt1s", "PT1S1M"} {
		if got, ok := isoDuration(in); ok {
			t.Errorf("isoDuration(%q) = %v, want an error", in, got)
		}
	}
}

// v0.2.N are additive revisions of v0.2, read alike; a version written as
// a YAML number reads as its text.
func TestLLMDVersions(t *testing.T) {
	data, err := os.ReadFile(llmdV02Example)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"'0.2.1'", "0.2", "'0.2.7'"} {
		text := strings.Replace(string(data), "version: '0.2'", "version: "+v, 1)
		imp, err := importIn(t, [][2]string{{"r.yaml", text}}, Options{})
		if err != nil {
			t.Errorf("version %s: %v", v, err)
			continue
		}
		want := "0.2, from inference-perf 0.3.0, stage 3"
		if v != "0.2" {
			want = strings.Trim(v, "'") + ", from inference-perf 0.3.0, stage 3"
		}
		if got := imp.Runs[0].Config.Provenance.Version; got != want {
			t.Errorf("version %s: %q, want %q", v, got, want)
		}
	}
}
