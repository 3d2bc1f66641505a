package importer

// vLLM `bench serve` (and its predecessor benchmarks/benchmark_serving.py)
// result files, following vllm-project/vllm at these commits:
//   - benchmarks/backend_request_func.py @ 011841309828ee36ff4c125eb2390b56e1c1bbad
//     (the 0.5/0.6 request functions: TTFT at the first chunk with text, the
//     clock stopped at "data: [DONE]", success whenever the stream ended);
//   - vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 and
//     vllm/benchmarks/lib/endpoint_request_func.py @ 02cfb534df5674737558730b10f23d1b7aef9b7c
//     (`vllm bench serve`: start_times from time.perf_counter, latencies,
//     "failed", TTFT at the first chunk carrying choices, output lengths from
//     the stream's usage, else the client tokenizer);
//   - vllm/benchmarks/sweep/serve.py @ 0031557f20f592111a8ea7d709730fad151bdae5
//     (`vllm bench sweep`: <combination>/run=N.json repeats, warmup.json,
//     summary.json holding the list of runs).
// The per-request arrays are input_lens, output_lens, ttfts (s), itls
// (s, one list per request), errors, generated_texts and, in recent
// versions, start_times and latencies (s).

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/benchnote/benchnote/ingest"
)

// servingResult is one result object of vLLM's or SGLang's serving
// benchmark: the per-request arrays and every other member.
type servingResult struct {
	// env holds the scalar members kept as environment keys, in file order.
	env []ingest.KV
	// nums holds every numeric member (aggregates and arguments).
	nums map[string]float64
	// strs holds every string member.
	strs map[string]string
	has  map[string]bool
	// kinds holds the kind of every member's value, for checkMembers.
	kinds   map[string]jsontext.Kind
	rate    float64 // +Inf for "inf"; 0 when absent
	maxConc int64   // -1 when absent or null

	inputLens, outputLens []int64
	ttfts, starts         []float64
	itlOffsets            []int32   // itls flattened: request i's gaps are itlGaps[itlOffsets[i]:itlOffsets[i+1]]
	itlGaps               []float64 // seconds
	errors                []string  // the last line of each error ("" for none)
}

// servingArrays are the per-request arrays of a serving result.
var servingArrays = map[string]bool{"input_lens": true, "output_lens": true, "ttfts": true, "itls": true, "errors": true,
	"generated_texts": true, "start_times": true, "latencies": true, "queue_times": true}

// servingNotEnv are scalar members that describe the load or the outcome,
// not the environment: they differ between levels and runs by design.
var servingNotEnv = map[string]bool{"date": true, "request_rate": true, "max_concurrency": true, "burstiness": true,
	"num_prompts": true, "duration": true, "completed": true, "failed": true, "run_number": true,
	"ramp_up_strategy": true, "ramp_up_start_rps": true, "ramp_up_end_rps": true}

// servingAggregate matches the members that hold a run's outcome rather
// than its configuration: they are figures, not environment.
var servingAggregate = regexp.MustCompile(`^(mean|median|std|p\d+(\.\d+)?)_|^total_|_throughput$|^request_goodput$|^max_output_tokens_per_s$|^max_concurrent_requests$|^rtfx$|^concurrency$|^accept_length$|^(spec_decode|diffusion|probe)_`)

// readServing reads one result object.
func readServing(j *jsonIn, maxRequests int) (*servingResult, error) {
	sr := &servingReader{j: j, maxRequests: maxRequests,
		r: &servingResult{nums: map[string]float64{}, strs: map[string]string{}, has: map[string]bool{}, kinds: map[string]jsontext.Kind{}, maxConc: -1}}
	if err := j.object(sr.member); err != nil {
		return nil, err
	}
	return sr.r, nil
}

// servingReader is readServing's state: the result so far, and the most
// requests a per-request array may hold.
type servingReader struct {
	j           *jsonIn
	r           *servingResult
	maxRequests int
}

