// Package ingest reads a recorded benchmark sweep from disk into one typed,
// in-memory model: per-request client records (CSV or Parquet), Prometheus
// scrapes bracketing each run's measurement window, environment logs and the
// optional sweep.yaml / run.yaml settings.
//
// Ingest is the only package that knows file formats. It never computes a
// serving metric; it only converts to base units (milliseconds, seconds,
// token counts) and records every problem it meets as a Diagnostic naming the
// file, the line or row, the column and what was expected. A bad row is
// excluded and counted, a broken file fails only its own run, and nothing is
// dropped silently.
package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Severity says how serious a Diagnostic is.
type Severity int

const (
	// Warning marks a problem that was worked around (a row excluded, a file
	// ignored, a field missing); the sweep is still usable.
	Warning Severity = iota + 1
	// Error marks a problem that made a file or a run unusable.
	Error
)

// String returns "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText renders the severity as its name in JSON summaries.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Diagnostic is one problem found while reading a file.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	// File is the path relative to the sweep root (slash-separated).
	File string `json:"file"`
	// Line is the 1-based line (CSV, YAML, text) or row (Parquet, counted
	// from 1 over the whole file) the problem is on; 0 when it concerns the
	// whole file.
	Line int `json:"line,omitempty"`
	// Column is the 1-based column (field) number; 0 when not applicable.
	Column int `json:"column,omitempty"`
	// ColumnName is the header name of Column, when there is one.
	ColumnName string `json:"column_name,omitempty"`
	// Reason is a short, stable category used to group exclusions
	// (for example "non-numeric", "duplicate request_id").
	Reason string `json:"reason"`
	// Message is the full human-readable description.
	Message string `json:"message"`
}

// String formats the diagnostic as path:line:column: severity: message,
// leaving out the parts that are zero.
func (d Diagnostic) String() string {
	loc := d.File
	if d.Line > 0 {
		loc += fmt.Sprintf(":%d", d.Line)
		if d.Column > 0 {
			loc += fmt.Sprintf(":%d", d.Column)
		}
	}
	return fmt.Sprintf("%s: %s: %s", loc, d.Severity, d.Message)
}

// Requests holds one run's per-request client records, column by column.
// All slices that are present have length N. Optional columns are nil when
// the file does not have them; within a present optional column a missing
// (null or empty) value is NaN for floats and -1 for integers.
type Requests struct {
	// N is the number of accepted rows.
	N int
	// SourceRow is the 1-based CSV line or Parquet row of each accepted row,
	// so later stages can point back at the input.
	SourceRow []int32

	// IDs holds the request ids; ID(i) returns one. Empty when the file
	// was read ForAnalysis (ReadOptions).
	IDs              StringColumn
	PromptTokens     []int64
	CompletionTokens []int64
	TTFTms           []float64
	E2Ems            []float64

	// TRequestSent, TFirstText and TLastText are unix seconds. TFirstText
	// is nil when the file was read ForAnalysis.
	TRequestSent []float64
	TFirstText   []float64
	TLastText    []float64
	// Status is "" or "ok" for a successful request, otherwise the error text.
	Status *StatusColumn
	// MaxTokens is the request's max_tokens.
	MaxTokens []int64
	// TextChunks is the number of text-bearing streamed chunks; nil when
	// the file was read ForAnalysis and has no chunk_ms.
	TextChunks []int64
	// ChunkOffsets and ChunkMs hold the per-request chunk arrival offsets
	// (ms since the request was sent) flattened: request i's chunks are
	// ChunkMs[ChunkOffsets[i]:ChunkOffsets[i+1]]. Both are nil when the file
	// has no chunk_ms column; ChunkOffsets has length N+1 otherwise.
	ChunkOffsets []int32
	ChunkMs      []float64
	// Phase marks the requests the source tool sent before or after its
	// measurement (warm-up, cool-down); nil when the file has no phase
	// column.
	Phase []Phase

	// ExtraColumns lists, in file order, the columns benchnote does not use.
	// They are kept by name only.
	ExtraColumns []string
}

