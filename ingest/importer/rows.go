package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// columns says which optional request columns an importer fills.
type columns struct {
	sent, first, last, status, maxTokens, textChunks, chunks, phase bool
}

// row is one request as an importer found it. Unknown numbers are NaN,
// unknown counts -1.
type row struct {
	id                 string
	prompt, completion int64
	ttft, e2e          float64 // ms
	sent, first, last  float64 // seconds
	status             string
	maxTokens          int64
	textChunks         int64
	chunks             []float64 // ms since sent
	phase              ingest.Phase
}

// newRow returns a row with every value unknown.
func newRow() row {
	nan := math.NaN()
	return row{prompt: -1, completion: -1, ttft: nan, e2e: nan, sent: nan, first: nan, last: nan, maxTokens: -1, textChunks: -1}
}

// table collects rows into ingest.Requests columns, leaving out (and
// counting) the rows ingest would not keep.
type table struct {
	q    *ingest.Requests
	cols columns
	max  int
	file string
	// seen counts the rows offered, kept or not.
	seen int
	// where names, for a message, the place in the file of column's value
	// of the i-th row offered (from 0): a JSON path such as $.ttfts[3].
	// nil names the request by its number.
	where func(i int, column string) string
	// excluded counts the rows left out, by reason, in order of first
	// occurrence.
	excluded []Excluded
}

func newTable(cols columns, capHint int, maxRows int, file string) *table {
	capHint = min(capHint, 1<<20)
	q := &ingest.Requests{
		PromptTokens:     make([]int64, 0, capHint),
		CompletionTokens: make([]int64, 0, capHint),
		TTFTms:           make([]float64, 0, capHint),
		E2Ems:            make([]float64, 0, capHint),
	}
	if cols.sent {
		q.TRequestSent = make([]float64, 0, capHint)
	}
	if cols.first {
		q.TFirstText = make([]float64, 0, capHint)
	}
	if cols.last {
		q.TLastText = make([]float64, 0, capHint)
	}
	if cols.status {
		q.Status = &ingest.StatusColumn{Codes: make([]uint32, 0, capHint)}
	}
	if cols.maxTokens {
		q.MaxTokens = make([]int64, 0, capHint)
	}
	if cols.textChunks {
		q.TextChunks = make([]int64, 0, capHint)
	}
	if cols.chunks {
		q.ChunkOffsets = make([]int32, 1, capHint+1)
		q.ChunkMs = []float64{}
	}
	if cols.phase {
		q.Phase = make([]ingest.Phase, 0, capHint)
	}
	return &table{q: q, cols: cols, max: maxRows, file: file}
}

// add appends r, or leaves it out and counts it when ingest would not
// keep it (see checkRow). A row without an id is numbered by its position
// among the rows offered; the row order is the caller's.
func (t *table) add(r *row) error {
	q := t.q
	if t.seen >= t.max {
		return &SourceError{File: t.file, Msg: fmt.Sprintf("more than %d requests; refusing to import (raise the limit with --max-requests if the file is genuine)", t.max)}
	}
	t.seen++
	if p, ok := t.checkRow(r); !ok {
		t.exclude(p)
		return nil
	}
	if len(q.ChunkMs)+len(r.chunks) > math.MaxInt32 {
		return &SourceError{File: t.file, Msg: fmt.Sprintf("more than %d chunk timings in all; split the file", math.MaxInt32)}
	}
	id := r.id
	if id == "" {
		id = strconv.Itoa(t.seen)
	}
	q.IDs.Append(id)
	q.PromptTokens = append(q.PromptTokens, r.prompt)
	q.CompletionTokens = append(q.CompletionTokens, r.completion)
	q.TTFTms = append(q.TTFTms, r.ttft)
	q.E2Ems = append(q.E2Ems, r.e2e)
	if t.cols.sent {
		q.TRequestSent = append(q.TRequestSent, r.sent)
	}
	if t.cols.first {
		q.TFirstText = append(q.TFirstText, r.first)
	}
	if t.cols.last {
		q.TLastText = append(q.TLastText, r.last)
	}
	if t.cols.status {
		q.Status.Append(r.status)
	}
	if t.cols.maxTokens {
		q.MaxTokens = append(q.MaxTokens, r.maxTokens)
	}
	if t.cols.textChunks {
		q.TextChunks = append(q.TextChunks, r.textChunks)
	}
	if t.cols.chunks {
		q.ChunkMs = append(q.ChunkMs, r.chunks...)
		q.ChunkOffsets = append(q.ChunkOffsets, int32(len(q.ChunkMs)))
	}
	if t.cols.phase {
		q.Phase = append(q.Phase, r.phase)
	}
	q.N++
	return nil
}

// uniqueID returns id when it is neither empty nor taken, else fallback,
// suffixed "~2", "~3", ... should another request hold that too, and
// records the id returned: ingest excludes a request whose id repeats.
// numbered reports the fallback.
func uniqueID(ids map[string]bool, id, fallback string) (_ string, numbered bool) {
	if numbered = id == "" || ids[id]; numbered {
		id = fallback
		for n := 2; ids[id]; n++ {
			id = fallback + "~" + strconv.Itoa(n)
		}
	}
	ids[id] = true
	return id, numbered
}

// exclude counts the row just offered as left out for p.
func (t *table) exclude(p rowProblem) {
	for i := range t.excluded {
		if t.excluded[i].Reason == p.reason {
			t.excluded[i].Requests++
			return
		}
	}
	where := "request " + strconv.Itoa(t.seen)
	if t.where != nil {
		where = t.where(t.seen-1, p.column)
	}
	t.excluded = append(t.excluded, Excluded{Reason: p.reason, Requests: 1, First: where + ": " + p.msg})
}

// lastLine returns the last non-blank line of an error text: the exception
// of a Python traceback, which names what went wrong. Short texts are kept
// whole.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return s
}

// ms converts seconds to milliseconds.
func ms(s float64) float64 { return s * 1000 }

// finiteOrNaN keeps a finite value and turns anything else into NaN.
func finiteOrNaN(v float64) float64 {
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// unixSeconds converts unix seconds to a time, to the nanosecond.
func unixSeconds(s float64) time.Time {
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
}

// unixNs converts unix nanoseconds to a time.
func unixNs(ns int64) time.Time { return time.Unix(0, ns).UTC() }