// bound refuses element i of a per-request array past maxRequests.
func (sr *servingReader) bound(i int) error {
	if i >= sr.maxRequests {
		return sr.j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", sr.maxRequests)
	}
	return nil
}

// readPerRequest reads a per-request array into dst, each element with
// read (null for none).
func readPerRequest[T any](sr *servingReader, dst *[]T, read func() (T, error)) error {
	return sr.j.array(func(i int) error {
		if err := sr.bound(i); err != nil {
			return err
		}
		v, err := read()
		*dst = append(*dst, v)
		return err
	})
}

// member reads one member of a result object: a per-request array, the
// level, or a scalar setting.
func (sr *servingReader) member(name string) error {
	j, r := sr.j, sr.r
	r.has[name], r.kinds[name] = true, j.peek()
	switch name {
	case "input_lens":
		return readPerRequest(sr, &r.inputLens, j.optCount)
	case "output_lens":
		return readPerRequest(sr, &r.outputLens, j.optCount)
	case "ttfts":
		return readPerRequest(sr, &r.ttfts, j.optNumber)
	case "start_times":
		return readPerRequest(sr, &r.starts, j.optNumber)
	case "itls":
		return sr.itls()
	case "errors":
		return readPerRequest(sr, &r.errors, func() (string, error) {
			s, err := j.str()
			return lastLine(s), err
		})
	case "request_rate":
		v, err := j.rate()
		if err != nil {
			return err
		}
		if !(v > 0) {
			return j.errorf("expected a positive request rate or inf, got %s", strconv.FormatFloat(v, 'g', -1, 64))
		}
		r.rate = v
		return j.checkLevel(v, true)
	case "max_concurrency":
		v, err := j.optCount()
		r.maxConc = v
		if err == nil {
			err = j.checkLevel(float64(v), false)
		}
		return err
	}
	if servingArrays[name] {
		return j.skip()
	}
	return sr.scalar(name)
}

// itls reads the per-request lists of inter-token latencies into one
// array of gaps with each request's offset into it (null: none).
func (sr *servingReader) itls() error {
	j, r := sr.j, sr.r
	r.itlOffsets = append(r.itlOffsets[:0], 0)
	return j.array(func(i int) error {
		if err := sr.bound(i); err != nil {
			return err
		}
		if j.peek() == 'n' {
			r.itlOffsets = append(r.itlOffsets, int32(len(r.itlGaps)))
			return j.skip()
		}
		err := j.array(func(int) error {
			if len(r.itlGaps) >= math.MaxInt32 {
				return j.errorf("more than %d inter-token latencies in all; split the file", math.MaxInt32)
			}
			v, err := j.finite(0)
			r.itlGaps = append(r.itlGaps, v)
			return err
		})
		r.itlOffsets = append(r.itlOffsets, int32(len(r.itlGaps)))
		return err
	})
}

// scalar reads a number, text or boolean member: a figure or a setting,
// which the environment keeps unless it is one of the run's own.
func (sr *servingReader) scalar(name string) error {
	j, r := sr.j, sr.r
	switch j.peek() {
	case '0':
		v, err := j.number()
		r.nums[name] = v
		if !servingNotEnv[name] && !servingAggregate.MatchString(name) && err == nil {
			r.env = append(r.env, ingest.KV{Key: name, Value: strconv.FormatFloat(v, 'g', -1, 64)})
		}
		return err
	case '"':
		s, err := j.rawString()
		if lit, ok := strings.CutPrefix(s, pyLiteral); ok && err == nil {
			if v, ok := pyNumber(s); ok {
				r.nums[name] = v
				return nil
			}
			what, wrong, _ := longNumber(lit)
			return j.errorf("%s %s", what, wrong)
		}
		r.strs[name] = s
		if !servingNotEnv[name] && err == nil && s != "" {
			r.env = append(r.env, ingest.KV{Key: name, Value: s})
		}
		return err
	case 't', 'f':
		b, err := j.boolean()
		if !servingNotEnv[name] {
			r.env = append(r.env, ingest.KV{Key: name, Value: strconv.FormatBool(b)})
		}
		return err
	}
	return j.skip()
}

