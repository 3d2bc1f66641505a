package report

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/report/chart"
)

// TestPlotsFontAndSize: every chart is drawn at the page's content width
// with all its text in the shared sans-serif stack.
func TestPlotsFontAndSize(t *testing.T) {
	ps, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	family := []byte(`style="font-family:` + chart.FontFamily + `;`)
	for _, p := range ps {
		if !bytes.Contains(p.SVG, []byte(`<svg width="864pt" `)) {
			t.Errorf("plot %q: not 864 pt wide: %.120q", p.Name, p.SVG[bytes.Index(p.SVG, []byte("<svg")):])
		}
		texts := bytes.Count(p.SVG, []byte("<text "))
		if n := bytes.Count(p.SVG, family); texts == 0 || n != texts {
			t.Errorf("plot %q: %d of %d texts in the font stack", p.Name, n, texts)
		}
		sizes := svgFontSizes(t, p.SVG)
		if len(sizes) != texts {
			t.Errorf("plot %q: %d font sizes for %d texts", p.Name, len(sizes), texts)
		}
		// Every size is one of the style's, none below MinTextSize (12 of
		// 864 units: 11 px when the chart is shown 800 px wide).
		for _, sz := range sizes {
			if !slices.Contains([]float64{12, 12.5, 13, 14}, sz) || sz < chart.MinTextSize {
				t.Errorf("plot %q: text of size %g, want one of 12, 12.5, 13, 14", p.Name, sz)
			}
		}
	}
}

