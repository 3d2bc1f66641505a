package parquetpage

import (
	"slices"
	"testing"
)

// TestDecodeHybrid decodes hand-built RLE/bit-packing hybrid runs. A run
// starts with a ULEB128 varint header h: h&1 == 0 is an RLE run of h>>1
// copies of one value, stored in ceil(width/8) little-endian bytes;
// h&1 == 1 is h>>1 groups of 8 values, packed width bits each, least
// significant bit first.
func TestDecodeHybrid(t *testing.T) {
	tests := []struct {
		name  string
		b     []byte
		width int
		want  []uint32
	}{
		// 0x0a = 5<<1: five copies of a value of no bytes.
		{"RLE width 0", []byte{0x0a}, 0, []uint32{0, 0, 0, 0, 0}},
		// 0x08 = 4<<1, value byte 5.
		{"RLE width 3", []byte{0x08, 0x05}, 3, []uint32{5, 5, 5, 5}},
		{"RLE width 8", []byte{0x06, 0xff}, 8, []uint32{255, 255, 255}},
		// Width 9 takes 2 value bytes: 0x012c = 300.
		{"RLE width 9", []byte{0x04, 0x2c, 0x01}, 9, []uint32{300, 300}},
		// Width 17 takes 3: 0x010001 = 65537.
		{"RLE width 17", []byte{0x02, 0x01, 0x00, 0x01}, 17, []uint32{65537}},
		// Width 20, 3 bytes: 0x0fffff = 1048575, the widest value.
		{"RLE width 20", []byte{0x04, 0xff, 0xff, 0x0f}, 20, []uint32{1048575, 1048575}},
		{"RLE width 32", []byte{0x02, 0xff, 0xff, 0xff, 0xff}, 32, []uint32{4294967295}},
		// A header of two varint bytes: 0x90 0x03 = 0x10 | 3<<7 = 400 =
		// 200<<1, 200 ones.
		{"RLE of 200", []byte{0x90, 0x03, 0x01}, 1, slices.Repeat([]uint32{1}, 200)},
		// Only the values asked for are taken from a longer run.
		{"RLE longer than asked", []byte{0x14, 0x07}, 3, []uint32{7, 7}},
		// 0x03 = 1<<1|1: one group. 0xb2 = 0b10110010, from bit 0 up.
		{"packed width 1", []byte{0x03, 0xb2}, 1, []uint32{0, 1, 0, 0, 1, 1, 0, 1}},
		// 0..7 in 3 bits each, Parquet's own example: bits 0-23 are
		// 000 100 010 110 001 101 011 111 (each value's low bit first),
		// bytes 0x88 0xc6 0xfa.
		{"packed width 3", []byte{0x03, 0x88, 0xc6, 0xfa}, 3, []uint32{0, 1, 2, 3, 4, 5, 6, 7}},
		// Value i starts at bit 7i. 1, 2, 4, ..., 64 set bits 0, 8, 16,
		// ..., 48 (bit i of value i), one a byte; 127 sets bits 49-55,
		// so the last byte is 0x01|0xfe.
		{"packed width 7", []byte{0x03, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0xff}, 7, []uint32{1, 2, 4, 8, 16, 32, 64, 127}},
		// Value i starts at bit 17i: 131071 sets bits 0-16 (bytes 0-1
		// and bit 0 of byte 2); 1 sets bit 17 (byte 2 bit 1); 65536
		// sets bit 34+16 = 50 (byte 6 bit 2); the last, 5, sets bits
		// 119 and 121 (byte 14 bit 7, byte 15 bit 1). The last values
		// are near the end of the buffer, read byte by byte.
		{"packed width 17",
			[]byte{0x03, 0xff, 0xff, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02, 0x00},
			17, []uint32{131071, 1, 65536, 0, 0, 0, 0, 5}},
		// Four little-endian bytes a value.
		{"packed width 32",
			append([]byte{0x03, 0xef, 0xbe, 0xad, 0xde, 0x04, 0x03, 0x02, 0x01}, make([]byte, 24)...),
			32, []uint32{0xdeadbeef, 0x01020304, 0, 0, 0, 0, 0, 0}},
		// Two groups (0x05 = 2<<1|1) of width 2: 0xe4 = 11 10 01 00 and
		// 0x1b = 00 01 10 11 (read right to left), 0x00 0x00.
		{"packed two groups", []byte{0x05, 0xe4, 0x1b, 0x00, 0x00}, 2, []uint32{0, 1, 2, 3, 3, 2, 1, 0, 0, 0}},
		// One group of width 3 declared, 2 of its 3 bytes there: the 16
		// bits hold 5 whole values (the writer cut the padding).
		{"packed, last group cut short", []byte{0x03, 0x88, 0xc6}, 3, []uint32{0, 1, 2, 3, 4}},
		// Width 17, one group declared, 3 of its 17 bytes there: the 24
		// bits hold one whole value.
		{"packed width 17 cut short", []byte{0x03, 0xff, 0xff, 0x03}, 17, []uint32{131071}},
		// RLE 3×2, one packed group (as above), RLE 2×1.
		{"mixed runs", []byte{0x06, 0x02, 0x03, 0xe4, 0x1b, 0x04, 0x01}, 2,
			[]uint32{2, 2, 2, 0, 1, 2, 3, 3, 2, 1, 0, 1, 1}},
		{"nothing asked of nothing", nil, 5, []uint32{}},
	}
	for _, tt := range tests {
		got := make([]uint32, len(tt.want))
		if err := decodeHybrid(tt.b, tt.width, got); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: decodeHybrid(% x, %d) = %v, want %v", tt.name, tt.b, tt.width, got, tt.want)
		}
	}

	bad := []struct {
		name  string
		b     []byte
		width int
		n     int
	}{
		{"no runs", nil, 3, 1},
		{"truncated varint", []byte{0x80}, 3, 1},
		{"truncated two-byte varint", []byte{0x90}, 1, 1},
		{"varint overflow", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 1, 1},
		{"zero-count RLE run", []byte{0x00, 0x01}, 1, 1},
		{"RLE count past int32", []byte{0xfe, 0xff, 0xff, 0xff, 0x1f, 0x01}, 1, 1}, // (1<<32-1)<<1
		{"zero-group packed run", []byte{0x01, 0xff}, 1, 1},
		{"RLE value missing", []byte{0x02}, 1, 1},
		{"RLE value bytes cut", []byte{0x02, 0x01, 0x00}, 17, 1},
		// 8 does not fit in 3 bits, 0x200 = 512 not in 9.
		{"RLE value wider than 3 bits", []byte{0x02, 0x08}, 3, 1},
		{"RLE value wider than 9 bits", []byte{0x02, 0x00, 0x02}, 9, 1},
		// The 16 bits there hold 5 of the values.
		{"packed, cut short of the values", []byte{0x03, 0x88, 0xc6}, 3, 6},
		// Two groups declared, one byte there.
		{"packed groups past the bytes", []byte{0x05, 0xff}, 1, 9},
		{"runs end before the values", []byte{0x04, 0x01}, 1, 3},
	}
	for _, tt := range bad {
		out := make([]uint32, tt.n)
		if err := decodeHybrid(tt.b, tt.width, out); err == nil {
			t.Errorf("%s: decodeHybrid(% x, %d) into %d values = %v, want an error", tt.name, tt.b, tt.width, tt.n, out)
		}
	}
}

