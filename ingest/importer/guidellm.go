package importer

// GuideLLM benchmarks.json, every schema generation, followed from
// vllm-project/guidellm (tags v0.3.0, v0.4.0, v0.5.0 and HEAD ee7a7745):
//   - ≤ 0.3 (src/guidellm/benchmark/benchmark.py @ v0.3.0): {"benchmarks": [...]};
//     a benchmark has args.strategy, start_time, end_time, request_totals and
//     requests.{successful, errored, incomplete} of flat records with
//     start_time, end_time, first_token_time, last_token_time, prompt_tokens,
//     output_tokens (and error for errored ones);
//   - 0.4 (benchmark/schemas/generative/report.py @ v0.4.0): {"args", "benchmarks"};
//     a benchmark has config.strategy, scheduler_metrics, metrics and
//     requests.{successful, errored, incomplete} of GenerativeRequestStats:
//     request_id, info.timings.{request_start, first_token_iteration,
//     last_token_iteration, request_end, token_iterations}, info.error,
//     input_metrics, output_metrics, prompt_tokens, output_tokens;
//   - 0.5–0.6: the same with "metadata": {"version": 1, "guidellm_version"};
//   - ≥ 0.7 (benchmark/schemas/report.py @ HEAD): "metadata" version 2 and a
//     top-level "config" in place of "args".
// A request counts in GuideLLM's figures when it overlaps the benchmark's
// [start_time, end_time]; the others are its warm-up and cool-down.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// guidellmRecord is one request of a benchmark.
type guidellmRecord struct {
	id                  string
	status              string // "", or the failure
	start, first, last  float64
	end                 float64
	prompt, output      int64
	iterations          int64
	maxTokens           int64
	outputFromIteration bool
	// list and index place the record in the file: requests.<list>[index].
	list  string
	index int
}

// guidellmBenchmark is what is kept of one benchmark.
type guidellmBenchmark struct {
	strategy   map[string]string
	start, end float64
	records    []guidellmRecord
	totals     map[string]float64 // request_totals
	// stats holds the successful requests' statistics of each metric
	// benchnote compares with, by metric name, in file order.
	stats  map[string]map[string]float64
	metric []string
	// env holds the ≤ 0.3 worker's backend, target and model.
	env []ingest.KV
	// strategyPath is where the strategy was read: args.strategy or
	// config.strategy.
	strategyPath string
	// data is the benchmark's --data (request_loader.data ≤ 0.3,
	// config.requests.data from 0.5), and dataFrom where it was read.
	data, dataFrom string
}

// guidellmEnvKey names an environment key GuideLLM records: its ≤ 0.3
// worker says backend_type, backend_target and backend_model for what
// later versions' args call backend, target and model.
func guidellmEnvKey(name string) string {
	switch name {
	case "backend_type":
		return "backend"
	case "backend_target":
		return "target"
	case "backend_model":
		return "model"
	}
	return name
}

// readEnvScalar reads a string, number or boolean as the environment key
// key; null, "" and objects are skipped.
func readEnvScalar(j *jsonIn, key string, env *[]ingest.KV) error {
	if k := j.peek(); k == '{' || k == '[' {
		return j.skip()
	}
	v, err := j.scalarText()
	if err == nil && v != "" {
		*env = append(*env, ingest.KV{Key: key, Value: v})
	}
	return err
}

// readGuideLLMData reads a --data value: a text, or a list of texts
// joined by commas; anything else reads as "".
func readGuideLLMData(j *jsonIn) (string, error) {
	switch j.peek() {
	case '"':
		return j.scalarText()
	case '[':
		var parts []string
		err := j.array(func(int) error {
			if j.peek() != '"' {
				return j.skip()
			}
			v, err := j.scalarText()
			if len(parts) < 8 {
				parts = append(parts, v)
			}
			return err
		})
		return strings.Join(parts, ","), err
	}
	return "", j.skip()
}

// guidellmSynthetic matches the settings of GuideLLM's synthetic data
// ("prompt_tokens=256,output_tokens=128", or the same as JSON).
var guidellmSynthetic = regexp.MustCompile(`"?\b(prompt_tokens|output_tokens|prefix_tokens)"?\s*[=:]\s*"?([0-9.]+)`)

