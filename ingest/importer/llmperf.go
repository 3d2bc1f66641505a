package importer

// LLMPerf results, followed from ray-project/llmperf @ f1d6bed
// (token_benchmark_ray.py, src/llmperf/ray_clients/openai_chat_completions_client.py)
// and the real files of ray-project/llmperf-leaderboard @ 27aa9b6a:
//   - <name>_individual_responses.json: a list of per-request records in
//     completion order, without ids or send times: error_code, error_msg,
//     ttft_s, end_to_end_latency_s, inter_token_latency_s,
//     request_output_throughput_token_per_s, number_input_tokens,
//     number_output_tokens, number_total_tokens (error records may add
//     GEN_TEXT). Token counts come from the client's LlamaTokenizerFast
//     (hf-internal-testing/llama-tokenizer). error_code -100 is the
//     client's own "Output too few tokens" check, with full timings.
//   - <name>_summary.json: "version": "2023-08-31", num_concurrent_requests
//     and results_<metric>_{mean, quantiles_pNN, min, max, stddev};
//     results_error_code_frequency is a stringified Python dict.

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

// llmperfTooFewTokens is the status of LLMPerf's own check (error_code −100).
const llmperfTooFewTokens = "client: too few tokens"

// llmperfSummaryVersion is the only summary version LLMPerf has written.
const llmperfSummaryVersion = "2023-08-31"

func importLLMPerf(r io.Reader, s *source, companions []*source, opts Options) ([]Run, error) {
	j := newJSONIn(r, s.path)
	t := newTable(columns{status: true}, 1024, opts.MaxRequests, s.path)
	t.where = func(i int, _ string) string { return fmt.Sprintf("$[%d]", i) }
	var tooFew, failed, zero int
	err := j.array(func(i int) error {
		if i >= opts.MaxRequests {
			return j.errorf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", opts.MaxRequests)
		}
		row := newRow()
		var code float64 = math.NaN()
		var msg string
		var ttft, e2e float64 = math.NaN(), math.NaN()
		err := j.object(func(name string) error {
			var err error
			switch name {
			case "error_code":
				code, err = j.optNumber()
			case "error_msg":
				msg, err = j.scalarText()
			case "ttft_s":
				ttft, err = j.optNumber()
			case "end_to_end_latency_s":
				e2e, err = j.optNumber()
			case "number_input_tokens":
				row.prompt, err = j.optCount()
			case "number_output_tokens":
				row.completion, err = j.optCount()
			default:
				err = j.skip()
			}
			return err
		})
		if err != nil {
			return err
		}
		timed := !math.IsNaN(ttft) && !math.IsInf(ttft, 0) && ttft > 0 && !math.IsNaN(e2e) && !math.IsInf(e2e, 0) && e2e >= ttft
		switch {
		case code == -100:
			tooFew++
			row.status = llmperfTooFewTokens
		case !math.IsNaN(code):
			failed++
			row.status = fmt.Sprintf("error %s", strconv.FormatFloat(code, 'g', -1, 64))
			if msg != "" {
				row.status += ": " + lastLine(msg)
			}
		case row.completion == 0 || !timed:
			zero++
			row.completion = 0
			timed = false
		}
		if timed {
			row.ttft, row.e2e = ms(ttft), ms(e2e)
		}
		return t.add(&row)
	})
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	prov := &ingest.Provenance{Tool: "LLMPerf", Version: "not recorded in the individual responses", File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}, Requests: t.q, Excluded: t.excluded}
	if len(companions) == 1 {
		sum, err := readLLMPerfSummaryFile(companions[0])
		if err != nil {
			return nil, err
		}
		prov.Version = "summary " + sum.version
		run.Config.Load, run.Env, run.traits = sum.level, sum.env, sum.traits
		prov.Reported = sum.figures
	} else {
		prov.AsReported = append(prov.AsReported, "no <name>_summary.json with the responses: the level comes from --level and the tool's own figures are not shown")
	}
	run.Config.Load = opts.levelOr(run.Config.Load)
	prov.Recomputed = []string{
		fmt.Sprintf("status from error_code: %d records of the client's own \"Output too few tokens\" check (code −100) are %q, with their timings kept; %d other errors", tooFew, llmperfTooFewTokens, failed),
		"request ids: numbered in file order (completion order)",
	}
	if zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d records without output or timings are zero-token requests", zero))
	}
	prov.AsReported = append([]string{"TTFT (ttft_s) and E2E (end_to_end_latency_s, to the end of the stream)", "token counts (number_input_tokens, number_output_tokens)"}, prov.AsReported...)
	prov.Unavailable = []string{ingest.UnavailableRequestIDs, ingest.UnavailableSendTime, ingest.UnavailableSendOrder, ingest.UnavailableWindow, ingest.UnavailablePerGapITL}
	prov.TokenCounts = "tokenizer:hf-internal-testing/llama-tokenizer"
	prov.Definitions = llmperfDefinitions
	return []Run{run}, nil
}

