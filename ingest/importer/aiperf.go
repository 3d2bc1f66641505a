package importer

// AIPerf per-request records (profile_export.jsonl) and the aggregate
// exports of AIPerf and GenAI-Perf (profile_export_aiperf.json,
// profile_export_genai_perf.json), followed from ai-dynamo/aiperf @
// db4f6397: docs/tutorials/working-with-profile-exports.md,
// aiperf/common/models/record_models.py (MetricRecordMetadata: x_request_id,
// request_start_ns, request_end_ns, benchmark_phase "warmup"/"profiling",
// was_cancelled), aiperf/metrics/types/*.py (time_to_first_token = first
// response − request start, inter_chunk_latency = gaps between responses,
// request_latency = last response − request start, output_token_count from
// the client tokenizer, aiperf/parsers/inference_result_parser.py) and
// aiperf/common/models/export_models.py (JsonExportData, the GenAI-Perf-
// compatible summary: metric → {unit, avg, p50, …}, input_config). Every
// metric is {"value": v, "unit": "ms" | "ns" | "tokens" | …}.

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// durationScale converts a duration in unit to milliseconds.
func durationScale(unit string) (float64, bool) {
	switch unit {
	case "ns":
		return 1e-6, true
	case "us", "µs":
		return 1e-3, true
	case "ms", "":
		return 1, true
	case "s", "sec":
		return 1000, true
	}
	return 0, false
}

// aiperfRecord is one record of profile_export.jsonl, of any generation:
// 0.1.x (metadata.timestamp_ns, metadata.credit_phase, the error in
// metadata or beside it), 0.2–0.11 (request_start_ns/request_end_ns,
// benchmark_phase, was_cancelled) and 0.12+ (the msgspec wire format,
// which omits members at their defaults: no error on success, no
// was_cancelled when false; error.cause and error.cause_chain).
type aiperfRecord struct {
	id                string
	startNs, endNs    int64
	hasStart, hasEnd  bool
	phase             string // as recorded: warmup, profiling, or another
	warmup, cancelled bool
	ttft, latency     float64 // ms
	icl               []float64
	prompt, output    int64
	errType, errMsg   string
	errCause          string // the root of error.cause_chain, else error.cause
	errCode           int64
	hasError          bool
	hasMetadata       bool
	generation        string // "0.1" for timestamp_ns records, else ""
}

func importAIPerf(r io.Reader, s *source, companions []*source, opts Options) ([]Run, error) {
	recs, err := readAIPerfRecords(newJSONIn(r, s.path), opts)
	if err != nil {
		return nil, err
	}
	prov := &ingest.Provenance{Tool: "AIPerf", Version: "not recorded in the records", File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}}
	var sum *perfSummary
	sumSrc, gpuSrc, serverSrc := aiperfCompanions(companions)
	if sumSrc != nil {
		if sum, err = readPerfSummaryFile(sumSrc); err != nil {
			return nil, err
		}
		run.Config.Load = sum.level
		prov.Reported = sum.figures
		run.Env = sum.env
		run.traits = perfTraits(sum.config)
	}
	// The notes this adds to prov.Recomputed and prov.AsReported, and the
	// place's below, follow the first lines of aiperfProvenance's lists.
	if !run.Config.Load.Valid() {
		if l, dir := aiperfDirLevel(s.path); l.Valid() {
			run.Config.Load = l
			prov.Recomputed = append(prov.Recomputed, "the level from AIPerf's sweep directory "+dir+" (no summary beside the records)")
		} else {
			run.Config.Load = opts.Level
		}
	}
	if sum != nil && sum.schema != "" {
		prov.AsReported = append(prov.AsReported, "the summary's figures: "+filepath.Base(sumSrc.path)+", AIPerf summary schema_version "+sum.schema)
	}
	t := newTable(columns{sent: true, status: true, textChunks: true, chunks: true, phase: true}, len(recs), opts.MaxRequests, s.path)
	t.where = func(i int, _ string) string { return fmt.Sprintf("line %d", i+1) }
	var counts aiperfCounts
	ids := map[string]bool{}
	for i, rec := range recs {
		row := counts.row(rec, i, ids)
		if err := t.add(&row); err != nil {
			return nil, err
		}
	}
	run.Requests, run.Excluded = t.q, t.excluded
	if sum != nil {
		sum.addRunInfo(&run)
	}
	place := aiperfPlaceOf(s.path)
	place.apply(&run)
	if place.from != "" {
		prov.Recomputed = append(prov.Recomputed, "the run's place from AIPerf's directories: "+place.from)
	}
	w := aiperfWindowOf(recs)
	if w.count > 0 && w.last > w.first && !w.monotonic {
		run.Config.Window = &ingest.Window{Start: unixNs(w.first), End: unixNs(w.last), Source: "run.yaml"}
	}
	aiperfProvenance(prov, recs, counts, sum, sumSrc, run.Config.Window != nil, w)
	if gpuSrc != nil {
		if err := addAIPerfGPU(&run, gpuSrc, opts); err != nil {
			return nil, err
		}
	}
	if serverSrc != nil {
		start, end, notes, err := readServerMetrics(serverSrc, run.Config.Window, opts)
		switch {
		case err != nil:
			return nil, err
		case w.monotonic:
			// Scrapes on the wall clock would make a window the requests'
			// monotonic send times all lie outside.
			prov.AsReported = append(prov.AsReported, filepath.Base(serverSrc.path)+" not written as the run's scrapes: the records' times are on a monotonic clock, which the scrapes' wall-clock times cannot be matched with")
		default:
			run.ScrapeStart, run.ScrapeEnd = start, end
			prov.AsReported = append(prov.AsReported, notes...)
		}
	}
	if sum == nil {
		prov.AsReported = append(prov.AsReported, "no profile_export_aiperf.json next to the records: the level comes from --level and the tool's own figures are not shown")
	}
	prov.Definitions = slices.Clone(aiperfDefinitions)
	return []Run{run}, nil
}