// guidellmTraits reads a benchmark's model and backend (from its
// environment keys) and its data: synthetic data's prompt and output
// tokens, else the dataset's name (a file's base name).
func guidellmTraits(env []ingest.KV, data, from string) traits {
	var t traits
	for _, kv := range env {
		switch kv.Key {
		case "model", "backend":
			t.add(kv.Key, kv.Value, kv.Key)
		}
	}
	if m := guidellmSynthetic.FindAllStringSubmatch(data, -1); m != nil {
		t.add("dataset", "synthetic", from)
		label := map[string]string{"prompt_tokens": "input_len", "output_tokens": "output_len", "prefix_tokens": "prefix_len"}
		for _, kv := range m {
			t.add(label[kv[1]], kv[2], from)
		}
		return t
	}
	var names []string
	for _, d := range strings.Split(data, ",") {
		d = strings.Trim(strings.TrimSpace(d), "[]'\"")
		if d != "" {
			names = append(names, filepath.Base(d))
		}
	}
	t.add("dataset", strings.Join(names, ","), from)
	return t
}

func importGuideLLM(r io.Reader, s *source, opts Options) ([]Run, error) {
	j := newJSONIn(r, s.path)
	rd := &guidellmFileReader{j: j, s: s, opts: opts, schemaVersion: -1, preferUsage: true, members: map[string]jsontext.Kind{}}
	err := j.object(rd.member)
	if err == nil {
		err = j.end()
	}
	if err == nil {
		err = checkMembers(s, 0, rd.members)
	}
	if err != nil {
		return nil, err
	}
	generation, err := rd.generation()
	if err != nil {
		return nil, err
	}
	if len(rd.benchmarks) == 0 {
		return nil, &SourceError{File: s.path, Path: "$.benchmarks", Msg: "expected at least one benchmark"}
	}
	version := rd.toolVersion + ", " + generation
	if rd.toolVersion == "" {
		version = "not recorded in the file, " + generation
	}
	old := rd.schemaVersion < 0 && !rd.hasArgs && !rd.hasConfig
	var runs []Run
	for k, b := range rd.benchmarks {
		run, err := guidellmRun(b, k, s, version, old, rd.preferUsage, opts)
		if err != nil {
			return nil, err
		}
		run.Env = append(append([]ingest.KV(nil), rd.env...), b.env...)
		d, from := rd.data, rd.dataFrom
		if d == "" {
			d, from = b.data, b.dataFrom
		}
		run.traits = guidellmTraits(run.Env, d, from)
		if len(rd.benchmarks) > 1 {
			run.Where = fmt.Sprintf("$.benchmarks[%d]", k)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// guidellmFileReader reads a benchmarks.json, a method per object.
type guidellmFileReader struct {
	j             *jsonIn
	s             *source
	opts          Options
	schemaVersion int // metadata.version; -1 when there is no metadata
	toolVersion   string
	hasArgs       bool
	hasConfig     bool
	benchmarks    []*guidellmBenchmark
	preferUsage   bool
	total         int
	env           []ingest.KV
	data          string // args.data (config.data from 0.7)
	dataFrom      string
	members       map[string]jsontext.Kind
}

// member reads a top-level member of the file.
func (rd *guidellmFileReader) member(name string) error {
	j := rd.j
	rd.members[name] = j.peek()
	switch name {
	case "metadata":
		return j.object(rd.metadata)
	case "args", "config":
		rd.hasArgs = rd.hasArgs || name == "args"
		rd.hasConfig = rd.hasConfig || name == "config"
		return j.object(func(member string) error { return rd.args(name, member) })
	case "benchmarks":
		return j.array(func(int) error {
			b, err := readGuideLLMBenchmark(j, &rd.total, rd.opts.MaxRequests)
			rd.benchmarks = append(rd.benchmarks, b)
			return err
		})
	}
	return j.skip()
}

// metadata reads a member of metadata: the schema and tool versions.
func (rd *guidellmFileReader) metadata(name string) error {
	j := rd.j
	switch name {
	case "version":
		v, err := j.count()
		rd.schemaVersion = int(v)
		if err == nil && v > 2 {
			return rd.unsupportedVersion(v)
		}
		return err
	case "guidellm_version":
		v, err := j.scalarText()
		rd.toolVersion = v
		return err
	}
	return j.skip()
}

// args reads a member of args or config (outer): the usage preference,
// the environment and the request data.
func (rd *guidellmFileReader) args(outer, name string) error {
	j := rd.j
	switch name {
	case "prefer_response_metrics":
		b, err := j.boolean()
		rd.preferUsage = b
		return err
	case "target", "model", "backend", "backend_type", "request_format":
		return readEnvScalar(j, guidellmEnvKey(name), &rd.env)
	case "data":
		rd.dataFrom = "$." + outer + ".data"
		var err error
		rd.data, err = readGuideLLMData(j)
		return err
	}
	return j.skip()
}

// unsupportedVersion is the error for a metadata version v benchnote
// does not read.
func (rd *guidellmFileReader) unsupportedVersion(v int64) error {
	return &SourceError{File: rd.s.path, Path: "$.metadata.version",
		Msg: fmt.Sprintf("GuideLLM benchmarks.json schema version %d is not supported (benchnote reads the ≤ 0.3 and 0.4 layouts and metadata versions 1 and 2)", v)}
}

// generation names the file's layout from its metadata version and
// members; a metadata version benchnote does not read is an error.
func (rd *guidellmFileReader) generation() (string, error) {
	switch {
	case rd.schemaVersion == 2:
		return "benchmarks.json metadata version 2 (GuideLLM ≥ 0.7)", nil
	case rd.schemaVersion == 1:
		return "benchmarks.json metadata version 1 (GuideLLM 0.5–0.6)", nil
	case rd.schemaVersion >= 0:
		return "", rd.unsupportedVersion(int64(rd.schemaVersion))
	case rd.hasArgs || rd.hasConfig:
		return "GuideLLM 0.4 layout: no metadata", nil
	}
	return "GuideLLM ≤ 0.3 layout: no metadata, no args", nil
}

// readGuideLLMBenchmark reads one element of benchmarks.
func readGuideLLMBenchmark(j *jsonIn, total *int, maxRequests int) (*guidellmBenchmark, error) {
	rd := &guidellmBenchmarkReader{j: j, total: total, maxRequests: maxRequests,
		b: &guidellmBenchmark{strategy: map[string]string{}, totals: map[string]float64{}, stats: map[string]map[string]float64{},
			start: math.NaN(), end: math.NaN()}}
	err := j.object(rd.member)
	return rd.b, err
}

// guidellmBenchmarkReader reads a benchmark into b, a method per object;
// total counts the requests of the file so far, at most maxRequests.
type guidellmBenchmarkReader struct {
	j           *jsonIn
	b           *guidellmBenchmark
	total       *int
	maxRequests int
}

// member reads a member of the benchmark.
func (rd *guidellmBenchmarkReader) member(name string) error {
	j, b := rd.j, rd.b
	switch name {
	case "args", "config":
		return j.object(func(member string) error { return rd.config(name, member) })
	case "request_loader":
		return j.object(func(member string) error { return rd.data(member, "$.benchmarks[].request_loader.data") })
	case "worker":
		return j.object(rd.worker)
	case "start_time", "end_time":
		v, err := j.number()
		if name == "start_time" {
			b.start = v
		} else {
			b.end = v
		}
		if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			err = unixRange(j.file, j.record, j.path(), v)
		}
		return err
	case "request_totals":
		return readTotals(j, b.totals)
	case "metrics":
		return j.object(rd.metric)
	case "requests":
		return j.object(rd.requests)
	}
	return j.skip()
}

// config reads a member of args or config (parent): the request data and
// the strategy.
func (rd *guidellmBenchmarkReader) config(parent, name string) error {
	j := rd.j
	if name == "requests" && j.peek() == '{' {
		return j.object(func(member string) error { return rd.data(member, "$.benchmarks[].config.requests.data") })
	}
	if name != "strategy" {
		return j.skip()
	}
	rd.b.strategyPath = parent + ".strategy"
	return j.object(rd.strategy)
}

// data reads the member data (the request data, found at from) and skips
// any other.
func (rd *guidellmBenchmarkReader) data(name, from string) error {
	if name != "data" {
		return rd.j.skip()
	}
	rd.b.dataFrom = from
	var err error
	rd.b.data, err = readGuideLLMData(rd.j)
	return err
}

// strategy reads a scalar member of the strategy.
func (rd *guidellmBenchmarkReader) strategy(name string) error {
	j := rd.j
	if j.peek() == '{' || j.peek() == '[' {
		return j.skip()
	}
	v, err := j.scalarText()
	rd.b.strategy[name] = v
	return err
}

// worker reads a member of worker: the backend's type, target and model.
func (rd *guidellmBenchmarkReader) worker(name string) error {
	switch name {
	case "backend_type", "backend_target", "backend_model":
		return readEnvScalar(rd.j, guidellmEnvKey(name), &rd.b.env)
	}
	return rd.j.skip()
}

// metric reads a member of metrics: the request totals or a metric.
func (rd *guidellmBenchmarkReader) metric(metric string) error {
	if metric == "request_totals" {
		return readTotals(rd.j, rd.b.totals)
	}
	return readGuideLLMMetric(rd.j, metric, rd.b)
}

// requests reads a member of requests: the list of one status
// (successful, errored or incomplete) of request records.
func (rd *guidellmBenchmarkReader) requests(status string) error {
	j := rd.j
	if status != "successful" && status != "errored" && status != "incomplete" {
		return j.skip()
	}
	if j.peek() == 'n' {
		return j.skip()
	}
	return j.array(func(i int) error {
		if *rd.total >= rd.maxRequests {
			return j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", rd.maxRequests)
		}
		*rd.total++
		rec, err := readGuideLLMRecord(j, status)
		rec.list, rec.index = status, i
		rd.b.records = append(rd.b.records, rec)
		return err
	})
}

func readTotals(j *jsonIn, into map[string]float64) error {
	return j.object(func(name string) error {
		v, err := j.optNumber()
		into[name] = v
		return err
	})
}

// guidellmMetrics maps GuideLLM's metric names to benchnote statistic keys,
// units and notes on how GuideLLM defines them.
var guidellmMetrics = map[string]struct {
	key, label, unit string
	scale            float64
	note             string
}{
	"time_to_first_token_ms":   {"ttft", "TTFT", "ms", 1, "first token iteration − request start"},
	"inter_token_latency_ms":   {"tpot", "ITL", "ms", 1, "GuideLLM's ITL is (last − first token) / (n − 1) per request: benchnote's TPOT"},
	"time_per_output_token_ms": {"tpot", "TPOT", "ms", 1, "GuideLLM's TPOT divides by n, not n − 1 (and from 0.4 includes TTFT): not benchnote's TPOT"},
	"request_latency":          {"e2e", "request latency", "ms", 1000, "request end, after the stream closed, not the last token"},
}

// readGuideLLMMetric keeps the successful requests' statistics of the
// metrics benchnote compares with.
func readGuideLLMMetric(j *jsonIn, metric string, b *guidellmBenchmark) error {
	if _, ok := guidellmMetrics[metric]; !ok {
		return j.skip()
	}
	return j.object(func(status string) error {
		if status != "successful" || j.peek() == 'n' {
			return j.skip()
		}
		stats := map[string]float64{}
		b.stats[metric] = stats
		b.metric = append(b.metric, metric)
		return j.object(func(name string) error {
			switch name {
			case "mean", "median", "max", "min", "count", "total_sum":
				v, err := j.optNumber()
				stats[name] = v
				return err
			case "percentiles":
				return j.object(func(p string) error {
					switch p {
					case "p50", "p90", "p95", "p99":
						v, err := j.optNumber()
						stats[p] = v
						return err
					}
					return j.skip()
				})
			}
			return j.skip()
		})
	})
}

// figures lists GuideLLM's own figures for the successful requests.
// GuideLLM ≥ 0.4 weights its TPOT and ITL distributions by output token:
// their count is a number of tokens, not of requests, and is left out.
func (b *guidellmBenchmark) figures() []ingest.ReportedFigure {
	successful := 0
	for _, r := range b.records {
		if r.status == "" {
			successful++
		}
	}
	if v, ok := b.totals["successful"]; ok && v > float64(successful) {
		successful = int(v)
	}
	var out []ingest.ReportedFigure
	for _, metric := range b.metric {
		m, stats := guidellmMetrics[metric], b.stats[metric]
		note, perToken := m.note, stats["count"] > float64(successful)
		if perToken {
			note += fmt.Sprintf("; GuideLLM's distribution is over %s output tokens, not requests", strconv.FormatFloat(stats["count"], 'f', -1, 64))
		}
		for _, st := range []struct{ name, stat, label string }{
			{"count", "n", "count"}, {"mean", "mean", "mean"}, {"median", "p50", "median"}, {"p95", "p95", "p95"},
			{"p99", "p99", "p99"}, {"max", "max", "max"}, {"total_sum", "sum", "sum"},
		} {
			v, ok := stats[st.name]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) || perToken && (st.name == "count" || st.name == "total_sum") {
				continue
			}
			unit, scale := m.unit, m.scale
			if st.name == "count" {
				unit, scale = "requests", 1
			}
			out = append(out, ingest.ReportedFigure{Key: m.key + "." + st.stat, Label: st.label + " " + m.label,
				Value: v * scale, Unit: unit, Note: note})
		}
	}
	return out
}

// readGuideLLMRecord reads one request record of either layout.
func readGuideLLMRecord(j *jsonIn, status string) (guidellmRecord, error) {
	nan := math.NaN()
	r := &guidellmRecordReader{j: j, prompt: -1, output: -1, metricsIn: -1, metricsOut: -1,
		rec: guidellmRecord{start: nan, first: nan, last: nan, end: nan, prompt: -1, output: -1, iterations: -1, maxTokens: -1}}
	err := j.object(r.member)
	rec := &r.rec
	rec.prompt = r.prompt
	if rec.prompt < 0 {
		rec.prompt = r.metricsIn
	}
	rec.output = r.output
	if rec.output < 0 {
		rec.output = r.metricsOut
	}
	if rec.output < 0 && rec.iterations > 0 {
		rec.output, rec.outputFromIteration = rec.iterations, true
	}
	switch status {
	case "errored":
		rec.status = "error"
		if r.errText != "" {
			rec.status = "error: " + lastLine(r.errText)
		}
	case "incomplete":
		rec.status = "incomplete"
		if r.statusInfo != "" && r.statusInfo != "completed" {
			rec.status = "incomplete (" + r.statusInfo + ")"
		}
		if r.errText != "" {
			rec.status += ": " + lastLine(r.errText)
		}
	}
	return *rec, err
}

// guidellmRecordReader is readGuideLLMRecord's state: the record so far,
// its error text and status, and the token counts given directly and in
// input_metrics and output_metrics (-1 when not given).
type guidellmRecordReader struct {
	j                     *jsonIn
	rec                   guidellmRecord
	errText, statusInfo   string
	prompt, output        int64
	metricsIn, metricsOut int64
}

// member reads one member of a request record, in any of the layouts
// GuideLLM has written.
func (r *guidellmRecordReader) member(name string) error {
	j, rec := r.j, &r.rec
	switch name {
	case "request_id":
		v, err := j.scalarText()
		rec.id = v
		return err
	case "info":
		return j.object(r.info)
	case "scheduler_info":
		return j.member("request_start", func() error {
			v, err := j.optNumber()
			if math.IsNaN(rec.start) {
				rec.start = v
			}
			return err
		})
	case "start_time":
		v, err := j.optNumber()
		rec.start = v
		return err
	case "end_time":
		v, err := j.optNumber()
		rec.end = v
		return err
	case "first_token_time":
		v, err := j.optNumber()
		rec.first = v
		return err
	case "last_token_time":
		v, err := j.optNumber()
		rec.last = v
		return err
	case "prompt_tokens":
		v, err := j.optCount()
		r.prompt = v
		return err
	case "output_tokens":
		v, err := j.optCount()
		r.output = v
		return err
	case "input_metrics":
		return r.usage(&r.metricsIn)
	case "output_metrics":
		return r.usage(&r.metricsOut)
	case "error":
		v, err := j.scalarText()
		if v != "" {
			r.errText = v
		}
		return err
	case "request_args":
		return r.requestArgs()
	}
	return j.skip()
}

// info reads one member of a record's info: its timings, error and status.
func (r *guidellmRecordReader) info(name string) error {
	j := r.j
	switch name {
	case "timings":
		return j.object(r.timing)
	case "error":
		v, err := j.scalarText()
		r.errText = v
		return err
	case "status":
		v, err := j.scalarText()
		r.statusInfo = v
		return err
	}
	return j.skip()
}

// timing reads one member of info.timings; resolve_start and resolve_end
// stand in for a request start and end not given.
func (r *guidellmRecordReader) timing(name string) error {
	j, rec := r.j, &r.rec
	switch name {
	case "request_start", "first_token_iteration", "last_token_iteration", "request_end", "resolve_start", "resolve_end":
		v, err := j.optNumber()
		switch name {
		case "request_start":
			rec.start = v
		case "first_token_iteration":
			rec.first = v
		case "last_token_iteration":
			rec.last = v
		case "request_end":
			rec.end = v
		case "resolve_start":
			if math.IsNaN(rec.start) {
				rec.start = v
			}
		case "resolve_end":
			if math.IsNaN(rec.end) {
				rec.end = v
			}
		}
		return err
	case "token_iterations":
		v, err := j.optCount()
		rec.iterations = v
		return err
	}
	return j.skip()
}

// usage reads a token count from input_metrics or output_metrics:
// total_tokens, else text_tokens.
func (r *guidellmRecordReader) usage(into *int64) error {
	j := r.j
	return j.object(func(name string) error {
		if name == "total_tokens" || name == "text_tokens" && *into < 0 {
			v, err := j.optCount()
			if v >= 0 {
				*into = v
			}
			return err
		}
		return j.skip()
	})
}

// requestArgs reads the requested output length from request_args, a
// JSON text; one that is not JSON names none.
func (r *guidellmRecordReader) requestArgs() error {
	raw, err := r.j.scalarText()
	if err != nil {
		return err
	}
	var args struct {
		Body struct {
			MaxTokens *int64 `json:"max_tokens"`
		} `json:"body"`
		MaxTokens *int64 `json:"max_tokens"`
	}
	if json.Unmarshal([]byte(raw), &args) == nil {
		switch {
		case args.Body.MaxTokens != nil:
			r.rec.maxTokens = *args.Body.MaxTokens
		case args.MaxTokens != nil:
			r.rec.maxTokens = *args.MaxTokens
		}
	}
	return nil
}

// guidellmLevel reads a benchmark's strategy; check refuses a number
// (the text of strategy member key) beyond ingest's bounds.
func guidellmLevel(st map[string]string, check func(key string, v float64, rate bool) error) (ingest.LoadLevel, error) {
	num := func(k string) float64 {
		v, err := strconv.ParseFloat(st[k], 64)
		switch {
		case errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0):
			return math.MaxFloat64 // beyond float64: refused by check
		case err != nil:
			return 0
		}
		return v
	}
	level := func(k string, rate bool, arrival string) (ingest.LoadLevel, error) {
		v := num(k)
		if rate && !(v > 0) || !rate && !(v >= 1) {
			return ingest.LoadLevel{}, nil
		}
		if err := check(k, v, rate); err != nil {
			return ingest.LoadLevel{}, err
		}
		if rate {
			return ingest.RateLoad(v, arrival), nil
		}
		return ingest.ConcurrencyLoad(int(v)), nil
	}
	switch st["type_"] {
	case "synchronous":
		return ingest.ConcurrencyLoad(1), nil
	case "concurrent":
		return level("streams", false, "")
	case "throughput":
		if num("max_concurrency") >= 1 {
			return level("max_concurrency", false, "")
		}
		return ingest.RateLoad(math.Inf(1), ""), nil
	case "constant":
		return level("rate", true, ingest.ArrivalConstant)
	case "poisson":
		return level("rate", true, ingest.ArrivalPoisson)
	}
	return ingest.LoadLevel{}, nil
}

