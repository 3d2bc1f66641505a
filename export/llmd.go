// Package export writes benchnote's analysis in the formats of other
// tools. It reads an analyze.Summary and formats it; it computes no
// statistic of its own beyond the median across runs of a count.
//
// The one format is llm-d's Benchmark Report v0.2 (llm-d-benchmark's
// common result schema, br_v0_2_json_schema.json): one report per stage,
// and benchnote writes one stage per load level. Each figure of a stage
// is the median across the level's runs of that run's statistic, as in
// summary.json (ttft.p95 is the median of the runs' p95s, not the p95 of
// the pooled requests); run.description, run.keywords and the load's
// description say so, since a report's reader would otherwise take them
// for one run's figures.
package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// LLMDVersion is the Benchmark Report version written.
const LLMDVersion = "0.2"

// ExportKeyword is in run.keywords of every report benchnote exports.
const ExportKeyword = "benchnote-export"

// MediansKeyword says, in run.keywords, that the figures are medians
// across runs.
const MediansKeyword = "medians-across-runs"

// Stage is one exported report: one load level of the summary.
type Stage struct {
	// Name is the report's file name: the stage number and the level's
	// directory name ("benchmark_report_v0.2_stage_0_c16.yaml").
	Name string
	// Level is the level exported.
	Level analyze.LevelKey
	// Report is the report.
	Report *LLMDReport
}

// LLMDReport is a Benchmark Report v0.2, with the members benchnote
// writes, in the schema's order.
type LLMDReport struct {
	Version  string       `json:"version" yaml:"version"`
	Run      llmdRun      `json:"run" yaml:"run"`
	Scenario llmdScenario `json:"scenario" yaml:"scenario"`
	Results  llmdResults  `json:"results" yaml:"results"`
}

type llmdRun struct {
	UID         string   `json:"uid" yaml:"uid"`
	EID         string   `json:"eid,omitempty" yaml:"eid,omitempty"`
	Description string   `json:"description" yaml:"description"`
	Keywords    []string `json:"keywords" yaml:"keywords"`
}

type llmdScenario struct {
	Load llmdLoad `json:"load" yaml:"load"`
}

type llmdLoad struct {
	Metadata     llmdLoadMetadata     `json:"metadata" yaml:"metadata"`
	Standardized llmdLoadStandardized `json:"standardized" yaml:"standardized"`
	Native       llmdLoadNative       `json:"native" yaml:"native"`
}

type llmdLoadMetadata struct {
	SchemaVersion string `json:"schema_version" yaml:"schema_version"`
	Description   string `json:"description" yaml:"description"`
}

