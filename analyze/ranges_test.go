package analyze

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// TestEveryNumberHasARange walks the types of a Summary: every float64
// (Num, Rate) field must have a range in fieldRange, or DecodeSummary
// would refuse any summary where it is not null.
func TestEveryNumberHasARange(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, owner, field string)
	walk = func(typ reflect.Type, owner, field string) {
		switch typ.Kind() {
		case reflect.Float64:
			if _, _, ok := fieldRange(owner, field); !ok {
				t.Errorf("%s.%s (%s): no range", owner, field, typ)
			}
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem(), owner, field)
		case reflect.Struct:
			if seen[typ] {
				return
			}
			seen[typ] = true
			for i := 0; i < typ.NumField(); i++ {
				sf := typ.Field(i)
				name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
				if sf.Anonymous {
					// Its fields are walked as the embedding struct's, by
					// walkStruct, but ranged by their own type's name.
					walk(sf.Type, typ.Name(), name)
					continue
				}
				walk(sf.Type, typ.Name(), name)
			}
		}
	}
	walk(reflect.TypeOf(Summary{}), "", "")
	if len(seen) < 30 {
		t.Errorf("walked %d struct types: the walk is broken", len(seen))
	}
}

// validSummary is a small summary that passes Validate.
func validSummary() *Summary {
	s := &Summary{Schema: SchemaVersion,
		Levels: []Level{{LevelKey: LevelKey{Mode: "concurrency", Concurrency: 4}, Runs: []string{"a"},
			Stats:        []AcrossRuns{{Key: "ttft.p95", Unit: "ms", Median: 120, MAD: 3, PerRun: []Num{120}}},
			ErrorPercent: 0, PooledE2E: Distribution{Unit: "ms", P99: 900, Mean: NaN}}},
		Runs: []RunSummary{{Dir: "a", LevelKey: LevelKey{Mode: "concurrency", Concurrency: 4},
			TTFT:       Distribution{Unit: "ms", P50: 100, P95: 120, P99: 130, Max: 150, Mean: 101},
			Throughput: Throughput{OutputTokensPerSec: 4000, RequestsPerSec: 20, WindowSeconds: 60, CounterMismatch: NaN},
			Goodput:    Goodput{Percent: 99.5}}},
	}
	return s
}

