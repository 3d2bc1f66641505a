package ingest

// Config is the sweep's settings, read from sweep.yaml with DefaultConfig
// filling everything the file leaves out.
type Config struct {
	// Title is the report title.
	Title string `yaml:"title" json:"title"`
	// SLO holds the per-request latency targets used for goodput.
	SLO SLO `yaml:"slo" json:"slo"`
	// Percentile is "nearest-rank" (rank = ceil(p*N)) or "linear".
	Percentile string `yaml:"percentile" json:"percentile"`
	// MAD is "raw" (median of absolute deviations) or "scaled" (x1.4826).
	MAD string `yaml:"mad" json:"mad"`
	// Warmup configures warm-up detection.
	Warmup WarmupConfig `yaml:"warmup" json:"warmup"`
	// Metrics maps metric roles to the names a server uses.
	Metrics MetricNames `yaml:"metrics" json:"metrics"`
	// LabelSelector keeps only series whose labels match all of these.
	LabelSelector map[string]string `yaml:"label_selector" json:"label_selector,omitempty"`
	// SpeculativeDecoding says the engine may emit several tokens per step,
	// which turns per-token histograms into per-step ones.
	SpeculativeDecoding bool `yaml:"speculative_decoding" json:"speculative_decoding"`
	// CounterTolerance is the relative disagreement allowed between the
	// generation-token counter delta and the client's completion tokens.
	CounterTolerance float64 `yaml:"counter_tolerance" json:"counter_tolerance"`
	// StreamingCheckFraction is the fraction of requests with TTFT == E2E
	// above which the run is treated as not streamed.
	StreamingCheckFraction float64 `yaml:"non_streamed_fraction" json:"non_streamed_fraction"`
	// ErrorRateThreshold is the share of failed requests, in (0, 1], above
	// which a run or a concurrency level is reported as an error.
	ErrorRateThreshold float64 `yaml:"error_rate_threshold" json:"error_rate_threshold"`
}

// SLO holds per-request latency targets in milliseconds. A zero target is
// not applied.
type SLO struct {
	TTFTms float64 `yaml:"ttft_ms" json:"ttft_ms"`
	TPOTms float64 `yaml:"tpot_ms" json:"tpot_ms"`
	E2Ems  float64 `yaml:"e2e_ms" json:"e2e_ms"`
}

// WarmupConfig sets the stabilisation rule from the measurement protocol:
// the running median of the last Window requests must change by less than
// Tolerance over Consecutive consecutive windows.
type WarmupConfig struct {
	// Mode is "stabilisation" or "none".
	Mode        string  `yaml:"mode" json:"mode"`
	Window      int     `yaml:"window" json:"window"`
	Tolerance   float64 `yaml:"tolerance" json:"tolerance"`
	Consecutive int     `yaml:"consecutive" json:"consecutive"`
}

// MetricNames lists, per role, the metric names to look for in a scrape, in
// order of preference (the first one present wins). Counter names may be
// given with or without the _total suffix.
type MetricNames map[MetricRole][]string

// DefaultMetricNames are vLLM's metric names.
func DefaultMetricNames() MetricNames {
	return MetricNames{
		RoleGenerationTokens: {"vllm:generation_tokens"},
		RolePromptTokens:     {"vllm:prompt_tokens"},
		RoleTTFT:             {"vllm:time_to_first_token_seconds"},
		RoleITL:              {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"},
		RoleRequestTPOT:      {"vllm:request_time_per_output_token_seconds"},
		RoleE2E:              {"vllm:e2e_request_latency_seconds"},
		RolePrefill:          {"vllm:request_prefill_time_seconds"},
		RoleQueue:            {"vllm:request_queue_time_seconds"},
		RoleDecode:           {"vllm:request_decode_time_seconds"},
	}
}

// DefaultConfig returns the settings used when sweep.yaml is absent or
// silent: the measurement protocol's defaults.
func DefaultConfig() Config {
	return Config{
		Title:                  "Benchmark sweep",
		SLO:                    SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000},
		Percentile:             "nearest-rank",
		MAD:                    "raw",
		Warmup:                 WarmupConfig{Mode: "stabilisation", Window: 10, Tolerance: 0.02, Consecutive: 3},
		Metrics:                DefaultMetricNames(),
		CounterTolerance:       0.01,
		StreamingCheckFraction: 0.95,
		ErrorRateThreshold:     0.01,
	}
}