// readAIPerfRecords reads profile_export.jsonl's records, at most
// opts.MaxRequests of them.
func readAIPerfRecords(j *jsonIn, opts Options) ([]aiperfRecord, error) {
	var recs []aiperfRecord
	for n := 1; ; n++ {
		more, err := j.more()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		j.record = n
		if len(recs) >= opts.MaxRequests {
			return nil, j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", opts.MaxRequests)
		}
		rec, err := readAIPerfRecord(j)
		if err != nil {
			return nil, err
		}
		if !rec.hasMetadata {
			return nil, &SourceError{File: j.file, Record: n, Path: "$", Msg: "not an AIPerf record: expected a metadata member (each line of profile_export.jsonl is one record)"}
		}
		recs = append(recs, rec)
	}
	j.record = 0
	if len(recs) == 0 {
		return nil, &SourceError{File: j.file, Msg: "empty file: expected one record per line"}
	}
	return recs, nil
}

// aiperfCompanions picks the summary, the GPU telemetry and the server
// metrics out of the files beside the records.
func aiperfCompanions(companions []*source) (sum, gpu, server *source) {
	for _, c := range companions {
		switch c.format {
		case FormatPerfSummary:
			sum = c
		case FormatAIPerfGPU:
			gpu = c
		case FormatAIPerfServer:
			server = c
		}
	}
	return sum, gpu, server
}

// aiperfCounts counts the records by what the import made of them, for
// the provenance.
type aiperfCounts struct {
	warm, failed, cancelled, zero, unary int
	// otherPhase counts the records of a phase neither warmup nor
	// profiling; firstOther is the first such phase.
	otherPhase int
	firstOther string
	// withGaps counts the records with inter-chunk gaps; gapsShort
	// those whose gaps are fewer than their tokens less one.
	gapsShort, withGaps int
	noStart             int
}

// row turns record i into a request row, counting what it is; ids holds
// the ids taken so far.
func (c *aiperfCounts) row(rec aiperfRecord, i int, ids map[string]bool) row {
	row := newRow()
	row.id, _ = uniqueID(ids, rec.id, strconv.Itoa(i+1))
	if rec.hasStart {
		row.sent = float64(rec.startNs) / 1e9
	} else {
		c.noStart++
	}
	row.prompt = rec.prompt
	switch rec.phase {
	case "warmup":
		row.phase = ingest.PhaseWarmup
		c.warm++
	case "profiling", "":
	default:
		// AIPerf itself keeps a phase it does not know among the
		// measured ones; so does benchnote, and says so.
		if c.otherPhase == 0 {
			c.firstOther = rec.phase
		}
		c.otherPhase++
	}
	switch {
	case rec.cancelled:
		c.cancelled++
		row.status = "cancelled"
		row.completion = rec.output
		if !math.IsNaN(rec.ttft) {
			row.ttft = rec.ttft
		}
	case rec.hasError:
		c.failed++
		row.status = aiperfStatus(rec)
		row.completion = rec.output
		if !math.IsNaN(rec.ttft) {
			row.ttft = rec.ttft
		}
	case rec.output > 0 && math.IsNaN(rec.ttft) && !math.IsNaN(rec.latency):
		// A non-streaming request: one response, no TTFT of its own.
		c.unary++
		row.completion = rec.output
		row.e2e, row.ttft = rec.latency, rec.latency
		row.textChunks = 1
	case rec.output == 0 || math.IsNaN(rec.ttft):
		c.zero++
		row.completion, row.textChunks = 0, 0
	default:
		c.streamed(&row, rec)
	}
	return row
}

// streamed fills a streamed request's row: chunk arrival times from TTFT
// and the inter-chunk gaps, E2E at the last of them.
func (c *aiperfCounts) streamed(row *row, rec aiperfRecord) {
	row.completion = rec.output
	row.ttft = rec.ttft
	at := rec.ttft
	row.chunks = append(row.chunks, at)
	for _, g := range rec.icl {
		at += g
		row.chunks = append(row.chunks, at)
	}
	row.e2e = at
	if len(rec.icl) == 0 && !math.IsNaN(rec.latency) && rec.latency >= rec.ttft {
		row.e2e = rec.latency
	}
	row.textChunks = int64(len(row.chunks))
	if len(rec.icl) > 0 {
		c.withGaps++
		if rec.output > 0 && int64(len(rec.icl)) != rec.output-1 {
			c.gapsShort++
		}
	}
}

// aiperfWindow is the measurement window: the measured requests' first
// start to their last end, as AIPerf's benchmark_duration spans them.
type aiperfWindow struct {
	first, last int64
	// count is how many requests the window spans.
	count int
	// monotonic says the times are on a monotonic clock: AIPerf stamps
	// requests with time.time_ns(), and a start before 2000 is a
	// monotonic clock's, which orders requests but cannot be placed
	// beside a window or the server's scrapes.
	monotonic bool
}