// ID returns request i's id.
func (r *Requests) ID(i int) string { return r.IDs.At(i) }

// Chunks returns request i's chunk arrival offsets in ms, or nil.
func (r *Requests) Chunks(i int) []float64 {
	if r.ChunkOffsets == nil {
		return nil
	}
	return r.ChunkMs[r.ChunkOffsets[i]:r.ChunkOffsets[i+1]]
}

// RequestFile is the result of reading one requests.csv or requests.parquet.
type RequestFile struct {
	// Path is relative to the sweep root.
	Path string
	// Format is "csv" or "parquet".
	Format string
	// RowsRead counts data rows seen (accepted plus excluded).
	RowsRead int
	// Requests holds the accepted rows.
	Requests *Requests
	// Excluded has one Warning diagnostic per excluded row listed, in line
	// order: every excluded row, except that after MaxListedExclusions rows
	// of one reason in one column the others are only counted, in Unlisted.
	// ExcludedRows counts both.
	Excluded []Diagnostic
	// Unlisted counts the excluded rows left out of Excluded, by reason and
	// column, in order of their first line.
	Unlisted []UnlistedRows

	firstSent float64 // FirstSent, as read (it outlives the columns)
	sentKnown bool    // firstSent was set when the file was read
	typed     bool    // read by the typed Parquet column readers (for tests)
	idsRepeat bool    // read with hashIDs, two ids' hashes are equal
	// pageDecoded counts the columns of a typed read that the page
	// decoder read, not Arrow's column readers (for tests).
	pageDecoded int
}

// FirstSent returns the earliest t_request_sent of the accepted rows
// (unix seconds), NaN when none has one. It stays known when the run's
// columns are released.
func (rf *RequestFile) FirstSent() float64 {
	if rf.Requests != nil && rf.Requests.TRequestSent != nil {
		return earliest(rf.Requests.TRequestSent)
	}
	if rf.sentKnown {
		return rf.firstSent
	}
	return math.NaN()
}

// earliest is the smallest of ts that is not NaN, NaN when there is none.
func earliest(ts []float64) float64 {
	e := math.NaN()
	for _, t := range ts {
		if t < e || math.IsNaN(e) {
			e = t
		}
	}
	return e
}

// Histogram is a cumulative Prometheus histogram of one series.
type Histogram struct {
	// Buckets are sorted by UpperBound, one per bound, and end with the
	// +Inf bucket only when the scrape has one.
	Buckets []Bucket `json:"buckets"`
	Count   float64  `json:"count"`
	Sum     float64  `json:"sum"`
	// MergedBounds lists the upper bounds that the scrape wrote on more
	// than one bucket (le="0.2" and le="2e-1"); their counts were added.
	MergedBounds []float64 `json:"merged_bounds,omitempty"`
}

// SortBuckets sorts bs by upper bound and merges the buckets that share a
// bound into one holding the sum of their counts, as Prometheus's
// histogram_quantile does: a bucket is keyed by the number its le label
// denotes, not by how the label is written. It reuses bs and returns the
// merged buckets and the bounds that occurred more than once, ascending.
func SortBuckets(bs []Bucket) ([]Bucket, []float64) {
	slices.SortStableFunc(bs, func(a, b Bucket) int { return cmp.Compare(a.UpperBound, b.UpperBound) })
	var merged []float64
	out := bs[:0]
	for _, b := range bs {
		if n := len(out); n > 0 && out[n-1].UpperBound == b.UpperBound {
			out[n-1].Count += b.Count
			if len(merged) == 0 || merged[len(merged)-1] != b.UpperBound {
				merged = append(merged, b.UpperBound)
			}
			continue
		}
		out = append(out, b)
	}
	return out, merged
}

// Bucket is one cumulative histogram bucket.
type Bucket struct {
	UpperBound float64 `json:"le"`
	Count      float64 `json:"count"`
}

