package chart

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/benchnote/benchnote/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden SVGs under testdata")

func exampleOverlay() Overlay {
	return Overlay{
		Title: "p95 TTFT vs output throughput", XLabel: "output tokens/s", YLabel: "p95 TTFT (ms)", ScatterName: "one run",
		Series: []Series{
			{Name: "base", Line: []Point{{X: 40, Y: 110, Label: "c=1"}, {X: 150, Y: 140, Label: "c=4"}, {X: 400, Y: 260, Label: "c=16"}},
				Scatter: []Point{{X: 39, Y: 108}, {X: 41, Y: 112}, {X: 148, Y: 139}, {X: 152, Y: 143}, {X: 395, Y: 250}, {X: 410, Y: 270}}},
			{Name: "new", Line: []Point{{X: 42, Y: 100, Label: "c=1"}, {X: 160, Y: 120, Label: "c=4"}, {X: 450, Y: 200, Label: "c=16"}}},
		},
	}
}

func exampleStrip() Strip {
	ref := 100.0
	return Strip{
		Title: "concurrency 4", YLabel: "% of base median",
		Categories: []string{"TTFT p95", "TPOT p95", "output tokens/s"},
		Groups: []StripGroup{
			{Name: "base", Values: [][]float64{{99, 100, 102}, {98, 100, 101}, {100, 100, 100}}},
			{Name: "new", Values: [][]float64{{128, 130, 133}, {}, {97, 99, 100}}},
		},
		Reference: &ref, ReferenceName: "base median",
	}
}

func exampleTrend() Trend {
	day := 86400.0
	t0 := 1793610000.0 // 2026-11-02
	var pts []TrendPoint
	for i := 0; i < 8; i++ {
		m := 100.0
		if i >= 5 {
			m = 120
		}
		seg := 0
		if i >= 3 {
			seg = 1
		}
		pts = append(pts, TrendPoint{X: t0 + float64(i)*day, Median: m, Lo: m - 3, Hi: m + 3, Segment: seg, Excluded: i == 6})
	}
	return Trend{Title: "TTFT p95 at concurrency 4", YLabel: "TTFT p95 (ms)", Points: pts,
		Markers: []Marker{{X: t0 + 3*day, Kind: MarkerIncomparable}, {X: t0 + 5*day, Kind: MarkerChange}, {X: t0 + 2*day, Kind: MarkerEnvironment}}}
}

// examplePareto is two series and an other group: max_num_seqs=128
// meets the SLOs at every level, 256 fails at its highest; the frontier
// runs through 128's three points and 256 at c=16 (hollow: it fails).
func examplePareto() Pareto {
	return Pareto{
		Title: "Output tokens/s per GPU vs per user", XLabel: "output tokens/s per GPU", YLabel: "output tokens/s per user (median user TPS)",
		Groups: []string{"max_num_seqs=128", "max_num_seqs=256"}, OtherName: "1 other series",
		FailName: "fails the SLOs (hollow)", FrontierName: "Pareto frontier",
		Points: []ParetoPoint{
			{X: 40, Y: 52, XErr: 2, YErr: 3, Group: 0, Frontier: true, Label: "c=1"},
			{X: 150, Y: 45, XErr: 6, YErr: 1.5, Group: 0, Frontier: true, Label: "c=4"},
			{X: 380, Y: 30, XErr: 15, YErr: 2, Group: 0, Frontier: true, Label: "c=16"},
			{X: 38, Y: 50, XErr: 1, YErr: 0, Group: 1},
			{X: 140, Y: 40, Group: 1},
			{X: 450, Y: 28, XErr: 30, YErr: 4, Group: 1, Fails: true, Frontier: true},
			{X: 100, Y: 20, XErr: 5, YErr: 25, Group: -1},
		},
	}
}

// exampleTrendLines is three series on one trend chart: one steps up
// after an incomparable boundary, one has an excluded entry, one starts
// late.
func exampleTrendLines() Trend {
	day := 86400.0
	t0 := 1793610000.0 // 2026-11-02
	var lines []TrendLine
	for s, name := range []string{"max_num_seqs=128", "max_num_seqs=256", "max_num_seqs=512"} {
		l := TrendLine{Name: name}
		for i := 0; i < 8; i++ {
			if s == 2 && i < 4 {
				continue
			}
			m := 100.0 + 30*float64(s)
			if s == 1 && i >= 5 {
				m *= 1.3
			}
			seg := 0
			if i >= 3 {
				seg = 1
			}
			l.Points = append(l.Points, TrendPoint{X: t0 + float64(i)*day, Median: m, Lo: m - 4, Hi: m + 4, Segment: seg, Excluded: s == 0 && i == 6})
		}
		lines = append(lines, l)
	}
	return Trend{Title: "TTFT p95 at concurrency 4", YLabel: "TTFT p95 (ms)", Lines: lines,
		Markers: []Marker{{X: t0 + 2.5*day, Kind: MarkerIncomparable}, {X: t0 + 5*day, Kind: MarkerChange}}}
}

