// Package importer converts the result files of other LLM-serving benchmark
// tools (vLLM bench serve, SGLang bench_serving, GenAI-Perf, AIPerf,
// GuideLLM, LLMPerf, inference-perf, genai-bench, llm-d Benchmark
// Reports) into benchnote's recorded-run layout: one run directory per
// run, holding requests.parquet, run.yaml and env.json, so that validate
// and report read an import like any sweep.
//
// The format is detected from a file's content, never from its name. Each
// importer recomputes what the tool's raw records allow under benchnote's
// definitions (TTFT to the first text-bearing chunk, E2E to the last, zero-
// token requests as such), takes the rest as reported, and says so in
// run.yaml: the source tool and version, what was recomputed, what was
// taken as reported, what the source cannot support, where the token
// counts came from and how the tool's definitions differ from benchnote's.
// A file holding only aggregates becomes a reported.yaml: the tool's own
// figures, shown as such and never mixed with recomputed ones.
//
// A file in YAML (GuideLLM's benchmarks.yaml, llm-d reports) is decoded
// whole, within bounds of its own (yamlin.go), converted to JSON and read
// by the same importer as the tool's JSON; errors name its YAML line.
//
// Files are read as a stream of JSON tokens: memory grows with the number
// of requests and chunk timings kept, not with the text around them, and
// a file claiming more than Options.MaxRequests requests, larger than
// Options.MaxFileBytes, or holding a string longer than 64 MiB, is
// refused with an error. Each file is read once, detection and parsing
// sharing the read, so pipes and process substitution import like files.
//
// What an import writes always validates: a level or setting outside
// ingest's ranges (ingest/ranges.go), or a number beyond float64, refuses
// the file at its JSON path ("$.max_concurrency: 99999999999 is above
// 1,000,000"); a request whose values ingest would not keep is left out
// and counted by reason in run.yaml; and Layout reads everything back
// with ingest's readers before it is written. A file that matches two
// formats, or holds more than its format's document, is refused.
package importer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// Format names a source tool's result format.
type Format string

// The formats benchnote imports.
const (
	FormatVLLM           Format = "vllm"               // vllm bench serve / benchmark_serving.py result JSON or JSONL
	FormatVLLMSweepIndex Format = "vllm-sweep-summary" // vllm bench sweep summary.json (repeats come from run=N.json)
	FormatSGLang         Format = "sglang"             // SGLang bench_serving JSONL
	FormatGenAIPerf      Format = "genai-perf"         // GenAI-Perf profile_export.json
	FormatPerfSummary    Format = "perf-summary"       // GenAI-Perf / AIPerf profile_export_*.json aggregates
	FormatAIPerf         Format = "aiperf"             // AIPerf profile_export.jsonl records
	FormatGuideLLM       Format = "guidellm"           // GuideLLM benchmarks.json
	FormatLLMPerf        Format = "llmperf"            // LLMPerf *_individual_responses.json
	FormatLLMPerfSummary Format = "llmperf-summary"    // LLMPerf *_summary.json
	FormatInferencePerf  Format = "inference-perf"     // inference-perf per_request_lifecycle_metrics.json
	FormatInferenceStage Format = "inference-perf-stage"
	FormatGenAIBench     Format = "genai-bench"           // genai-bench run file (one scenario and level)
	FormatGenAIBenchMeta Format = "genai-bench-metadata"  // genai-bench experiment_metadata.json (read with the run files)
	FormatAIPerfGPU      Format = "aiperf-gpu-telemetry"  // AIPerf gpu_telemetry_export.jsonl, read with the run's records
	FormatAIPerfServer   Format = "aiperf-server-metrics" // AIPerf server_metrics_export.jsonl, read with the run's records
	FormatLLMD           Format = "llm-d"                 // llm-d Benchmark Report v0.1 / v0.2.x (YAML or JSON)
)

// Formats lists the values --format accepts, in documentation order.
// AIPerf's GPU telemetry and server metrics are read only with the
// records beside them, whose format --format names.
var Formats = []Format{FormatVLLM, FormatSGLang, FormatGenAIPerf, FormatPerfSummary, FormatAIPerf, FormatGuideLLM,
	FormatLLMPerf, FormatLLMPerfSummary, FormatInferencePerf, FormatInferenceStage, FormatGenAIBench, FormatLLMD}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	var names []string
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (known: %s)", s, strings.Join(names, ", "))
}