// pyNumber reads one of Python's non-standard literals.
func pyNumber(s string) (float64, bool) {
	switch strings.TrimPrefix(s, pyLiteral) {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

// perRequest reports whether the result holds per-request arrays.
func (r *servingResult) perRequest() bool { return r.has["ttfts"] }

// count is the number of requests the arrays describe; every array must
// have that many entries.
func (r *servingResult) count(j *jsonIn) (int, error) {
	n := len(r.ttfts)
	check := func(name string, got int) error {
		if r.has[name] && got != n {
			return &SourceError{File: j.file, Record: j.record, Path: "$." + name,
				Msg: fmt.Sprintf("expected %d entries like $.ttfts, got %d", n, got)}
		}
		return nil
	}
	for _, c := range []struct {
		name string
		got  int
	}{{"input_lens", len(r.inputLens)}, {"output_lens", len(r.outputLens)}, {"itls", len(r.itlOffsets) - 1},
		{"errors", len(r.errors)}, {"start_times", len(r.starts)}} {
		if err := check(c.name, c.got); err != nil {
			return 0, err
		}
	}
	for _, name := range []string{"input_lens", "output_lens"} {
		if !r.has[name] {
			return 0, &SourceError{File: j.file, Record: j.record, Path: "$",
				Msg: "has ttfts but no " + name + ": expected the per-request arrays input_lens, output_lens, ttfts, itls and errors together"}
		}
	}
	return n, nil
}

// level is the result's load level: a finite request_rate makes a rate
// level (arrivals by burstiness: 1 or absent Poisson, inf constant, other
// gamma); with an infinite rate, max_concurrency makes a concurrency level,
// and without one the level is rate inf.
func (r *servingResult) level() ingest.LoadLevel {
	switch {
	case r.rate > 0 && !math.IsInf(r.rate, 1):
		arrival := ingest.ArrivalPoisson
		if b, ok := r.nums["burstiness"]; ok && b != 1 {
			arrival = ingest.ArrivalGamma
			if math.IsInf(b, 1) {
				arrival = ingest.ArrivalConstant
			}
		}
		return ingest.RateLoad(r.rate, arrival)
	case r.maxConc > 0:
		return ingest.ConcurrencyLoad(int(r.maxConc))
	case math.IsInf(r.rate, 1):
		return ingest.RateLoad(math.Inf(1), "")
	}
	return ingest.LoadLevel{}
}

// servingWhere names the array a column of request i comes from, on the
// line record (0 for a lone object): E2E and the chunk times are TTFT plus
// the request's itls.
func servingWhere(record int) func(int, string) string {
	return func(i int, column string) string {
		array := map[string]string{"prompt_tokens": "input_lens", "completion_tokens": "output_lens", "TTFT_ms": "ttfts", "t_request_sent": "start_times"}[column]
		if array == "" {
			array = "itls"
		}
		if record > 0 {
			return fmt.Sprintf("line %d: $.%s[%d]", record, array, i)
		}
		return fmt.Sprintf("$.%s[%d]", array, i)
	}
}

// servingRows turns the arrays into rows. A request with an error is
// failed (its status is the error's last line); one without an error and
// with output_lens 0 is a zero-token request without TTFT or E2E; the
// others get TTFT from ttfts, chunk arrivals TTFT + Σ ITL and E2E at the
// last of them.
func (r *servingResult) servingRows(t *table, n int) (zeroTokens, failed int, err error) {
	if t.q.ChunkOffsets != nil {
		t.q.ChunkMs = make([]float64, 0, len(r.itlGaps)+n)
	}
	for i := 0; i < n; i++ {
		row := newRow()
		row.prompt = r.inputLens[i]
		if r.starts != nil {
			row.sent = finiteOrNaN(r.starts[i])
		}
		errText := ""
		if r.errors != nil {
			errText = r.errors[i]
		}
		var gaps []float64
		if r.itlOffsets != nil {
			gaps = r.itlGaps[r.itlOffsets[i]:r.itlOffsets[i+1]]
		}
		ttft := r.ttfts[i]
		switch {
		case errText != "":
			failed++
			row.status = errText
			if ttft > 0 && !math.IsInf(ttft, 0) {
				row.ttft = ms(ttft)
			}
			if r.outputLens[i] > 0 {
				row.completion = r.outputLens[i]
			}
		case r.outputLens[i] == 0 || r.outputLens[i] < 0 && len(gaps) == 0 && !(ttft > 0):
			zeroTokens++
			row.completion = 0
			row.textChunks = 0
		default:
			if math.IsNaN(ttft) || math.IsInf(ttft, 0) || ttft < 0 {
				return 0, 0, fmt.Errorf("request %d: ttft %v is not a finite time", i+1, ttft)
			}
			row.completion = r.outputLens[i]
			row.ttft = ms(ttft)
			at := ttft
			row.chunks = make([]float64, 0, len(gaps)+1)
			row.chunks = append(row.chunks, ms(at))
			for _, g := range gaps {
				at += g
				row.chunks = append(row.chunks, ms(at))
			}
			row.e2e = ms(at)
			row.textChunks = int64(len(row.chunks))
		}
		if err := t.add(&row); err != nil {
			return 0, 0, err
		}
	}
	return zeroTokens, failed, nil
}

// readServingFile reads every result object of a JSON or JSON Lines file.
func readServingFile(r io.Reader, s *source, opts Options) ([]*servingResult, error) {
	j := newJSONIn(r, s.path)
	var out []*servingResult
	for n := 1; ; n++ {
		more, err := j.more()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		if n > 1 || s.multiValue {
			j.record = n
		}
		res, err := readServing(j, opts.MaxRequests)
		if err != nil {
			return nil, err
		}
		// Every line of a JSON Lines file must be a result: a stray object
		// is not a run.
		if !res.has["backend"] || !res.has["request_rate"] && !res.has["max_concurrency"] {
			return nil, &SourceError{File: s.path, Record: j.record, Path: "$",
				Msg: fmt.Sprintf("not a %s result: expected the members backend and request_rate or max_concurrency", formatNames[s.format])}
		}
		if err := checkMembers(s, j.record, res.kinds); err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, &SourceError{File: s.path, Msg: "empty file: expected a result object"}
	}
	return out, nil
}

// importVLLM converts a vLLM result file: one object, or one per line
// (--append-result), each a run.
func importVLLM(r io.Reader, s *source, opts Options) ([]Run, error) {
	return importServing(r, s, opts, vllmRun)
}

// importServing converts every result object of a vLLM or SGLang file
// with convert, which gets the object's line (0 for a lone object).
func importServing(r io.Reader, s *source, opts Options, convert func(*servingResult, *source, int, Options) (Run, error)) ([]Run, error) {
	results, err := readServingFile(r, s, opts)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for k, res := range results {
		record := 0
		if len(results) > 1 || s.multiValue {
			record = k + 1
		}
		run, err := convert(res, s, record, opts)
		if err != nil {
			return nil, err
		}
		run.traits = servingTraits(res, s)
		if record > 0 {
			run.Where = fmt.Sprintf("line %d", record)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// servingEngines maps a bench serve --backend that names the serving
// engine to the engine; the others ("openai", "openai-chat", ...) name
// the API spoken, not what served it, and say nothing of the engine.
var servingEngines = map[string]string{
	"vllm": "vllm", "vllm-pooling": "vllm", "sglang": "sglang", "sglang-native": "sglang", "sglang-oai": "sglang",
	"tgi": "tgi", "lmdeploy": "lmdeploy", "tensorrt-llm": "tensorrt-llm", "deepspeed-mii": "deepspeed-mii",
	"scalellm": "scalellm", "llama.cpp": "llama.cpp",
}

// servingEnv is the file's environment keys, with the engine its backend
// names (key "engine", unless the file has one).
func servingEnv(res *servingResult) []ingest.KV {
	engine, ok := servingEngines[strings.ToLower(strings.TrimSpace(res.strs["backend"]))]
	if !ok || slices.ContainsFunc(res.env, func(kv ingest.KV) bool { return kv.Key == "engine" }) {
		return res.env
	}
	return append(slices.Clip(res.env), ingest.KV{Key: "engine", Value: engine})
}

// vllmRun converts one vLLM result object.
func vllmRun(res *servingResult, s *source, record int, opts Options) (Run, error) {
	recent := res.has["start_times"] || res.has["failed"] || res.has["latencies"]
	tool, version := "vLLM benchmark_serving.py", "not recorded in the file; the format without start_times or failed"
	if recent {
		tool, version = "vllm bench serve", "not recorded in the file; the format with start_times"
	}
	prov := &ingest.Provenance{Tool: tool, Version: version, File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}, Env: servingEnv(res)}
	run.Config.Load = res.level()
	run.Config.Load = opts.levelOr(run.Config.Load)
	if d := res.strs["date"]; d != "" {
		run.Config.Notes = "vLLM result dated " + d
	}
	tokenizer := res.strs["tokenizer_id"]
	if tokenizer == "" {
		tokenizer = res.strs["model_id"]
	}
	if !res.perRequest() {
		prov.Reported = servingFigures(res, "vLLM", false, 0)
		prov.Unavailable = unavailableWithoutRecords()
		prov.AsReported = []string{"every figure: the file holds aggregates only (saved without --save-detailed); nothing can be recomputed"}
		prov.TokenCounts = vllmTokenCounts(recent, tokenizer)
		prov.Definitions = vllmDefinitions(recent)
		return run, nil
	}
	j := &jsonIn{file: s.path, record: record}
	n, err := res.count(j)
	if err != nil {
		return Run{}, err
	}
	cols := columns{status: true, textChunks: true, chunks: true, sent: res.starts != nil}
	t := newTable(cols, n, opts.MaxRequests, s.path)
	t.where = servingWhere(record)
	zero, failed, err := res.servingRows(t, n)
	if err != nil {
		return Run{}, &SourceError{File: s.path, Record: record, Path: "$.ttfts", Msg: err.Error()}
	}
	run.Requests, run.Excluded = t.q, t.excluded
	prov.Recomputed = []string{
		"E2E = TTFT + Σ ITL (the arrival of the last chunk with text)",
		"chunk arrival times from ttfts and itls",
		"status from errors (the last line of each traceback)",
	}
	if zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d streams that ended without output and without an error are zero-token requests, without TTFT or E2E", zero))
	}
	prov.AsReported = []string{"TTFT (ttfts, vLLM's client timer)", "prompt tokens (input_lens)", "completion tokens (output_lens)"}
	prov.Unavailable = []string{ingest.UnavailableRequestIDs}
	if res.starts != nil {
		run.Config.Clock = "monotonic"
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableWallClock)
		if w, ok := sendWindow(t.q); ok {
			run.Config.Window = &w
			prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("the measurement window from start_times: the first send to the last request's end (its send + E2E), %s s on the client's monotonic clock; requests/s and output tokens/s are computed over it", strconv.FormatFloat(w.End.Sub(w.Start).Seconds(), 'f', 3, 64)))
			prov.AsReported = append(prov.AsReported, "duration, request_throughput and output_throughput: vLLM's own figures, shown beside benchnote's (vLLM's duration runs from its start, before the first send, to the end of the last stream)")
		} else {
			prov.Unavailable = append(prov.Unavailable, ingest.UnavailableWindow)
		}
	} else {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableSendTime, ingest.UnavailableWindow)
	}
	prov.TokenCounts = vllmTokenCounts(recent, tokenizer)
	prov.Definitions = vllmDefinitions(recent)
	prov.Reported = servingFigures(res, "vLLM", !recent, zero)
	_ = failed
	return run, nil
}

