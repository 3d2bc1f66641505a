package ingest

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const promDir = "testdata/prometheus"

// sharedPromDir holds real scrapes that may not be redistributed with the
// repository; tests using them skip when it is absent.
const sharedPromDir = "../../shared/realdata/prometheus"

const vllm016Scrape = "vllm0.16.0-v1-l40s-tp2-llama3-70b-awq.prom"

// promPath returns the path of a fixture, looking in the shared directory
// for files not copied into testdata, and skips the test when it is absent.
func promPath(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(promDir, name)
	if name == vllm016Scrape {
		p = filepath.Join(sharedPromDir, name)
	}
	if _, err := os.Stat(p); err != nil {
		if name == vllm016Scrape {
			t.Skipf("%s not available (no licence to copy it into testdata): %v", p, err)
		}
		t.Fatal(err)
	}
	return p
}

func parsePromFile(t *testing.T, name string, names MetricNames, selector map[string]string) (*Scrape, error) {
	t.Helper()
	f, err := os.Open(promPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ParseScrape(f, name, names, selector)
}

func parsePromString(t *testing.T, text string, names MetricNames, selector map[string]string) (*Scrape, error) {
	t.Helper()
	if names == nil {
		names = DefaultMetricNames()
	}
	return ParseScrape(strings.NewReader(text), "metrics.prom", names, selector)
}

// buckets zips bounds and cumulative counts.
func buckets(bounds, counts []float64) []Bucket {
	out := make([]Bucket, len(bounds))
	for i := range bounds {
		out[i] = Bucket{UpperBound: bounds[i], Count: counts[i]}
	}
	return out
}

// repeatCounts returns counts made of n0 copies of a followed by n1 copies of b.
func repeatCounts(a float64, n0 int, b float64, n1 int) []float64 {
	out := make([]float64, 0, n0+n1)
	for range n0 {
		out = append(out, a)
	}
	for range n1 {
		out = append(out, b)
	}
	return out
}

var inf = math.Inf(1)

// histWant pins a histogram: its source name, count, sum, number of
// buckets and the cumulative count at some upper bounds.
type histWant struct {
	name     string
	count    float64
	sum      float64
	nBuckets int
	at       map[float64]float64
}

// checkHistogramShape asserts the invariants every parsed histogram has:
// one bucket per upper bound, in ascending order.
func checkHistogramShape(t testing.TB, role MetricRole, h Histogram) {
	t.Helper()
	for i := 1; i < len(h.Buckets); i++ {
		if !(h.Buckets[i-1].UpperBound < h.Buckets[i].UpperBound) {
			t.Errorf("%s: bounds not strictly ascending: %v", role, h.Buckets)
			return
		}
	}
}

func TestParseScrapeRealFiles(t *testing.T) {
	v1Roles := map[MetricRole]string{
		RoleTTFT:        "vllm:time_to_first_token_seconds",
		RoleITL:         "vllm:inter_token_latency_seconds",
		RoleRequestTPOT: "vllm:request_time_per_output_token_seconds",
		RoleE2E:         "vllm:e2e_request_latency_seconds",
		RolePrefill:     "vllm:request_prefill_time_seconds",
		RoleQueue:       "vllm:request_queue_time_seconds",
		RoleDecode:      "vllm:request_decode_time_seconds",
	}
	vllmCounterNames := map[MetricRole]string{
		RoleGenerationTokens: "vllm:generation_tokens_total",
		RolePromptTokens:     "vllm:prompt_tokens_total",
	}
	// vLLM V1 phase histograms (e2e, prefill, queue, decode) share these bounds.
	v1PhaseBounds := []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680, inf}
	v1TTFTBounds := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560, inf}
	v0TTFTBounds := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, inf}
	v0ITLBounds := []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, inf}

	sglangNames := MetricNames{
		RoleGenerationTokens: {"sglang:generation_tokens"},   // file has _total
		RolePromptTokens:     {"sglang:prompt_tokens_total"}, // given with _total
		RoleTTFT:             {"sglang:time_to_first_token_seconds"},
		RoleITL:              {"vllm:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"},
		RoleE2E:              {"sglang:e2e_request_latency_seconds"},
		// Not a queue time: read here only to pin the float-noise bounds.
		RoleQueue: {"sglang:func_latency_seconds"},
	}

	tests := []struct {
		file     string
		names    MetricNames
		selector map[string]string

		families, unused int
		processStart     float64
		counters         map[MetricRole]float64
		counterNames     map[MetricRole]string
		histNames        map[MetricRole]string
		hists            map[MetricRole]histWant
		fullHists        map[MetricRole]Histogram
	}{
		{
			file:     "vllm0.4-0.5-datadog-fixture-opt-125m.prom",
			families: 29, unused: 23, processStart: 1.7181405583e+09,
			counters:     map[MetricRole]float64{RoleGenerationTokens: 7, RolePromptTokens: 5},
			counterNames: vllmCounterNames,
			histNames: map[MetricRole]string{
				RoleTTFT: "vllm:time_to_first_token_seconds",
				RoleITL:  "vllm:time_per_output_token_seconds", // the pre-V1 name
				RoleE2E:  "vllm:e2e_request_latency_seconds",
			},
			fullHists: map[MetricRole]Histogram{
				RoleTTFT: {
					Buckets: buckets(v0TTFTBounds, repeatCounts(0, 9, 1, 8)),
					Count:   1, Sum: 0.31326723098754883,
				},
				RoleITL: {
					Buckets: buckets(v0ITLBounds, repeatCounts(0, 2, 6, 12)),
					Count:   6, Sum: 0.19016313552856445,
				},
				RoleE2E: {
					Buckets: buckets([]float64{1, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, inf}, repeatCounts(0, 0, 1, 11)),
					Count:   1, Sum: 0.5034303665161133,
				},
			},
		},
		{
			file:     "vllm-fork0.5.2dev-bsc-idle-llama-2-13b.prom",
			families: 15, unused: 13,
			counters:     map[MetricRole]float64{RoleGenerationTokens: 0, RolePromptTokens: 0},
			counterNames: vllmCounterNames,
			histNames:    map[MetricRole]string{},
		},
		{
			file:     "vllm0.11-v1-idle-qwen1.5-0.5b-hardware-aware-router.prom",
			families: 58, unused: 48, processStart: 1.76243836732e+09,
			counters:     map[MetricRole]float64{RoleGenerationTokens: 0, RolePromptTokens: 0},
			counterNames: vllmCounterNames,
			histNames:    v1Roles,
			fullHists: map[MetricRole]Histogram{
				RoleTTFT:    {Buckets: buckets(v1TTFTBounds, repeatCounts(0, 23, 0, 0))},
				RolePrefill: {Buckets: buckets(v1PhaseBounds, repeatCounts(0, 22, 0, 0))},
			},
			hists: map[MetricRole]histWant{
				RoleITL:         {name: "vllm:inter_token_latency_seconds", nBuckets: 20, at: map[float64]float64{0.01: 0, 80: 0, inf: 0}},
				RoleRequestTPOT: {name: "vllm:request_time_per_output_token_seconds", at: map[float64]float64{inf: 0}},
			},
		},
		{
			// The same scrape selected explicitly by its engine label.
			file:     "vllm0.11-v1-idle-qwen1.5-0.5b-hardware-aware-router.prom",
			selector: map[string]string{"engine": "0", "model_name": "Qwen/Qwen1.5-0.5B-Chat"},
			families: 58, unused: 48, processStart: 1.76243836732e+09,
			counters:     map[MetricRole]float64{RoleGenerationTokens: 0, RolePromptTokens: 0},
			counterNames: vllmCounterNames,
			histNames:    v1Roles,
		},
		{
			file:     vllm016Scrape,
			families: 81, unused: 71, processStart: 1.77222427916e+09,
			counters:     map[MetricRole]float64{RoleGenerationTokens: 400, RolePromptTokens: 24},
			counterNames: vllmCounterNames,
			histNames:    v1Roles,
			fullHists: map[MetricRole]Histogram{
				RoleTTFT: {
					Buckets: buckets(v1TTFTBounds, repeatCounts(0, 5, 1, 18)),
					Count:   1, Sum: 0.05244112014770508,
				},
			},
			hists: map[MetricRole]histWant{
				RoleITL:         {name: "vllm:inter_token_latency_seconds", count: 399, sum: 11.669890475997818, nBuckets: 20, at: map[float64]float64{0.025: 0, 0.05: 399, inf: 399}},
				RoleRequestTPOT: {name: "vllm:request_time_per_output_token_seconds", count: 1, sum: 0.029247845804505807},
				RoleE2E:         {name: "vllm:e2e_request_latency_seconds", count: 1, sum: 11.722157955169678, nBuckets: 22, at: map[float64]float64{10: 0, 15: 1, 7680: 1}},
				RoleQueue:       {name: "vllm:request_queue_time_seconds", count: 1, sum: 3.9806000131648034e-05, nBuckets: 22, at: map[float64]float64{0.3: 1}},
				RolePrefill:     {name: "vllm:request_prefill_time_seconds", count: 1, sum: 0.04858271900229738, nBuckets: 22, at: map[float64]float64{0.3: 1}},
				RoleDecode:      {name: "vllm:request_decode_time_seconds", count: 1, sum: 11.669890475997818, nBuckets: 22, at: map[float64]float64{10: 0, 15: 1}},
			},
		},
		{
			file:     vllm016Scrape,
			selector: map[string]string{"engine": "0"},
			families: 81, unused: 71, processStart: 1.77222427916e+09,
			counters:     map[MetricRole]float64{RoleGenerationTokens: 400, RolePromptTokens: 24},
			counterNames: vllmCounterNames,
			histNames:    v1Roles,
		},
		{
			// Default (vLLM) names find nothing in an SGLang scrape.
			file:     "sglang-docs-llama-3.1-8b-loaded.prom",
			families: 12, unused: 12,
			counters:     map[MetricRole]float64{},
			counterNames: map[MetricRole]string{},
			histNames:    map[MetricRole]string{},
		},
		{
			file:     "sglang-docs-llama-3.1-8b-loaded.prom",
			names:    sglangNames,
			families: 12, unused: 6,
			counters: map[MetricRole]float64{RoleGenerationTokens: 7.557572e+06, RolePromptTokens: 8.128902e+06},
			counterNames: map[MetricRole]string{
				RoleGenerationTokens: "sglang:generation_tokens_total",
				RolePromptTokens:     "sglang:prompt_tokens_total",
			},
			histNames: map[MetricRole]string{
				RoleTTFT:  "sglang:time_to_first_token_seconds",
				RoleITL:   "sglang:time_per_output_token_seconds",
				RoleE2E:   "sglang:e2e_request_latency_seconds",
				RoleQueue: "sglang:func_latency_seconds",
			},
			fullHists: map[MetricRole]Histogram{
				// _sum precedes the buckets in the file.
				RoleTTFT: {
					Buckets: buckets(
						[]float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 20, 25, 30, inf},
						[]float64{0, 0, 0, 0, 1, 3, 6, 6, 6, 6, 6, 27, 140, 314, 941, 1330, 1970, 2326, 2417, 2513, 11008}),
					Count: 11008, Sum: 2.3518979474117756e+06,
				},
				RoleQueue: {
					Buckets: buckets(
						[]float64{0.05, 0.07500000000000001, 0.1125, 0.16875, 0.253125, 0.3796875, 0.56953125,
							0.8542968750000001, 1.2814453125, 1.9221679687500002, 2.8832519531250003, 4.3248779296875,
							6.487316894531251, 9.730975341796876, 14.596463012695313, 21.89469451904297,
							32.84204177856446, 49.26306266784668, inf},
						repeatCounts(14006, 11, 14007, 8)),
					Count: 14007, Sum: 4.514771912145079,
				},
			},
			hists: map[MetricRole]histWant{
				RoleITL: {name: "sglang:time_per_output_token_seconds", count: 7.400757e+06, sum: 866964.5791549598, nBuckets: 19,
					at: map[float64]float64{0.005: 1, 0.075: 433413, 0.1: 4.950195e+06, 2.5: 7.389414e+06, inf: 7.400757e+06}},
				RoleE2E: {name: "sglang:e2e_request_latency_seconds", count: 11228, sum: 3.116093850019932e+06, nBuckets: 16,
					at: map[float64]float64{0.3: 0, 0.5: 6, 60: 1513, inf: 11228}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			names := tt.names
			if names == nil {
				names = DefaultMetricNames()
			}
			s, err := parsePromFile(t, tt.file, names, tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != "text" {
				t.Errorf("Format = %q, want text", s.Format)
			}
			if !s.Timestamp.IsZero() {
				t.Errorf("Timestamp = %v, want zero (no sample timestamps)", s.Timestamp)
			}
			if len(s.Diagnostics) != 0 {
				t.Errorf("Diagnostics = %v, want none", s.Diagnostics)
			}
			if s.Families != tt.families || s.UnusedFamilies != tt.unused {
				t.Errorf("Families, UnusedFamilies = %d, %d; want %d, %d", s.Families, s.UnusedFamilies, tt.families, tt.unused)
			}
			if s.ProcessStartTime != tt.processStart {
				t.Errorf("ProcessStartTime = %v, want %v", s.ProcessStartTime, tt.processStart)
			}
			if !reflect.DeepEqual(s.Counters, tt.counters) {
				t.Errorf("Counters = %v, want %v", s.Counters, tt.counters)
			}
			if !reflect.DeepEqual(s.CounterNames, tt.counterNames) {
				t.Errorf("CounterNames = %v, want %v", s.CounterNames, tt.counterNames)
			}
			if !reflect.DeepEqual(s.HistogramNames, tt.histNames) {
				t.Errorf("HistogramNames = %v, want %v", s.HistogramNames, tt.histNames)
			}
			for role, h := range s.Histograms {
				checkHistogramShape(t, role, h)
				if n := len(h.Buckets); n == 0 || !math.IsInf(h.Buckets[n-1].UpperBound, 1) {
					t.Errorf("%s: last bucket of %v is not +Inf", role, h.Buckets)
				}
			}
			for role, want := range tt.fullHists {
				if got := s.Histograms[role]; !reflect.DeepEqual(got, want) {
					t.Errorf("%s histogram\n got %+v\nwant %+v", role, got, want)
				}
			}
			for role, want := range tt.hists {
				got, ok := s.Histograms[role]
				if !ok {
					t.Errorf("%s histogram missing", role)
					continue
				}
				if s.HistogramNames[role] != want.name {
					t.Errorf("%s read from %q, want %q", role, s.HistogramNames[role], want.name)
				}
				if got.Count != want.count || got.Sum != want.sum {
					t.Errorf("%s count, sum = %v, %v; want %v, %v", role, got.Count, got.Sum, want.count, want.sum)
				}
				if want.nBuckets != 0 && len(got.Buckets) != want.nBuckets {
					t.Errorf("%s has %d buckets, want %d", role, len(got.Buckets), want.nBuckets)
				}
				for le, c := range want.at {
					i := slices.IndexFunc(got.Buckets, func(b Bucket) bool { return b.UpperBound == le })
					if i < 0 {
						t.Errorf("%s has no bucket le=%v", role, le)
					} else if got.Buckets[i].Count != c {
						t.Errorf("%s bucket le=%v = %v, want %v", role, le, got.Buckets[i].Count, c)
					}
				}
			}
		})
	}
}