// Options tunes Import.
type Options struct {
	// Format forces every file's format; "" detects it from the content.
	Format Format
	// Level is the load level of files that do not record theirs (AIPerf
	// records without their summary, LLMPerf responses without theirs,
	// inference-perf records without stage reports). It never overrides a
	// level a file records.
	Level ingest.LoadLevel
	// MaxRequests bounds the requests one file may hold; 0 means
	// DefaultMaxRequests.
	MaxRequests int
	// MaxFileBytes bounds the bytes one file may hold, counted as it is
	// read (a pipe has no size to check first); 0 means
	// DefaultMaxFileBytes.
	MaxFileBytes int64
}

// levelOr is l, or the Level given for files that do not record theirs
// when l is no level.
func (o Options) levelOr(l ingest.LoadLevel) ingest.LoadLevel {
	if !l.Valid() {
		return o.Level
	}
	return l
}

// unavailableWithoutRecords lists what a run known only by a tool's
// aggregates cannot give: request ids, send times, the window and the
// per-gap ITL (a new slice each call, for the caller to append to).
func unavailableWithoutRecords() []string {
	return []string{ingest.UnavailableRequestIDs, ingest.UnavailableSendTime, ingest.UnavailableWindow, ingest.UnavailablePerGapITL}
}

// DefaultMaxRequests is the most requests one file may hold unless
// Options.MaxRequests says otherwise: far beyond any real benchmark, and
// small enough that the columns fit in memory.
const DefaultMaxRequests = 50_000_000

// Run is one imported run: per-request records (Requests) or, for a file
// holding only aggregates, the tool's figures in Config.Provenance.Reported
// with Requests nil.
type Run struct {
	// Config is run.yaml (or reported.yaml): level, repeat, window, clock,
	// provenance.
	Config ingest.RunConfig
	// Requests are the per-request records; nil for aggregates only.
	Requests *ingest.Requests
	// Env holds environment keys the file records (model, date, tool
	// arguments), written to the run's env.json.
	Env []ingest.KV
	// Excluded counts the requests of the file left out of the run, by
	// reason: values ingest would not keep (see checkRow).
	Excluded []Excluded
	// GPU is the run's GPU telemetry, written as its gpu.csv (see
	// FormatGPUCSV); nil when the source has none.
	GPU []GPUSample
	// ScrapeStart and ScrapeEnd are the server's /metrics at the start
	// and end of the run, in Prometheus text format, written as
	// metrics-start.prom and metrics-end.prom; nil when the source has
	// none.
	ScrapeStart, ScrapeEnd []byte
	// Source is the file the run came from, as given.
	Source string
	// Dir is the run's directory in the sweep, set by Layout.
	Dir string
	// Where places the run in its source when the file holds several
	// ("line 3", "$.benchmarks[1]"); "" for a file's only run.
	Where string

	// traits are what the file records of the run's configuration;
	// assignSeries makes those that differ between runs its series
	// (Config.Series), which names a directory above the level's.
	traits traits
	// sweepDir is the vllm bench sweep combination directory the run's
	// file is in, "" for another file.
	sweepDir string
	// parquet caches the run's requests.parquet once encoded (by
	// dropDuplicates, for Layout).
	parquet []byte
}

// Import is everything read from the files given to one import.
type Import struct {
	Runs []Run
	// Files lists each file read, with the format it was read as, in the
	// order read; Skipped lists files read but not imported, with why.
	Files   []FileFormat
	Skipped []FileFormat
	// SeriesNote says which series labels the runs were given and why;
	// "" when they share one configuration (see assignSeries).
	SeriesNote string
	// Duplicates lists the runs left out as the same run as one kept: the
	// same file given twice, or identical records.
	Duplicates []Duplicate
}

// Duplicate is a run read but not imported: the same run as one kept.
type Duplicate struct {
	// Source and Where place the run left out (see Run).
	Source, Where string
	// Kept is the index in Import.Runs of the run kept in its place.
	Kept int
	// Reason says how they are the same: "the same file given twice",
	// "identical per-request records" or "identical figures".
	Reason string
}

// FileFormat is one input file and how it was handled.
type FileFormat struct {
	Path   string `yaml:"path"`
	Format Format `yaml:"format"`
	Note   string `yaml:"note,omitempty"`
}

