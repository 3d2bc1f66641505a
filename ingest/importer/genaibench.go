package importer

// genai-bench experiment folders, following sgl-project/genai-bench @
// 7fd04d8c53b1df20450019fb7eedec0c4caec24f (genai_bench/metrics/metrics.py,
// metrics/aggregated_metrics_collector.py, metrics/request_metrics_collector.py,
// time_units.py, protocol.py ExperimentMetadata, user/openai_user.py) and its
// basetenlabs fork @ 3f55a0cbdb70558568d82bb0fb3f1cb2261738a1 (the
// non-streaming path: time_at_first_token = start_time + 0.001):
//   - experiment_metadata.json: the command line (cmd), benchmark_version,
//     api_backend, api_model_name, model, server_model_tokenizer, task,
//     num_concurrency and batch_size (the lists swept), iteration_type,
//     traffic_scenario, server_engine/_version/_gpu_type/_gpu_count,
//     metrics_time_unit (newer builds).
//   - one file per scenario and level: {"aggregated_metrics": {scenario,
//     num_concurrency, batch_size, iteration_type, run_duration,
//     requests_per_second, mean_*_throughput_tokens_per_s,
//     error_codes_frequency, num_*_requests, stats: {metric: {min, max,
//     mean, stddev, sum, p25 … p99}}}, "individual_request_metrics": [{ttft,
//     tpot, e2e_latency, output_latency, num_input_tokens,
//     num_output_tokens, error_code, error_message, …}], "_time_unit": "s"
//     or "ms"} (older builds write no _time_unit: seconds). The records are
//     in completion order, without ids or send times. An error record has
//     error_code (the HTTP status) and error_message, every metric null.

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/benchnote/benchnote/ingest"
)

// genaiBenchFixedTTFT is the TTFT genai-bench records for a response that
// was not streamed: the first token's time is set 1 ms after the request's
// start, so that its divisions do not fail. It is not a measurement.
const genaiBenchFixedTTFT = 0.001 // seconds

// genaiBenchTasks are the genai-bench tasks whose requests generate text:
// the others (embeddings, rerank, speech, images) have no output tokens
// for benchnote to report on.
var genaiBenchTasks = map[string]bool{"text-to-text": true, "image-text-to-text": true}

// genaiBenchMeta is what benchnote reads of experiment_metadata.json.
type genaiBenchMeta struct {
	version, backend, servedModel, tokenizer, task string
	// streaming is false when the command line disabled it.
	streaming bool
	// openLoop is set when the command line swept request rates
	// (--qps-level), which the basetenlabs fork stores in num_concurrency.
	openLoop bool
	env      []ingest.KV
}

// genaiBenchMetaEnv are the metadata members kept as environment keys. The
// command line (cmd) and auth_config are never kept: a command line can
// hold an API key.
var genaiBenchMetaEnv = map[string]bool{"benchmark_version": true, "api_backend": true, "api_model_name": true,
	"server_model_tokenizer": true, "model": true, "task": true, "server_engine": true, "server_version": true,
	"server_gpu_type": true, "server_gpu_count": true, "iteration_type": true, "max_time_per_run_s": true,
	"max_requests_per_run": true, "dataset_path": true, "metrics_time_unit": true}

