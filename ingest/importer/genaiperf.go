package importer

// GenAI-Perf's raw profile export (profile_export.json, written by
// perf_analyzer for genai-perf; followed from the real 2.48.0 file in
// FernandoDorado/sizing-llm-inference-nvidia @ fa550f95e8058e84e8225eb2f9498c621a707ead):
//
//	{"experiments": [{"experiment": {"mode": "concurrency", "value": 1},
//	                  "requests": [{"timestamp": <epoch ns>,
//	                                "request_inputs": {"payload": "<JSON text>"},
//	                                "response_timestamps": [<epoch ns>, ...],
//	                                "response_outputs": [{"response": "data: {...}\n\n"}, ...]}],
//	                  "window_boundaries": [<epoch ns>, ...]}],
//	 "version": "2.48.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}
//
// Each response is the raw SSE text of one chunk (a role-only chunk first,
// then text chunks, the usage, "data: [DONE]").

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/benchnote/benchnote/ingest"
)

// sseChunk is what benchnote reads of one streamed chunk.
type sseChunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Content *string `json:"content"`
		} `json:"delta"`
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     *int64 `json:"prompt_tokens"`
		CompletionTokens *int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// text returns the text the chunk carries.
func (c *sseChunk) text() string {
	var b strings.Builder
	for _, ch := range c.Choices {
		switch {
		case ch.Text != nil:
			b.WriteString(*ch.Text)
		case ch.Delta != nil && ch.Delta.Content != nil:
			b.WriteString(*ch.Delta.Content)
		case ch.Message != nil && ch.Message.Content != nil:
			b.WriteString(*ch.Message.Content)
		}
	}
	return b.String()
}

// parseSSE reads the events of one raw response: SSE "data:" lines, or a
// plain JSON body (a response that was not streamed). done reports a
// "[DONE]" event.
func parseSSE(raw string) (chunks []sseChunk, done bool, err error) {
	t := strings.TrimSpace(raw)
	if t == "" {
		return nil, false, nil
	}
	if !strings.HasPrefix(t, "data:") && !strings.HasPrefix(t, ":") && !strings.HasPrefix(t, "event:") {
		var c sseChunk
		if err := json.Unmarshal([]byte(t), &c); err != nil {
			return nil, false, fmt.Errorf("expected SSE \"data:\" lines or a JSON body, got %s", quoteShort(t))
		}
		return []sseChunk{c}, false, nil
	}
	for _, line := range strings.Split(t, "\n") {
		line = strings.TrimSpace(line)
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			continue
		}
		var c sseChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return nil, done, fmt.Errorf("SSE data is not a JSON chunk: %s", quoteShort(data))
		}
		chunks = append(chunks, c)
	}
	return chunks, done, nil
}

