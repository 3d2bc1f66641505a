package analyze

import (
	"math"
	"slices"
)

// stableOrderByKey returns the indices 0 … len(keys)−1 ordered by keys,
// ties in index order: a stable sort, by the float bits, of values that
// must not be NaN. An ordered input (sent times usually are, or nearly)
// is recognised in one pass and costs nothing more; otherwise it is an
// LSD radix sort in 16-bit digits that skips the digits all keys share,
// so its cost is linear whatever the order.
//
// The order is lent by intScratch: give it back when done.
func stableOrderByKey(keys []float64) []int {
	order := identityOrder(len(keys))
	if slices.IsSorted(keys) {
		return order
	}
	n := len(keys)
	// Map each float to a uint64 that orders the same way: flip every bit
	// of a negative number, only the sign bit of a positive one (-0 and
	// +0 become neighbours, -0 first, as they compare equal: the index
	// breaks the tie only among equal bits, so normalise -0 first).
	bits := uint64Scratch.take(n)[:n]
	var diff uint64 // the bits in which some two keys differ
	for i, k := range keys {
		if k == 0 {
			k = 0 // -0 → +0
		}
		b := math.Float64bits(k)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		bits[i] = b
		diff |= b ^ bits[0]
	}
	idx := int32Scratch.take(n)[:n]
	for i := range idx {
		idx[i] = int32(i)
	}
	tmpBits := uint64Scratch.take(n)[:n]
	tmpIdx := int32Scratch.take(n)[:n]
	defer func() {
		uint64Scratch.give(bits)
		uint64Scratch.give(tmpBits)
		int32Scratch.give(idx)
		int32Scratch.give(tmpIdx)
	}()
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		if (diff>>shift)&0xFFFF == 0 {
			continue // every key has the same digit here
		}
		clear(count[:])
		for _, b := range bits {
			count[(b>>shift)&0xFFFF]++
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for j, b := range bits {
			d := (b >> shift) & 0xFFFF
			p := count[d]
			count[d]++
			tmpBits[p], tmpIdx[p] = b, idx[j]
		}
		bits, tmpBits = tmpBits, bits
		idx, tmpIdx = tmpIdx, idx
	}
	for i, j := range idx {
		order[i] = int(j)
	}
	return order
}
