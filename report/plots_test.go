package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/golden"
)

// plotAcross builds an across-runs statistic whose per-run values are
// median, median−mad, median+mad in repeat order: the median is median
// and the raw MAD is mad.
func plotAcross(key, metric, stat, unit, sample string, median, mad float64) analyze.AcrossRuns {
	return analyze.AcrossRuns{
		Key: key, Metric: metric, Statistic: stat, Unit: unit, Sample: sample,
		Median: analyze.Num(median), MAD: analyze.Num(mad), Runs: 3,
		PerRun: []analyze.Num{analyze.Num(median), analyze.Num(median - mad), analyze.Num(median + mad)},
	}
}

// plotCDF returns ten CDF points from lo to hi, the fifth one NaN.
func plotCDF(lo, hi float64) []analyze.CDFPoint {
	var pts []analyze.CDFPoint
	for i := 1; i <= 10; i++ {
		v := analyze.Num(lo + (hi-lo)*float64(i*i)/100)
		if i == 5 {
			v = analyze.NaN
		}
		pts = append(pts, analyze.CDFPoint{P: float64(i) / 10, Value: v})
	}
	return pts
}

// plotBins returns ten bins of the given width with a hump of counts.
func plotBins(width float64, scale int) []analyze.HistogramBin {
	counts := []int{0, 2, 5, 9, 12, 8, 4, 2, 1, 1}
	var bins []analyze.HistogramBin
	for i, c := range counts {
		bins = append(bins, analyze.HistogramBin{Lo: float64(i) * width, Hi: float64(i+1) * width, Count: c * scale})
	}
	return bins
}

// plotTrace returns a 40-request warm-up trace: slow first requests, a
// request without TTFT at index 7, no block median until index 5, and the
// stabilisation statistic (block change ÷ tolerance) from index 11, above
// 10 at first, with the TPOT one missing at index 20.
func plotTrace(base float64, repeat int) []analyze.WarmupPoint {
	var pts []analyze.WarmupPoint
	base += 15 * float64(repeat)
	for i := 1; i <= 40; i++ {
		ttft := analyze.Num(base + 400/float64(i) + float64((i*7+repeat*3)%5))
		if i == 7 {
			ttft = analyze.NaN
		}
		med := analyze.NaN
		if i >= 5 {
			med = analyze.Num(base + 400/float64(i-2))
		}
		stat, tpotStat := analyze.NaN, analyze.NaN
		if i > 10 {
			stat = analyze.Num(60 / float64(i-8+repeat))
			tpotStat = analyze.Num(30 / float64(i-8))
		}
		if i == 20 {
			tpotStat = analyze.NaN
		}
		pts = append(pts, analyze.WarmupPoint{Index: i, TTFTms: ttft, BlockMedian: med, TTFTStat: stat, TPOTStat: tpotStat})
	}
	return pts
}