// readGenAIBenchMeta reads experiment_metadata.json.
func readGenAIBenchMeta(s *source) (*genaiBenchMeta, error) {
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	j := newJSONIn(f, s.path)
	m := &genaiBenchMeta{streaming: true}
	err = j.object(func(name string) error {
		switch {
		case name == "cmd":
			cmd, err := j.str()
			for _, arg := range strings.Fields(cmd) {
				switch {
				case arg == "--disable-streaming":
					m.streaming = false
				case arg == "--qps-level" || strings.HasPrefix(arg, "--qps-level="):
					m.openLoop = true
				}
			}
			return err
		case name == "additional_request_params":
			if j.peek() != '{' {
				return j.skip()
			}
			return j.object(func(param string) error {
				if param != "stream" || (j.peek() != 't' && j.peek() != 'f') {
					return j.skip()
				}
				b, err := j.boolean()
				if !b {
					m.streaming = false
				}
				return err
			})
		case genaiBenchMetaEnv[name]:
			switch j.peek() {
			case '"', '0', 't', 'f', 'n':
				v, err := j.scalarText()
				if err != nil {
					return err
				}
				switch name {
				case "benchmark_version":
					m.version = v
				case "api_backend":
					m.backend = v
				case "api_model_name":
					m.servedModel = v
				case "server_model_tokenizer":
					m.tokenizer = v
				case "task":
					m.task = v
				}
				if v != "" && v != "None" {
					m.env = append(m.env, ingest.KV{Key: name, Value: v})
				}
				return nil
			}
		}
		return j.skip()
	})
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	if strings.Contains(m.servedModel, ",") {
		// The basetenlabs fork benchmarks several models in one folder and
		// writes their names joined by ", "; a run file records none.
		return nil, &SourceError{File: s.path, Path: "$.api_model_name", Msg: fmt.Sprintf("an experiment of several models (%q): its run files do not record which model each ran; import each model's run files by name, without this file, into a sweep of its own", shorten(m.servedModel))}
	}
	if m.task != "" && !genaiBenchTasks[m.task] {
		return nil, &SourceError{File: s.path, Path: "$.task", Msg: fmt.Sprintf("genai-bench task %q generates no text: benchnote imports the text-generation tasks (text-to-text, image-text-to-text)", m.task)}
	}
	return m, nil
}

// genaiBenchRequest is one record of individual_request_metrics, times
// in the file's unit.
type genaiBenchRequest struct {
	ttft, e2e          float64 // NaN when null or absent
	prompt, completion int64   // -1 when null or absent
	code               float64 // NaN when null or absent
	message            string
}

// genaiBenchRun is one run file as read.
type genaiBenchRun struct {
	scenario, iterationType, timeUnit string
	concurrency, batchSize            float64 // NaN when absent
	hasTimeUnit                       bool
	nums                              map[string]float64 // aggregated_metrics' numbers shown
	stats                             map[string]map[string]float64
	requests                          []genaiBenchRequest
	hasRequests                       bool
}

// readGenAIBenchRun reads one run file.
func readGenAIBenchRun(j *jsonIn, s *source, maxRequests int) (*genaiBenchRun, error) {
	r := &genaiBenchRun{concurrency: math.NaN(), batchSize: math.NaN(), nums: map[string]float64{}, stats: map[string]map[string]float64{}}
	kinds := map[string]jsontext.Kind{}
	err := j.object(func(name string) error {
		kinds[name] = j.peek()
		switch name {
		case "aggregated_metrics":
			return r.readAggregated(j)
		case "individual_request_metrics":
			r.hasRequests = true
			return j.array(func(i int) error {
				if i >= maxRequests {
					return j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", maxRequests)
				}
				req, err := readGenAIBenchRequest(j)
				r.requests = append(r.requests, req)
				return err
			})
		case "_time_unit":
			u, err := j.str()
			if err != nil {
				return err
			}
			if u != "s" && u != "ms" {
				return j.errorf("expected the time unit \"s\" or \"ms\", got %q", shorten(u))
			}
			r.timeUnit, r.hasTimeUnit = u, true
			return nil
		}
		return j.skip()
	})
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	if err := checkMembers(s, 0, kinds); err != nil {
		return nil, err
	}
	if !r.hasRequests {
		return nil, &SourceError{File: s.path, Path: "$", Msg: "not a genai-bench run: expected the member individual_request_metrics (the per-request records)"}
	}
	if r.timeUnit == "" {
		r.timeUnit = "s"
	}
	return r, nil
}

