package importer

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// BenchmarkImportVLLMReal imports the 3 MB per-request vLLM 0.6.3 result
// (1,000 requests) and lays out its sweep (Parquet included).
func BenchmarkImportVLLMReal(b *testing.B) {
	f := filepath.Join("testdata", "real", "dstack-vllm0.6.3-8xh100-llama405b-fp8-16qps-per-request.json")
	st, err := os.Stat(f)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		imp, err := ImportFiles([]string{f}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Layout(imp); err != nil {
			b.Fatal(err)
		}
	}
}

// writeVLLMResult writes a vLLM result with n requests, each with 8
// inter-token latencies and a short generated text, as benchmark_serving
// writes it.
func writeVLLMResult(tb testing.TB, path string, n int) int64 {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"date": "20260301-000000", "backend": "vllm", "model_id": "m", "tokenizer_id": "m", "num_prompts": %d, "request_rate": 16.0, "duration": 100.0, "completed": %d`, n, n)
	list := func(name string, each func(i int)) {
		fmt.Fprintf(w, `, %q: [`, name)
		for i := 0; i < n; i++ {
			if i > 0 {
				w.WriteString(", ")
			}
			each(i)
		}
		w.WriteString("]")
	}
	list("input_lens", func(i int) { w.WriteString(strconv.Itoa(100 + i%900)) })
	list("output_lens", func(i int) { w.WriteString(strconv.Itoa(9 + i%3)) })
	list("ttfts", func(i int) { w.WriteString(strconv.FormatFloat(0.05+float64(i%1000)*0.0001237, 'g', -1, 64)) })
	list("itls", func(i int) {
		w.WriteString("[")
		for k := 0; k < 8; k++ {
			if k > 0 {
				w.WriteString(", ")
			}
			w.WriteString(strconv.FormatFloat(0.02+float64((i+k)%97)*0.000113, 'g', -1, 64))
		}
		w.WriteString("]")
	})
	list("generated_texts", func(i int) { w.WriteString(`"The quick brown fox jumps over the lazy dog."`) })
	list("errors", func(i int) { w.WriteString(`""`) })
	w.WriteString(`, "mean_ttft_ms": 100.0, "median_ttft_ms": 100.0}`)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return st.Size()
}

// TestWriteGeneratedVLLMResult writes the generated vLLM result that
// BenchmarkImportVLLMGenerated imports to a file, for timing the import
// command end to end (docs/benchmarks.md):
//
//	BENCHNOTE_VLLM_RESULT=1000000:/tmp/gen.json go test ./ingest/importer -run TestWriteGeneratedVLLMResult
func TestWriteGeneratedVLLMResult(t *testing.T) {
	spec := os.Getenv("BENCHNOTE_VLLM_RESULT")
	if spec == "" {
		t.Skip("set BENCHNOTE_VLLM_RESULT=N:PATH to write a generated vLLM result of N requests to PATH")
	}
	count, path, ok := strings.Cut(spec, ":")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n < 1 || path == "" {
		t.Fatalf("BENCHNOTE_VLLM_RESULT=%q: want N:PATH", spec)
	}
	t.Logf("%s: %d requests, %d bytes", path, n, writeVLLMResult(t, path, n))
}

// BenchmarkImportVLLMGenerated imports generated vLLM results of 100k and
// 1M requests: time and memory should grow linearly with the input.
func BenchmarkImportVLLMGenerated(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run("requests="+strconv.Itoa(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "result.json")
			size := writeVLLMResult(b, path, n)
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				imp, err := ImportFiles([]string{path}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if imp.Runs[0].Requests.N != n {
					b.Fatalf("%d requests", imp.Runs[0].Requests.N)
				}
				if _, err := Layout(imp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzImport feeds arbitrary bytes to every importer, detected and forced:
// malformed input must give an error, never a panic, within the time
// budget; and whenever an import succeeds, what it produced must read
// back through ingest (Layout's verifyLayout: every requests.parquet row
// kept, every run.yaml, reported.yaml and env.json without a problem) and
// keep every value inside ingest's ranges. The Parquet part is left to
// inputs that import few requests: under the fuzzer's coverage
// instrumentation Arrow's writer is too slow to explore much else.
func FuzzImport(f *testing.F) {
	for _, seed := range []string{
		`{"backend": "vllm", "model_id": "m", "request_rate": 1, "input_lens": [1], "output_lens": [2], "ttfts": [0.1], "itls": [[0.01]], "errors": [""]}`,
		`{"backend": "sglang", "dataset_name": "x", "request_rate": Infinity}`,
		`[{"error_code": -100, "ttft_s": 0.1, "end_to_end_latency_s": 1, "number_output_tokens": 3}]`,
		`{"metadata": {"version": 1}, "args": {}, "benchmarks": [{"requests": {"successful": [{"request_id": "a"}]}}]}`,
		`{"metadata": {"request_start_ns": 1}, "metrics": {"time_to_first_token": {"value": 1, "unit": "ms"}}, "error": null}`,
		`{"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": [{"timestamp": 1, "response_timestamps": [2], "response_outputs": [{"response": "data: {}"}]}]}]}`,
		`[{"start_time": 1, "end_time": 2, "info": {"response_metrics": {"chunk_times": [1.5]}}, "error": null}]`,
		`{"aggregated_metrics": {"scenario": "D(1,1)", "num_concurrency": 2, "iteration_type": "num_concurrency"}, "individual_request_metrics": [{"ttft": 0.001, "e2e_latency": 1, "num_input_tokens": 1, "num_output_tokens": 2, "error_code": null}, {"error_code": 503, "error_message": "x"}], "_time_unit": "s"}`,
		// Issue 20's hostile inputs: values out of range, numbers beyond
		// float64, two formats at once, trailing documents.
		`{"backend": "vllm", "request_rate": "inf", "max_concurrency": 99999999999, "input_lens": [1], "output_lens": [2], "ttfts": [1e400], "itls": [[]], "errors": [""]}`,
		`{"backend": "vllm", "request_rate": 4, "input_lens": [1, 2000000000], "output_lens": [2, 2], "ttfts": [2e7, 0.1], "itls": [[], [3e7]], "errors": ["", ""], "start_times": [-1, 1]}`,
		`{"backend": "vllm", "request_rate": 1e400, "experiments": [{"requests": []}], "x": ` + strings.Repeat("9", 600) + `}`,
		`{"backend": "vllm", "request_rate": 1, "input_lens": [1], "output_lens": [2], "ttfts": [0.1], "itls": [[0.01]], "errors": [""]}` + "\n" + `{"x":1}`,
		`{"version": "2023-08-31", "num_concurrent_requests": 5, "results_ttft_s_mean": NaN, "results_ttft_s_max": 1e308}`,
		// AIPerf, every generation, and its telemetry files.
		`{"record_id": "", "metadata": {"timestamp_ns": 1700000000000000000, "credit_phase": "warmup", "error": {"code": 500, "message": "x"}}, "metrics": {}}`,
		`{"metadata": {"request_start_ns": 1700000000000000000, "request_end_ns": 1700000000100000000, "benchmark_phase": "profiling", "was_cancelled": true}, "metrics": {"request_latency": {"value": 1, "unit": "sec"}, "output_token_count": {"value": 2, "unit": "tokens"}, "input_sequence_length": {"value": 1, "unit": "tokens"}}, "error": {"message": "m", "cause_chain": ["A", "B"]}}`,
		`{"records": {"request_latency": {"unit": "ms", "avg": 1}}, "input_config": {"loadgen": {"concurrency": 2}}}`,
		`{"schema_version": "1.5", "aiperf_version": "0.14", "run_info": {"trial": 1, "variation_label": "isl_5"}, "total_output_tokens": {"unit": "tokens", "avg": 3}, "input_config": {"phases": [{"name": "profiling", "concurrency": 3}]}, "telemetry_data": {"endpoints": {"a": {"gpus": {"g": {"gpu_uuid": "U", "metrics": {"nvidia_energy_consumption": {"unit": "MJ", "min": 1, "max": 2}, "nvidia_power_usage": {"unit": "W", "avg": 1}}}}}, "b": {"gpus": {"g": {"gpu_uuid": "U", "metrics": {}}}}}}}`,
		`{"timestamp_ns": 1700000000000000000, "dcgm_url": "u", "gpu_index": 0, "gpu_uuid": "U", "telemetry_data": {"gpu_power_usage": 1, "energy_consumption": 2}}`,
		`{"endpoint_url": "u", "timestamp_ns": 1700000000000000000, "metrics": {"m": [{"labels": {"a": "b"}, "value": 1}], "h": [{"buckets": {"+Inf": 1}, "sum": 1, "count": 1}]}}`,
		// Series labels from values no label takes as they are: control
		// characters, invalid UTF-8, a value too long, a slash, a dot.
		`{"backend": "sglang", "dataset_name": "random", "random_input_len": 1, "request_rate": 1}` + "\n" +
			`{"backend": "a\u0001b/..", "dataset_name": "\ud800` + strings.Repeat("é", 200) + `", "request_rate": 1}` + "\n" +
			`{"backend": ".", "dataset_name": "random", "random_input_len": 1e308, "request_rate": 1}`,
		// YAML (issue 23): GuideLLM's benchmarks.yaml, llm-d reports in
		// YAML and JSON, aliases.
		"---\nargs: {}\nbenchmarks:\n- config: {strategy: {type_: concurrent, streams: 4}}\n  requests:\n    successful: [{request_id: a}]\n",
		"version: '0.2'\nrun: {uid: x, time: {duration: PT49.97S}}\nscenario:\n  load:\n    standardized: {rate_qps: 10, concurrency: .inf, stage: 3}\nresults:\n  request_performance:\n    aggregate:\n      requests: {total: 5, failures: 1}\n      latency:\n        time_to_first_token: {units: s, mean: 0.1, p50: 0.09}\n",
		`{"version": "0.1", "scenario": {"load": {"args": {"max-concurrency": 8}}}, "metrics": {"throughput": {"requests_per_sec": 1.5}, "latency": {"request_latency": {"units": "ms", "mean": 3}}}}`,
		"a: &a [x, x]\nb: &b [*a, *a, *a]\nversion: '0.2'\nrun: *b\nresults: {}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		level, err := ingest.ParseLoadKey("c=2")
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range append([]Format{""}, Formats...) {
			var imp *Import
			fuzzbudget.Check(t, "ImportFiles "+string(format), len(data), func() {
				imp, err = ImportFiles([]string{path}, Options{Format: format, MaxRequests: 1000, Level: level})
			})
			if err != nil {
				continue
			}
			checkImported(t, imp)
			requests := 0
			for _, r := range imp.Runs {
				if r.Requests != nil {
					requests += r.Requests.N
				}
			}
			if requests > 50 {
				continue
			}
			if _, err := Layout(imp); err != nil {
				var bug *wouldNotValidate
				if errors.As(err, &bug) {
					t.Errorf("--format %q: %v", format, err)
				}
			}
		}
	})
}

// checkImported checks, without writing Parquet, that every value of an
// import is one ingest keeps: each request passes the row checks, each
// level is inside ingest's ranges, each run.yaml and reported.yaml reads
// back without a problem.
func checkImported(t *testing.T, imp *Import) {
	t.Helper()
	for _, r := range imp.Runs {
		if l := r.Config.Load; l.Valid() && (l.Mode == ingest.ModeConcurrency && l.Concurrency > ingest.MaxConcurrency ||
			l.Mode == ingest.ModeRate && !l.Unbounded() && l.Rate > ingest.MaxRate) {
			t.Errorf("%s: level %s out of range", r.Source, l.Describe())
		}
		if q := r.Requests; q != nil {
			tb := &table{cols: columns{sent: q.TRequestSent != nil, first: q.TFirstText != nil, last: q.TLastText != nil,
				maxTokens: q.MaxTokens != nil, textChunks: q.TextChunks != nil, chunks: q.ChunkOffsets != nil}}
			for i := range q.N {
				row := rowOf(q, i)
				if p, ok := tb.checkRow(&row); !ok {
					t.Errorf("%s: request %d written though %s", r.Source, i+1, p.msg)
				}
			}
		}
		data, err := ingest.FormatRunConfig(r.Config)
		if err != nil {
			t.Errorf("%s: %v", r.Source, err)
			continue
		}
		if diags := ingest.CheckRunConfig(data, "run.yaml"); len(diags) > 0 {
			t.Errorf("%s: run.yaml would not validate: %s\n%s", r.Source, diags[0], data)
		}
	}
}

// FuzzImportAccounting: a vLLM result of k requests built from the fuzz
// input, some of whose values ingest would not keep (huge TTFTs, failed
// requests, zero-token outputs) or no request can have (a negative TTFT):
// either the file is refused with an error naming the JSON path, or every
// request is accounted for — kept, or left out and counted by reason —
// and what is kept lays out into a sweep that reads back (Layout
// validates before writing).
func FuzzImportAccounting(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{255, 0, 128, 3, 250, 7})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		k := min(len(data), 40)
		var in, out, ttft, itls, errs []string
		for i := range k {
			b := data[i]
			in = append(in, strconv.Itoa(int(b%7)+1))
			n := int(b % 5) // 0..4 output tokens
			out = append(out, strconv.Itoa(n))
			switch {
			case b%11 == 0:
				ttft = append(ttft, "-1") // not a duration: left out
			case b%13 == 0:
				ttft = append(ttft, "2e7") // 2e10 ms: beyond ingest's range
			default:
				ttft = append(ttft, strconv.FormatFloat(float64(b)/100, 'g', -1, 64))
			}
			var gaps []string
			for range max(n-1, 0) {
				gaps = append(gaps, "0.01")
			}
			itls = append(itls, "["+strings.Join(gaps, ",")+"]")
			e := `""`
			if b%17 == 0 {
				e = `"HTTP 503"`
			}
			errs = append(errs, e)
		}
		doc := fmt.Sprintf(`{"backend": "vllm", "model_id": "m", "request_rate": 4, "input_lens": [%s], "output_lens": [%s], "ttfts": [%s], "itls": [%s], "errors": [%s]}`,
			strings.Join(in, ","), strings.Join(out, ","), strings.Join(ttft, ","), strings.Join(itls, ","), strings.Join(errs, ","))
		path := filepath.Join(t.TempDir(), "result.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		imp, err := ImportFiles([]string{path}, Options{MaxRequests: 1000})
		if err != nil {
			// A value no request can have (a negative time) refuses the
			// file, naming where.
			if !strings.Contains(err.Error(), "result.json: $.") {
				t.Fatalf("%d requests: an error that names no JSON path: %v\n%s", k, err, doc)
			}
			return
		}
		accounted := 0
		for _, r := range imp.Runs {
			if r.Requests != nil {
				accounted += r.Requests.N
			}
			for _, e := range r.Excluded {
				accounted += e.Requests
			}
		}
		if accounted != k {
			t.Fatalf("%d requests in the file, %d kept or left out\n%s", k, accounted, doc)
		}
		if _, err := Layout(imp); err != nil {
			var bug *wouldNotValidate
			if errors.As(err, &bug) {
				t.Fatalf("the import does not validate: %v", err)
			}
		}
	})
}