func quoteShort(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// genaiRequest is one request of the export, reduced as it is read.
type genaiRequest struct {
	sentNs      int64
	chunkNs     []int64 // text-bearing chunks
	id          string
	prompt, gen int64 // usage; -1 when absent
	maxTokens   int64
	responses   int
	model       string // the payload's model; "" when it names none
}

func importGenAIPerf(r io.Reader, s *source, companions []*source, opts Options) ([]Run, error) {
	j := newJSONIn(r, s.path)
	var version, serviceKind, endpoint string
	var exps []genaiExperiment
	total := 0
	members := map[string]jsontext.Kind{}
	err := j.object(func(name string) error {
		members[name] = j.peek()
		var err error
		switch name {
		case "version":
			version, err = j.scalarText()
		case "service_kind":
			serviceKind, err = j.scalarText()
		case "endpoint":
			endpoint, err = j.scalarText()
		case "experiments":
			err = j.array(func(int) error {
				e, err := readGenAIExperiment(j, &total, opts)
				exps = append(exps, e)
				return err
			})
		default:
			err = j.skip()
		}
		return err
	})
	if err == nil {
		err = j.end()
	}
	if err == nil {
		err = checkMembers(s, 0, members)
	}
	if err != nil {
		return nil, err
	}
	if len(exps) == 0 {
		return nil, &SourceError{File: s.path, Path: "$.experiments", Msg: "expected at least one experiment"}
	}
	var sum *perfSummary
	var sumFile string
	if len(companions) == 1 {
		if sum, err = readPerfSummaryFile(companions[0]); err != nil {
			return nil, err
		}
		sumFile = filepath.Base(companions[0].path)
	}
	var runs []Run
	for k, e := range exps {
		run, err := genaiRun(e.mode, e.value, e.requests, e.window, s, k, version, serviceKind, endpoint, opts)
		if err != nil {
			return nil, err
		}
		if sum != nil {
			addGenAISummary(&run, sum, sumFile, len(exps))
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// genaiExperiment is one experiment of the export: its load, its
// requests and its window's boundaries.
type genaiExperiment struct {
	mode     string
	value    float64
	requests []genaiRequest
	window   []int64
}

// readGenAIExperiment reads one experiment; total counts the requests of
// the export so far, at most opts.MaxRequests. The experiment read so far
// is returned with an error too.
func readGenAIExperiment(j *jsonIn, total *int, opts Options) (genaiExperiment, error) {
	var e genaiExperiment
	err := j.object(func(name string) error {
		switch name {
		case "experiment":
			return j.object(func(name string) error {
				switch name {
				case "mode":
					m, err := j.str()
					e.mode = m
					return err
				case "value":
					v, err := j.number()
					e.value = v
					return err
				}
				return j.skip()
			})
		case "window_boundaries":
			return j.array(func(int) error {
				v, err := j.bigCount()
				e.window = append(e.window, v)
				return err
			})
		case "requests":
			return j.array(func(int) error {
				if *total >= opts.MaxRequests {
					return j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", opts.MaxRequests)
				}
				*total++
				q, err := readGenAIRequest(j)
				e.requests = append(e.requests, q)
				return err
			})
		}
		return j.skip()
	})
	return e, err
}

// addGenAISummary gives an experiment's run GenAI-Perf's own figures from
// the summary beside the export, its environment keys (model, backend) and
// the client tokenizer it named, when the summary's level is the run's (or
// the export holds one experiment and the summary records no level).
func addGenAISummary(run *Run, sum *perfSummary, file string, experiments int) {
	p := run.Config.Provenance
	if sum.level.Valid() && sum.level != run.Config.Load || !sum.level.Valid() && experiments > 1 {
		p.AsReported = append(p.AsReported, fmt.Sprintf("%s is not this experiment's summary (it records %s): its figures are not shown", file, describeLevel(sum.level)))
		return
	}
	p.Reported = sum.figures
	run.Env = append(run.Env, sum.env...)
	run.traits = perfTraits(sum.config)
	p.AsReported = append(p.AsReported, "GenAI-Perf's own figures, from "+file)
	if sum.tokenizer != "" {
		for i, d := range p.Definitions {
			if d.Metric == "completion tokens" {
				p.Definitions[i].Source = "output_sequence_length counts the response text with the client tokenizer " + sum.tokenizer + " (--tokenizer)"
			}
		}
	}
}

// describeLevel names a level, or says there is none.
func describeLevel(l ingest.LoadLevel) string {
	if !l.Valid() {
		return "no level"
	}
	return l.Describe()
}

// readGenAIRequest reads one request and its responses.
func readGenAIRequest(j *jsonIn) (genaiRequest, error) {
	q := genaiRequest{prompt: -1, gen: -1, maxTokens: -1}
	var stamps []int64
	var texts []bool
	err := j.object(func(name string) error {
		switch name {
		case "timestamp":
			v, err := j.bigCount()
			q.sentNs = v
			return err
		case "response_timestamps":
			return j.array(func(int) error {
				v, err := j.bigCount()
				stamps = append(stamps, v)
				return err
			})
		case "request_inputs":
			return j.member("payload", func() error { return q.readPayload(j) })
		case "response_outputs":
			return j.array(func(int) error {
				var text bool
				err := j.member("response", func() error {
					t, err := q.readResponse(j)
					text = text || t // a member given twice counts if either has text
					return err
				})
				texts = append(texts, text)
				q.responses++
				return err
			})
		}
		return j.skip()
	})
	if err != nil {
		return q, err
	}
	if len(stamps) != len(texts) {
		return q, j.errorf("%d response_timestamps for %d response_outputs; expected one per response", len(stamps), len(texts))
	}
	for k, t := range texts {
		if t {
			q.chunkNs = append(q.chunkNs, stamps[k])
		}
	}
	return q, nil
}

// readPayload reads the model and the requested output length from the
// request's JSON payload; a payload that is not JSON names neither.
func (q *genaiRequest) readPayload(j *jsonIn) error {
	p, err := j.str()
	if err != nil {
		return err
	}
	var payload struct {
		MaxTokens           *int64 `json:"max_tokens"`
		MaxCompletionTokens *int64 `json:"max_completion_tokens"`
		Model               string `json:"model"`
	}
	if json.Unmarshal([]byte(p), &payload) == nil {
		q.model = payload.Model
		switch {
		case payload.MaxTokens != nil:
			q.maxTokens = *payload.MaxTokens
		case payload.MaxCompletionTokens != nil:
			q.maxTokens = *payload.MaxCompletionTokens
		}
	}
	return nil
}

// readResponse reads one response's server-sent events: the request's id
// (the first one given), its usage, and whether the response carries
// text.
func (q *genaiRequest) readResponse(j *jsonIn) (text bool, err error) {
	raw, err := j.str()
	if err != nil {
		return false, err
	}
	chunks, _, perr := parseSSE(raw)
	if perr != nil {
		return false, j.errorf("%v", perr)
	}
	for _, c := range chunks {
		if c.ID != "" && q.id == "" {
			q.id = c.ID
		}
		if c.text() != "" {
			text = true
		}
		if c.Usage == nil {
			continue
		}
		if c.Usage.CompletionTokens != nil {
			q.gen = *c.Usage.CompletionTokens
		}
		if c.Usage.PromptTokens != nil {
			q.prompt = *c.Usage.PromptTokens
		}
	}
	return text, nil
}

func genaiRun(mode string, value float64, reqs []genaiRequest, window []int64, s *source, k int, version, serviceKind, endpoint string, opts Options) (Run, error) {
	prov := &ingest.Provenance{Tool: "GenAI-Perf", Version: version, File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}}
	if mode == "concurrency" || mode == "request_rate" {
		if err := levelRange(s.path, 0, fmt.Sprintf("$.experiments[%d].experiment.value", k), value, mode == "request_rate"); err != nil {
			return Run{}, err
		}
	}
	switch mode {
	case "concurrency":
		if value >= 1 && value == math.Trunc(value) {
			run.Config.Load = ingest.ConcurrencyLoad(int(value))
		}
	case "request_rate":
		if value > 0 {
			run.Config.Load = ingest.RateLoad(value, "")
		}
	}
	run.Config.Load = opts.levelOr(run.Config.Load)
	for _, kv := range [][2]string{{"service_kind", serviceKind}, {"endpoint", endpoint}, {"model", payloadModel(reqs)}} {
		if kv[1] != "" {
			run.Env = append(run.Env, ingest.KV{Key: kv[0], Value: kv[1]})
		}
	}
	if len(window) >= 2 && window[len(window)-1] > window[0] {
		w := ingest.Window{Start: unixNs(window[0]), End: unixNs(window[len(window)-1]), Source: "run.yaml"}
		run.Config.Window = &w
	}
	t := newTable(columns{sent: true, first: true, last: true, status: true, maxTokens: true, textChunks: true, chunks: true}, len(reqs), opts.MaxRequests, s.path)
	t.where = func(i int, _ string) string { return fmt.Sprintf("$.experiments[%d].requests[%d]", k, i) }
	var withUsage, noPrompt, noResponse, zero, numbered int
	ids := map[string]bool{}
	for i, q := range reqs {
		row := newRow()
		var n bool
		if row.id, n = uniqueID(ids, q.id, fmt.Sprintf("%d-%d", k+1, i+1)); n {
			numbered++
		}
		row.sent = float64(q.sentNs) / 1e9
		row.prompt, row.maxTokens = q.prompt, q.maxTokens
		if q.prompt < 0 {
			noPrompt++
		}
		if q.gen >= 0 {
			withUsage++
			row.completion = q.gen
		} else {
			row.completion = q.maxTokens
		}
		switch {
		case q.responses == 0:
			noResponse++
			row.status = "no response"
			row.completion = -1
		case len(q.chunkNs) == 0:
			zero++
			row.completion, row.textChunks = 0, 0
		default:
			row.ttft = float64(q.chunkNs[0]-q.sentNs) / 1e6
			row.e2e = float64(q.chunkNs[len(q.chunkNs)-1]-q.sentNs) / 1e6
			row.first = float64(q.chunkNs[0]) / 1e9
			row.last = float64(q.chunkNs[len(q.chunkNs)-1]) / 1e9
			for _, c := range q.chunkNs {
				row.chunks = append(row.chunks, float64(c-q.sentNs)/1e6)
			}
			row.textChunks = int64(len(q.chunkNs))
			if row.ttft < 0 {
				return Run{}, &SourceError{File: s.path, Path: fmt.Sprintf("$.experiments[%d].requests[%d]", k, i), Msg: "a response arrived before the request was sent"}
			}
		}
		if err := t.add(&row); err != nil {
			return Run{}, err
		}
	}
	run.Requests, run.Excluded = t.q, t.excluded
	prov.Recomputed = []string{
		"TTFT from the request timestamp to the first chunk carrying text (role-only chunks skipped)",
		"E2E to the last chunk carrying text (the usage chunk and data: [DONE] are not tokens)",
		"chunk arrival times, t_request_sent, t_first_text and t_last_text from the nanosecond timestamps",
	}
	if zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d requests whose stream carried no text are zero-token requests", zero))
	}
	if noResponse > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d requests without any response are failed (status \"no response\")", noResponse))
	}
	prov.AsReported = []string{"prompt and completion tokens from the stream's usage chunk", "max_tokens from the request payload"}
	prov.TokenCounts = "usage"
	if withUsage < len(reqs) {
		prov.TokenCounts = "requested"
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("completion tokens: the stream's usage in %d of %d requests; the requested max_tokens in the others (no usage chunk)", withUsage, len(reqs)))
	}
	if noPrompt > 0 {
		prov.AsReported = append(prov.AsReported, fmt.Sprintf("%d requests without usage have no prompt token count, which benchnote requires: they are left out", noPrompt))
	}
	if numbered > 0 {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableRequestIDs)
		if numbered < len(reqs) {
			prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("request ids: %d of %d requests had no chunk id of their own (or shared one) and were numbered", numbered, len(reqs)))
		}
	}
	if run.Config.Window == nil {
		prov.Unavailable = append(prov.Unavailable, ingest.UnavailableWindow)
	} else {
		prov.AsReported = append(prov.AsReported, "the measurement window: perf_analyzer's window_boundaries, first to last")
	}
	prov.Definitions = []ingest.Definition{
		{Metric: "completion tokens", Source: "output_sequence_length counts the response text with the client tokenizer named in --tokenizer (another model's, unless set)",
			Benchnote: "the server's usage.completion_tokens, read from the stream"},
		{Metric: "ITL", Source: "(request latency − TTFT) / (output_sequence_length − 1), with the client tokenizer's count and the latency to the last response (usage chunk and [DONE] included)",
			Benchnote: "that is benchnote's TPOT, here with E2E at the last text-bearing chunk and n from usage; benchnote's mean ITL is Σ(E2E − TTFT) / Σ(n − 1), gap-weighted"},
		{Metric: "E2E", Source: "request_latency ends at the last response received, [DONE] included",
			Benchnote: "E2E ends at the last text-bearing chunk"},
	}
	return run, nil
}

// payloadModel is the model every request's payload names, "" when none
// does or they name different models (then no one model ran the level).
func payloadModel(reqs []genaiRequest) string {
	model := ""
	for _, q := range reqs {
		switch {
		case q.model == "":
		case model == "":
			model = q.model
		case q.model != model:
			return ""
		}
	}
	return model
}