// readAggregated reads aggregated_metrics: the run's level and scenario,
// its numbers and its stats.
func (r *genaiBenchRun) readAggregated(j *jsonIn) error {
	return j.object(func(name string) error {
		switch name {
		case "scenario":
			v, err := j.str()
			r.scenario = v
			return err
		case "iteration_type":
			v, err := j.str()
			if err == nil && v != "num_concurrency" && v != "batch_size" {
				return j.errorf("expected the iteration type \"num_concurrency\" or \"batch_size\", got %q", shorten(v))
			}
			r.iterationType = v
			return err
		case "num_concurrency", "batch_size":
			v, err := j.optNumber()
			if err != nil {
				return err
			}
			if !math.IsNaN(v) && !(v > 0 && !math.IsInf(v, 0)) {
				return j.errorf("expected a positive number, got %s", formatValue(v))
			}
			if !math.IsNaN(v) {
				if err := j.checkLevel(v, false); err != nil {
					return err
				}
			}
			if name == "num_concurrency" {
				r.concurrency = v
			} else {
				r.batchSize = v
			}
			return nil
		case "stats":
			return j.object(func(metric string) error {
				// Only the stats shown are kept: memory stays bounded
				// whatever a file holds.
				if j.peek() != '{' || !genaiBenchStatMetrics[metric] {
					return j.skip()
				}
				m := map[string]float64{}
				r.stats[metric] = m
				return j.object(func(stat string) error {
					v, err := j.optNumber()
					if err == nil && !math.IsNaN(v) {
						m[stat] = v
					}
					return err
				})
			})
		}
		if j.peek() == '0' && genaiBenchNumbers[name] {
			v, err := j.number()
			r.nums[name] = v
			return err
		}
		return j.skip()
	})
}

// genaiBenchStatMetrics are the stats of aggregated_metrics shown as the
// tool's figures; genaiBenchNumbers its other members shown.
var (
	genaiBenchStatMetrics = map[string]bool{"ttft": true, "tpot": true, "e2e_latency": true}
	genaiBenchNumbers     = map[string]bool{"num_completed_requests": true, "num_error_requests": true, "run_duration": true,
		"requests_per_second": true, "mean_output_throughput_tokens_per_s": true}
)

// readGenAIBenchRequest reads one request record.
func readGenAIBenchRequest(j *jsonIn) (genaiBenchRequest, error) {
	q := genaiBenchRequest{ttft: math.NaN(), e2e: math.NaN(), prompt: -1, completion: -1, code: math.NaN()}
	err := j.object(func(name string) error {
		var err error
		switch name {
		case "ttft":
			q.ttft, err = j.optNumber()
		case "e2e_latency":
			q.e2e, err = j.optNumber()
		case "num_input_tokens":
			q.prompt, err = j.optCount()
		case "num_output_tokens":
			q.completion, err = j.optCount()
		case "error_code":
			q.code, err = j.optNumber()
			if err == nil && !math.IsNaN(q.code) && (q.code != math.Trunc(q.code) || math.IsInf(q.code, 0)) {
				err = j.errorf("expected an integer error code, got %s", formatValue(q.code))
			}
		case "error_message":
			q.message, err = j.scalarText()
		default:
			err = j.skip()
		}
		return err
	})
	return q, err
}

// importGenAIBench converts one genai-bench run file, with the
// experiment_metadata.json of its folder when there is one.
func importGenAIBench(r io.Reader, s *source, companions []*source, opts Options) ([]Run, error) {
	j := newJSONIn(r, s.path)
	res, err := readGenAIBenchRun(j, s, opts.MaxRequests)
	if err != nil {
		return nil, err
	}
	var meta *genaiBenchMeta
	if len(companions) == 1 {
		if meta, err = readGenAIBenchMeta(companions[0]); err != nil {
			return nil, err
		}
	}
	prov := &ingest.Provenance{Tool: "genai-bench", Version: "not recorded in the run file", File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}}
	if meta != nil {
		if meta.version != "" {
			prov.Version = meta.version
		}
		run.Env = meta.env
	}
	if err := setGenAIBenchLevel(&run, res, meta, s, opts); err != nil {
		return nil, err
	}
	run.traits.add("scenario", res.scenario, "aggregated_metrics.scenario")
	if meta != nil {
		run.traits.add("model", meta.servedModel, "api_model_name")
		run.traits.add("backend", meta.backend, "api_backend")
	}

	// Times are in _time_unit; benchnote's are milliseconds.
	toMs := 1000.0
	if res.timeUnit == "ms" {
		toMs = 1
	}
	// The fixed TTFT in the file's unit, matched to a microsecond
	// (start + 0.001 − start is not exactly 0.001 in floating point).
	fixed, tolerance := genaiBenchFixedTTFT*1000/toMs, 1e-6*1000/toMs
	streamed, fromRecords := genaiBenchStreamed(res, meta, fixed, tolerance)
	rows, err := genaiBenchRows(res, s, opts, toMs, streamed)
	if err != nil {
		return nil, err
	}
	run.Requests, run.Excluded = rows.t.q, rows.t.excluded
	genaiBenchProvenance(prov, res, meta, rows, streamed, fromRecords, fixed)
	prov.Reported = genaiBenchFigures(res, toMs, streamed)
	return []Run{run}, nil
}