// testSummary is three levels (1, 4, 16) of three runs each, with known
// medians and MADs.
func testSummary() *analyze.Summary {
	s := &analyze.Summary{
		Schema: analyze.SchemaVersion,
		Title:  "test sweep",
		Method: analyze.Method{
			Percentile: "nearest-rank", MAD: "raw", Warmup: "stabilisation", MinRuns: 3,
			WarmupStatistic: "relative change of the block median from the previous block ÷ tolerance (below 1 counts as stable)",
			SLO:             analyze.SLO{TTFTms: 200, TPOTms: 50, E2Ems: analyze.NaN, Attainment: 0.9},
		},
		Pareto: analyze.Pareto{Per: analyze.ParetoPerGPU},
	}
	for li, c := range []int{1, 4, 16} {
		f := float64(li + 1)
		lv := analyze.Level{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: c}}
		for ri := 1; ri <= 3; ri++ {
			lv.Runs = append(lv.Runs, fmt.Sprintf("c%d-r%d", c, ri))
		}
		for _, m := range []struct {
			key, name  string
			base, step float64
		}{{"ttft", "TTFT", 40, 30}, {"tpot", "TPOT", 12, 6}, {"e2e", "E2E latency", 900, 500}} {
			for si, st := range []string{"p50", "p95", "p99"} {
				median := m.base + m.step*f*f*float64(si+1)
				lv.Stats = append(lv.Stats, plotAcross(m.key+"."+st, m.name, st, "ms", analyze.SamplePerRequest, median, median/20))
			}
		}
		lv.Stats = append(lv.Stats,
			plotAcross("throughput.output_tokens_per_s", "output tokens/s", "rate", "tokens/s", analyze.SampleWindowCount, 300*f*f-50*f, 10*f),
			plotAcross("goodput.percent", "goodput", "pass rate", "%", "measured requests meeting every SLO / measured requests", 100-4*f*f, 2*f),
		)
		lv.PooledTTFT = analyze.Distribution{Metric: "TTFT", Unit: "ms", Sample: analyze.SamplePooled, Method: "nearest-rank", N: 300 * c}
		lv.PooledTPOT = analyze.Distribution{Metric: "TPOT", Unit: "ms", Sample: analyze.SamplePooled, Method: "nearest-rank", N: 280 * c}
		lv.PooledE2E = analyze.Distribution{Metric: "E2E latency", Unit: "ms", Sample: analyze.SamplePooled, Method: "nearest-rank", N: 300 * c}
		lv.CDFTTFT = plotCDF(30*f, 150*f*f)
		lv.CDFTPOT = plotCDF(20+10*f, 20+30*f*f) // spans < 20×: linear axis
		lv.CDFE2E = plotCDF(800*f, 3000*f*f)
		lv.Workload.PromptTokens = analyze.Distribution{Metric: "prompt length", Unit: "tokens"}
		lv.Workload.OutputTokens = analyze.Distribution{Metric: "output length", Unit: "tokens"}
		lv.Workload.PromptHistogram = plotBins(100+10*f, c)
		lv.Workload.OutputHistogram = plotBins(30+5*f, c)
		s.Levels = append(s.Levels, lv)
		s.Pareto.Points = append(s.Pareto.Points, plotParetoPoint(lv.LevelKey, f))
		for ri := 1; ri <= 3; ri++ {
			r := analyze.RunSummary{
				Dir: fmt.Sprintf("c%d-r%d", c, ri), LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: c}, Repeat: ri,
				Warmup: analyze.WarmupResult{Mode: "stabilisation", Outcome: analyze.WarmupCut, Discarded: 6 + 2*ri, Stabilised: true, Trace: plotTrace(30*f, ri)},
			}
			if c == 4 && ri == 2 {
				r.Warmup.Outcome, r.Warmup.Discarded, r.Warmup.Stabilised = analyze.WarmupNotStabilised, 0, false
			}
			s.Runs = append(s.Runs, r)
		}
	}
	return s
}

// plotParetoPoint is level f of testSummary on the Pareto chart: per GPU
// throughput rising and user TPS falling with the load, every level on
// the frontier, the highest failing the SLOs.
func plotParetoPoint(k analyze.LevelKey, f float64) analyze.ParetoPoint {
	meets := f < 3
	return analyze.ParetoPoint{
		LevelKey: k, GPUs: 2,
		Throughput: plotAcross("throughput.output_tokens_per_s_per_gpu", "output tokens/s per GPU", "rate", "tokens/s", analyze.SampleWindowCount+" ÷ GPU count", (300*f*f-50*f)/2, 5*f),
		UserTPS:    plotAcross(analyze.KeyUserTPSMedian, "user TPS", "p50", "tokens/s", analyze.SamplePerRequest, 80/f, 2/f),
		OnFrontier: true, MeetsSLO: &meets,
	}
}