// MarshalJSON writes the bucket with its bound as a string ("+Inf" for the
// last bucket), as the Prometheus exposition formats do; encoding/json
// cannot write an infinite number.
func (b Bucket) MarshalJSON() ([]byte, error) {
	le := strconv.FormatFloat(b.UpperBound, 'g', -1, 64)
	if math.IsInf(b.UpperBound, 1) {
		le = "+Inf"
	}
	return []byte(`{"le":"` + le + `","count":` + strconv.FormatFloat(b.Count, 'g', -1, 64) + `}`), nil
}

// MetricRole names what a metric is used for, independently of the name a
// particular server gives it.
type MetricRole string

// The metric roles benchnote reads from a scrape.
const (
	RoleGenerationTokens MetricRole = "generation_tokens"
	RolePromptTokens     MetricRole = "prompt_tokens"
	RoleTTFT             MetricRole = "ttft"
	RoleITL              MetricRole = "itl"
	RoleRequestTPOT      MetricRole = "request_tpot"
	RoleE2E              MetricRole = "e2e"
	RolePrefill          MetricRole = "prefill"
	RoleQueue            MetricRole = "queue"
	RoleDecode           MetricRole = "decode"
)

// CounterRoles are the roles read as counters, in report order.
var CounterRoles = []MetricRole{RoleGenerationTokens, RolePromptTokens}

// HistogramRoles are the roles read as histograms, in report order.
var HistogramRoles = []MetricRole{RoleTTFT, RoleITL, RoleRequestTPOT, RoleE2E, RolePrefill, RoleQueue, RoleDecode}

// Scrape is one parsed Prometheus /metrics dump, reduced to the metrics
// benchnote uses.
type Scrape struct {
	// Path is relative to the sweep root.
	Path string
	// Format is "text" (0.0.4) or "openmetrics".
	Format string
	// Timestamp is the latest sample timestamp in the file; zero when the
	// file carries none.
	Timestamp time.Time
	// Counters maps a counter role to its value; absent roles are missing.
	Counters map[MetricRole]float64
	// CounterNames records the metric name each counter role was read from.
	CounterNames map[MetricRole]string
	// Histograms maps a histogram role to its value.
	Histograms map[MetricRole]Histogram
	// HistogramNames records the metric name each histogram role was read from.
	HistogramNames map[MetricRole]string
	// Families is the number of metric families in the file; 0 for an
	// empty scrape.
	Families int
	// UnusedFamilies is the number of families benchnote does not read.
	UnusedFamilies int
	// Unread says, for a role whose metric is in the file but could not be
	// used, why (for example "vllm:generation_tokens_total has 2 series
	// and no label_selector chooses one").
	Unread map[MetricRole]string
	// Series holds, per role read, the label set of the series it was read
	// from, rendered as {a="x",b="y"} with the labels sorted.
	Series map[MetricRole]string
	// ProcessStartTime is process_start_time_seconds (unix seconds) when
	// the scrape has exactly one such series, or one the label selector
	// chooses; 0 otherwise.
	ProcessStartTime float64
	// Digest is the SHA-256 of the scrape's bytes after the byte-order
	// mark and CR line ends are removed, to recognise two identical files.
	Digest [32]byte
	// Diagnostics lists the problems found (ambiguous series, missing roles).
	Diagnostics []Diagnostic
}

// Window is a run's declared measurement window.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Source is "run.yaml", "scrapes" or "unknown".
	Source string `json:"source"`
}

// Known reports whether the window has a usable start and end.
func (w Window) Known() bool {
	return w.Source != "unknown" && !w.Start.IsZero() && w.End.After(w.Start)
}

// Seconds is the window length in seconds, 0 when unknown.
func (w Window) Seconds() float64 {
	if !w.Known() {
		return 0
	}
	return w.End.Sub(w.Start).Seconds()
}