// companionOf maps the formats read alongside records (summaries, stage
// reports, a sweep's index) to the records' format: --format naming the
// records leaves them as detected.
var companionOf = map[Format][]Format{
	FormatLLMPerfSummary: {FormatLLMPerf},
	FormatPerfSummary:    {FormatAIPerf, FormatGenAIPerf},
	FormatInferenceStage: {FormatInferencePerf},
	FormatVLLMSweepIndex: {FormatVLLM},
	FormatGenAIBenchMeta: {FormatGenAIBench},
	FormatAIPerfGPU:      {FormatAIPerf},
	FormatAIPerfServer:   {FormatAIPerf},
}

// source is one input file.
type source struct {
	path   string // as given (or found under a directory given)
	named  bool   // given on the command line, not found under a directory
	in     *input
	format Format
	// forced is set when --format named the format.
	forced bool
	// multiValue is set when the file holds several top-level values (JSON
	// Lines), so errors name the line.
	multiValue bool
	// sweep is set for a vLLM bench sweep file: its combination directory
	// (the series) and its role ("run=N.json" repeat N+1, warmup.json).
	sweepSeries string
	sweepRepeat int
	sweepWarmup bool
	// yaml is set for a file read as YAML: in holds it converted to JSON.
	yaml bool
}

// open returns the source's content from its start (see input).
func (s *source) open() (io.ReadCloser, error) { return s.in.reader() }

// ImportFiles reads every file given (a directory is searched for result
// files, in path order) and converts each into runs. Each file is read
// once, from the first bytes that tell its format to its end, so a pipe,
// a FIFO, /dev/stdin or /dev/fd/N (process substitution) is imported like
// a file; a regular file is opened again to be parsed and refused if it
// changed in between (see input). A file that matches more than one
// format is refused unless opts.Format names one.
func ImportFiles(paths []string, opts Options) (*Import, error) {
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultMaxRequests
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	srcs, err := listSources(paths)
	if err != nil {
		return nil, err
	}
	imp := &Import{}
	defer func() {
		for _, s := range srcs {
			if s.in != nil {
				s.in.close()
			}
		}
	}()
	// yamlDocs holds the files read as YAML, to name the YAML line of a
	// JSON path in an error.
	yamlDocs := map[string]*yaml.Node{}
	kept := srcs[:0]
	for _, s := range srcs {
		keep, err := s.identify(imp, yamlDocs, opts)
		if err != nil {
			return nil, err
		}
		if keep {
			kept = append(kept, s)
		}
	}
	srcs = kept
	markSweepFiles(srcs)
	if err := importSources(imp, srcs, yamlDocs, opts); err != nil {
		return nil, err
	}
	for i := range imp.Runs {
		finishRun(&imp.Runs[i])
	}
	imp.SeriesNote = assignSeries(imp)
	if err := dropDuplicates(imp); err != nil {
		return nil, err
	}
	return imp, nil
}

// listSources returns a source for each path given, and for each file
// found under a directory given (in path order).
func listSources(paths []string) ([]*source, error) {
	var srcs []*source
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			srcs = append(srcs, &source{path: p, named: true})
			continue
		}
		found, err := filesUnder(p)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no files found", p)
		}
		for _, f := range found {
			srcs = append(srcs, &source{path: f})
		}
	}
	return srcs, nil
}

// identify opens s and sets its format, reading it as YAML first when it
// looks like YAML. It returns false for a file found in a directory that
// is not a result file (listed in imp.Skipped when the reason helps), and
// an error for a file named on the command line that is not one.
func (s *source) identify(imp *Import, yamlDocs map[string]*yaml.Node, opts Options) (bool, error) {
	in, head, err := openInput(s.path, opts.MaxFileBytes)
	if err != nil {
		return false, err
	}
	s.in = in
	if !opensJSON(head) && looksLikeYAML(head) {
		if ok, err := s.readAsYAML(imp, yamlDocs, opts); !ok {
			return false, err
		}
		in, head = s.in, s.in.head
	}
	d, err := detectHead(s.path, head)
	if err != nil && s.yaml {
		err.(*SourceError).Msg = strings.Replace(err.(*SourceError).Msg, "a JSON object", "a YAML mapping", 1)
	}
	s.multiValue = d.shape.values > 1
	switch {
	case !s.named && d.notJSON:
		// A directory holds CSVs, logs and plots too: not result
		// files, and not listed.
		in.close()
		return false, nil
	case opts.Format != "" && err == nil && slices.Contains(companionOf[d.format], opts.Format):
		// --format names the records' format; the summaries read with
		// them keep theirs.
		s.format = d.format
	case opts.Format != "":
		s.format, s.forced = opts.Format, true
	case len(d.matches) > 1:
		// A result file of two formats at once: reading it as either
		// could drop the other's requests without a word.
		return false, err
	case err != nil && !s.named:
		// A directory holds other JSON files too (GenAI-Perf's
		// llm_inputs.json, a notebook's settings): listed, not read.
		in.close()
		imp.Skipped = append(imp.Skipped, FileFormat{Path: s.path, Note: err.(*SourceError).Msg})
		return false, nil
	case err != nil:
		return false, err
	default:
		s.format = d.format
	}
	return true, nil
}

