package ingest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/benchnote/benchnote/internal/hostile"
)

// omReference decodes OpenMetrics with expfmt's own (ABNF) parser, the
// path benchnote no longer takes.
func omReference(data []byte) ([]*dto.MetricFamily, error) {
	dec := expfmt.NewDecoder(bytes.NewReader(data), expfmt.FmtOpenMetrics_1_0_0.WithEscapingScheme(model.NoEscaping))
	var fams []*dto.MetricFamily
	for {
		f := &dto.MetricFamily{}
		err := dec.Decode(f)
		if errors.Is(err, io.EOF) {
			return fams, nil
		}
		if err != nil {
			return nil, err
		}
		fams = append(fams, f)
	}
}

// omComparable renders families without what openMetricsToText drops on
// purpose (units, _created timestamps, exemplars, a HELP text's leading
// blanks), sorted by name, with each series' labels sorted, as text for a
// readable diff.
func omComparable(fams []*dto.MetricFamily) string {
	var out []string
	for _, f := range fams {
		f = proto.Clone(f).(*dto.MetricFamily)
		f.Unit = nil
		// The text format cannot write a HELP text that is empty or starts
		// with a blank (its parser skips blanks before the text); benchnote
		// does not read HELP texts.
		if help := strings.TrimLeft(f.GetHelp(), " \t"); help != "" {
			f.Help = proto.String(help)
		} else {
			f.Help = nil
		}
		// A histogram or summary whose only sample is _created has no
		// sample the text format can write (found by
		// FuzzOpenMetricsMatchesExpfmt); benchnote reads nothing from it.
		f.Metric = slices.DeleteFunc(f.Metric, func(m *dto.Metric) bool {
			h, s := m.Histogram, m.Summary
			return h != nil && h.SampleCount == nil && h.SampleCountFloat == nil && h.SampleSum == nil && len(h.Bucket) == 0 ||
				s != nil && s.SampleCount == nil && s.SampleSum == nil && len(s.Quantile) == 0
		})
		if len(f.Metric) == 0 && (f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_GAUGE_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY) {
			continue
		}
		for _, m := range f.Metric {
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
			if m.Counter != nil {
				m.Counter.CreatedTimestamp, m.Counter.Exemplar = nil, nil
			}
			if m.Summary != nil {
				m.Summary.CreatedTimestamp = nil
			}
			if h := m.Histogram; h != nil {
				h.CreatedTimestamp = nil
				for _, b := range h.Bucket {
					b.Exemplar = nil
				}
			}
		}
		out = append(out, prototext.MarshalOptions{Multiline: true}.Format(f))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// omCases are OpenMetrics expositions expfmt's OpenMetrics parser accepts.
var omCases = map[string]string{
	"counter with created and exemplar": "# TYPE a counter\n# HELP a Tokens \\\"so far\\\" \\\\ done\\n.\na_total{x=\"1\"} 3 1793613600.25 # {trace_id=\"k 1\"} 1 1793613600.1\na_created{x=\"1\"} 1793610000\na_total{x=\"2\"} 4\n# EOF\n",
	"histogram":                         "# TYPE h_seconds histogram\n# UNIT h_seconds seconds\nh_seconds_bucket{le=\"0.1\"} 1\nh_seconds_bucket{le=\"+Inf\"} 2 # {} 0.5\nh_seconds_count 2\nh_seconds_sum 0.75\nh_seconds_created 5\n# EOF\n",
	"gauge histogram":                   "# TYPE g gaugehistogram\ng_bucket{le=\"1\"} 1\ng_bucket{le=\"+Inf\"} 3\ng_gcount 3\ng_gsum 7\n# EOF\n",
	"summary":                           "# TYPE s summary\ns{quantile=\"0.5\"} 1.5\ns{quantile=\"0.9\"} NaN\ns_sum 10\ns_count 4\ns_created 1\n# EOF\n",
	"unknown and untyped":               "# TYPE u unknown\nu 1 -5.5\nv{a=\"\"} +Inf\nw -inf\n# EOF\n",
	"escapes in label values":           "# TYPE e gauge\ne{a=\"x\\\"y\\\\z\\nw\",b=\"\\q\"} 1\n# EOF\n",
	"utf-8 names":                       "# TYPE \"my.metric\" gauge\n{\"my.metric\",\"la.bel\"=\"v\"} 2\n# EOF\n",
	"timestamps":                        "# TYPE t gauge\nt{a=\"1\"} 1 0.0005\nt{a=\"2\"} 1 1e3\nt{a=\"3\"} 1 -1.5\n# EOF\n",
	"label value with braces and hash":  "# TYPE q counter\nq_total{a=\"} # {\"} 1 # {b=\"c\"} 1\n# EOF\n",
	"empty":                             "# EOF\n",
}

func TestOpenMetricsMatchesExpfmt(t *testing.T) {
	cases := map[string][]byte{}
	for name, text := range omCases {
		cases[name] = []byte(text)
	}
	// The real scrapes of testdata, re-encoded as OpenMetrics by expfmt.
	files, err := filepath.Glob(filepath.Join(promDir, "*.prom"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("# EOF")) || strings.Contains(file, "malformed") || strings.Contains(file, "nan-counter") {
			continue
		}
		fams, err := decodeText(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		// expfmt's OpenMetrics parser takes about 2 ms a line: keep the
		// smallest families, up to about 6 KB.
		slices.SortStableFunc(fams, func(a, b *dto.MetricFamily) int { return len(a.Metric) - len(b.Metric) })
		var buf bytes.Buffer
		for _, f := range fams {
			if buf.Len() > 6<<10 {
				break
			}
			if _, err := expfmt.MetricFamilyToOpenMetrics(&buf, f, expfmt.WithCreatedLines()); err != nil {
				t.Fatalf("%s: encoding %s: %v", file, f.GetName(), err)
			}
		}
		buf.WriteString("# EOF\n")
		cases[filepath.Base(file)] = buf.Bytes()
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := omReference(data)
			if err != nil {
				t.Fatalf("expfmt refuses the case: %v", err)
			}
			got, err := decodeOpenMetrics(data)
			if err != nil {
				t.Fatalf("decodeOpenMetrics: %v", err)
			}
			if g, w := omComparable(got), omComparable(want); g != w {
				t.Errorf("families differ from expfmt's OpenMetrics parser:\n%s", textDiff(g, w))
			}
		})
	}
}

// textDiff shows the first line where got and want differ, with context.
func textDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			lo := max(0, i-8)
			return "got:\n" + strings.Join(g[lo:min(len(g), i+3)], "\n") + "\nwant:\n" + strings.Join(w[lo:min(len(w), i+3)], "\n")
		}
	}
	return ""
}

func TestOpenMetricsErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# TYPE a gauge\na 1\n# EOF\nb 2\n", `fuzz.prom:4: error: not valid OpenMetrics 1.0: unexpected data after # EOF`},
		{"# TYPE a counter\na 1\n# EOF\n", `fuzz.prom:2: error: not valid OpenMetrics 1.0: sample "a" missing required suffix for type COUNTER`},
		{"# TYPE h histogram\nh 1\n# EOF\n", `fuzz.prom:2: error: not valid OpenMetrics 1.0: sample "h" missing required suffix for type HISTOGRAM`},
		{"# TYPE a gauge\na 1 1e999\n# EOF\n", `fuzz.prom:2: error: not valid OpenMetrics 1.0: invalid timestamp "1e999"`},
		{"# TYPE a gauge\na 1 0x1p3\n# EOF\n", `fuzz.prom:2: error: not valid OpenMetrics 1.0: invalid timestamp "0x1p3": unsupported character`},
		{"# TYPE a gauge\na{b=\"c} 1\n# EOF\n", `fuzz.prom:2: error: not valid OpenMetrics 1.0: `},
	}
	for _, tt := range tests {
		_, err := ParseScrape(strings.NewReader(tt.in), "fuzz.prom", DefaultMetricNames(), nil)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want prefix %s", tt.in, err, tt.want)
		}
	}
	// Info and stateset families, which expfmt's OpenMetrics parser
	// refuses (prometheus_client writes python_info as one), are read as
	// untyped.
	s, err := ParseScrape(strings.NewReader("# TYPE python info\npython_info{version=\"3.12\"} 1\n# TYPE st stateset\nst{st=\"a\"} 1\n"+
		"# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total 7\n# EOF\n"), "m.prom", DefaultMetricNames(), nil)
	if err != nil || s.Families != 3 || s.Counters[RoleGenerationTokens] != 7 {
		t.Errorf("scrape with info and stateset: %v, %+v", err, s)
	}
}

// TestOpenMetricsLongLabel reads the scrape of issue 7 (one label value
// of 4,000 characters, which took 40 s and 4.6 GB through expfmt's
// OpenMetrics parser) and refuses one over MaxLabelValueBytes. Their cost
// is measured by BenchmarkHostileInputs.
func TestOpenMetricsLongLabel(t *testing.T) {
	s, err := ParseScrape(bytes.NewReader(hostile.OpenMetricsLongLabel(4000)), "m.prom", DefaultMetricNames(), nil)
	if err != nil || s.Counters[RoleGenerationTokens] != 12345 || s.Format != "openmetrics" {
		t.Errorf("label of 4,000 characters: %v, %+v", err, s)
	}
	_, err = ParseScrape(bytes.NewReader(hostile.OpenMetricsLongLabel(64000)), "m.prom", DefaultMetricNames(), nil)
	if want := "m.prom:2:41: error: label value of 64,000 bytes, longer than the limit of 4,096"; err == nil || err.Error() != want {
		t.Errorf("label of 64,000 characters: %v, want %s", err, want)
	}
}

// FuzzOpenMetricsMatchesExpfmt checks openMetricsToText against expfmt's
// own OpenMetrics parser: whatever that parser accepts must be read to the
// same families. Inputs are kept short, since the reference is slow.
func FuzzOpenMetricsMatchesExpfmt(f *testing.F) {
	for _, c := range omCases {
		f.Add([]byte(c))
	}
	if _, err := omReference([]byte("# EOF\n")); err != nil { // compile the grammar before fuzzing
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		var got []*dto.MetricFamily
		var err error
		withinBudget(t, "decodeOpenMetrics", len(data), func() { got, err = decodeOpenMetrics(data) })
		want, werr := omReference(data)
		if werr != nil {
			return
		}
		if err != nil {
			t.Fatalf("expfmt accepts, decodeOpenMetrics refuses: %v", err)
		}
		if g, w := omComparable(got), omComparable(want); g != w {
			t.Fatalf("families differ from expfmt's OpenMetrics parser:\n got %s\nwant %s", g, w)
		}
	})
}
