package ingest

import (
	"bytes"
	"regexp"
	"strings"
)

// Environment log formats, as reported in EnvSource.Format.
const (
	envFormatJSON          = "json"
	envFormatYAML          = "yaml"
	envFormatCollectEnv    = "collect_env"
	envFormatCollectEnvSec = "collect_env_sectioned"
	envFormatNvidiaSMI     = "nvidia-smi"
	envFormatVLLMLog       = "vllm-log"
	envFormatKeyValue      = "key-value"
	envFormatUnrecognised  = "unrecognised"
)

// Limits that keep hostile input (deep nesting, YAML alias bombs) cheap.
const (
	envMaxDepth = 64
	envMaxNodes = 100000
)

// ParseEnvFile recognises an environment log by its content and returns
// every key it holds together with the canonical fields (see
// CanonicalFields) it could extract. It never fails: a file that fits no
// format comes back with Format "unrecognised" and no keys. path is only
// recorded, never opened.
//
// Formats are tried in this order, and the first that fits wins:
//
//  1. json: a JSON object. Nested keys are joined with dots ("gpu.name");
//     arrays of scalars become one value joined with ", ", arrays holding
//     objects or arrays are indexed ("gpus.0.name").
//  2. collect_env_sectioned: `vllm collect-env` (vLLM 0.9+), sections boxed
//     in "=====" lines with aligned "Key   : value".
//  3. collect_env: the older `python collect_env.py` output ("Key: value").
//     Both collect_env forms need at least three of collect_env's own keys
//     ("PyTorch version", "Is CUDA available", "vLLM Version", ...). Every
//     "Key: value" line, "[pip3] name==version" line and environment
//     variable line is kept; the tab-separated GPU topology matrix and
//     other free text (cuDNN file lists, legends) are not.
//  4. vllm-log: a vLLM server log (ANSI colour codes removed) with the
//     "vLLM API server version" banner, the "non-default args: {...}" dict,
//     the older "args: Namespace(...)" line or the "Initializing ... LLM
//     engine (v...) with config: ..." line. Only those lines and the
//     "Chunked prefill is enabled with max_num_batched_tokens=N" line are
//     kept, never the request or throughput lines, which change every run.
//  5. nvidia-smi: the plain `nvidia-smi` table. The driver and CUDA
//     versions, each GPU's name and total memory are kept; timestamps,
//     temperatures, utilisation and processes are not.
//  6. yaml: a YAML mapping of at most MaxYAMLBytes, flattened like JSON.
//     Scalars keep the text written in the file ("12.10" stays "12.10").
//     Anchors, aliases and merge keys are followed, up to 100,000 values;
//     a key given twice keeps its first value; only the first document is
//     read. Each of these is reported in EnvSource.Diagnostics.
//  7. key-value: lines of "key: value" or "key=value" (an optional
//     "export " is dropped); at least half of the non-blank, non-comment
//     lines must fit.
//
// Files holding NUL bytes are unrecognised. nvidia-smi --query-gpu and dmon
// CSV time series are unrecognised too: they are telemetry, not
// environment, and carry no GPU model, driver or CUDA version.
//
// Canonical values are taken only from what the file says: "Could not
// collect", "N/A", "None", "null", "unknown" and empty values are treated
// as absent. Where a file gives several candidates for one field, the
// precedence is:
//
//   - cuda: collect_env's "CUDA used to build PyTorch" (PyTorch wheels
//     bundle their own CUDA runtime, which is the one the engine loads),
//     then its "CUDA runtime version" (the system toolkit). nvidia-smi's
//     "CUDA Version" is the newest CUDA the driver supports; MergeEnv lets
//     it fill cuda but never override a value from another source.
//   - gpu: collect_env's "GPU n:" lines, else its one-line "GPU models and
//     configuration" value; a "(UUID: ...)" or ROCm "(gfx...)" suffix is
//     removed. Distinct models are joined with ", ". gpu_count is the
//     number of GPUs listed, and is left unset when the file names a model
//     without listing the GPUs.
//   - vllm-log: the argument line first, then the engine config line, then
//     (max_num_batched_tokens only) the chunked-prefill line. The version
//     comes from the banner, else from the engine config line.
//   - precision: a quantization other than None, else a dtype other than
//     "auto" (a "torch." prefix removed), else "auto".
//   - json, yaml, key-value: keys are compared lower-cased, with spaces and
//     dashes read as underscores. For each field the first name below that
//     the file has wins (the first such key in file order); a dotted key
//     ("server.args.max_num_seqs") also matches by its last part, but only
//     when no whole key matched:
//     gpu: gpu, gpu_name, gpu_model, gpu_type, gpu.name, gpu.model, gpu.type;
//     gpu_count: gpu_count, num_gpus, n_gpus, gpu.count;
//     driver: driver, driver_version, nvidia_driver_version, gpu.driver,
//     gpu.driver_version;
//     cuda: cuda, cuda_version, cuda_used_to_build_pytorch, cuda_runtime_version;
//     engine: engine, engine_name, engine.name;
//     engine_version: engine_version, engine.version, vllm_version,
//     vllm.version, sglang_version, sglang.version (the last four also set
//     engine when the file does not);
//     pytorch: pytorch, pytorch_version, torch, torch_version;
//     python: python, python_version;
//     model: model, model_name, model_id, model.name;
//     precision: precision, quantization, dtype, torch_dtype ("auto" last);
//     prefix_caching: prefix_caching, enable_prefix_caching;
//     max_num_seqs, max_num_batched_tokens, kv_cache_dtype, block_size:
//     their own names only.
//
// Values are normalised: engine is lower-cased, a leading "v" is removed
// from engine_version, python keeps only the version number, precision and
// kv_cache_dtype lose a "torch." prefix, and prefix_caching is "true" or
// "false". GPU names are kept as printed, so a
// name nvidia-smi truncated ("NVIDIA GeForce ...") stays truncated.
//
// A file is read as one format: a file holding, say, an nvidia-smi table
// followed by a server log is read as a vllm-log, and the table is not used.
func ParseEnvFile(data []byte, path string) EnvSource {
	src := EnvSource{Path: path, Format: envFormatUnrecognised, Keys: []KV{}, Canonical: map[string]string{}}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 || bytes.IndexByte(data, 0) >= 0 {
		return src
	}

	var p envParse
	switch {
	case p.json(data):
		src.Format = envFormatJSON
	default:
		text := envNormaliseText(data)
		lines := strings.Split(text, "\n")
		switch {
		case p.collectEnv(lines):
			src.Format = envFormatCollectEnv
			if envHasRule(lines) {
				src.Format = envFormatCollectEnvSec
			}
		case p.vllmLog(lines):
			src.Format = envFormatVLLMLog
		case p.nvidiaSMI(lines):
			src.Format = envFormatNvidiaSMI
		case p.yaml(data, path):
			src.Format = envFormatYAML
		case p.keyValue(lines):
			src.Format = envFormatKeyValue
		default:
			return src
		}
	}
	if p.keys != nil {
		src.Keys = p.keys
	}
	src.Diagnostics = p.diags
	for field, v := range p.canonical {
		src.Canonical[field] = v
	}
	return src
}

