package importer

// What an import writes must be what ingest reads back unchanged: every
// value inside the ranges of ingest/ranges.go, every row one that ingest
// keeps. A level or setting out of range refuses the file at its JSON
// path; a request whose value is out of range, or that lacks a value
// ingest requires, is left out of the import and counted by reason (as
// ingest excludes and counts the bad rows of a requests file), and the
// count is written into run.yaml and printed.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// Reasons a request is left out of an import; the names are ingest's for
// the rows it excludes.
const (
	reasonOutOfRange = "out of range"
	reasonMissing    = "missing field"
	reasonNegative   = "negative"
	reasonNaNInf     = "nan/inf"
	reasonE2EBelow   = "e2e < ttft"
)

// Excluded counts the requests of a file left out of a run for one
// reason.
type Excluded struct {
	Reason   string
	Requests int
	// First says where in the file the first of them is and what is
	// wrong with it: "$.ttfts[3]: TTFT_ms 20000000000 is above 10,000,000,000".
	First string
}

// formatValue writes a value for a message: plain digits up to 1e21,
// exponent notation beyond.
func formatValue(v float64) string {
	if math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// levelRange checks a concurrency (rate false) or finite request rate
// read at path and returns the error for one above ingest's bound.
func levelRange(file string, record int, path string, v float64, rate bool) error {
	max := int64(ingest.MaxConcurrency)
	if rate {
		max = ingest.MaxRate
	}
	if v > float64(max) && !math.IsInf(v, 1) {
		return &SourceError{File: file, Record: record, Path: path, Msg: fmt.Sprintf("%s is above %s", formatValue(v), textfmt.Thousands(max))}
	}
	return nil
}

// checkLevel is levelRange at j's current path.
func (j *jsonIn) checkLevel(v float64, rate bool) error {
	return levelRange(j.file, j.record, j.path(), v, rate)
}

// unixRange checks a time in Unix seconds read at path.
func unixRange(file string, record int, path string, v float64) error {
	if v < ingest.MinUnixSeconds || v > ingest.MaxUnixSeconds {
		return &SourceError{File: file, Record: record, Path: path,
			Msg: fmt.Sprintf("%s is not a Unix time between 1970 and 9999 (%s to %s seconds)", formatValue(v), textfmt.Thousands(ingest.MinUnixSeconds), textfmt.Thousands(ingest.MaxUnixSeconds))}
	}
	return nil
}

// rowProblem is why a row cannot be written as ingest keeps it.
type rowProblem struct {
	reason, column, msg string
}

// checkCount checks a count ingest reads in column; -1 is a missing value.
func checkCount(column string, v int64, required bool, max int64) (rowProblem, bool) {
	switch {
	case v < 0 && required:
		return rowProblem{reasonMissing, column, column + ": the file gives no value"}, false
	case v > max:
		return rowProblem{reasonOutOfRange, column, fmt.Sprintf("%s %d is above %s", column, v, textfmt.Thousands(max))}, false
	}
	return rowProblem{}, true
}

// checkNumber checks a number ingest reads in column, from 0 to max; NaN
// is a missing value.
func checkNumber(column string, v float64, mayBeEmpty bool, max float64) (rowProblem, bool) {
	switch {
	case v >= 0 && v <= max:
	case math.IsNaN(v) && mayBeEmpty:
	case math.IsNaN(v):
		return rowProblem{reasonMissing, column, column + ": the file gives no value"}, false
	case math.IsInf(v, 0):
		return rowProblem{reasonNaNInf, column, fmt.Sprintf("%s %s is not finite", column, formatValue(v))}, false
	case v < 0:
		return rowProblem{reasonNegative, column, fmt.Sprintf("%s %s is negative", column, formatValue(v))}, false
	default:
		return rowProblem{reasonOutOfRange, column, fmt.Sprintf("%s %s is above %s", column, formatValue(v), textfmt.Thousands(int64(max)))}, false
	}
	return rowProblem{}, true
}

// checkRow finds the first value of r, in ingest's column order, that
// ingest would not keep, or reports ok. A failed request may lack its
// prompt and completion counts and timings, a request without output tokens its
// timings, as ingest allows. (ingest.MinUnixSeconds is 0: a time below it
// is negative.)
func (t *table) checkRow(r *row) (rowProblem, bool) {
	failed := ingest.StatusFailed(r.status)
	noTimings := failed || r.completion == 0
	if p, ok := checkCount("prompt_tokens", r.prompt, !failed, ingest.MaxTokenCount); !ok {
		return p, false
	}
	if p, ok := checkCount("completion_tokens", r.completion, !failed, ingest.MaxTokenCount); !ok {
		return p, false
	}
	if p, ok := checkNumber("TTFT_ms", r.ttft, noTimings, ingest.MaxLatencyMs); !ok {
		return p, false
	}
	if p, ok := checkNumber("E2E_ms", r.e2e, noTimings, ingest.MaxLatencyMs); !ok {
		return p, false
	}
	if t.cols.sent {
		if p, ok := checkNumber("t_request_sent", r.sent, true, ingest.MaxUnixSeconds); !ok {
			return p, false
		}
	}
	if t.cols.first {
		if p, ok := checkNumber("t_first_text", r.first, true, ingest.MaxUnixSeconds); !ok {
			return p, false
		}
	}
	if t.cols.last {
		if p, ok := checkNumber("t_last_text", r.last, true, ingest.MaxUnixSeconds); !ok {
			return p, false
		}
	}
	if t.cols.maxTokens {
		// A request's max_tokens may be any count (clients send large
		// sentinels); only run.yaml's is bounded.
		if p, ok := checkCount("max_tokens", r.maxTokens, false, math.MaxInt64); !ok {
			return p, false
		}
	}
	if t.cols.textChunks {
		if p, ok := checkCount("text_chunks", r.textChunks, false, ingest.MaxTokenCount); !ok {
			return p, false
		}
	}
	if t.cols.chunks {
		for k, c := range r.chunks {
			if p, ok := checkNumber("chunk_ms", c, false, ingest.MaxLatencyMs); !ok {
				p.msg = fmt.Sprintf("chunk_ms element %d: %s", k+1, strings.TrimPrefix(p.msg, "chunk_ms "))
				return p, false
			}
		}
	}
	if r.e2e < r.ttft {
		return rowProblem{reasonE2EBelow, "E2E_ms", fmt.Sprintf("E2E_ms %s is below TTFT_ms %s", formatValue(r.e2e), formatValue(r.ttft))}, false
	}
	return rowProblem{}, true
}