// exampleTrendLabels is exampleTrendLines with its time axis named by
// the entries' labels (the fourth has none: its date), one too long to
// show whole.
func exampleTrendLabels() Trend {
	tr := exampleTrendLines()
	for i, p := range tr.Lines[0].Points {
		label := fmt.Sprintf("v1.%d", i)
		switch i {
		case 3:
			label = "2026-11-05"
		case 6:
			label = "release-candid…"
		}
		tr.Ticks = append(tr.Ticks, TrendTick{X: p.X, Label: label})
	}
	tr.XLabel = "entry (label, or date where none)"
	return tr
}

func TestGoldenSVG(t *testing.T) {
	charts := []struct {
		name string
		svg  func() ([]byte, error)
	}{
		{"overlay", exampleOverlay().SVG},
		{"strip", exampleStrip().SVG},
		{"trend", exampleTrend().SVG},
		{"pareto", examplePareto().SVG},
		{"trend-lines", exampleTrendLines().SVG},
		{"trend-labels", exampleTrendLabels().SVG},
	}
	for _, c := range charts {
		t.Run(c.name, func(t *testing.T) {
			a, err := c.svg()
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.svg()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatal("two renderings of the same chart differ")
			}
			if !bytes.HasPrefix(a, []byte("<?xml")) || !bytes.Contains(a, []byte("<svg")) || bytes.Contains(a, []byte("@font-face")) {
				t.Errorf("not a standalone SVG without embedded fonts: %.80q", a)
			}
			golden.Check(t, filepath.Join("testdata", c.name+".svg"), a, *update)
		})
	}
}

func TestChartsRefuseBadData(t *testing.T) {
	nan := math.NaN()
	o := exampleOverlay()
	o.Series[1].Line[1].Y = nan
	s := exampleStrip()
	s.Groups[0].Values[1] = []float64{math.Inf(1)}
	short := exampleStrip()
	short.Groups[1].Values = short.Groups[1].Values[:2]
	tr := exampleTrend()
	tr.Points[2].Hi = nan
	back := exampleTrend()
	back.Points[4].X = back.Points[1].X
	both := exampleTrendLines()
	both.Points = exampleTrend().Points
	many := exampleTrendLines()
	for len(many.Lines) <= MaxTrendLines {
		many.Lines = append(many.Lines, many.Lines[0])
	}
	badLine := exampleTrendLines()
	badLine.Lines[1].Points[3].Median = nan
	badTick := exampleTrend()
	badTick.Ticks = []TrendTick{{X: nan, Label: "x"}}
	emptyLine := exampleTrendLines()
	emptyLine.Lines[2].Points = nil
	tests := []struct {
		name string
		svg  func() ([]byte, error)
		want string
	}{
		{"overlay NaN", o.SVG, "chart: new line point 1: (160, NaN) is not finite"},
		{"overlay empty", Overlay{}.SVG, ErrNoData.Error()},
		{"strip Inf", s.SVG, "chart: group base, TPOT p95, value 0: +Inf is not finite"},
		{"strip short", short.SVG, "chart: group new has values for 2 categories, want 3"},
		{"strip empty", Strip{Categories: []string{"a"}, Groups: []StripGroup{{Name: "g", Values: [][]float64{nil}}}}.SVG, ErrNoData.Error()},
		{"trend NaN", tr.SVG, "chart: trend point 2:"},
		{"trend out of order", back.SVG, "chart: trend point 4: time"},
		{"trend tick", badTick.SVG, "chart: tick 0 (\"x\"): x NaN is not finite"},
		{"trend empty", Trend{}.SVG, ErrNoData.Error()},
		{"pareto empty", Pareto{}.SVG, ErrNoData.Error()},
		{"pareto NaN", Pareto{Groups: []string{"a"}, Points: []ParetoPoint{{X: nan, Y: 1}}}.SVG, "chart: pareto point 0: (NaN ± 0, 1 ± 0): want finite"},
		{"pareto negative spread", Pareto{Groups: []string{"a"}, Points: []ParetoPoint{{X: 1, Y: 1, YErr: -1}}}.SVG, "chart: pareto point 0: (1 ± 0, 1 ± -1): want finite"},
		{"pareto group", Pareto{Groups: []string{"a"}, Points: []ParetoPoint{{X: 1, Y: 1, Group: 1}}}.SVG, "chart: pareto point 0: group 1 of 1"},
		{"trend of points and lines", both.SVG, "chart: a trend of both Points and Lines"},
		{"trend of 9 lines", many.SVG, "chart: a trend of 9 lines: at most 8 keep a colour of their own"},
		{"trend line NaN", badLine.SVG, `chart: trend "max_num_seqs=256": point 3: (1.7938692e+09, NaN, [126, 134]) is not finite`},
		{"trend line without points", emptyLine.SVG, `chart: trend line 2 ("max_num_seqs=512") has no point`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.svg()
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if strings.HasSuffix(tt.name, "empty") && !errors.Is(err, ErrNoData) {
				t.Errorf("error %v is not ErrNoData", err)
			}
		})
	}
}

