package ingest

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FormatRunConfig's output reads back through parseRunConfig unchanged,
// without a diagnostic.
func TestRunConfigRoundTrip(t *testing.T) {
	w := Window{Start: time.Unix(1700000000, 500000000).UTC(), End: time.Unix(1700000060, 0).UTC(), Source: "run.yaml"}
	prov := &Provenance{
		Tool: "vllm bench serve", Version: "not recorded: 0.6 format", File: "result: \"x\".json",
		Recomputed:  []string{"E2E = TTFT + Σ ITL", "379 zero-token requests"},
		AsReported:  []string{"TTFT (ttfts)"},
		Unavailable: []string{UnavailableRequestIDs, UnavailableWindow},
		Approximate: []string{"per-gap ITL: spread"},
		TokenCounts: "tokenizer:meta-llama/Llama-3.1-405B-FP8",
		Definitions: []Definition{{Metric: "E2E", Source: "to [DONE]", Benchnote: "to the last text chunk"}},
		Reported: []ReportedFigure{{Key: "ttft.p50", Label: "median TTFT", Value: 403.31627649993607, Unit: "ms", Note: "includes zeros"},
			{Key: "counts.successful", Label: "completed", Value: 1000, Unit: "requests"}},
	}
	for _, tt := range []struct {
		name string
		cfg  RunConfig
	}{
		{"rate with arrival", RunConfig{Load: RateLoad(16, ArrivalPoisson), Repeat: 2, Window: &w, Clock: "monotonic", MaxTokens: 256, Notes: "yes: no", Provenance: prov}},
		{"rate inf", RunConfig{Load: RateLoad(math.Inf(1), ""), Repeat: 1, Provenance: prov}},
		{"concurrency", RunConfig{Load: ConcurrencyLoad(8), Repeat: 3}},
		{"series", RunConfig{Load: ConcurrencyLoad(8), Repeat: 1, Series: mustSeries(t, map[string]string{
			"input_len": "1024", "ratio": "0.5", "model": "meta-llama/Llama-3.1-8B", "dataset": "null", "flag": "true", "empty_ish": "~",
			"quoted": "a: b # c", "inf": ".inf", "exp": "1e3", "_benchmark_name": "x y"})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := FormatRunConfig(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			rc, diags := parseRunConfig(data, "run.yaml")
			if len(diags) != 0 {
				t.Fatalf("diagnostics %v for\n%s", diags, data)
			}
			load, _ := levelOf("x", rc)
			if load != tt.cfg.Load || rc.Repeat != tt.cfg.Repeat || rc.Clock != tt.cfg.Clock || rc.MaxTokens != tt.cfg.MaxTokens || rc.Notes != tt.cfg.Notes {
				t.Errorf("read back %+v (level %s), want %+v\n%s", rc, load.Describe(), tt.cfg, data)
			}
			if tt.cfg.Window != nil && (!rc.HasWindow || !rc.WindowStart.Equal(w.Start) || !rc.WindowEnd.Equal(w.End)) {
				t.Errorf("window %v – %v, want %v – %v", rc.WindowStart, rc.WindowEnd, w.Start, w.End)
			}
			if rc.Series != tt.cfg.Series {
				t.Errorf("series %s, want %s\n%s", rc.Series, tt.cfg.Series, data)
			}
			if !reflect.DeepEqual(rc.Provenance, tt.cfg.Provenance) {
				t.Errorf("provenance\n got %+v\nwant %+v\n%s", rc.Provenance, tt.cfg.Provenance, data)
			}
			again, _ := FormatRunConfig(tt.cfg)
			if string(again) != string(data) {
				t.Error("two renderings differ")
			}
		})
	}
}

func TestRunConfigImportKeyErrors(t *testing.T) {
	tests := []struct {
		yaml string
		want string
	}{
		{"concurrency: 2\nrate: 4\n", "run.yaml:2:7: error: rate: expected either concurrency or rate, not both"},
		{"rate: fast\n", `run.yaml:1:7: error: rate: expected a positive number of requests per second up to 1,000,000, or inf, got "fast"`},
		{"rate: 2\narrival: bursty\n", `run.yaml:2:10: error: arrival: expected poisson, constant or gamma, got "bursty"`},
		{"clock: tai\n", `run.yaml:1:8: error: clock: expected monotonic or wall, got "tai"`},
		{"source: {tool: x}\nunavailable: [send_time, telepathy]\n", `run.yaml:2:26: error: unavailable[1]: expected one of all_requests, per_gap_itl, request_ids, send_order, send_time, ttft, wall_clock, window, got "telepathy"`},
		{"source: {tool: x}\ntoken_counts: guessed\n", `run.yaml:2:15: error: token_counts: expected "usage", "requested", "tokenizer" or "tokenizer:NAME", got "guessed"`},
		{"source: {tool: x}\nrecomputed: [\"" + strings.Repeat("x", 601) + "\"]\n", "run.yaml:2:14: error: recomputed[0]: expected a non-empty string of at most 600 bytes"},
		{"source: {tool: x}\nreported: [{key: ttft.p50, label: median, value: .nan, unit: ms}]\n", `run.yaml:2:50: error: reported[0].value: expected a finite number, got ".nan"`},
		{"source: {tool: x}\nreported: [{key: ttft.p50, unit: ms}]\n", "run.yaml:2:12: error: reported[0]: expected a mapping with key, label, value and unit, got a mapping"},
		{"source: {version: 1}\n", "run.yaml:1:9: error: source: expected a mapping with at least a tool, got a mapping"},
		{"recomputed: [a]\n", "run.yaml: warning: import keys (recomputed, as_reported, unavailable, ...) without source.tool are ignored"},
		{"source: {tool: x, colour: red}\n", `run.yaml:1:19: warning: unknown setting "source.colour" is ignored`},
	}
	for _, tt := range tests {
		_, diags := parseRunConfig([]byte(tt.yaml), "run.yaml")
		var got []string
		for _, d := range diags {
			got = append(got, d.String())
		}
		if len(got) == 0 || !strings.HasPrefix(got[0], tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.yaml, got, tt.want)
		}
	}
}

