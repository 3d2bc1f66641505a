package ingest

import "strings"

// The canonical fields of the key formats (json, yaml, key-value), found
// by key name: ParseEnvFile lists the names.

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