func aiperfWindowOf(recs []aiperfRecord) aiperfWindow {
	var w aiperfWindow
	for _, rec := range recs {
		if rec.warmup || !rec.hasStart || !rec.hasEnd || rec.endNs < rec.startNs {
			continue
		}
		if w.count == 0 || rec.startNs < w.first {
			w.first = rec.startNs
		}
		if w.count == 0 || rec.endNs > w.last {
			w.last = rec.endNs
		}
		w.count++
	}
	w.monotonic = w.count > 0 && w.first < 946_684_800e9
	return w
}

// aiperfProvenance writes what the import recomputed, took as reported,
// could not recover or only approximated, replacing prov's lists;
// hasWindow says whether the run has the window w.
func aiperfProvenance(prov *ingest.Provenance, recs []aiperfRecord, c aiperfCounts, sum *perfSummary, sumSrc *source, hasWindow bool, w aiperfWindow) {
	if sum != nil && sum.version != "" {
		prov.Version = sum.version + ", from " + filepath.Base(sumSrc.path)
	} else if recs[0].generation == "0.1" {
		prov.Version = "0.1.x (records with metadata.timestamp_ns)"
	}
	// The notes importAIPerf made before (the level from a directory, the
	// run's place, the summary's schema) follow the lists' first lines.
	earlierRecomputed, earlierAsReported := prov.Recomputed, prov.AsReported
	prov.Recomputed = []string{
		"chunk arrival times = TTFT + Σ inter_chunk_latency, and E2E at the last of them",
		"phase from benchmark_phase (credit_phase in 0.1.x): " + textfmt.Count(c.warm, "warm-up request", "warm-up requests") + ", excluded as warm-up",
		fmt.Sprintf("status from error: %s failed; was_cancelled: %s cancelled (status \"cancelled\")", textfmt.Count(c.failed, "request", "requests"), textfmt.Count(c.cancelled, "request", "requests")),
	}
	prov.Recomputed = append(prov.Recomputed, earlierRecomputed...)
	switch {
	case c.noStart < len(recs) && w.monotonic:
		prov.Recomputed = append(prov.Recomputed, "t_request_sent from request_start_ns, which is on a monotonic clock here (before 2000)")
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableWallClock)
	case c.noStart < len(recs):
		prov.Recomputed = append(prov.Recomputed, "t_request_sent from request_start_ns (timestamp_ns in 0.1.x; wall clock)")
	}
	switch {
	case c.noStart == len(recs):
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableSendTime)
	case c.noStart > 0:
		prov.Approximate = append(prov.Approximate, fmt.Sprintf("%d of %d records have no request_start_ns: their send times are unknown", c.noStart, len(recs)))
	}
	if c.otherPhase > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%s of phase %q (neither warmup nor profiling) kept as measured, as AIPerf keeps them", textfmt.Count(c.otherPhase, "request", "requests"), c.firstOther))
	}
	if c.zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d requests without output tokens are zero-token requests", c.zero))
	}
	if c.unary > 0 {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableTTFT)
		why := "their records have no time_to_first_token"
		if sum != nil && sum.streaming() == "false" {
			why = "the summary's input_config.endpoint.streaming is false"
		}
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%s not streamed (%s): E2E is request_latency and TTFT is set to it, never reported as measured", textfmt.Count(c.unary, "request", "requests"), why))
	}
	if c.gapsShort > 0 {
		prov.Approximate = append(prov.Approximate, fmt.Sprintf("inter_chunk_latency holds the gaps between chunks, not tokens: %d of %d requests' lists are not output_token_count − 1 long (chunks of several tokens), so per-gap ITL percentiles are per chunk; mean ITL and TPOT use the token counts",
			c.gapsShort, c.withGaps))
	}
	prov.AsReported = append([]string{"TTFT (time_to_first_token, AIPerf's first response)", "prompt and output token counts (input_sequence_length, output_token_count: AIPerf's client tokenizer)"}, earlierAsReported...)
	prov.TokenCounts = "tokenizer"
	if sum != nil && sum.tokenizer != "" {
		prov.TokenCounts = "tokenizer:" + sum.tokenizer
	}
	if !hasWindow {
		prov.Unavailable = append([]string{ingest.UnavailableWindow}, prov.Unavailable...)
	} else {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("the measurement window: the first request_start_ns to the last request_end_ns of the %s measured requests (warm-up left out)", strconv.Itoa(w.count)))
	}
}

// addAIPerfGPU reads AIPerf's GPU telemetry into the run's gpu.csv
// samples, and says so in the provenance.
func addAIPerfGPU(run *Run, gpuSrc *source, opts Options) error {
	gt, err := readGPUTelemetry(gpuSrc, opts)
	if err != nil {
		return err
	}
	prov := run.Config.Provenance
	run.GPU = gt.samples
	line := fmt.Sprintf("gpu.csv from %s: %s of %s from %s (power W, energy MJ → J, utilisation %%, memory GB of 10^9 bytes → MiB, temperature °C)",
		filepath.Base(gpuSrc.path), textfmt.Count(len(gt.samples), "sample", "samples"), textfmt.Count(gt.gpus, "GPU", "GPUs"), strings.Join(gt.endpoints, ", "))
	prov.AsReported = append(prov.AsReported, line)
	if gt.duplicates > 0 {
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("%d GPU samples left out: their GPU was already reported by another endpoint and is counted once (the first: %s)", gt.duplicates, gt.duplicateFirst))
	}
	return nil
}