// llmperfSummary is what benchnote reads of <name>_summary.json.
type llmperfSummary struct {
	version string
	level   ingest.LoadLevel
	figures []ingest.ReportedFigure
	env     []ingest.KV
	// traits are the model, the framework (the serving provider, as the
	// backend) and the requested mean lengths.
	traits traits
}

var llmperfFigure = regexp.MustCompile(`^results_(ttft_s|end_to_end_latency_s|inter_token_latency_s|request_output_throughput_token_per_s|number_output_tokens|number_input_tokens)_(mean|quantiles_p\d+|min|max)$`)

func readLLMPerfSummaryFile(s *source) (*llmperfSummary, error) {
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLLMPerfSummary(newJSONIn(f, s.path))
}

// readLLMPerfSummary reads an LLMPerf summary: its version, model and
// framework, its level and the tool's figures.
func readLLMPerfSummary(j *jsonIn) (*llmperfSummary, error) {
	rd := &llmperfSummaryReader{j: j, sum: &llmperfSummary{}, nums: map[string]float64{}}
	err := j.object(rd.member)
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return nil, err
	}
	sum := rd.sum
	if sum.version != llmperfSummaryVersion {
		return nil, &SourceError{File: j.file, Path: "$.version", Msg: fmt.Sprintf("LLMPerf summary version %q is not supported (benchnote reads version %s)", sum.version, llmperfSummaryVersion)}
	}
	sum.setTraits(rd.nums)
	if c := rd.nums["num_concurrent_requests"]; c >= 1 && c == math.Trunc(c) {
		sum.level = ingest.ConcurrencyLoad(int(c))
	}
	sum.addFigures(rd.nums, rd.order)
	return sum, nil
}

// llmperfSummaryReader reads the members of an LLMPerf summary: the texts
// into sum, the numbers (also those written as text) into nums, in the
// order of order.
type llmperfSummaryReader struct {
	j     *jsonIn
	sum   *llmperfSummary
	nums  map[string]float64
	order []string
}

// member reads one member of the summary; a member neither number nor
// text is skipped.
func (rd *llmperfSummaryReader) member(name string) error {
	j := rd.j
	switch j.peek() {
	case '0':
		v, err := j.number()
		rd.nums[name] = v
		rd.order = append(rd.order, name)
		if err == nil && name == "num_concurrent_requests" {
			err = j.checkLevel(v, false)
		}
		return err
	case '"':
		return rd.text(name)
	}
	return j.skip()
}

// text reads a member written as text: Python's NaN or Infinity (no
// figure), the version, an environment key, or a number.
func (rd *llmperfSummaryReader) text(name string) error {
	j := rd.j
	v, err := j.rawString()
	if lit, ok := strings.CutPrefix(v, pyLiteral); ok && err == nil {
		// Python's NaN or Infinity: no figure to show.
		if what, wrong, long := longNumber(lit); long {
			return j.errorf("%s %s", what, wrong)
		}
		return nil
	}
	switch name {
	case "version":
		rd.sum.version = v
	case "model", "framework", "model_size", "name":
		rd.sum.env = append(rd.sum.env, ingest.KV{Key: name, Value: v})
	default:
		if f, perr := strconv.ParseFloat(v, 64); perr == nil {
			rd.nums[name] = f
			rd.order = append(rd.order, name)
			if name == "num_concurrent_requests" {
				err = j.checkLevel(f, false)
			}
		}
	}
	return err
}

// setTraits takes the series traits from the model, the framework and
// the mean token lengths.
func (sum *llmperfSummary) setTraits(nums map[string]float64) {
	for _, kv := range sum.env {
		switch kv.Key {
		case "model":
			sum.traits.add("model", kv.Value, "model")
		case "framework":
			sum.traits.add("backend", kv.Value, "framework")
		}
	}
	for _, m := range []struct{ member, label string }{{"mean_input_tokens", "input_len"}, {"mean_output_tokens", "output_len"}} {
		if v, ok := nums[m.member]; ok && !math.IsNaN(v) {
			sum.traits.add(m.label, numberText(v), m.member)
		}
	}
}