func plotsByName(t *testing.T, ps []Plot) map[string]Plot {
	t.Helper()
	m := map[string]Plot{}
	for _, p := range ps {
		if _, dup := m[p.Name]; dup {
			t.Errorf("plot %q drawn twice", p.Name)
		}
		m[p.Name] = p
	}
	return m
}

func plotNamesOf(ps []Plot) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return names
}

// TestPlotsGolden checks the order against PlotNames and compares every
// chart and the captions with the files under testdata/plots;
// go test -update rewrites them.
func TestPlotsGolden(t *testing.T) {
	ps, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	if got := plotNamesOf(ps); !slices.Equal(got, PlotNames) {
		t.Fatalf("plot names = %q, want %q", got, PlotNames)
	}
	var index bytes.Buffer
	for _, p := range ps {
		fmt.Fprintf(&index, "%s\n\ttitle: %s\n\tcaption: %s\n\talt: %s\n", p.Name, p.Title, p.Caption, p.Alt)
		plotGolden(t, filepath.Join("testdata", "plots", p.Name+".svg"), p.SVG)
	}
	plotGolden(t, filepath.Join("testdata", "plots", "captions.txt"), index.Bytes())
}

func plotGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

func TestPlotsDeterministic(t *testing.T) {
	a, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d plots, then %d", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i].SVG, b[i].SVG) {
			t.Errorf("plot %q: SVG differs between two renderings", a[i].Name)
		}
		if a[i].Caption != b[i].Caption || a[i].Alt != b[i].Alt {
			t.Errorf("plot %q: caption or alt differs between two renderings", a[i].Name)
		}
	}
}

// plotTexts returns the character data of every <text> element.
func plotTexts(t *testing.T, name string, svg []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	var cur *strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("plot %q: SVG is not well-formed XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "text" {
				cur = new(strings.Builder)
			}
		case xml.CharData:
			if cur != nil {
				cur.Write(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "text" && cur != nil {
				texts = append(texts, cur.String())
				cur = nil
			}
		}
	}
	return texts
}

func TestPlotsXMLAndLabels(t *testing.T) {
	ps, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	logC := "concurrency (requests in flight, log scale)" // 1, 4, 16 span 16×
	want := map[string][]string{
		// p50 at c=1 to p99 at c=16 spans more than 10×: log scale.
		"latency-ttft":    {"TTFT (ms, log scale)", logC, "p50", "p95", "p99", "1", "4", "16", "SLO: TTFT ≤ 200 ms"},
		"latency-tpot":    {"TPOT (ms, log scale)", logC, "SLO: TPOT ≤ 50 ms"},
		"latency-e2e":     {"E2E latency (ms, log scale)", logC},
		"throughput-ttft": {"output tokens/s (server counters)", "p95 TTFT (ms)", "c=1", "c=4", "c=16", "SLO: TTFT ≤ 200 ms"},
		"throughput-tpot": {"output tokens/s (server counters)", "p95 TPOT (ms)", "SLO: TPOT ≤ 50 ms"},
		"runs-spread":     {"Run-to-run spread", "per-run p95 TTFT", "per-run p95 TPOT", "per-run p95 E2E latency", "per-run output tokens/s (server counters)", "ms", "tokens/s (log scale)", "concurrency (requests in flight)", "one run", "median"},
		"cdf-ttft":        {"TTFT (ms, log scale)", "cumulative fraction of requests", "c=1 (n=300)", "c=16 (n=4800)", "100", "1000", "SLO: TTFT ≤ 200 ms"},
		"cdf-tpot":        {"TPOT (ms)", "cumulative fraction of requests", "SLO: TPOT ≤ 50 ms"},
		"cdf-e2e":         {"E2E latency (ms, log scale)", "cumulative fraction of requests"},
		"lengths":         {"prompt length (tokens)", "output length (tokens)", "requests per bin"},
		"warmup":          {"request index (send order)", "TTFT (ms)", "concurrency 1", "concurrency 4", "concurrency 16", "repeat 1", "repeat 3", "warm-up cut", "median change ÷ tolerance", "concurrency 16: the rule's statistic", "TTFT statistic", "TPOT statistic", "threshold (1)"},
		"goodput":         {"goodput (% of measured requests)", logC},
		"pareto":          {"output tokens/s per GPU", "output tokens/s per user (median user TPS)", "c=1", "c=16", "one level (median ± MAD)", "fails the SLOs (hollow)", "Pareto frontier"},
	}
	// The summary has no E2E SLO: no chart may draw one.
	noSLO := []string{"latency-e2e", "cdf-e2e", "runs-spread", "goodput"} // pareto names "fails the SLOs"
	byName := plotsByName(t, ps)
	for _, name := range PlotNames {
		p, ok := byName[name]
		if !ok {
			t.Errorf("plot %q missing", name)
			continue
		}
		if p.Title == "" || p.Caption == "" || p.Alt == "" {
			t.Errorf("plot %q: empty title, caption or alt", name)
		}
		if !bytes.HasPrefix(p.SVG, []byte("<?xml")) {
			t.Errorf("plot %q: SVG does not start with an XML declaration", name)
		}
		if bytes.Contains(p.SVG, []byte("NaN")) || bytes.Contains(p.SVG, []byte("Inf")) {
			t.Errorf("plot %q: SVG holds NaN or Inf", name)
		}
		texts := plotTexts(t, name, p.SVG)
		for _, w := range want[name] {
			if !slices.Contains(texts, w) {
				t.Errorf("plot %q: no text %q in SVG (texts: %q)", name, w, texts)
			}
		}
		if slices.Contains(noSLO, name) && bytes.Contains(p.SVG, []byte("SLO")) {
			t.Errorf("plot %q draws an SLO the summary does not have", name)
		}
	}
}