// guidellmRun converts benchmark k of a GuideLLM file into a run: its
// level, its window, a row per request and the provenance.
func guidellmRun(b *guidellmBenchmark, k int, s *source, version string, old, preferUsage bool, opts Options) (Run, error) {
	prov := &ingest.Provenance{Tool: "GuideLLM", Version: version, File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}}
	load, err := guidellmRunLevel(b, k, s)
	if err != nil {
		return Run{}, err
	}
	run.Config.Load = load
	run.Config.Load = opts.levelOr(run.Config.Load)
	if st := b.strategy["type_"]; st != "" {
		run.Config.Notes = "GuideLLM strategy " + st
	}
	windowKnown := !math.IsNaN(b.start) && !math.IsNaN(b.end) && b.end > b.start
	if windowKnown {
		w := ingest.Window{Start: unixSeconds(b.start), End: unixSeconds(b.end), Source: "run.yaml"}
		run.Config.Window = &w
	}
	t, n, err := guidellmRows(b, k, s, old, windowKnown, opts)
	if err != nil {
		return Run{}, err
	}
	run.Requests, run.Excluded = t.q, t.excluded
	guidellmProvenance(prov, b, n, windowKnown, old, preferUsage)
	return run, nil
}

// guidellmRunLevel is benchmark k's load level from its strategy, zero
// when the strategy does not tell; a level out of range is an error.
func guidellmRunLevel(b *guidellmBenchmark, k int, s *source) (ingest.LoadLevel, error) {
	return guidellmLevel(b.strategy, func(key string, v float64, rate bool) error {
		if levelRange("", 0, "", v, rate) == nil {
			return nil
		}
		max := int64(ingest.MaxConcurrency)
		if rate {
			max = ingest.MaxRate
		}
		return &SourceError{File: s.path, Path: fmt.Sprintf("$.benchmarks[%d].%s.%s", k, b.strategyPath, key),
			Msg: fmt.Sprintf("%s is above %s", b.strategy[key], textfmt.Thousands(max))}
	})
}

