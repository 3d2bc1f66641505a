// Package csvline is the fast path of ingest's CSV reader: it splits and
// parses the lines of a requests.csv that need none of encoding/csv's
// generality, and guards encoding/csv on the rest.
//
// # Contract
//
// A line is splittable (Splittable) when it holds no quote and, with its
// line end, is at most MaxRecordBytes long. Split cuts such a line at its
// commas into exactly the fields encoding/csv (LazyQuotes set) would give.
//
// A splittable line is plain for a Plan when every field its plan reads
// is one Parse is sure of: a number is a run of ASCII digits with at most
// one point and at least one digit (no sign, blank, exponent, NaN or
// Inf), short enough to be read exactly (see Op) and at most its Field's
// Limit; an id is not empty; there is exactly one field per Field. Parse
// gives each value of a plain line exactly as strconv.ParseFloat (a
// number) or strconv.ParseInt (a count) would, bit for bit, and reports
// false for any other line, having written values it leaves meaningless.
// It allocates nothing; texts are views of the line.
//
// CheckDecimal answers, for one field, the question Parse asks of a field
// it only checks.
//
// Guard sits between a file and encoding/csv: it bounds a record to a
// maximum length and reports a quoted field still open at the end of the
// file, which encoding/csv would silently close.
//
// # Fallback
//
// The package decides nothing about a line it is not sure of: it says so,
// and ingest (requests_csv.go) decides, line by line, in two places.
// readCSVFast: a line that is not Splittable sends it and the rest of the
// file to encoding/csv behind Guard. csvState.recordLine: a splittable line
// that Parse declines (or that ingest's own checks, such as E2E below
// TTFT, refuse) goes, whole, to ingest's general row parser over Split's
// fields, so the diagnostics of a bad line are always the general
// parser's. The differential tests beside ingest's reader
// (requests_csv_plain_diff_test.go) hold Parse to the general parser; the
// tests here hold it to strconv.
package csvline