// setGenAIBenchLevel sets the run's level: num_concurrency is a
// concurrency; a batch_size run sends one request at a time
// (genai-bench's get_run_params), each of batch_size inputs. An open-loop
// run is refused.
func setGenAIBenchLevel(run *Run, res *genaiBenchRun, meta *genaiBenchMeta, s *source, opts Options) error {
	switch {
	case meta != nil && meta.openLoop || !math.IsNaN(res.concurrency) && res.concurrency != math.Trunc(res.concurrency):
		return &SourceError{File: s.path, Path: "$.aggregated_metrics.num_concurrency",
			Msg: "an open-loop run (--qps-level), whose num_concurrency holds the request rate: benchnote does not read genai-bench's open-loop runs"}
	case res.iterationType == "batch_size":
		if math.IsNaN(res.batchSize) || res.batchSize != math.Trunc(res.batchSize) {
			return &SourceError{File: s.path, Path: "$.aggregated_metrics.batch_size", Msg: "a batch_size run without an integer batch_size"}
		}
		run.Config.Load = ingest.ConcurrencyLoad(1)
		run.traits.add("batch_size", numberText(res.batchSize), "aggregated_metrics.batch_size")
	case !math.IsNaN(res.concurrency):
		run.Config.Load = ingest.ConcurrencyLoad(int(res.concurrency))
	default:
		run.Config.Load = opts.Level
	}
	return nil
}

// genaiBenchStreamed says whether the responses were streamed: a response
// not streamed has the fixed TTFT (in the file's unit, within tolerance),
// so it was not when the command line says so, or when every successful
// request carries it (fromRecords).
func genaiBenchStreamed(res *genaiBenchRun, meta *genaiBenchMeta, fixed, tolerance float64) (streamed, fromRecords bool) {
	if meta != nil && !meta.streaming {
		return false, false
	}
	timed := 0
	for _, q := range res.requests {
		if (math.IsNaN(q.code) || q.code == 0) && q.completion > 0 {
			timed++
			if math.Abs(q.ttft-fixed) > tolerance {
				timed = -1
				break
			}
		}
	}
	return timed <= 0, timed > 0
}

// genaiBenchRowsRead is the run's request rows and what the provenance
// says of them: the failed requests by error code, and the requests
// without output.
type genaiBenchRowsRead struct {
	t     *table
	codes map[string]int
	zero  int
}

