package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/internal/textfmt"
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

// --- JSON ---

func (p *envParse) json(data []byte) bool {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var keys []KV
	if _, err := envJSONValue(dec, "", 0, &keys); err != nil {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false // trailing data
	}
	p.keys = keys
	p.aliases()
	return true
}

// envJSONValue reads one JSON value, appends its flattened keys and
// reports whether it was an object or array.
func envJSONValue(dec *json.Decoder, prefix string, depth int, keys *[]KV) (nested bool, err error) {
	if depth > envMaxDepth {
		return false, fmt.Errorf("nesting deeper than %d", envMaxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := 0
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return true, err
				}
				k, ok := kt.(string)
				if !ok {
					return true, fmt.Errorf("object key is %T", kt)
				}
				if _, err := envJSONValue(dec, envJoinKey(prefix, k), depth+1, keys); err != nil {
					return true, err
				}
				n++
			}
			if _, err := dec.Token(); err != nil { // '}'
				return true, err
			}
			if n == 0 && prefix != "" {
				*keys = append(*keys, KV{Key: prefix, Value: ""})
			}
		case '[':
			var elems []envElem
			for i := 0; dec.More(); i++ {
				var sub []KV
				nested, err := envJSONValue(dec, envJoinKey(prefix, strconv.Itoa(i)), depth+1, &sub)
				if err != nil {
					return true, err
				}
				elems = append(elems, envElem{kvs: sub, nested: nested})
			}
			if _, err := dec.Token(); err != nil { // ']'
				return true, err
			}
			envEmitArray(prefix, elems, keys)
		default:
			return true, fmt.Errorf("unexpected %v", t)
		}
		return true, nil
	case string:
		*keys = append(*keys, KV{Key: prefix, Value: t})
	case json.Number:
		*keys = append(*keys, KV{Key: prefix, Value: t.String()})
	case bool:
		*keys = append(*keys, KV{Key: prefix, Value: strconv.FormatBool(t)})
	case nil:
		*keys = append(*keys, KV{Key: prefix, Value: "null"})
	}
	return false, nil
}

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

func envJoinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// --- YAML ---

func (p *envParse) yaml(data []byte, path string) bool {
	if len(data) > MaxYAMLBytes {
		return false
	}
	var doc, extra yaml.Node
	if !envYAMLUnmarshal(data, &doc, &extra) {
		return false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return false
	}
	root := doc.Content[0]
	for i := 0; root != nil && root.Kind == yaml.AliasNode && i < envMaxDepth; i++ {
		root = root.Alias
	}
	if root == nil || root.Kind != yaml.MappingNode || len(root.Content) == 0 {
		return false
	}
	y := envYAML{path: path, budget: envMaxNodes}
	var keys []KV
	y.mapping(root, "", 0, &keys)
	if y.budget <= 0 {
		y.warn(root, "aliases", fmt.Sprintf("YAML aliases expand to more than %s values; the rest of the file is not read", textfmt.Thousands(envMaxNodes)))
	}
	if extra.Kind != 0 {
		y.warn(&extra, "second document", "a second YAML document starts here; it is not read")
	}
	p.keys = keys
	p.diags = y.diags
	p.aliases()
	return true
}

// envYAMLUnmarshal parses the first document into doc and the start of a
// second one, if any, into extra. It guards against panics inside the
// YAML library, which has had them on malformed input; a panic there means
// "not YAML".
func envYAMLUnmarshal(data []byte, doc, extra *yaml.Node) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if dec.Decode(doc) != nil {
		return false
	}
	if dec.Decode(extra) != nil {
		*extra = yaml.Node{}
	}
	return true
}

// envYAML flattens one YAML environment log. Aliases and merge keys are
// followed (tools such as PyYAML write them for repeated values), within a
// budget of envMaxNodes values and envMaxDepth levels, so that an alias
// bomb costs at most that much.
type envYAML struct {
	path   string
	budget int
	diags  []Diagnostic
}