// aiperfDefinitions are how AIPerf defines the metrics whose definition
// differs from benchnote's.
var aiperfDefinitions = []ingest.Definition{
	{Metric: "completion tokens", Source: "output_token_count re-tokenizes the response text with the client tokenizer",
		Benchnote: "the server's usage.completion_tokens; here the client count, as the records hold no usage"},
	{Metric: "ITL", Source: "(request latency − TTFT) / (output sequence length − 1) per request, averaged over requests",
		Benchnote: "that is benchnote's TPOT; benchnote's mean ITL is Σ(E2E − TTFT) / Σ(n − 1), gap-weighted"},
	{Metric: "warm-up", Source: "the requests of the warm-up phase (--warmup-request-count) are left out of every figure",
		Benchnote: "they are marked warm-up and excluded; benchnote's stabilisation rule then applies to the rest"},
}

func aiperfStatus(rec aiperfRecord) string {
	if rec.errCause != "" && rec.errCause != rec.errType {
		r := rec
		r.errCause = ""
		return aiperfStatus(r) + " (cause: " + lastLine(rec.errCause) + ")"
	}
	switch {
	case rec.hasError && rec.errType != "" && rec.errCode != 0:
		return fmt.Sprintf("%s %d: %s", rec.errType, rec.errCode, lastLine(rec.errMsg))
	case rec.hasError && rec.errType != "":
		return rec.errType + ": " + lastLine(rec.errMsg)
	case rec.hasError:
		return "error: " + lastLine(rec.errMsg)
	}
	return "cancelled"
}

// readAIPerfRecord reads one line of profile_export.jsonl.
func readAIPerfRecord(j *jsonIn) (aiperfRecord, error) {
	nan := math.NaN()
	rec := aiperfRecord{ttft: nan, latency: nan, prompt: -1, output: -1}
	err := j.object(func(name string) error {
		switch name {
		case "metadata":
			rec.hasMetadata = true
			return j.object(func(name string) error { return rec.readMetadata(j, name) })
		case "record_id":
			// 0.1.x: an id of the record, often empty.
			if j.peek() != '"' {
				return j.skip()
			}
			v, err := j.str()
			if rec.id == "" {
				rec.id = v
			}
			return err
		case "metrics":
			if j.peek() == 'n' {
				return j.skip()
			}
			return j.object(func(name string) error { return rec.readMetric(j, name) })
		case "error":
			return readAIPerfError(j, &rec)
		}
		return j.skip()
	})
	return rec, err
}

// readMetadata reads one member of a record's metadata.
func (rec *aiperfRecord) readMetadata(j *jsonIn, name string) error {
	switch name {
	case "x_request_id":
		v, err := j.scalarText()
		if v != "" {
			rec.id = v
		}
		return err
	case "request_start_ns", "timestamp_ns":
		if j.peek() == 'n' {
			return j.skip()
		}
		v, err := j.bigCount()
		rec.startNs, rec.hasStart = v, err == nil
		if name == "timestamp_ns" {
			rec.generation = "0.1"
		}
		return err
	case "request_end_ns":
		if j.peek() == 'n' {
			return j.skip()
		}
		v, err := j.bigCount()
		rec.endNs, rec.hasEnd = v, err == nil
		return err
	case "benchmark_phase", "credit_phase":
		v, err := j.str()
		rec.phase = v
		rec.warmup = v == "warmup"
		return err
	case "was_cancelled":
		v, err := j.boolean()
		rec.cancelled = v
		return err
	case "error":
		// 0.1.x kept the error in the metadata.
		return readAIPerfError(j, rec)
	}
	return j.skip()
}

// readMetric reads metric name, {"value": v or [v, …], "unit": u}, into
// the record, durations in milliseconds.
func (rec *aiperfRecord) readMetric(j *jsonIn, name string) error {
	value, unit, isList, err := readAIPerfMetricValue(j)
	if err != nil {
		return err
	}
	switch name {
	case "time_to_first_token", "request_latency", "inter_chunk_latency":
		scale, ok := durationScale(unit)
		if !ok {
			return j.errorf("%s: expected a time unit (ns, us, ms or s), got %q", name, unit)
		}
		for k := range value {
			value[k] *= scale
		}
	}
	first := math.NaN()
	if len(value) > 0 && !isList {
		first = value[0]
	}
	count := func() int64 {
		if math.IsNaN(first) || first < 0 || first != math.Trunc(first) {
			return -1
		}
		return int64(first)
	}
	switch name {
	case "time_to_first_token":
		rec.ttft = first
	case "request_latency":
		rec.latency = first
	case "inter_chunk_latency":
		rec.icl = value
	case "output_token_count":
		rec.output = count()
	case "output_sequence_length":
		if rec.output < 0 {
			rec.output = count()
		}
	case "input_sequence_length", "error_isl":
		rec.prompt = count()
	}
	return nil
}

