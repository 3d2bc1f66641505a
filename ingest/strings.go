package ingest

import (
	"fmt"
	"math"
	"unsafe"
)

// StringColumn holds a column of strings back to back in one buffer, with
// offsets: value i is the bytes between offsets i and i+1. Ten million
// request ids take their bytes plus 4 bytes each, instead of a 16-byte
// string header each, and the column holds no pointers for the garbage
// collector to follow.
type StringColumn struct {
	data    []byte
	offsets []int32 // empty, or Len()+1 entries starting at 0
}

// StringColumnOf builds a column holding ss.
func StringColumnOf(ss ...string) StringColumn {
	var c StringColumn
	for _, s := range ss {
		c.Append(s)
	}
	return c
}

// Len is the number of values.
func (c *StringColumn) Len() int {
	if len(c.offsets) == 0 {
		return 0
	}
	return len(c.offsets) - 1
}

// At returns value i as a new string.
func (c *StringColumn) At(i int) string { return string(c.data[c.offsets[i]:c.offsets[i+1]]) }

// Strings returns every value as a new slice of strings.
func (c *StringColumn) Strings() []string {
	out := make([]string, c.Len())
	for i := range out {
		out[i] = c.At(i)
	}
	return out
}

// view returns value i without copying; the string is valid only while the
// column's buffer is not modified.
func (c *StringColumn) view(i int) string {
	lo, hi := c.offsets[i], c.offsets[i+1]
	if lo == hi {
		return ""
	}
	return unsafe.String(&c.data[lo], int(hi-lo))
}

// Append adds one value.
func (c *StringColumn) Append(s string) {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	c.data = append(c.data, s...)
	c.offsets = append(c.offsets, int32(len(c.data)))
}

// grow makes room for rows more values of about bytes bytes in all.
func (c *StringColumn) grow(rows, bytes int) {
	if cap(c.offsets)-len(c.offsets) < rows+1 {
		o := make([]int32, len(c.offsets), len(c.offsets)+rows+1)
		copy(o, c.offsets)
		c.offsets = o
	}
	if cap(c.data)-len(c.data) < bytes {
		d := make([]byte, len(c.data), len(c.data)+bytes)
		copy(d, c.data)
		c.data = d
	}
}

// fits reports whether n more bytes keep the offsets within int32.
func (c *StringColumn) fits(n int) bool { return len(c.data)+n <= math.MaxInt32 }

// appendOffsets appends the values of an Arrow-style (data, offsets) pair
// in one copy. offsets index data and start anywhere.
func appendOffsets[O int32 | int64](c *StringColumn, data []byte, offsets []O) error {
	if len(offsets) < 2 {
		return nil
	}
	first, last := offsets[0], offsets[len(offsets)-1]
	if !c.fits(int(last - first)) {
		return fmt.Errorf("more than %d bytes of strings; split the file", math.MaxInt32)
	}
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	base := int32(len(c.data)) - int32(first)
	c.data = append(c.data, data[first:last]...)
	for _, o := range offsets[1:] {
		c.offsets = append(c.offsets, int32(o)+base)
	}
	return nil
}

// removeRows deletes the values at rows (sorted, distinct).
func (c *StringColumn) removeRows(rows []int) {
	if len(rows) == 0 || c.Len() == 0 {
		return
	}
	first := rows[0]
	w := c.offsets[first]
	out := first
	next := 0
	for i := first; i < c.Len(); i++ {
		if next < len(rows) && rows[next] == i {
			next++
			continue
		}
		lo, hi := c.offsets[i], c.offsets[i+1]
		copy(c.data[w:], c.data[lo:hi])
		w += hi - lo
		c.offsets[out+1] = w
		out++
	}
	c.offsets = c.offsets[:out+1]
	c.data = c.data[:w]
}
