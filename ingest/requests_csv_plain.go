package ingest

import "github.com/benchnote/benchnote/ingest/internal/csvline"

// The plain-line parser is csvline's Plan: it reads most lines of a
// requests.csv in one pass, without splitting them into fields first, and
// gives exactly the values the general parser (csvRowParser.parse) would.
// Here the layout's columns become its fields, and its values a row.

// plainParser is the plain-line parser of one file: the plan for its
// layout, and the row Parse fills in place, line after line (a plain line
// sets every column the file has; a line it declines is not appended).
type plainParser struct {
	plan  *csvline.Plan
	row   csvRow
	texts [numPlainTexts]string
	vals  csvline.Values // views of row's counts and numbers, and of texts
}

// The slots of Values.Texts the plain-line parser fills.
const (
	plainTextID = iota
	plainTextStatus
	numPlainTexts
)

// newPlainParser returns the plain-line parser for layout l, its plan one
// field per file column, or nil when the layout has a column it does not
// read (phase, chunk_ms). Counts and numbers go to their column's slot.
func newPlainParser(l *requestLayout, checkOnly *[numReqColumns]bool) *plainParser {
	fields := make([]csvline.Field, len(l.cols))
	for j, c := range l.cols {
		switch {
		case c == colExtra:
			fields[j] = csvline.Field{Op: csvline.Skip}
		case c == colRequestID:
			fields[j] = csvline.Field{Op: csvline.NonEmptyText, Slot: plainTextID}
		case c == colStatus:
			fields[j] = csvline.Field{Op: csvline.Text, Slot: plainTextStatus}
		case requestColumns[c].kind == kindCount:
			fields[j] = csvline.Field{Op: csvline.Count, Slot: int(c), Limit: uint64(requestColumns[c].max)}
			if checkOnly[c] {
				fields[j].Op = csvline.CheckCount
			}
		case requestColumns[c].kind == kindNumber || requestColumns[c].kind == kindUnixTime:
			fields[j] = csvline.Field{Op: csvline.Number, Slot: int(c), Limit: uint64(requestColumns[c].max)}
			if checkOnly[c] {
				fields[j].Op = csvline.CheckNumber
			}
		default:
			return nil
		}
	}
	pp := &plainParser{plan: csvline.NewPlan(fields)}
	pp.vals = csvline.Values{Texts: pp.texts[:], Ints: pp.row.count[:], Floats: pp.row.num[:]}
	return pp
}

// parsePlain parses line (which starts on line number lineNo, without
// its line end) as a plain line and appends it, or reports false, having
// appended nothing, when the line is not plain or would be excluded.
func (p *csvRowParser) parsePlain(line []byte, lineNo int) bool {
	pp := p.plain
	r := &pp.row
	if !pp.plan.Parse(line, &pp.vals) || r.num[colE2E] < r.num[colTTFT] {
		return false
	}
	r.id, r.status = pp.texts[plainTextID], pp.texts[plainTextStatus]
	p.appendRow(r, lineNo)
	return true
}