func TestPlotsCaptions(t *testing.T) {
	ps, err := Plots(testSummary())
	if err != nil {
		t.Fatal(err)
	}
	byName := plotsByName(t, ps)
	for name, want := range map[string][]string{
		"latency-ttft":    {"p50/p95/p99 of client TTFT", "per-request sample", "nearest-rank", "± raw MAD", "n = 3 runs per level"},
		"throughput-ttft": {"server output tokens/s", "counter delta over the window", "p95 client TTFT"},
		"cdf-tpot":        {"pooled over every measured request of each level's runs, drawn as steps"},
		"cdf-ttft":        {"The TTFT axis is logarithmic."},
		"lengths":         {"own equal-width bins", "not summed across levels"},
		"warmup":          {"nothing was cut, for: c4-r2", "Warm-up mode: stabilisation", "on TTFT (the repeat's colour) and on TPOT (the same, faint): relative change of the block median", "Values above 10 are drawn at 10."},
		"goodput":         {"SLO: TTFT ≤ 200 ms, TPOT ≤ 50 ms", "n = 3 runs per level"},
	} {
		for _, w := range want {
			if !strings.Contains(byName[name].Caption, w) {
				t.Errorf("plot %q caption %q lacks %q", name, byName[name].Caption, w)
			}
		}
		if strings.Contains(byName[name].Caption, "fewer than") {
			t.Errorf("plot %q caption mentions few runs, but every level has 3", name)
		}
	}
}

