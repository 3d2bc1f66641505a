package ingest

import "github.com/benchnote/benchnote/ingest/internal/csvline"

// The plain-line parser is csvline's Plan: it reads most lines of a
// requests.csv in one pass, without splitting them into fields first, and
// gives exactly the values the general parser (csvRowParser.parse) would.
// Here the layout's columns become its fields, and its values a row.

// The slots of Values.Texts the plain-line parser fills.
const (
	plainTextID = iota
	plainTextStatus
	numPlainTexts
)

// plainPlan builds the plain-line parser's plan for layout l, one field
// per file column, or nil when the layout has a column it does not read
// (phase, chunk_ms). Counts and numbers go to their column's slot.
func plainPlan(l *requestLayout, checkOnly *[numReqColumns]bool) *csvline.Plan {
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
	return csvline.NewPlan(fields)
}

// parsePlain parses line (which starts on line number lineNo, without
// its line end) as a plain line and appends it, or reports false, having
// appended nothing, when the line is not plain or would be excluded.
func (p *csvRowParser) parsePlain(line []byte, lineNo int) bool {
	var r csvRow // every column the file has is set by Parse
	var texts [numPlainTexts]string
	v := csvline.Values{Texts: texts[:], Ints: r.count[:], Floats: r.num[:]}
	if !p.plain.Parse(line, &v) || r.num[colE2E] < r.num[colTTFT] {
		return false
	}
	r.id, r.status = texts[plainTextID], texts[plainTextStatus]
	p.appendRow(&r, lineNo)
	return true
}
