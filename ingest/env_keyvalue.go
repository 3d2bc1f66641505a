package ingest

import "strings"

// keyValue reads lines as "key: value" or "key=value" text (format 7 of
// ParseEnvFile) and reports whether at least half of them fit.
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