// guidellmCounts counts what guidellmRows decided, for the provenance:
// requests before and after the window, successful requests without a
// first token, and token counts taken from the iterations.
type guidellmCounts struct {
	before, after, zero, fromIterations int
}

// guidellmRows makes a row of each of benchmark k's requests, marking
// those outside a known window as warm-up or cool-down.
func guidellmRows(b *guidellmBenchmark, k int, s *source, old, windowKnown bool, opts Options) (*table, guidellmCounts, error) {
	var n guidellmCounts
	t := newTable(columns{sent: true, first: true, last: true, status: true, maxTokens: true, textChunks: true, phase: true}, len(b.records), opts.MaxRequests, s.path)
	t.where = func(i int, _ string) string {
		return fmt.Sprintf("$.benchmarks[%d].requests.%s[%d]", k, b.records[i].list, b.records[i].index)
	}
	ids := map[string]bool{}
	for i, rec := range b.records {
		row := newRow()
		row.id, _ = uniqueID(ids, rec.id, fmt.Sprintf("%d-%d", k+1, i+1))
		row.sent, row.prompt, row.status, row.maxTokens = rec.start, rec.prompt, rec.status, rec.maxTokens
		row.completion = rec.output
		if rec.outputFromIteration {
			n.fromIterations++
		}
		if rec.iterations >= 0 && !old {
			row.textChunks = rec.iterations
		}
		if rec.status == "" {
			if err := n.setTimes(&row, rec, s, k); err != nil {
				return nil, n, err
			}
		} else if rec.output < 0 {
			row.completion = -1
		}
		if windowKnown && !math.IsNaN(rec.start) {
			n.setPhase(&row, rec, b)
		}
		if err := t.add(&row); err != nil {
			return nil, n, err
		}
	}
	return t, n, nil
}