// MergeEnv merges a run's environment sources, given from the most general
// (the sweep root) to the most specific (the run directory). A later source
// extends the canonical fields and overrides the values it also has, with
// one exception: a cuda value from an nvidia-smi source (the driver's
// maximum CUDA version) never overrides one from another kind of source.
// Only the fields in CanonicalFields are merged. Missing lists, in
// CanonicalFields order, the fields no source provides.
func MergeEnv(sources []EnvSource) Environment {
	env := Environment{
		Sources:   append([]EnvSource{}, sources...),
		Canonical: map[string]string{},
		Missing:   []string{},
	}
	cudaFromSMI := false
	for _, src := range sources {
		for _, field := range CanonicalFields {
			v := src.Canonical[field]
			if v == "" {
				continue
			}
			if field == "cuda" {
				smi := src.Format == envFormatNvidiaSMI
				if _, have := env.Canonical[field]; have && smi && !cudaFromSMI {
					continue
				}
				cudaFromSMI = smi
			}
			env.Canonical[field] = v
		}
	}
	for _, field := range CanonicalFields {
		if _, ok := env.Canonical[field]; !ok {
			env.Missing = append(env.Missing, field)
		}
	}
	return env
}

// envParse accumulates the keys and canonical fields of one file.
type envParse struct {
	keys      []KV
	canonical map[string]string
	diags     []Diagnostic
}