// sendWindow is the window a run's own send times span: from the first
// request sent to the last request's end (its send time + E2E), on the
// clock of t_request_sent. The latest end need not be the last request
// sent's when requests overlap. ok is false when no request has both
// times, or the span is empty.
func sendWindow(q *ingest.Requests) (w ingest.Window, ok bool) {
	if q == nil || q.TRequestSent == nil {
		return w, false
	}
	first, last := math.Inf(1), math.Inf(-1)
	for i := 0; i < q.N; i++ {
		s := q.TRequestSent[i]
		if math.IsNaN(s) {
			continue
		}
		first = min(first, s)
		if e := q.E2Ems[i]; !math.IsNaN(e) {
			last = max(last, s+e/1000)
		}
	}
	if math.IsInf(first, 0) || math.IsInf(last, 0) || !(last > first) {
		return w, false
	}
	return ingest.Window{Start: unixSeconds(first), End: unixSeconds(last), Source: "run.yaml"}, true
}

// vllmTokenCounts says where vLLM's output_lens come from: benchmark_serving.py
// re-tokenized the generated text with the client tokenizer; vllm bench
// serve reads the stream's usage and falls back to the tokenizer.
func vllmTokenCounts(recent bool, tokenizer string) string {
	if recent {
		return "usage"
	}
	if tokenizer == "" {
		return "tokenizer"
	}
	return "tokenizer:" + tokenizer
}