// setTimes sets a successful request's first and last token, TTFT and
// E2E; one without a first token or output is a zero-token request.
func (n *guidellmCounts) setTimes(r *row, rec guidellmRecord, s *source, k int) error {
	switch {
	case rec.output == 0 || math.IsNaN(rec.first):
		n.zero++
		r.completion = 0
	case math.IsNaN(rec.start):
		return &SourceError{File: s.path, Path: fmt.Sprintf("$.benchmarks[%d]", k), Msg: fmt.Sprintf("request %s has no start time", r.id)}
	default:
		r.first, r.last = rec.first, rec.last
		if math.IsNaN(r.last) {
			r.last = rec.end
		}
		r.ttft = ms(rec.first - rec.start)
		r.e2e = ms(r.last - rec.start)
	}
	return nil
}

// setPhase marks a request that ended before the benchmark's window as
// warm-up and one that started after it as cool-down (GuideLLM's rule).
func (n *guidellmCounts) setPhase(r *row, rec guidellmRecord, b *guidellmBenchmark) {
	end := rec.end
	if math.IsNaN(end) {
		end = rec.last
	}
	switch {
	case !math.IsNaN(end) && end < b.start:
		r.phase = ingest.PhaseWarmup
		n.before++
	case rec.start > b.end:
		r.phase = ingest.PhaseCooldown
		n.after++
	}
}

