package csvline

import (
	"fmt"
	"unsafe"
)

// Op is what Parse does with one field of a line.
type Op uint8

// The operations of a Field. A count is 1 to 18 digits without a point;
// a number is digits with at most one point, at most 19 characters, whose
// digits form an integer below 2^53 (so one division of two exact floats
// gives ParseFloat's value); a checked number is at most 18 characters.
const (
	Skip         Op = iota // any text, not kept
	Text                   // any text, kept in Values.Texts
	NonEmptyText           // any text but empty, kept in Values.Texts
	Count                  // a count, kept in Values.Ints
	Number                 // a number, kept in Values.Floats
	CheckCount             // a count, checked but not kept
	CheckNumber            // a number, checked (its exact value) but not kept
)

// Field is the plan for one field of a line.
type Field struct {
	Op Op
	// Slot is where the value goes: its index in Values.Texts (Text,
	// NonEmptyText), Values.Ints (Count) or Values.Floats (Number).
	Slot int
	// Limit is the largest value a count or number may have.
	Limit uint64
}

// Plan is how Parse reads the lines of one file: one Field per field.
type Plan struct {
	fields []field
}

// field is a Field with its limit as a float too, converted once.
type field struct {
	op     Op
	slot   int
	limit  uint64
	flimit float64
}

// NewPlan returns the plan of fields, one per field of a line, in order.
// A plan of no fields takes no line. It panics on an Op not listed above.
func NewPlan(fields []Field) *Plan {
	p := &Plan{fields: make([]field, len(fields))}
	for j, f := range fields {
		if f.Op > CheckNumber {
			panic(fmt.Sprintf("csvline: field %d: unknown Op %d", j, f.Op))
		}
		p.fields[j] = field{op: f.Op, slot: f.Slot, limit: f.Limit, flimit: float64(f.Limit)}
	}
	return p
}

// Values receives the values of one line, each at its Field's Slot; every
// slot a Field names must lie within its slice.
type Values struct {
	Texts  []string // views of the line: valid as long as its bytes are
	Ints   []int64
	Floats []float64
}

// Parse reads a splittable line (without its line end) per plan p into v,
// and reports whether the line is plain: then every value its plan keeps
// is set, exactly as strconv would read it. A line that is not plain is
// reported false, with v's slots left meaningless; the caller reads it
// with its general parser.
func (p *Plan) Parse(line []byte, v *Values) bool {
	end, i := len(line), 0
	last := len(p.fields) - 1
	if last < 0 {
		return false
	}
	for j := range p.fields {
		f := &p.fields[j]
		var next int // the start of the next field
		switch f.op {
		case Skip, Text, NonEmptyText:
			k := fieldEnd(line, i)
			switch f.op {
			case NonEmptyText:
				if k == i {
					return false
				}
				v.Texts[f.slot] = unsafe.String(unsafe.SliceData(line[i:]), k-i)
			case Text:
				v.Texts[f.slot] = unsafe.String(unsafe.SliceData(line[i:]), k-i)
			}
			next = k + 1
		default:
			mant, length, frac, k := decimalAt(line, i)
			digits := length
			if frac >= 0 {
				digits--
			}
			if digits == 0 || k < end && line[k] != ',' {
				return false
			}
			switch f.op {
			case Count, CheckCount:
				if frac >= 0 || length > 18 || mant > f.limit {
					return false
				}
				if f.op == Count {
					v.Ints[f.slot] = int64(mant)
				}
			case Number:
				if length > 19 || mant >= 1<<53 {
					return false
				}
				x := float64(mant)
				if frac >= 0 {
					x /= pow10[frac]
				}
				if x > f.flimit {
					return false
				}
				v.Floats[f.slot] = x
			case CheckNumber:
				if length > 18 || !decimalAtMost(mant, max(frac, 0), f.limit) {
					return false
				}
			}
			next = k + 1
		}
		// Every field but the last ends at a comma, the last at the end.
		if (next > end) != (j == last) {
			return false
		}
		i = next
	}
	return true
}