func vllmDefinitions(recent bool) []ingest.Definition {
	if !recent {
		return []ingest.Definition{
			{Metric: "success", Source: "a stream that ended without an exception is a success, even when no chunk carried text (TTFT then stays 0 and is averaged in)",
				Benchnote: "a request with output 0 and no error is a zero-token request: counted, but not a latency sample"},
			{Metric: "E2E", Source: "latency is stopped at the \"data: [DONE]\" frame, after the last text chunk and any trailing frames",
				Benchnote: "E2E ends at the last text-bearing chunk (here TTFT + Σ ITL)"},
			{Metric: "TPOT", Source: "(latency − TTFT) / (n − 1) with latency at [DONE] and n re-counted by the client tokenizer from the generated text",
				Benchnote: "(E2E − TTFT) / (n − 1) with E2E at the last text-bearing chunk; n as reported"},
			{Metric: "ITL", Source: "every gap between text chunks of every successful request, pooled; a chunk may carry several tokens",
				Benchnote: "mean ITL is Σ(E2E − TTFT) / Σ(n − 1); per-gap percentiles only when every chunk carried one token"},
			{Metric: "percentiles", Source: "numpy percentile and median (linear interpolation)",
				Benchnote: "the sweep's percentile method (nearest rank unless sweep.yaml says linear)"},
		}
	}
	return []ingest.Definition{
		{Metric: "TTFT", Source: "the first SSE chunk carrying choices, even with empty text",
			Benchnote: "the first chunk carrying text"},
		{Metric: "success", Source: "at least one chunk carrying choices was received",
			Benchnote: "a request with output 0 and no error is a zero-token request: counted, but not a latency sample"},
		{Metric: "ITL", Source: "every gap between chunks carrying choices of every successful request, pooled; a chunk may carry several tokens",
			Benchnote: "mean ITL is Σ(E2E − TTFT) / Σ(n − 1); per-gap percentiles only when every chunk carried one token"},
		{Metric: "percentiles", Source: "numpy percentile and median (linear interpolation)",
			Benchnote: "the sweep's percentile method (nearest rank unless sweep.yaml says linear)"},
	}
}

