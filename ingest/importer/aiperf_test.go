package importer

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// Each generation of AIPerf's records imports to the same request: 0.1.x
// (metadata.timestamp_ns, credit_phase, the error in the metadata), 0.2 to
// 0.11 (request_start_ns, benchmark_phase, was_cancelled false, error
// null) and 0.12+ (defaults omitted); a cancelled request has the status
// "cancelled" whatever its error says, and an error's cause chain names
// its root.
func TestAIPerfRecordGenerations(t *testing.T) {
	metrics := `"metrics": {"time_to_first_token": {"value": 20, "unit": "ms"}, "inter_chunk_latency": {"value": [5, 5], "unit": "ms"}, "output_token_count": {"value": 3, "unit": "tokens"}, "input_sequence_length": {"value": 7, "unit": "tokens"}}`
	noOutput := `"metrics": {"input_sequence_length": {"value": 7, "unit": "tokens"}}`
	tests := []struct {
		name, line      string
		status          string
		phase           ingest.Phase
		sent, ttft, e2e float64
	}{
		{"0.1.x", `{"record_id": "", "metadata": {"conversation_id": "c", "turn_index": 0, "timestamp_ns": 1700000000500000000, "worker_id": "w", "record_processor_id": "p", "credit_phase": "profiling", "error": null}, ` + metrics + `}`,
			"", ingest.PhaseMeasured, 1700000000.5, 20, 30},
		{"0.1.x warm-up", `{"metadata": {"timestamp_ns": 1700000000500000000, "credit_phase": "warmup"}, ` + metrics + `}`,
			"", ingest.PhaseWarmup, 1700000000.5, 20, 30},
		{"0.1.x error in the metadata", `{"metadata": {"timestamp_ns": 1700000000500000000, "credit_phase": "profiling", "error": {"code": 503, "type": "HTTPError", "message": "busy"}}, ` + noOutput + `}`,
			"HTTPError 503: busy", ingest.PhaseMeasured, 1700000000.5, math.NaN(), math.NaN()},
		{"0.2–0.11", `{"metadata": {"x_request_id": "a", "request_start_ns": 1700000000500000000, "request_end_ns": 1700000000600000000, "benchmark_phase": "profiling", "was_cancelled": false, "cancellation_time_ns": null}, ` + metrics + `, "error": null}`,
			"", ingest.PhaseMeasured, 1700000000.5, 20, 30},
		{"0.12+ wire format", `{"metadata": {"session_num": 0, "x_request_id": "a", "request_start_ns": 1700000000500000000, "request_end_ns": 1700000000600000000, "worker_id": "w", "record_processor_id": "p", "benchmark_phase": "profiling"}, ` + metrics + `}`,
			"", ingest.PhaseMeasured, 1700000000.5, 20, 30},
		{"cancelled with an error", `{"metadata": {"request_start_ns": 1700000000500000000, "benchmark_phase": "profiling", "was_cancelled": true}, ` + noOutput + `, "error": {"code": 499, "type": "RequestCancellationError", "message": "Request was cancelled after 0.5 seconds"}}`,
			"cancelled", ingest.PhaseMeasured, 1700000000.5, math.NaN(), math.NaN()},
		{"a cause chain", `{"metadata": {"request_start_ns": 1700000000500000000, "benchmark_phase": "profiling"}, ` + noOutput + `, "error": {"type": "ClientConnectorError", "message": "Cannot connect", "cause": "OSError(111)", "cause_chain": ["ClientConnectorError", "ConnectionRefusedError"]}}`,
			"ClientConnectorError: Cannot connect (cause: ConnectionRefusedError)", ingest.PhaseMeasured, 1700000000.5, math.NaN(), math.NaN()},
		{"non-streaming", `{"metadata": {"request_start_ns": 1700000000500000000, "benchmark_phase": "profiling"}, "metrics": {"request_latency": {"value": 0.4, "unit": "sec"}, "output_token_count": {"value": 3, "unit": "tokens"}, "input_sequence_length": {"value": 7, "unit": "tokens"}}}`,
			"", ingest.PhaseMeasured, 1700000000.5, 400, 400},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := importIn(t, [][2]string{{"profile_export.jsonl", tt.line + "\n"}}, Options{Level: ingest.ConcurrencyLoad(1)})
			if err != nil {
				t.Fatal(err)
			}
			q := imp.Runs[0].Requests
			if q.N != 1 || q.Status.At(0) != tt.status || q.Phase[0] != tt.phase || !same(q.TRequestSent[0], tt.sent) || !same(q.TTFTms[0], tt.ttft) || !same(q.E2Ems[0], tt.e2e) {
				t.Errorf("got status %q, phase %v, sent %v, TTFT %v, E2E %v", q.Status.At(0), q.Phase[0], q.TRequestSent[0], q.TTFTms[0], q.E2Ems[0])
			}
		})
	}
}