func (y *envYAML) warn(n *yaml.Node, reason, msg string) {
	y.diags = append(y.diags, Diagnostic{Severity: Warning, File: y.path, Line: n.Line, Column: n.Column, Reason: reason, Message: msg})
}

func (y *envYAML) mapping(n *yaml.Node, prefix string, depth int, keys *[]KV) {
	var first map[string]int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0) {
			// A merge key copies the keys of the mapping(s) it names.
			y.merge(v, prefix, depth+1, keys)
			continue
		}
		if first == nil {
			first = make(map[string]int, len(n.Content)/2)
		}
		if line, dup := first[k.Value]; dup {
			y.warn(k, "duplicate key", fmt.Sprintf("key %q given twice (first on line %d); this one is not read", envJoinKey(prefix, k.Value), line))
			continue
		}
		first[k.Value] = k.Line
		y.value(v, envJoinKey(prefix, k.Value), depth+1, keys)
	}
}

func (y *envYAML) merge(v *yaml.Node, prefix string, depth int, keys *[]KV) {
	if depth > envMaxDepth || y.budget <= 0 {
		return
	}
	y.budget--
	switch v.Kind {
	case yaml.AliasNode:
		if v.Alias != nil {
			y.merge(v.Alias, prefix, depth+1, keys)
		}
	case yaml.MappingNode:
		y.mapping(v, prefix, depth, keys)
	case yaml.SequenceNode:
		for _, c := range v.Content {
			y.merge(c, prefix, depth+1, keys)
		}
	}
}

func (y *envYAML) value(v *yaml.Node, prefix string, depth int, keys *[]KV) {
	if depth > envMaxDepth || y.budget <= 0 {
		return
	}
	y.budget--
	switch v.Kind {
	case yaml.AliasNode:
		if v.Alias != nil {
			y.value(v.Alias, prefix, depth+1, keys)
		}
	case yaml.ScalarNode:
		*keys = append(*keys, KV{Key: prefix, Value: v.Value})
	case yaml.MappingNode:
		if len(v.Content) == 0 {
			*keys = append(*keys, KV{Key: prefix, Value: ""})
			return
		}
		y.mapping(v, prefix, depth, keys)
	case yaml.SequenceNode:
		elems := make([]envElem, 0, len(v.Content))
		for i, c := range v.Content {
			for hops := 0; c.Kind == yaml.AliasNode && c.Alias != nil && hops < envMaxDepth; hops++ {
				c = c.Alias
			}
			var sub []KV
			y.value(c, envJoinKey(prefix, strconv.Itoa(i)), depth+1, &sub)
			elems = append(elems, envElem{kvs: sub, nested: c.Kind != yaml.ScalarNode})
		}
		envEmitArray(prefix, elems, keys)
	}
}

// --- canonical fields by key name (json, yaml, key-value) ---

// envAlias maps a normalised key to a canonical field. Lower rank wins.
type envAlias struct {
	field string
	rank  int
	// engine is the engine implied by an engine-specific version key.
	engine string
}