type llmdLoadStandardized struct {
	Tool         string      `json:"tool" yaml:"tool"`
	ToolVersion  string      `json:"tool_version" yaml:"tool_version"`
	Source       string      `json:"source" yaml:"source"`
	Stage        int         `json:"stage" yaml:"stage"`
	InputSeqLen  llmdSeqLen  `json:"input_seq_len" yaml:"input_seq_len"`
	OutputSeqLen *llmdSeqLen `json:"output_seq_len,omitempty" yaml:"output_seq_len,omitempty"`
	RateQPS      *float64    `json:"rate_qps,omitempty" yaml:"rate_qps,omitempty"`
	Concurrency  *int        `json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
}

type llmdSeqLen struct {
	Distribution string  `json:"distribution" yaml:"distribution"`
	Value        float64 `json:"value" yaml:"value"`
}

type llmdLoadNative struct {
	Config llmdNativeConfig `json:"config" yaml:"config"`
}

// llmdNativeConfig is benchnote's own record of the stage: the level as
// benchnote names it (rate inf has no standardized form in JSON), the
// series, the runs.
type llmdNativeConfig struct {
	Benchnote llmdBenchnote `json:"benchnote" yaml:"benchnote"`
}

type llmdBenchnote struct {
	Level     string            `json:"level" yaml:"level"`
	Arrival   string            `json:"arrival,omitempty" yaml:"arrival,omitempty"`
	Series    map[string]string `json:"series,omitempty" yaml:"series,omitempty"`
	Runs      []string          `json:"runs" yaml:"runs"`
	Statistic string            `json:"statistic" yaml:"statistic"`
	Source    string            `json:"source" yaml:"source"`
}

type llmdResults struct {
	RequestPerformance llmdRequestPerformance `json:"request_performance" yaml:"request_performance"`
}

type llmdRequestPerformance struct {
	Aggregate llmdAggregate `json:"aggregate" yaml:"aggregate"`
}

type llmdAggregate struct {
	Requests   llmdRequests    `json:"requests" yaml:"requests"`
	Latency    *llmdLatency    `json:"latency,omitempty" yaml:"latency,omitempty"`
	Throughput *llmdThroughput `json:"throughput,omitempty" yaml:"throughput,omitempty"`
}

type llmdRequests struct {
	Total        int             `json:"total" yaml:"total"`
	Failures     int             `json:"failures" yaml:"failures"`
	InputLength  *llmdStatistics `json:"input_length,omitempty" yaml:"input_length,omitempty"`
	OutputLength *llmdStatistics `json:"output_length,omitempty" yaml:"output_length,omitempty"`
}

type llmdLatency struct {
	TimeToFirstToken   *llmdStatistics `json:"time_to_first_token,omitempty" yaml:"time_to_first_token,omitempty"`
	TimePerOutputToken *llmdStatistics `json:"time_per_output_token,omitempty" yaml:"time_per_output_token,omitempty"`
	InterTokenLatency  *llmdStatistics `json:"inter_token_latency,omitempty" yaml:"inter_token_latency,omitempty"`
	RequestLatency     *llmdStatistics `json:"request_latency,omitempty" yaml:"request_latency,omitempty"`
}

type llmdThroughput struct {
	OutputTokenRate *llmdStatistics `json:"output_token_rate,omitempty" yaml:"output_token_rate,omitempty"`
	RequestRate     *llmdStatistics `json:"request_rate,omitempty" yaml:"request_rate,omitempty"`
}

// llmdStatistics is the schema's Statistics: units and mean required.
type llmdStatistics struct {
	Units string   `json:"units" yaml:"units"`
	Mean  float64  `json:"mean" yaml:"mean"`
	P50   *float64 `json:"p50,omitempty" yaml:"p50,omitempty"`
	P95   *float64 `json:"p95,omitempty" yaml:"p95,omitempty"`
	P99   *float64 `json:"p99,omitempty" yaml:"p99,omitempty"`
}

// uidPlaceholder stands for run.uid while the report's digest is taken:
// the uid is the first 32 hex digits of the SHA-256 of the file with the
// placeholder in its place, so that a file benchnote wrote, unchanged, is
// told from one it did not write or one edited since (see Ours).
var uidPlaceholder = strings.Repeat("0", 32)

// LLMDStages builds one report per level of s, in the summary's order;
// source names what was analysed (a sweep directory or summary.json), for
// the reports' descriptions. A level whose runs all failed has no
// figures: it is left out and named in leftOut.
func LLMDStages(s *analyze.Summary, source string) (stages []Stage, leftOut []string, err error) {
	runsByDir := map[string]analyze.RunSummary{}
	for _, r := range s.Runs {
		runsByDir[r.Dir] = r
	}
	eid := digest([]byte(source + "\x00" + s.Title))
	var out []Stage
	for _, lv := range s.Levels {
		if len(lv.Runs) == 0 {
			leftOut = append(leftOut, levelLabel(lv.LevelKey))
			continue
		}
		l := &llmdLevel{Level: lv}
		for _, dir := range lv.Runs {
			if r, ok := runsByDir[dir]; ok {
				l.summaries = append(l.summaries, r)
			}
		}
		out = append(out, l.stage(len(out), source, eid))
	}
	if len(out) == 0 {
		return nil, leftOut, fmt.Errorf("no level with a usable run to export (a sweep of the tools' aggregates only has no level statistics)")
	}
	return out, leftOut, nil
}

// llmdLevel is a level of the summary (Runs names its runs) with the
// summaries of those runs, read for one stage.
type llmdLevel struct {
	analyze.Level
	summaries []analyze.RunSummary
}

// stage builds the level's report, stage number stage of those exported.
func (l *llmdLevel) stage(stage int, source, eid string) Stage {
	load := l.Load()
	levelName := load.DirName()
	if !l.Series.IsZero() {
		levelName = l.Series.String() + "/" + levelName
	}
	rep := &LLMDReport{Version: LLMDVersion}
	rep.Run = llmdRun{
		UID: uidPlaceholder, EID: eid,
		Description: fmt.Sprintf("benchnote export of %s, level %s (stage %d): every figure is the median across the level's %d runs of each run's statistic, as in benchnote's summary.json; percentiles are each run's, not pooled over the level's requests",
			source, levelName, stage, len(l.summaries)),
		Keywords: []string{ExportKeyword, MediansKeyword},
	}
	rep.Scenario.Load = llmdLoad{
		Metadata: llmdLoadMetadata{SchemaVersion: "0.0.1",
			Description: "benchnote's analysis of the level's runs; input and output lengths are the median across runs of each run's mean (observed lengths, not the workload's settings)"},
		Standardized: l.standardized(stage),
		Native: llmdLoadNative{Config: llmdNativeConfig{Benchnote: llmdBenchnote{
			Level: load.Key(), Arrival: load.Arrival, Series: seriesLabels(l.Series), Runs: l.Runs,
			Statistic: "median across runs of each run's statistic",
			Source:    source,
		}}},
	}
	rep.Results.RequestPerformance.Aggregate = l.aggregate()
	return Stage{
		Name:   fmt.Sprintf("benchmark_report_v0.2_stage_%d_%s.yaml", stage, strings.ReplaceAll(levelName, "/", "_")),
		Level:  l.LevelKey,
		Report: rep,
	}
}

// standardized is the schema's standardized load of the level.
func (l *llmdLevel) standardized(stage int) llmdLoadStandardized {
	load := l.Load()
	std := llmdLoadStandardized{Tool: "benchnote", ToolVersion: "n/a", Source: "unknown", Stage: stage,
		InputSeqLen: llmdSeqLen{Distribution: "other", Value: 0}}
	if in := l.length(promptTokens); in != nil {
		std.InputSeqLen.Value = in.Mean
	}
	if o := l.length(outputTokens); o != nil {
		std.OutputSeqLen = &llmdSeqLen{Distribution: "other", Value: o.Mean}
	}
	switch {
	case load.Mode == ingest.ModeConcurrency:
		n := load.Concurrency
		std.Concurrency = &n
	case load.Mode == ingest.ModeRate && !math.IsInf(load.Rate, 1):
		r := load.Rate
		std.RateQPS = &r
	}
	return std
}

// aggregate is the level's request performance: counts, lengths,
// latencies and throughput, each left out when the level has none.
func (l *llmdLevel) aggregate() llmdAggregate {
	total, _ := l.perRun(func(r analyze.RunSummary) float64 { return float64(r.Counts.Measured) })
	failures, _ := l.perRun(func(r analyze.RunSummary) float64 { return float64(r.Counts.Errors) })
	agg := llmdAggregate{Requests: llmdRequests{Total: int(total), Failures: int(failures),
		InputLength:  l.length(promptTokens),
		OutputLength: l.length(outputTokens)}}
	lat := &llmdLatency{
		TimeToFirstToken:   l.stats("ttft", "ms", "ttft.mean"),
		TimePerOutputToken: l.stats("tpot", "ms/token", "tpot.mean"),
		InterTokenLatency:  l.stats("itl", "ms/token", "itl.gap_weighted_mean"),
		RequestLatency:     l.stats("e2e", "ms", "e2e.mean"),
	}
	if *lat != (llmdLatency{}) {
		agg.Latency = lat
	}
	thr := &llmdThroughput{
		OutputTokenRate: l.rate("throughput.client_output_tokens_per_s", "tokens/s"),
		RequestRate:     l.rate("throughput.requests_per_s", "queries/s"),
	}
	if *thr != (llmdThroughput{}) {
		agg.Throughput = thr
	}
	return agg
}

// median is the level's statistic key (the median across its runs).
func (l *llmdLevel) median(key string) (float64, bool) {
	st, ok := l.Stat(key)
	if !ok || !st.Median.Valid() {
		return 0, false
	}
	return float64(st.Median), true
}

// stats returns the level's mean (meanKey) and percentiles (prefix.p50,
// .p95, .p99) in units, or nil without a mean.
func (l *llmdLevel) stats(prefix, units string, meanKey string) *llmdStatistics {
	mean, ok := l.median(meanKey)
	if !ok {
		return nil
	}
	st := &llmdStatistics{Units: units, Mean: mean}
	for _, q := range []struct {
		name string
		to   **float64
	}{{"p50", &st.P50}, {"p95", &st.P95}, {"p99", &st.P99}} {
		if v, ok := l.median(prefix + "." + q.name); ok {
			*q.to = &v
		}
	}
	return st
}

// rate returns the level's statistic key as a mean in units, or nil.
func (l *llmdLevel) rate(key, units string) *llmdStatistics {
	v, ok := l.median(key)
	if !ok {
		return nil
	}
	return &llmdStatistics{Units: units, Mean: v}
}

// perRun is the median across the level's runs of get's finite values.
func (l *llmdLevel) perRun(get func(analyze.RunSummary) float64) (float64, bool) {
	var vs []float64
	for _, r := range l.summaries {
		if v := get(r); !math.IsNaN(v) && !math.IsInf(v, 0) {
			vs = append(vs, v)
		}
	}
	return medianOf(vs)
}

// length returns the median across runs of a length distribution's mean
// and percentiles, in tokens, or nil without a mean.
func (l *llmdLevel) length(get func(analyze.RunSummary) analyze.Distribution) *llmdStatistics {
	mean, ok := l.perRun(func(r analyze.RunSummary) float64 { return float64(get(r).Mean) })
	if !ok {
		return nil
	}
	st := &llmdStatistics{Units: "count", Mean: mean}
	for _, q := range []struct {
		name string
		to   **float64
	}{{"p50", &st.P50}, {"p95", &st.P95}, {"p99", &st.P99}} {
		if v, ok := l.perRun(func(r analyze.RunSummary) float64 { return float64(get(r).Value(q.name)) }); ok {
			*q.to = &v
		}
	}
	return st
}

// promptTokens and outputTokens pick a run's prompt and output lengths.
func promptTokens(r analyze.RunSummary) analyze.Distribution { return r.Workload.PromptTokens }
func outputTokens(r analyze.RunSummary) analyze.Distribution { return r.Workload.OutputTokens }

// Label names the stage's level with its series: "c=16", "model=x c=16".
func (s Stage) Label() string { return levelLabel(s.Level) }

// levelLabel names a level with its series: "c=16", "model=x c=16".
func levelLabel(k analyze.LevelKey) string {
	if k.Series.IsZero() {
		return k.Load().Key()
	}
	return k.Series.String() + " " + k.Load().Key()
}

// seriesLabels returns a series' labels, or nil for none.
func seriesLabels(s ingest.Series) map[string]string {
	if s.IsZero() {
		return nil
	}
	return s.Labels()
}

// medianOf is the median of vs (the mean of the middle two for an even
// count), false for none.
func medianOf(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2], true
	}
	return (vs[n/2-1] + vs[n/2]) / 2, true
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// JSON renders the report as indented JSON, its uid set (see Ours).
func (r *LLMDReport) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return sealed(append(b, '\n'))
}

// YAML renders the report as YAML, after a comment saying what it holds,
// its uid set (see Ours).
func (r *LLMDReport) YAML() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# llm-d Benchmark Report v0.2 written by benchnote export: each figure is the\n# median across the level's runs of each run's statistic (see run.description).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return sealed(b.Bytes())
}

// sealed replaces the uid placeholder in b by the digest of b.
func sealed(b []byte) ([]byte, error) {
	if bytes.Count(b, []byte(uidPlaceholder)) != 1 {
		return nil, fmt.Errorf("export: the uid placeholder is not in the report once")
	}
	return bytes.Replace(b, []byte(uidPlaceholder), []byte(digest(b)), 1), nil
}

// uidPattern finds run.uid in a report benchnote wrote, as JSON or YAML.
var uidPattern = regexp.MustCompile(`(?m)^ +(?:"uid": "|uid: "?)([0-9a-f]{32})"?,?$`)

// Ours reports whether b is a report benchnote exported and nobody has
// changed since: its uid is the digest of the file with the uid left out.
func Ours(b []byte) bool {
	m := uidPattern.FindSubmatchIndex(b)
	if m == nil || !bytes.Contains(b, []byte(ExportKeyword)) {
		return false
	}
	uid := string(b[m[2]:m[3]])
	blank := slices.Concat(b[:m[2]], []byte(uidPlaceholder), b[m[3]:])
	return digest(blank) == uid
}
