package report

import (
	"math"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

func TestFmtNum(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{1038, "1038"},         // whole: as it is
		{123456, "123456"},     // whole, however many digits
		{-42, "-42"},           // whole and negative
		{0, "0"},               //
		{19.5687, "19.57"},     // 4 significant figures
		{5080.6, "5081"},       // the integer part is never cut...
		{12345.6, "12346"},     // ...even past 4 figures
		{956.44, "956.4"},      //
		{0.26429, "0.2643"},    // below 1: 4 figures after the zeros
		{0.3125, "0.3125"},     //
		{0.5, "0.5000"},        // trailing zeros kept: one value, one print
		{0.00088, "0.0008800"}, //
		{9.9996, "10.00"},      // a carry into a new digit keeps 4 figures
		{999.96, "1000"},       //
		{0.099996, "0.1000"},   //
		{-3.14159, "-3.142"},   //
		{-0.00001, "-0.00001000"},
		{-0.5, "-0.5000"},
		{-9.9996, "-10.00"}, // the carry, negative
		{1e15, "1000000000000000"},
		// A small negative value keeps its sign and 4 figures: it is
		// never rounded to a minus zero ("-0.000").
		{-0.0001, "-0.0001000"},
		{-0.000099996, "-0.0001000"}, // carries to 1.000e-4
		{math.Copysign(0, -1), "0"},
		{math.NaN(), "n/a"},
		{math.Inf(1), "n/a"},
	}
	for _, tt := range tests {
		if got := fmtNum(analyze.Num(tt.v)); got != tt.want {
			t.Errorf("fmtNum(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestFmtAcrossCells: the cell of an across-runs table; runs is what the
// row's runs column says.
func TestFmtAcrossCells(t *testing.T) {
	tests := []struct {
		name string
		ar   analyze.AcrossRuns
		runs int
		want string
	}{
		{"three runs", analyze.AcrossRuns{Median: 19.5687, MAD: 0.0032, Runs: 3}, 3, "19.57 ± <0.01"},
		{"percent", analyze.AcrossRuns{Unit: "%", Median: 99.515, MAD: 0.031, Runs: 3}, 3, "99.52 ± 0.03 %"},
		{"one run, level of one", analyze.AcrossRuns{Median: 956.44, MAD: 0, Runs: 1, FewRuns: true}, 1, "956.4"},
		{"one run, level of three", analyze.AcrossRuns{Median: 956.44, MAD: 0, Runs: 1, FewRuns: true}, 3, "956.4 (" + flagOpen + "⚠ 1 run" + flagClose + ")"},
		{"one run, percent", analyze.AcrossRuns{Unit: "%", Median: 8.7, Runs: 1}, 1, "8.700 %"},
		{"no spread over runs", analyze.AcrossRuns{Unit: "%", Median: 0, MAD: 0, Runs: 3}, 3, "0 ± 0 %"},
		{"no run", analyze.AcrossRuns{Median: 1, Runs: 0}, 3, "n/a"},
	}
	for _, tt := range tests {
		if got := fmtAcross(tt.ar, tt.runs); got != tt.want {
			t.Errorf("%s: fmtAcross = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestNoMinusZero: a value that rounds to zero prints without a sign, with
// or without decimals ("-0.0" reads as a negative change).
func TestNoMinusZero(t *testing.T) {
	if got := fmtNum(analyze.Num(math.Copysign(0, -1))); got != "0" {
		t.Errorf("fmtNum(-0) = %q, want \"0\"", got)
	}
	for _, tt := range []struct {
		v, spread float64
		want      string
	}{
		{-0.0001, 0.5, "0.00 ± 0.50"},
		{-0.0001, 0.05, "0.000 ± 0.050"},
		{-0.04, 20, "0 ± 20"},
	} {
		if got := fmtSpread(analyze.Num(tt.v), analyze.Num(tt.spread)); got != tt.want {
			t.Errorf("fmtSpread(%v, %v) = %q, want %q", tt.v, tt.spread, got, tt.want)
		}
	}
}

// TestMdEscapeWhitespaceAndCode: tabs and carriage returns in a value from
// the inputs become spaces (a Go escape would read as part of the value);
// inline code pads a value that starts or ends with a backtick, so the
// fence stays a fence.
func TestMdEscapeWhitespaceAndCode(t *testing.T) {
	if got := mdEscape("a\tb\rc\nd"); got != "a b c d" {
		t.Errorf("mdEscape(tab, CR, LF) = %q, want \"a b c d\"", got)
	}
	for _, tt := range []struct{ in, want string }{
		{"x", "`x`"}, {"`x", "`` `x ``"}, {"x`", "`` x` ``"}, {"a`b", "``a`b``"},
	} {
		if got := code(tt.in); got != tt.want {
			t.Errorf("code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