// readAsYAML reads s, which looks like YAML, and makes its JSON form s's
// input. It returns false for a file found in a directory that is not
// YAML after all (not listed) or, named .yaml, cannot be read (listed in
// imp.Skipped, with why), and an error for a file named on the command
// line.
func (s *source) readAsYAML(imp *Import, yamlDocs map[string]*yaml.Node, opts Options) (bool, error) {
	doc, err := readYAML(s.in, opts.MaxFileBytes)
	s.in.close()
	var se *SourceError
	switch {
	case err != nil && !s.named && errors.As(err, &se) && isYAMLName(s.path):
		// A .yaml file of a directory that cannot be read (too
		// large, broken): listed, with why.
		imp.Skipped = append(imp.Skipped, FileFormat{Path: s.path, Note: strings.TrimPrefix(se.Error(), controls.Escape(s.path)+": ")})
		return false, nil
	case err != nil && !s.named:
		// Not YAML either (a log whose first line reads "key:"):
		// like any file that is not JSON in a directory, not listed.
		return false, nil
	case err != nil:
		return false, err
	}
	s.in, s.yaml = &input{path: s.path, head: doc.json, whole: true, max: opts.MaxFileBytes}, true
	yamlDocs[s.path] = doc.root
	return true, nil
}

// importSources converts each source into runs, in order, and lists each
// in imp.Files (or imp.Skipped) with how it was read; a sweep's warm-up
// files are added last, to the runs they precede.
func importSources(imp *Import, srcs []*source, yamlDocs map[string]*yaml.Node, opts Options) error {
	comp := pairCompanions(srcs)
	var warmups []*source
	for _, s := range srcs {
		switch {
		case s.format == FormatVLLMSweepIndex:
			imp.Skipped = append(imp.Skipped, FileFormat{s.path, s.format, "vllm bench sweep summary: its runs are read from their run=N.json files"})
			continue
		case comp.used[s]:
			imp.Files = append(imp.Files, FileFormat{s.path, s.format, "read with " + comp.usedBy[s]})
			continue
		case s.format == FormatAIPerfGPU || s.format == FormatAIPerfServer:
			// A time series of a run, with no run to attach it to.
			imp.Skipped = append(imp.Skipped, FileFormat{s.path, s.format, "AIPerf " + formatNames[s.format] + " without one profile_export.jsonl in its directory: it belongs to a run's records"})
			continue
		case s.sweepWarmup:
			warmups = append(warmups, s)
			imp.Files = append(imp.Files, FileFormat{s.path, s.format, "vllm bench sweep warm-up: marked as warm-up in the first repeat"})
			continue
		case s.yaml:
			imp.Files = append(imp.Files, FileFormat{s.path, s.format, "read as YAML"})
		default:
			imp.Files = append(imp.Files, FileFormat{s.path, s.format, ""})
		}
		runs, err := importSource(s, comp.of[s], opts)
		if err != nil {
			return withYAMLLine(err, yamlDocs)
		}
		imp.Runs = append(imp.Runs, runs...)
	}
	for _, w := range warmups {
		if err := addSweepWarmup(imp, w, opts); err != nil {
			return err
		}
	}
	return nil
}

// The most run.yaml's provenance keys hold (ingest refuses more): a text
// of at most maxProvenanceText bytes, a list of at most
// maxProvenanceItems entries.
const (
	maxProvenanceText  = 600
	maxProvenanceItems = 64
)