// EnvSource is one environment file that was read.
type EnvSource struct {
	// Path is relative to the sweep root.
	Path string `json:"path"`
	// Format is one of "json", "yaml", "collect_env", "collect_env_sectioned",
	// "nvidia-smi", "vllm-log", "key-value" or "unrecognised".
	Format string `json:"format"`
	// Keys holds every key/value pair found, in file order.
	Keys []KV `json:"keys"`
	// Canonical holds the canonical fields extracted (see CanonicalFields).
	Canonical map[string]string `json:"canonical"`
	// Diagnostics are warnings about what of the file was not read (a
	// duplicate YAML key, a second YAML document, aliases that expand too
	// far). They are reported by Load, not written into summaries.
	Diagnostics []Diagnostic `json:"-"`
}

// KV is one key/value pair from an environment file.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// CanonicalFields are the environment fields the measurement protocol asks
// for, in report order.
var CanonicalFields = []string{
	"gpu", "gpu_count", "driver", "cuda", "engine", "engine_version", "pytorch", "python",
	"model", "precision", "max_num_seqs", "max_num_batched_tokens",
	"kv_cache_dtype", "block_size", "prefix_caching",
}

// Environment is the merged environment of one run: the sweep's files
// extended and overridden by the run's own.
type Environment struct {
	Sources []EnvSource `json:"sources"`
	// Canonical is the merged canonical fields (later sources override).
	Canonical map[string]string `json:"canonical"`
	// Missing lists canonical fields no source provided, in CanonicalFields order.
	Missing []string `json:"missing"`
}

// Run is one recorded run: one repeat at one concurrency level.
type Run struct {
	// Dir is the run directory relative to the sweep root ("." for the root).
	Dir string
	// Load is the run's load level: concurrency N, rate R or rate inf.
	Load LoadLevel
	// Series is the run's configuration (sweep.yaml's series labels with
	// run.yaml's added); runs are repeats only when Series and Load are
	// equal. The zero Series when neither file sets labels.
	Series Series
	// Concurrency is the configured concurrency level (Load.Concurrency),
	// 0 for a rate level.
	Concurrency int
	// ConcurrencySource says where the level came from: "run.yaml" or "path".
	ConcurrencySource string
	// Clock is run.yaml's clock: "monotonic" when t_request_sent and the
	// other times are not wall-clock time, else "".
	Clock string
	// Provenance says where an imported run came from; nil otherwise.
	Provenance *Provenance
	// Repeat is the 1-based repeat number within the concurrency level.
	Repeat int
	// RepeatSource is "run.yaml" or "path order".
	RepeatSource string
	// MaxTokens is run.yaml's max_tokens, 0 when not given.
	MaxTokens int
	// Notes is run.yaml's free-text notes.
	Notes string
	// Requests is the run's client records; nil when they could not be read.
	Requests *RequestFile
	// ScrapeStart and ScrapeEnd bracket the window; nil when absent or unreadable.
	ScrapeStart *Scrape
	ScrapeEnd   *Scrape
	// Window is the declared measurement window.
	Window Window
	// GPU is the run's GPU telemetry (gpu.csv, gpu-*.csv); nil when the
	// run has none or none of its files could be read.
	GPU *GPUTelemetry
	// Env is the run's merged environment.
	Env Environment
	// Diagnostics are the run's problems (other than excluded rows).
	Diagnostics []Diagnostic
	// Failed is true when the run could not be used at all (for example an
	// unreadable requests file); the reason is in Diagnostics.
	Failed bool
	// DuplicateOf is the Dir of an earlier run of the same series and
	// level whose requests file holds the same bytes: the same run, not
	// another repeat, which analyze leaves out (a warning in Diagnostics
	// says so); "" for a run of its own.
	DuplicateOf string

	files       []string     // the run directory's file names, sorted
	rc          runConfig    // run.yaml as parsed by Open
	heldBack    []Diagnostic // Open's diagnostics that follow the files' own
	openDiags   int          // len(Diagnostics) and Failed as Open left them,
	openFailed  bool         // restored when the run is read again
	pending     bool         // Stream has the run to read: not read yet, or released
	dropRecords bool         // Release drops the records (read by Stream of a sweep from Open)
	pool        *columnPool  // where Release hands the dropped columns
	onRelease   func()       // gives the run's rows back to its stream's budget
}

