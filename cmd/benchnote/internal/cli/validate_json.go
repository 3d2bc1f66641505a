package cli

import (
	"encoding/json"
	"io"
	"time"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/report"
)

// validateSchema names the layout of "benchnote validate --json". It
// changes when a field is removed, renamed or changes meaning; new fields
// may be added within a version. docs/cli.md describes every field.
const validateSchema = "benchnote.validate/v1"

// validateDoc is the document validate --json prints. Its fields are
// declared here, not borrowed from ingest or analyze, so the schema only
// changes on purpose. Lists are [] when empty, never null.
type validateDoc struct {
	Schema      string            `json:"schema"`
	Version     string            `json:"benchnote_version"`
	Sweep       string            `json:"sweep"`
	Verdict     string            `json:"verdict"`
	ExitCode    int               `json:"exit_code"`
	Counts      validateCounts    `json:"counts"`
	Method      validateMethod    `json:"method"`
	Runs        []validateRun     `json:"runs"`
	Diagnostics []validateDiag    `json:"diagnostics"`
	Findings    []validateFinding `json:"findings"`
}

// validateCounts counts errors and warnings over diagnostics and findings
// together, as the verdict does.
type validateCounts struct {
	Runs       int `json:"runs"`
	FailedRuns int `json:"failed_runs"`
	Levels     int `json:"levels"`
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
}

type validateMethod struct {
	Percentile string `json:"percentile"`
	MAD        string `json:"mad"`
	Warmup     string `json:"warmup"`
}

type validateRun struct {
	Dir string `json:"dir"`
	// Level names the run's load level ("concurrency 16", "16 req/s"),
	// empty when it could not be told; Concurrency is set for concurrency
	// levels only.
	Level       string `json:"level"`
	Concurrency int    `json:"concurrency,omitempty"`
	// Series is the run's configuration labels, left out when it has none.
	Series       ingest.Series    `json:"series,omitzero"`
	Repeat       int              `json:"repeat"`
	Status       string           `json:"status"`
	Format       string           `json:"format"`
	RowsRead     int              `json:"rows_read"`
	RowsExcluded int              `json:"rows_excluded"`
	Excluded     []validateReason `json:"excluded_by_reason"`
	ExtraColumns []string         `json:"extra_columns"`
	Scrapes      validateScrapes  `json:"scrapes"`
	Window       *validateWindow  `json:"window"`
	Environment  []validateEnv    `json:"environment"`
	// DuplicateOf names the run whose requests file this one's holds
	// byte for byte (status "duplicate").
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// GPU is the run's GPU telemetry, left out when it has none.
	GPU *validateGPU `json:"gpu,omitempty"`
}

// validateGPU is a run's GPU telemetry files.
type validateGPU struct {
	Files []validateGPUFile `json:"files"`
	GPUs  int               `json:"gpus"`
	// Unplaced says why the samples cannot be placed in the window ("" when they can).
	Unplaced string `json:"unplaced,omitempty"`
	// Unread lists the GPU files that could not be used, with why.
	Unread []validateUnread `json:"unread,omitempty"`
}

type validateUnread struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type validateGPUFile struct {
	Path     string           `json:"path"`
	Format   string           `json:"format"`
	Rows     int              `json:"rows_read"`
	Used     int              `json:"rows_used"`
	Excluded []validateReason `json:"excluded_by_reason"`
}

type validateReason struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

type validateScrapes struct {
	Start bool `json:"start"`
	End   bool `json:"end"`
}

type validateWindow struct {
	Start   string  `json:"start"`
	End     string  `json:"end"`
	Seconds float64 `json:"seconds"`
	Source  string  `json:"source"`
}

type validateEnv struct {
	Path   string `json:"path"`
	Format string `json:"format"`
}

type validateDiag struct {
	Severity   string `json:"severity"`
	File       string `json:"file"`
	Line       int    `json:"line"`
	Column     int    `json:"column"`
	ColumnName string `json:"column_name"`
	Reason     string `json:"reason"`
	Message    string `json:"message"`
}

type validateFinding struct {
	Severity string   `json:"severity"`
	Rule     string   `json:"rule"`
	Source   string   `json:"source"`
	Message  string   `json:"message"`
	Runs     []string `json:"runs"`
}

