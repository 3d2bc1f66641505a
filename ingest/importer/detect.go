package importer

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/benchnote/benchnote/internal/controls"
)

// detectPrefix is how much of a file is read to recognise its format: the
// keys that tell the formats apart all come within the first values.
const detectPrefix = 1 << 20

// shape is what the first bytes of a JSON file show: the kind of its top
// value, the member names met (as paths: "backend", "experiments[].experiment.mode")
// down to depth 3, following only the first element of arrays, and short
// scalar values at those paths.
type shape struct {
	top     jsontext.Kind
	values  int // top-level values seen (JSON Lines have several)
	keys    map[string]bool
	scalars map[string]string
	// scalarOK is set when the first value is a scalar that parsed: a CSV
	// starting "time,..." peeks like the literal true, and is not JSON.
	scalarOK bool
	// broken is set when the first value could not be read and nothing of
	// it was recognised ("{hello", a CSV, YAML).
	broken bool
	// head is the file's first line, for messages about files that are
	// not JSON.
	head string
}

func (s *shape) has(keys ...string) bool {
	for _, k := range keys {
		if !s.keys[k] {
			return false
		}
	}
	return true
}

func (s *shape) any(keys ...string) bool {
	for _, k := range keys {
		if s.keys[k] {
			return true
		}
	}
	return false
}

// scanShape reads the shape of the JSON in data (which may be cut off).
func scanShape(data []byte) *shape {
	sc := &shapeScanner{
		sh:  &shape{keys: map[string]bool{}, scalars: map[string]string{}},
		dec: jsontext.NewDecoder(newPyJSON(bytes.NewReader(data)), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)),
	}
	sh, dec := sc.sh, sc.dec
	for {
		k := dec.PeekKind()
		if k == 0 {
			break
		}
		if sh.values == 0 {
			sh.top = k
		}
		sh.values++
		ok := sc.walk("", 0, sh.values == 1)
		if sh.values == 1 && sh.top == '"' && strings.HasPrefix(sh.scalars[""], pyLiteral) {
			sh.top = '0' // NaN, Infinity or a number too long to keep (see pyJSON)
		}
		if !ok {
			if sh.values == 1 && len(sh.keys) == 0 && !sh.scalarOK {
				sh.broken = true
			}
			break
		}
	}
	return sh
}

// shapeScanner is scanShape's walk over the values of the JSON.
type shapeScanner struct {
	sh  *shape
	dec *jsontext.Decoder
}

// walk reads the value at path (depth deep); only the first top-level
// value's keys and scalars, to depth 3, are noted. It returns false when
// the JSON ends or breaks.
func (sc *shapeScanner) walk(path string, depth int, first bool) bool {
	k := sc.dec.PeekKind()
	switch k {
	case '{':
		return sc.object(path, depth, first)
	case '[':
		return sc.array(path, depth, first)
	case 0:
		return false
	}
	v, err := sc.dec.ReadValue()
	if err != nil {
		return false
	}
	if first && depth == 0 {
		sc.sh.scalarOK = true
	}
	if first && len(v) <= 256 {
		s := string(v)
		if k == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				s = u
			}
		}
		sc.sh.scalars[path] = s
	}
	return true
}

// object reads an object at path, noting its keys and walking into its
// members.
func (sc *shapeScanner) object(path string, depth int, first bool) bool {
	dec := sc.dec
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		name := tok.String()
		p := name
		if path != "" {
			p = path + "." + name
		}
		if first {
			sc.sh.keys[p] = true
		}
		if depth < 3 && first {
			if !sc.walk(p, depth+1, true) {
				return false
			}
		} else if dec.SkipValue() != nil {
			return false
		}
	}
	_, err := dec.ReadToken()
	return err == nil
}

