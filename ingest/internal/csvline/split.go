package csvline

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// MaxRecordBytes bounds one CSV record: a line, or several lines joined by
// a quoted field. A request row is a few hundred bytes, or a few kilobytes
// with chunk_ms lists; encoding/csv itself has no bound and holds a whole
// record (several copies of it) in memory.
const MaxRecordBytes = 1 << 20

// Splittable reports whether line (without its line end) is one Split
// reads exactly: it holds no quote, and with its line end it is at most
// MaxRecordBytes long. Any other line is encoding/csv's, behind Guard.
func Splittable(line []byte) bool {
	return len(line)+1 <= MaxRecordBytes && bytes.IndexByte(line, '"') < 0
}

// Split appends to dst the fields of a splittable line, cut at its
// commas: views of line, as encoding/csv would give them.
func Split(dst []string, line []byte) []string {
	s := unsafe.String(unsafe.SliceData(line), len(line))
	for start := 0; ; {
		k := fieldEnd(line, start)
		dst = append(dst, s[start:k])
		if k == len(line) {
			return dst
		}
		start = k + 1
	}
}

// fieldEnd is the index of the first comma of line at or after i, or
// len(line) when there is none. Commas are found eight bytes at a time.
func fieldEnd(line []byte, i int) int {
	const ones, low7 = 0x0101010101010101, 0x7F7F7F7F7F7F7F7F
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:]) ^ (ones * ',')
		// 0x80 in every byte of x that is zero (a comma), exactly.
		if m := ^((x&low7 + low7) | x | low7); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(line); i++ {
		if line[i] == ',' {
			return i
		}
	}
	return i
}