// servingFigurePattern matches the aggregate members of a serving result:
// mean_ttft_ms, median_itl_ms, p99_e2el_ms, ...
var servingFigurePattern = regexp.MustCompile(`^(mean|median|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$`)

// servingFigures lists the tool's own figures, each with the benchnote
// statistic it corresponds to and why the two may differ.
func servingFigures(res *servingResult, tool string, zeroCounted bool, zero int) []ingest.ReportedFigure {
	var out []ingest.ReportedFigure
	var names []string
	for name := range res.nums {
		names = append(names, name)
	}
	sort.Strings(names)
	metricOrder := map[string]int{"ttft": 0, "tpot": 1, "itl": 2, "e2el": 3, "e2e_latency": 3}
	statOrder := func(st string) float64 {
		switch st {
		case "mean":
			return -1
		case "median":
			return 50
		}
		v, _ := strconv.ParseFloat(strings.TrimPrefix(st, "p"), 64)
		return v
	}
	type fig struct {
		metric, stat string
		v            float64
	}
	var figs []fig
	for _, name := range names {
		m := servingFigurePattern.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		figs = append(figs, fig{m[2], m[1], res.nums[name]})
	}
	sort.SliceStable(figs, func(a, b int) bool {
		if figs[a].metric != figs[b].metric {
			return metricOrder[figs[a].metric] < metricOrder[figs[b].metric]
		}
		return statOrder(figs[a].stat) < statOrder(figs[b].stat)
	})
	for _, f := range figs {
		metric := map[string]string{"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e", "e2e_latency": "e2e"}[f.metric]
		label := map[string]string{"ttft": "TTFT", "tpot": "TPOT", "itl": "ITL", "e2e": "E2E latency"}[metric]
		stat := f.stat
		switch stat {
		case "median":
			stat = "p50"
		case "mean":
			if metric == "itl" {
				stat = "gap_weighted_mean"
			}
		}
		key := metric + "." + stat
		note := ""
		switch metric {
		case "ttft":
			if zeroCounted && zero > 0 {
				note = fmt.Sprintf("%s counted the %d streams that ended without text as successes with TTFT 0 and included them; benchnote counts them as zero-token requests, not latency samples", tool, zero)
			}
		case "tpot":
			note = "latency to [DONE] and client-tokenizer n, see the definitions"
		case "itl":
			note = "pooled over chunk gaps, see the definitions"
		case "e2e":
			note = "latency to the end of the stream, see the definitions"
		}
		if stat != "mean" && stat != "gap_weighted_mean" {
			if note != "" {
				note += "; "
			}
			note += "numpy interpolates between ranks"
		}
		out = append(out, ingest.ReportedFigure{Key: key, Label: f.stat + " " + label, Value: f.v, Unit: "ms", Note: note})
	}
	for _, c := range []struct{ member, key, label, unit, note string }{
		{"completed", "counts.successful", "completed requests", "requests", "streams that ended without an exception"},
		{"failed", "counts.errors", "failed requests", "requests", ""},
		{"duration", "duration_s", "benchmark duration", "s", "first send to last completion"},
		{"request_throughput", "throughput.requests_per_s", "request throughput", "req/s", "completed / duration"},
		{"output_throughput", "throughput.client_output_tokens_per_s", "output token throughput", "tokens/s", "Σ output_lens / duration"},
	} {
		if v, ok := res.nums[c.member]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, ingest.ReportedFigure{Key: c.key, Label: c.label, Value: v, Unit: c.unit, Note: c.note})
		}
	}
	return out
}