// TestDecodeLevels decodes definition levels of bit width 1 (one value
// byte an RLE run) and counts the non-null values.
func TestDecodeLevels(t *testing.T) {
	tests := []struct {
		name    string
		b       []byte
		want    []int16
		nonNull int
	}{
		{"RLE ones", []byte{0x08, 0x01}, []int16{1, 1, 1, 1}, 4},
		{"RLE zeros", []byte{0x06, 0x00}, []int16{0, 0, 0}, 0},
		{"RLE longer than asked", []byte{0x14, 0x01}, []int16{1, 1, 1}, 3},
		// 0xb2 = 0b10110010, from bit 0 up.
		{"packed", []byte{0x03, 0xb2}, []int16{0, 1, 0, 0, 1, 1, 0, 1}, 4},
		// Two groups: 0xff, then 0x01 = bit 0 only; 10 of the 16.
		{"packed two groups", []byte{0x05, 0xff, 0x01}, []int16{1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, 9},
		// 3 nulls, 0x05 = bits 0 and 2, 2 values.
		{"mixed runs", []byte{0x06, 0x00, 0x03, 0x05, 0x04, 0x01}, []int16{0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1}, 4},
		// 0x90 0x03 = 200<<1: 200 values.
		{"two-byte header", []byte{0x90, 0x03, 0x01}, slices.Repeat([]int16{1}, 200), 200},
		{"no levels", nil, []int16{}, 0},
	}
	for _, tt := range tests {
		got := make([]int16, len(tt.want))
		nonNull, err := decodeLevels(tt.b, got)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.Equal(got, tt.want) || nonNull != tt.nonNull {
			t.Errorf("%s: decodeLevels(% x) = %v, %d non-null; want %v, %d", tt.name, tt.b, got, nonNull, tt.want, tt.nonNull)
		}
	}

	bad := []struct {
		name string
		b    []byte
		n    int
	}{
		{"no runs", nil, 1},
		{"truncated varint", []byte{0x80}, 1},
		{"zero-count RLE run", []byte{0x00, 0x01}, 1},
		{"zero-group packed run", []byte{0x01, 0xff}, 1},
		{"RLE value missing", []byte{0x02}, 1},
		{"definition level 2", []byte{0x02, 0x02}, 1},
		{"definition level 255", []byte{0x08, 0xff}, 2},
		{"packed groups past the bytes", []byte{0x07, 0xff, 0xff}, 17},
		{"runs end before the levels", []byte{0x04, 0x01}, 3},
	}
	for _, tt := range bad {
		defs := make([]int16, tt.n)
		if nonNull, err := decodeLevels(tt.b, defs); err == nil {
			t.Errorf("%s: decodeLevels(% x) of %d = %v, %d non-null; want an error", tt.name, tt.b, tt.n, defs, nonNull)
		}
	}
}

// TestDecodeHybridRunsOfNothing decodes runs that hold no bytes: a
// bit-packed run of width 0 (header 0x05: two groups, sixteen zeros, no
// bytes), which a writer may emit for a one-value dictionary, is not
// corrupt; an empty bit-packed run (header 0x01: zero groups) is, as
// Arrow's decoder has it.
func TestDecodeHybridRunsOfNothing(t *testing.T) {
	out := make([]uint32, 3)
	if err := decodeHybrid([]byte{0x01, 0x06, 0x02}, 2, out); err == nil {
		t.Errorf("empty run then RLE: %v; want an error", out)
	}
	out = make([]uint32, 10)
	for i := range out {
		out[i] = 9
	}
	if err := decodeHybrid([]byte{0x05}, 0, out); err != nil || !slices.Equal(out, make([]uint32, 10)) {
		t.Errorf("width-0 bit-packed run: %v, %v; want ten zeros", out, err)
	}
}