// envAliases lists, per canonical field, the key names that provide it, in
// order of preference.
var envAliases = func() map[string]envAlias {
	table := []struct {
		field string
		keys  []string
	}{
		{"gpu", []string{"gpu", "gpu_name", "gpu_model", "gpu_type", "gpu.name", "gpu.model", "gpu.type"}},
		{"gpu_count", []string{"gpu_count", "num_gpus", "n_gpus", "gpu.count"}},
		{"driver", []string{"driver", "driver_version", "nvidia_driver_version", "gpu.driver", "gpu.driver_version"}},
		{"cuda", []string{"cuda", "cuda_version", "cuda_used_to_build_pytorch", "cuda_runtime_version"}},
		{"engine", []string{"engine", "engine_name", "engine.name"}},
		{"engine_version", []string{"engine_version", "engine.version", "vllm_version", "vllm.version", "sglang_version", "sglang.version"}},
		{"pytorch", []string{"pytorch", "pytorch_version", "torch", "torch_version"}},
		{"python", []string{"python", "python_version"}},
		{"model", []string{"model", "model_name", "model_id", "model.name"}},
		{"precision", []string{"precision", "quantization", "dtype", "torch_dtype"}},
		{"max_num_seqs", []string{"max_num_seqs"}},
		{"max_num_batched_tokens", []string{"max_num_batched_tokens"}},
		{"kv_cache_dtype", []string{"kv_cache_dtype"}},
		{"block_size", []string{"block_size"}},
		{"prefix_caching", []string{"prefix_caching", "enable_prefix_caching"}},
	}
	m := map[string]envAlias{}
	for _, row := range table {
		for rank, k := range row.keys {
			a := envAlias{field: row.field, rank: rank}
			switch {
			case strings.HasPrefix(k, "vllm"):
				a.engine = "vllm"
			case strings.HasPrefix(k, "sglang"):
				a.engine = "sglang"
			}
			m[k] = a
		}
	}
	return m
}()

var envKeyReplacer = strings.NewReplacer(" ", "_", "-", "_")

// envNormaliseKey lower-cases a key and spells spaces and dashes as
// underscores.
func envNormaliseKey(k string) string {
	return envKeyReplacer.Replace(strings.ToLower(strings.TrimSpace(k)))
}

// aliases fills the canonical fields from the keys by name.
func (p *envParse) aliases() {
	type cand struct {
		rank  int
		value string
	}
	best := map[string]cand{}
	impliedEngine := ""
	consider := func(a envAlias, value string) {
		if _, ok := envCanonicalValue(a.field, value); !ok {
			return
		}
		// A quantization of "none" was skipped above; dtype "auto" only
		// counts when nothing better is known.
		rank := a.rank
		if a.field == "precision" && strings.EqualFold(envUnquote(strings.TrimSpace(value)), "auto") {
			rank += 100
		}
		if c, ok := best[a.field]; ok && c.rank <= rank {
			return
		}
		best[a.field] = cand{rank: rank, value: value}
		if a.field == "engine_version" {
			impliedEngine = a.engine
		}
	}
	for _, kv := range p.keys {
		if a, ok := envAliases[envNormaliseKey(kv.Key)]; ok {
			consider(a, kv.Value)
		}
	}
	// Dotted keys match by their last part, below any whole-key match.
	for _, kv := range p.keys {
		nk := envNormaliseKey(kv.Key)
		i := strings.LastIndexByte(nk, '.')
		if i < 0 {
			continue
		}
		if a, ok := envAliases[nk[i+1:]]; ok {
			a.rank += 1000
			consider(a, kv.Value)
		}
	}
	for _, field := range CanonicalFields {
		if c, ok := best[field]; ok {
			p.set(field, c.value)
		}
	}
	if impliedEngine != "" {
		p.set("engine", impliedEngine)
	}
}

// --- collect_env ---

// envCollectEnvMarkers are keys only collect_env output has.
var envCollectEnvMarkers = map[string]bool{
	"PyTorch version": true, "Is debug build": true, "CUDA used to build PyTorch": true,
	"ROCM used to build PyTorch": true, "Is CUDA available": true, "GPU models and configuration": true,
	"Nvidia driver version": true, "vLLM Version": true, "cuDNN version": true,
	"HIP runtime version": true, "MIOpen runtime version": true, "Is XNNPACK available": true,
}

var (
	envEnvVarRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	envPipRe    = regexp.MustCompile(`^\[([A-Za-z0-9_]+)\]\s*(.*)$`)
	envGPULine  = regexp.MustCompile(`^GPU (\d+)$`)
)

// envHasRule reports whether the text has a "=====" rule line.
func envHasRule(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if len(t) >= 10 && strings.Trim(t, "=") == "" {
			return true
		}
	}
	return false
}

