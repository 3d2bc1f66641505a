package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// genaiBenchFolder is the real experiment folder (MIT, copied verbatim;
// testdata/real/README.md).
var genaiBenchFolder = filepath.Join("testdata", "real", "genai-bench0.0.2-baseten-qwen3-30b-a3b-fp8-h100-c2-64")

// The genai-bench Qwen3-30B folder: six levels, concurrency 2 to 64, each
// run with the requests its file holds, every TTFT the file's seconds in
// ms. The numbers were counted with jq on each file, apart from the
// importer: (.individual_request_metrics | length),
// .individual_request_metrics[0].ttft, and the sum of num_output_tokens.
// genai-bench ran more requests than its --max-requests-per-run 64 at
// concurrency 2 and 8 (65 and 66): the files hold them all, and so does
// the import.
func TestAcceptanceGenAIBenchQwen3(t *testing.T) {
	imp, err := ImportFiles([]string{genaiBenchFolder}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		concurrency, requests int
		firstTTFTs            float64 // the first record's ttft, seconds
		outputTokens          int64
	}{
		{2, 65, 0.20842880569398403, 13143},
		{4, 64, 0.23929955437779427, 12584},
		{8, 66, 0.5469797514379025, 13113},
		{16, 64, 0.966516887769103, 12757},
		{32, 64, 1.0378417717292905, 12610},
		{64, 64, 2.8247451707720757, 12761},
	}
	runs := slices.Clone(imp.Runs)
	slices.SortFunc(runs, func(a, b Run) int { return a.Config.Load.Concurrency - b.Config.Load.Concurrency })
	if len(runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(runs), len(want))
	}
	for i, w := range want {
		r := runs[i]
		q := r.Requests
		if r.Config.Load != ingest.ConcurrencyLoad(w.concurrency) || q.N != w.requests || len(r.Excluded) != 0 {
			t.Errorf("run %d: %s with %d requests (%d excluded), want concurrency %d with %d", i, r.Config.Load.Describe(), q.N, len(r.Excluded), w.concurrency, w.requests)
			continue
		}
		if got := q.TTFTms[0]; got != w.firstTTFTs*1000 {
			t.Errorf("c%d: first TTFT %v ms, want %v", w.concurrency, got, w.firstTTFTs*1000)
		}
		var out int64
		for k := range q.N {
			out += q.CompletionTokens[k]
			if q.Status.At(k) != "" {
				t.Errorf("c%d request %d: status %q; the run has no errors", w.concurrency, k+1, q.Status.At(k))
			}
		}
		if out != w.outputTokens {
			t.Errorf("c%d: %d output tokens, want %d", w.concurrency, out, w.outputTokens)
		}
		p := r.Config.Provenance
		if p.Tool != "genai-bench" || p.Version != "0.0.2" || slices.Contains(p.Unavailable, ingest.UnavailableTTFT) || !r.Config.Series.IsZero() {
			t.Errorf("c%d: tool %q %q, unavailable %q, series %v; want genai-bench 0.0.2, streamed, one series", w.concurrency, p.Tool, p.Version, p.Unavailable, r.Config.Series)
		}
		env := map[string]string{}
		for _, kv := range r.Env {
			env[kv.Key] = kv.Value
		}
		if env["api_model_name"] != "Qwen3-30B-A3B-Instruct-2507-FP8" || env["server_gpu_type"] != "H100" || env["server_gpu_count"] != "1" || env["cmd"] != "" {
			t.Errorf("c%d: env %v", w.concurrency, env)
		}
	}
	// The tool's own c2 median TTFT, converted: 0.1898169293999672 s.
	if got := figure(t, runs[0].Config.Provenance, "ttft.p50"); got != 0.1898169293999672*1000 {
		t.Errorf("genai-bench's c2 median TTFT %v ms", got)
	}
	if n := len(imp.Files); n != 7 || imp.Files[6].Format != FormatGenAIBenchMeta || imp.Files[6].Note != "read with the record files of its directory" {
		t.Errorf("files %+v", imp.Files)
	}
}

// genaiBenchFile is a run file: aggregated_metrics with the members given
// (scenario, num_concurrency, ...) and the request records given, then
// extra top-level members.
func genaiBenchFile(aggregated string, records []string, extra ...string) string {
	s := `{"aggregated_metrics": {` + aggregated + `, "stats": {"ttft": {"p50": 0.2}, "e2e_latency": {"p50": 1.5}}, "requests_per_second": 2.5},` +
		` "individual_request_metrics": [` + strings.Join(records, ", ") + `]`
	for _, e := range extra {
		s += ", " + e
	}
	return s + "}"
}