// guidellmProvenance says what the run recomputed, took as reported and
// could not know, and how GuideLLM's definitions differ from benchnote's.
func guidellmProvenance(prov *ingest.Provenance, b *guidellmBenchmark, n guidellmCounts, windowKnown, old, preferUsage bool) {
	prov.Recomputed = []string{
		"TTFT = first token iteration − request start; E2E = last token iteration − request start",
		"status from the successful, errored and incomplete lists",
		fmt.Sprintf("phase from GuideLLM's own rule (a request counts when it overlaps the benchmark's [start_time, end_time]): %d before the window (warm-up), %d after it (cool-down)", n.before, n.after),
	}
	if n.zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d successful requests without a first token are zero-token requests", n.zero))
	}
	prov.AsReported = []string{"prompt and output token counts", "request start and token iteration times (wall clock)", "text_chunks: GuideLLM's token iterations"}
	if windowKnown {
		prov.AsReported = append(prov.AsReported, "the measurement window: the benchmark's start_time to end_time")
	} else {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableWindow)
	}
	prov.Unavailable = append(prov.Unavailable, ingest.UnavailablePerGapITL)
	switch {
	case n.fromIterations > 0:
		prov.TokenCounts = "requested"
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("%d requests without a token count: GuideLLM's token iterations taken as the count", n.fromIterations))
	case preferUsage || old:
		prov.TokenCounts = "usage"
	default:
		prov.TokenCounts = "tokenizer"
	}
	if total := totalsCount(b.totals); total > len(b.records) {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableAllRequests)
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("the file keeps %d of the benchmark's %d requests (GuideLLM's request sampling)", len(b.records), total))
	}
	tpot := "(last token − first token) / n per request: divided by n, not n − 1"
	if !old {
		tpot = "(last token − request start) / n per request: TTFT included, divided by n"
	}
	prov.Definitions = []ingest.Definition{
		{Metric: "TPOT", Source: tpot, Benchnote: "(E2E − TTFT) / (n − 1) per request with n ≥ 2"},
		{Metric: "ITL", Source: "(last token − first token) / (n − 1) per request, averaged over requests", Benchnote: "that is benchnote's TPOT; benchnote's mean ITL is Σ(E2E − TTFT) / Σ(n − 1), gap-weighted"},
		{Metric: "E2E", Source: "request_latency ends at request end, after the stream closed", Benchnote: "E2E ends at the last token (text-bearing chunk)"},
		{Metric: "measured requests", Source: "requests overlapping [start_time, end_time] of the benchmark (warm-up and cool-down by duration or count)", Benchnote: "the same requests: the others are marked warm-up or cool-down and excluded; benchnote's own warm-up rule then applies to the rest"},
	}
	prov.Reported = b.figures()
}

// totalsCount adds up GuideLLM's request_totals (successful, errored,
// incomplete), or uses total when given.
func totalsCount(t map[string]float64) int {
	if v, ok := t["total"]; ok && !math.IsNaN(v) && v > 0 {
		return int(v)
	}
	n := 0.0
	for _, k := range []string{"successful", "errored", "incomplete"} {
		if v, ok := t[k]; ok && !math.IsNaN(v) {
			n += v
		}
	}
	return int(n)
}