// addFigures adds the tool's figures: each statistic of each metric, in
// the file's order, then the counts and the mean output throughput.
func (sum *llmperfSummary) addFigures(nums map[string]float64, order []string) {
	metric := map[string]struct{ key, label, unit string }{
		"ttft_s":                                {"ttft", "TTFT", "ms"},
		"end_to_end_latency_s":                  {"e2e", "end-to-end latency", "ms"},
		"inter_token_latency_s":                 {"tpot", "inter-token latency", "ms"},
		"request_output_throughput_token_per_s": {"user_tps", "output throughput per request", "tokens/s"},
		"number_output_tokens":                  {"output_tokens", "output tokens", "tokens"},
		"number_input_tokens":                   {"prompt_tokens", "input tokens", "tokens"},
	}
	for _, name := range order {
		m := llmperfFigure.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		mt := metric[m[1]]
		stat := m[2]
		if p, ok := cutPrefix(stat, "quantiles_"); ok {
			stat = p
		}
		v := nums[name]
		if mt.unit == "ms" {
			v *= 1000
		}
		note := ""
		switch mt.key {
		case "tpot":
			note = "LLMPerf's per-request inter-token latency includes TTFT and divides by n: not benchnote's TPOT"
		case "e2e":
			note = "to the end of the stream"
		}
		sum.figures = append(sum.figures, ingest.ReportedFigure{Key: mt.key + "." + stat, Label: stat + " " + mt.label, Value: v, Unit: mt.unit, Note: note})
	}
	for _, c := range []struct{ member, key, label, unit string }{
		{"results_num_completed_requests", "counts.successful", "completed requests", "requests"},
		{"results_number_errors", "counts.errors", "errors", "requests"},
		{"results_mean_output_throughput_token_per_s", "throughput.client_output_tokens_per_s", "mean output throughput", "tokens/s"},
	} {
		if v, ok := nums[c.member]; ok {
			sum.figures = append(sum.figures, ingest.ReportedFigure{Key: c.key, Label: c.label, Value: v, Unit: c.unit})
		}
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// importLLMPerfSummary imports a summary on its own: the tool's figures.
func importLLMPerfSummary(r io.Reader, s *source, opts Options) ([]Run, error) {
	sum, err := readLLMPerfSummary(newJSONIn(r, s.path))
	if err != nil {
		return nil, err
	}
	prov := &ingest.Provenance{Tool: "LLMPerf", Version: "summary " + sum.version, File: filepath.Base(s.path), Reported: sum.figures}
	prov.AsReported = []string{"every figure: the summary holds aggregates only; nothing can be recomputed"}
	prov.Unavailable = unavailableWithoutRecords()
	prov.TokenCounts = "tokenizer:hf-internal-testing/llama-tokenizer"
	prov.Definitions = llmperfDefinitions
	run := Run{Config: ingest.RunConfig{Load: sum.level, Provenance: prov}, Env: sum.env, traits: sum.traits}
	run.Config.Load = opts.levelOr(run.Config.Load)
	return []Run{run}, nil
}

// llmperfDefinitions are how LLMPerf defines what benchnote recomputes.
var llmperfDefinitions = []ingest.Definition{
	{Metric: "success", Source: "error_code −100 (\"Output too few tokens\") is LLMPerf's own check on the output length; the request itself completed",
		Benchnote: "it is kept with its status and timings, but as a failed request it is not a latency sample"},
	{Metric: "E2E", Source: "end_to_end_latency_s ends when the stream is closed, after [DONE]",
		Benchnote: "E2E ends at the last text-bearing chunk; here taken as reported, so it includes the stream's tail"},
	{Metric: "ITL", Source: "inter_token_latency_s is the sum of gaps between text chunks, TTFT included, divided by the output tokens",
		Benchnote: "TPOT is (E2E − TTFT) / (n − 1); mean ITL is Σ(E2E − TTFT) / Σ(n − 1)"},
	{Metric: "completion tokens", Source: "the generated text re-tokenized with the Llama tokenizer hf-internal-testing/llama-tokenizer, whatever the model",
		Benchnote: "the server's usage.completion_tokens"},
	{Metric: "percentiles", Source: "pandas quantiles (linear interpolation)",
		Benchnote: "the sweep's percentile method (nearest rank unless sweep.yaml says linear)"},
}