// heldRows is the number of request rows whose columns the run holds.
func (run *Run) heldRows() int {
	if run.Requests == nil || run.Requests.Requests == nil {
		return 0
	}
	return run.Requests.Requests.N
}

// Release says the consumer is done with the run's request columns. In a
// sweep from Open they are dropped, so that streaming a sweep holds only
// the runs in flight; the run keeps its counts (RowsRead, the number of
// accepted rows), its excluded-row diagnostics and the names of its unused
// columns. A later Stream reads a released run again, so that it yields a
// run whose records are there. A run of a sweep from Load, which promises
// every record, or one built by hand keeps them.
func (run *Run) Release() {
	if !run.dropRecords || run.Requests == nil || run.Requests.Requests == nil {
		return
	}
	q := run.Requests.Requests
	run.Requests.Requests = &Requests{N: q.N, ExtraColumns: q.ExtraColumns}
	run.pool.giveRequests(q)
	run.pending = true
	if run.onRelease != nil {
		run.onRelease()
		run.onRelease = nil
	}
}

// Sweep is everything read from one sweep directory.
type Sweep struct {
	// Root is the sweep directory as given.
	Root string
	// Config is sweep.yaml with defaults applied.
	Config Config
	// Runs are sorted by concurrency, then repeat.
	Runs []*Run
	// Diagnostics are sweep-level problems (sweep.yaml, unused files, env differences).
	Diagnostics []Diagnostic
	// EnvDiffs lists environment keys whose values differ between runs.
	EnvDiffs []EnvDiff
	// IgnoredFiles lists files under the root that were not read, with why.
	IgnoredFiles []IgnoredFile
	// Reported holds the source tools' aggregate figures of runs imported
	// without per-request records (reported.yaml), in path order. They are
	// not runs: nothing is recomputed from them.
	Reported []*ReportedRun

	opts        Options     // how Open was asked to read
	keepRecords bool        // Load: every run keeps its records
	pool        *columnPool // the columns of released runs, for the next
	streamRows  int         // the rows a stream holds at once (streamRows; less in tests)
}

// ReportedRun is a run known only by the figures its benchmark tool
// reported (a result file without per-request records). Its figures are
// shown as reported and kept out of every level statistic.
type ReportedRun struct {
	// Dir is the directory holding reported.yaml, relative to the root.
	Dir string
	// Load is the level the tool ran at; the zero LoadLevel when unknown.
	Load LoadLevel
	// Series is the configuration, as for Run.
	Series Series
	Repeat int
	Notes  string
	// Provenance names the tool; its Reported list holds the figures.
	Provenance *Provenance
	// Env is the environment the tool's file recorded (the env.json an
	// importer writes beside reported.yaml) merged with the sweep's
	// environment logs, as for Run.
	Env         Environment
	Diagnostics []Diagnostic
}

// IgnoredFile is a file in the sweep tree that benchnote did not read.
type IgnoredFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// EnvDiff is one environment key that differs between runs.
type EnvDiff struct {
	Key string `json:"key"`
	// Values maps each distinct value (the empty string for "absent") to the
	// run directories that have it, sorted.
	Values []EnvDiffValue `json:"values"`
}

// EnvDiffValue is one value of a differing key and the runs that have it.
type EnvDiffValue struct {
	Value string   `json:"value"`
	Runs  []string `json:"runs"`
}

// FileError is returned when a whole file cannot be used (unreadable,
// truncated, wrong header). It carries the same location detail as a
// row-level Diagnostic.
type FileError struct {
	Diagnostic
}

// Error implements error.
func (e *FileError) Error() string { return e.Diagnostic.String() }

// fileErrorf builds a FileError with Severity Error.
func fileErrorf(path string, line, column int, columnName, reason, format string, args ...any) *FileError {
	return &FileError{Diagnostic{
		Severity: Error, File: path, Line: line, Column: column, ColumnName: columnName,
		Reason: reason, Message: fmt.Sprintf(format, args...),
	}}
}
