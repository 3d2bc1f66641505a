package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/report/chart"
)

// Tests of charts a newcomer can read: a log axis where levels span more
// than 10×, compact charts for one level, captions without doubled
// parentheses, one line for an empty server section.

func TestChartLogAxis(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   bool
	}{
		{100, 1000, false}, // exactly 10×: linear
		{100, 1000.1, true},
		{115, 6000, true}, // the example's p95 TTFT, c=1 to c=16
		{19.6, 26.5, false},
		{0, 1000, false}, // zero has no place on a log axis
		{-5, 1000, false},
		{10, 5, false},
	} {
		if got := chartLogAxis(tc.lo, tc.hi); got != tc.want {
			t.Errorf("chartLogAxis(%g, %g) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestChartLogFloor(t *testing.T) {
	for _, tc := range []struct{ min, want float64 }{
		{115, 100},
		{100, 100},
		{250, 200},
		{900, 500},
		{0.3, 0.2},
		{7, 5},
		{1, 1},
		{0, 0}, // not a log range: unchanged
	} {
		a := plot.Axis{Min: tc.min, Max: 6000}
		chartLogFloor(&a)
		if a.Min != tc.want {
			t.Errorf("chartLogFloor: min %g → %g, want %g", tc.min, a.Min, tc.want)
		}
	}
}

func TestChartAddHeadroom(t *testing.T) {
	for _, tc := range []struct {
		min, max  float64
		log, note bool
		want      float64
	}{
		{0, 100, false, false, 105},
		{0, 100, false, true, 115},
		{100, 10000, true, false, 10000 * 1.2589254117941673}, // 10^(2 decades × 0.05)
		{5, 5, false, false, 5},                               // empty range: unchanged
	} {
		a := plot.Axis{Min: tc.min, Max: tc.max}
		chartAddHeadroom(&a, tc.log, tc.note)
		if a.Max != tc.want {
			t.Errorf("chartAddHeadroom(%g–%g, log %v, note %v): max %v, want %v", tc.min, tc.max, tc.log, tc.note, a.Max, tc.want)
		}
	}
}

func TestChartLogSentence(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"p95 TTFT"}, " The p95 TTFT axis is logarithmic: its values span more than 10×."},
		{[]string{"p95 TTFT", "p95 E2E latency"}, " The p95 TTFT and p95 E2E latency axes are logarithmic: their values span more than 10×."},
	} {
		if got := chartLogSentence(tc.names); got != tc.want {
			t.Errorf("chartLogSentence(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

func TestChartSampleInCaption(t *testing.T) {
	for _, tc := range []struct{ in, flat, pooled string }{
		{analyze.SamplePooled, "pooled per-request, all runs", ""},
		{analyze.SamplePooledGap, "pooled per-gap, all runs", " (sample: pooled per-gap, all runs)"},
		{analyze.SampleWindowCount, "counter delta over the window", " (sample: counter delta over the window)"},
		{analyze.SampleServerHist, "server histogram, bucket deltas over the window", " (sample: server histogram, bucket deltas over the window)"},
	} {
		if got := chartFlat(tc.in); got != tc.flat {
			t.Errorf("chartFlat(%q) = %q, want %q", tc.in, got, tc.flat)
		}
		if got := chartPooledSample(tc.in); got != tc.pooled {
			t.Errorf("chartPooledSample(%q) = %q, want %q", tc.in, got, tc.pooled)
		}
	}
}

// TestPlotsNoDoubledParentheses: no caption of the test sweep nests a
// parenthesis in another ("(pooled per-request (all runs))").
func TestPlotsNoDoubledParentheses(t *testing.T) {
	ps, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		depth := 0
		for _, r := range p.Caption {
			switch r {
			case '(':
				depth++
				if depth > 1 {
					t.Errorf("plot %q: nested parentheses in caption %q", p.Name, p.Caption)
				}
			case ')':
				depth--
			}
		}
	}
}

// TestPlotsLogAxisAcrossLevels: p95 TTFT at c=16 twenty times that at
// c=1 puts the throughput chart's latency axis and the run-to-run
// spread's TTFT panel on a log scale, which the captions name.
func TestPlotsLogAxisAcrossLevels(t *testing.T) {
	s := testSummary()
	for li := range s.Levels {
		for si := range s.Levels[li].Stats {
			st := &s.Levels[li].Stats[si]
			if st.Key != "ttft.p95" {
				continue
			}
			// 100, 220 and 2000 ms: 20× from c=1 to c=16.
			m := []float64{100, 220, 2000}[li]
			st.Median, st.MAD = analyze.Num(m), analyze.Num(m/20)
			for r := range st.PerRun {
				st.PerRun[r] = analyze.Num(m * (0.98 + 0.02*float64(r)))
			}
		}
	}
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	byName := plotsByName(t, ps)
	for _, tc := range []struct {
		plot, label, sentence string
	}{
		{"throughput-ttft", "p95 TTFT (ms, log scale)", " The p95 TTFT axis is logarithmic: its values span more than 10×."},
		{"runs-spread", "ms (log scale)", " The p95 TTFT and output tokens/s (server counters) axes are logarithmic: their values span more than 10×."},
		// p95 TPOT spans 12 + 6·2 = 24 to 12 + 6·9·2 = 120 ms: 5×, linear.
		{"throughput-tpot", "p95 TPOT (ms)", ""},
	} {
		p := byName[tc.plot]
		if texts := plotTexts(t, tc.plot, p.SVG); !slices.Contains(texts, tc.label) {
			t.Errorf("plot %q: no axis label %q in %q", tc.plot, tc.label, texts)
		}
		if tc.sentence == "" {
			if strings.Contains(p.Caption, "logarithmic") {
				t.Errorf("plot %q: caption names a log axis: %q", tc.plot, p.Caption)
			}
		} else if !strings.Contains(p.Caption, tc.sentence) {
			t.Errorf("plot %q: caption %q lacks %q", tc.plot, p.Caption, tc.sentence)
		}
	}
	// The lowest point, 100 ms, has a labelled tick at it.
	if texts := plotTexts(t, "throughput-ttft", byName["throughput-ttft"].SVG); !slices.Contains(texts, "100") {
		t.Errorf("throughput-ttft: no tick 100 below the lowest point: %q", texts)
	}
}

// TestPlotsOneLevelCompact: a sweep of one level draws its charts
// against the level axis at half width (shown at natural size, class
// "compact" in HTML), the run-to-run spread in short tiles that name the
// level on their tick; the other charts keep the full size.
func TestPlotsOneLevelCompact(t *testing.T) {
	s := testSummary()
	s.Levels = s.Levels[:1]
	s.Runs = s.Runs[:3]
	s.Pareto.Points = s.Pareto.Points[:1]
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"latency-ttft":    `<svg width="432pt" height="300pt" `,
		"latency-tpot":    `<svg width="432pt" height="300pt" `,
		"latency-e2e":     `<svg width="432pt" height="300pt" `,
		"throughput-ttft": `<svg width="432pt" height="300pt" `,
		"throughput-tpot": `<svg width="432pt" height="300pt" `,
		"goodput":         `<svg width="432pt" height="300pt" `,
		"runs-spread":     `<svg width="864pt" height="368pt" `, // 2 rows × 170 + 28
		"cdf-ttft":        `<svg width="864pt" height="400pt" `,
		"lengths":         `<svg width="864pt" height="400pt" `,
	}
	byName := plotsByName(t, ps)
	for name, w := range want {
		p, ok := byName[name]
		if !ok {
			t.Errorf("plot %q missing", name)
			continue
		}
		if !bytes.Contains(p.SVG, []byte(w)) {
			t.Errorf("plot %q: want %s, got %.60q", name, w, p.SVG[bytes.Index(p.SVG, []byte("<svg")):])
		}
		compact := strings.HasPrefix(w, `<svg width="432pt"`)
		if chart.IsCompact(p.SVG) != compact {
			t.Errorf("plot %q: IsCompact = %v, want %v", name, !compact, compact)
		}
		html := Figure("plot-"+name, p.Alt, p.Caption, p.SVG)
		if got := strings.HasPrefix(html, `<figure id="plot-`+name+`" class="compact" `); got != compact {
			t.Errorf("plot %q: figure %.60q, want class compact: %v", name, html, compact)
		}
	}
	texts := plotTexts(t, "runs-spread", byName["runs-spread"].SVG)
	if !slices.Contains(texts, "concurrency 1") || slices.Contains(texts, "concurrency (requests in flight)") {
		t.Errorf("runs-spread of one level: want the tick \"concurrency 1\" and no axis label, got %q", texts)
	}
}

func TestServerSectionNothingToShow(t *testing.T) {
	omit := func(dir string, why ...string) analyze.RunSummary {
		r := analyze.RunSummary{Dir: dir}
		for _, w := range why {
			r.Server = append(r.Server, analyze.ServerHistogram{Role: "ttft", Label: "server TTFT", Omitted: w})
		}
		return r
	}
	for _, tc := range []struct {
		name string
		runs []analyze.RunSummary
		want string
	}{
		{"no scrapes", []analyze.RunSummary{{Dir: "c10/run-1"}}, "No server histogram was available.\n"},
		{"one reason", []analyze.RunSummary{omit("c10/run-1", "no end scrape", "no end scrape")},
			"No server histogram was available: no end scrape (1 run).\n"},
		{"one reason, two runs", []analyze.RunSummary{omit("c1/run-1", "no end scrape"), omit("c1/run-2", "no end scrape")},
			"No server histogram was available: no end scrape (2 runs).\n"},
		{"two reasons: listed", []analyze.RunSummary{omit("c1/run-1", "no end scrape"), omit("c1/run-2", "only a +Inf bucket")},
			"No server histogram was available.\n\nNot shown:\n\n- server TTFT: no end scrape (1 run)\n- server TTFT: only a +Inf bucket (1 run)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &analyze.Summary{Runs: tc.runs}
			if got := serverTable(s); got != tc.want {
				t.Errorf("serverTable:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
