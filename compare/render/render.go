// Package render writes a comparison (compare.Result) as compare.md,
// compare.html and compare.json.
//
// compare.md is meant for a pull-request comment: it starts with the
// verdict and the flagged changes, most severe first, carries no images,
// and stays under MaxMarkdown characters whatever the sweep size, saying
// what it left out. compare.html holds everything, with base-vs-new
// charts; compare.json holds the same result, versioned by Schema.
//
// Rendering only formats: every number comes from the Result (and the
// two summaries for chart points). Numbers are formatted as the report
// formats them, and the page uses the report's template and style.
package render

import (
	"encoding/json"
	"fmt"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/report"
)

// Schema identifies the layout of compare.json.
const Schema = "benchnote.compare/v1"

// Output file names.
const (
	MarkdownFile = "compare.md"
	HTMLFile     = "compare.html"
	JSONFile     = "compare.json"
)

// MaxMarkdown is the most characters (runes) compare.md may hold: a
// GitHub comment holds 65,536, and the rest is left for a wrapper.
const MaxMarkdown = 60000

// Input is what a rendering needs.
type Input struct {
	Result *compare.Result
	// Base and New are the compared summaries, for the charts.
	Base, New *analyze.Summary
	// Gate is the CI decision and the options it was taken with.
	Gate        compare.Gate
	GateOptions compare.GateOptions
}

// Build renders every output file, keyed by file name.
func Build(in Input) (map[string][]byte, error) {
	md := markdown(in, MaxMarkdown)
	page, err := html(in)
	if err != nil {
		return nil, err
	}
	js, err := jsonDoc(in)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{MarkdownFile: []byte(md), HTMLFile: page, JSONFile: js}, nil
}

// document is compare.json.
type document struct {
	Schema           string `json:"schema"`
	BenchnoteVersion string `json:"benchnote_version"`
	*compare.Result
	FailOn            string       `json:"fail_on"`
	AllowIncomparable bool         `json:"allow_incomparable"`
	Gate              compare.Gate `json:"gate"`
	// Rules are the comparability rules that applied.
	Rules []compare.Rule `json:"rules"`
}

func jsonDoc(in Input) ([]byte, error) {
	d := document{Schema: Schema, BenchnoteVersion: report.Version, Result: in.Result,
		FailOn: in.GateOptions.FailOn, AllowIncomparable: in.GateOptions.AllowIncomparable, Gate: in.Gate, Rules: compare.Rules}
	if d.Gate.Lines == nil {
		d.Gate.Lines = []string{}
	}
	js, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("compare.json: %w", err)
	}
	return append(js, '\n'), nil
}