// readAIPerfMetricValue reads a metric's value (a number, or a list of
// finite non-negative ones) and unit.
func readAIPerfMetricValue(j *jsonIn) (value []float64, unit string, isList bool, err error) {
	err = j.object(func(field string) error {
		switch field {
		case "unit":
			u, err := j.str()
			unit = u
			return err
		case "value":
			if j.peek() == '[' {
				isList = true
				return j.array(func(int) error {
					v, err := j.finite(0)
					value = append(value, v)
					return err
				})
			}
			v, err := j.optNumber()
			value = append(value, v)
			return err
		}
		return j.skip()
	})
	return value, unit, isList, err
}

// readAIPerfError reads a record's error: null or absent on success;
// {code, type, message} and, since the msgspec wire format, cause (the
// repr of the exception's cause) and cause_chain (exception type names,
// outermost first).
func readAIPerfError(j *jsonIn, rec *aiperfRecord) error {
	if j.peek() == 'n' {
		return j.skip()
	}
	rec.hasError = true
	return j.object(func(name string) error {
		switch name {
		case "code":
			v, err := j.optNumber()
			if !math.IsNaN(v) && math.Abs(v) < 1e9 {
				rec.errCode = int64(v)
			}
			return err
		case "type":
			v, err := j.scalarText()
			rec.errType = v
			return err
		case "message":
			v, err := j.scalarText()
			rec.errMsg = v
			return err
		case "cause":
			v, err := j.scalarText()
			if rec.errCause == "" {
				rec.errCause = v
			}
			return err
		case "cause_chain":
			if j.peek() != '[' {
				return j.skip()
			}
			var last string
			err := j.array(func(int) error {
				v, err := j.scalarText()
				last = v
				return err
			})
			if last != "" {
				rec.errCause = last
			}
			return err
		}
		return j.skip()
	})
}

// perfSummary is what benchnote reads of a GenAI-Perf or AIPerf aggregate
// export.
type perfSummary struct {
	tool string
	// version is AIPerf's aiperf_version; schema its schema_version ("" for
	// files before 0.4).
	version, schema string
	runInfo         aiperfRunInfo
	telemetry       *telemetrySummary
	// outputTokens is total_output_tokens (NaN when absent).
	outputTokens float64
	// hasTTFT and hasLatency say whether the file holds
	// time_to_first_token and request_latency.
	hasTTFT, hasLatency bool
	level               ingest.LoadLevel
	tokenizer           string
	figures             []ingest.ReportedFigure
	env                 []ingest.KV
	// config holds the settings of input_config that describe the
	// workload and the model, by dotted path ("input.prompt.input_tokens.mean").
	config map[string]string
}

// perfConfigKeys are the settings of a GenAI-Perf (flat) or AIPerf
// (nested) input_config kept in perfSummary.config.
var perfConfigKeys = map[string]bool{
	"model": true, "backend": true, "prompt_source": true, "input_dataset": true, "input_file": true,
	"synthetic_input_tokens_mean": true, "output_tokens_mean": true,
	"endpoint.model_names": true, "input.file": true, "input.public_dataset": true,
	"input.prompt.input_tokens.mean": true, "input.prompt.output_tokens.mean": true,
	"endpoint.streaming": true, "endpoint.type": true, "endpoint.url": true, "endpoint.urls": true,
	"endpoint.custom_endpoint": true,
}

// readPerfConfig reads the value at path of an input_config into config
// when it is one of perfConfigKeys (a list of texts joined by commas),
// descending into objects up to three levels.
func readPerfConfig(j *jsonIn, path string, config map[string]string) error {
	switch j.peek() {
	case '{':
		if strings.Count(path, ".") >= 3 {
			return j.skip()
		}
		return j.object(func(name string) error { return readPerfConfig(j, path+"."+name, config) })
	case '[':
		if !perfConfigKeys[path] {
			return j.skip()
		}
		var vals []string
		err := j.array(func(int) error {
			if k := j.peek(); k == '{' || k == '[' {
				return j.skip()
			}
			v, err := j.scalarText()
			if v != "" && len(vals) < 8 {
				vals = append(vals, v)
			}
			return err
		})
		config[path] = strings.Join(vals, ",")
		return err
	}
	if !perfConfigKeys[path] {
		return j.skip()
	}
	v, err := j.scalarText()
	config[path] = v
	return err
}

// perfTraits reads the model, the backend and the workload of a GenAI-Perf
// or AIPerf input_config: a file or named dataset, or the synthetic
// prompts' mean input length; and the requested mean output length.
func perfTraits(config map[string]string) traits {
	var t traits
	t.add("model", config["model"], "input_config.model")
	t.add("model", config["endpoint.model_names"], "input_config.endpoint.model_names")
	t.add("backend", config["backend"], "input_config.backend")
	dataset := false
	for _, d := range []struct{ key, from string }{
		{"input_file", "input_config.input_file"}, {"input.file", "input_config.input.file"},
		{"input_dataset", "input_config.input_dataset"}, {"input.public_dataset", "input_config.input.public_dataset"},
	} {
		if v := config[d.key]; v != "" && !dataset {
			t.add("dataset", filepath.Base(v), d.from)
			dataset = true
		}
	}
	if !dataset {
		// Synthetic prompts: their length is the workload's.
		for _, in := range []struct{ key, from string }{
			{"synthetic_input_tokens_mean", "input_config.synthetic_input_tokens_mean"},
			{"input.prompt.input_tokens.mean", "input_config.input.prompt.input_tokens.mean"},
		} {
			if v := config[in.key]; v != "" {
				t.add("dataset", "synthetic", in.from)
				t.add("input_len", v, in.from)
			}
		}
	}
	for _, out := range []struct{ key, from string }{
		{"output_tokens_mean", "input_config.output_tokens_mean"},
		{"input.prompt.output_tokens.mean", "input_config.input.prompt.output_tokens.mean"},
	} {
		if v := config[out.key]; v != "" && v != "-1" {
			t.add("output_len", v, out.from)
		}
	}
	return t
}

