package importer

// inference-perf reports, followed from kubernetes-sigs/inference-perf @
// 7de5ef2 (inference_perf/reportgen/base.py, inference_perf/apis/base.py,
// inference_perf/apis/streaming_parser.py):
//   - per_request_lifecycle_metrics.json: a list of {start_time, end_time,
//     request, response, info, error}, times from time.perf_counter() (a
//     monotonic clock, seconds); info.response_metrics holds output_tokens
//     (the client tokenizer's count), server_usage (the stream's usage, when
//     sent) and chunk_times (the arrival of each content-bearing chunk);
//     info.input_tokens is the prompt length; error is {error_type,
//     error_msg} or null. Records carry no stage; stage_id is read when a
//     record has one.
//   - stage_N_lifecycle_metrics.json: one load stage's aggregates:
//     load_summary {count, requested_rate, achieved_rate, concurrency},
//     successes {count, latency {time_to_first_token, request_latency,
//     time_per_output_token, inter_token_latency: {mean, median, pNN, min,
//     max} in seconds}, throughput {...}}, failures {count}.
// Stages run one after another, so without stage ids the records, in start
// order, are split among the stages by their counts.

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/benchnote/benchnote/ingest"
)

// ipRecord is one per-request record.
type ipRecord struct {
	stage                 int // -1 when absent
	start, end            float64
	chunks                []float64
	prompt, output, usage int64
	usagePrompt           int64
	errType, errMsg       string
	hasError, streamed    bool
}

