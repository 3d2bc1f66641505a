package ingest

// Config is the sweep's settings, read from sweep.yaml with DefaultConfig
// filling everything the file leaves out.
type Config struct {
	// Title is the report title.
	Title string `yaml:"title" json:"title"`
	// SLO holds the per-request latency targets used for goodput.
	SLO SLO `yaml:"slo" json:"slo"`
	// SLOFrom says where each SLO setting came from: DefaultConfig,
	// sweep.yaml or the command line.
	SLOFrom SLOSources `yaml:"-" json:"slo_from"`
	// Percentile is "nearest-rank" (rank = ceil(p*N)) or "linear".
	Percentile string `yaml:"percentile" json:"percentile"`
	// MAD is "raw" (median of absolute deviations) or "scaled" (x1.4826).
	MAD string `yaml:"mad" json:"mad"`
	// Warmup configures warm-up detection.
	Warmup WarmupConfig `yaml:"warmup" json:"warmup"`
	// Metrics maps metric roles to the names a server uses.
	Metrics MetricNames `yaml:"metrics" json:"metrics"`
	// Series is sweep.yaml's series labels: the configuration every run
	// has, to which run.yaml adds its own.
	Series Series `yaml:"-" json:"series,omitzero"`
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
	// Attainment is the share of a level's measured requests, in (0, 1],
	// that must meet every target for the level to meet the SLOs.
	Attainment float64 `yaml:"attainment" json:"attainment"`
}

// Where a setting came from, for SLOSources.
const (
	// FromDefault: DefaultConfig (the measurement rules' example targets,
	// benchnote's attainment).
	FromDefault = "default"
	// FromSweepYAML: the sweep's sweep.yaml.
	FromSweepYAML = "sweep.yaml"
	// FromCommandLine: a command-line flag (benchnote report --slo).
	FromCommandLine = "command line"
)

// SLOSources says, per SLO setting, where its value came from (FromDefault,
// FromSweepYAML or FromCommandLine).
type SLOSources struct {
	TTFT       string `json:"ttft"`
	TPOT       string `json:"tpot"`
	E2E        string `json:"e2e"`
	Attainment string `json:"attainment"`
}

// Warm-up modes: the rule sweep.yaml names under warmup.mode.
const (
	// WarmupChangePoint is Pettitt's rank test for one change in location
	// (Pettitt 1979), the default.
	WarmupChangePoint = "changepoint"
	// WarmupMSER5 is the marginal standard error rule on batch means of 5
	// (White 1997).
	WarmupMSER5 = "mser5"
	// WarmupStabilisation is the measurement protocol's illustrative
	// heuristic: block medians that stop moving.
	WarmupStabilisation = "stabilisation"
	// WarmupFixed discards a fixed number of requests: an explicit override
	// the measurement rules discourage.
	WarmupFixed = "fixed"
	// WarmupNone turns warm-up handling off.
	WarmupNone = "none"
)

// WarmupModes lists the valid warm-up modes, default first.
var WarmupModes = []string{WarmupChangePoint, WarmupMSER5, WarmupStabilisation, WarmupFixed, WarmupNone}

// Bounds of the warm-up settings, checked when sweep.yaml is read.
const (
	// MaxWarmupCount bounds warmup.window, warmup.consecutive and
	// warmup.count.
	MaxWarmupCount = 1_000_000
	// MaxWarmupAlpha bounds warmup.alpha: Pettitt's approximation of the
	// significance probability holds for p ≤ 0.5.
	MaxWarmupAlpha = 0.5
)

// WarmupConfig names the warm-up rule and holds its parameters. Only the
// parameters of the chosen Mode are used.
type WarmupConfig struct {
	// Mode is one of WarmupModes.
	Mode string `yaml:"mode" json:"mode"`
	// Alpha is the changepoint rule's family-wise significance level: the
	// probability of cutting a run that has no warm-up, 0 < Alpha ≤ 0.5.
	Alpha float64 `yaml:"alpha" json:"alpha"`
	// MinSlowdown is the changepoint rule's smallest warm-up worth
	// discarding: the early part's median must exceed the rest's by at
	// least this fraction, 0 ≤ MinSlowdown ≤ 1.
	MinSlowdown float64 `yaml:"min_slowdown" json:"min_slowdown"`
	// Window, Tolerance and Consecutive are the stabilisation rule's: the
	// median of consecutive blocks of Window requests must change by less
	// than Tolerance (relative) Consecutive times in a row.
	Window      int     `yaml:"window" json:"window"`
	Tolerance   float64 `yaml:"tolerance" json:"tolerance"`
	Consecutive int     `yaml:"consecutive" json:"consecutive"`
	// Count is the fixed override's number of requests to discard.
	Count int `yaml:"count" json:"count"`
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

// DefaultAttainment is the share of measured requests that must meet
// every SLO target for a level to meet the SLOs when sweep.yaml does not
// say (slo.attainment): benchnote's choice, 90 %, the attainment commonly
// used to compare serving systems; the measurement rules name none.
const DefaultAttainment = 0.9

// DefaultConfig returns the settings used when sweep.yaml is absent or
// silent: the measurement protocol's defaults.
func DefaultConfig() Config {
	return Config{
		Title:                  "Benchmark sweep",
		SLO:                    SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000, Attainment: DefaultAttainment},
		SLOFrom:                SLOSources{TTFT: FromDefault, TPOT: FromDefault, E2E: FromDefault, Attainment: FromDefault},
		Percentile:             "nearest-rank",
		MAD:                    "raw",
		Warmup:                 WarmupConfig{Mode: WarmupChangePoint, Alpha: 0.01, MinSlowdown: 0.02, Window: 10, Tolerance: 0.02, Consecutive: 3},
		Metrics:                DefaultMetricNames(),
		CounterTolerance:       0.01,
		StreamingCheckFraction: 0.95,
		ErrorRateThreshold:     0.01,
	}
}