// perfMetrics maps the summary's metric names to benchnote statistic keys.
var perfMetrics = []struct {
	name, key, label, note string
	duration               bool
}{
	{"time_to_first_token", "ttft", "TTFT", "", true},
	{"inter_token_latency", "tpot", "ITL", "per request (latency − TTFT) / (n − 1) with the client tokenizer's n: benchnote's TPOT", true},
	{"request_latency", "e2e", "request latency", "to the last response received", true},
	{"output_token_throughput_per_request", "user_tps", "output token throughput per request", "", false},
	{"output_token_throughput_per_user", "user_tps", "output token throughput per user", "", false},
	{"output_sequence_length", "output_tokens", "output sequence length", "client tokenizer", false},
	{"input_sequence_length", "prompt_tokens", "input sequence length", "client tokenizer", false},
	{"request_throughput", "throughput.requests_per_s", "request throughput", "", false},
	{"output_token_throughput", "throughput.client_output_tokens_per_s", "output token throughput", "client tokenizer's tokens / benchmark duration", false},
	// AIPerf's effective_* metrics (time-weighted over the benchmark
	// window): its effective concurrency is benchnote's achieved
	// concurrency; the decode throughput has no benchnote counterpart.
	{"effective_concurrency", "workload.achieved_concurrency", "effective concurrency", "time-weighted in-flight requests over the benchmark window, failed requests included", false},
	{"effective_decode_throughput", "aiperf.effective_decode_throughput", "effective decode throughput", "Σ per-request decode rates, time-weighted over the benchmark window", false},
}

// perfAvgOnly are the keys of perfMetrics whose only figure is the mean.
var perfAvgOnly = map[string]bool{
	"throughput.requests_per_s": true, "throughput.client_output_tokens_per_s": true,
	"workload.achieved_concurrency": true, "aiperf.effective_decode_throughput": true,
}

func readPerfSummaryFile(s *source) (*perfSummary, error) {
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readPerfSummary(newJSONIn(f, s.path))
}

func readPerfSummary(j *jsonIn) (*perfSummary, error) {
	r := &perfSummaryReader{
		j:     j,
		sum:   &perfSummary{tool: "GenAI-Perf", config: map[string]string{}, outputTokens: math.NaN(), runInfo: aiperfRunInfo{trial: -1}},
		stats: map[string]map[string]float64{}, units: map[string]string{}, paths: map[string]string{},
	}
	err := j.object(r.topKey)
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	sum := r.sum
	sum.level = r.level()
	if err := r.addFigures(); err != nil {
		return nil, err
	}
	_, sum.hasTTFT = r.stats["time_to_first_token"]
	_, sum.hasLatency = r.stats["request_latency"]
	if st, ok := r.stats["total_output_tokens"]; ok {
		if v, ok := st["avg"]; ok {
			sum.outputTokens = v
		}
	}
	if sum.telemetry != nil {
		sum.figures = append(sum.telemetry.figures(sum.tool, sum.outputTokens), sum.figures...)
	}
	for _, e := range []struct{ key, env string }{
		{"endpoint.model_names", "model"}, {"endpoint.url", "url"}, {"endpoint.urls", "url"},
		{"endpoint.type", "endpoint_type"}, {"endpoint.custom_endpoint", "endpoint"}, {"endpoint.streaming", "streaming"},
	} {
		if v := sum.config[e.key]; v != "" {
			sum.env = append(sum.env, ingest.KV{Key: e.env, Value: v})
		}
	}
	if sum.tokenizer != "" {
		sum.env = append(sum.env, ingest.KV{Key: "tokenizer", Value: sum.tokenizer})
	}
	return sum, nil
}

// perfSummaryReader is readPerfSummary's state while it reads the file:
// the summary so far, each metric's statistics, unit and JSON path, and
// the load settings, which decide the level once all are read.
type perfSummaryReader struct {
	j     *jsonIn
	sum   *perfSummary
	stats map[string]map[string]float64
	units map[string]string
	paths map[string]string
	// concurrency and rate are NaN or 0 when not given.
	concurrency, rate float64
	rateMode          string
}

// topKey reads one top-level key: the file's version and run info, GPU
// telemetry, input_config, or a metric.
func (r *perfSummaryReader) topKey(name string) error {
	j, sum := r.j, r.sum
	switch name {
	case "schema_version":
		sum.tool = "AIPerf"
		v, err := checkAIPerfSchema(j)
		sum.schema = v
		return err
	case "aiperf_version":
		sum.tool = "AIPerf"
		v, err := j.scalarText()
		sum.version = v
		return err
	case "run_info":
		sum.tool = "AIPerf"
		return readAIPerfRunInfo(j, &sum.runInfo)
	case "telemetry_data":
		ts, err := readTelemetrySummary(j)
		sum.telemetry = ts
		return err
	case "telemetry_stats":
		// GenAI-Perf's GPU telemetry.
		ts, err := readGenAIPerfTelemetry(j)
		sum.telemetry = ts
		return err
	case "records":
		// 0.1.x: the metrics one level down.
		if j.peek() != '{' {
			return j.skip()
		}
		sum.tool = "AIPerf"
		return j.object(r.metric)
	case "warmup_metrics":
		// Schema 1.4: the warm-up phase's own metrics; benchnote
		// reports the measured phase.
		return j.skip()
	case "input_config":
		if j.peek() != '{' {
			return j.skip()
		}
		return j.object(r.inputConfig)
	}
	return r.metric(name)
}

