// Package importer converts the result files of other LLM-serving benchmark
// tools (vLLM bench serve, SGLang bench_serving, GenAI-Perf, AIPerf,
// GuideLLM, LLMPerf, inference-perf) into benchnote's recorded-run layout:
// one run directory per run, holding requests.parquet, run.yaml and
// env.json, so that validate and report read an import like any sweep.
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
// Files are read as a stream of JSON tokens: memory grows with the number
// of requests and chunk timings kept, not with the text around them, and
// a file claiming more than Options.MaxRequests requests, or holding a
// string longer than 64 MiB, is refused with an error.
package importer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/benchnote/benchnote/ingest"
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
)

// Formats lists the values --format accepts, in documentation order.
var Formats = []Format{FormatVLLM, FormatSGLang, FormatGenAIPerf, FormatPerfSummary, FormatAIPerf, FormatGuideLLM,
	FormatLLMPerf, FormatLLMPerfSummary, FormatInferencePerf, FormatInferenceStage}

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
	// Series separates runs that share a level but not a configuration
	// (a vLLM sweep's server settings); "" for none. It becomes a path
	// segment above the level directory.
	Series string
	// Source is the file the run came from, as given.
	Source string
	// Dir is the run's directory in the sweep, set by Layout.
	Dir string
}

// Import is everything read from the files given to one import.
type Import struct {
	Runs []Run
	// Files lists each file read, with the format it was read as, in the
	// order read; Skipped lists files read but not imported, with why.
	Files   []FileFormat
	Skipped []FileFormat
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
}

// source is one input file.
type source struct {
	path   string // as given (or found under a directory given)
	named  bool   // given on the command line, not found under a directory
	format Format
	// multiValue is set when the file holds several top-level values (JSON
	// Lines), so errors name the line.
	multiValue bool
	// sweep is set for a vLLM bench sweep file: its combination directory
	// (the series) and its role ("run=N.json" repeat N+1, warmup.json).
	sweepSeries string
	sweepRepeat int
	sweepWarmup bool
}

func (s *source) open() (*os.File, error) { return os.Open(s.path) }

// ImportFiles reads every file given (a directory is searched for result
// files, in path order) and converts each into runs.
func ImportFiles(paths []string, opts Options) (*Import, error) {
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultMaxRequests
	}
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
	imp := &Import{}
	kept := srcs[:0]
	for _, s := range srcs {
		f, sh, err := detectFile(s.path)
		if sh != nil {
			s.multiValue = sh.values > 1
		}
		switch {
		case opts.Format != "" && err == nil && slices.Contains(companionOf[f], opts.Format):
			// --format names the records' format; the summaries read with
			// them keep theirs.
			s.format = f
		case opts.Format != "":
			s.format = opts.Format
		case err != nil && !s.named:
			// A directory holds other JSON files too (GenAI-Perf's
			// llm_inputs.json, a notebook's settings): listed, not read.
			var se *SourceError
			if !errors.As(err, &se) {
				return nil, err
			}
			imp.Skipped = append(imp.Skipped, FileFormat{Path: s.path, Note: se.Msg})
			continue
		case err != nil:
			return nil, err
		default:
			s.format = f
		}
		kept = append(kept, s)
	}
	srcs = kept
	markSweepFiles(srcs)
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
		case s.sweepWarmup:
			warmups = append(warmups, s)
			imp.Files = append(imp.Files, FileFormat{s.path, s.format, "vllm bench sweep warm-up: marked as warm-up in the first repeat"})
			continue
		default:
			imp.Files = append(imp.Files, FileFormat{s.path, s.format, ""})
		}
		runs, err := importSource(s, comp.of[s], opts)
		if err != nil {
			return nil, err
		}
		imp.Runs = append(imp.Runs, runs...)
	}
	for _, w := range warmups {
		if err := addSweepWarmup(imp, w, opts); err != nil {
			return nil, err
		}
	}
	return imp, nil
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
	case FormatVLLMSweepIndex:
		return nil, nil
	default:
		return nil, fmt.Errorf("%s: unknown format %q", s.path, s.format)
	}
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].Source = s.path
		if s.sweepSeries != "" {
			runs[i].Series = s.sweepSeries
		}
		if s.sweepRepeat > 0 && len(runs) == 1 {
			runs[i].Config.Repeat = s.sweepRepeat
		}
	}
	return runs, nil
}

// filesUnder lists the regular files under dir whose content may be a
// result (JSON or JSON Lines), sorted; hidden files and directories are
// skipped.
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
		if d.Type().IsRegular() && looksLikeJSON(p) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// looksLikeJSON reports whether a file's first non-blank byte opens a JSON
// object or array: directories given to import hold CSVs, logs and plots
// too, which are not result files.
func looksLikeJSON(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	for _, c := range buf[:n] {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
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
		c.of[s] = found
		for _, o := range found {
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
			pair(s, false, func(o *source) bool { return o.format == FormatPerfSummary })
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
		}
	}
	return c
}

// Warnings lists what the caller should tell the user about an import.
// benchnote reads every run at one load level as a repeat of that level,
// whatever directory (series) it sits in, so it warns when the runs of one
// level come from different tools, from different series (a vLLM sweep's
// server settings) or record different environments (another model, or
// another workload in one JSON Lines file); and when no file held
// per-request records, since validate and report need at least one run.
func (imp *Import) Warnings() []string {
	type group struct {
		tools, series []string
		env           map[string][]string // key → distinct values, in run order
		keys          []string
	}
	groups := map[ingest.LoadLevel]*group{}
	var order []ingest.LoadLevel
	perRequest := 0
	for _, r := range imp.Runs {
		if r.Requests == nil {
			continue
		}
		perRequest++
		g := groups[r.Config.Load]
		if g == nil {
			g = &group{env: map[string][]string{}}
			groups[r.Config.Load] = g
			order = append(order, r.Config.Load)
		}
		if t := r.Config.Provenance.Tool; !slices.Contains(g.tools, t) {
			g.tools = append(g.tools, t)
		}
		if !slices.Contains(g.series, r.Series) {
			g.series = append(g.series, r.Series)
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
	const advice = "they are read as repeats of one level; import the results of different systems, settings or workloads into different sweeps"
	var out []string
	for _, l := range order {
		g := groups[l]
		var why []string
		if len(g.tools) > 1 {
			why = append(why, fmt.Sprintf("come from different tools (%s)", strings.Join(g.tools, ", ")))
		}
		if len(g.series) > 1 {
			names := make([]string, len(g.series))
			for i, sr := range g.series {
				names[i] = sr
				if sr == "" {
					names[i] = "(none)"
				}
			}
			why = append(why, fmt.Sprintf("come from %d series (%s)", len(g.series), strings.Join(names, ", ")))
		}
		var differ []string
		for _, k := range g.keys {
			if v := g.env[k]; len(v) > 1 {
				differ = append(differ, fmt.Sprintf("%s (%s)", k, strings.Join(v, ", ")))
			}
		}
		if len(differ) > 0 {
			why = append(why, "differ in "+strings.Join(differ, "; "))
		}
		if len(why) > 0 {
			out = append(out, fmt.Sprintf("runs at %s %s: %s", l.Describe(), strings.Join(why, " and "), advice))
		}
	}
	if perRequest == 0 && len(imp.Runs) > 0 {
		out = append(out, "no file held per-request records: the sweep holds only the tools' own figures (reported.yaml), which validate and report show as reported, with nothing recomputed (import per-request results for benchnote's own figures)")
	}
	return out
}