// svgFontSizes returns the font-size of every text of an SVG, in px
// (canvas units), in document order.
func svgFontSizes(t *testing.T, svg []byte) []float64 {
	t.Helper()
	var out []float64
	for _, m := range svgFontSize.FindAllSubmatch(svg, -1) {
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

var svgFontSize = regexp.MustCompile(`font-size:([0-9.]+)px`)

func TestChartDodge(t *testing.T) {
	logR := chartLevelRange{lo: 1, hi: 16, log: true}
	linR := chartLevelRange{lo: 1, hi: 3}
	one := chartLevelRange{lo: 8, hi: 8}
	for _, tc := range []struct {
		r    chartLevelRange
		x    float64
		i, n int
		want float64
	}{
		// Log axis: 1.5 % of the axis's 1.204 decades either side,
		// 4 × 16^∓0.015.
		{logR, 4, 0, 3, 3.8370564773010574},
		{logR, 4, 1, 3, 4},
		{logR, 16, 2, 3, 16.679452173457943},
		{logR, 1, 0, 3, 0.9592641193252643},
		// Linear: 1.5 % of the span 2.
		{linR, 2, 0, 3, 1.97},
		{linR, 2, 2, 3, 2.03},
		// Two statistics sit half a step either side.
		{linR, 2, 0, 2, 1.985},
		// One level: 1.5 % of the ±1 axis gonum gives it.
		{one, 8, 0, 3, 7.97},
	} {
		if got := tc.r.dodge(tc.x, tc.i, tc.n); !(math.Abs(got-tc.want) <= 1e-12) {
			t.Errorf("%+v.dodge(%g, %d, %d) = %v, want %v", tc.r, tc.x, tc.i, tc.n, got, tc.want)
		}
	}
}

func TestChartCDFSteps(t *testing.T) {
	got := chartCDFSteps([]analyze.CDFPoint{
		{P: 0.01, Value: analyze.NaN}, {P: 0.02, Value: 70}, {P: 0.03, Value: 1200}, {P: math.NaN(), Value: 1300}, {P: 1, Value: 1500},
	})
	var parts []string
	for _, p := range got {
		parts = append(parts, fmt.Sprintf("(%g,%g)", p.X, p.Y))
	}
	// The line rises from 0 at the first valid value; NaNs are skipped.
	if s, want := strings.Join(parts, " "), "(70,0) (70,0.02) (1200,0.03) (1500,1)"; s != want {
		t.Errorf("steps = %s, want %s", s, want)
	}
	if got := chartCDFSteps([]analyze.CDFPoint{{P: 0.5, Value: analyze.NaN}}); len(got) != 0 {
		t.Errorf("steps of no valid point = %v", got)
	}
}

func TestChartPadLow(t *testing.T) {
	for _, tc := range []struct {
		log          bool
		min, max     float64
		want         float64
		wantUnchange bool
	}{
		{true, 30, 300, 28.649777580643075, false}, // 30 ÷ 10^0.02
		{false, 21.5, 25.5, 21.42, false},
		{false, 0.05, 100, 0, false}, // never below zero
		{false, 5, 5, 5, true},
	} {
		a := plot.Axis{Min: tc.min, Max: tc.max}
		chartPadLow(&a, tc.log, 0.02)
		if !(math.Abs(a.Min-tc.want) <= 1e-12) || a.Max != tc.max {
			t.Errorf("pad(%v, %g–%g) = %g–%g, want %g–%g", tc.log, tc.min, tc.max, a.Min, a.Max, tc.want, tc.max)
		}
	}
}

func TestChartSLOLine(t *testing.T) {
	for _, tc := range []struct {
		target, lo, hi  float64
		log, vertical   bool
		stretch         bool
		sentencePortion string
	}{
		{1000, 60, 6400, true, false, true, "Dashed grey line: the TTFT SLO that goodput uses (≤ 1000 ms)."},
		{150, 0, 27, false, false, false, "lies above the drawn range"},
		{40, 0, 27, false, false, true, "Dashed grey line"},   // 40 ≤ 1.5 × 27
		{41, 0, 27, false, false, false, "lies above"},        // 41 > 40.5
		{30, 50, 5000, true, false, false, "lies below"},      // below 50 ÷ 1.5 on a log axis
		{40, 50, 5000, true, false, true, "Dashed grey line"}, // within 1.5× below
		{150, 19, 46, false, true, false, "lies right of"},    // a CDF's x axis
		{10, 50, 5000, true, true, false, "lies left of"},     // likewise
		{10, 50, 500, false, false, true, "Dashed grey line"}, // linear axes reach down to the target
	} {
		label, stretch, sentence := chartSLOLine("TTFT", "ms", tc.target, tc.lo, tc.hi, tc.log, tc.vertical)
		if want := fmt.Sprintf("SLO: TTFT ≤ %g ms", tc.target); label != want {
			t.Errorf("label %q, want %q", label, want)
		}
		if stretch != tc.stretch || !strings.Contains(sentence, tc.sentencePortion) {
			t.Errorf("target %g on %g–%g (log %v, vertical %v): stretch %v %q, want %v and %q",
				tc.target, tc.lo, tc.hi, tc.log, tc.vertical, stretch, sentence, tc.stretch, tc.sentencePortion)
		}
	}
}

// TestPlotsSLOOutOfRange: a target far above the data does not squash
// them; the chart names it at the edge, not in the legend, and the
// caption says where it is.
func TestPlotsSLOOutOfRange(t *testing.T) {
	s := testSummary()
	s.Method.SLO.TPOTms = 1000 // TPOT p99 at c=16 is 174 ms
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	byName := plotsByName(t, ps)
	for name, note := range map[string]string{
		"latency-tpot":    "↑ SLO: TPOT ≤ 1000 ms (above the axis)",
		"throughput-tpot": "↑ SLO: TPOT ≤ 1000 ms (above the axis)",
		"cdf-tpot":        "SLO: TPOT ≤ 1000 ms (right of the axis) →",
	} {
		texts := plotTexts(t, name, byName[name].SVG)
		if !slices.Contains(texts, note) {
			t.Errorf("plot %q: no note %q in %q", name, note, texts)
		}
		if slices.Contains(texts, "SLO: TPOT ≤ 1000 ms") {
			t.Errorf("plot %q: the legend names a line it does not draw", name)
		}
		if c := byName[name].Caption; !strings.Contains(c, "The TPOT SLO that goodput uses (≤ 1000 ms) lies ") {
			t.Errorf("plot %q: caption %q does not place the SLO", name, c)
		}
	}
	// The axis was not stretched to 1000: its top tick stays below 200.
	for _, tick := range plotTexts(t, "latency-tpot", byName["latency-tpot"].SVG) {
		if tick == "1000" || tick == "500" {
			t.Errorf("latency-tpot: axis stretched to the SLO (tick %q)", tick)
		}
	}
}

// TestPlotsEscapeInputText: a summary's metric name carries control
// characters (a hostile summary.json given to compare): every chart is
// still well-formed XML and shows them escaped.
func TestPlotsEscapeInputText(t *testing.T) {
	s := testSummary()
	for li := range s.Levels {
		for si := range s.Levels[li].Stats {
			if st := &s.Levels[li].Stats[si]; strings.HasPrefix(st.Key, "ttft.") {
				st.Metric = "TT\x1b[31mFT\x00"
			}
		}
	}
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	byName := plotsByName(t, ps)
	texts := plotTexts(t, "latency-ttft", byName["latency-ttft"].SVG) // fails on malformed XML
	if !slices.Contains(texts, `TT\x1b[31mFT\x00 (ms, log scale)`) {
		t.Errorf("latency-ttft: no escaped axis label in %q", texts)
	}
	for _, p := range ps {
		plotTexts(t, p.Name, p.SVG)
	}
}

// TestPlotsCDFFoot: a level whose fastest requests sit far below the rest
// gets its flat foot explained in the caption.
func TestPlotsCDFFoot(t *testing.T) {
	s := testSummary()
	s.Levels[1].CDFE2E[0].Value = 100 // was 1704 ms; the next point, p = 0.2, is at 2016 ms
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	c := plotsByName(t, ps)["cdf-e2e"].Caption
	if want := "A line's long flat foot is real: a few requests finished far sooner than the rest (c=4: 10 % of requests by 100 ms, 20 % by 2016 ms)."; !strings.Contains(c, want) {
		t.Errorf("cdf-e2e caption %q lacks %q", c, want)
	}
	if c := plotsByName(t, ps)["cdf-ttft"].Caption; strings.Contains(c, "flat foot") {
		t.Errorf("cdf-ttft caption %q explains a foot it does not have", c)
	}
}
