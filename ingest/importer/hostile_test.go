package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// vllmResult is a vLLM result object of n requests whose members are
// those given (each `"name": value`) followed by the per-request arrays;
// arrays given in members replace the defaults.
func vllmResult(n int, members ...string) string {
	arrays := map[string]string{
		"input_lens":  "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]",
		"output_lens": "[" + strings.TrimSuffix(strings.Repeat("2,", n), ",") + "]",
		"ttfts":       "[" + strings.TrimSuffix(strings.Repeat("0.1,", n), ",") + "]",
		"itls":        "[" + strings.TrimSuffix(strings.Repeat("[0.01],", n), ",") + "]",
		"errors":      "[" + strings.TrimSuffix(strings.Repeat(`"",`, n), ",") + "]",
	}
	var parts []string
	hasLevel := false
	for _, m := range members {
		name, _, _ := strings.Cut(m, ":")
		name = strings.Trim(name, `" `)
		if _, ok := arrays[name]; ok {
			arrays[name] = ""
		}
		hasLevel = hasLevel || name == "request_rate" || name == "max_concurrency"
		parts = append(parts, m)
	}
	if !hasLevel {
		parts = append(parts, `"request_rate": 4`)
	}
	for _, name := range []string{"input_lens", "output_lens", "ttfts", "itls", "errors"} {
		if arrays[name] != "" {
			parts = append(parts, fmt.Sprintf("%q: %s", name, arrays[name]))
		}
	}
	return `{"backend": "vllm", "model_id": "m", ` + strings.Join(parts, ", ") + "}"
}