// TestPlotsNaNThroughput: a summary without server throughput has no
// throughput charts and no throughput panel, and no error.
func TestPlotsNaNThroughput(t *testing.T) {
	s := testSummary()
	for li := range s.Levels {
		for si := range s.Levels[li].Stats {
			st := &s.Levels[li].Stats[si]
			if st.Key == "throughput.output_tokens_per_s" {
				st.Median, st.MAD, st.Runs = analyze.NaN, analyze.NaN, 0
				st.PerRun = []analyze.Num{analyze.NaN, analyze.NaN, analyze.NaN}
			}
		}
	}
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	byName := plotsByName(t, ps)
	for _, name := range []string{"throughput-ttft", "throughput-tpot"} {
		if _, ok := byName[name]; ok {
			t.Errorf("plot %q drawn without throughput data", name)
		}
	}
	spread, ok := byName["runs-spread"]
	if !ok {
		t.Fatal("runs-spread missing")
	}
	if texts := plotTexts(t, "runs-spread", spread.SVG); slices.Contains(texts, "per-run output tokens/s (server counters)") {
		t.Errorf("runs-spread has an output tokens/s panel without data")
	}
	if strings.Contains(spread.Caption, "output tokens/s") {
		t.Errorf("runs-spread caption %q mentions output tokens/s without data", spread.Caption)
	}
	if len(ps) != len(PlotNames)-2 {
		t.Errorf("got plots %q, want all but the throughput charts", plotNamesOf(ps))
	}
}

// TestPlotsFewRunsAndNaN: a level with fewer than 3 runs is drawn and
// named in the caption; missing values are skipped and listed.
func TestPlotsFewRunsAndNaN(t *testing.T) {
	s := testSummary()
	lv := &s.Levels[2]
	for si := range lv.Stats {
		st := &lv.Stats[si]
		st.PerRun[1] = analyze.NaN
		st.Runs, st.FewRuns = 2, true
		if st.Key == "ttft.p99" {
			st.Median, st.MAD = analyze.NaN, analyze.NaN
			st.PerRun = []analyze.Num{analyze.NaN, analyze.NaN, analyze.NaN}
			st.Runs = 0
		}
		if st.Key == "ttft.p95" {
			st.MAD = analyze.NaN
		}
	}
	lv.CDFTTFT = []analyze.CDFPoint{{P: 0.5, Value: analyze.NaN}}
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	byName := plotsByName(t, ps)
	c := byName["latency-ttft"].Caption
	for _, w := range []string{"Concurrency 16 (fewer than 3 runs)", "n = 2–3 runs per level", "Not drawn (no value): p99 at concurrency 16"} {
		if !strings.Contains(c, w) {
			t.Errorf("latency-ttft caption %q lacks %q", c, w)
		}
	}
	if c := byName["goodput"].Caption; !strings.Contains(c, "(fewer than 3 runs)") {
		t.Errorf("goodput caption %q does not mention few runs", c)
	}
	if c := byName["cdf-ttft"].Caption; !strings.Contains(c, "Not drawn (no requests): concurrency 16") {
		t.Errorf("cdf-ttft caption %q does not name the empty level", c)
	}
	if texts := plotTexts(t, "cdf-ttft", byName["cdf-ttft"].SVG); slices.Contains(texts, "c=16 (n=4800)") {
		t.Errorf("cdf-ttft has a legend entry for a level without points")
	}
	for _, p := range ps {
		if bytes.Contains(p.SVG, []byte("NaN")) {
			t.Errorf("plot %q: SVG holds NaN", p.Name)
		}
	}
}

func TestPlotsEmpty(t *testing.T) {
	if _, err := Plots(nil); err == nil {
		t.Error("Plots(nil): no error")
	}
	ps, err := Plots(&analyze.Summary{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 0 {
		t.Errorf("empty summary gave plots %q", plotNamesOf(ps))
	}
	// Levels without any value: nothing to draw, still no error.
	s := &analyze.Summary{Levels: []analyze.Level{{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 1}}, {LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 2}}}}
	ps, err = Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 0 {
		t.Errorf("summary without values gave plots %q", plotNamesOf(ps))
	}
}