// Each generation of AIPerf's summary gives the level and the figures:
// 0.1.x's records wrapper, the flat file without schema_version, and
// schema 1.5 with the new input_config and vendor-named telemetry.
func TestAIPerfSummaryGenerations(t *testing.T) {
	tests := []struct {
		name, file string
		level      ingest.LoadLevel
		tool       string
		version    string
		key        string
		value      float64
	}{
		{"0.1.x records wrapper", `{"records": {"time_to_first_token": {"tag": "time_to_first_token", "unit": "ms", "header": "Time to First Token", "avg": 12.5, "p50": 12, "count": 10}, "request_latency": {"tag": "request_latency", "unit": "ms", "header": "Request Latency", "avg": 100}}, "input_config": {"endpoint": {"model_names": ["m"], "streaming": true}, "loadgen": {"concurrency": 8}}, "was_cancelled": false}`,
			ingest.ConcurrencyLoad(8), "AIPerf", "not recorded in the file", "ttft.mean", 12.5},
		{"flat, no schema_version", `{"time_to_first_token": {"unit": "ms", "avg": 7}, "input_config": {"loadgen": {"request_rate": 2.5, "request_rate_mode": "poisson"}}}`,
			ingest.RateLoad(2.5, "poisson"), "AIPerf", "not recorded in the file", "ttft.mean", 7},
		{"schema 1.5, new input_config", `{"schema_version": "1.5", "aiperf_version": "0.14.0", "benchmark_id": "b", "time_to_first_token": {"unit": "ms", "avg": 9, "count": 4, "sum": 36}, "effective_concurrency": {"unit": "requests", "avg": 14.6, "p50": 16}, "total_output_tokens": {"unit": "tokens", "avg": 400}, "input_config": {"models": {"items": [{"name": "m"}]}, "endpoint": {"urls": ["http://h:8000"], "streaming": true}, "phases": [{"name": "warmup", "type": "concurrency", "concurrency": 1}, {"name": "profiling", "type": "concurrency", "concurrency": 16}]}, "run_info": {"trial": 0, "run_label": "run_0001", "variation_label": "concurrency_16"}, "telemetry_data": {"endpoints": {"h:9400": {"gpus": {"gpu_0": {"gpu_index": 0, "gpu_name": "NVIDIA H100", "gpu_uuid": "GPU-1", "platform": "nvidia", "metrics": {"nvidia_power_usage": {"unit": "W", "avg": 500}, "nvidia_energy_consumption": {"unit": "MJ", "min": 1.0, "max": 1.0002}}}}}}}}`,
			ingest.ConcurrencyLoad(16), "AIPerf", "0.14.0", "energy.j_per_output_token", 0.5},
		{"GenAI-Perf telemetry_stats", `{"time_to_first_token": {"unit": "ms", "avg": 7}, "total_output_tokens": {"unit": "tokens", "avg": 1000}, "input_config": {"concurrency": 2}, "telemetry_stats": {"gpu_power_usage": {"unit": "W", "gpu0": {"avg": 100, "min": 90}, "gpu1": {"avg": 50}}, "energy_consumption": {"unit": "MJ", "gpu0": {"min": 2.0, "max": 2.0003}, "gpu1": {"min": 1.0, "max": 1.0001}}}}`,
			ingest.ConcurrencyLoad(2), "GenAI-Perf", "not recorded in the file", "energy.j_per_output_token", 0.4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := importIn(t, [][2]string{{"profile_export_aiperf.json", tt.file}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := imp.Runs[0]
			p := r.Config.Provenance
			if r.Config.Load != tt.level || p.Tool != tt.tool || p.Version != tt.version {
				t.Errorf("level %s, tool %q, version %q", r.Config.Load.Describe(), p.Tool, p.Version)
			}
			if got := figure(t, p, tt.key); math.Abs(got-tt.value) > 1e-9 {
				t.Errorf("%s %v, want %v", tt.key, got, tt.value)
			}
			if tt.version == "0.14.0" {
				if got := figure(t, p, "workload.achieved_concurrency"); got != 14.6 {
					t.Errorf("effective concurrency %v, want 14.6 (its mean only)", got)
				}
			}
		})
	}
}

// The hand-written sweep (testdata/fixtures/aiperf-sweep): trials are
// repeats, concurrency directories levels; read back as report reads it,
// the imported scrapes bracket the window, so the server's generation
// counter rose by the 6 tokens the 2 measured successful requests had (no
// mismatch), and gpu.csv holds the 2 GPUs' 4 samples.
func TestAIPerfSweepLayout(t *testing.T) {
	dir := filepath.Join(fixtures, "aiperf-sweep")
	files := layoutOf(t, dir)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"benchnote-import.yaml", "c2/run-1/env.json", "c2/run-1/gpu.csv", "c2/run-1/metrics-end.prom", "c2/run-1/metrics-start.prom",
		"c2/run-1/requests.parquet", "c2/run-1/run.yaml", "c2/run-2/env.json", "c2/run-2/requests.parquet", "c2/run-2/run.yaml",
		"c4/run-1/env.json", "c4/run-1/requests.parquet", "c4/run-1/run.yaml"}
	if !slices.Equal(names, want) {
		t.Errorf("files\n got %v\nwant %v", names, want)
	}
	if n := strings.Count(string(files["c2/run-1/gpu.csv"]), "\n"); n != 5 {
		t.Errorf("gpu.csv has %d lines, want a header and 4 samples", n)
	}
	s := analyzeImport(t, "warmup: none\n", filepath.Join(dir, "profile_runs", "trial_0001", "concurrency_2"))
	r := s.Runs[0]
	if m := r.Throughput.CounterMismatch; !m.Valid() || float64(m) != 0 {
		t.Errorf("counter mismatch %v, want 0", m)
	}
	if len(r.Server) == 0 {
		t.Errorf("no server histograms read from the imported scrapes")
	}
}