// genaiBenchRows turns the run's requests into rows, times in
// milliseconds; a response not streamed gets TTFT = E2E.
func genaiBenchRows(res *genaiBenchRun, s *source, opts Options, toMs float64, streamed bool) (genaiBenchRowsRead, error) {
	rows := genaiBenchRowsRead{t: newTable(columns{status: true}, len(res.requests), opts.MaxRequests, s.path), codes: map[string]int{}}
	rows.t.where = func(i int, _ string) string { return fmt.Sprintf("$.individual_request_metrics[%d]", i) }
	for i, q := range res.requests {
		row := newRow()
		row.prompt = q.prompt
		switch {
		case !math.IsNaN(q.code) && q.code != 0:
			code := strconv.FormatFloat(q.code, 'f', -1, 64)
			rows.codes[code]++
			row.status = "error " + code
			if msg := lastLine(q.message); msg != "" {
				row.status += ": " + msg
			}
			if q.completion > 0 {
				row.completion = q.completion
			}
		case q.completion == 0:
			rows.zero++
			row.completion = 0
		default:
			if math.IsNaN(q.ttft) || math.IsNaN(q.e2e) {
				what := "ttft"
				if !math.IsNaN(q.ttft) {
					what = "e2e_latency"
				}
				return rows, &SourceError{File: s.path, Path: fmt.Sprintf("$.individual_request_metrics[%d].%s", i, what),
					Msg: "a successful request (error_code null) without " + what}
			}
			row.completion = q.completion
			row.e2e = q.e2e * toMs
			row.ttft = q.ttft * toMs
			if !streamed {
				// No first token was timed: the response came whole. TTFT
				// = E2E is how benchnote records a response not streamed,
				// which analyze reads as such (TTFT, TPOT, ITL unavailable).
				row.ttft = row.e2e
			}
		}
		if err := rows.t.add(&row); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// genaiBenchProvenance writes what the import recomputed, took as
// reported and could not recover; fixed is genai-bench's fixed TTFT in
// the file's unit.
func genaiBenchProvenance(prov *ingest.Provenance, res *genaiBenchRun, meta *genaiBenchMeta, rows genaiBenchRowsRead, streamed, fromRecords bool, fixed float64) {
	prov.Recomputed = []string{"request ids: numbered in file order (completion order)"}
	if len(rows.codes) > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("status from error_code and error_message: %s (genai-bench records no prompt length for a failed request: its prompt_tokens is empty, as ingest allows for failed requests)", codeCounts(rows.codes)))
	}
	if rows.zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d requests without output tokens are zero-token requests, without TTFT or E2E", rows.zero))
	}
	prov.AsReported = []string{
		"E2E (e2e_latency: from the POST to the end of the response, after the usage chunk)",
		"prompt and completion tokens (num_input_tokens, num_output_tokens)",
	}
	if !res.hasTimeUnit {
		prov.AsReported = append(prov.AsReported, "times in seconds: the file has no _time_unit (genai-bench before metrics_time_unit wrote seconds)")
	}
	prov.Unavailable = []string{ingest.UnavailableRequestIDs, ingest.UnavailableSendTime, ingest.UnavailableSendOrder, ingest.UnavailableWindow, ingest.UnavailablePerGapITL}
	if streamed {
		prov.AsReported = append([]string{"TTFT (ttft: from the POST to the first chunk with content or reasoning content)"}, prov.AsReported...)
	} else {
		why := "the experiment's command line has --disable-streaming"
		if fromRecords {
			why = fmt.Sprintf("every successful request's ttft is genai-bench's fixed %s %s", numberText(fixed), res.timeUnit)
		}
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableTTFT)
		prov.Recomputed = append(prov.Recomputed, "TTFT, TPOT and ITL unavailable: the responses were not streamed ("+why+"); genai-bench's ttft is then a fixed 0.001 s, not a measurement, and is not imported: each request's TTFT is written equal to its E2E, as benchnote records a response not streamed, and its TTFT and TPOT figures are not shown")
	}
	if meta == nil {
		prov.AsReported = append(prov.AsReported, "no experiment_metadata.json beside the run file: model, backend, version and streaming are unknown (a run whose every ttft is the fixed 1 ms is read as not streamed)")
	}
	// genai-bench reads the server's usage; without one it counts the
	// generated text with its tokenizer and only logs that it did.
	prov.TokenCounts = "usage"
	if meta != nil && meta.tokenizer != "" {
		prov.AsReported = append(prov.AsReported, "token counts: the server's usage; where a server sends none, genai-bench counts the generated text with "+meta.tokenizer+" and only logs it")
	}
	prov.Definitions = genaiBenchDefinitions
}

// codeCounts lists error codes with their counts, by code: "503 ×2, 500 ×1".
func codeCounts(codes map[string]int) string {
	var ks []string
	for k := range codes {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d with code %s", codes[k], k))
	}
	return strings.Join(parts, ", ")
}

