package importer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
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
	sh := &shape{keys: map[string]bool{}, scalars: map[string]string{}}
	dec := jsontext.NewDecoder(newPyJSON(bytes.NewReader(data)), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var walk func(path string, depth int, first bool) bool
	walk = func(path string, depth int, first bool) bool {
		k := dec.PeekKind()
		switch k {
		case '{':
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
					sh.keys[p] = true
				}
				if depth < 3 && first {
					if !walk(p, depth+1, true) {
						return false
					}
				} else if dec.SkipValue() != nil {
					return false
				}
			}
			_, err := dec.ReadToken()
			return err == nil
		case '[':
			if _, err := dec.ReadToken(); err != nil {
				return false
			}
			for i := 0; dec.PeekKind() != ']'; i++ {
				if i == 0 && depth < 3 && first {
					if !walk(path+"[]", depth+1, true) {
						return false
					}
				} else if dec.SkipValue() != nil {
					return false
				}
			}
			_, err := dec.ReadToken()
			return err == nil
		case 0:
			return false
		}
		v, err := dec.ReadValue()
		if err != nil {
			return false
		}
		if first && depth == 0 {
			sh.scalarOK = true
		}
		if first && len(v) <= 256 {
			s := string(v)
			if k == '"' {
				if u, err := strconv.Unquote(s); err == nil {
					s = u
				}
			}
			sh.scalars[path] = s
		}
		return true
	}
	for {
		k := dec.PeekKind()
		if k == 0 {
			break
		}
		if sh.values == 0 {
			sh.top = k
		}
		sh.values++
		if !walk("", 0, sh.values == 1) {
			if sh.values == 1 && len(sh.keys) == 0 && !sh.scalarOK {
				sh.broken = true
			}
			break
		}
	}
	return sh
}

// detectFile reads the start of a file and names its format, or explains
// why it is not one benchnote imports.
func detectFile(path string) (Format, *shape, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, detectPrefix))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	sh := scanShape(data)
	sh.head = firstLine(data)
	format, why := detect(sh)
	if format == "" {
		return "", sh, &SourceError{File: path, Msg: "not a result file benchnote can import: " + why}
	}
	return format, sh, nil
}

// detect names the format of a shape, or says why none fits.
func detect(sh *shape) (Format, string) {
	if sh.broken {
		return "", notJSON(sh)
	}
	switch sh.top {
	case '{':
		switch {
		case sh.has("experiments") && sh.any("experiments[].requests", "experiments[].experiment"):
			return FormatGenAIPerf, ""
		case sh.has("benchmarks") && (sh.any("metadata", "args", "config") || sh.scalars["benchmarks[].type_"] == "generative_benchmark"):
			return FormatGuideLLM, ""
		case sh.has("metadata", "metrics") && sh.any("metadata.request_start_ns", "metadata.benchmark_phase"):
			return FormatAIPerf, ""
		case sh.has("load_summary") && sh.any("successes", "failures"):
			return FormatInferenceStage, ""
		case sh.any("results_ttft_s_mean", "results_num_completed_requests") && sh.any("num_concurrent_requests", "version"):
			return FormatLLMPerfSummary, ""
		case sh.has("backend") && sh.any("request_rate", "max_concurrency"):
			if sh.any("dataset_name", "total_output_tokens_retokenized") && !sh.any("model_id", "date") {
				return FormatSGLang, ""
			}
			return FormatVLLM, ""
		case sh.any("time_to_first_token", "request_latency", "request_throughput") &&
			(sh.any("time_to_first_token.unit", "request_latency.unit", "request_throughput.unit")):
			return FormatPerfSummary, ""
		}
		return "", fmt.Sprintf("a JSON object with members %s, which match no known tool's result", keyList(sh))
	case '[':
		switch {
		case sh.any("[].ttft_s", "[].end_to_end_latency_s", "[].error_code"):
			return FormatLLMPerf, ""
		case sh.has("[].start_time", "[].end_time") && sh.any("[].info", "[].info.response_metrics"):
			return FormatInferencePerf, ""
		case sh.has("[].backend") && sh.any("[].run_number", "[].request_rate"):
			return FormatVLLMSweepIndex, ""
		case sh.scalars["[]"] == "" && len(sh.keys) == 0:
			return "", "an empty JSON array"
		}
		return "", fmt.Sprintf("a JSON array of objects with members %s, which match no known tool's result", keyList(sh))
	case '"', '0', 'n', 't', 'f':
		if sh.scalarOK {
			return "", "a lone JSON value (" + strings.TrimPrefix(kindName(sh.top), "a ") + "), not an object or array"
		}
	}
	return "", notJSON(sh)
}

// notJSON says that a file is not JSON, quoting its first line.
func notJSON(sh *shape) string {
	if sh.head == "" {
		return "empty (or only blank lines)"
	}
	return fmt.Sprintf("not JSON (it begins %s): benchnote imports the JSON and JSON Lines result files of each tool (docs/import.md), not its CSV, YAML or console output", quoteShort(sh.head))
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
	return strings.Join(ks, ", ")
}
