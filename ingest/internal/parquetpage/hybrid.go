package parquetpage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// decodeLevels decodes len(defs) definition levels (bit width 1) from RLE
// runs and returns how many are 1.
func decodeLevels(b []byte, defs []int16) (int, error) {
	var run runDecoder
	run.b, run.width = b, 1
	nonNull := 0
	for i := 0; i < len(defs); {
		if err := run.nextRun(); err != nil {
			return 0, err
		}
		k := min(run.count, len(defs)-i)
		out := defs[i : i+k]
		if run.packed {
			for j := range out {
				bit := run.at + j
				out[j] = int16(run.b[bit>>3] >> (bit & 7) & 1)
				nonNull += int(out[j])
			}
		} else {
			if run.value > 1 {
				return 0, fmt.Errorf("definition level %d; the column's maximum is 1", run.value)
			}
			for j := range out {
				out[j] = int16(run.value)
			}
			nonNull += k * int(run.value)
		}
		run.done(k)
		i += k
	}
	return nonNull, nil
}

// decodeHybrid decodes len(out) values of width bits from RLE and
// bit-packed runs (Parquet's RLE/bit-packing hybrid, without a length
// prefix).
func decodeHybrid(b []byte, width int, out []uint32) error {
	var run runDecoder
	run.b, run.width = b, width
	mask := uint64(1)<<width - 1
	for i := 0; i < len(out); {
		if err := run.nextRun(); err != nil {
			return err
		}
		k := min(run.count, len(out)-i)
		dst := out[i : i+k]
		if !run.packed {
			for j := range dst {
				dst[j] = run.value
			}
		} else {
			for j := range dst {
				dst[j] = packedValue(run.b, (run.at+j)*width, mask)
			}
		}
		run.done(k)
		i += k
	}
	return nil
}

// packedValue is the value of the bits mask selects at bit of b: read
// eight bytes at a time while they are there, byte by byte at the end of
// the buffer.
func packedValue(b []byte, bit int, mask uint64) uint32 {
	p := bit >> 3
	var w uint64
	if p+8 <= len(b) {
		w = binary.LittleEndian.Uint64(b[p:])
	} else {
		for q := len(b) - 1; q >= p; q-- {
			w = w<<8 | uint64(b[q])
		}
	}
	return uint32(w >> (bit & 7) & mask)
}

// decodeDictionary decodes len(out) dictionary-encoded values from b, a
// bit width and RLE/bit-packed runs of indices, looking each index up in
// dict as it is decoded (the indices are never stored).
func decodeDictionary[T any](b []byte, dict []T, out []T) error {
	if len(b) < 1 {
		if len(out) == 0 {
			return nil
		}
		return &CorruptError{Err: errors.New("a dictionary-encoded page without its bit width")}
	}
	width := int(b[0])
	if width > 32 {
		return &CorruptError{Err: fmt.Errorf("dictionary indices of %d bits", width)}
	}
	var run runDecoder
	run.b, run.width = b[1:], width
	mask := uint64(1)<<width - 1
	for i := 0; i < len(out); {
		if err := run.nextRun(); err != nil {
			return &CorruptError{Err: fmt.Errorf("dictionary indices: %v", err)}
		}
		k := min(run.count, len(out)-i)
		dst := out[i : i+k]
		if !run.packed {
			if int(run.value) >= len(dict) {
				return &CorruptError{Err: fmt.Errorf("dictionary index %d of a dictionary of %d values", run.value, len(dict))}
			}
			v := dict[run.value]
			for j := range dst {
				dst[j] = v
			}
		} else {
			for j := range dst {
				x := packedValue(run.b, (run.at+j)*width, mask)
				if int(x) >= len(dict) {
					return &CorruptError{Err: fmt.Errorf("dictionary index %d of a dictionary of %d values", x, len(dict))}
				}
				dst[j] = dict[x]
			}
		}
		run.done(k)
		i += k
	}
	return nil
}

// runDecoder walks the runs of Parquet's RLE/bit-packing hybrid encoding.
// After nextRun, a run of count values is either one value repeated or
// count values packed width bits each from bit at of b.
type runDecoder struct {
	b      []byte
	width  int
	packed bool
	count  int    // values of the run not yet taken
	at     int    // packed: the index of the run's next value, from b's start
	value  uint32 // RLE: the repeated value
	next   int    // the byte after the current run
}

// nextRun moves to the next run, unless values of the current one are
// left.
func (r *runDecoder) nextRun() error {
	if r.count > 0 {
		return nil
	}
	r.b = r.b[r.next:]
	r.next = 0
	header, k := binary.Uvarint(r.b)
	if k <= 0 {
		return errors.New("the runs end before the values")
	}
	r.b = r.b[k:]
	if header&1 == 0 {
		count := header >> 1
		nb := (r.width + 7) / 8
		if count == 0 || count > math.MaxInt32 || len(r.b) < nb {
			return errors.New("a corrupt RLE run")
		}
		var v uint64
		for q := nb - 1; q >= 0; q-- {
			v = v<<8 | uint64(r.b[q])
		}
		if r.width < 32 && v>>r.width != 0 {
			return fmt.Errorf("an RLE value of more than %d bits", r.width)
		}
		r.packed, r.count, r.value, r.next = false, int(count), uint32(v), nb
		return nil
	}
	groups := header >> 1
	switch {
	case groups == 0 || groups > math.MaxInt32/8:
		return errors.New("a corrupt bit-packed run") // Arrow refuses it too
	case r.width == 0:
		// Values of no bits take no bytes: a run may hold more groups
		// than its page has bytes.
	case groups > uint64(len(r.b)):
		return errors.New("a corrupt bit-packed run")
	}
	nbytes := int(groups) * r.width
	if nbytes > len(r.b) {
		// A writer may cut the last run's padding short.
		nbytes = len(r.b)
	}
	values := int(groups) * 8
	if r.width > 0 {
		values = min(values, nbytes*8/r.width)
	}
	if values == 0 {
		return errors.New("an empty bit-packed run")
	}
	r.packed, r.count, r.at, r.next = true, values, 0, nbytes
	return nil
}

// done takes k values of the current run.
func (r *runDecoder) done(k int) {
	r.count -= k
	r.at += k
}
