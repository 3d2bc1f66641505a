package textfmt

import (
	"fmt"
	"math"
	"testing"
)

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{1, "run"}, {0, "runs"}, {2, "runs"}, {-1, "runs"}, {1000, "runs"}} {
		if got := Plural(tt.n, "run", "runs"); got != tt.want {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Plural(int64(1), "is", "are"); got != "is" {
		t.Errorf("Plural(int64(1)) = %q, want \"is\"", got)
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n         int64
		one, many string
		want      string
	}{
		{1, "run", "runs", "1 run"},
		{0, "run", "runs", "0 runs"},
		{3, "entry", "entries", "3 entries"},
		{1234, "row", "rows", "1234 rows"}, // digits not grouped
		{-2, "level", "levels", "-2 levels"},
	} {
		if got := Count(tt.n, tt.one, tt.many); got != tt.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12345, "12,345"},
		{123456, "123,456"},
		{100000, "100,000"},
		{1234567, "1,234,567"},
		{-1, "-1"},
		{-999, "-999"},
		{-1234, "-1,234"},
		{-123456, "-123,456"}, // no comma after the sign
		{math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Thousands(5242880); got != "5,242,880" {
		t.Errorf("Thousands(int 5242880) = %q, want \"5,242,880\"", got)
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"}, // fits: unchanged
		{"abcdef", 7, "abcdef"},
		{"abcdef", 4, "abc…"}, // the "…" is the 4th rune
		{"abcdef", 1, "…"},
		{"", 3, ""},
		{"héllo wörld", 5, "héll…"}, // runes, not bytes
		{"日本語テキスト", 3, "日本…"},
		{"日本語", 3, "日本語"}, // 9 bytes, 3 runes: fits
		{"éééé", 3, "éé…"},
		{"a\xffbc", 3, "a\xff…"}, // an invalid byte is one character, kept as it is
	} {
		if got := Clip(tt.s, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestClipBytes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 4, "abcd…"}, // n bytes kept, then "…"
		{"abc", 0, "…"},
		{"héllo", 3, "hé…"}, // é is 2 bytes: h é is 3
		{"héllo", 2, "h…"},  // byte 2 is inside é: cut back to h
		{"日本語", 9, "日本語"},
		{"日本語", 8, "日本…"},
	} {
		if got := ClipBytes(tt.s, tt.n); got != tt.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestOrDash(t *testing.T) {
	for _, tt := range []struct{ s, want string }{{"", "—"}, {"x", "x"}, {" ", " "}, {"-", "-"}} {
		if got := OrDash(tt.s); got != tt.want {
			t.Errorf("OrDash(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestPValue(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		want string
	}{
		{0.04213, "0.0421"}, // 3 significant figures
		{0.12345, "0.123"},
		{0.5, "0.5"}, // no trailing zeros
		{1, "1"},
		{0.99951, "1"},     // rounds up to 1.00, printed "1"
		{0.0001, "0.0001"}, // the bound itself is a number
		{0.00009999, "< 0.0001"},
		{1e-300, "< 0.0001"},
		{0, "< 0.0001"},
		{math.NaN(), "n/a"},
	} {
		if got := PValue(tt.p); got != tt.want {
			t.Errorf("PValue(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func Example() {
	rows := int64(1234567)
	fmt.Println(Count(3, "run", "runs") + ", " + Thousands(rows) + " " + Plural(rows, "row", "rows"))
	fmt.Println(Clip("a label from the inputs", 8), OrDash(""), PValue(0.04213))
	// Output:
	// 3 runs, 1,234,567 rows
	// a label… — 0.0421
}