// array reads an array at path, walking into its first element (as
// path[]) and skipping the others.
func (sc *shapeScanner) array(path string, depth int, first bool) bool {
	dec := sc.dec
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		if i == 0 && depth < 3 && first {
			if !sc.walk(path+"[]", depth+1, true) {
				return false
			}
		} else if dec.SkipValue() != nil {
			return false
		}
	}
	_, err := dec.ReadToken()
	return err == nil
}

// detection is what the first bytes of a file say.
type detection struct {
	format Format
	shape  *shape
	// notJSON is set when the first non-blank byte opens no JSON object
	// or array: a file found in a directory is then not listed at all.
	notJSON bool
	// matches lists the formats of a file that matches several.
	matches []Format
}

// detectHead names the format of a file from its first bytes, or returns
// a *SourceError saying why it is none benchnote imports, or which ones
// it matches when it matches several.
func detectHead(path string, head []byte) (detection, error) {
	data := head[:min(len(head), detectPrefix)]
	d := detection{shape: scanShape(data), notJSON: !opensJSON(data)}
	d.shape.head = firstLine(data)
	format, why, matches := detect(d.shape)
	d.format, d.matches = format, matches
	switch {
	case len(matches) > 1:
		return d, &SourceError{File: path, Msg: why}
	case format == "":
		return d, &SourceError{File: path, Msg: "not a result file benchnote can import: " + why}
	}
	return d, nil
}

// opensJSON reports whether the first non-blank byte of data opens a JSON
// object or array: directories given to import hold CSVs, logs and plots
// too, which are not result files.
func opensJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// formatNames names each format for messages.
var formatNames = map[Format]string{
	FormatVLLM:           "vLLM",
	FormatVLLMSweepIndex: "vLLM sweep summary",
	FormatSGLang:         "SGLang",
	FormatGenAIPerf:      "GenAI-Perf",
	FormatPerfSummary:    "GenAI-Perf/AIPerf summary",
	FormatAIPerf:         "AIPerf",
	FormatGuideLLM:       "GuideLLM",
	FormatLLMPerf:        "LLMPerf",
	FormatLLMPerfSummary: "LLMPerf summary",
	FormatInferencePerf:  "inference-perf",
	FormatInferenceStage: "inference-perf stage report",
	FormatGenAIBench:     "genai-bench",
	FormatGenAIBenchMeta: "genai-bench experiment metadata",
	FormatAIPerfGPU:      "GPU telemetry",
	FormatAIPerfServer:   "server metrics",
	FormatLLMD:           "llm-d Benchmark Report",
}

// signature is what a format's files show in their first bytes.
type signature struct {
	format Format
	match  func(sh *shape) bool
}