func TestLoadLevel(t *testing.T) {
	tests := []struct {
		l                      LoadLevel
		label, key, dir, descr string
	}{
		{ConcurrencyLoad(16), "concurrency 16", "c=16", "c16", "concurrency 16"},
		{RateLoad(16, ArrivalPoisson), "16 req/s", "rate=16", "rate16-poisson", "16 req/s, poisson arrivals"},
		{RateLoad(0.5, ""), "0.5 req/s", "rate=0.5", "rate0.5", "0.5 req/s"},
		{RateLoad(math.Inf(1), ArrivalPoisson), "rate inf", "rate=inf", "rate-inf", "rate inf"},
	}
	for _, tt := range tests {
		if got := [4]string{tt.l.Label(), tt.l.Key(), tt.l.DirName(), tt.l.Describe()}; got != [4]string{tt.label, tt.key, tt.dir, tt.descr} {
			t.Errorf("%+v: %v", tt.l, got)
		}
		back, err := ParseLoadKey(tt.l.Key())
		if err != nil || back.Key() != tt.l.Key() {
			t.Errorf("ParseLoadKey(%q) = %+v, %v", tt.l.Key(), back, err)
		}
	}
	order := []LoadLevel{ConcurrencyLoad(1), ConcurrencyLoad(8), RateLoad(1, ""), RateLoad(16, ""), RateLoad(16, ArrivalPoisson), RateLoad(math.Inf(1), "")}
	for i := 1; i < len(order); i++ {
		if order[i-1].Compare(order[i]) >= 0 || order[i].Compare(order[i-1]) <= 0 {
			t.Errorf("%s should sort before %s", order[i-1].Describe(), order[i].Describe())
		}
	}
	for _, bad := range []string{"c=0", "rate=-1", "qps=", "x=3", "16"} {
		if _, err := ParseLoadKey(bad); err == nil {
			t.Errorf("ParseLoadKey(%q) accepted", bad)
		}
	}
}

func TestLevelFromPath(t *testing.T) {
	tests := []struct {
		dir  string
		want string
	}{
		{"c8/run-1", "c=8"},
		{"rate16/run-1", "rate=16"},
		{"sweep/qps-0.5/r1", "rate=0.5"},
		{"x/16.0qps/r1", "rate=16"},
		{"rate-inf/run-2", "rate=inf"},
		{"c4/rate16/run-1", "rate=16"},
		{"rate16/c4/run-1", "c=4"},
		{"rate16-poisson/run-1", "rate=16 poisson"},
		{"plain/run-1", ""},
	}
	for _, tt := range tests {
		l, _ := levelOf(tt.dir, runConfig{})
		if got := strings.TrimSpace(l.Key() + " " + l.Arrival); got != tt.want {
			t.Errorf("levelOf(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

// FuzzParseRunConfig checks that any run.yaml gives diagnostics, never a
// panic, and that whatever provenance it accepts renders back to YAML
// that reads the same.
func FuzzParseRunConfig(f *testing.F) {
	for _, seed := range []string{
		"rate: 16\narrival: poisson\nsource: {tool: x, version: '1', file: f.json}\nunavailable: [window]\n",
		"concurrency: 2\nreported: [{key: ttft.p50, label: median, value: 1.5, unit: ms, note: n}]\n",
		"rate: inf\ndefinitions: [{metric: E2E, source: a, benchnote: b}]\ntoken_counts: tokenizer:x\n",
		"source: {tool: t}\nrecomputed: [a, b]\nas_reported: [c]\napproximate: [d]\nclock: monotonic\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rc runConfig
		var diags []Diagnostic
		withinBudget(t, "parseRunConfig", len(data), func() { rc, diags = parseRunConfig(data, "run.yaml") })
		if len(diags) > 0 || rc.Provenance == nil {
			return
		}
		out, err := FormatRunConfig(RunConfig{Provenance: rc.Provenance})
		if err != nil {
			t.Fatal(err)
		}
		back, diags := parseRunConfig(out, "run.yaml")
		if len(diags) > 0 || !reflect.DeepEqual(back.Provenance, rc.Provenance) {
			t.Fatalf("round trip of\n%s\ngave %v, diagnostics %v", out, back.Provenance, diags)
		}
	})
}