func TestValidateNumbers(t *testing.T) {
	tests := []struct {
		name string
		set  func(s *Summary)
		want string
	}{
		{"a huge TTFT", func(s *Summary) { s.Runs[0].TTFT.P95 = 1e308 }, "runs[0].ttft.p95: 1e308 is outside [0, 1e10] ms"},
		{"a negative TTFT", func(s *Summary) { s.Runs[0].TTFT.P50 = -1 }, "runs[0].ttft.p50: -1 is outside [0, 1e10] ms"},
		{"an infinite Num", func(s *Summary) { s.Runs[0].TTFT.Max = Num(math.Inf(1)) }, "runs[0].ttft.max: +Inf is outside [0, 1e10] ms"},
		{"a per-run value", func(s *Summary) { s.Levels[0].Stats[0].PerRun[0] = -1e308 },
			"levels[0].stats[0].per_run[0] (ttft.p95): -1e308 is outside [0, 1e10] ms"},
		{"a median", func(s *Summary) { s.Levels[0].Stats[0].Median = 2e10 }, "levels[0].stats[0].median (ttft.p95): 2e10 is outside [0, 1e10] ms"},
		{"a pooled percentile", func(s *Summary) { s.Levels[0].PooledE2E.P99 = 1.797e308 }, "levels[0].pooled_e2e.p99: 1.797e308 is outside [0, 1e10] ms"},
		{"a throughput", func(s *Summary) { s.Runs[0].Throughput.OutputTokensPerSec = 1e13 },
			"runs[0].throughput.output_tokens_per_s: 1e13 is outside [0, 1e12] tokens/s"},
		{"a percentage", func(s *Summary) { s.Runs[0].Goodput.Percent = 100.5 }, "runs[0].goodput.percent: 100.5 is outside [0, 100] %"},
		{"an error percentage", func(s *Summary) { s.Levels[0].ErrorPercent = -0.1 }, "levels[0].error_percent: -0.1 is outside [0, 100] %"},
		{"a share", func(s *Summary) { s.Method.SLO.Attainment = 1.5 }, "method.slo.attainment: 1.5 is outside [0, 1]"},
		{"a window", func(s *Summary) { s.Runs[0].Throughput.WindowSeconds = 1e300 }, "runs[0].throughput.window_seconds: 1e300 is outside [0, 253402300799] s"},
		{"a CDF point", func(s *Summary) { s.Levels[0].CDFTTFT = []CDFPoint{{P: 0.5, Value: 1}, {P: 2, Value: 3}} }, "levels[0].cdf_ttft[1].p: 2 is outside [0, 1]"},
		{"a rate level", func(s *Summary) {
			s.Levels[0].LevelKey = LevelKey{Mode: "rate", Rate: 2e6}
			s.Runs[0].LevelKey = s.Levels[0].LevelKey
		}, "levels[0].rate: 2e6 is outside [0, 1e6] req/s"},
		{"a concurrency level", func(s *Summary) { s.Levels[0].Concurrency = 1 << 40 }, "levels[0]: mode \"concurrency\" with concurrency 1099511627776, rate 0 is not a load level"},
		{"an arrival process", func(s *Summary) {
			s.Levels[0].LevelKey = LevelKey{Mode: "rate", Rate: 4, Arrival: "poisson\n| forged | row |"}
		}, "levels[0].arrival: \"poisson\\n| forged | row |\" is not an arrival process (expected poisson, constant or gamma)"},
		{"a run's arrival process", func(s *Summary) { s.Runs[0].Arrival = "<b>" }, "runs[0].arrival: \"<b>\" is not an arrival process (expected poisson, constant or gamma)"},
		{"an imported figure", func(s *Summary) {
			s.Runs[0].Import = &ImportSummary{Figures: []FigureComparison{{Key: "duration_s", Unit: "s", Reported: -5, Benchnote: NaN}}}
		}, "runs[0].import.figures[0].reported (duration_s): -5 is outside [0, 253402300799] s"},
		{"a figure in a unit of its tool", func(s *Summary) {
			s.Runs[0].Import = &ImportSummary{Figures: []FigureComparison{{Key: "x", Unit: "widgets", Reported: 1e300, Benchnote: NaN}}}
		}, "runs[0].import.figures[0].reported (x): 1e300 is outside [-1e18, 1e18] widgets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSummary()
			tt.set(s)
			if err := s.Validate(); err == nil || err.Error() != tt.want {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
	s := validSummary()
	s.Levels[0].LevelKey = LevelKey{Mode: "rate", Rate: Rate(math.Inf(1))}
	s.Runs[0].LevelKey = s.Levels[0].LevelKey
	s.Runs[0].TTFT.P99 = NaN
	if err := s.Validate(); err != nil {
		t.Errorf("rate inf and a null p99: %v", err)
	}
}

// TestDecodeSummaryNumbers: DecodeSummary names the file and the path of
// a number out of range, and of one JSON cannot hold.
func TestDecodeSummaryNumbers(t *testing.T) {
	base, err := json.Marshal(validSummary())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ old, new, want string }{
		{`"p95":120`, `"p95":1e308`, `x.json: runs[0].ttft.p95: 1e308 is outside [0, 1e10] ms`},
		{`"per_run":[120]`, `"per_run":[-1e308]`, `x.json: levels[0].stats[0].per_run[0] (ttft.p95): -1e308 is outside [0, 1e10] ms`},
		{`"p95":120`, `"p95":1e400`, `x.json: field "runs.ttft.p95": expected a number within ±MaxFloat64, or null, got number 1e400`},
		{`"p95":120`, `"p95":"1"`, `x.json: field "runs.ttft.p95": expected a number within ±MaxFloat64, or null, got string`},
		{`"p95":120`, `"p95":NaN`, `x.json:offset OFFSET: invalid character 'N' looking for beginning of value`},
	} {
		in := strings.Replace(string(base), tt.old, tt.new, 1)
		if in == string(base) {
			t.Fatalf("%q not in the summary", tt.old)
		}
		// The offset the decoder stops at: just after the bad byte.
		want := strings.Replace(tt.want, "OFFSET", strconv.Itoa(strings.Index(in, tt.new)+len(`"p95":`)+1), 1)
		_, err := DecodeSummary(strings.NewReader(in), "x.json")
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", tt.new, err, want)
		}
	}
}

// TestAnalyzeNullsNumbersOutOfRange: a sweep whose requests give figures
// no measurement can (an E2E of 1.797e308 ms, which ingest's ranges leave
// out at read time, and a throughput over a window of a microsecond)
// yields a summary that decodes, the figures written as null and listed
// among the exclusions.
func TestAnalyzeNullsNumbersOutOfRange(t *testing.T) {
	run := makeRun("c1/r1", 1, 1, []req{
		{id: "a", n: 5, ttft: 100, e2e: 200, sent: 1.7e9},
		{id: "b", n: 5, ttft: 100, e2e: 1.797e308, sent: 1.7e9 + 1e-6},
	})
	sw := &ingest.Sweep{Config: noWarmupConfig(), Runs: []*ingest.Run{run}}
	s := Analyze(sw)
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeSummary(bytes.NewReader(js), "summary.json"); err != nil {
		t.Fatalf("the summary analyze wrote does not decode: %v", err)
	}
	r := s.Runs[0]
	if r.E2E.Max.Valid() || r.E2E.P99.Valid() || !r.E2E.P50.Valid() {
		t.Errorf("E2E max %v, p99 %v, p50 %v: want null, null and a value", r.E2E.Max, r.E2E.P99, r.E2E.P50)
	}
	var got []string
	for _, e := range s.Exclusions {
		if e.Scope == ScopeStatistic && strings.HasPrefix(e.Reason, "out of range") {
			got = append(got, e.Reason+": "+strings.Join(e.Examples, "; "))
		}
	}
	want := []string{
		"out of range (outside [0, 1e10] ms): written as null: c1/r1: e2e.p95; c1/r1: e2e.p99; c1/r1: e2e.max; c1/r1: e2e.mean; c1/r1: tpot.p95",
		"out of range (outside [0, 253402300799] s): written as null: c1/r1: throughput.client_span_seconds",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exclusions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckStatistic(t *testing.T) {
	tests := []struct {
		unit string
		v    float64
		want string
	}{
		{"ms", 120, ""},
		{"ms", math.NaN(), ""},
		{"ms", 1e308, "1e308 is outside [0, 1e10] ms"},
		{"ms", math.Inf(-1), "-Inf is outside [0, 1e10] ms"},
		{"%", 100, ""},
		{"%", 100.01, "100.01 is outside [0, 100] %"},
		{"tokens/s", 2e12, "2e12 is outside [0, 1e12] tokens/s"},
		{"req/s", -1, "-1 is outside [0, 1e12] req/s"},
	}
	for _, tt := range tests {
		got := ""
		if err := CheckStatistic(tt.unit, tt.v); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckStatistic(%q, %v) = %q, want %q", tt.unit, tt.v, got, tt.want)
		}
	}
}

// TestValidateTexts: a text longer than MaxSummaryText is refused, named
// by its path (a key shortened), and cut by Analyze's pass.
func TestValidateTexts(t *testing.T) {
	long := strings.Repeat("é", MaxSummaryText/2) + "x" // 64 KiB + 1 byte
	tests := []struct {
		name string
		set  func(s *Summary)
		want string
	}{
		{"a title", func(s *Summary) { s.Title = long }, "title: a text of 65537 bytes is longer than 65536 bytes"},
		{"a note", func(s *Summary) { s.Notes = []string{"ok", long} }, "notes[1]: a text of 65537 bytes is longer than 65536 bytes"},
		{"a key", func(s *Summary) { s.Levels[0].Stats[0].Key = long },
			"levels[0].stats[0].key (" + strings.Repeat("é", 30) + "…): a text of 65537 bytes is longer than 65536 bytes"},
		{"an environment value", func(s *Summary) { s.Environment.Canonical = []EnvField{{Key: "gpu", Value: long}} },
			"environment.canonical[0].value (gpu): a text of 65537 bytes is longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSummary()
			tt.set(s)
			if err := s.Validate(); err == nil || err.Error() != tt.want {
				t.Errorf("Validate() = %.300v, want %q", err, tt.want)
			}
		})
	}
	s := validSummary()
	s.Title = long
	nulled, kept := nullOutOfRange(s)
	if len(nulled) != 1 || len(kept) != 0 || len(s.Title) != MaxSummaryText-1 || !strings.HasSuffix(s.Title, "é…") {
		t.Errorf("cut to %d bytes ending %q; %d fixed, %d kept", len(s.Title), s.Title[len(s.Title)-6:], len(nulled), len(kept))
	}
}