// genaiBenchRecord is a successful record (times in the file's unit).
func genaiBenchRecord(ttft, e2e string, in, out int) string {
	return fmt.Sprintf(`{"ttft": %s, "tpot": 0.01, "e2e_latency": %s, "output_latency": 1, "num_input_tokens": %d, "num_output_tokens": %d, "error_code": null, "error_message": null}`, ttft, e2e, in, out)
}

const genaiBenchErrorRecord = `{"ttft": null, "tpot": null, "e2e_latency": null, "num_input_tokens": null, "num_output_tokens": null, "error_code": 503, "error_message": "Traceback\nService Unavailable"}`

// genaiBenchMetadata is an experiment_metadata.json with the command line
// and task given.
func genaiBenchMetadata(cmd, task string) string {
	return fmt.Sprintf(`{"cmd": %q, "benchmark_version": "0.0.4", "api_backend": "openai", "auth_config": {"api_key": "sk-secret"}, "api_model_name": "m", "model": "m", "task": %q, "num_concurrency": [1, 2], "iteration_type": "num_concurrency", "traffic_scenario": ["D(100,100)"], "server_gpu_type": "H100", "max_time_per_run_s": 60, "max_requests_per_run": 10}`, cmd, task)
}

// Each way a genai-bench run is read: the time unit, streaming or not
// (the command line's --disable-streaming, or genai-bench's fixed 1 ms in
// every successful record), failed and zero-token records, batch_size
// runs, and several scenarios as series.
func TestGenAIBenchRuns(t *testing.T) {
	conc := `"scenario": "D(100,100)", "num_concurrency": 2, "batch_size": 1, "iteration_type": "num_concurrency"`
	type runWant struct {
		level    string
		series   string
		ttft     []float64 // ms, one per row kept; NaN-free rows only
		e2e      []float64
		statuses []string
		noTTFT   bool // "ttft" in unavailable
	}
	tests := []struct {
		name  string
		files [][2]string // the first is imported (or "." for the directory)
		want  []runWant
	}{
		{"seconds, with metadata", [][2]string{{".", ""},
			{"experiment_metadata.json", genaiBenchMetadata("genai-bench benchmark --num-concurrency 2", "text-to-text")},
			{"run.json", genaiBenchFile(conc, []string{genaiBenchRecord("0.25", "1.5", 10, 20), genaiBenchRecord("0.5", "2", 10, 20)})}},
			[]runWant{{"concurrency 2", "", []float64{250, 500}, []float64{1500, 2000}, []string{"", ""}, false}}},
		{"milliseconds (_time_unit ms, written last)", [][2]string{{"run.json",
			genaiBenchFile(conc, []string{genaiBenchRecord("250", "1500", 10, 20)}, `"_time_unit": "ms"`)}},
			[]runWant{{"concurrency 2", "", []float64{250}, []float64{1500}, []string{""}, false}}},
		{"--disable-streaming: TTFT = E2E, not the fixed 1 ms", [][2]string{{".", ""},
			{"experiment_metadata.json", genaiBenchMetadata("genai-bench benchmark --disable-streaming --num-concurrency 2", "text-to-text")},
			{"run.json", genaiBenchFile(conc, []string{genaiBenchRecord("0.001", "1.5", 10, 20)})}},
			[]runWant{{"concurrency 2", "", []float64{1500}, []float64{1500}, []string{""}, true}}},
		{"no metadata, every ttft the fixed 1 ms: not streamed", [][2]string{{"run.json",
			genaiBenchFile(conc, []string{genaiBenchRecord("1.0000000474974513", "1500", 10, 20), genaiBenchRecord("1", "2000", 10, 20)}, `"_time_unit": "ms"`)}},
			[]runWant{{"concurrency 2", "", []float64{1500, 2000}, []float64{1500, 2000}, []string{"", ""}, true}}},
		{"every ttft the fixed 0.001 s: not streamed", [][2]string{{"run.json",
			genaiBenchFile(conc, []string{genaiBenchRecord("0.0010000000474974513", "1.5", 10, 20), genaiBenchRecord("0.001", "2", 10, 20)})}},
			[]runWant{{"concurrency 2", "", []float64{1500, 2000}, []float64{1500, 2000}, []string{"", ""}, true}}},
		{"one ttft other than 1 ms: streamed", [][2]string{{"run.json",
			genaiBenchFile(conc, []string{genaiBenchRecord("0.001", "1.5", 10, 20), genaiBenchRecord("0.25", "2", 10, 20)})}},
			[]runWant{{"concurrency 2", "", []float64{1, 250}, []float64{1500, 2000}, []string{"", ""}, false}}},
		{"a failed and a zero-token record", [][2]string{{"run.json",
			genaiBenchFile(conc, []string{genaiBenchRecord("0.25", "1.5", 10, 20), genaiBenchErrorRecord, genaiBenchRecord("0.1", "0.2", 10, 0)})}},
			// The failed record has no prompt length: kept, with its status
			// (ingest allows a failed request an empty prompt_tokens).
			[]runWant{{"concurrency 2", "", []float64{250, -1, -1}, []float64{1500, -1, -1}, []string{"", "error 503: Service Unavailable", ""}, false}}},
		{"a batch_size run: concurrency 1, batch_size a label", [][2]string{{".", ""},
			{"a.json", genaiBenchFile(`"scenario": "D(100,100)", "num_concurrency": 1, "batch_size": 4, "iteration_type": "batch_size"`, []string{genaiBenchRecord("0.25", "1.5", 10, 20)})},
			{"b.json", genaiBenchFile(`"scenario": "D(100,100)", "num_concurrency": 1, "batch_size": 8, "iteration_type": "batch_size"`, []string{genaiBenchRecord("0.25", "1.5", 10, 20)})}},
			[]runWant{{"concurrency 1", "batch_size=4", []float64{250}, []float64{1500}, []string{""}, false},
				{"concurrency 1", "batch_size=8", []float64{250}, []float64{1500}, []string{""}, false}}},
		{"two scenarios: two series", [][2]string{{".", ""},
			{"a.json", genaiBenchFile(`"scenario": "D(100,100)", "num_concurrency": 2, "iteration_type": "num_concurrency"`, []string{genaiBenchRecord("0.25", "1.5", 10, 20)})},
			{"b.json", genaiBenchFile(`"scenario": "D(2000,200)", "num_concurrency": 2, "iteration_type": "num_concurrency"`, []string{genaiBenchRecord("0.5", "2.5", 10, 20)})}},
			[]runWant{{"concurrency 2", "scenario=D(100,100)", []float64{250}, []float64{1500}, []string{""}, false},
				{"concurrency 2", "scenario=D(2000,200)", []float64{500}, []float64{2500}, []string{""}, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := importIn(t, tt.files, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(imp.Runs) != len(tt.want) {
				t.Fatalf("%d runs, want %d", len(imp.Runs), len(tt.want))
			}
			for i, w := range tt.want {
				r := imp.Runs[i]
				q := r.Requests
				var ttft, e2e []float64
				var statuses []string
				for k := range q.N {
					ttft = append(ttft, nanAs(q.TTFTms[k]))
					e2e = append(e2e, nanAs(q.E2Ems[k]))
					statuses = append(statuses, q.Status.At(k))
				}
				got := fmt.Sprint(r.Config.Load.Describe(), " ", r.Config.Series.String(), " ", ttft, " ", e2e, " ", statuses, " ", slices.Contains(r.Config.Provenance.Unavailable, ingest.UnavailableTTFT))
				want := fmt.Sprint(w.level, " ", w.series, " ", w.ttft, " ", w.e2e, " ", w.statuses, " ", w.noTTFT)
				if got != want {
					t.Errorf("run %d:\n got %s\nwant %s", i, got, want)
				}
			}
		})
	}
}

// nanAs returns v, or -1 for NaN, so that rows compare as text.
func nanAs(v float64) float64 {
	if v != v {
		return -1
	}
	return v
}

// A failed record is kept and counted by its status, though genai-bench
// gives it no prompt length.
func TestGenAIBenchFailedRecords(t *testing.T) {
	conc := `"scenario": "D(100,100)", "num_concurrency": 2, "iteration_type": "num_concurrency"`
	imp, err := importIn(t, [][2]string{{"run.json", genaiBenchFile(conc, []string{genaiBenchRecord("0.25", "1.5", 10, 20), genaiBenchErrorRecord, genaiBenchErrorRecord})}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := imp.Runs[0]
	if len(r.Excluded) != 0 || r.Requests.N != 3 || r.Requests.PromptTokens[1] != -1 || r.Requests.Status.At(2) != "error 503: Service Unavailable" {
		t.Errorf("excluded %+v, %d requests, second's prompt %d, third's status %q; want none left out, 3, -1 (empty) and the error",
			r.Excluded, r.Requests.N, r.Requests.PromptTokens[1], r.Requests.Status.At(2))
	}
	if !slices.ContainsFunc(r.Config.Provenance.Recomputed, func(s string) bool {
		return strings.HasPrefix(s, "status from error_code and error_message: 2 with code 503 (")
	}) {
		t.Errorf("recomputed %q", r.Config.Provenance.Recomputed)
	}
}

// A run not streamed: through the sweep on disk, TTFT, TPOT and ITL are
// not measured, and genai-bench's own TTFT figures are not shown.
func TestGenAIBenchNotStreamedAnalysed(t *testing.T) {
	dir := t.TempDir()
	conc := `"scenario": "D(100,100)", "num_concurrency": 2, "iteration_type": "num_concurrency"`
	var records []string
	for k := range 8 {
		records = append(records, genaiBenchRecord("0.001", fmt.Sprintf("1.%d", k), 10, 20))
	}
	for name, data := range map[string]string{
		"experiment_metadata.json": genaiBenchMetadata("genai-bench benchmark --disable-streaming", "text-to-text"),
		"run.json":                 genaiBenchFile(conc, records),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := analyzeImport(t, "warmup: none\n", dir)
	if len(s.Runs) != 1 || s.Runs[0].Streamed {
		t.Fatalf("runs %d, streamed %v; want one run, not streamed", len(s.Runs), len(s.Runs) == 1 && s.Runs[0].Streamed)
	}
	if got := s.Runs[0].TTFT.Unavailable; !strings.HasPrefix(got, "not measured") {
		t.Errorf("TTFT unavailable %q", got)
	}
	var keys []string
	for _, f := range s.Runs[0].Import.Figures {
		keys = append(keys, f.Key)
	}
	if slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "ttft.") || strings.HasPrefix(k, "tpot.") }) {
		t.Errorf("figures %q include TTFT or TPOT", keys)
	}
}

// Files genai-bench cannot have written, or that benchnote does not
// read, are refused by name and JSON path.
func TestGenAIBenchRefusals(t *testing.T) {
	conc := `"scenario": "D(100,100)", "num_concurrency": 2, "iteration_type": "num_concurrency"`
	rec := genaiBenchRecord("0.25", "1.5", 10, 20)
	tests := []struct {
		name  string
		files [][2]string
		want  string
	}{
		{"an embeddings task", [][2]string{{".", ""}, {"experiment_metadata.json", genaiBenchMetadata("genai-bench", "text-to-embeddings")}, {"run.json", genaiBenchFile(conc, []string{rec})}},
			`experiment_metadata.json: $.task: genai-bench task "text-to-embeddings" generates no text: benchnote imports the text-generation tasks (text-to-text, image-text-to-text)`},
		{"an open-loop run", [][2]string{{".", ""}, {"experiment_metadata.json", genaiBenchMetadata("genai-bench --qps-level 0.5", "text-to-text")}, {"run.json", genaiBenchFile(conc, []string{rec})}},
			"run.json: $.aggregated_metrics.num_concurrency: an open-loop run (--qps-level), whose num_concurrency holds the request rate: benchnote does not read genai-bench's open-loop runs"},
		{"a QPS in num_concurrency", [][2]string{{"run.json", genaiBenchFile(`"num_concurrency": 0.5`, []string{rec})}},
			"run.json: $.aggregated_metrics.num_concurrency: an open-loop run (--qps-level), whose num_concurrency holds the request rate: benchnote does not read genai-bench's open-loop runs"},
		{"a time unit of minutes", [][2]string{{"run.json", genaiBenchFile(conc, []string{rec}, `"_time_unit": "min"`)}},
			`run.json: $._time_unit: expected the time unit "s" or "ms", got "min"`},
		{"several models", [][2]string{{".", ""}, {"experiment_metadata.json", strings.Replace(genaiBenchMetadata("genai-bench", "text-to-text"), `"api_model_name": "m"`, `"api_model_name": "a, b"`, 1)}, {"run.json", genaiBenchFile(conc, []string{rec})}},
			`experiment_metadata.json: $.api_model_name: an experiment of several models ("a, b"): its run files do not record which model each ran; import each model's run files by name, without this file, into a sweep of its own`},
		{"metadata alone", [][2]string{{"experiment_metadata.json", genaiBenchMetadata("genai-bench", "text-to-text")}},
			"experiment_metadata.json: genai-bench experiment metadata holds no results: import the experiment folder, or its run files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := importIn(t, tt.files, Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}