// finishRun drops the tool's figures that are not finite numbers (NaN
// where the tool had nothing to average, or a value beyond float64 once
// converted to benchnote's unit), which run.yaml cannot hold, and says in
// run.yaml how many requests were left out of the run and why.
func finishRun(r *Run) {
	r.Config.Notes = strings.ToValidUTF8(r.Config.Notes, "\uFFFD")
	if p := r.Config.Provenance; p != nil {
		p.Reported = slices.DeleteFunc(p.Reported, func(f ingest.ReportedFigure) bool {
			return math.IsNaN(f.Value) || math.IsInf(f.Value, 0)
		})
		cleanProvenance(p)
	}
	if len(r.Excluded) == 0 || r.Requests == nil || r.Config.Provenance == nil {
		return
	}
	left := 0
	for _, e := range r.Excluded {
		left += e.Requests
	}
	line := fmt.Sprintf("every figure is over the %d requests imported: %d of the file's %d were left out, as benchnote would not read them: %s",
		r.Requests.N, left, r.Requests.N+left, excludedText(r.Excluded))
	p := r.Config.Provenance
	p.Approximate = append(p.Approximate, cutText(line, maxProvenanceText))
}

// cleanProvenance keeps the texts that come from a file (a version, a
// tokenizer's name, a figure's name) inside what run.yaml's reader takes:
// valid UTF-8, not blank, at most maxProvenanceText bytes (cut with
// "..."), lists of at most maxProvenanceItems entries, a token_counts of
// the form ingest reads.
func cleanProvenance(p *ingest.Provenance) {
	text := func(s, blank string) string {
		s = strings.ToValidUTF8(s, "\uFFFD")
		if strings.TrimSpace(s) == "" {
			return blank
		}
		return cutText(s, maxProvenanceText)
	}
	p.Tool = text(p.Tool, "unknown")
	if p.Version != "" {
		p.Version = text(p.Version, "not recorded in the file")
	}
	p.File = text(p.File, "")
	if name, ok := strings.CutPrefix(p.TokenCounts, "tokenizer:"); ok {
		// ingest reads tokenizer:NAME with NAME starting with a non-space
		// and on one line.
		if name == "" || strings.TrimLeft(name, " \t\r\n\v\f") != name || strings.ContainsAny(name, "\r\n") ||
			len(p.TokenCounts) > maxProvenanceText || !utf8.ValidString(name) {
			p.TokenCounts = "tokenizer"
		}
	}
	texts := func(ss []string) []string {
		out := ss[:0]
		for _, s := range ss {
			if s = text(s, ""); s != "" && len(out) < maxProvenanceItems {
				out = append(out, s)
			}
		}
		return out
	}
	p.Recomputed, p.AsReported, p.Approximate = texts(p.Recomputed), texts(p.AsReported), texts(p.Approximate)
	for i, d := range p.Definitions {
		p.Definitions[i] = ingest.Definition{Metric: text(d.Metric, "?"), Source: text(d.Source, "?"), Benchnote: text(d.Benchnote, "?")}
	}
	if len(p.Definitions) > maxProvenanceItems {
		p.Definitions = p.Definitions[:maxProvenanceItems]
	}
	for i, f := range p.Reported {
		p.Reported[i].Key, p.Reported[i].Label, p.Reported[i].Unit = text(f.Key, "?"), text(f.Label, "?"), text(f.Unit, "?")
		p.Reported[i].Note = text(f.Note, "")
	}
	if n := len(p.Reported); n > maxProvenanceItems {
		p.Reported = p.Reported[:maxProvenanceItems]
		if len(p.AsReported) < maxProvenanceItems {
			p.AsReported = append(p.AsReported, fmt.Sprintf("the tool's own figures: the first %d of %d are shown", maxProvenanceItems, n))
		}
	}
}

// excludedText lists exclusions: "2 out of range (the first: $.ttfts[3]: ...); 1 missing field (...)".
func excludedText(ex []Excluded) string {
	var parts []string
	for _, e := range ex {
		parts = append(parts, fmt.Sprintf("%d %s (the first: %s)", e.Requests, e.Reason, e.First))
	}
	return strings.Join(parts, "; ")
}