func TestOverlayLogY(t *testing.T) {
	o := exampleOverlay()
	if o.LogY() {
		t.Error("a 2.7× span drawn on a log axis")
	}
	o.Series[0].Line[2].Y = 6000
	if !o.LogY() {
		t.Error("a 60× span not drawn on a log axis")
	}
	svg, err := o.SVG()
	if err != nil || !bytes.Contains(svg, []byte(">p95 TTFT (ms, log scale)</text>")) {
		t.Errorf("log overlay: %v", err)
	}
}

// TestParetoStaircase: the frontier runs from each point down to the
// next one's y, then across to it.
func TestParetoStaircase(t *testing.T) {
	got := ParetoStaircase(examplePareto().Points)
	want := "(40,52) (40,45) (150,45) (150,30) (380,30) (380,28) (450,28)"
	var parts []string
	for _, p := range got {
		parts = append(parts, fmt.Sprintf("(%g,%g)", p.X, p.Y))
	}
	if s := strings.Join(parts, " "); s != want {
		t.Errorf("staircase %s, want %s", s, want)
	}
}

// TestParetoDegenerate: one point, zero spread, all at zero: drawn.
func TestParetoDegenerate(t *testing.T) {
	for _, pts := range [][]ParetoPoint{
		{{X: 12, Y: 7, Frontier: true}},
		{{X: 0, Y: 0, Frontier: true}},
		{{X: 5, Y: 5, Frontier: true}, {X: 5, Y: 5, Frontier: true, Fails: true}},
	} {
		svg, err := Pareto{Title: "t", XLabel: "x", YLabel: "y", Groups: []string{"a"}, Points: pts, FailName: "fails", FrontierName: "frontier"}.SVG()
		if err != nil || !bytes.Contains(svg, []byte("<svg")) || bytes.Contains(svg, []byte("NaN")) {
			t.Errorf("points %+v: %v", pts, err)
		}
	}
}

func TestTrendOfOnePoint(t *testing.T) {
	svg, err := Trend{Title: "one", YLabel: "ms", Points: []TrendPoint{{X: 1793610000, Median: 5, Lo: 4, Hi: 6}}}.SVG()
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Fatalf("one-point trend: %v", err)
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		log    bool
		lo, hi float64
		want   string
	}{
		{false, 0, 100, "0 20 40 60 80 100"},
		{false, 0, 2550, "0 500 1000 1500 2000 2500"},
		{false, 23.3, 126.5, "40 60 80 100 120"},
		{false, -0.3, 1.05, "-0.2 0.0 0.2 0.4 0.6 0.8 1.0"},
		{false, 0.001, 0.0042, "0.0010 0.0015 0.0020 0.0025 0.0030 0.0035 0.0040"},
		{true, 30, 290, "50 100 200"},
		{true, 0.3, 250, "0.5 1 2 5 10 20 50 100 200"},
		{true, 0.3, 13500, "1 10 100 1000 10000"},
	} {
		var ticker plot.Ticker = Ticks{}
		if tc.log {
			ticker = LogTicks{}
		}
		var labels []string
		for _, tk := range ticker.Ticks(tc.lo, tc.hi) {
			if !tk.IsMinor() {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("ticks(%g, %g) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