func TestChartStepOutline(t *testing.T) {
	got := chartStepOutline([]analyze.HistogramBin{{Lo: 0, Hi: 10, Count: 2}, {Lo: 10, Hi: 20, Count: 5}, {Lo: 30, Hi: 40, Count: 1}})
	want := "(0,0) (0,2) (10,2) (10,5) (20,5) (20,0) (30,0) (30,1) (40,1) (40,0)"
	var parts []string
	for _, p := range got {
		parts = append(parts, fmt.Sprintf("(%g,%g)", p.X, p.Y))
	}
	if s := strings.Join(parts, " "); s != want {
		t.Errorf("outline = %s, want %s", s, want)
	}
}

// manySeriesSummary is testSummary's levels and runs repeated for n
// series, max_num_seqs=16, 32, ... and engine=vllm on all; series k has
// k times the per-GPU throughput on the Pareto chart, and meets the SLOs
// at concurrency 1 only.
func manySeriesSummary(t *testing.T, n int) *analyze.Summary {
	t.Helper()
	base := testSummary()
	s := *base
	s.Levels, s.Runs, s.Pareto.Points = nil, nil, nil
	for k := 1; k <= n; k++ {
		ser, err := ingest.NewSeries(map[string]string{"engine": "vllm", "max_num_seqs": strconv.Itoa(16 * k)})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range base.Levels {
			l.Series = ser
			s.Levels = append(s.Levels, l)
		}
		for _, r := range base.Runs {
			r.Series = ser
			r.Dir = ser.String() + "/" + r.Dir
			s.Runs = append(s.Runs, r)
		}
		for _, pt := range base.Pareto.Points {
			pt.Series = ser
			pt.Throughput.Median *= analyze.Num(k)
			meets := pt.Concurrency == 1
			pt.MeetsSLO = &meets
			pt.OnFrontier = k == n
			s.Pareto.Points = append(s.Pareto.Points, pt)
		}
	}
	return &s
}

// TestPlotsSeries: with several series every chart tells them apart by
// the label that differs and gives the common one in the caption; with
// more than 8, the 8 highest at a level meeting the SLOs are drawn and
// the caption names the others (the Pareto chart draws them grey).
func TestPlotsSeries(t *testing.T) {
	for _, tc := range []struct {
		n          int
		legend     []string
		notLegend  []string
		caption    []string
		paretoText []string
	}{
		{2, []string{"max_num_seqs=16", "max_num_seqs=32"}, nil,
			[]string{"One colour and marker per series (2 series, told apart by max_num_seqs); every series has engine=vllm."}, nil},
		{10, []string{"max_num_seqs=48", "max_num_seqs=160"}, []string{"max_num_seqs=16", "max_num_seqs=32"},
			[]string{"(8 series, told apart by max_num_seqs)", "Only the 8 series with the highest output tokens/s per GPU at a level meeting the SLOs are drawn (then those highest at any level); left out (2): max_num_seqs=16; max_num_seqs=32."},
			[]string{"2 other series"}},
	} {
		t.Run(strconv.Itoa(tc.n), func(t *testing.T) {
			ps, err := Plots(manySeriesSummary(t, tc.n))
			if err != nil {
				t.Fatal(err)
			}
			if got := plotNamesOf(ps); !slices.Equal(got, PlotNames) {
				t.Fatalf("plot names = %q, want %q", got, PlotNames)
			}
			for _, p := range ps {
				texts := plotTexts(t, p.Name, p.SVG)
				want := tc.legend
				if p.Name == "pareto" {
					want = append(append([]string{}, want...), tc.paretoText...)
				}
				if p.Name == "warmup" {
					// Panels are titled "max_num_seqs=16, concurrency 1".
					for i, tx := range texts {
						texts[i], _, _ = strings.Cut(tx, ", ")
					}
				}
				for _, w := range want {
					if !slices.Contains(texts, w) {
						t.Errorf("plot %q: no text %q", p.Name, w)
					}
				}
				for _, w := range tc.notLegend {
					if slices.Contains(texts, w) {
						t.Errorf("plot %q: text %q of a series left out", p.Name, w)
					}
				}
				for _, w := range tc.caption {
					if !strings.Contains(p.Caption, w) {
						t.Errorf("plot %q: caption %q lacks %q", p.Name, p.Caption, w)
					}
				}
				if bytes.Contains(p.SVG, []byte("NaN")) {
					t.Errorf("plot %q: SVG holds NaN", p.Name)
				}
			}
		})
	}
}