func (p *envParse) add(key, value string) { p.keys = append(p.keys, KV{Key: key, Value: value}) }

// set records a canonical field unless it is already set or the value is
// one of the "not known" spellings. It reports whether the field is set
// afterwards.
func (p *envParse) set(field, value string) bool {
	if p.canonical == nil {
		p.canonical = map[string]string{}
	}
	if _, ok := p.canonical[field]; ok {
		return true
	}
	v, ok := envCanonicalValue(field, value)
	if ok {
		p.canonical[field] = v
	}
	return ok
}

// setFirst sets field from the first candidate that is known.
func (p *envParse) setFirst(field string, candidates ...string) {
	for _, c := range candidates {
		if p.set(field, c) {
			return
		}
	}
}

// first returns the first value of each key, for canonical look-ups.
func (p *envParse) first() map[string]string {
	m := make(map[string]string, len(p.keys))
	for _, kv := range p.keys {
		if _, ok := m[kv.Key]; !ok {
			m[kv.Key] = kv.Value
		}
	}
	return m
}

// envUnknown holds the spellings of "no value" (compared lower-cased).
var envUnknown = map[string]bool{
	"": true, "none": true, "null": true, "nil": true, "~": true, "n/a": true,
	"could not collect": true, "unknown": true,
}

var (
	envVersionRe    = regexp.MustCompile(`\d+\.\d+(?:\.\d+)*(?:[a-z]+\d*)?`)
	envGPUSuffixRe  = regexp.MustCompile(`\s*\((?:UUID: [^)]*|gfx[^)]*)\)\s*$`)
	envVersionVPref = regexp.MustCompile(`^[vV]\d`)
)

// envCanonicalValue cleans a candidate value for a canonical field and
// reports whether it carries information.
func envCanonicalValue(field, v string) (string, bool) {
	v = envUnquote(strings.TrimSpace(v))
	if envUnknown[strings.ToLower(v)] {
		return "", false
	}
	switch field {
	case "gpu":
		v = envGPUSuffixRe.ReplaceAllString(v, "")
	case "engine":
		v = strings.ToLower(v)
	case "engine_version":
		if envVersionVPref.MatchString(v) {
			v = v[1:]
		}
	case "python":
		if m := envVersionRe.FindString(v); m != "" {
			v = m
		}
	case "precision", "kv_cache_dtype":
		v = strings.TrimPrefix(v, "torch.")
	case "prefix_caching":
		switch strings.ToLower(v) {
		case "true", "yes", "on", "1", "enabled":
			v = "true"
		case "false", "no", "off", "0", "disabled":
			v = "false"
		}
	}
	if v == "" {
		return "", false
	}
	return v, true
}

// envUnquote removes one pair of matching surrounding quotes.
func envUnquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

var envANSIRe = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// envNormaliseText removes ANSI escape sequences and turns CRLF and lone CR
// (progress bars) into LF.
func envNormaliseText(data []byte) string {
	s := string(data)
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = envANSIRe.ReplaceAllString(s, "")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// Flattening nested documents (json, yaml): nested keys are joined with
// dots, arrays of scalars become one value.

// envElem is one flattened array element.
type envElem struct {
	kvs []KV
	// nested is true for an object or array element.
	nested bool
}

// envEmitArray writes an array: one joined value when every element is a
// scalar, the indexed elements otherwise.
func envEmitArray(prefix string, elems []envElem, keys *[]KV) {
	scalars := true
	for _, e := range elems {
		if e.nested || len(e.kvs) != 1 {
			scalars = false
			break
		}
	}
	if scalars {
		vals := make([]string, len(elems))
		for i, e := range elems {
			vals[i] = e.kvs[0].Value
		}
		*keys = append(*keys, KV{Key: prefix, Value: strings.Join(vals, ", ")})
		return
	}
	for _, e := range elems {
		*keys = append(*keys, e.kvs...)
	}
}

// envJoinKey is key under prefix, joined with a dot.
func envJoinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