// metric reads one metric's {unit, avg, p50, …}.
func (r *perfSummaryReader) metric(name string) error {
	j := r.j
	if j.peek() != '{' {
		return j.skip()
	}
	st := map[string]float64{}
	r.paths[name] = j.path()
	err := j.object(func(field string) error {
		if field == "unit" {
			u, err := j.scalarText()
			r.units[name] = u
			return err
		}
		if j.peek() != '0' {
			return j.skip()
		}
		v, err := j.number()
		st[field] = v
		return err
	})
	if len(r.stats) < maxPerfMetrics {
		r.stats[name] = st
	}
	return err
}

// inputConfig reads one key of input_config: GenAI-Perf's flat settings
// or AIPerf's nested ones (models, phases, loadgen, endpoint).
func (r *perfSummaryReader) inputConfig(name string) error {
	j, sum := r.j, r.sum
	switch name {
	case "models":
		sum.tool = "AIPerf"
		return readAIPerfModels(j, sum.config)
	case "phases":
		sum.tool = "AIPerf"
		return readAIPerfPhases(j, &r.concurrency, &r.rate, &r.rateMode)
	case "loadgen":
		sum.tool = "AIPerf"
		return j.object(r.loadgen)
	case "tokenizer":
		return r.tokenizer()
	case "concurrency":
		return r.readLevel(&r.concurrency, false)
	case "request_rate":
		return r.readLevel(&r.rate, true)
	case "model", "endpoint", "backend", "service_kind":
		return r.envSetting(name)
	}
	return readPerfConfig(j, name, sum.config)
}

// loadgen reads one key of AIPerf's input_config.loadgen.
func (r *perfSummaryReader) loadgen(name string) error {
	switch name {
	case "concurrency":
		return r.readLevel(&r.concurrency, false)
	case "request_rate":
		return r.readLevel(&r.rate, true)
	case "request_rate_mode":
		v, err := r.j.scalarText()
		r.rateMode = v
		return err
	}
	return r.j.skip()
}

// readLevel reads a concurrency (or, with isRate, a request rate) into
// dst and checks that it is a level benchnote can hold.
func (r *perfSummaryReader) readLevel(dst *float64, isRate bool) error {
	v, err := r.j.optNumber()
	*dst = v
	if err == nil {
		err = r.j.checkLevel(v, isRate)
	}
	return err
}

// tokenizer reads the tokenizer's name: a string, or a mapping with a name.
func (r *perfSummaryReader) tokenizer() error {
	j := r.j
	if j.peek() == '{' {
		return j.object(func(name string) error {
			if name == "name" {
				v, err := j.scalarText()
				r.sum.tokenizer = v
				return err
			}
			return j.skip()
		})
	}
	v, err := j.scalarText()
	r.sum.tokenizer = v
	return err
}

// envSetting reads model, endpoint, backend or service_kind: a value or a
// list of them, each an environment entry (a list of models is also kept
// joined by commas), or AIPerf's endpoint mapping.
func (r *perfSummaryReader) envSetting(name string) error {
	j, sum := r.j, r.sum
	switch j.peek() {
	case '[':
		var vals []string
		err := j.array(func(int) error {
			v, err := j.scalarText()
			if err == nil && v != "" {
				sum.env = append(sum.env, ingest.KV{Key: name, Value: v})
				vals = append(vals, v)
			}
			return err
		})
		if name == "model" {
			sum.config[name] = strings.Join(vals, ",")
		}
		return err
	case '{':
		// AIPerf's endpoint: model_names, type, url.
		return readPerfConfig(j, name, sum.config)
	}
	v, err := j.scalarText()
	if err == nil && v != "" {
		sum.env = append(sum.env, ingest.KV{Key: name, Value: v})
		sum.config[name] = v
	}
	return err
}

// level is the load level the settings give: a finite rate (with its
// arrival process when that is constant or poisson), else a whole
// concurrency, else none.
func (r *perfSummaryReader) level() ingest.LoadLevel {
	switch {
	case r.rate > 0 && !math.IsNaN(r.rate):
		arrival := ""
		switch r.rateMode {
		case "constant", "poisson":
			arrival = r.rateMode
		}
		return ingest.RateLoad(r.rate, arrival)
	case r.concurrency >= 1 && r.concurrency == math.Trunc(r.concurrency):
		return ingest.ConcurrencyLoad(int(r.concurrency))
	}
	return ingest.LoadLevel{}
}

