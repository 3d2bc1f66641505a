package ingest

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The plain-line parser: most lines of a requests.csv are plain, every
// number a run of digits with at most one point, every field present, no
// blank, no quote. parsePlain reads such a line in one pass over its
// bytes, eight at a time, without splitting it into fields first, and
// gives exactly the values the general parser (csvRowParser.parse) would.
// Any line it is not sure of, it leaves to the general parser, whole, so
// the diagnostics of a bad line are the general parser's.

// plainOp is what the plain-line parser does with one file column.
type plainOp uint8

// The plain-line parser's operations.
const (
	plainSkip        plainOp = iota // a column benchnote does not use
	plainID                         // request_id: any text but empty
	plainStatus                     // status: any text
	plainCount                      // a count, kept
	plainNumber                     // a number, kept
	plainCheckCount                 // a count, checked but not kept
	plainCheckNumber                // a number, checked but not kept
)

// plainPlan builds the plain-line parser's operations for layout l, one
// per file column, or nil when the layout has a column it does not read
// (phase, chunk_ms).
func plainPlan(l *requestLayout, checkOnly *[numReqColumns]bool) []plainOp {
	ops := make([]plainOp, len(l.cols))
	for j, c := range l.cols {
		switch {
		case c == colExtra:
			ops[j] = plainSkip
		case c == colRequestID:
			ops[j] = plainID
		case c == colStatus:
			ops[j] = plainStatus
		case requestColumns[c].kind == kindCount:
			ops[j] = plainCount
			if checkOnly[c] {
				ops[j] = plainCheckCount
			}
		case requestColumns[c].kind == kindNumber || requestColumns[c].kind == kindUnixTime:
			ops[j] = plainNumber
			if checkOnly[c] {
				ops[j] = plainCheckNumber
			}
		default:
			return nil
		}
	}
	return ops
}

// parsePlain parses line (which starts on line number lineNo, without
// its line end) as a plain line and appends it, or reports false, having
// appended nothing, when the line is not plain or would be excluded.
func (p *csvRowParser) parsePlain(line []byte, lineNo int) bool {
	var r csvRow // every column the file has is set below
	end, i := len(line), 0
	for j, op := range p.plain {
		var next int // the start of the next field
		switch op {
		case plainSkip, plainID, plainStatus:
			k := fieldEnd(line, i)
			if op == plainID {
				if k == i {
					return false
				}
				r.id = unsafe.String(unsafe.SliceData(line[i:]), k-i)
			} else if op == plainStatus {
				r.status = unsafe.String(unsafe.SliceData(line[i:]), k-i)
			}
			next = k + 1
		default:
			mant, length, frac, k := plainDecimalAt(line, i)
			digits := length
			if frac >= 0 {
				digits--
			}
			if digits == 0 || k < end && line[k] != ',' {
				return false
			}
			c := p.l.cols[j]
			limit := requestColumns[c].max
			switch op {
			case plainCount, plainCheckCount:
				if frac >= 0 || length > 18 || mant > uint64(limit) {
					return false
				}
				if op == plainCount {
					r.count[c] = int64(mant)
				}
			case plainNumber:
				if length > 19 || mant >= 1<<53 {
					return false
				}
				v := float64(mant)
				if frac >= 0 {
					v /= pow10[frac]
				}
				if v > float64(limit) {
					return false
				}
				r.num[c] = v
			case plainCheckNumber:
				if length > 18 || !decimalAtMost(mant, max(frac, 0), uint64(limit)) {
					return false
				}
			}
			next = k + 1
		}
		// Every field but the last ends at a comma, the last at the end.
		if (next > end) != (j == len(p.plain)-1) {
			return false
		}
		i = next
	}
	if r.num[colE2E] < r.num[colTTFT] {
		return false
	}
	p.appendRow(&r, lineNo)
	return true
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

// plainDecimalAt reads the digits, and at most one point among them,
// that start at line[i]: it returns the digits as an integer (meaningful
// only for 19 characters or fewer), how many characters it read, how many
// digits follow the point (-1 without one) and the index of the first
// character it did not read. Runs of eight digits are read at once.
func plainDecimalAt(line []byte, i int) (mant uint64, length, frac, k int) {
	start, dot := i, -1
	for {
		if i+8 <= len(line) {
			x := binary.LittleEndian.Uint64(line[i:])
			n := leadingDigits(x)
			if n == 8 {
				mant = mant*100_000_000 + eightDigitsValue(x)
				i += 8
				continue
			}
			mant = mant*pow10u[n] + firstDigitsValue(x, n)
			i += n
		} else {
			for i < len(line) && line[i]-'0' <= 9 {
				mant = mant*10 + uint64(line[i]-'0')
				i++
			}
		}
		if i < len(line) && line[i] == '.' && dot < 0 {
			dot = i
			i++
			continue
		}
		break
	}
	frac = -1
	if dot >= 0 {
		frac = i - dot - 1
	}
	return mant, i - start, frac, i
}

// pow10u holds the powers of ten up to 10^19 as integers.
var pow10u = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// leadingDigits is how many of the eight bytes of x (the first in the low
// byte) are ASCII digits before the first that is not.
func leadingDigits(x uint64) int {
	const low7, high = 0x7F7F7F7F7F7F7F7F, 0x8080808080808080
	y := x & low7
	above := (y + 0x4646464646464646) | x // high bit: above '9', or not ASCII
	below := ^(y + 0x5050505050505050)    // high bit: below '0'
	return bits.TrailingZeros64((above|below)&high) / 8
}

// firstDigitsValue is the number the first n (0 to 7) bytes of x spell,
// all ASCII digits: they are moved to the top and the bytes below filled
// with '0', leading zeros to eightDigitsValue.
func firstDigitsValue(x uint64, n int) uint64 {
	if n == 0 {
		return 0
	}
	shift := uint(8 * (8 - n))
	return eightDigitsValue(x<<shift | 0x3030303030303030>>(64-shift))
}