// cutText shortens s to at most n bytes, at a character boundary, marking
// the cut with "...".
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// importSource runs the importer of s's format.
func importSource(s *source, companions []*source, opts Options) ([]Run, error) {
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []Run
	switch s.format {
	case FormatVLLM:
		runs, err = importVLLM(f, s, opts)
	case FormatSGLang:
		runs, err = importSGLang(f, s, opts)
	case FormatGenAIPerf:
		runs, err = importGenAIPerf(f, s, companions, opts)
	case FormatPerfSummary:
		runs, err = importPerfSummary(f, s, opts)
	case FormatAIPerf:
		runs, err = importAIPerf(f, s, companions, opts)
	case FormatGuideLLM:
		runs, err = importGuideLLM(f, s, opts)
	case FormatLLMPerf:
		runs, err = importLLMPerf(f, s, companions, opts)
	case FormatLLMPerfSummary:
		runs, err = importLLMPerfSummary(f, s, opts)
	case FormatInferencePerf:
		runs, err = importInferencePerf(f, s, companions, opts)
	case FormatInferenceStage:
		runs, err = importInferenceStage(f, s, opts)
	case FormatGenAIBench:
		runs, err = importGenAIBench(f, s, companions, opts)
	case FormatGenAIBenchMeta:
		runs, err = importGenAIBenchMetadata(s)
	case FormatLLMD:
		runs, err = importLLMD(f, s, opts)
	case FormatVLLMSweepIndex, FormatAIPerfGPU, FormatAIPerfServer:
		return nil, nil
	default:
		return nil, fmt.Errorf("%s: unknown format %q", s.path, s.format)
	}
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].Source = s.path
		if p := runs[i].Config.Provenance; p != nil {
			// Tools define their metrics differently: runs of two are
			// never repeats of one another.
			runs[i].traits.add("tool", strings.ReplaceAll(strings.ToLower(p.Tool), " ", "-"), "the file's format")
		}
		if s.sweepSeries != "" {
			runs[i].sweepDir = filepath.Dir(s.path)
		}
		if s.sweepRepeat > ingest.MaxRepeat {
			return nil, &SourceError{File: s.path, Msg: fmt.Sprintf("repeat %d (vllm bench sweep's run=N.json is repeat N+1) is above %s", s.sweepRepeat, textfmt.Thousands(ingest.MaxRepeat))}
		}
		if s.sweepRepeat > 0 && len(runs) == 1 {
			runs[i].Config.Repeat = s.sweepRepeat
		}
	}
	return runs, nil
}