// AIPerf's directories place a run: run_NNNN and trial_NNNN under
// profile_runs are repeats; a parameter directory beside a trial is a
// series unless it is the load.
func TestAIPerfPlaces(t *testing.T) {
	tests := []struct {
		path         string
		repeat       int
		param, value string
	}{
		{"a/profile_runs/run_0003/profile_export.jsonl", 3, "", ""},
		{"a/profile_runs/trial_0002/concurrency_10/profile_export.jsonl", 2, "concurrency", "10"},
		{"a/isl_512/profile_runs/trial_0001/profile_export.jsonl", 1, "isl", "512"},
		{"a/concurrency_10/profile_export.jsonl", 0, "", ""},
		{"a/run_0003/profile_export.jsonl", 0, "", ""},
		{"a/profile_runs/run_0000/profile_export.jsonl", 0, "", ""},
	}
	for _, tt := range tests {
		pl := aiperfPlaceOf(tt.path)
		if pl.repeat != tt.repeat || pl.param != tt.param || pl.value != tt.value {
			t.Errorf("%s: %+v", tt.path, pl)
		}
	}
	for _, tt := range []struct {
		path  string
		level ingest.LoadLevel
	}{
		{"a/concurrency_10/profile_export.jsonl", ingest.ConcurrencyLoad(10)},
		{"a/request_rate_2.5/profile_runs/trial_0001/profile_export.jsonl", ingest.RateLoad(2.5, "")},
		{"a/concurrency_0/profile_export.jsonl", ingest.LoadLevel{}},
		{"a/concurrency_2000000/profile_export.jsonl", ingest.LoadLevel{}},
		{"a/isl_512/profile_export.jsonl", ingest.LoadLevel{}},
	} {
		if l, _ := aiperfDirLevel(tt.path); l != tt.level {
			t.Errorf("%s: level %s, want %s", tt.path, l.Describe(), tt.level.Describe())
		}
	}
	// A swept setting other than the load is a series.
	var r Run
	pl := aiperfPlaceOf("a/isl_512/profile_runs/trial_0001/profile_export.jsonl")
	pl.apply(&r)
	if len(r.traits.list) != 1 || r.traits.list[0].label != "isl" || r.traits.list[0].value != "512" {
		t.Errorf("traits %+v", r.traits.list)
	}
}

// Send times before 2000 are a monotonic clock's: kept for order, with no
// window and wall clock unavailable.
func TestAIPerfMonotonicClock(t *testing.T) {
	line := `{"metadata": {"request_start_ns": 5000000000, "request_end_ns": 6000000000, "benchmark_phase": "profiling"}, "metrics": {"time_to_first_token": {"value": 20, "unit": "ms"}, "output_token_count": {"value": 1, "unit": "tokens"}, "input_sequence_length": {"value": 7, "unit": "tokens"}}}`
	imp, err := importIn(t, [][2]string{{"profile_export.jsonl", line + "\n"}}, Options{Level: ingest.ConcurrencyLoad(1)})
	if err != nil {
		t.Fatal(err)
	}
	r := imp.Runs[0]
	p := r.Config.Provenance
	if r.Config.Window != nil || !p.Has(ingest.UnavailableWallClock) || !p.Has(ingest.UnavailableWindow) || r.Requests.TRequestSent[0] != 5 {
		t.Errorf("window %v, unavailable %v, sent %v", r.Config.Window, p.Unavailable, r.Requests.TRequestSent[0])
	}
}
