package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/internal/hostile"
)

// TestParseSweepConfigRanges checks that every setting outside the warm-up
// section is range-checked, with the line, the column and the allowed range.
func TestParseSweepConfigRanges(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"tolerance zero", "counter_tolerance: 0\n",
			`sweep.yaml:1:20: error: counter_tolerance: expected a number in (0, 1), got "0"`},
		{"tolerance one", "counter_tolerance: 1\n",
			`sweep.yaml:1:20: error: counter_tolerance: expected a number in (0, 1), got "1"`},
		{"tolerance NaN", "counter_tolerance: .nan\n",
			`sweep.yaml:1:20: error: counter_tolerance: expected a number in (0, 1), got ".nan"`},
		{"fraction above one", "non_streamed_fraction: 1.5\n",
			`sweep.yaml:1:24: error: non_streamed_fraction: expected a number in (0, 1], got "1.5"`},
		{"fraction a list", "non_streamed_fraction: [0.5]\n",
			`sweep.yaml:1:24: error: non_streamed_fraction: expected a number in (0, 1], got a list`},
		{"slo negative", "slo: {tpot_ms: -1}\n",
			`sweep.yaml:1:16: error: slo.tpot_ms: expected a number in [0, 86,400,000] (milliseconds; 0 disables it), got "-1"`},
		{"slo infinite", "slo:\n  e2e_ms: .inf\n",
			`sweep.yaml:2:11: error: slo.e2e_ms: expected a number in [0, 86,400,000] (milliseconds; 0 disables it), got ".inf"`},
		{"slo above a day", "slo: {e2e_ms: 1e10}\n",
			`sweep.yaml:1:15: error: slo.e2e_ms: expected a number in [0, 86,400,000] (milliseconds; 0 disables it), got "1e10"`},
		{"attainment zero", "slo: {attainment: 0}\n",
			`sweep.yaml:1:19: error: slo.attainment: expected a number in (0, 1], got "0"`},
		{"attainment as a percentage", "slo: {attainment: 90}\n",
			`sweep.yaml:1:19: error: slo.attainment: expected a number in (0, 1], got "90"`},
		{"title a mapping", "title: {a: b}\n",
			`sweep.yaml:1:8: error: title: expected a text of at most 500 characters, got a mapping`},
		{"title empty", "title:\n",
			`sweep.yaml:1:7: error: title: expected a text of at most 500 characters, got ""`},
		{"title too long", "title: " + strings.Repeat("t", 501) + "\n",
			`sweep.yaml:1:8: error: title: expected a text of at most 500 characters, got "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt"...`},
		{"percentile a list", "percentile: [linear]\n",
			`sweep.yaml:1:13: error: percentile: expected "nearest-rank" or "linear", got ""`},
		{"metric name empty", "metrics: {ttft: \"\"}\n",
			`sweep.yaml:1:17: error: metrics.ttft: expected a metric name or a list of 1 to 32 names, each 1 to 1024 bytes, got ""`},
		{"metric list of lists", "metrics: {ttft: [[a]]}\n",
			`sweep.yaml:1:17: error: metrics.ttft: expected a metric name or a list of 1 to 32 names, each 1 to 1024 bytes, got a list`},
		{"metric list empty", "metrics: {ttft: []}\n",
			`sweep.yaml:1:17: error: metrics.ttft: expected a metric name or a list of 1 to 32 names, each 1 to 1024 bytes, got a list`},
		{"selector nested", "label_selector: {engine: {a: b}}\n",
			`sweep.yaml:1:17: error: label_selector: expected a mapping of at most 32 label names to values, got a mapping`},
		{"speculative not a bool", "speculative_decoding: maybe\n",
			`sweep.yaml:1:23: error: speculative_decoding: expected true or false, got "maybe"`},
		// YAML that reads other than it looks.
		{"duplicate key", "title: a\nmad: raw\ntitle: b\n",
			`sweep.yaml:3:1: error: key "title" given twice (first on line 1); expected each key once`},
		{"duplicate nested key", "slo:\n  ttft_ms: 1\n  ttft_ms: 2\n",
			`sweep.yaml:3:3: error: key "ttft_ms" given twice (first on line 2); expected each key once`},
		{"second document", "title: a\n---\ntitle: b\n",
			`sweep.yaml:2:1: error: a second YAML document starts here; expected one document (remove the "---" line)`},
		{"empty second document", "title: a\n---\n",
			`sweep.yaml:2:1: error: a second YAML document starts here`},
		{"alias", "mad: &j raw\ntitle: *j\n",
			`sweep.yaml:1:6: error: anchor &j: anchors and aliases are not allowed in settings; write the value out`},
		{"merge key", "slo:\n  <<: {ttft_ms: 5}\n",
			`sweep.yaml:2:3: error: merge key "<<": merge keys are not allowed in settings; write the keys out`},
		{"complex key", "? [a]\n: b\n",
			`sweep.yaml:1:3: error: expected a plain key, got a list`},
		{"not a mapping", "- a\n- b\n",
			`sweep.yaml:1:1: error: expected a mapping of settings (key: value lines), got a list`},
		{"alias bomb", string(hostile.YAMLAliasBomb(9)),
			`sweep.yaml:1:5: error: anchor &a0: anchors and aliases are not allowed in settings`},
		{"deep nesting", "a: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n",
			`sweep.yaml:1:19: error: nested more than 16 levels deep`},
		{"too large", "title: x\n" + strings.Repeat("# padding\n", MaxYAMLBytes/10),
			`sweep.yaml: error: larger than 1,048,576 bytes, the limit for a settings file; expected a small text file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestParseSweepConfigAcceptsRangeEnds(t *testing.T) {
	cfg, diags, err := ParseSweepConfig([]byte("title: \"T\"\nslo: {ttft_ms: 0, tpot_ms: 86400000, e2e_ms: 0.5, attainment: 1}\n"+
		"counter_tolerance: 0.999\nnon_streamed_fraction: 1\n"), "sweep.yaml")
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	want := SLO{TTFTms: 0, TPOTms: 86400000, E2Ems: 0.5, Attainment: 1}
	from := SLOSources{TTFT: FromSweepYAML, TPOT: FromSweepYAML, E2E: FromSweepYAML, Attainment: FromSweepYAML}
	if cfg.Title != "T" || cfg.SLO != want || cfg.SLOFrom != from || cfg.CounterTolerance != 0.999 || cfg.StreamingCheckFraction != 1 {
		t.Errorf("config = %+v", cfg)
	}
	// A target sweep.yaml leaves out keeps its default, and says so.
	cfg, _, err = ParseSweepConfig([]byte("slo: {ttft_ms: 500}\n"), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want = SLO{TTFTms: 500, TPOTms: 150, E2Ems: 5000, Attainment: 0.9}
	from = SLOSources{TTFT: FromSweepYAML, TPOT: FromDefault, E2E: FromDefault, Attainment: FromDefault}
	if cfg.SLO != want || cfg.SLOFrom != from {
		t.Errorf("slo = %+v from %+v, want %+v from %+v", cfg.SLO, cfg.SLOFrom, want, from)
	}
	for _, empty := range []string{"", "\n# only a comment\n", "---\n", "~\n"} {
		cfg, diags, err := ParseSweepConfig([]byte(empty), "sweep.yaml")
		if err != nil || len(diags) != 0 || cfg.Title != DefaultConfig().Title {
			t.Errorf("%q: %v %v %q, want the defaults", empty, err, diags, cfg.Title)
		}
	}
}

func TestParseRunConfigRanges(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"fractional concurrency", "concurrency: 2.7\n",
			`run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "2.7"`},
		{"exponent concurrency", "concurrency: 1e3\n",
			`run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "1e3"`},
		{"huge concurrency", "concurrency: 1000001\n",
			`run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "1000001"`},
		{"zero repeat", "repeat: 0\n",
			`run.yaml:1:9: error: repeat: expected an integer from 1 to 10,000, got "0"`},
		{"max_tokens a list", "max_tokens: [1]\n",
			`run.yaml:1:13: error: max_tokens: expected an integer from 1 to 100,000,000, got a list`},
		{"notes a mapping", "notes: {a: b}\n",
			`run.yaml:1:8: error: notes: expected text, got a mapping`},
		{"window in the year 10000", "window: {start: 0, end: 1e300}\n",
			`run.yaml:1:25: error: window.end: expected an RFC 3339 time or unix seconds, between 1970 and 9999, got "1e300"`},
		{"window before 1970", "window: {start: 1969-12-31T23:59:59Z, end: 5}\n",
			`run.yaml:1:17: error: window.start: expected an RFC 3339 time or unix seconds, between 1970 and 9999`},
		{"duplicate concurrency", "concurrency: 2\nconcurrency: 4\n",
			`run.yaml:2:1: error: key "concurrency" given twice (first on line 1); expected each key once`},
		{"aliased concurrency", "repeat: &n 2\nconcurrency: *n\n",
			`run.yaml:1:9: error: anchor &n: anchors and aliases are not allowed in settings`},
		{"second document", "concurrency: 2\n---\nconcurrency: 4\n",
			`run.yaml:2:1: error: a second YAML document starts here`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, diags := parseRunConfig([]byte(tt.yaml), "run.yaml")
			if len(diags) == 0 || !strings.HasPrefix(diags[0].String(), tt.want) {
				t.Errorf("diagnostics = %v\nwant first with prefix %s", diags, tt.want)
			}
			if rc.Concurrency != 0 && tt.name != "zero repeat" {
				t.Errorf("concurrency %d read from a refused file", rc.Concurrency)
			}
		})
	}
	rc, diags := parseRunConfig([]byte("concurrency: 1000000\nrepeat: 3\nmax_tokens: 256\nwindow: {start: 0, end: 253402300799}\n"), "run.yaml")
	if len(diags) != 0 || rc.Concurrency != 1000000 || rc.Repeat != 3 || rc.MaxTokens != 256 ||
		!rc.WindowEnd.Equal(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)) {
		t.Errorf("run config %+v, %v", rc, diags)
	}
}

func TestEnvYAMLStrictness(t *testing.T) {
	src := ParseEnvFile([]byte("gpu: A\nengine: vllm\ngpu: B\n---\ngpu: C\n"), "env.yaml")
	if src.Format != "yaml" || src.Canonical["gpu"] != "A" {
		t.Fatalf("format %q, gpu %q; want yaml, the first value A", src.Format, src.Canonical["gpu"])
	}
	want := []string{
		`env.yaml:3:1: warning: key "gpu" given twice (first on line 1); this one is not read`,
		`env.yaml:4:1: warning: a second YAML document starts here; it is not read`,
	}
	var got []string
	for _, d := range src.Diagnostics {
		got = append(got, d.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, kv := range src.Keys {
		if kv.Value == "B" || kv.Value == "C" {
			t.Errorf("key %v read from a duplicate key or a second document", kv)
		}
	}

	// An alias bomb is cut at the budget, and says so.
	src = ParseEnvFile(hostile.YAMLAliasBomb(9), "env.yaml")
	if len(src.Diagnostics) != 1 || src.Diagnostics[0].Reason != "aliases" ||
		src.Diagnostics[0].Message != "YAML aliases expand to more than 100,000 values; the rest of the file is not read" {
		t.Errorf("alias bomb diagnostics = %v", src.Diagnostics)
	}
}

func FuzzParseSweepConfig(f *testing.F) {
	for _, s := range []string{
		"title: t\nslo: {ttft_ms: 1000, tpot_ms: 150, e2e_ms: 5000}\npercentile: linear\nmad: scaled\n",
		"warmup: {mode: stabilisation, window: 10, tolerance: 0.02, consecutive: 3}\n",
		"metrics:\n  generation_tokens: [sglang:generation_tokens]\n  ttft: a\nlabel_selector: {engine: \"0\"}\n",
		"speculative_decoding: true\ncounter_tolerance: 0.01\nnon_streamed_fraction: 0.95\n",
		"title: a\n---\ntitle: b\n", "a: &x 1\nb: *x\n", "<<: {a: 1}\n", "? [a]\n: b\n",
		string(hostile.YAMLAliasBomb(3)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg Config
		var diags []Diagnostic
		var err error
		withinBudget(t, "ParseSweepConfig", len(data), func() { cfg, diags, err = ParseSweepConfig(data, "sweep.yaml") })
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Severity != Error || fe.File != "sweep.yaml" || fe.Message == "" {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		for _, d := range diags {
			if d.Severity != Warning || d.Line < 1 {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		// What was accepted lies in range.
		if !(cfg.CounterTolerance > 0 && cfg.CounterTolerance < 1) || !(cfg.StreamingCheckFraction > 0 && cfg.StreamingCheckFraction <= 1) {
			t.Fatalf("fractions out of range: %+v", cfg)
		}
		for _, v := range []float64{cfg.SLO.TTFTms, cfg.SLO.TPOTms, cfg.SLO.E2Ems} {
			if !(v >= 0 && v <= maxSLOms) {
				t.Fatalf("SLO out of range: %+v", cfg.SLO)
			}
		}
		if cfg.Percentile != "nearest-rank" && cfg.Percentile != "linear" || cfg.MAD != "raw" && cfg.MAD != "scaled" {
			t.Fatalf("method %q, %q", cfg.Percentile, cfg.MAD)
		}
	})
}

// FuzzRunConfigRanges checks that whatever run.yaml gives is in range and
// that no input is slow (FuzzParseRunConfig checks the import keys).
func FuzzRunConfigRanges(f *testing.F) {
	for _, s := range []string{
		"concurrency: 8\nrepeat: 2\nwindow:\n  start: 2026-11-02T10:00:00Z\n  end: 1793613720.5\nmax_tokens: 256\nnotes: free text\n",
		"concurrency: 2.7\n", "window: {start: 0, end: 1e300}\n", "repeat: &n 1\nconcurrency: *n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rc runConfig
		var diags []Diagnostic
		withinBudget(t, "parseRunConfig", len(data), func() { rc, diags = parseRunConfig(data, "run.yaml") })
		for _, d := range diags {
			if d.File != "run.yaml" || d.Message == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if rc.Concurrency < 0 || rc.Concurrency > MaxConcurrency || rc.Repeat < 0 || rc.Repeat > MaxRepeat ||
			rc.MaxTokens < 0 || rc.MaxTokens > MaxMaxTokens {
			t.Fatalf("run config out of range: %+v", rc)
		}
		if rc.HasWindow && !rc.WindowEnd.After(rc.WindowStart) {
			t.Fatalf("window %v .. %v", rc.WindowStart, rc.WindowEnd)
		}
	})
}

// TestLoadSizeLimits checks the size caps on files Load reads whole; the
// large files are sparse, and only the limit plus one byte is read.
func TestLoadSizeLimits(t *testing.T) {
	root := writeTree(t, map[string]string{
		"c1/r1/requests.csv": okCSV,
		"c1/r1/run.yaml":     "concurrency: 1\n",
		"c1/r2/requests.csv": okCSV,
		"env.txt":            "gpu: x\n",
	})
	grow := func(rel string, size int64) {
		if err := os.Truncate(filepath.Join(root, filepath.FromSlash(rel)), size); err != nil {
			t.Fatal(err)
		}
	}
	grow("c1/r1/run.yaml", MaxYAMLBytes+1)
	grow("env.txt", MaxEnvLogBytes+1)
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range sw.Diagnostics {
		got = append(got, d.String())
	}
	for _, r := range sw.Runs {
		for _, d := range r.Diagnostics {
			got = append(got, d.String())
		}
	}
	want := []string{
		"env.txt: warning: larger than 67,108,864 bytes, the limit for an environment log; it is not read",
		"c1/r1/run.yaml: error: larger than 1,048,576 bytes, the limit for a settings file; expected a small text file",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if err := os.WriteFile(filepath.Join(root, "sweep.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	grow("sweep.yaml", MaxYAMLBytes+1)
	if _, err := Load(root, Options{}); err == nil || err.Error() != "sweep.yaml: error: larger than 1,048,576 bytes, the limit for a settings file; expected a small text file" {
		t.Errorf("sweep.yaml over the limit: %v", err)
	}
}
