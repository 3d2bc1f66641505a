package ingest

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Provenance records, for a run converted from another benchmark tool's
// result file by `benchnote import`, where it came from and how much of it
// benchnote recomputed under its own definitions. It is read from run.yaml
// (or reported.yaml) and is nil for runs benchnote did not import.
type Provenance struct {
	// Tool, Version and File name the source: the tool that wrote the
	// result, its version as far as the file tells, and the file's name.
	Tool    string
	Version string
	File    string
	// Recomputed lists what benchnote derived itself from the source's raw
	// records ("E2E = TTFT + Σ ITL").
	Recomputed []string
	// AsReported lists what was taken as the tool reported it.
	AsReported []string
	// Unavailable lists, as codes (see UnavailableAnalyses), what the
	// source cannot support.
	Unavailable []string
	// Approximate lists figures that are only approximate, with why.
	Approximate []string
	// TokenCounts says where completion_tokens came from: "usage" (the
	// server's usage), "tokenizer:NAME" (a client tokenizer), "tokenizer"
	// (a client tokenizer the file does not name) or "requested" (the
	// requested output length).
	TokenCounts string
	// Definitions says how the tool defines the metrics whose definition
	// differs from benchnote's.
	Definitions []Definition
	// Reported holds the tool's own figures, shown beside benchnote's.
	Reported []ReportedFigure
}

// Definition is how a source tool defines one metric, next to benchnote's
// definition of it.
type Definition struct {
	Metric    string `yaml:"metric"`
	Source    string `yaml:"source"`
	Benchnote string `yaml:"benchnote"`
}

// ReportedFigure is one figure as the source tool computed it.
type ReportedFigure struct {
	// Key names the per-run statistic it corresponds to ("ttft.p50",
	// "e2e.mean", "throughput.output_tokens_per_s"; see docs/import.md).
	Key string `yaml:"key"`
	// Label is what the tool calls it ("median TTFT").
	Label string  `yaml:"label"`
	Value float64 `yaml:"value"`
	Unit  string  `yaml:"unit"`
	// Note says how the tool computed it, where that differs from
	// benchnote, and so why the two numbers differ.
	Note string `yaml:"note,omitempty"`
}

// Unavailable analysis codes, written by importers into run.yaml's
// unavailable list.
const (
	UnavailableRequestIDs  = "request_ids"
	UnavailableSendTime    = "send_time"
	UnavailableSendOrder   = "send_order"
	UnavailableWindow      = "window"
	UnavailablePerGapITL   = "per_gap_itl"
	UnavailableWallClock   = "wall_clock"
	UnavailableAllRequests = "all_requests"
	UnavailableTTFT        = "ttft"
)

// UnavailableAnalyses explains each code of run.yaml's unavailable list.
var UnavailableAnalyses = map[string]string{
	UnavailableRequestIDs:  "no request ids in the source: ids were numbered by the importer, so requests cannot be matched with server logs",
	UnavailableSendTime:    "no send timestamps: inter-arrival times, achieved concurrency, client-side throughput and placing requests in a measurement window are unavailable",
	UnavailableSendOrder:   "rows are not in send order: warm-up detection is unavailable (every request is measured)",
	UnavailableWindow:      "no measurement window: requests/s, request goodput per second and server throughput are unavailable",
	UnavailablePerGapITL:   "no per-chunk arrival times: the per-gap ITL distribution is unavailable (the gap-weighted mean ITL stands)",
	UnavailableWallClock:   "send times are on a monotonic clock, not wall-clock time: they give order and gaps but cannot be aligned with scrapes or a window",
	UnavailableAllRequests: "the file holds a sample of the requests, not all of them: every figure is over that sample",
	UnavailableTTFT:        "the responses were not streamed: TTFT, TPOT and ITL are unavailable",
}

