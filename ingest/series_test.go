package ingest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func mustSeries(t *testing.T, labels map[string]string) Series {
	t.Helper()
	s, err := NewSeries(labels)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSeriesLabels(t *testing.T) {
	s := mustSeries(t, map[string]string{"tp": "2", "engine": "vllm", "max_num_seqs": "256"})
	if got := s.String(); got != "engine=vllm, max_num_seqs=256, tp=2" {
		t.Errorf("String = %q", got)
	}
	if got := s.Only([]string{"tp", "engine"}); got != "engine=vllm, tp=2" {
		t.Errorf("Only = %q", got)
	}
	if v, ok := s.Get("tp"); v != "2" || !ok {
		t.Errorf("Get(tp) = %q, %v", v, ok)
	}
	if _, ok := s.Get("t"); ok {
		t.Error("Get(t) found a label")
	}
	if !slices.Equal(s.Names(), []string{"engine", "max_num_seqs", "tp"}) {
		t.Errorf("Names = %q", s.Names())
	}
	data, err := json.Marshal(s)
	if err != nil || string(data) != `{"engine":"vllm","max_num_seqs":"256","tp":"2"}` {
		t.Errorf("JSON %s, %v", data, err)
	}
	var back Series
	if err := json.Unmarshal(data, &back); err != nil || back != s {
		t.Errorf("JSON round trip: %v, %v", back, err)
	}
	if (Series{}).String() != "" || !(Series{}).IsZero() || (Series{}).Labels() != nil {
		t.Error("the zero series is not empty")
	}
	// A value holding "=" or ", " stays one label.
	odd := mustSeries(t, map[string]string{"a": "x=1, b=2"})
	if odd.Labels()["a"] != "x=1, b=2" || len(odd.Names()) != 1 {
		t.Errorf("labels %v", odd.Labels())
	}
	with, err := mustSeries(t, map[string]string{"engine": "vllm", "tp": "1"}).With(mustSeries(t, map[string]string{"tp": "4"}))
	if err != nil || with.String() != "engine=vllm, tp=4" {
		t.Errorf("With = %q, %v", with, err)
	}
}

func TestSeriesErrors(t *testing.T) {
	many := map[string]string{}
	for i := range MaxSeriesLabels + 1 {
		many[fmt.Sprintf("l%d", i)] = "v"
	}
	tests := []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"1tp": "2"}, `label name "1tp": expected a letter or _ then letters, digits, _, - or ., at most 64 bytes`},
		{map[string]string{"t p": "2"}, `label name "t p": expected a letter or _ then letters, digits, _, - or ., at most 64 bytes`},
		{map[string]string{strings.Repeat("a", 65): "2"}, `label name "` + strings.Repeat("a", 65) + `": expected a letter or _ then letters, digits, _, - or ., at most 64 bytes`},
		{map[string]string{"tp": ""}, `label tp: expected a value, got an empty one`},
		{map[string]string{"tp": "a\nb"}, `label tp: value "a\nb" holds a control character or invalid UTF-8`},
		{map[string]string{"tp": strings.Repeat("x", 257)}, `label tp: a value of 257 bytes, at most 256`},
		{many, `33 labels: at most 32`},
	}
	for _, tt := range tests {
		if _, err := NewSeries(tt.labels); err == nil || err.Error() != tt.want {
			t.Errorf("NewSeries(%v): %v\nwant %s", tt.labels, err, tt.want)
		}
	}
}

// TestSeriesOrder: label by label in name order, numbers by value before
// text, a shorter series (a prefix) first.
func TestSeriesOrder(t *testing.T) {
	in := []map[string]string{
		{"tp": "16"}, {"tp": "2"}, {"tp": "auto"}, {"tp": "2", "x": "a"}, {"engine": "vllm"}, {}, {"tp": "1e1"},
	}
	var got []string
	var ss []Series
	for _, l := range in {
		ss = append(ss, mustSeries(t, l))
	}
	slices.SortFunc(ss, Series.Compare)
	for _, s := range ss {
		got = append(got, "{"+s.String()+"}")
	}
	want := "{} {engine=vllm} {tp=2} {tp=2, x=a} {tp=1e1} {tp=16} {tp=auto}"
	if strings.Join(got, " ") != want {
		t.Errorf("order %s\nwant  %s", strings.Join(got, " "), want)
	}
}

