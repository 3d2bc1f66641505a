package chart

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"gonum.org/v1/plot"
)

// hostileEnds are range ends that once made the tickers loop, overflow
// or divide by zero: the extremes of float64, subnormals, non-finite
// values, signed zeros and huge values a few units in the last place
// apart.
var hostileEnds = []float64{
	math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
	math.MaxFloat64, -math.MaxFloat64, math.Nextafter(math.MaxFloat64, 0), 1.797e308, -1.797e308, 1e308, -1e308,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 3 * math.SmallestNonzeroFloat64, 1e-320, 2.2250738585072014e-308,
	1e300, 1e300 * (1 + 1e-15), math.Nextafter(1e300, math.Inf(1)), -1e300,
	1, -1, 1e-9, 1e15, 1 << 53, 1<<53 + 2, 1.7e9, 253402300799, 1e10,
}

// tickers are every ticker of the package, by name.
var tickers = map[string]plot.Ticker{"Ticks": Ticks{}, "LogTicks": LogTicks{}, "dateTicks": dateTicks{}}

// checkTicks calls the ticker on [lo, hi] and fails t when the call
// panics or returns more than MaxTicks ticks or a tick that is not
// finite. A call that loops is caught by the deadline of
// TestTickersBounded.
func checkTicks(t *testing.T, name string, tk plot.Ticker, lo, hi float64) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s.Ticks(%v, %v) panicked: %v", name, lo, hi, r)
		}
	}()
	ticks := tk.Ticks(lo, hi)
	if len(ticks) > MaxTicks {
		t.Errorf("%s.Ticks(%v, %v): %d ticks, more than %d", name, lo, hi, len(ticks), MaxTicks)
	}
	for _, tc := range ticks {
		if !finite(tc.Value) {
			t.Errorf("%s.Ticks(%v, %v): a tick at %v", name, lo, hi, tc.Value)
		}
		if len(tc.Label) > 40 {
			t.Errorf("%s.Ticks(%v, %v): label %q longer than 40 bytes", name, lo, hi, tc.Label)
		}
	}
	if (math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0)) && ticks != nil && name != "LogTicks" {
		t.Errorf("%s.Ticks(%v, %v) = %v, want none for a range that is not finite", name, lo, hi, ticks)
	}
}