// unavailableCodes is UnavailableAnalyses' keys, sorted, for messages.
func unavailableCodes() string {
	var ks []string
	for k := range UnavailableAnalyses {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// Has reports whether the provenance lists unavailable code c.
func (p *Provenance) Has(code string) bool {
	if p == nil {
		return false
	}
	for _, c := range p.Unavailable {
		if c == code {
			return true
		}
	}
	return false
}

// Limits on run.yaml's provenance keys: they are short descriptions, and a
// hostile file gets an error rather than megabytes in every report.
const (
	maxProvenanceText  = 600
	maxProvenanceItems = 64
)

var tokenCountsPattern = regexp.MustCompile(`^(usage|requested|tokenizer(:\S.*)?)$`)

// parseProvenanceKey reads one of run.yaml's import keys into p. It
// reports false when k is not one of them.
func parseProvenanceKey(k, v *yaml.Node, p *Provenance, file string, diags *[]Diagnostic) bool {
	read, ok := provenanceKeys[k.Value]
	if !ok {
		return false
	}
	read(&provenanceParser{file: file, diags: diags}, v, p)
	return true
}

// provenanceKeys reads each of run.yaml's import keys into a Provenance.
var provenanceKeys = map[string]func(pp *provenanceParser, v *yaml.Node, p *Provenance){
	"source":       (*provenanceParser).source,
	"recomputed":   func(pp *provenanceParser, v *yaml.Node, p *Provenance) { p.Recomputed = pp.strs(v, "recomputed") },
	"as_reported":  func(pp *provenanceParser, v *yaml.Node, p *Provenance) { p.AsReported = pp.strs(v, "as_reported") },
	"approximate":  func(pp *provenanceParser, v *yaml.Node, p *Provenance) { p.Approximate = pp.strs(v, "approximate") },
	"unavailable":  (*provenanceParser).unavailable,
	"token_counts": (*provenanceParser).tokenCounts,
	"definitions":  (*provenanceParser).definitions,
	"reported":     (*provenanceParser).reported,
}

// provenanceParser records the problems of run.yaml's import keys.
type provenanceParser struct {
	file  string
	diags *[]Diagnostic
}

// bad records a value of the wrong type or out of range.
func (pp *provenanceParser) bad(n *yaml.Node, key, want string) {
	*pp.diags = append(*pp.diags, Diagnostic{Severity: Error, File: pp.file, Line: n.Line, Column: n.Column, ColumnName: key, Reason: "bad value",
		Message: fmt.Sprintf("%s: expected %s, got %s", key, want, nodeText(n))})
}

// text reads a non-empty string of at most maxProvenanceText bytes.
func (pp *provenanceParser) text(n *yaml.Node, key string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		pp.bad(n, key, "a string")
		return "", false
	}
	if len(n.Value) > maxProvenanceText || strings.TrimSpace(n.Value) == "" {
		pp.bad(n, key, fmt.Sprintf("a non-empty string of at most %d bytes", maxProvenanceText))
		return "", false
	}
	return n.Value, true
}

// list calls each for every entry of a list of at most
// maxProvenanceItems, with the entry's place ("key[i]") for messages.
func (pp *provenanceParser) list(n *yaml.Node, key string, each func(*yaml.Node, string)) {
	if n.Kind != yaml.SequenceNode || len(n.Content) > maxProvenanceItems {
		pp.bad(n, key, fmt.Sprintf("a list of at most %d entries", maxProvenanceItems))
		return
	}
	for i, e := range n.Content {
		each(e, fmt.Sprintf("%s[%d]", key, i))
	}
}

// strs reads a list of texts, leaving out the bad ones.
func (pp *provenanceParser) strs(n *yaml.Node, key string) []string {
	var out []string
	pp.list(n, key, func(e *yaml.Node, at string) {
		if s, ok := pp.text(e, at); ok {
			out = append(out, s)
		}
	})
	return out
}

// mapping calls set for every known field of a mapping, with the field's
// place ("key.field") for messages; an unknown field is a warning.
func (pp *provenanceParser) mapping(n *yaml.Node, key string, fields []string, set func(field string, v *yaml.Node, at string)) {
	if n.Kind != yaml.MappingNode {
		pp.bad(n, key, "a mapping of "+strings.Join(fields, ", "))
		return
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		fk, fv := n.Content[j], n.Content[j+1]
		if !slices.Contains(fields, fk.Value) {
			*pp.diags = append(*pp.diags, unknownKey(pp.file, fk, key))
			continue
		}
		set(fk.Value, fv, key+"."+fk.Value)
	}
}

// textFields reads a mapping whose fields are all texts into the strings
// fields points to.
func (pp *provenanceParser) textFields(n *yaml.Node, key string, fields map[string]*string, order []string) {
	pp.mapping(n, key, order, func(f string, fv *yaml.Node, at string) {
		if s, ok := pp.text(fv, at); ok {
			*fields[f] = s
		}
	})
}

func (pp *provenanceParser) source(v *yaml.Node, p *Provenance) {
	pp.textFields(v, "source", map[string]*string{"tool": &p.Tool, "version": &p.Version, "file": &p.File}, []string{"tool", "version", "file"})
	if p.Tool == "" && v.Kind == yaml.MappingNode {
		pp.bad(v, "source", "a mapping with at least a tool")
	}
}

func (pp *provenanceParser) unavailable(v *yaml.Node, p *Provenance) {
	pp.list(v, "unavailable", func(e *yaml.Node, at string) {
		if _, ok := UnavailableAnalyses[e.Value]; e.Kind != yaml.ScalarNode || !ok {
			pp.bad(e, at, "one of "+unavailableCodes())
			return
		}
		p.Unavailable = append(p.Unavailable, e.Value)
	})
}

func (pp *provenanceParser) tokenCounts(v *yaml.Node, p *Provenance) {
	s, ok := pp.text(v, "token_counts")
	switch {
	case !ok:
	case !tokenCountsPattern.MatchString(s):
		pp.bad(v, "token_counts", `"usage", "requested", "tokenizer" or "tokenizer:NAME"`)
	default:
		p.TokenCounts = s
	}
}

// definitions reads the list of definitions. An entry whose fields were
// read without a problem but that lacks one is refused; an entry with a
// metric is kept even when another field was bad.
func (pp *provenanceParser) definitions(v *yaml.Node, p *Provenance) {
	pp.list(v, "definitions", func(e *yaml.Node, at string) {
		var d Definition
		before := len(*pp.diags)
		pp.textFields(e, at, map[string]*string{"metric": &d.Metric, "source": &d.Source, "benchnote": &d.Benchnote}, []string{"metric", "source", "benchnote"})
		if e.Kind == yaml.MappingNode && len(*pp.diags) == before && (d.Metric == "" || d.Source == "" || d.Benchnote == "") {
			pp.bad(e, at, "a mapping with metric, source and benchnote")
			return
		}
		if d.Metric != "" {
			p.Definitions = append(p.Definitions, d)
		}
	})
}

// reported reads the list of the tool's own figures, as definitions reads
// its list; a figure is kept when it has a key and a value.
func (pp *provenanceParser) reported(v *yaml.Node, p *Provenance) {
	pp.list(v, "reported", func(e *yaml.Node, at string) {
		var f ReportedFigure
		hasValue := false
		before := len(*pp.diags)
		texts := map[string]*string{"key": &f.Key, "label": &f.Label, "unit": &f.Unit, "note": &f.Note}
		pp.mapping(e, at, []string{"key", "label", "value", "unit", "note"}, func(field string, fv *yaml.Node, fat string) {
			if field == "value" {
				if x, ok := pp.finite(fv, fat); ok {
					f.Value, hasValue = x, true
				}
				return
			}
			if s, ok := pp.text(fv, fat); ok {
				*texts[field] = s
			}
		})
		if e.Kind == yaml.MappingNode && len(*pp.diags) == before && (f.Key == "" || f.Label == "" || !hasValue) {
			pp.bad(e, at, "a mapping with key, label, value and unit")
			return
		}
		if f.Key != "" && hasValue {
			p.Reported = append(p.Reported, f)
		}
	})
}

// finite reads a finite number; it records a bad one.
func (pp *provenanceParser) finite(n *yaml.Node, key string) (float64, bool) {
	x, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		pp.bad(n, key, "a finite number")
		return 0, false
	}
	return x, true
}

