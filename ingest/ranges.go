package ingest

// The ranges of the values benchnote accepts. Each is far beyond any real
// benchmark and low enough that every figure computed from accepted values
// (sums over a run's rows, differences, ratios, chart axes) stays finite
// and exact where it must be. A value outside its range is refused where
// it is read, as a value of the wrong type is: a request row is excluded
// with the reason "out of range", a run.yaml setting fails its run, and
// `benchnote import` refuses a file whose level or setting is out of range
// and leaves out (and counts) a request that is, naming the JSON path.
// docs/input-format.md lists them.
const (
	// MaxConcurrency is the highest concurrency level.
	MaxConcurrency = 1_000_000
	// MaxRate is the highest finite request rate, in requests per second
	// (an unbounded rate is the level "rate inf").
	MaxRate = 1_000_000
	// MaxRepeat is the highest repeat number in run.yaml.
	MaxRepeat = 10_000
	// MaxMaxTokens is the highest max_tokens in run.yaml.
	MaxMaxTokens = 100_000_000
	// MaxTokenCount is the most tokens (prompt or completion) and text
	// chunks one request may have: 50 million rows of it sum to under
	// 2^63.
	MaxTokenCount = 1_000_000_000
	// MaxLatencyMs is the longest latency (TTFT, E2E, a chunk's arrival),
	// in milliseconds: about 116 days.
	MaxLatencyMs = 10_000_000_000
	// MinUnixSeconds and MaxUnixSeconds bound a Unix time in seconds
	// (t_request_sent and the other time columns, window times): the
	// start of 1970 to the end of 9999.
	MinUnixSeconds = 0
	MaxUnixSeconds = 253_402_300_799
)