// addFigures adds the tool's figures of each metric benchnote knows, in
// perfMetrics' order and then statRank's, durations in milliseconds.
func (r *perfSummaryReader) addFigures() error {
	for _, m := range perfMetrics {
		st, ok := r.stats[m.name]
		if !ok {
			continue
		}
		scale := 1.0
		unit := r.units[m.name]
		if m.duration {
			sc, ok := durationScale(unit)
			if !ok {
				return &SourceError{File: r.j.file, Path: r.paths[m.name] + ".unit", Msg: fmt.Sprintf("expected a time unit, got %q", unit)}
			}
			scale, unit = sc, "ms"
		}
		var names []string
		for k := range st {
			names = append(names, k)
		}
		sort.Slice(names, func(a, b int) bool { return statRank(names[a]) < statRank(names[b]) })
		for _, k := range names {
			v := st[k]
			if statRank(k) >= statHidden || math.IsNaN(v) || math.IsInf(v, 0) || perfAvgOnly[m.key] && k != "avg" {
				continue
			}
			key := m.key
			switch {
			case perfAvgOnly[m.key]:
			case k == "avg":
				key += ".mean"
			default:
				key += "." + k
			}
			r.sum.figures = append(r.sum.figures, ingest.ReportedFigure{Key: key, Label: k + " " + m.label, Value: v * scale, Unit: unit, Note: m.note})
		}
	}
	return nil
}

// maxPerfMetrics bounds the metrics a summary may hold: AIPerf writes
// about 60.
const maxPerfMetrics = 10_000

// streaming says whether the summary records a streaming run: "true",
// "false", or "" when it does not say.
func (s *perfSummary) streaming() string { return s.config["endpoint.streaming"] }

// statRank orders summary statistics; statHidden and above are not shown.
func statRank(k string) int {
	switch k {
	case "avg":
		return 0
	case "min":
		return 10
	case "p50":
		return 500
	case "p90":
		return 900
	case "p95":
		return 950
	case "p99":
		return 990
	case "max":
		return 995
	}
	return statHidden
}

const statHidden = 10000

// importPerfSummary imports an aggregate export on its own: the tool's
// figures, nothing recomputed.
func importPerfSummary(r io.Reader, s *source, opts Options) ([]Run, error) {
	sum, err := readPerfSummary(newJSONIn(r, s.path))
	if err != nil {
		return nil, err
	}
	prov := &ingest.Provenance{Tool: sum.tool, Version: "not recorded in the file", File: filepath.Base(s.path), Reported: sum.figures}
	prov.AsReported = []string{"every figure: the file holds aggregates only; nothing can be recomputed"}
	prov.Unavailable = unavailableWithoutRecords()
	prov.TokenCounts = "tokenizer"
	if sum.tokenizer != "" {
		prov.TokenCounts = "tokenizer:" + sum.tokenizer
	}
	prov.Definitions = perfSummaryDefinitions
	if sum.version != "" {
		prov.Version = sum.version
	}
	if sum.schema != "" {
		prov.AsReported = append(prov.AsReported, "AIPerf summary schema_version "+sum.schema)
	}
	switch {
	case sum.streaming() == "false":
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableTTFT)
		prov.AsReported = append(prov.AsReported, "the run was not streamed (input_config.endpoint.streaming false): the file has no TTFT, TPOT or ITL, and none is shown")
	case sum.tool == "AIPerf" && sum.streaming() == "" && !sum.hasTTFT && sum.hasLatency:
		// AIPerf omits settings left at their defaults, streaming off
		// among them.
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableTTFT)
		prov.AsReported = append(prov.AsReported, "the run was not streamed (input_config.endpoint has no streaming setting, AIPerf's default is off, and the file has request_latency but no time_to_first_token): no TTFT, TPOT or ITL is shown")
	}
	if sum.telemetry != nil && len(sum.telemetry.gpus) > 0 && math.IsNaN(sum.outputTokens) {
		prov.AsReported = append(prov.AsReported, "no total_output_tokens in the file: energy per output token is not shown")
	}
	run := Run{Config: ingest.RunConfig{Load: sum.level, Provenance: prov}, Env: sum.env, traits: perfTraits(sum.config)}
	sum.addRunInfo(&run)
	aiperfPlaceOf(s.path).apply(&run)
	run.Config.Load = opts.levelOr(run.Config.Load)
	return []Run{run}, nil
}

// addRunInfo gives a run what an AIPerf summary's run_info says of its
// place: the sweep variation is a series trait; the trial (from 0) is
// the repeat of a run with per-request records.
func (s *perfSummary) addRunInfo(r *Run) {
	if v := s.runInfo.variationLabel; v != "" && v != "base" {
		if m := aiperfParamDir.FindStringSubmatch(v); m != nil {
			aiperfPlace{param: m[1], value: m[2], from: "run_info.variation_label"}.apply(r)
		} else {
			r.traits.add("variation", v, "run_info.variation_label")
		}
	}
	if s.runInfo.trial >= 0 && r.Requests != nil {
		r.Config.Repeat = int(s.runInfo.trial) + 1
	}
}

// perfSummaryDefinitions are how GenAI-Perf and AIPerf define the figures
// of their aggregate exports.
var perfSummaryDefinitions = []ingest.Definition{
	{Metric: "ITL", Source: "inter_token_latency is (request latency − TTFT) / (output sequence length − 1) per request, averaged over requests",
		Benchnote: "that is benchnote's TPOT; benchnote's mean ITL is Σ(E2E − TTFT) / Σ(n − 1), gap-weighted"},
	{Metric: "completion tokens", Source: "output sequence length counts the response text with the client tokenizer",
		Benchnote: "the server's usage.completion_tokens"},
	{Metric: "E2E", Source: "request latency ends at the last response received",
		Benchnote: "E2E ends at the last text-bearing chunk"},
}