// filesUnder lists the regular files under dir, sorted; hidden files and
// directories are skipped. Detection leaves out those that are not JSON.
func filesUnder(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// companions pairs record files with the summaries that give their level.
type companions struct {
	of     map[*source][]*source
	used   map[*source]bool
	usedBy map[*source]string
}

// pairCompanions pairs, within one directory: LLMPerf responses with the
// LLMPerf summary of the same name prefix; GenAI-Perf's export with its
// summary; AIPerf records with the AIPerf summary; inference-perf records
// with the stage reports.
func pairCompanions(srcs []*source) companions {
	c := companions{of: map[*source][]*source{}, used: map[*source]bool{}, usedBy: map[*source]string{}}
	byDir := map[string][]*source{}
	for _, s := range srcs {
		byDir[filepath.Dir(s.path)] = append(byDir[filepath.Dir(s.path)], s)
	}
	// pair gives s the files of its directory that match; one is the most
	// a record file may have, unless several are expected (stage reports):
	// with two summaries, pairing none beats guessing.
	pair := func(s *source, several bool, match func(o *source) bool) {
		var found []*source
		for _, o := range byDir[filepath.Dir(s.path)] {
			if match(o) {
				found = append(found, o)
			}
		}
		if len(found) > 1 && !several {
			return
		}
		c.of[s] = append(c.of[s], found...)
		for _, o := range found {
			if c.used[o] && c.usedBy[o] != s.path {
				// One companion of several record files (genai-bench's
				// experiment_metadata.json).
				c.usedBy[o] = "the record files of its directory"
				continue
			}
			c.used[o], c.usedBy[o] = true, s.path
		}
	}
	for _, s := range srcs {
		switch s.format {
		case FormatLLMPerf:
			prefix := strings.TrimSuffix(filepath.Base(s.path), "individual_responses.json")
			pair(s, false, func(o *source) bool {
				return o.format == FormatLLMPerfSummary && (prefix == filepath.Base(s.path) || strings.HasPrefix(filepath.Base(o.path), prefix))
			})
		case FormatAIPerf:
			// One each of the summary, the GPU telemetry and the server
			// metrics of its directory.
			for _, f := range []Format{FormatPerfSummary, FormatAIPerfGPU, FormatAIPerfServer} {
				pair(s, false, func(o *source) bool { return o.format == f })
			}
		case FormatGenAIPerf:
			// profile_export.json beside its profile_export_genai_perf.json
			// (any prefix shared), or an export renamed by its
			// --profile-export-file beside the one summary of its directory.
			prefix, renamed := strings.CutSuffix(filepath.Base(s.path), "profile_export.json")
			pair(s, false, func(o *source) bool {
				return o.format == FormatPerfSummary && (!renamed || strings.HasPrefix(filepath.Base(o.path), prefix+"profile_export_genai_perf"))
			})
		case FormatInferencePerf:
			pair(s, true, func(o *source) bool { return o.format == FormatInferenceStage })
		case FormatGenAIBench:
			pair(s, false, func(o *source) bool { return o.format == FormatGenAIBenchMeta })
		}
	}
	return c
}

// Warnings lists what the caller should tell the user about an import.
// benchnote reads the runs of one series at one load level as repeats, so
// it warns when such runs record different environments (a setting no
// series label tells apart: runs of two tools are two series); it names each run
// left out as the same run as another (the same file given twice,
// identical records); it warns when no file held per-request records,
// since validate and report need at least one run, and when requests of a
// file were left out. Each warning is one line, its control characters
// escaped.
func (imp *Import) Warnings() []string {
	type group struct {
		env  map[string][]string // key → distinct values, in run order
		keys []string
	}
	type key struct {
		series ingest.Series
		level  ingest.LoadLevel
	}
	groups := map[key]*group{}
	var order []key
	perRequest := 0
	for _, r := range imp.Runs {
		if r.Requests == nil {
			continue
		}
		perRequest++
		k := key{r.Config.Series, r.Config.Load}
		g := groups[k]
		if g == nil {
			g = &group{env: map[string][]string{}}
			groups[k] = g
			order = append(order, k)
		}
		seen := map[string]bool{}
		for _, kv := range r.Env {
			if seen[kv.Key] {
				continue
			}
			seen[kv.Key] = true
			if _, ok := g.env[kv.Key]; !ok {
				g.keys = append(g.keys, kv.Key)
			}
			if !slices.Contains(g.env[kv.Key], kv.Value) {
				g.env[kv.Key] = append(g.env[kv.Key], kv.Value)
			}
		}
	}
	const advice = "they are read as repeats of one level; import the results of different systems, settings or workloads into different sweeps, or give each its series in run.yaml"
	var out []string
	for _, k := range order {
		g := groups[k]
		var differ []string
		for _, key := range g.keys {
			if v := g.env[key]; len(v) > 1 {
				differ = append(differ, fmt.Sprintf("%s (%s)", key, strings.Join(v, ", ")))
			}
		}
		if len(differ) > 0 {
			at := k.level.Describe()
			if !k.series.IsZero() {
				at += " of series " + k.series.String()
			}
			out = append(out, fmt.Sprintf("runs at %s differ in %s: %s", at, strings.Join(differ, "; "), advice))
		}
	}
	for _, d := range imp.Duplicates {
		kept := imp.Runs[d.Kept]
		as := ""
		if kept.Dir != "" {
			as = ", written as " + kept.Dir
		}
		out = append(out, fmt.Sprintf("%s is the same run as %s%s (%s): imported once, not as a second repeat",
			describeRun(d.Source, d.Where), describeRun(kept.Source, kept.Where), as, d.Reason))
	}
	for _, r := range imp.Runs {
		if len(r.Excluded) == 0 || r.Requests == nil {
			continue
		}
		left := 0
		for _, e := range r.Excluded {
			left += e.Requests
		}
		dir := r.Dir
		if dir == "" {
			dir = "its run"
		}
		out = append(out, fmt.Sprintf("%s: %d of %d requests left out of %s, as benchnote would not read them: %s",
			r.Source, left, r.Requests.N+left, dir, excludedText(r.Excluded)))
	}
	if perRequest == 0 && len(imp.Runs) > 0 {
		out = append(out, "no file held per-request records: the sweep holds only the tools' own figures (reported.yaml), which validate and report show as reported, with nothing recomputed (import per-request results for benchnote's own figures)")
	}
	// Each warning is one line: names and values from the files (a model
	// name with a newline) must not start another.
	for i, w := range out {
		out[i] = controls.Escape(w)
	}
	return out
}