// envColonKV splits "Key: value" (also "Key   : value" and "Key:") at the
// first colon.
func envColonKV(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 {
		return "", "", false
	}
	key = strings.TrimSpace(line[:i])
	if key == "" || len(key) > 80 {
		return "", "", false
	}
	return key, strings.TrimSpace(line[i+1:]), true
}

func (p *envParse) collectEnv(lines []string) bool {
	markers := map[string]bool{}
	for _, l := range lines {
		if k, _, ok := envColonKV(l); ok && envCollectEnvMarkers[k] {
			markers[k] = true
		}
	}
	if len(markers) < 3 {
		return false
	}
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		switch {
		case t == "", strings.Trim(t, "=") == "", strings.ContainsRune(raw, '\t'):
			// blank, rule, or the tab-separated GPU topology matrix
		case envEnvVarRe.MatchString(t):
			i := strings.IndexByte(t, '=')
			p.add(t[:i], t[i+1:])
		case envPipRe.MatchString(t):
			m := envPipRe.FindStringSubmatch(t)
			if i := strings.Index(m[2], "=="); i > 0 {
				p.add("["+m[1]+"] "+m[2][:i], m[2][i+2:])
			} else {
				p.add("["+m[1]+"]", m[2])
			}
		default:
			if k, v, ok := envColonKV(t); ok {
				p.add(k, v)
			}
		}
	}

	f := p.first()
	var names []string
	seen := map[string]bool{}
	count := 0
	for _, kv := range p.keys {
		if !envGPULine.MatchString(kv.Key) {
			continue
		}
		count++
		if name, ok := envCanonicalValue("gpu", kv.Value); ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if count > 0 {
		p.set("gpu", strings.Join(names, ", "))
		p.set("gpu_count", strconv.Itoa(count))
	} else if one := f["GPU models and configuration"]; one != "" {
		// A single GPU is printed on the key's own line:
		// "GPU models and configuration: GPU 0: NVIDIA L40S".
		if k, v, ok := strings.Cut(one, ":"); ok && envGPULine.MatchString(strings.TrimSpace(k)) {
			if name, ok := envCanonicalValue("gpu", strings.TrimSpace(v)); ok {
				p.set("gpu", name)
				p.set("gpu_count", "1")
			}
		} else {
			p.set("gpu", one)
		}
	}
	p.set("driver", f["Nvidia driver version"])
	p.setFirst("cuda", f["CUDA used to build PyTorch"], f["CUDA runtime version"])
	if p.set("engine_version", f["vLLM Version"]) {
		p.set("engine", "vllm")
	}
	p.set("pytorch", f["PyTorch version"])
	p.set("python", f["Python version"])
	return true
}

// --- nvidia-smi ---

var (
	envSMIHeaderRe = regexp.MustCompile(`NVIDIA-SMI\s+(\S+)\s+Driver Version:\s*(\S+)(?:\s+CUDA Version:\s*(\S+))?`)
	envSMIGPURe    = regexp.MustCompile(`^\|\s*(\d+)\s+(.*?)\s+(?:On|Off|N/A|WDDM|TCC)\s*\|\s*[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]`)
	envSMIMemRe    = regexp.MustCompile(`\|\s*\d+MiB\s*/\s*(\d+MiB)\s*\|`)
)