// TestTickersBounded: every ticker returns, without panicking and with at
// most MaxTicks finite ticks, for every pair of hostile ends (both
// orders, and equal) and for 200,000 random pairs of float64 bit
// patterns and of nearby values.
func TestTickersBounded(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, tk := range tickers {
			for _, lo := range hostileEnds {
				for _, hi := range hostileEnds {
					checkTicks(t, name, tk, lo, hi)
				}
			}
		}
		r := rand.New(rand.NewSource(20))
		n := 200_000
		if testing.Short() {
			n = 50_000
		}
		for i := 0; i < n; i++ {
			lo := math.Float64frombits(r.Uint64())
			hi := math.Float64frombits(r.Uint64())
			switch i % 4 {
			case 1: // the same sign and exponent: a narrow range
				hi = math.Float64frombits(math.Float64bits(lo) + r.Uint64()%1000)
			case 2: // a positive range, for the log ticks
				lo, hi = math.Abs(lo), math.Abs(hi)
			case 3: // a random range of unix seconds, as dates are
				lo, hi = (r.Float64()-0.5)*1e12, (r.Float64()-0.5)*1e12
			}
			lo, hi = min(lo, hi), max(lo, hi)
			for name, tk := range tickers {
				checkTicks(t, name, tk, lo, hi)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the tickers did not return within two minutes: one of them loops")
	}
}

// TestTicksHostileRanges pins what the tickers return at the edges of
// float64.
func TestTicksHostileRanges(t *testing.T) {
	major := func(ticks []plot.Tick) []string {
		var out []string
		for _, tk := range ticks {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		tk     plot.Ticker
		lo, hi float64
		labels []string
		n      int // ticks, major and minor
	}{
		{"not a number", Ticks{}, math.NaN(), 1, nil, 0},
		{"infinite", Ticks{}, 0, math.Inf(1), nil, 0},
		{"empty", Ticks{}, 5, 5, []string{"5"}, 1},
		{"reversed", Ticks{}, 5, -5, []string{"5"}, 1},
		{"all of float64", Ticks{}, -math.MaxFloat64, math.MaxFloat64,
			[]string{"-1.5e+308", "-1e+308", "-5e+307", "0", "5e+307", "1e+308", "1.5e+308"}, 15},
		{"a span that overflows", Ticks{}, -1e308, 1e308, []string{"-1e+308", "-5e+307", "0", "5e+307", "1e+308"}, 9},
		{"up to MaxFloat64", Ticks{}, 0, 1.797e308, []string{"0", "5e+307", "1e+308", "1.5e+308"}, 8},
		{"a few ulps at 1e300", Ticks{}, 1e300, math.Nextafter(1e300, math.Inf(1)), []string{"1e+300", "1.0000000000000002e+300"}, 2},
		{"subnormal", Ticks{}, 0, math.SmallestNonzeroFloat64, []string{"0", "5e-324"}, 2},
		{"ordinary", Ticks{}, 0, 260, []string{"0", "50", "100", "150", "200", "250"}, 11},
		{"log, all of float64", LogTicks{}, math.SmallestNonzeroFloat64, math.MaxFloat64,
			[]string{"1e-300", "1e-200", "1e-100", "1", "1e+100", "1e+200", "1e+300"}, 7},
		{"log, seven decades", LogTicks{}, 1, 1e7, []string{"1", "100", "10000", "1000000"}, 8},
		{"log, ordinary", LogTicks{}, 10, 1000, []string{"10", "20", "50", "100", "200", "500", "1000"}, 19},
		{"log, narrow, two decades", LogTicks{Narrow: true}, 10, 1000, []string{"10", "20", "50", "100", "200", "500", "1000"}, 19},
		// 40 to 11000 ms (25 ticks): 1, 2, 5 would label 50 … 10000, eight in a tile.
		{"log, narrow, more than two decades", LogTicks{Narrow: true}, 40, 11000, []string{"100", "1000", "10000"}, 25},
		{"log, wide, more than two decades", LogTicks{}, 40, 11000, []string{"50", "100", "200", "500", "1000", "2000", "5000", "10000"}, 25},
		{"dates, far future", dateTicks{}, 0, 1e308, []string{"1970-01-01", "3.15e+307 s", "6.31e+307 s", "9.46e+307 s"}, 4},
		{"dates, a week", dateTicks{}, 1793610000, 1793610000 + 7*86400, []string{"2026-11-03", "2026-11-05", "2026-11-07", "2026-11-09"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ticks := tt.tk.Ticks(tt.lo, tt.hi)
			if got := major(ticks); !reflect.DeepEqual(got, tt.labels) || len(ticks) != tt.n {
				t.Errorf("labels %q (%d ticks), want %q (%d ticks)", got, len(ticks), tt.labels, tt.n)
			}
		})
	}
}

// TestChartsOnHostileValues: every chart of the package renders, or
// refuses with an error, data at the extremes of float64 (never loops or
// panics); a chart refuses data that is not finite.
func TestChartsOnHostileValues(t *testing.T) {
	var finiteEnds []float64
	for _, v := range hostileEnds {
		if finite(v) {
			finiteEnds = append(finiteEnds, v)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, a := range finiteEnds {
			for _, b := range []float64{-math.MaxFloat64, 0, 1e300, math.SmallestNonzeroFloat64, math.MaxFloat64} {
				o := Overlay{Title: "t", Series: []Series{{Name: "s", Line: []Point{{X: a, Y: b, Label: "a"}, {X: b, Y: a}}, Scatter: []Point{{X: a, Y: a}}}}}
				if _, err := o.SVG(); err != nil {
					t.Errorf("Overlay of (%v, %v): %v", a, b, err)
				}
				s := Strip{Title: "t", Categories: []string{"c"}, Groups: []StripGroup{{Name: "g", Values: [][]float64{{a, b}}}}, Reference: &b}
				if _, err := s.SVG(); err != nil {
					t.Errorf("Strip of (%v, %v): %v", a, b, err)
				}
				tr := Trend{Title: "t", Points: []TrendPoint{{X: min(a, b), Median: a, Lo: a, Hi: a}, {X: max(a, b), Median: b, Lo: b, Hi: b, Excluded: true}},
					Markers: []Marker{{X: a, Kind: MarkerChange}}}
				if _, err := tr.SVG(); err != nil {
					t.Errorf("Trend of (%v, %v): %v", a, b, err)
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("a chart did not render within two minutes")
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := (Overlay{Series: []Series{{Name: "s", Line: []Point{{X: 1, Y: bad}}}}}).SVG(); err == nil {
			t.Errorf("Overlay with y = %v: no error", bad)
		}
		if _, err := (Strip{Categories: []string{"c"}, Groups: []StripGroup{{Name: "g", Values: [][]float64{{bad}}}}}).SVG(); err == nil {
			t.Errorf("Strip with %v: no error", bad)
		}
		if _, err := (Trend{Points: []TrendPoint{{X: bad}}}).SVG(); err == nil {
			t.Errorf("Trend at time %v: no error", bad)
		}
	}
}

// TestLabelTicksKeepTheLatest: labels that would overlap give way to
// later ones, from the right, never overlapping; every entry keeps a
// tick while there are no more than MaxTicks, and beyond that only the
// labelled ones are returned.
func TestLabelTicksKeepTheLatest(t *testing.T) {
	style := NewPlot("", "", "").X.Tick.Label
	for _, n := range []int{1, 5, 30, MaxTicks, MaxTicks + 1, 1000} {
		var tt []TrendTick
		for i := 0; i < n; i++ {
			tt = append(tt, TrendTick{X: float64(i), Label: fmt.Sprintf("build-%03d", i)})
		}
		lt := newLabelTicks(tt, 500, style)
		ticks := lt.Ticks(0, float64(max(n-1, 1)))
		if n <= MaxTicks && len(ticks) != n || n > MaxTicks && len(ticks) > MaxTicks {
			t.Errorf("%d entries: %d ticks", n, len(ticks))
		}
		last := math.Inf(-1) // right edge of the previous label
		var labelled []plot.Tick
		for _, tk := range ticks {
			if tk.Label == "" {
				continue
			}
			labelled = append(labelled, tk)
			at := tk.Value * 500 / float64(max(n-1, 1))
			half := float64(style.Width(tk.Label)) / 2
			if at-half < last+labelGap-1e-9 {
				t.Errorf("%d entries: label %q overlaps the one before", n, tk.Label)
			}
			last = at + half
		}
		if len(labelled) == 0 || labelled[len(labelled)-1].Label != fmt.Sprintf("build-%03d", n-1) {
			t.Errorf("%d entries: the latest entry is not labelled (%d labels)", n, len(labelled))
		}
	}
	if ticks := newLabelTicks([]TrendTick{{X: 5, Label: "a"}}, 500, style).Ticks(6, 7); len(ticks) != 0 {
		t.Errorf("a tick out of range: %v", ticks)
	}
}