// TestParseScrapeIterationTokensIsNotACounter checks that the histogram
// vllm:iteration_tokens_total is never read as the counter
// vllm:iteration_tokens, and that the next candidate is tried.
func TestParseScrapeIterationTokensIsNotACounter(t *testing.T) {
	names := DefaultMetricNames()
	names[RoleGenerationTokens] = []string{"vllm:iteration_tokens", "vllm:generation_tokens"}
	s, err := parsePromFile(t, "vllm0.11-v1-idle-qwen1.5-0.5b-hardware-aware-router.prom", names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CounterNames[RoleGenerationTokens]; got != "vllm:generation_tokens_total" {
		t.Errorf("generation_tokens read from %q, want vllm:generation_tokens_total", got)
	}
	want := []Diagnostic{{
		Severity: Warning, File: "vllm0.11-v1-idle-qwen1.5-0.5b-hardware-aware-router.prom", Reason: "wrong type",
		Message: "vllm:iteration_tokens_total is a histogram, not a counter; not read as generation_tokens",
	}}
	if !reflect.DeepEqual(s.Diagnostics, want) {
		t.Errorf("Diagnostics =\n%v\nwant\n%v", s.Diagnostics, want)
	}
}

func TestParseScrapeSeveralSeries(t *testing.T) {
	const file = "synthetic-two-engines.prom"
	engine0TTFT := Histogram{Buckets: buckets([]float64{0.1, 0.5, inf}, []float64{1, 3, 4}), Count: 4, Sum: 1.25}
	engine1TTFT := Histogram{Buckets: buckets([]float64{0.1, 0.5, inf}, []float64{0, 2, 2}), Count: 2, Sum: 0.5}
	tests := []struct {
		name     string
		selector map[string]string
		counters map[MetricRole]float64
		ttft     *Histogram
		diags    []Diagnostic
		unused   int
		unread   map[MetricRole]string
		series   map[MetricRole]string
	}{
		{
			name:     "no selector",
			counters: map[MetricRole]float64{},
			unused:   5,
			unread: map[MetricRole]string{
				RoleGenerationTokens: "vllm:generation_tokens_total has 2 series and no label_selector chooses one",
				RolePromptTokens:     "vllm:prompt_tokens_total has 2 series and no label_selector chooses one",
				RoleTTFT:             "vllm:time_to_first_token_seconds has 2 series and no label_selector chooses one",
			},
			diags: []Diagnostic{
				{Severity: Error, File: file, Reason: "several series", Message: `vllm:generation_tokens_total has 2 series: {engine="0",model_name="a"}, {engine="1",model_name="a"}; set label_selector in sweep.yaml`},
				{Severity: Error, File: file, Reason: "several series", Message: `vllm:prompt_tokens_total has 2 series: {engine="0",model_name="a"}, {engine="1",model_name="a"}; set label_selector in sweep.yaml`},
				{Severity: Error, File: file, Reason: "several series", Message: `vllm:time_to_first_token_seconds has 2 series: {engine="0",model_name="a"}, {engine="1",model_name="a"}; set label_selector in sweep.yaml`},
			},
		},
		{
			name:     "selector not narrow enough",
			selector: map[string]string{"model_name": "a"},
			counters: map[MetricRole]float64{},
			unused:   5,
			unread: map[MetricRole]string{
				RoleGenerationTokens: `vllm:generation_tokens_total has 2 series matching label_selector {model_name="a"}`,
				RolePromptTokens:     `vllm:prompt_tokens_total has 2 series matching label_selector {model_name="a"}`,
				RoleTTFT:             `vllm:time_to_first_token_seconds has 2 series matching label_selector {model_name="a"}`,
			},
			diags: []Diagnostic{
				{Severity: Error, File: file, Reason: "several series", Message: `vllm:generation_tokens_total has 2 series matching label_selector {model_name="a"}: {engine="0",model_name="a"}, {engine="1",model_name="a"}; narrow label_selector in sweep.yaml`},
				{Severity: Error, File: file, Reason: "several series", Message: `vllm:prompt_tokens_total has 2 series matching label_selector {model_name="a"}: {engine="0",model_name="a"}, {engine="1",model_name="a"}; narrow label_selector in sweep.yaml`},
				{Severity: Error, File: file, Reason: "several series", Message: `vllm:time_to_first_token_seconds has 2 series matching label_selector {model_name="a"}: {engine="0",model_name="a"}, {engine="1",model_name="a"}; narrow label_selector in sweep.yaml`},
			},
		},
		{
			name:     "engine 0",
			selector: map[string]string{"engine": "0"},
			counters: map[MetricRole]float64{RoleGenerationTokens: 120, RolePromptTokens: 300},
			ttft:     &engine0TTFT,
			unused:   2,
			series: map[MetricRole]string{
				RoleGenerationTokens: `{engine="0",model_name="a"}`,
				RolePromptTokens:     `{engine="0",model_name="a"}`,
				RoleTTFT:             `{engine="0",model_name="a"}`,
			},
		},
		{
			name:     "engine 1, buckets out of order in the file",
			selector: map[string]string{"engine": "1", "model_name": "a"},
			counters: map[MetricRole]float64{RoleGenerationTokens: 80, RolePromptTokens: 200},
			ttft:     &engine1TTFT,
			unused:   2,
		},
		{
			name:     "empty selector value matches a missing label",
			selector: map[string]string{"engine": "1", "dp_rank": ""},
			counters: map[MetricRole]float64{RoleGenerationTokens: 80, RolePromptTokens: 200},
			ttft:     &engine1TTFT,
			unused:   2,
		},
		{
			name:     "selector key missing from every series",
			selector: map[string]string{"engine": "1", "dp_rank": "0"},
			counters: map[MetricRole]float64{},
			unused:   5,
			unread: map[MetricRole]string{
				RoleGenerationTokens: `vllm:generation_tokens_total has no series matching label_selector {dp_rank="0",engine="1"}`,
				RolePromptTokens:     `vllm:prompt_tokens_total has no series matching label_selector {dp_rank="0",engine="1"}`,
				RoleTTFT:             `vllm:time_to_first_token_seconds has no series matching label_selector {dp_rank="0",engine="1"}`,
			},
			diags: []Diagnostic{
				{Severity: Warning, File: file, Reason: "no matching series", Message: `vllm:generation_tokens_total has no series matching label_selector {dp_rank="0",engine="1"} (found {engine="0",model_name="a"}, {engine="1",model_name="a"}); generation_tokens not read`},
				{Severity: Warning, File: file, Reason: "no matching series", Message: `vllm:prompt_tokens_total has no series matching label_selector {dp_rank="0",engine="1"} (found {engine="0",model_name="a"}, {engine="1",model_name="a"}); prompt_tokens not read`},
				{Severity: Warning, File: file, Reason: "no matching series", Message: `vllm:time_to_first_token_seconds has no series matching label_selector {dp_rank="0",engine="1"} (found {engine="0",model_name="a"}, {engine="1",model_name="a"}); ttft not read`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parsePromFile(t, file, DefaultMetricNames(), tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Counters, tt.counters) {
				t.Errorf("Counters = %v, want %v", s.Counters, tt.counters)
			}
			got, ok := s.Histograms[RoleTTFT]
			switch {
			case tt.ttft == nil && ok:
				t.Errorf("ttft = %+v, want absent", got)
			case tt.ttft != nil && !reflect.DeepEqual(got, *tt.ttft):
				t.Errorf("ttft = %+v, want %+v", got, *tt.ttft)
			}
			if !reflect.DeepEqual(s.Diagnostics, tt.diags) {
				t.Errorf("Diagnostics =\n%v\nwant\n%v", s.Diagnostics, tt.diags)
			}
			if s.Families != 5 || s.UnusedFamilies != tt.unused {
				t.Errorf("Families, UnusedFamilies = %d, %d; want 5, %d", s.Families, s.UnusedFamilies, tt.unused)
			}
			if tt.unread == nil {
				tt.unread = map[MetricRole]string{}
			}
			if !reflect.DeepEqual(s.Unread, tt.unread) {
				t.Errorf("Unread = %q, want %q", s.Unread, tt.unread)
			}
			if tt.series != nil && !reflect.DeepEqual(s.Series, tt.series) {
				t.Errorf("Series = %q, want %q", s.Series, tt.series)
			}
		})
	}
}

func TestParseScrapeOpenMetrics(t *testing.T) {
	s, err := parsePromFile(t, "synthetic-openmetrics.prom", DefaultMetricNames(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "openmetrics" {
		t.Errorf("Format = %q, want openmetrics", s.Format)
	}
	// The latest sample timestamp is 1793613601.5 s; _created values are
	// not timestamps.
	if want := time.UnixMilli(1793613601500).UTC(); !s.Timestamp.Equal(want) {
		t.Errorf("Timestamp = %v, want %v", s.Timestamp, want)
	}
	wantCounters := map[MetricRole]float64{RoleGenerationTokens: 512, RolePromptTokens: 2048}
	if !reflect.DeepEqual(s.Counters, wantCounters) {
		t.Errorf("Counters = %v, want %v", s.Counters, wantCounters)
	}
	wantNames := map[MetricRole]string{RoleGenerationTokens: "vllm:generation_tokens_total", RolePromptTokens: "vllm:prompt_tokens_total"}
	if !reflect.DeepEqual(s.CounterNames, wantNames) {
		t.Errorf("CounterNames = %v, want %v", s.CounterNames, wantNames)
	}
	wantTTFT := Histogram{Buckets: buckets([]float64{0.1, 1, inf}, []float64{2, 5, 6}), Count: 6, Sum: 2.75}
	if got := s.Histograms[RoleTTFT]; !reflect.DeepEqual(got, wantTTFT) {
		t.Errorf("ttft = %+v, want %+v", got, wantTTFT)
	}
	// process_start_time_seconds is the fourth family, read for the
	// one-process check.
	if s.Families != 4 || s.UnusedFamilies != 0 || s.ProcessStartTime != 1793610000 {
		t.Errorf("Families, UnusedFamilies, ProcessStartTime = %d, %d, %v; want 4, 0, 1793610000", s.Families, s.UnusedFamilies, s.ProcessStartTime)
	}
	if len(s.Diagnostics) != 0 {
		t.Errorf("Diagnostics = %v, want none", s.Diagnostics)
	}
}

func TestParseScrapeNaNCounter(t *testing.T) {
	const file = "synthetic-nan-counter.prom"
	s, err := parsePromFile(t, file, DefaultMetricNames(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[MetricRole]float64{RolePromptTokens: 42}; !reflect.DeepEqual(s.Counters, want) {
		t.Errorf("Counters = %v, want %v", s.Counters, want)
	}
	want := []Diagnostic{{
		Severity: Warning, File: file, Reason: "nan",
		Message: `vllm:generation_tokens_total{model_name="m"} has a NaN value; generation_tokens not read`,
	}}
	if !reflect.DeepEqual(s.Diagnostics, want) {
		t.Errorf("Diagnostics =\n%v\nwant\n%v", s.Diagnostics, want)
	}
}

func TestParseScrapeMalformed(t *testing.T) {
	tests := []struct {
		name string
		file string // a fixture, or
		text string // inline input
		line int
		col  int
		msg  string
	}{
		{
			name: "non-numeric value",
			file: "synthetic-malformed.prom",
			line: 5,
			msg:  `not valid Prometheus text format 0.0.4: expected float as value, got "twelve"`,
		},
		{
			name: "unterminated label value",
			text: "# TYPE a gauge\na 1\nb{x=\"y} 2\n",
			line: 3,
			msg:  "not valid Prometheus text format 0.0.4: ",
		},
		{
			name: "bad TYPE",
			text: "a 1\n\n# TYPE b sometype\n",
			line: 3,
			msg:  `not valid Prometheus text format 0.0.4: unknown metric type "sometype"`,
		},
		{
			name: "OpenMetrics data after EOF",
			text: "# TYPE a gauge\na 1\n# EOF\nb 2\n",
			line: 4,
			msg:  "not valid OpenMetrics 1.0: unexpected data after # EOF",
		},
		{
			name: "OpenMetrics bad sample",
			text: "# TYPE a gauge\na 1\na{ 2\n# EOF\n",
			line: 3,
			msg:  "not valid OpenMetrics 1.0: invalid label name ",
		},
		{
			name: "OpenMetrics counter without _total",
			text: "# TYPE a counter\na 1\n# EOF\n",
			line: 2,
			msg:  `not valid OpenMetrics 1.0: sample "a" missing required suffix for type COUNTER`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			path := "metrics.prom"
			if tt.file != "" {
				path = tt.file
				_, err = parsePromFile(t, tt.file, DefaultMetricNames(), nil)
			} else {
				_, err = parsePromString(t, tt.text, nil, nil)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want *FileError", err, err)
			}
			if fe.File != path || fe.Line != tt.line || fe.Column != tt.col || fe.Severity != Error || fe.Reason != "syntax" {
				t.Errorf("got %+v, want file %s line %d column %d, error, reason syntax", fe.Diagnostic, path, tt.line, tt.col)
			}
			if !strings.HasPrefix(fe.Message, tt.msg) {
				t.Errorf("Message = %q, want prefix %q", fe.Message, tt.msg)
			}
		})
	}
}

// TestParseScrapeEdgeCases covers input quirks with small inline scrapes.
func TestParseScrapeEdgeCases(t *testing.T) {
	gen := func(name string) MetricNames { return MetricNames{RoleGenerationTokens: {name}} }
	ttft := func(name string) MetricNames { return MetricNames{RoleTTFT: {name}} }
	tests := []struct {
		name      string
		text      string
		names     MetricNames
		counter   *float64
		counterAs string
		hist      *Histogram
		timestamp time.Time
		reasons   []string
	}{
		{
			name:      "no trailing newline",
			text:      "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 5.0",
			counter:   ptr(5.0),
			counterAs: "vllm:generation_tokens_total",
		},
		{
			name:      "CRLF line ends and a byte-order mark",
			text:      "\xef\xbb\xbf# HELP vllm:generation_tokens_total Tokens. \r\n# TYPE vllm:generation_tokens_total counter\r\nvllm:generation_tokens_total 6.0\r\n",
			counter:   ptr(6.0),
			counterAs: "vllm:generation_tokens_total",
		},
		{
			name:      "counter family without _total",
			text:      "# TYPE vllm:generation_tokens counter\nvllm:generation_tokens 7\n",
			counter:   ptr(7.0),
			counterAs: "vllm:generation_tokens",
		},
		{
			name:      "untyped counter",
			text:      "vllm:generation_tokens_total{model_name=\"m\"} 8e+06\n",
			counter:   ptr(8e6),
			counterAs: "vllm:generation_tokens_total",
		},
		{
			name:      "gauge counter asked for with _total",
			text:      "# TYPE sglang:generation_tokens gauge\nsglang:generation_tokens 9\n",
			names:     gen("sglang:generation_tokens_total"),
			counter:   ptr(9.0),
			counterAs: "sglang:generation_tokens",
		},
		{
			name: "only a _created family",
			text: "# TYPE vllm:generation_tokens_created gauge\nvllm:generation_tokens_created 1.7e9\n",
		},
		{
			name:  "a _created name is never read",
			text:  "# TYPE vllm:generation_tokens_created gauge\nvllm:generation_tokens_created 1.7e9\n",
			names: gen("vllm:generation_tokens_created"),
		},
		{
			name:      "text format timestamp in ms",
			text:      "vllm:generation_tokens_total 3 1793613600123\nother 1 1793613599000\n",
			counter:   ptr(3.0),
			counterAs: "vllm:generation_tokens_total",
			timestamp: time.UnixMilli(1793613600123).UTC(),
		},
		{
			name:    "infinite counter",
			text:    "vllm:generation_tokens_total +Inf\n",
			reasons: []string{"inf"},
		},
		{
			// No +Inf bucket is made up from _count: analysis refuses it.
			name:  "histogram without +Inf bucket",
			text:  "# TYPE h histogram\nh_bucket{le=\"0.5\"} 2\nh_bucket{le=\"0.1\"} 1\nh_count 3\nh_sum 0.9\n",
			names: ttft("h"),
			hist:  &Histogram{Buckets: buckets([]float64{0.1, 0.5}, []float64{1, 2}), Count: 3, Sum: 0.9},
		},
		{
			// histograms.test's mixed_bucket: one bound written three ways.
			name:  "equal bounds written differently are one bucket",
			text:  "# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"0.2\"} 1\nh_bucket{le=\"2e-1\"} 1\nh_bucket{le=\"2.0e-1\"} 1\nh_bucket{le=\"+Inf\"} 4\nh_count 4\nh_sum 0.6\n",
			names: ttft("h"),
			hist:  &Histogram{Buckets: buckets([]float64{0.1, 0.2, inf}, []float64{1, 3, 4}), Count: 4, Sum: 0.6, MergedBounds: []float64{0.2}},
		},
		{
			name:  "+inf written in lower case",
			text:  "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+inf\"} 0\nh_bucket{le=\"+Inf\"} 2\nh_count 2\nh_sum 1\n",
			names: ttft("h"),
			hist:  &Histogram{Buckets: buckets([]float64{1, inf}, []float64{1, 2}), Count: 2, Sum: 1, MergedBounds: []float64{inf}},
		},
		{
			name:  "histogram without _count",
			text:  "# TYPE h histogram\nh_sum 2.5\nh_bucket{le=\"1\"} 4\nh_bucket{le=\"+Inf\"} 5\n",
			names: ttft("h"),
			hist:  &Histogram{Buckets: buckets([]float64{1, inf}, []float64{4, 5}), Count: 5, Sum: 2.5},
		},
		{
			name:  "histogram with only _count and _sum",
			text:  "# TYPE h histogram\nh_count 0\nh_sum 0\n",
			names: ttft("h"),
			hist:  &Histogram{Buckets: []Bucket{}, Count: 0, Sum: 0},
		},
		{
			name:  "fractional bucket counts",
			text:  "# TYPE h histogram\nh_bucket{le=\"1\"} 0.5\nh_bucket{le=\"+Inf\"} 1.5\nh_count 1.5\nh_sum 1\n",
			names: ttft("h"),
			hist:  &Histogram{Buckets: buckets([]float64{1, inf}, []float64{0.5, 1.5}), Count: 1.5, Sum: 1},
		},
		{
			name:    "histogram with NaN sum",
			text:    "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum NaN\n",
			names:   ttft("h"),
			reasons: []string{"nan"},
		},
		{
			name:    "histogram without TYPE line",
			text:    "h_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 1\n",
			names:   ttft("h"),
			reasons: []string{"wrong type"},
		},
		{
			name:    "summary asked for as a histogram",
			text:    "# TYPE h summary\nh{quantile=\"0.5\"} 1\nh_count 1\nh_sum 1\n",
			names:   ttft("h"),
			reasons: []string{"wrong type"},
		},
		{
			name: "empty input",
			text: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parsePromString(t, tt.text, tt.names, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Counters[RoleGenerationTokens]
			switch {
			case tt.counter == nil && ok:
				t.Errorf("generation_tokens = %v, want absent", got)
			case tt.counter != nil && (!ok || got != *tt.counter):
				t.Errorf("generation_tokens = %v (present %v), want %v", got, ok, *tt.counter)
			}
			if s.CounterNames[RoleGenerationTokens] != tt.counterAs {
				t.Errorf("read from %q, want %q", s.CounterNames[RoleGenerationTokens], tt.counterAs)
			}
			h, ok := s.Histograms[RoleTTFT]
			switch {
			case tt.hist == nil && ok:
				t.Errorf("ttft = %+v, want absent", h)
			case tt.hist != nil && !reflect.DeepEqual(h, *tt.hist):
				t.Errorf("ttft = %+v, want %+v", h, *tt.hist)
			}
			if !s.Timestamp.Equal(tt.timestamp) {
				t.Errorf("Timestamp = %v, want %v", s.Timestamp, tt.timestamp)
			}
			var reasons []string
			for _, d := range s.Diagnostics {
				reasons = append(reasons, d.Reason)
			}
			if !slices.Equal(reasons, tt.reasons) {
				t.Errorf("diagnostic reasons = %q, want %q (%v)", reasons, tt.reasons, s.Diagnostics)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// errReader fails after returning its data.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestParseScrapeReadError(t *testing.T) {
	_, err := ParseScrape(errReader{errors.New("disk on fire")}, "run/metrics-end.prom", DefaultMetricNames(), nil)
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want *FileError", err)
	}
	if want := "run/metrics-end.prom: error: reading scrape: disk on fire"; fe.Error() != want {
		t.Errorf("Error() = %q, want %q", fe.Error(), want)
	}
}

func FuzzParseScrape(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(promDir, "*.prom"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum NaN\n"))
	f.Add([]byte("# TYPE a counter\na_total 1 1.5\na_created 1\n# EOF\n"))
	f.Add([]byte("{\"vllm:generation_tokens_total\",engine=\"0\"} 1\n"))
	names := DefaultMetricNames()
	names[RoleTTFT] = append(names[RoleTTFT], "h")
	names[RoleGenerationTokens] = append(names[RoleGenerationTokens], "a")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, sel := range []map[string]string{nil, {"engine": "0"}} {
			var s *Scrape
			var err error
			withinBudget(t, "ParseScrape", len(data), func() { s, err = ParseScrape(bytes.NewReader(data), "fuzz.prom", names, sel) })
			if err != nil {
				var fe *FileError
				if !errors.As(err, &fe) {
					t.Fatalf("err = %v (%T), want *FileError", err, err)
				}
				if s != nil {
					t.Fatal("non-nil Scrape with an error")
				}
				continue
			}
			if s.UnusedFamilies < 0 || s.UnusedFamilies > s.Families {
				t.Fatalf("UnusedFamilies = %d, Families = %d", s.UnusedFamilies, s.Families)
			}
			for role, h := range s.Histograms {
				checkHistogramShape(t, role, h)
			}
			for role, v := range s.Counters {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s = %v", role, v)
				}
			}
		}
	})
}

// TestParseScrapeDigest: two scrapes have one digest exactly when their
// bytes are the same once a byte-order mark and CR line ends are dropped.
func TestParseScrapeDigest(t *testing.T) {
	digest := func(text string) [32]byte {
		s, err := parsePromString(t, text, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.Digest
	}
	a := digest("vllm:generation_tokens_total 5\nprocess_start_time_seconds 1.7e9\n")
	if b := digest("\xef\xbb\xbfvllm:generation_tokens_total 5\r\nprocess_start_time_seconds 1.7e9\r\n"); a != b {
		t.Error("a byte-order mark and CRLF line ends changed the digest")
	}
	if b := digest("vllm:generation_tokens_total 6\nprocess_start_time_seconds 1.7e9\n"); a == b {
		t.Error("different scrapes have the same digest")
	}
	if a == [32]byte{} {
		t.Error("zero digest")
	}
}