// sweepRunFile matches a vllm bench sweep repeat file, run=N.json (N from 0).
var sweepRunFile = regexp.MustCompile(`^run=(\d+)\.json$`)

// markSweepFiles recognises the layout of `vllm bench sweep`: in a
// combination directory, run=N.json is repeat N+1 and warmup.json holds
// the warm-up requests sent before the repeats. The directory's name
// becomes the runs' series, since one sweep may vary server settings at
// one load level.
func markSweepFiles(srcs []*source) {
	hasRuns := map[string]bool{}
	for _, s := range srcs {
		if s.format == FormatVLLM && sweepRunFile.MatchString(filepath.Base(s.path)) {
			hasRuns[filepath.Dir(s.path)] = true
		}
	}
	for _, s := range srcs {
		dir := filepath.Dir(s.path)
		if s.format != FormatVLLM || !hasRuns[dir] {
			continue
		}
		s.sweepSeries = filepath.Base(dir)
		if m := sweepRunFile.FindStringSubmatch(filepath.Base(s.path)); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n >= ingest.MaxRepeat {
				n = ingest.MaxRepeat // refused by importSource
			}
			s.sweepRepeat = n + 1
		} else if filepath.Base(s.path) == "warmup.json" {
			s.sweepWarmup = true
		}
	}
}