func TestDiffering(t *testing.T) {
	a := mustSeries(t, map[string]string{"engine": "vllm", "tp": "1", "model": "m"})
	b := mustSeries(t, map[string]string{"engine": "vllm", "tp": "2", "model": "m"})
	c := mustSeries(t, map[string]string{"engine": "vllm", "model": "m", "quant": "fp8"})
	names, common := Differing([]Series{a, b, c})
	if !slices.Equal(names, []string{"quant", "tp"}) || common.String() != "engine=vllm, model=m" {
		t.Errorf("Differing = %q, %q", names, common)
	}
}

// TestSweepSeries: sweep.yaml's labels with run.yaml's added make each
// run's series; runs of two series at one level are never repeats of each
// other, each series numbering its own; bad labels are errors naming the
// line.
func TestSweepSeries(t *testing.T) {
	csv := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,1,2,3,4\n"
	root := writeTree(t, map[string]string{
		"sweep.yaml":                 "title: t\nseries: {engine: vllm, workload: random}\n",
		"seqs128/c4/r1/run.yaml":     "series: {max_num_seqs: 128}\n",
		"seqs128/c4/r1/requests.csv": csv,
		"seqs128/c4/r2/run.yaml":     "series: {max_num_seqs: 128}\n",
		"seqs128/c4/r2/requests.csv": csv,
		"seqs256/c4/r1/run.yaml":     "series:\n  max_num_seqs: 256\n  engine: sglang\n",
		"seqs256/c4/r1/requests.csv": csv,
		"seqs256/c2/r1/run.yaml":     "series: {max_num_seqs: 256, engine: sglang}\n",
		"seqs256/c2/r1/requests.csv": csv,
		"bad/c4/r1/run.yaml":         "series: {max_num_seqs: [1, 2]}\n",
		"bad/c4/r1/requests.csv":     csv,
	})
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range sw.Runs {
		got = append(got, fmt.Sprintf("%s {%s} %s #%d failed=%v", r.Dir, r.Series, r.Load.Label(), r.Repeat, r.Failed))
	}
	// Label by label in name order: engine=sglang first; then, among
	// engine=vllm, max_num_seqs (a name before workload) first.
	want := []string{
		"seqs256/c2/r1 {engine=sglang, max_num_seqs=256, workload=random} concurrency 2 #1 failed=false",
		"seqs256/c4/r1 {engine=sglang, max_num_seqs=256, workload=random} concurrency 4 #1 failed=false",
		"seqs128/c4/r1 {engine=vllm, max_num_seqs=128, workload=random} concurrency 4 #1 failed=false",
		"seqs128/c4/r2 {engine=vllm, max_num_seqs=128, workload=random} concurrency 4 #2 failed=false",
		"bad/c4/r1 {engine=vllm, workload=random} concurrency 4 #1 failed=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bad := sw.Runs[4].Diagnostics[0].String()
	if wantBad := "bad/c4/r1/run.yaml:1:24: error: series: label max_num_seqs: expected a text or a number, got a list"; bad != wantBad {
		t.Errorf("diagnostic %s\nwant %s", bad, wantBad)
	}
	if sw.Config.Series.String() != "engine=vllm, workload=random" {
		t.Errorf("sweep series %q", sw.Config.Series)
	}
}

func TestSweepSeriesErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"series: vllm\n", `sweep.yaml:1:9: error: series: expected a mapping of label names to values (engine: vllm, tp: 2), got "vllm"`},
		{"series: {9: x}\n", `sweep.yaml:1:10: error: series: label name "9": expected a letter or _ then letters, digits, _, - or ., at most 64 bytes`},
		{"series: {tp: ~}\n", `sweep.yaml:1:14: error: series: label tp: expected a text or a number, got "~"`},
	}
	for _, tt := range tests {
		_, _, err := ParseSweepConfig([]byte(tt.yaml), "sweep.yaml")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %v\nwant %s", tt.yaml, err, tt.want)
		}
	}
}