// writeValidationJSON writes the validate --json document for sw.
func writeValidationJSON(w io.Writer, sw *ingest.Sweep, v validation) error {
	doc := validateDoc{
		Schema:      validateSchema,
		Version:     report.Version,
		Sweep:       sw.Root,
		Verdict:     v.verdict(),
		ExitCode:    v.exitCode(),
		Method:      validateMethod{Percentile: sw.Config.Percentile, MAD: sw.Config.MAD, Warmup: sw.Config.Warmup.Mode},
		Runs:        []validateRun{},
		Diagnostics: []validateDiag{},
		Findings:    []validateFinding{},
	}
	type levelID struct {
		series ingest.Series
		load   ingest.LoadLevel
	}
	levels := map[levelID]bool{}
	for _, r := range sw.Runs {
		levels[levelID{r.Series, r.Load}] = true
		doc.Runs = append(doc.Runs, jsonRun(r))
		if r.Failed {
			doc.Counts.FailedRuns++
		}
	}
	doc.Counts.Runs, doc.Counts.Levels = len(sw.Runs), len(levels)
	doc.Counts.Errors, doc.Counts.Warnings = v.errors, v.warnings
	for _, d := range v.diags {
		doc.Diagnostics = append(doc.Diagnostics, validateDiag{Severity: d.Severity.String(), File: d.File, Line: d.Line, Column: d.Column,
			ColumnName: d.ColumnName, Reason: d.Reason, Message: d.Message})
	}
	for _, f := range v.findings {
		runs := append([]string{}, f.Runs...)
		doc.Findings = append(doc.Findings, validateFinding{Severity: f.Severity, Rule: f.Rule, Source: f.Source, Message: f.Message, Runs: runs})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

func jsonRun(r *ingest.Run) validateRun {
	jr := validateRun{
		Dir: r.Dir, Concurrency: r.Concurrency, Series: r.Series, Repeat: r.Repeat, Status: "ok",
		Excluded: []validateReason{}, ExtraColumns: []string{}, Environment: []validateEnv{},
		Scrapes: validateScrapes{Start: r.ScrapeStart != nil, End: r.ScrapeEnd != nil},
	}
	if r.Load.Valid() {
		jr.Level = r.Load.Describe()
	}
	switch {
	case r.Failed:
		jr.Status = "failed"
	case r.DuplicateOf != "":
		jr.Status, jr.DuplicateOf = "duplicate", r.DuplicateOf
	}
	if r.Requests != nil {
		jr.Format, jr.RowsRead, jr.RowsExcluded = r.Requests.Format, r.Requests.RowsRead, r.Requests.ExcludedRows()
		for _, rc := range r.Requests.ExcludedByReason() {
			jr.Excluded = append(jr.Excluded, validateReason{Reason: rc.Reason, Count: rc.Rows})
		}
		jr.ExtraColumns = append(jr.ExtraColumns, r.Requests.Requests.ExtraColumns...)
	}
	if r.Window.Known() {
		jr.Window = &validateWindow{Start: r.Window.Start.UTC().Format(time.RFC3339Nano), End: r.Window.End.UTC().Format(time.RFC3339Nano),
			Seconds: r.Window.Seconds(), Source: r.Window.Source}
	}
	for _, s := range r.Env.Sources {
		jr.Environment = append(jr.Environment, validateEnv{Path: s.Path, Format: s.Format})
	}
	if g := r.GPU; g != nil {
		jr.GPU = &validateGPU{GPUs: len(g.GPUs), Unplaced: g.Unplaced, Files: []validateGPUFile{}}
		for _, f := range g.Files {
			vf := validateGPUFile{Path: f.Path, Format: f.Format, Rows: f.Rows, Used: f.Used, Excluded: []validateReason{}}
			for _, e := range f.Excluded {
				vf.Excluded = append(vf.Excluded, validateReason{Reason: e.Reason, Count: e.Rows})
			}
			jr.GPU.Files = append(jr.GPU.Files, vf)
		}
		for _, u := range g.Unread {
			jr.GPU.Unread = append(jr.GPU.Unread, validateUnread{Path: u.Path, Reason: u.Reason})
		}
	}
	return jr
}