// objectSignatures and arraySignatures recognise the formats whose top
// value is an object or an array. Every signature is tried: a file that
// shows two formats' members is ambiguous, and refused rather than read
// as whichever comes first.
var objectSignatures = []signature{
	{FormatGenAIPerf, func(sh *shape) bool {
		return sh.has("experiments") && sh.any("experiments[].requests", "experiments[].experiment")
	}},
	{FormatGuideLLM, func(sh *shape) bool {
		return sh.has("benchmarks") && (sh.any("metadata", "args", "config") || sh.scalars["benchmarks[].type_"] == "generative_benchmark")
	}},
	{FormatAIPerf, func(sh *shape) bool {
		return sh.has("metadata", "metrics") && sh.any("metadata.request_start_ns", "metadata.benchmark_phase", "metadata.timestamp_ns", "metadata.credit_phase")
	}},
	{FormatInferenceStage, func(sh *shape) bool { return sh.has("load_summary") && sh.any("successes", "failures") }},
	{FormatAIPerfGPU, aiperfGPUSignature},
	{FormatAIPerfServer, aiperfServerSignature},
	{FormatLLMPerfSummary, func(sh *shape) bool {
		return sh.any("results_ttft_s_mean", "results_num_completed_requests") && sh.any("num_concurrent_requests", "version")
	}},
	// SGLang and vLLM write the same result object; SGLang's carries
	// dataset_name or total_output_tokens_retokenized and no model_id or date.
	{FormatSGLang, func(sh *shape) bool {
		return servingSignature(sh) && sh.any("dataset_name", "total_output_tokens_retokenized") && !sh.any("model_id", "date")
	}},
	{FormatVLLM, func(sh *shape) bool {
		return servingSignature(sh) && !(sh.any("dataset_name", "total_output_tokens_retokenized") && !sh.any("model_id", "date"))
	}},
	// llm-d Benchmark Reports: v0.2's run and results, v0.1's scenario
	// and metrics, each with its version.
	{FormatLLMD, func(sh *shape) bool {
		return sh.has("version") && (sh.has("run", "results") || sh.has("scenario", "metrics"))
	}},
	{FormatPerfSummary, func(sh *shape) bool {
		return sh.any("time_to_first_token", "request_latency", "request_throughput") &&
			sh.any("time_to_first_token.unit", "request_latency.unit", "request_throughput.unit") ||
			aiperfSummarySignature(sh)
	}},
	{FormatGenAIBench, func(sh *shape) bool {
		return sh.has("aggregated_metrics") && sh.any("individual_request_metrics", "aggregated_metrics.iteration_type", "aggregated_metrics.stats")
	}},
	{FormatGenAIBenchMeta, func(sh *shape) bool {
		return sh.has("benchmark_version", "api_backend") && sh.any("iteration_type", "num_concurrency", "traffic_scenario")
	}},
}

var arraySignatures = []signature{
	{FormatLLMPerf, func(sh *shape) bool { return sh.any("[].ttft_s", "[].end_to_end_latency_s", "[].error_code") }},
	{FormatInferencePerf, func(sh *shape) bool {
		return sh.has("[].start_time", "[].end_time") && sh.any("[].info", "[].info.response_metrics")
	}},
	{FormatVLLMSweepIndex, func(sh *shape) bool { return sh.has("[].backend") && sh.any("[].run_number", "[].request_rate") }},
}

// formatOrder is f's place in Formats (the sweep index, not a --format
// value, last).
func formatOrder(f Format) int {
	if i := slices.Index(Formats, f); i >= 0 {
		return i
	}
	return len(Formats)
}