// importIn writes files into a new directory and imports the first of
// them (or the directory, when the first name is "."); errors are
// returned with the directory cut from their text.
func importIn(t *testing.T, files [][2]string, opts Options) (*Import, error) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files[1:] {
		p := filepath.Join(dir, f[0])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, files[0][0])
	if files[0][0] != "." {
		if err := os.WriteFile(target, []byte(files[0][1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	imp, err := ImportFiles([]string{target}, opts)
	if err == nil {
		_, err = Layout(imp)
	}
	if err != nil {
		return nil, fmt.Errorf("%s", strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
	}
	return imp, nil
}

// Each value an import writes is inside ingest's ranges: a level, a
// setting or a number no float64 holds refuses the file, naming its JSON
// path; a file that matches two formats, or holds more than its format's
// document, is refused by name.
func TestImportRefusals(t *testing.T) {
	digits600 := strings.Repeat("9", 600)
	fraction600 := "0." + strings.Repeat("0", 597) + "1"
	llmperfRecord := `{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1, "number_input_tokens": 3, "number_output_tokens": 2}`
	gbConc := `"scenario": "D(100,100)", "num_concurrency": 2, "iteration_type": "num_concurrency"`
	gbRecord := genaiBenchRecord("0.25", "1.5", 10, 20)
	aiperfRecord := `{"metadata": {"x_request_id": "a", "request_start_ns": 1700000000000000000, "benchmark_phase": "profiling"}, "metrics": {"time_to_first_token": {"value": 10, "unit": "ms"}, "output_token_count": {"value": 2, "unit": "tokens"}}}`
	tests := []struct {
		name  string
		files [][2]string
		opts  Options
		want  string
	}{
		// Finding 2: values out of ingest's ranges.
		{"a TTFT beyond float64", [][2]string{{"vllm.json", vllmResult(4, `"ttfts": [0.1, 0.1, 0.1, 1e400]`)}}, Options{},
			"vllm.json: $.ttfts[3]: 1e400 is not a finite number"},
		{"a negative one", [][2]string{{"vllm.json", vllmResult(4, `"ttfts": [0.1, -1e400, 0.1, 0.1]`)}}, Options{},
			"vllm.json: $.ttfts[1]: -1e400 is not a finite number"},
		{"a concurrency above the bound", [][2]string{{"vllm.json", vllmResult(1, `"request_rate": "inf"`, `"max_concurrency": 99999999999`)}}, Options{},
			"vllm.json: $.max_concurrency: 99999999999 is above 1,000,000"},
		{"a rate beyond float64", [][2]string{{"vllm.json", vllmResult(1, `"request_rate": 1e400`)}}, Options{},
			"vllm.json: $.request_rate: 1e400 is not a finite number"},
		{"a rate above the bound", [][2]string{{"vllm.json", vllmResult(1, `"request_rate": 2000000`)}}, Options{},
			"vllm.json: $.request_rate: 2000000 is above 1,000,000"},
		{"a rate as a string beyond float64", [][2]string{{"vllm.json", vllmResult(1, `"request_rate": "1e400"`)}}, Options{},
			`vllm.json: $.request_rate: expected a request rate (a number or "inf"), got "1e400"`},
		{"JSON Lines: the line is named", [][2]string{{"r.jsonl", vllmResult(1) + "\n" + vllmResult(1, `"max_concurrency": 1000001`, `"request_rate": "inf"`) + "\n"}}, Options{},
			"r.jsonl: line 2: $.max_concurrency: 1000001 is above 1,000,000"},
		{"SGLang's Infinity is a rate, a concurrency still bounded", [][2]string{{"s.jsonl", `{"backend": "sglang", "dataset_name": "x", "request_rate": Infinity, "max_concurrency": 2000000}` + "\n"}}, Options{},
			"s.jsonl: $.max_concurrency: 2000000 is above 1,000,000"},
		{"GenAI-Perf experiment value", [][2]string{{"profile_export.json", `{"experiments": [{"experiment": {"mode": "concurrency", "value": 2000000}, "requests": []}]}`}}, Options{},
			"profile_export.json: $.experiments[0].experiment.value: 2000000 is above 1,000,000"},
		{"AIPerf summary concurrency", [][2]string{{"profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1e7}}}`}}, Options{},
			"profile_export_aiperf.json: $.input_config.loadgen.concurrency: 10000000 is above 1,000,000"},
		{"LLMPerf summary concurrency", [][2]string{{"x_summary.json", `{"version": "2023-08-31", "num_concurrent_requests": 1e300, "results_ttft_s_mean": 0.1}`}}, Options{},
			"x_summary.json: $.num_concurrent_requests: 1e+300 is above 1,000,000"},
		{"inference-perf stage rate", [][2]string{{"stage_0_lifecycle_metrics.json", `{"load_summary": {"count": 1, "requested_rate": 5e6}, "successes": {}}`}}, Options{},
			"stage_0_lifecycle_metrics.json: $.load_summary.requested_rate: 5000000 is above 1,000,000"},
		{"GuideLLM strategy streams", [][2]string{{"benchmarks.json", `{"benchmarks": [{"type_": "generative_benchmark", "args": {"strategy": {"type_": "concurrent", "streams": 2000000}}, "requests": {"successful": []}}]}`}}, Options{},
			"benchmarks.json: $.benchmarks[0].args.strategy.streams: 2000000 is above 1,000,000"},
		{"GuideLLM strategy rate beyond float64", [][2]string{{"benchmarks.json", `{"args": {}, "benchmarks": [{"config": {"strategy": {"type_": "poisson", "rate": "1e400"}}, "requests": {"successful": []}}]}`}}, Options{},
			"benchmarks.json: $.benchmarks[0].config.strategy.rate: 1e400 is above 1,000,000"},
		{"GuideLLM window beyond 9999", [][2]string{{"benchmarks.json", `{"args": {}, "benchmarks": [{"start_time": 1e12, "requests": {"successful": []}}]}`}}, Options{},
			"benchmarks.json: $.benchmarks[0].start_time: 1000000000000 is not a Unix time between 1970 and 9999 (0 to 253,402,300,799 seconds)"},
		{"a sweep repeat above the bound", [][2]string{{".", ""}, {"sweep/c2/run=10000.json", vllmResult(1, `"max_concurrency": 2`, `"request_rate": "inf"`)}}, Options{},
			"sweep/c2/run=10000.json: repeat 10001 (vllm bench sweep's run=N.json is repeat N+1) is above 10,000"},
		{"a file above the byte bound", [][2]string{{"vllm.json", vllmResult(4)}}, Options{MaxFileBytes: 100},
			"vllm.json: larger than 100 bytes; refusing to read more"},

		// Finding 5: a long number is valid JSON, refused at its path.
		{"a 600-digit integer", [][2]string{{"vllm.json", vllmResult(2, `"ttfts": [0.1, `+digits600+`]`)}}, Options{},
			"vllm.json: $.ttfts[1]: a 600-digit integer (99999999999999999999...) is not a finite number"},
		{"a 600-digit member the importer keeps", [][2]string{{"vllm.json", vllmResult(1, `"num_prompts": -`+digits600)}}, Options{},
			"vllm.json: $.num_prompts: a 600-digit integer (-9999999999999999999...) is not a finite number"},
		{"a 600-character fraction", [][2]string{{"vllm.json", vllmResult(1, `"ttfts": [`+fraction600+`]`)}}, Options{},
			"vllm.json: $.ttfts[0]: a number of 600 characters (0.000000000000000000...) is longer than the 512 characters benchnote reads"},
		{"a 600-digit level", [][2]string{{"x_summary.json", `{"version": "2023-08-31", "num_concurrent_requests": ` + digits600 + `, "results_ttft_s_mean": 0.1}`}}, Options{},
			"x_summary.json: $.num_concurrent_requests: a 600-digit integer (99999999999999999999...) is not a finite number"},
		{"a 600-digit number where a string belongs", [][2]string{{"profile_export.json", `{"experiments": [{"experiment": {"mode": ` + digits600 + `, "value": 1}, "requests": []}]}`}}, Options{},
			"profile_export.json: $.experiments[0].experiment.mode: expected a string, got a 600-digit integer (99999999999999999999...)"},
		{"a lone 600-digit number", [][2]string{{"n.json", digits600}}, Options{},
			"n.json: not a result file benchnote can import: a lone JSON value (number), not an object or array"},

		// Finding 3: a file of two formats is refused by name.
		{"vLLM and GenAI-Perf at once", [][2]string{{"r.json", vllmResult(13, `"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": []}]`)}}, Options{},
			"r.json: matches both vLLM (--format vllm) and GenAI-Perf (--format genai-perf): pass --format to say which it is"},
		{"ambiguous in a directory too", [][2]string{{".", ""}, {"d/r.json", vllmResult(1, `"experiments": [{"requests": []}]`)}}, Options{},
			"d/r.json: matches both vLLM (--format vllm) and GenAI-Perf (--format genai-perf): pass --format to say which it is"},

		// Finding 4: nothing but white space after a JSON document; every
		// line of JSON Lines a record of the format.
		{"a stray object after a vLLM result", [][2]string{{"r.json", vllmResult(2) + "\n" + `{"x":1}` + "\n"}}, Options{},
			"r.json: line 2: $: not a vLLM result: expected the members backend and request_rate or max_concurrency"},
		{"a stray object after an LLMPerf list", [][2]string{{"x_individual_responses.json", "[" + llmperfRecord + "]\n" + `{"x":1}`}}, Options{Level: mustLevel(t, "c=1")},
			`x_individual_responses.json: unexpected data after the JSON document, at byte 118: "{\"x\":1}" (the file must hold one document)`},
		{"a second GuideLLM document", [][2]string{{"benchmarks.json", `{"args": {}, "benchmarks": [{"config": {"strategy": {"type_": "synchronous"}}, "requests": {"successful": []}}]}  {"benchmarks": []}`}}, Options{},
			`benchmarks.json: unexpected data after the JSON document, at byte 114: "{\"benchmar" (the file must hold one document)`},
		{"text after a summary", [][2]string{{"x_summary.json", `{"version": "2023-08-31", "num_concurrent_requests": 2, "results_ttft_s_mean": 0.1} trailing`}}, Options{},
			`x_summary.json: unexpected data after the JSON document, at byte 84: "trailing" (the file must hold one document)`},
		{"a broken second document", [][2]string{{"x_summary.json", `{"version": "2023-08-31", "num_concurrent_requests": 2, "results_ttft_s_mean": 0.1} @`}}, Options{},
			`x_summary.json: unexpected data after the JSON document, at byte 84: "@" (the file must hold one document)`},
		{"a stray line in AIPerf records", [][2]string{{"profile_export.jsonl", aiperfRecord + "\n" + aiperfRecord + "\n" + `{"x":1}` + "\n"}}, Options{Level: mustLevel(t, "c=1")},
			"profile_export.jsonl: line 3: $: not an AIPerf record: expected a metadata member (each line of profile_export.jsonl is one record)"},

		// genai-bench run files (genaibench_test.go builds them): every
		// refusal names the JSON path; the request and byte bounds hold.
		{"genai-bench: a concurrency above the bound", [][2]string{{"run.json", genaiBenchFile(`"num_concurrency": 2000000`, []string{gbRecord})}}, Options{},
			"run.json: $.aggregated_metrics.num_concurrency: 2000000 is above 1,000,000"},
		{"genai-bench: a TTFT beyond float64", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{gbRecord, genaiBenchRecord("1e400", "1", 1, 2)})}}, Options{},
			"run.json: $.individual_request_metrics[1].ttft: 1e400 is not a finite number"},
		{"genai-bench: a 600-digit token count", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{strings.Replace(gbRecord, `"num_input_tokens": 10`, `"num_input_tokens": `+digits600, 1)})}}, Options{},
			"run.json: $.individual_request_metrics[0].num_input_tokens: a 600-digit integer (99999999999999999999...) is not a finite number"},
		{"genai-bench: text where a time belongs", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{genaiBenchRecord(`"abc"`, "1", 1, 2)})}}, Options{},
			`run.json: $.individual_request_metrics[0].ttft: expected a number, got "abc"`},
		{"genai-bench: a fractional error code", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{strings.Replace(gbRecord, `"error_code": null`, `"error_code": 503.5`, 1)})}}, Options{},
			"run.json: $.individual_request_metrics[0].error_code: expected an integer error code, got 503.5"},
		{"genai-bench: a success without e2e_latency", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{strings.Replace(gbRecord, `"e2e_latency": 1.5`, `"e2e_latency": null`, 1)})}}, Options{},
			"run.json: $.individual_request_metrics[0].e2e_latency: a successful request (error_code null) without e2e_latency"},
		{"genai-bench: records not a list", [][2]string{{"run.json", `{"aggregated_metrics": {` + gbConc + `}, "individual_request_metrics": {"ttft": 1}}`}}, Options{},
			"run.json: $.individual_request_metrics: expected an array, got an object"},
		{"genai-bench: no records", [][2]string{{"run.json", `{"aggregated_metrics": {` + gbConc + `, "stats": {}}}`}}, Options{},
			"run.json: $: not a genai-bench run: expected the member individual_request_metrics (the per-request records)"},
		{"genai-bench: more requests than --max-requests", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{gbRecord, gbRecord, gbRecord})}}, Options{MaxRequests: 2},
			"run.json: $.individual_request_metrics[2]: more than 2 requests; refusing to import (raise the limit with --max-requests if the file is genuine)"},
		{"genai-bench: above the byte bound", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{gbRecord, gbRecord})}}, Options{MaxFileBytes: 200},
			"run.json: larger than 200 bytes; refusing to read more"},
		{"genai-bench: truncated", [][2]string{{"run.json", strings.TrimSuffix(genaiBenchFile(gbConc, []string{gbRecord, gbRecord}), "]}")}}, Options{},
			"run.json: $.individual_request_metrics[2]: not valid JSON near byte 555: unexpected end of file (truncated?)"},
		{"genai-bench: a second document", [][2]string{{"run.json", genaiBenchFile(gbConc, []string{gbRecord}) + ` {"x": 1}`}}, Options{},
			`run.json: unexpected data after the JSON document, at byte 395: "{\"x\": 1}" (the file must hold one document)`},
		{"genai-bench and vLLM at once", [][2]string{{"run.json", strings.TrimSuffix(genaiBenchFile(gbConc, []string{gbRecord}), "}") + `, "backend": "vllm", "request_rate": 4}`}}, Options{},
			"run.json: matches both vLLM (--format vllm) and genai-bench (--format genai-bench): pass --format to say which it is"},
		{"genai-bench metadata: a command line that is not text", [][2]string{{".", ""}, {"experiment_metadata.json", `{"cmd": 12, "benchmark_version": "0.0.2", "api_backend": "openai", "iteration_type": "num_concurrency"}`},
			{"run.json", genaiBenchFile(gbConc, []string{gbRecord})}}, Options{},
			"experiment_metadata.json: $.cmd: expected a string, got 12"},
		// AIPerf, every generation, and its telemetry files.
		{"AIPerf summary of an unknown schema", [][2]string{{"profile_export_aiperf.json", `{"schema_version": "2.0", "aiperf_version": "1.0.0", "time_to_first_token": {"unit": "ms", "avg": 1}}`}}, Options{},
			`profile_export_aiperf.json: $.schema_version: AIPerf summary schema_version "2.0" is not one benchnote reads (1.0 to 1.5): a later AIPerf may have renamed what benchnote reads; please report it with the file`},
		{"AIPerf 0.1.x summary: a level out of range", [][2]string{{"profile_export_aiperf.json", `{"records": {"request_latency": {"unit": "ms", "avg": 1}}, "input_config": {"loadgen": {"concurrency": 2e6}}}`}}, Options{},
			`profile_export_aiperf.json: $.input_config.loadgen.concurrency: 2000000 is above 1,000,000`},
		{"AIPerf new input_config: a phase's rate beyond float64", [][2]string{{"profile_export_aiperf.json", `{"schema_version": "1.5", "aiperf_version": "0.14", "input_config": {"phases": {"profiling": {"type": "poisson", "rate": 1e400}}}}`}}, Options{},
			`profile_export_aiperf.json: $.input_config.phases.profiling.rate: 1e400 is not a finite number`},
		{"AIPerf run_info trial above the repeat bound", [][2]string{{"profile_export_aiperf.json", `{"schema_version": "1.3", "aiperf_version": "0.12", "run_info": {"trial": 99999999}}`}}, Options{},
			`profile_export_aiperf.json: $.run_info.trial: trial 99999999 is above 10,000`},
		{"AIPerf telemetry in a unit benchnote does not convert", [][2]string{{"profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "telemetry_data": {"endpoints": {"h:9400": {"gpus": {"gpu_0": {"gpu_uuid": "GPU-1", "metrics": {"gpu_power_usage": {"unit": "hp", "avg": 1}}}}}}}}`}}, Options{},
			`profile_export_aiperf.json: $.telemetry_data.endpoints["h:9400"].gpus.gpu_0.metrics.gpu_power_usage: unit "hp" is not one benchnote converts (W, kW, mW)`},
		{"GenAI-Perf telemetry_stats in a unit benchnote does not convert", [][2]string{{"profile_export_genai_perf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "telemetry_stats": {"energy_consumption": {"unit": "kWh", "gpu0": {"min": 1, "max": 2}}}}`}}, Options{},
			`profile_export_genai_perf.json: $.telemetry_stats.energy_consumption: unit "kWh" is not one benchnote converts (J, MJ, kJ, mJ)`},
		{"AIPerf 0.12 record: an error code beyond float64", [][2]string{{"profile_export.jsonl", `{"metadata": {"request_start_ns": 1700000000000000000, "benchmark_phase": "profiling"}, "metrics": {}, "error": {"code": 1e400, "message": "x"}}` + "\n"}}, Options{Level: mustLevel(t, "c=1")},
			`profile_export.jsonl: line 1: $.error.code: 1e400 is not a finite number`},
		{"AIPerf 0.1.x record: a timestamp that is not a count", [][2]string{{"profile_export.jsonl", `{"metadata": {"timestamp_ns": -5, "credit_phase": "profiling"}, "metrics": {}}` + "\n"}}, Options{Level: mustLevel(t, "c=1")},
			`profile_export.jsonl: line 1: $.metadata.timestamp_ns: expected a non-negative integer, got -5`},
		{"AIPerf GPU telemetry: utilisation above 100", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/gpu_telemetry_export.jsonl", `{"timestamp_ns": 1700000000000000000, "dcgm_url": "http://h:9400/metrics", "gpu_index": 0, "gpu_uuid": "GPU-1", "telemetry_data": {"gpu_utilization": 150}}` + "\n"}}, Options{},
			`r/gpu_telemetry_export.jsonl: line 1: $.telemetry_data.gpu_utilization: 150 is above 100 %`},
		{"AIPerf GPU telemetry: a time that is not a count of nanoseconds", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/gpu_telemetry_export.jsonl", `{"timestamp_ns": 1e30, "dcgm_url": "u", "gpu_index": 0, "telemetry_data": {}}` + "\n"}}, Options{},
			`r/gpu_telemetry_export.jsonl: line 1: $.timestamp_ns: expected a non-negative integer, got 1e30`},
		{"AIPerf GPU telemetry: a GPU named by nothing", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/gpu_telemetry_export.jsonl", `{"timestamp_ns": 1700000000000000000, "dcgm_url": "u", "telemetry_data": {}}` + "\n"}}, Options{},
			`r/gpu_telemetry_export.jsonl: line 1: $: a GPU telemetry record names its GPU by neither gpu_uuid nor gpu_index`},
		{"AIPerf server metrics: a metric name Prometheus would not read", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/server_metrics_export.jsonl", `{"endpoint_url": "u", "timestamp_ns": 1700000000000000000, "metrics": {"bad name{x=\"1\"}": [{"value": 1}]}}` + "\n"}}, Options{},
			`r/server_metrics_export.jsonl: line 1: $.metrics["bad name{x=\"1\"}"]: "bad name{x=\"1\"}" is not a Prometheus metric name`},
		{"AIPerf server metrics: a sample with a value and buckets", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/server_metrics_export.jsonl", `{"endpoint_url": "u", "timestamp_ns": 1700000000000000000, "metrics": {"m": [{"value": 1, "buckets": {"+Inf": 1}}]}}` + "\n"}}, Options{},
			`r/server_metrics_export.jsonl: line 1: $.metrics.m[0]: a sample holds either a value or buckets`},
		{"AIPerf server metrics: a bucket bound that is not a number", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/server_metrics_export.jsonl", `{"endpoint_url": "u", "timestamp_ns": 1700000000000000000, "metrics": {"h": [{"buckets": {"0.1\"} 9\n": 1}, "sum": 1, "count": 1}]}}` + "\n"}}, Options{},
			`r/server_metrics_export.jsonl: line 1: $.metrics.h[0].buckets["0.1\"} 9\n"]: bucket bound "0.1\"} 9\n" is not a number`},
		{"AIPerf server metrics: a label named le", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/server_metrics_export.jsonl", `{"endpoint_url": "u", "timestamp_ns": 1700000000000000000, "metrics": {"m": [{"labels": {"le": "1"}, "value": 1}]}}` + "\n"}}, Options{},
			`r/server_metrics_export.jsonl: line 1: $.metrics.m[0].labels.le: "le" is not a label name benchnote writes into a scrape`},
		{"AIPerf server metrics: more scrapes than requests allowed", [][2]string{{".", ""}, {"r/profile_export.jsonl", aiperfRecord + "\n"}, {"r/profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"loadgen": {"concurrency": 1}}}`},
			{"r/server_metrics_export.jsonl", strings.Repeat(`{"endpoint_url": "u", "timestamp_ns": 1700000000000000000, "metrics": {}}`+"\n", 3)}}, Options{MaxRequests: 2},
			`r/server_metrics_export.jsonl: line 3: $: more than 2 scrapes; refusing to import (raise the limit with --max-requests if the file is genuine)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := importIn(t, tt.files, tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// --format still decides a file that matches two formats: read as vLLM
// it has its 13 requests; read as GenAI-Perf, its one experiment.
func TestFormatDecidesAmbiguity(t *testing.T) {
	data := vllmResult(13, `"experiments": [{"experiment": {"mode": "concurrency", "value": 3}, "requests": []}]`)
	for _, tt := range []struct {
		format   Format
		requests int
		level    string
	}{{FormatVLLM, 13, "4 req/s, poisson arrivals"}, {FormatGenAIPerf, 0, "concurrency 3"}} {
		imp, err := importIn(t, [][2]string{{"r.json", data}}, Options{Format: tt.format})
		if err != nil {
			t.Fatalf("--format %s: %v", tt.format, err)
		}
		r := imp.Runs[0]
		if r.Requests.N != tt.requests || r.Config.Load.Describe() != tt.level {
			t.Errorf("--format %s: %d requests at %s, want %d at %s", tt.format, r.Requests.N, r.Config.Load.Describe(), tt.requests, tt.level)
		}
	}
}

func mustLevel(t *testing.T, key string) ingest.LoadLevel {
	t.Helper()
	l, err := ingest.ParseLoadKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A request whose value ingest would not keep is left out of the run and
// counted by reason, naming where the first of each reason is; the rest
// of the file is imported, and run.yaml says what was left out.
func TestImportLeavesOutRequests(t *testing.T) {
	tests := []struct {
		name     string
		file     [2]string
		opts     Options
		ids      []string
		excluded []Excluded
	}{
		{"vLLM TTFT and prompt out of range", [2]string{"vllm.json", vllmResult(5, `"ttfts": [0.1, 2e7, 0.1, 3e7, 0.1]`, `"input_lens": [1, 1, 2000000000, 1, 1]`)}, Options{},
			[]string{"1", "5"}, []Excluded{
				{Reason: "out of range", Requests: 3, First: "$.ttfts[1]: TTFT_ms 20000000000 is above 10,000,000,000"},
			}},
		{"vLLM: a prompt count past the bound, a negative send time", [2]string{"vllm.json", vllmResult(3, `"input_lens": [1, 2000000000, 1]`, `"start_times": [1, 2, -3]`)}, Options{},
			[]string{"1"}, []Excluded{
				{Reason: "out of range", Requests: 1, First: "$.input_lens[1]: prompt_tokens 2000000000 is above 1,000,000,000"},
				{Reason: "negative", Requests: 1, First: "$.start_times[2]: t_request_sent -3 is negative"},
			}},
		{"JSON Lines name the line", [2]string{"r.jsonl", vllmResult(1) + "\n" + vllmResult(2, `"itls": [[0.01], [2e7]]`) + "\n"}, Options{},
			[]string{"1"}, []Excluded{
				{Reason: "out of range", Requests: 1, First: "line 2: $.itls[1]: E2E_ms 20000000100 is above 10,000,000,000"},
			}},
		{"LLMPerf without a prompt count", [2]string{"x_individual_responses.json", `[{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1, "number_input_tokens": null, "number_output_tokens": 2},` +
			`{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1, "number_input_tokens": 3, "number_output_tokens": 2}]`}, Options{Level: mustLevel(t, "c=1")},
			[]string{"2"}, []Excluded{
				{Reason: "missing field", Requests: 1, First: "$[0]: prompt_tokens: the file gives no value"},
			}},
		{"genai-bench: a TTFT out of range, an E2E below its TTFT", [2]string{"run.json", genaiBenchFile(`"num_concurrency": 2`, []string{
			genaiBenchRecord("0.25", "1.5", 10, 20), genaiBenchRecord("2e7", "3e7", 10, 20), genaiBenchRecord("0.5", "0.25", 10, 20)})}, Options{},
			[]string{"1"}, []Excluded{
				{Reason: "out of range", Requests: 1, First: "$.individual_request_metrics[1]: TTFT_ms 20000000000 is above 10,000,000,000"},
				{Reason: "e2e < ttft", Requests: 1, First: "$.individual_request_metrics[2]: E2E_ms 250 is below TTFT_ms 500"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := importIn(t, [][2]string{tt.file}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			r := imp.Runs[len(imp.Runs)-1]
			var ids []string
			for i := range r.Requests.N {
				ids = append(ids, r.Requests.ID(i))
			}
			if !slices.Equal(ids, tt.ids) || !slices.Equal(r.Excluded, tt.excluded) {
				t.Errorf("ids %q, excluded %+v\nwant %q, %+v", ids, r.Excluded, tt.ids, tt.excluded)
			}
		})
	}
	imp, err := importIn(t, [][2]string{tests[0].file}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "every figure is over the 2 requests imported: 3 of the file's 5 were left out, as benchnote would not read them: 3 out of range (the first: $.ttfts[1]: TTFT_ms 20000000000 is above 10,000,000,000)"
	if got := imp.Runs[0].Config.Provenance.Approximate; !slices.Equal(got, []string{want}) {
		t.Errorf("approximate %q\nwant %q", got, want)
	}
	wantWarning := "vllm.json: 3 of 5 requests left out of rate4-poisson/run-1, as benchnote would not read them: 3 out of range (the first: $.ttfts[1]: TTFT_ms 20000000000 is above 10,000,000,000)"
	if got := imp.Warnings(); len(got) != 1 || !strings.HasSuffix(got[0], string(filepath.Separator)+wantWarning) {
		t.Errorf("warnings %q\nwant %q", got, wantWarning)
	}
}

// A pipe is read once: detection and parsing share the read, and every
// run of a JSON Lines stream is imported.
func TestImportFromPipe(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "vllm", "append.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// A stream longer than detection's head: the rest is read from the
	// same pipe, after it.
	data = append(data, strings.Repeat(" ", detectPrefix)...)
	data = append(data, "\n"+vllmResult(3, `"request_rate": 8`)+"\n"...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(data)
		w.Close()
	}()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	imp, err := ImportFiles([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, run := range imp.Runs {
		got = append(got, fmt.Sprintf("%s %d", run.Config.Load.Label(), run.Requests.N))
	}
	if want := []string{"2 req/s 2", "4 req/s 2", "8 req/s 3"}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
}

// A regular file is opened again to be parsed; one whose start changed
// after detection read it is refused, not read as something else. A
// pipe's content can be handed out once.
func TestInputRereads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "vllm.json")
	if err := os.WriteFile(p, []byte(vllmResult(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _, err := openInput(p, DefaultMaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(vllmResult(1), "vllm", "vLLM", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = in.reader()
	want := p + ": changed while being imported (its first " + fmt.Sprint(len(vllmResult(1))) + " bytes differ from those read to detect its format); import it again"
	if err == nil || err.Error() != want {
		t.Errorf("changed file: %v\nwant %s", err, want)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write([]byte(strings.Repeat(" ", detectPrefix+10) + "{}"))
		w.Close()
	}()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	in, _, err = openInput(path, DefaultMaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	first, err := in.reader()
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	_, err = in.reader()
	want = path + ": not a regular file (a pipe?), and already read: it cannot be read twice; save it to a file and import that"
	if err == nil || err.Error() != want {
		t.Errorf("pipe read twice: %v\nwant %s", err, want)
	}
}

// Texts a file gives run.yaml (a version, a tokenizer's name, figures) are
// kept inside what ingest reads back: a version cut at 600 bytes, a
// tokenizer name ingest would refuse replaced, at most 64 figures.
func TestImportKeepsProvenanceReadable(t *testing.T) {
	long := strings.Repeat("v", 700)
	var percentiles []string
	for p := 1; p <= 70; p++ {
		percentiles = append(percentiles, fmt.Sprintf(`"p%d_ttft_ms": %d`, p, p))
	}
	tests := []struct {
		name                           string
		file                           [2]string
		version, tokenCounts, reported string
	}{
		{"a 700-byte GuideLLM version", [2]string{"benchmarks.json", `{"metadata": {"version": 1, "guidellm_version": "` + long + `"}, "args": {}, "benchmarks": [{"config": {"strategy": {"type_": "synchronous"}}, "requests": {"successful": []}}]}`},
			strings.Repeat("v", 597) + "...", "usage", "0 figures"},
		{"a blank GenAI-Perf version", [2]string{"profile_export.json", `{"version": "  ", "experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": []}]}`},
			"not recorded in the file", "usage", "0 figures"},
		{"70 figures of vLLM", [2]string{"vllm.json", vllmResult(1, percentiles...)},
			"not recorded in the file; the format without start_times or failed", "tokenizer:m", "64 figures, the first 64 of 70 are shown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := importIn(t, [][2]string{tt.file}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := imp.Runs[0].Config.Provenance
			reported := fmt.Sprintf("%d figures", len(p.Reported))
			for _, a := range p.AsReported {
				if strings.HasPrefix(a, "the tool's own figures: ") {
					reported += ", " + strings.TrimPrefix(a, "the tool's own figures: ")
				}
			}
			if p.Version != tt.version || p.TokenCounts != tt.tokenCounts || reported != tt.reported {
				t.Errorf("version %q, token_counts %q, %s\nwant %q, %q, %s", p.Version, p.TokenCounts, reported, tt.version, tt.tokenCounts, tt.reported)
			}
		})
	}
	// A perf summary's tokenizer name that ingest would refuse.
	sum := `{"time_to_first_token": {"unit": "ms", "avg": 1}, "input_config": {"tokenizer": {"name": " x\ny"}, "loadgen": {"concurrency": 2}}}`
	imp, err := importIn(t, [][2]string{{"profile_export_aiperf.json", sum}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := imp.Runs[0].Config.Provenance.TokenCounts; got != "tokenizer" {
		t.Errorf("token_counts %q, want tokenizer", got)
	}
}

// A stage report whose statistics tie in rank (p5 and median, p0.1 and
// min) gives the same reported.yaml every time.
func TestInferencePerfStageDeterministic(t *testing.T) {
	stage := `{"load_summary": {"count": 4, "requested_rate": 2}, "successes": {"count": 4, "latency": {"time_to_first_token": {"mean": 0.1, "median": 0.09, "p5": 0.05, "min": 0.04, "p0.1": 0.041, "p99": 0.2, "max": 0.3}}}}`
	var first string
	for range 20 {
		imp, err := importIn(t, [][2]string{{"stage_0_lifecycle_metrics.json", stage}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, f := range imp.Runs[0].Config.Provenance.Reported {
			keys = append(keys, f.Key)
		}
		got := strings.Join(keys, " ")
		if first == "" {
			first = got
			if want := "counts.successful ttft.mean ttft.min ttft.p0.1 ttft.p50 ttft.p5 ttft.p99 ttft.max"; got != want {
				t.Fatalf("figures %s\nwant %s", got, want)
			}
		} else if got != first {
			t.Fatalf("figures %s, then %s", first, got)
		}
	}
}

// Request ids stay unique when a numbered request's number is another
// request's id: ingest would exclude the second as a duplicate.
func TestImportIDsStayUnique(t *testing.T) {
	record := func(id string) string {
		return `{"metadata": {"x_request_id": "` + id + `", "request_start_ns": 1700000000000000000, "benchmark_phase": "profiling"}, "metrics": {"input_sequence_length": {"value": 3, "unit": "tokens"}, "time_to_first_token": {"value": 10, "unit": "ms"}, "output_token_count": {"value": 2, "unit": "tokens"}}}`
	}
	data := record("2") + "\n" + record("") + "\n" + record("2") + "\n" + record("3") + "\n"
	imp, err := importIn(t, [][2]string{{"profile_export.jsonl", data}}, Options{Level: mustLevel(t, "c=1")})
	if err != nil {
		t.Fatal(err)
	}
	q := imp.Runs[0].Requests
	var ids []string
	for i := range q.N {
		ids = append(ids, q.ID(i))
	}
	if want := []string{"2", "2~2", "3", "4"}; !slices.Equal(ids, want) {
		t.Errorf("ids %q, want %q", ids, want)
	}
}

// Detection sees a file's first MiB; a second format's members after a
// large vLLM result's arrays (a script merged two results) are found when
// the object has been read, and refused as well. A member vllm bench serve
// --metadata added (a string, whatever its name) is not another format.
func TestAmbiguityPastDetection(t *testing.T) {
	n := 70_000 // arrays of more than 1 MiB
	experiments := `"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": []}]`
	big := vllmResult(n)
	merged := strings.TrimSuffix(big, "}") + ", " + experiments + "}"
	if len(big) <= detectPrefix {
		t.Fatalf("the result is %d bytes, not past detection's %d", len(big), detectPrefix)
	}
	genai := `{"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": [], "x": "` + strings.Repeat("x", detectPrefix) + `"}], "backend": "vllm", "request_rate": 4}`
	tests := []struct {
		name, data string
		opts       Options
		want       string // the error, or "" for an import
	}{
		{"vLLM, then GenAI-Perf's experiments", merged, Options{},
			"r.json: matches both vLLM (--format vllm) and GenAI-Perf (--format genai-perf): pass --format to say which it is"},
		{"the same with --format vllm", merged, Options{Format: FormatVLLM}, ""},
		{"GenAI-Perf, then vLLM's members", genai, Options{},
			"r.json: matches both vLLM (--format vllm) and GenAI-Perf (--format genai-perf): pass --format to say which it is"},
		{"a --metadata member named experiments", strings.TrimSuffix(big, "}") + `, "experiments": "ablation-3"}`, Options{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := importIn(t, [][2]string{{"r.json", tt.data}}, tt.opts)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error %q\nwant %q", got, tt.want)
			}
		})
	}
}

// YAML and llm-d reports: hostile input costs what its bytes allow and is
// refused with the file, the YAML line and the JSON path.
func TestYAMLAndLLMDRefusals(t *testing.T) {
	// Nine levels of nine aliases each: 9⁹ values if expanded.
	var laughs strings.Builder
	laughs.WriteString(`l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&laughs, "l%d: &l%d [*l%d,*l%d,*l%d,*l%d,*l%d,*l%d,*l%d,*l%d,*l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	report := func(load, extra string) string {
		return "version: '0.2'\nrun: {uid: x}\nscenario:\n  load:\n    metadata: {}\n    standardized: {" + load + "}\n    native: {}\nresults:\n  request_performance:\n    aggregate:\n" + extra
	}
	ttft := func(stat string) string {
		return "      latency:\n        time_to_first_token: {" + stat + "}\n"
	}
	tests := []struct {
		name  string
		files [][2]string
		opts  Options
		want  string
	}{
		{"an alias bomb", [][2]string{{"r.yaml", laughs.String()}}, Options{},
			"r.yaml: line 3: YAML aliases expand to more than twice the values the file holds; refusing to expand them (an alias bomb?)"},
		{"an alias to its own anchor", [][2]string{{"r.yaml", "a: &x [1, *x]\n"}}, Options{},
			"r.yaml: line 1: YAML aliases expand to more than twice the values the file holds; refusing to expand them (an alias bomb?)"},
		{"a 1 MiB scalar aliased 100 times", [][2]string{{"r.yaml", "a: &a \"" + strings.Repeat("x", 1<<20) + "\"\nb: [" + strings.Repeat("*a,", 99) + "*a]\n"}}, Options{},
			"r.yaml: line 2: YAML aliases expand to more than 4,199,656 bytes of values (4 times the file); refusing to expand them (an alias bomb?)"},
		{"flow nesting 100,000 deep", [][2]string{{"r.yaml", "a: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"}}, Options{},
			"r.yaml: not valid YAML: exceeded max depth of 10000"},
		{"block nesting 100,000 deep", [][2]string{{"r.yaml", "a:\n" + strings.Repeat("- ", 100_000) + "x\n"}}, Options{},
			"r.yaml: line 2: not valid YAML: exceeded max depth of 10000"},
		{"nesting within yaml.v3's limit, beyond benchnote's", [][2]string{{"r.yaml", "a: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"}}, Options{},
			"r.yaml: line 1: YAML nested more than 256 levels deep"},
		{"a scalar beyond the bytes a YAML file may hold", [][2]string{{"r.yaml", "version: '0.2'\nrun: \"" + strings.Repeat("x", 40<<20) + "\"\n"}}, Options{},
			"r.yaml: a YAML file larger than 33,554,432 bytes; refusing to read more (YAML is decoded whole: convert it to JSON to import it)"},
		{"a YAML file above --max-file-bytes", [][2]string{{"r.yaml", "version: '0.2'\nrun: {uid: " + strings.Repeat("x", 200) + "}\n"}}, Options{MaxFileBytes: 100},
			"r.yaml: larger than 100 bytes; refusing to read more"},
		{"a truncated YAML file", [][2]string{{"r.yaml", "version: '0.2'\nrun: {uid: x\n"}}, Options{},
			"r.yaml: line 2: not valid YAML: did not find expected ',' or '}'"},
		{"a tab in the indentation", [][2]string{{"r.yaml", "version: '0.2'\nrun:\n\tuid: x\n"}}, Options{},
			"r.yaml: line 3: not valid YAML: found character that cannot start any token"},

		{"an llm-d version benchnote does not know", [][2]string{{"r.yaml", "version: '0.3'\nrun: {uid: x}\nresults: {}\n"}}, Options{},
			`r.yaml: line 1: $.version: llm-d Benchmark Report version "0.3" is not supported (benchnote reads versions 0.1 and 0.2.x)`},
		{"an ISO-8601 duration in years", [][2]string{{"r.yaml", "version: '0.2'\nrun:\n  uid: x\n  time: {duration: P1Y}\nresults: {}\n"}}, Options{},
			`r.yaml: line 4: $.run.time.duration: expected an ISO-8601 duration such as PT49.97S, got "P1Y"`},
		{"a concurrency that is no integer", [][2]string{{"r.yaml", report("concurrency: 2.5", "")}}, Options{},
			"r.yaml: line 6: $.scenario.load.standardized.concurrency: expected an integer concurrency or .inf, got 2.5"},
		{"a rate above ingest's bound", [][2]string{{"r.yaml", report("rate_qps: 1e7", "")}}, Options{},
			"r.yaml: line 6: $.scenario.load.standardized.rate_qps: 10000000 is above 1,000,000"},
		{"a rate beyond float64", [][2]string{{"r.yaml", report("rate_qps: 1e400", "")}}, Options{},
			"r.yaml: line 6: $.scenario.load.standardized.rate_qps: 1e400 is not a finite number"},
		{"TTFT in hours", [][2]string{{"r.yaml", report("concurrency: 4", ttft("units: h, mean: 1"))}}, Options{},
			`r.yaml: line 12: $.results.request_performance.aggregate.latency.time_to_first_token.units: expected units ms or s, got "h"`},
		{"a statistic that is text", [][2]string{{"r.yaml", report("concurrency: 4", ttft("units: s, mean: fast"))}}, Options{},
			`r.yaml: line 12: $.results.request_performance.aggregate.latency.time_to_first_token.mean: expected a number, got "fast"`},
		{"a statistic beyond float64", [][2]string{{"r.json", `{"version": "0.2", "run": {"uid": "x"}, "results": {"request_performance": {"aggregate": {"latency": {"request_latency": {"units": "s", "p99": 1e999}}}}}}`}}, Options{},
			"r.json: $.results.request_performance.aggregate.latency.request_latency.p99: 1e999 is not a finite number"},
		{"a negative request count", [][2]string{{"r.yaml", report("concurrency: 4", "      requests: {total: -3}\n")}}, Options{},
			"r.yaml: line 11: $.results.request_performance.aggregate.requests.total: expected a non-negative integer, got -3"},
		{"results that are a list", [][2]string{{"r.json", `{"version": "0.2", "run": {"uid": "x"}, "results": {"request_performance": []}}`}}, Options{},
			"r.json: $.results.request_performance: expected an object, got an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := importIn(t, tt.files, tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