// nodeText quotes a YAML node's value for a message: its scalar value, or
// its kind for a list or mapping.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return quoteValue(n.Value)
}

// RunConfig is run.yaml (or reported.yaml) as importers write it.
type RunConfig struct {
	Load   LoadLevel
	Repeat int
	// Series is the run's configuration labels (run.yaml's series:); the
	// zero Series writes none.
	Series Series
	// Window is the source tool's measurement window, when it has one.
	Window *Window
	// Clock is "monotonic" when t_request_sent is not wall-clock time.
	Clock      string
	MaxTokens  int
	Notes      string
	Provenance *Provenance
}

// FormatRunConfig renders c as run.yaml: the level, repeat, series, window
// and notes first, then the provenance keys, always in the same order and
// form, so the same run gives the same bytes.
func FormatRunConfig(c RunConfig) ([]byte, error) {
	var doc yaml.Node
	doc.Kind = yaml.MappingNode
	add := func(key string, v *yaml.Node) {
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	scalar := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	number := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
	integer := func(n int) *yaml.Node { return number(strconv.Itoa(n)) }
	strList := func(ss []string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, s := range ss {
			n.Content = append(n.Content, scalar(s))
		}
		return n
	}
	mapOf := func(kv ...any) *yaml.Node {
		n := &yaml.Node{Kind: yaml.MappingNode}
		for i := 0; i+1 < len(kv); i += 2 {
			v, ok := kv[i+1].(*yaml.Node)
			if !ok || v == nil {
				continue
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[i].(string)}, v)
		}
		return n
	}
	switch {
	case c.Load.Mode == ModeConcurrency:
		add("concurrency", integer(c.Load.Concurrency))
	case c.Load.Unbounded():
		add("rate", &yaml.Node{Kind: yaml.ScalarNode, Value: "inf"})
	case c.Load.Mode == ModeRate:
		add("rate", number(FormatRate(c.Load.Rate)))
		if c.Load.Arrival != "" {
			add("arrival", scalar(c.Load.Arrival))
		}
	}
	if c.Repeat > 0 {
		add("repeat", integer(c.Repeat))
	}
	if !c.Series.IsZero() {
		labels := &yaml.Node{Kind: yaml.MappingNode}
		c.Series.each(func(name, value string) {
			v := scalar(value)
			if _, err := strconv.ParseFloat(value, 64); err == nil {
				// A number is written plain (input_len: 1024); its text is
				// the label, as parseSeriesNode reads it.
				v = number(value)
			}
			labels.Content = append(labels.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, v)
		})
		add("series", labels)
	}
	if c.Window != nil {
		add("window", mapOf("start", number(formatUnix(c.Window.Start.UnixNano())), "end", number(formatUnix(c.Window.End.UnixNano()))))
	}
	if c.Clock != "" {
		add("clock", scalar(c.Clock))
	}
	if c.MaxTokens > 0 {
		add("max_tokens", integer(c.MaxTokens))
	}
	if c.Notes != "" {
		add("notes", scalar(c.Notes))
	}
	if p := c.Provenance; p != nil {
		src := mapOf("tool", scalar(p.Tool))
		if p.Version != "" {
			src.Content = append(src.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "version"}, scalar(p.Version))
		}
		if p.File != "" {
			src.Content = append(src.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "file"}, scalar(p.File))
		}
		add("source", src)
		if p.TokenCounts != "" {
			add("token_counts", scalar(p.TokenCounts))
		}
		for _, l := range []struct {
			key string
			ss  []string
		}{{"recomputed", p.Recomputed}, {"as_reported", p.AsReported}, {"unavailable", p.Unavailable}, {"approximate", p.Approximate}} {
			if len(l.ss) > 0 {
				add(l.key, strList(l.ss))
			}
		}
		if len(p.Definitions) > 0 {
			n := &yaml.Node{Kind: yaml.SequenceNode}
			for _, d := range p.Definitions {
				n.Content = append(n.Content, mapOf("metric", scalar(d.Metric), "source", scalar(d.Source), "benchnote", scalar(d.Benchnote)))
			}
			add("definitions", n)
		}
		if len(p.Reported) > 0 {
			n := &yaml.Node{Kind: yaml.SequenceNode}
			for _, f := range p.Reported {
				m := mapOf("key", scalar(f.Key), "label", scalar(f.Label), "value", number(strconv.FormatFloat(f.Value, 'g', -1, 64)), "unit", scalar(f.Unit))
				if f.Note != "" {
					m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "note"}, scalar(f.Note))
				}
				n.Content = append(n.Content, m)
			}
			add("reported", n)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// formatUnix writes unix nanoseconds as unix seconds with up to nine
// decimals and no trailing zeros.
func formatUnix(ns int64) string {
	s := strconv.FormatInt(ns/1e9, 10)
	if frac := ns % 1e9; frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	return s
}
