package csvline

import (
	"encoding/binary"
	"math/bits"
)

// decimalAt reads the digits, and at most one point among them, that
// start at line[i]: it returns the digits as an integer (meaningful only
// for 19 characters or fewer), how many characters it read, how many
// digits follow the point (-1 without one) and the index of the first
// character it did not read. Runs of eight digits are read at once.
func decimalAt(line []byte, i int) (mant uint64, length, frac, k int) {
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

// pow10 holds the powers of ten up to 10^19 as floats, all exact.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
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

// eightDigitsValue is the number eight ASCII digits in x spell, the first
// digit in the low byte. (ingest's general parser has its own copy, on
// purpose: the differential tests hold two readings of a number to each
// other, not one to itself.)
func eightDigitsValue(x uint64) uint64 {
	x -= 0x3030303030303030
	x = x*10 + x>>8 // pairs of digits in every other byte
	x = ((x&0x000000FF000000FF)*(100+1000000<<32) + (x>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return x & 0xFFFFFFFF
}

// CheckDecimal reports whether field s is what Parse accepts in a field it
// only checks (CheckCount when integer is set, CheckNumber otherwise): at
// most 18 characters, digits with one '.' among them unless integer is
// set, spelling a value of at most limit. Then strconv accepts s as well,
// and the value it reads is at most limit too. Longer values, and those
// that may lie past limit, are left to the caller's full parse.
func CheckDecimal(s string, integer bool, limit uint64) bool {
	if len(s) == 0 || len(s) > 18 {
		return false
	}
	var mant uint64
	dot, digits := -1, 0
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= '0' && ch <= '9':
			mant = mant*10 + uint64(ch-'0')
			digits++
		case ch == '.' && dot < 0 && !integer:
			dot = i
		default:
			return false
		}
	}
	frac := 0
	if dot >= 0 {
		frac = len(s) - dot - 1
	}
	return digits > 0 && decimalAtMost(mant, frac, limit)
}

// decimalAtMost reports whether mant / 10^frac (frac at most 19) is at
// most limit for sure: then so is the float it rounds to, limit being an
// integer a float64 holds. It reports false when the decimal is above
// limit, though the float may round down onto it: the caller then leaves
// the value to ParseFloat.
func decimalAtMost(mant uint64, frac int, limit uint64) bool {
	hi, lo := bits.Mul64(limit, pow10u[frac])
	return hi != 0 || mant <= lo
}