func importInferencePerf(r io.Reader, s *source, companions []*source, opts Options) ([]Run, error) {
	j := newJSONIn(r, s.path)
	var recs []ipRecord
	err := j.array(func(i int) error {
		if i >= opts.MaxRequests {
			return j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", opts.MaxRequests)
		}
		rec, err := readIPRecord(j)
		recs = append(recs, rec)
		return err
	})
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	var stages []*ipStage
	for _, c := range companions {
		st, err := readIPStageFile(c)
		if err != nil {
			return nil, err
		}
		stages = append(stages, st)
	}
	sort.SliceStable(stages, func(a, b int) bool { return stages[a].id < stages[b].id })

	// Group the records by stage.
	groups := map[int][]int{}
	var order []int
	withStage := 0
	for _, rec := range recs {
		if rec.stage >= 0 {
			withStage++
		}
	}
	switch {
	case withStage == len(recs) && withStage > 0:
		for i, rec := range recs {
			if _, ok := groups[rec.stage]; !ok {
				order = append(order, rec.stage)
			}
			groups[rec.stage] = append(groups[rec.stage], i)
		}
		sort.Ints(order)
	case len(stages) > 0:
		idx := make([]int, len(recs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return recs[idx[a]].start < recs[idx[b]].start })
		total := 0
		for _, st := range stages {
			total += st.count
		}
		if total != len(recs) {
			return nil, &SourceError{File: s.path, Msg: fmt.Sprintf("the stage reports count %d requests in all, the records %d: cannot tell which stage each record belongs to", total, len(recs))}
		}
		at := 0
		for _, st := range stages {
			groups[st.id] = idx[at : at+st.count]
			order = append(order, st.id)
			at += st.count
		}
	default:
		order = []int{-1}
		for i := range recs {
			groups[-1] = append(groups[-1], i)
		}
	}
	byID := map[int]*ipStage{}
	for _, st := range stages {
		byID[st.id] = st
	}
	var runs []Run
	for _, id := range order {
		run, err := ipRun(recs, groups[id], byID[id], id, s, opts)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// readIPRecord reads one inference-perf request record.
func readIPRecord(j *jsonIn) (ipRecord, error) {
	rd := &ipRecordReader{j: j, rec: ipRecord{stage: -1, start: math.NaN(), end: math.NaN(), prompt: -1, output: -1, usage: -1, usagePrompt: -1}}
	err := j.object(rd.member)
	if err == nil && (math.IsNaN(rd.rec.start) || math.IsInf(rd.rec.start, 0)) {
		err = j.errorf("expected a start_time")
	}
	return rd.rec, err
}

// ipRecordReader reads a record's objects into rec, a method per object.
type ipRecordReader struct {
	j   *jsonIn
	rec ipRecord
}

// member reads a member of the record.
func (rd *ipRecordReader) member(name string) error {
	j := rd.j
	switch name {
	case "start_time":
		v, err := j.number()
		rd.rec.start = v
		return err
	case "end_time":
		v, err := j.number()
		rd.rec.end = v
		return err
	case "stage_id":
		v, err := j.optCount()
		rd.rec.stage = int(v)
		return err
	case "info":
		return rd.j.optObject(rd.info)
	case "error":
		if j.peek() == 'n' {
			return j.skip()
		}
		rd.rec.hasError = true
		return j.object(rd.errorMember)
	}
	return j.skip()
}

// info reads a member of info: the input tokens and the response metrics.
func (rd *ipRecordReader) info(name string) error {
	switch name {
	case "input_tokens":
		v, err := rd.j.optCount()
		if v >= 0 {
			rd.rec.prompt = v
		}
		return err
	case "response_metrics":
		return rd.j.optObject(rd.responseMetric)
	}
	return rd.j.skip()
}

// responseMetric reads a member of info.response_metrics: the output
// tokens, the chunk times and the server's usage.
func (rd *ipRecordReader) responseMetric(name string) error {
	j := rd.j
	switch name {
	case "output_tokens":
		v, err := j.optCount()
		rd.rec.output = v
		return err
	case "chunk_times":
		rd.rec.streamed = true
		return j.array(func(int) error {
			v, err := j.number()
			rd.rec.chunks = append(rd.rec.chunks, v)
			return err
		})
	case "server_usage":
		return rd.j.optObject(rd.usage)
	}
	return j.skip()
}

// usage reads a member of server_usage: the completion and prompt tokens.
func (rd *ipRecordReader) usage(name string) error {
	switch name {
	case "completion_tokens":
		v, err := rd.j.optCount()
		rd.rec.usage = v
		return err
	case "prompt_tokens":
		v, err := rd.j.optCount()
		rd.rec.usagePrompt = v
		return err
	}
	return rd.j.skip()
}

// errorMember reads a member of error: its type and message.
func (rd *ipRecordReader) errorMember(name string) error {
	switch name {
	case "error_type":
		v, err := rd.j.scalarText()
		rd.rec.errType = v
		return err
	case "error_msg":
		v, err := rd.j.scalarText()
		rd.rec.errMsg = v
		return err
	}
	return rd.j.skip()
}

// ipStage is one stage report.
type ipStage struct {
	id      int
	count   int
	level   ingest.LoadLevel
	figures []ingest.ReportedFigure
}

var stageFileNumber = regexp.MustCompile(`stage_(\d+)_`)

func readIPStageFile(s *source) (*ipStage, error) {
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := readIPStage(newJSONIn(f, s.path))
	if err != nil {
		return nil, err
	}
	st.id = -1
	if m := stageFileNumber.FindStringSubmatch(filepath.Base(s.path)); m != nil {
		st.id, _ = strconv.Atoi(m[1])
	}
	return st, nil
}

func readIPStage(j *jsonIn) (*ipStage, error) {
	r := &ipStageReader{j: j, st: &ipStage{count: -1}, rate: math.NaN(), conc: math.NaN()}
	err := j.object(func(name string) error {
		switch name {
		case "load_summary":
			return j.object(r.loadSummary)
		case "successes":
			return j.object(r.successes)
		case "failures":
			return j.member("count", func() error {
				v, err := j.number()
				r.st.figures = append(r.st.figures, ingest.ReportedFigure{Key: "counts.errors", Label: "failures", Value: v, Unit: "requests"})
				return err
			})
		}
		return j.skip()
	})
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	st := r.st
	switch {
	case r.conc >= 1 && r.conc == math.Trunc(r.conc):
		st.level = ingest.ConcurrencyLoad(int(r.conc))
	case r.rate > 0:
		st.level = ingest.RateLoad(r.rate, "")
	}
	return st, nil
}

// ipStageReader is readIPStage's state: the stage so far, and the
// requested rate and concurrency (NaN when not given).
type ipStageReader struct {
	j          *jsonIn
	st         *ipStage
	rate, conc float64
}

// loadSummary reads one member of load_summary.
func (r *ipStageReader) loadSummary(name string) error {
	j := r.j
	switch name {
	case "count":
		v, err := j.count()
		r.st.count = int(v)
		return err
	case "requested_rate":
		v, err := j.optNumber()
		r.rate = v
		if err == nil {
			err = j.checkLevel(v, true)
		}
		return err
	case "concurrency":
		v, err := j.optNumber()
		r.conc = v
		if err == nil {
			err = j.checkLevel(v, false)
		}
		return err
	}
	return j.skip()
}

// successes reads one member of successes: the count, the latency
// statistics and the throughput.
func (r *ipStageReader) successes(name string) error {
	j := r.j
	switch name {
	case "count":
		v, err := j.number()
		r.st.figures = append(r.st.figures, ingest.ReportedFigure{Key: "counts.successful", Label: "successes", Value: v, Unit: "requests"})
		return err
	case "latency":
		return j.object(r.latency)
	case "throughput":
		return j.object(r.throughput)
	}
	return j.skip()
}

// latency reads one metric of successes.latency.
func (r *ipStageReader) latency(name string) error {
	switch name {
	case "time_to_first_token":
		return r.stats("ttft", "TTFT")
	case "request_latency":
		return r.stats("e2e", "request latency")
	case "time_per_output_token":
		return r.stats("tpot", "TPOT")
	case "inter_token_latency":
		return r.stats("itl", "inter-token latency")
	}
	return r.j.skip()
}

// throughput reads one member of successes.throughput.
func (r *ipStageReader) throughput(name string) error {
	j := r.j
	key := map[string]string{"output_tokens_per_sec": "throughput.client_output_tokens_per_s", "requests_per_sec": "throughput.requests_per_s"}[name]
	if key == "" || j.peek() != '0' {
		return j.skip()
	}
	v, err := j.number()
	r.st.figures = append(r.st.figures, ingest.ReportedFigure{Key: key, Label: name, Value: v, Unit: map[bool]string{true: "tokens/s", false: "req/s"}[name == "output_tokens_per_sec"]})
	return err
}

// stats reads a metric's statistics (in seconds) as figures in
// milliseconds; the figures read before an error are kept.
func (r *ipStageReader) stats(key, label string) error {
	j := r.j
	vals := map[string]float64{}
	if j.peek() == 'n' {
		return j.skip()
	}
	err := j.object(func(name string) error {
		if j.peek() != '0' {
			return j.skip()
		}
		v, err := j.number()
		vals[name] = v
		return err
	})
	var names []string
	for k := range vals {
		names = append(names, k)
	}
	// By rank, ties (p5 and median, p0.1 and min) by name: the same
	// file gives the same reported.yaml.
	sort.Strings(names)
	sort.SliceStable(names, func(a, b int) bool { return ipStatRank(names[a]) < ipStatRank(names[b]) })
	for _, k := range names {
		stat := k
		if k == "median" {
			stat = "p50"
		}
		r.st.figures = append(r.st.figures, ingest.ReportedFigure{Key: key + "." + stat, Label: k + " " + label, Value: vals[k] * 1000, Unit: "ms"})
	}
	return err
}

func ipStatRank(k string) int {
	switch k {
	case "mean":
		return 0
	case "min":
		return 1
	case "median":
		return 50
	case "max":
		return 1000
	}
	if v, err := strconv.ParseFloat(k[1:], 64); err == nil && k[0] == 'p' {
		return int(v * 10)
	}
	return 2000
}

func ipRun(recs []ipRecord, idx []int, st *ipStage, stage int, s *source, opts Options) (Run, error) {
	prov := &ingest.Provenance{Tool: "inference-perf", Version: "not recorded in the file", File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov, Clock: "monotonic"}}
	if st != nil {
		run.Config.Load = st.level
		prov.Reported = st.figures
	}
	run.Config.Load = opts.levelOr(run.Config.Load)
	if stage >= 0 {
		run.Config.Notes = fmt.Sprintf("inference-perf stage %d", stage)
	}
	t := newTable(columns{sent: true, status: true, textChunks: true, chunks: true}, len(idx), opts.MaxRequests, s.path)
	t.where = func(i int, _ string) string { return fmt.Sprintf("$[%d]", idx[i]) }
	var usage, failed, zero, unary int
	for _, i := range idx {
		rec := recs[i]
		row := newRow()
		row.id = strconv.Itoa(i + 1)
		row.sent = rec.start
		row.prompt = rec.prompt
		if rec.usagePrompt >= 0 {
			row.prompt = rec.usagePrompt
		}
		row.completion = rec.output
		if rec.usage >= 0 {
			row.completion = rec.usage
			usage++
		}
		switch {
		case rec.hasError:
			failed++
			row.status = rec.errType
			if rec.errMsg != "" {
				row.status += ": " + lastLine(rec.errMsg)
			}
			if row.status == "" {
				row.status = "error"
			}
		case row.completion == 0 || rec.streamed && len(rec.chunks) == 0:
			zero++
			row.completion, row.textChunks = 0, 0
		case !rec.streamed:
			unary++
			row.e2e = ms(rec.end - rec.start)
			row.ttft = row.e2e
		default:
			for _, c := range rec.chunks {
				row.chunks = append(row.chunks, ms(c-rec.start))
			}
			row.ttft = row.chunks[0]
			row.e2e = row.chunks[len(row.chunks)-1]
			row.textChunks = int64(len(row.chunks))
			if row.ttft < 0 {
				return Run{}, &SourceError{File: s.path, Path: fmt.Sprintf("$[%d].info.response_metrics.chunk_times", i), Msg: "a chunk arrived before the request started"}
			}
		}
		if err := t.add(&row); err != nil {
			return Run{}, err
		}
	}
	run.Requests, run.Excluded = t.q, t.excluded
	prov.Recomputed = []string{
		"TTFT and E2E from start_time to the first and last content-bearing chunk (chunk_times)",
		fmt.Sprintf("status from error: %d failed", failed),
		"request ids: the record's position in the file",
	}
	if stage >= 0 && st != nil && len(idx) > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("stage %d: the %d records of its report, in start order", stage, len(idx)))
	}
	if zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d requests without output are zero-token requests", zero))
	}
	prov.AsReported = []string{"prompt tokens (info.input_tokens, or the server's usage)", "start_time (time.perf_counter)"}
	prov.Unavailable = []string{ingest.UnavailableRequestIDs, ingest.UnavailableWallClock, ingest.UnavailableWindow}
	if unary > 0 {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableTTFT)
	}
	switch {
	case usage == len(idx)-failed && usage > 0:
		prov.TokenCounts = "usage"
	default:
		prov.TokenCounts = "tokenizer"
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("completion tokens: the server's usage in %d of %d requests, inference-perf's client tokenizer count in the others", usage, len(idx)))
	}
	prov.Definitions = inferencePerfDefinitions
	return run, nil
}