// ambiguous is the message for a file matching the formats found.
func ambiguous(found []Format) string {
	// Named in --format's order, whatever order they were tried in.
	slices.SortStableFunc(found, func(a, b Format) int { return formatOrder(a) - formatOrder(b) })
	var names []string
	for _, f := range found {
		names = append(names, fmt.Sprintf("%s (--format %s)", formatNames[f], f))
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	if len(names) == 2 {
		list = "both " + list
	}
	return fmt.Sprintf("matches %s: pass --format to say which it is", list)
}

// memberSignatures recognise the object formats by their top-level
// members alone. Detection sees only a file's first MiB: a member of a
// second format after a vLLM result's per-request arrays (a script that
// merged two results) comes later, and the readers of the large formats
// check the members they met against these once the whole object is read.
// A member counts with the kind of value its format gives it: vllm bench
// serve --metadata adds members of any name, with string values.
// GenAI-Perf's and AIPerf's summaries are left out: vLLM results have a
// request_throughput member too.
var memberSignatures = []struct {
	format Format
	match  func(m map[string]jsontext.Kind) bool
}{
	{FormatVLLM, func(m map[string]jsontext.Kind) bool {
		return m["backend"] == '"' && (m["request_rate"] != 0 || m["max_concurrency"] != 0)
	}},
	{FormatGenAIPerf, func(m map[string]jsontext.Kind) bool { return m["experiments"] == '[' }},
	{FormatGuideLLM, func(m map[string]jsontext.Kind) bool { return m["benchmarks"] == '[' }},
	{FormatAIPerf, func(m map[string]jsontext.Kind) bool { return m["metadata"] == '{' && m["metrics"] == '{' }},
	{FormatInferenceStage, func(m map[string]jsontext.Kind) bool { return m["load_summary"] == '{' }},
	{FormatLLMPerfSummary, func(m map[string]jsontext.Kind) bool {
		return m["results_ttft_s_mean"] == '0' || m["results_num_completed_requests"] == '0'
	}},
	{FormatGenAIBench, func(m map[string]jsontext.Kind) bool {
		return m["aggregated_metrics"] == '{' && m["individual_request_metrics"] == '['
	}},
}

// checkMembers refuses an object of s's detected format whose top-level
// members (all of them, read to the end, with the kind of their values)
// also make it another format's; a format --format named is taken as
// said. record is the line of a JSON Lines file, 0 for one object.
func checkMembers(s *source, record int, members map[string]jsontext.Kind) error {
	if s.forced {
		return nil
	}
	own := s.format
	if own == FormatSGLang {
		own = FormatVLLM // the same result object
	}
	found := []Format{s.format}
	for _, sig := range memberSignatures {
		if sig.format != own && sig.match(members) {
			found = append(found, sig.format)
		}
	}
	if len(found) == 1 {
		return nil
	}
	return &SourceError{File: s.path, Record: record, Msg: ambiguous(found)}
}

// servingSignature matches a vLLM or SGLang serving result.
func servingSignature(sh *shape) bool {
	return sh.has("backend") && sh.any("request_rate", "max_concurrency")
}

// detect names the format of a shape, or says why none fits, or which
// formats it matches when it matches several (listed in matches).
func detect(sh *shape) (format Format, why string, matches []Format) {
	if sh.broken {
		return "", notJSON(sh), nil
	}
	var sigs []signature
	switch sh.top {
	case '{':
		sigs = objectSignatures
	case '[':
		sigs = arraySignatures
	}
	var found []Format
	for _, sig := range sigs {
		if sig.match(sh) {
			found = append(found, sig.format)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], "", found
	case len(found) > 1:
		return "", ambiguous(found), found
	}
	switch sh.top {
	case '{':
		return "", fmt.Sprintf("a JSON object with members %s, which match no known tool's result", keyList(sh)), nil
	case '[':
		if sh.scalars["[]"] == "" && len(sh.keys) == 0 {
			return "", "an empty JSON array", nil
		}
		return "", fmt.Sprintf("a JSON array of objects with members %s, which match no known tool's result", keyList(sh)), nil
	case '"', '0', 'n', 't', 'f':
		if sh.scalarOK {
			return "", "a lone JSON value (" + strings.TrimPrefix(kindName(sh.top), "a ") + "), not an object or array", nil
		}
	}
	return "", notJSON(sh), nil
}

// notJSON says that a file is not JSON, quoting its first line.
func notJSON(sh *shape) string {
	if sh.head == "" {
		return "empty (or only blank lines)"
	}
	return fmt.Sprintf("not JSON (it begins %s): benchnote imports the JSON, JSON Lines and YAML result files of each tool (docs/import.md), not its CSV or console output", quoteShort(sh.head))
}

// firstLine returns the first non-blank line of data, trimmed.
func firstLine(data []byte) string {
	for line := range bytes.Lines(data) {
		if t := strings.TrimSpace(string(line)); t != "" {
			return t
		}
	}
	return ""
}

// keyList lists a shape's top-level member names, for messages.
func keyList(sh *shape) string {
	var ks []string
	for k := range sh.keys {
		if !strings.Contains(strings.TrimPrefix(k, "[]."), ".") {
			ks = append(ks, strings.TrimPrefix(k, "[]."))
		}
	}
	if len(ks) == 0 {
		return "(none)"
	}
	sort.Strings(ks)
	if len(ks) > 8 {
		ks = append(ks[:8], "...")
	}
	for i, k := range ks {
		ks[i] = controls.Escape(k)
	}
	return strings.Join(ks, ", ")
}
