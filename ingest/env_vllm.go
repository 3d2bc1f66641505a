package ingest

import (
	"regexp"
	"strings"
)

var (
	envVLLMBannerRe  = regexp.MustCompile(`vLLM API server version (\S+)`)
	envVLLMConfigRe  = regexp.MustCompile(`Initializing an? (?:V1 )?LLM engine (?:\(v([^)\s]*)\) )?with config: (.*)$`)
	envVLLMChunkedRe = regexp.MustCompile(`Chunked prefill is enabled with max_num_batched_tokens=(\d+)`)
)

const (
	envVLLMArgsDict      = "non-default args: {"
	envVLLMArgsNamespace = "args: Namespace("
)

// vllmLog reads lines as a vLLM server log (format 4 of ParseEnvFile),
// keeping only its banner, argument, engine config and chunked-prefill
// lines, and reports whether they are one.
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