// TestParetoAbsentSaysWhy: without a point to draw there is no
// plots/pareto.svg, and the Pareto section says why in its place.
func TestParetoAbsentSaysWhy(t *testing.T) {
	s := testSummary()
	why := "no level has a user TPS: every measured request had fewer than 2 output tokens, and user TPS = (n − 1) / (E2E − TTFT) needs n ≥ 2"
	for i := range s.Pareto.Points {
		s.Pareto.Points[i].UserTPS.Median = analyze.NaN
	}
	s.Pareto.Unavailable = why
	files, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["plots/pareto.svg"]; ok {
		t.Error("plots/pareto.svg written without a point to draw")
	}
	md := string(files[MarkdownFile])
	if want := "## Pareto\n"; !strings.Contains(md, want) {
		t.Errorf("report.md has no Pareto section")
	}
	if want := "*Plot `pareto` not drawn: " + mdEscape(why) + ".*"; !strings.Contains(md, want) {
		t.Errorf("report.md lacks %q", want)
	}
}

// TestParetoPerServer: without GPU counts the axis is per server and says
// so, and the caption says why.
func TestParetoPerServer(t *testing.T) {
	s := testSummary()
	s.Pareto.Per, s.Pareto.PerNote = analyze.ParetoPerServer, "GPU count (environment gpu_count) not recorded, or not the same in every run, for concurrency 1 (1 of 3 levels)"
	ps, err := Plots(s)
	if err != nil {
		t.Fatal(err)
	}
	p := plotsByName(t, ps)["pareto"]
	if texts := plotTexts(t, "pareto", p.SVG); !slices.Contains(texts, "output tokens/s per server (GPU count not recorded)") || !slices.Contains(texts, "Output tokens/s per server vs per user") {
		t.Errorf("pareto texts %q: no per-server axis and title", texts)
	}
	if want := "per server: the GPU count (environment gpu_count) not recorded, or not the same in every run, for concurrency 1 (1 of 3 levels), so the rate is not divided by it."; !strings.Contains(p.Caption, want) {
		t.Errorf("caption %q lacks %q", p.Caption, want)
	}
}

// TestFewRunsCaptionNamesEachLevelOnce: a chart of three panels (p50, p95,
// p99) draws each level three times; the caption's few-runs warning names
// each level once, and says "every level" when none has enough runs.
func TestFewRunsCaptionNamesEachLevelOnce(t *testing.T) {
	lv := func(c int) analyze.Level {
		return analyze.Level{LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: c}}
	}
	s := &analyze.Summary{Levels: []analyze.Level{lv(1), lv(4), lv(16)}}
	runs := map[int]int{1: 1, 4: 3, 16: 2}
	var some chartUsed
	for range 3 { // one pass per panel
		for _, l := range s.Levels {
			some.add(l.Load(), analyze.AcrossRuns{Runs: runs[l.Concurrency], FewRuns: runs[l.Concurrency] < 3})
		}
	}
	if got, want := some.notes(s), " Concurrency levels 1, 16 (fewer than 3 runs): drawn all the same, read with care."; got != want {
		t.Errorf("some levels with few runs:\n got %q\nwant %q", got, want)
	}
	var all chartUsed
	for range 3 {
		for _, l := range s.Levels {
			all.add(l.Load(), analyze.AcrossRuns{Runs: 1, FewRuns: true})
		}
	}
	if got, want := all.notes(s), " Every level has fewer than 3 runs: drawn all the same, read with care."; got != want {
		t.Errorf("every level with few runs:\n got %q\nwant %q", got, want)
	}
}
