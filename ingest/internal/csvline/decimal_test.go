package csvline

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"
)

// TestLeadingDigits checks the eight-byte digit count against a byte
// loop for every byte value at every position, among digits.
func TestLeadingDigits(t *testing.T) {
	for pos := range 8 {
		for b := range 256 {
			word := []byte("73914062")
			word[pos] = byte(b)
			want := 0
			for want < 8 && word[want] >= '0' && word[want] <= '9' {
				want++
			}
			if got := leadingDigits(binary.LittleEndian.Uint64(word)); got != want {
				t.Fatalf("leadingDigits(%q) = %d, want %d", word, got, want)
			}
		}
	}
}

// TestFirstDigitsValue checks the value of the first n digits of a word,
// whatever follows them.
func TestFirstDigitsValue(t *testing.T) {
	tests := []struct {
		word string
		n    int
		want uint64
	}{
		{"12345678", 0, 0},
		{"12345678", 1, 1},
		{"12345678", 3, 123},
		{"1234567,", 7, 1234567},
		{"0009.999", 4, 9},
		{"00000001", 7, 0},
		{"987.\xff\x00,a", 3, 987},
	}
	for _, tt := range tests {
		if got := firstDigitsValue(binary.LittleEndian.Uint64([]byte(tt.word)), tt.n); got != tt.want {
			t.Errorf("firstDigitsValue(%q, %d) = %d, want %d", tt.word, tt.n, got, tt.want)
		}
	}
}

// TestDecimalAt checks what the decimal reader returns, reading a field
// at the start of a line and one near its end (the byte loop).
func TestDecimalAt(t *testing.T) {
	tests := []struct {
		line               string
		mant               uint64
		length, frac, next int
	}{
		{"1790000000.000107,ok", 1790000000000107, 17, 6, 17},
		{"806.259", 806259, 7, 3, 7},
		{"61", 61, 2, -1, 2},
		{"12.", 12, 3, 0, 3},
		{".5,", 5, 2, 1, 2},
		{"1.2.3", 12, 3, 1, 3},
		{"00000000000042", 42, 14, -1, 14},
		{"12345678901234567890,", 12345678901234567890, 20, -1, 20},
		{"-1", 0, 0, -1, 0},
		{"", 0, 0, -1, 0},
		{"7 ", 7, 1, -1, 1},
		{"1e3", 1, 1, -1, 1},
		{"123456789\xb9", 123456789, 9, -1, 9},
	}
	for _, tt := range tests {
		mant, length, frac, next := decimalAt([]byte(tt.line), 0)
		if mant != tt.mant || length != tt.length || frac != tt.frac || next != tt.next {
			t.Errorf("decimalAt(%q) = %d, %d, %d, %d; want %d, %d, %d, %d",
				tt.line, mant, length, frac, next, tt.mant, tt.length, tt.frac, tt.next)
		}
		// The same field after a prefix: fewer than eight bytes are left
		// at some point, and the byte loop reads them.
		line := "x," + tt.line
		mant, length, frac, next = decimalAt([]byte(line), 2)
		if mant != tt.mant || length != tt.length || frac != tt.frac || next != tt.next+2 {
			t.Errorf("decimalAt(%q, 2) = %d, %d, %d, %d", line, mant, length, frac, next)
		}
	}
}

// TestCheckDecimal checks which fields CheckDecimal vouches for, and that
// strconv accepts every one of them.
func TestCheckDecimal(t *testing.T) {
	for _, tt := range []struct {
		s               string
		number, integer bool
	}{
		{"0", true, true}, {"12", true, true}, {"12.5", true, false}, {".5", true, false}, {"5.", true, false},
		{"", false, false}, {".", false, false}, {"1.2.3", false, false}, {"-1", false, false}, {"1e3", false, false},
		{"NaN", false, false}, {"+1", false, false}, {" 1", false, false}, {"1234567890123456789", false, false},
	} {
		if got := CheckDecimal(tt.s, false, math.MaxInt64); got != tt.number {
			t.Errorf("CheckDecimal(%q, false) = %v, want %v", tt.s, got, tt.number)
		}
		if got := CheckDecimal(tt.s, true, math.MaxInt64); got != tt.integer {
			t.Errorf("CheckDecimal(%q, true) = %v, want %v", tt.s, got, tt.integer)
		}
		// Whatever CheckDecimal accepts, strconv accepts.
		if CheckDecimal(tt.s, false, math.MaxInt64) {
			if v, err := strconv.ParseFloat(tt.s, 64); err != nil || v < 0 {
				t.Errorf("CheckDecimal accepts %q, ParseFloat gives %v, %v", tt.s, v, err)
			}
		}
		if CheckDecimal(tt.s, true, math.MaxInt64) {
			if n, err := strconv.ParseInt(tt.s, 10, 64); err != nil || n < 0 {
				t.Errorf("CheckDecimal accepts %q as a count, ParseInt gives %v, %v", tt.s, n, err)
			}
		}
	}
}

// The limits of ingest's columns: the most tokens, the longest latency in
// milliseconds, the last second of the year 9999.
const (
	maxTokens      = 1_000_000_000
	maxLatencyMs   = 10_000_000_000
	maxUnixSeconds = 253402300799
)

// TestCheckDecimalLimit: a decimal is vouched for only when its exact
// value is at most the limit; one above it is left to the full parse, even
// where the float it rounds to is the limit itself.
func TestCheckDecimalLimit(t *testing.T) {
	for _, tt := range []struct {
		s       string
		integer bool
		limit   uint64
		want    bool
	}{
		{"1000000000", true, maxTokens, true},
		{"0001000000000", true, maxTokens, true},
		{"1000000001", true, maxTokens, false},
		{"10000000000", false, maxLatencyMs, true},
		{"10000000000.000000", false, maxLatencyMs, true},
		{"9999999999.9999999", false, maxLatencyMs, true},
		{"10000000000.000001", false, maxLatencyMs, false},
		{"10000000001", false, maxLatencyMs, false},
		{"253402300799", false, maxUnixSeconds, true},
		{"253402300799.0000", false, maxUnixSeconds, true},
		{"253402300799.00001", false, maxUnixSeconds, false}, // ParseFloat rounds it to the limit
		{"253402300800", false, maxUnixSeconds, false},
		{"1790000000.806366", false, maxUnixSeconds, true},
		{"1790000000806", false, maxUnixSeconds, false}, // milliseconds
		{"0.00000000000000001", false, 0, false},
		{"0.0000000000000000", false, 0, true},
		{"999999999999999999", true, math.MaxInt64, true},
	} {
		if got := CheckDecimal(tt.s, tt.integer, tt.limit); got != tt.want {
			t.Errorf("CheckDecimal(%q, %v, %d) = %v, want %v", tt.s, tt.integer, tt.limit, got, tt.want)
		}
	}
}