// addSweepWarmup imports a sweep's warmup.json and puts its requests, marked
// as warm-up, before those of the combination's first repeat.
func addSweepWarmup(imp *Import, w *source, opts Options) error {
	target := -1
	for i, r := range imp.Runs {
		if r.sweepDir == filepath.Dir(w.path) && r.Config.Repeat == 1 && r.Requests != nil {
			target = i
		}
	}
	if target < 0 {
		imp.Skipped = append(imp.Skipped, FileFormat{w.path, w.format, "vllm bench sweep warm-up without a run=0.json (with per-request records) to precede"})
		return nil
	}
	w.format = FormatVLLM
	runs, err := importSource(&source{path: w.path, in: w.in, format: FormatVLLM, multiValue: w.multiValue}, nil, opts)
	if err != nil {
		return err
	}
	if len(runs) != 1 || runs[0].Requests == nil {
		imp.Skipped = append(imp.Skipped, FileFormat{w.path, w.format, "vllm bench sweep warm-up without per-request records"})
		return nil
	}
	main := &imp.Runs[target]
	merged, err := prependWarmup(runs[0].Requests, main.Requests, opts.MaxRequests, w.path)
	if err != nil {
		return err
	}
	main.Requests = merged
	for _, e := range runs[0].Excluded {
		e.First = filepath.Base(w.path) + ": " + e.First
		main.Excluded = append(main.Excluded, e)
	}
	p := main.Config.Provenance
	p.Recomputed = append(p.Recomputed, fmt.Sprintf("the %d requests of the sweep's warmup.json come first, marked as warm-up", runs[0].Requests.N))
	return nil
}

// prependWarmup returns warm followed by main, warm's rows marked as
// warm-up and their ids prefixed "warmup-".
func prependWarmup(warm, main *ingest.Requests, maxRows int, file string) (*ingest.Requests, error) {
	cols := columns{
		sent: main.TRequestSent != nil, first: main.TFirstText != nil, last: main.TLastText != nil,
		status: main.Status != nil || warm.Status != nil, maxTokens: main.MaxTokens != nil,
		textChunks: main.TextChunks != nil, chunks: main.ChunkOffsets != nil, phase: true,
	}
	t := newTable(cols, warm.N+main.N, maxRows, file)
	for _, part := range []struct {
		q     *ingest.Requests
		phase ingest.Phase
		id    string
	}{{warm, ingest.PhaseWarmup, "warmup-"}, {main, ingest.PhaseMeasured, ""}} {
		for i := 0; i < part.q.N; i++ {
			r := rowOf(part.q, i)
			r.id = part.id + r.id
			if part.phase == ingest.PhaseWarmup || part.q.Phase == nil {
				r.phase = part.phase
			}
			if err := t.add(&r); err != nil {
				return nil, err
			}
		}
	}
	return t.q, nil
}

// rowOf reads row i of q back into a row.
func rowOf(q *ingest.Requests, i int) row {
	r := newRow()
	r.id = q.ID(i)
	r.prompt, r.completion, r.ttft, r.e2e = q.PromptTokens[i], q.CompletionTokens[i], q.TTFTms[i], q.E2Ems[i]
	if q.TRequestSent != nil {
		r.sent = q.TRequestSent[i]
	}
	if q.TFirstText != nil {
		r.first = q.TFirstText[i]
	}
	if q.TLastText != nil {
		r.last = q.TLastText[i]
	}
	if q.Status != nil {
		r.status = q.Status.At(i)
	}
	if q.MaxTokens != nil {
		r.maxTokens = q.MaxTokens[i]
	}
	if q.TextChunks != nil {
		r.textChunks = q.TextChunks[i]
	}
	if q.ChunkOffsets != nil {
		r.chunks = q.Chunks(i)
	}
	if q.Phase != nil {
		r.phase = q.Phase[i]
	}
	return r
}