// importInferenceStage imports a stage report on its own: its figures.
func importInferenceStage(r io.Reader, s *source, opts Options) ([]Run, error) {
	st, err := readIPStage(newJSONIn(r, s.path))
	if err != nil {
		return nil, err
	}
	prov := &ingest.Provenance{Tool: "inference-perf", Version: "not recorded in the file", File: filepath.Base(s.path), Reported: st.figures}
	prov.AsReported = []string{"every figure: the stage report holds aggregates only; nothing can be recomputed"}
	prov.Unavailable = unavailableWithoutRecords()
	prov.TokenCounts = "tokenizer"
	prov.Definitions = inferencePerfDefinitions
	run := Run{Config: ingest.RunConfig{Load: st.level, Provenance: prov}}
	run.Config.Load = opts.levelOr(run.Config.Load)
	return []Run{run}, nil
}

// inferencePerfDefinitions are how inference-perf defines its figures.
var inferencePerfDefinitions = []ingest.Definition{
	{Metric: "completion tokens", Source: "output_tokens re-tokenizes the response with the client tokenizer unless use_server_output_tokens is set",
		Benchnote: "the server's usage.completion_tokens (used here whenever the record holds it)"},
	{Metric: "E2E", Source: "request_latency is end_time − start_time, after the response is complete",
		Benchnote: "E2E ends at the last text-bearing chunk"},
	{Metric: "NTPOT", Source: "normalized time per output token = request latency / output tokens, TTFT included",
		Benchnote: "not computed: TPOT is (E2E − TTFT) / (n − 1)"},
}