// genaiBenchFigures are the tool's own figures: its latency stats
// (converted to ms), request rate, output throughput, duration and counts.
// TTFT and TPOT figures of a run not streamed are left out: they are not
// measurements.
func genaiBenchFigures(res *genaiBenchRun, toMs float64, streamed bool) []ingest.ReportedFigure {
	var out []ingest.ReportedFigure
	metrics := []struct{ member, key, label, note string }{
		{"ttft", "ttft", "TTFT", ""},
		{"tpot", "tpot", "TPOT", "(e2e_latency − ttft) / (n − 1), e2e to the end of the response"},
		{"e2e_latency", "e2e", "E2E latency", "to the end of the response, after the usage chunk"},
	}
	stats := []string{"mean", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max"}
	for _, m := range metrics {
		if !streamed && m.key != "e2e" {
			continue
		}
		st := res.stats[m.member]
		for _, name := range stats {
			v, ok := st[name]
			if !ok {
				continue
			}
			note := m.note
			if strings.HasPrefix(name, "p") {
				note = strings.TrimPrefix(note+"; numpy interpolates between ranks", "; ")
			}
			out = append(out, ingest.ReportedFigure{Key: m.key + "." + name, Label: name + " " + m.label, Value: v * toMs, Unit: "ms", Note: note})
		}
	}
	for _, c := range []struct{ member, key, label, unit, note string }{
		{"num_completed_requests", "counts.successful", "completed requests", "requests", ""},
		{"num_error_requests", "counts.errors", "failed requests", "requests", ""},
		{"run_duration", "duration_s", "run duration", "s", "from the run's start to its end, genai-bench's clock"},
		{"requests_per_second", "throughput.requests_per_s", "requests per second", "req/s", "completed requests / run_duration"},
		{"mean_output_throughput_tokens_per_s", "throughput.client_output_tokens_per_s", "output throughput", "tokens/s", "Σ num_output_tokens / run_duration"},
	} {
		if v, ok := res.nums[c.member]; ok {
			out = append(out, ingest.ReportedFigure{Key: c.key, Label: c.label, Value: v, Unit: c.unit, Note: c.note})
		}
	}
	return out
}

// importGenAIBenchMetadata handles an experiment_metadata.json read
// without run files beside it: named on the command line it is an error
// (it holds no results); found in a directory, nothing is imported from it.
func importGenAIBenchMetadata(s *source) ([]Run, error) {
	if s.named {
		return nil, &SourceError{File: s.path, Msg: "genai-bench experiment metadata holds no results: import the experiment folder, or its run files"}
	}
	return nil, nil
}

// genaiBenchDefinitions are how genai-bench defines what benchnote
// recomputes.
var genaiBenchDefinitions = []ingest.Definition{
	{Metric: "TTFT", Source: "from before the HTTP POST to the first SSE chunk whose delta has content or reasoning content; a fixed 0.001 s when the response is not streamed",
		Benchnote: "the first chunk carrying text; a response not streamed has no TTFT"},
	{Metric: "E2E", Source: "e2e_latency ends after the stream is read to its usage chunk or [DONE]",
		Benchnote: "E2E ends at the last text-bearing chunk; here taken as reported, so it includes the stream's tail"},
	{Metric: "TPOT", Source: "(e2e_latency − ttft) / (n − 1) per request, n from the server's usage",
		Benchnote: "(E2E − TTFT) / (n − 1): the same, over the E2E taken as reported"},
	{Metric: "throughput", Source: "Σ output tokens / run_duration, the run's whole span on genai-bench's clock",
		Benchnote: "over a measurement window, which the file does not give (no send times)"},
	{Metric: "percentiles", Source: "numpy percentile (linear interpolation); the stats may leave out a warm-up and cool-down fraction of the records (--warmup-ratio, --cooldown-ratio)",
		Benchnote: "the sweep's percentile method (nearest rank unless sweep.yaml says linear), over every record"},
}