func (p *envParse) nvidiaSMI(lines []string) bool {
	header := -1
	for i, l := range lines {
		if envSMIHeaderRe.MatchString(l) {
			header = i
			break
		}
	}
	if header < 0 {
		return false
	}
	m := envSMIHeaderRe.FindStringSubmatch(lines[header])
	p.add("NVIDIA-SMI version", m[1])
	p.add("Driver Version", m[2])
	if m[3] != "" {
		p.add("CUDA Version", m[3])
	}
	var names []string
	seen := map[string]bool{}
	count := 0
	for i := header + 1; i < len(lines); i++ {
		g := envSMIGPURe.FindStringSubmatch(lines[i])
		if g == nil {
			continue
		}
		count++
		p.add("GPU "+g[1], g[2])
		if i+1 < len(lines) {
			if mem := envSMIMemRe.FindStringSubmatch(lines[i+1]); mem != nil {
				p.add("GPU "+g[1]+" memory total", mem[1])
			}
		}
		if name, ok := envCanonicalValue("gpu", g[2]); ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	p.set("driver", m[2])
	p.set("cuda", m[3])
	if count > 0 {
		p.set("gpu", strings.Join(names, ", "))
		p.set("gpu_count", strconv.Itoa(count))
	}
	return true
}

// --- vLLM server log ---

var (
	envVLLMBannerRe  = regexp.MustCompile(`vLLM API server version (\S+)`)
	envVLLMConfigRe  = regexp.MustCompile(`Initializing an? (?:V1 )?LLM engine (?:\(v([^)\s]*)\) )?with config: (.*)$`)
	envVLLMChunkedRe = regexp.MustCompile(`Chunked prefill is enabled with max_num_batched_tokens=(\d+)`)
)

const (
	envVLLMArgsDict      = "non-default args: {"
	envVLLMArgsNamespace = "args: Namespace("
)

func (p *envParse) vllmLog(lines []string) bool {
	var banner, cfgVersion, chunked string
	args := map[string]string{}
	cfg := map[string]string{}
	haveArgs, haveCfg, found := false, false, false
	for _, l := range lines {
		if banner == "" {
			if m := envVLLMBannerRe.FindStringSubmatch(l); m != nil {
				banner = m[1]
				found = true
				p.add("vllm_version", banner)
				continue
			}
		}
		if !haveArgs {
			if i := strings.Index(l, envVLLMArgsDict); i >= 0 {
				haveArgs, found = true, true
				for _, kv := range envPyDict(l[i+len(envVLLMArgsDict):]) {
					p.add(kv.Key, kv.Value)
					envKeepFirst(args, kv)
				}
				continue
			}
			if i := strings.Index(l, envVLLMArgsNamespace); i >= 0 {
				haveArgs, found = true, true
				for _, kv := range envPyKwargs(l[i+len(envVLLMArgsNamespace):]) {
					p.add(kv.Key, kv.Value)
					envKeepFirst(args, kv)
				}
				continue
			}
		}
		if !haveCfg {
			if m := envVLLMConfigRe.FindStringSubmatch(l); m != nil {
				haveCfg, found = true, true
				cfgVersion = m[1]
				if cfgVersion != "" {
					p.add("engine_config.version", cfgVersion)
				}
				for _, kv := range envPyKwargs(m[2]) {
					p.add("engine_config."+kv.Key, kv.Value)
					envKeepFirst(cfg, kv)
				}
				continue
			}
		}
		if chunked == "" {
			if m := envVLLMChunkedRe.FindStringSubmatch(l); m != nil {
				chunked = m[1]
				p.add("chunked_prefill.max_num_batched_tokens", chunked)
			}
		}
	}
	if !found {
		p.keys = nil
		return false
	}

	p.set("engine", "vllm")
	p.setFirst("engine_version", banner, cfgVersion)
	p.setFirst("model", args["model"], args["model_tag"], cfg["model"])
	p.setFirst("precision", args["quantization"], cfg["quantization"])
	for _, d := range []string{args["dtype"], cfg["dtype"]} {
		if !strings.EqualFold(d, "auto") {
			p.set("precision", d)
		}
	}
	p.setFirst("precision", args["dtype"], cfg["dtype"])
	for _, f := range []string{"max_num_seqs", "kv_cache_dtype", "block_size"} {
		p.setFirst(f, args[f], cfg[f])
	}
	p.setFirst("max_num_batched_tokens", args["max_num_batched_tokens"], cfg["max_num_batched_tokens"], chunked)
	p.setFirst("prefix_caching", args["enable_prefix_caching"], cfg["enable_prefix_caching"])
	return true
}

func envKeepFirst(m map[string]string, kv KV) {
	if _, ok := m[kv.Key]; !ok {
		m[kv.Key] = kv.Value
	}
}

// envPySplit splits a Python repr list body at top-level commas, honouring
// quotes and brackets. It stops at the first closing bracket that closes
// nothing opened inside s (the end of the enclosing dict or call).
func envPySplit(s string) []string {
	var parts []string
	depth, angle := 0, 0
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '(', '[', '{':
			depth++
		case '<':
			angle++
		case '>':
			if angle > 0 {
				angle--
			}
		case ')', ']', '}':
			if depth == 0 {
				return envAppendPart(parts, s[start:i])
			}
			depth--
		case ',':
			if depth == 0 && angle == 0 {
				parts = envAppendPart(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return envAppendPart(parts, s[start:])
}

func envAppendPart(parts []string, p string) []string {
	if p = strings.TrimSpace(p); p != "" {
		parts = append(parts, p)
	}
	return parts
}

// envPyKwargs parses "key=value, key=value" (a Namespace or engine config
// body).
func envPyKwargs(s string) []KV {
	var out []KV
	for _, part := range envPySplit(s) {
		i := strings.IndexByte(part, '=')
		if i <= 0 {
			continue
		}
		key := strings.TrimSpace(part[:i])
		if key == "" || strings.ContainsAny(key, " '\"") {
			continue
		}
		out = append(out, KV{Key: key, Value: envPyValue(part[i+1:])})
	}
	return out
}

// envPyDict parses the body of a Python dict repr with string keys.
func envPyDict(s string) []KV {
	var out []KV
	for _, part := range envPySplit(s) {
		if len(part) < 2 || (part[0] != '\'' && part[0] != '"') {
			continue
		}
		end := envQuoteEnd(part)
		if end < 0 {
			continue
		}
		key := envPyString(part[:end+1])
		rest := strings.TrimSpace(part[end+1:])
		if !strings.HasPrefix(rest, ":") || key == "" {
			continue
		}
		out = append(out, KV{Key: key, Value: envPyValue(rest[1:])})
	}
	return out
}

// envQuoteEnd returns the index of the quote closing the string that
// starts s, or -1.
func envQuoteEnd(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return -1
}

// envPyString decodes a quoted Python string literal.
func envPyString(s string) string {
	body := s[1 : len(s)-1]
	if !strings.ContainsRune(body, '\\') {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(body[i])
			}
			continue
		}
		b.WriteByte(body[i])
	}
	return b.String()
}

// envPyValue turns a Python repr value into text: strings lose their
// quotes, a list or tuple of plain values is joined with ", ", anything
// else is kept as written.
func envPyValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && envQuoteEnd(v) == len(v)-1 {
		return envPyString(v)
	}
	if len(v) >= 2 && ((v[0] == '[' && v[len(v)-1] == ']') || (v[0] == '(' && v[len(v)-1] == ')')) {
		parts := envPySplit(v[1 : len(v)-1])
		vals := make([]string, 0, len(parts))
		for _, part := range parts {
			if strings.ContainsAny(part[:1], "[({<") {
				return v
			}
			vals = append(vals, envPyValue(part))
		}
		return strings.Join(vals, ", ")
	}
	return v
}

// --- key-value text ---

func (p *envParse) keyValue(lines []string) bool {
	total, fit := 0, 0
	var keys []KV
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
			continue
		}
		total++
		t = strings.TrimPrefix(t, "export ")
		i := strings.IndexAny(t, ":=")
		if i <= 0 {
			continue
		}
		key := strings.TrimSpace(t[:i])
		if key == "" || len(key) > 80 || strings.ContainsAny(key, "\"'{}[]<>,|") {
			continue
		}
		fit++
		keys = append(keys, KV{Key: key, Value: envUnquote(strings.TrimSpace(t[i+1:]))})
	}
	if fit == 0 || 2*fit < total {
		return false
	}
	p.keys = keys
	p.aliases()
	return true
}
