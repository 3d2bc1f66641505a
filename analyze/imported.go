package analyze

import (
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// ImportSummary says where an imported run came from: the source tool and
// version, what benchnote recomputed, what it took as reported, what the
// source cannot support, where the token counts came from, how the tool's
// definitions differ from benchnote's, and the tool's own figures beside
// benchnote's.
type ImportSummary struct {
	Tool    string `json:"tool"`
	Version string `json:"version,omitempty"`
	File    string `json:"file,omitempty"`
	// TokenCounts is "usage", "tokenizer:NAME", "tokenizer" or "requested".
	TokenCounts string        `json:"token_counts,omitempty"`
	Recomputed  []string      `json:"recomputed,omitempty"`
	AsReported  []string      `json:"as_reported,omitempty"`
	Unavailable []Unavailable `json:"unavailable,omitempty"`
	Approximate []string      `json:"approximate,omitempty"`
	Definitions []Definition  `json:"definitions,omitempty"`
	// Figures are the tool's own figures, each beside benchnote's figure
	// for the same statistic (NaN when benchnote has none).
	Figures []FigureComparison `json:"figures,omitempty"`
}

// Unavailable is one analysis the source cannot support.
type Unavailable struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Definition is how the source tool defines a metric, and how benchnote does.
type Definition struct {
	Metric    string `json:"metric"`
	Source    string `json:"source"`
	Benchnote string `json:"benchnote"`
}

// FigureComparison is one of the tool's figures beside benchnote's.
type FigureComparison struct {
	Key      string `json:"key"`
	Label    string `json:"label"`
	Unit     string `json:"unit"`
	Reported Num    `json:"reported"`
	// Benchnote is the same statistic under benchnote's definitions, over
	// the run's measured requests; NaN when benchnote has no counterpart
	// or it is unavailable.
	Benchnote Num `json:"benchnote"`
	// Basis says what Benchnote was computed over, or why it is missing.
	Basis string `json:"basis"`
	// Note says how the tool computed its figure, where that differs.
	Note string `json:"note,omitempty"`
}

// ReportedRun is a run known only by its tool's figures: shown as reported
// and kept out of every level statistic.
type ReportedRun struct {
	Dir string `json:"dir"`
	// LevelKey is empty when the tool did not record its level.
	LevelKey
	Repeat int    `json:"repeat"`
	Notes  string `json:"notes,omitempty"`
	// Problems are the diagnostics of its reported.yaml.
	Problems []string      `json:"problems,omitempty"`
	Import   ImportSummary `json:"import"`
}

// importSummary converts a run's provenance; figures are compared with rs.
func importSummary(p *ingest.Provenance, rs *RunSummary) *ImportSummary {
	if p == nil {
		return nil
	}
	s := &ImportSummary{Tool: p.Tool, Version: p.Version, File: p.File, TokenCounts: p.TokenCounts,
		Recomputed: p.Recomputed, AsReported: p.AsReported, Approximate: p.Approximate}
	for _, c := range p.Unavailable {
		s.Unavailable = append(s.Unavailable, Unavailable{Code: c, Text: ingest.UnavailableAnalyses[c]})
	}
	for _, d := range p.Definitions {
		s.Definitions = append(s.Definitions, Definition{Metric: d.Metric, Source: d.Source, Benchnote: d.Benchnote})
	}
	for _, f := range p.Reported {
		fc := FigureComparison{Key: f.Key, Label: f.Label, Unit: f.Unit, Reported: Num(f.Value), Benchnote: NaN, Note: f.Note,
			Basis: "only reported: nothing to recompute it from"}
		if rs != nil {
			if v, basis, ok := rs.gpuFigure(f.Key, f.Label); ok {
				fc.Benchnote, fc.Basis = v, basis
			} else {
				fc.Benchnote, fc.Basis = rs.figure(f.Key)
			}
		}
		s.Figures = append(s.Figures, fc)
	}
	return s
}

// figure returns the run's value of a statistic key as importers name the
// tools' figures ("ttft.p50", "itl.gap_weighted_mean",
// "throughput.requests_per_s", ...) and what it was computed over.
func (r *RunSummary) figure(key string) (Num, string) {
	metric, stat, _ := strings.Cut(key, ".")
	dists := map[string]Distribution{"ttft": r.TTFT, "tpot": r.TPOT, "e2e": r.E2E, "user_tps": r.UserTPS,
		"output_tokens": r.Workload.OutputTokens, "prompt_tokens": r.Workload.PromptTokens}
	if d, ok := dists[metric]; ok {
		if d.Unavailable != "" && d.N == 0 {
			return NaN, d.Unavailable
		}
		basis := d.Sample + ", " + textfmt.Count(d.N, "request", "requests")
		switch stat {
		case "p50", "p95", "p99":
			return d.Value(stat), stat + ", " + d.Method + ", " + basis
		case "mean":
			return d.Mean, d.MeanWeighting + " mean, " + basis
		case "max":
			return d.Max, "maximum, " + basis
		case "n":
			return Num(d.N), "samples: " + basis
		case "sum":
			if !d.Mean.Valid() {
				return NaN, "no samples"
			}
			return Num(float64(d.Mean) * float64(d.N)), "sum over " + basis
		}
		return NaN, "benchnote does not compute " + stat
	}
	switch key {
	case "itl.gap_weighted_mean":
		return r.GapWeightedITL, "gap-weighted mean Σ(E2E − TTFT) / Σ(n − 1) over " + textfmt.Count(r.GapCount, "gap", "gaps")
	case "itl.p50", "itl.p95", "itl.p99":
		if !r.GapDistributionKnown {
			why := r.ITL.Unavailable
			if why == "" {
				why = "per-gap distribution unknown"
			}
			return NaN, why
		}
		return r.ITL.Value(stat), stat + ", " + r.ITL.Method + ", per-gap, " + textfmt.Count(r.ITL.N, "gap", "gaps")
	case "throughput.requests_per_s":
		if r.Throughput.RequestsPerSec.Valid() {
			return r.Throughput.RequestsPerSec, "successful requests completing in the window / window"
		}
		return NaN, "no measurement window"
	case "throughput.client_output_tokens_per_s":
		if r.Throughput.ClientOutputTokensPerSec.Valid() {
			return r.Throughput.ClientOutputTokensPerSec, SampleClientSpan
		}
		why := r.Throughput.ClientUnavailable
		if why == "" {
			why = "unavailable"
		}
		return NaN, why
	case "counts.successful":
		return Num(r.Counts.Measured - r.Counts.Errors), "measured requests without an error (zero-token ones included)"
	case "counts.errors":
		return Num(r.Counts.Errors), "measured requests with an error status"
	case "workload.achieved_concurrency":
		if r.Workload.AchievedConcurrency.Valid() {
			return r.Workload.AchievedConcurrency, "Σ request durations / (T_last − T_first)"
		}
		return NaN, "needs t_request_sent"
	}
	return NaN, "no benchnote counterpart"
}

// runsHave is "1 run has" or "3 runs have": a per-run finding's subject.
func runsHave(n int) string {
	return textfmt.Count(n, "run", "runs") + textfmt.Plural(n, " has", " have")
}

// ofRuns is "1 of 3 runs", "1 of 1 run": k of n runs, the noun agreeing
// with n (the verb that follows agrees with k: textfmt.Plural(k, ...)).
func ofRuns(k, n int) string { return strconv.Itoa(k) + " of " + textfmt.Count(n, "run", "runs") }

// reportedRuns summarises the sweep's runs known only by their tools'
// figures.
func reportedRuns(sw *ingest.Sweep) []ReportedRun {
	var out []ReportedRun
	for _, r := range sw.Reported {
		rr := ReportedRun{Dir: r.Dir, LevelKey: levelKey(r.Series, r.Load), Repeat: r.Repeat, Notes: r.Notes}
		for _, d := range r.Diagnostics {
			rr.Problems = append(rr.Problems, d.String())
		}
		if s := importSummary(r.Provenance, nil); s != nil {
			rr.Import = *s
		}
		out = append(out, rr)
	}
	return out
}
