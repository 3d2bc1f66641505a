package cli

// The corrupt-input corpus: every case is a small sweep, the base sweep
// below with the files of testdata/corpus/<case>/ laid over it (or, for
// large or binary inputs, the files corpusGenerated makes). Each case runs
// through validate and report, and the test checks that nothing panics,
// the exit codes, one diagnostic's file:line:column, message and reason,
// the lint finding a case must raise (corpusFindings; report repeats it on
// stderr), the accounting identity rows_read = failed_run_rows + bad_rows +
// accepted (from summary.json) with the rows the case holds, and that a
// previous report at OUT is left untouched when report fails.
//
// To add a case: add testdata/corpus/<name>/ (or a generator), a row to
// corpusCases and, when the lint finds the fault, one to corpusFindings. To see what a case does, run
//
//	go test ./cmd/benchnote/internal/cli -run 'TestCorpus/<name>' -v

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	xparquet "github.com/xitongsys/parquet-go/parquet"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/hostile"
)

// corpusWant is what one corpus case must do.
type corpusWant struct {
	// validate and report are the exit codes.
	validate, report int
	// diag is the start of a line that validate (stdout or stderr) prints,
	// with paths relative to the sweep: "c1/r1/requests.csv:3:6: error: ...".
	diag string
	// reason is the Reason of the diagnostic diag names.
	reason string
	// rows is the accounting's rows_read over the whole sweep (the base
	// runs c1/r2 and c1/r3 hold 8), checked when report writes
	// summary.json.
	rows int
}

// corpusCases lists every case by name. The base sweep alone reads 12 rows
// and validates with exit 1: one warning, that warm-up handling is off
// (runs of four requests never stabilise, so the rule is turned off). A
// failed request (any status but "ok") is an error-rate error (exit 2).
var corpusCases = map[string]corpusWant{
	// CSV
	"csv-bom-crlf":        {1, 0, "", "", 12},
	"csv-quoted-newlines": {2, 0, "", "", 11},
	"csv-nan-inf": {1, 0, `c1/r1/requests.csv:2:4: warning: TTFT_ms: expected a finite number, got "NaN"`,
		"nan/inf", 13},
	"csv-e2e-below-ttft": {1, 0, `c1/r1/requests.csv:2:5: warning: E2E_ms: expected at least TTFT_ms (50), got 40`,
		"e2e < ttft", 10},
	"csv-out-of-range": {1, 0, `c1/r1/requests.csv:2:5: warning: E2E_ms: expected at most 10000000000 (ms, about 116 days), got "1.797e308"`,
		"out of range", 12},
	"csv-duplicate-ids": {1, 0, `c1/r1/requests.csv:3:1: warning: request_id: expected a unique id, got "a", already on line 2`,
		"duplicate request_id", 12},
	"csv-non-utf8": {2, 0, "", "", 10},
	"csv-nul":      {2, 0, `c1/r1/requests.csv:4:2: warning: prompt_tokens: expected a non-negative integer, got "1\x0000"`, "non-numeric", 11},
	"csv-unterminated-quote": {2, 0, `c1/r1/requests.csv:3:6: error: a quoted field opened on line 3 is never closed (it runs to the end of the file, line 5)`,
		"unterminated quote", 12},
	"csv-quote-joins-lines": {1, 0, `c1/r1/requests.csv:2: warning: expected 6 fields as in the header, got 7; field 6 is a quoted field that starts on line 2 and runs over 2 more lines: is a quote unbalanced?`,
		"missing field", 10},
	"csv-header-only": {1, 0, "", "", 8},
	"csv-empty": {2, 0, `c1/r1/requests.csv: error: empty file; expected a header line`,
		"empty file", 8},
	"csv-missing-column": {2, 0, `c1/r1/requests.csv:1: error: missing required columns TTFT_ms, E2E_ms; expected columns`,
		"missing column", 10},
	"csv-bad-numbers": {1, 0, `c1/r1/requests.csv:2:2: warning: prompt_tokens: expected an integer, got "2.7"`,
		"non-numeric", 13},
	"csv-field-count": {1, 0, `c1/r1/requests.csv:2:5: warning: expected 6 fields as in the header, got 4`,
		"missing field", 11},
	"csv-line-too-long": {2, 0, `c1/r1/requests.csv:3: error: record longer than 1048576 bytes`,
		"too large", 11},

	// Parquet
	"parquet-valid": {1, 0, "", "", 14},
	"parquet-bomb": {2, 0, `c1/r1/requests.parquet: error: the footer declares 5,242,880 rows in a file of 1,701 bytes, more than 8 rows per byte`,
		"implausible size", 8},
	"parquet-footer-fewer-rows": {2, 0, `c1/r1/requests.parquet: error: request_id: decoding: the column holds more values than the 4 rows the footer declares`,
		"corrupt parquet", 12},
	"parquet-footer-more-rows": {2, 0, `c1/r1/requests.parquet: error: request_id: decoding: the column holds 6 values, fewer than the 9 rows the footer declares`,
		"corrupt parquet", 17},
	"parquet-footer-negative": {2, 0, `c1/r1/requests.parquet: error: the footer declares a negative row count (-6)`,
		"corrupt parquet", 8},
	"parquet-footer-groups-disagree": {2, 0, `c1/r1/requests.parquet: error: the footer declares 6 rows but its row groups hold 7`,
		"corrupt parquet", 8},
	"parquet-missing-column": {2, 0, `c1/r1/requests.parquet: error: missing required column E2E_ms`,
		"missing column", 14},
	"parquet-misnamed-column": {2, 0, `c1/r1/requests.parquet: error: missing required column TTFT_ms`,
		"missing column", 14},
	"parquet-wrong-type": {2, 0, `c1/r1/requests.parquet: error: TTFT_ms: expected a numeric column, got a column of type binary`,
		"wrong type", 14},
	"parquet-truncated-to-4": {2, 0, `c1/r1/requests.parquet: error: not a readable Parquet file (truncated or corrupt?)`,
		"corrupt parquet", 8},
	"parquet-truncated-half": {2, 0, `c1/r1/requests.parquet: error: not a readable Parquet file (truncated or corrupt?)`,
		"corrupt parquet", 8},
	"parquet-truncated-footer": {2, 0, `c1/r1/requests.parquet: error: not a readable Parquet file (truncated or corrupt?)`,
		"corrupt parquet", 8},
	"parquet-data-cut": {2, 0, `c1/r1/requests.parquet: error: row group 2, column prompt_tokens: page 2's header at byte 561 cannot be read (page header without compressed_page_size); the file is corrupt`,
		"corrupt parquet", 14},
	"parquet-footer-bitflip-rows": {2, 0, `c1/r1/requests.parquet: error: the footer declares`,
		"corrupt parquet", 8},
	"parquet-checksums-valid": {1, 0, "", "", 14},
	"parquet-checksum-mismatch": {2, 0, `c1/r1/requests.parquet: error: row group 1, column prompt_tokens: the page at byte`,
		"corrupt parquet", 14},
	"parquet-footer-bitflip-schema": {2, 0, `c1/r1/requests.parquet: error: not a readable Parquet file (truncated or corrupt?): parquet: could not read footer: *parquet.SchemaElement error reading struct: Required field Name is not set`,
		"corrupt parquet", 8},
	"parquet-footer-bitflip-harmless": {1, 0, "", "", 14},
	"parquet-footer-bitflip-length": {2, 0, `c1/r1/requests.parquet: error: not a readable Parquet file (truncated or corrupt?)`,
		"corrupt parquet", 8},
	"parquet-footer-bitflip-magic": {2, 0, `c1/r1/requests.parquet: error: not a readable Parquet file (truncated or corrupt?)`,
		"corrupt parquet", 8},

	// Scrapes: a scrape that cannot be read is a warning; the run stays.
	"scrape-counter-reset": {2, 0, "", "", 12},
	"scrape-missing-inf":   {1, 0, "", "", 12},
	"scrape-garbage": {1, 0, `c1/r1/metrics-start.prom:1: warning: not valid Prometheus text format 0.0.4:`,
		"unreadable scrape", 12},
	"scrape-empty":                  {1, 0, "", "", 12},
	"scrape-openmetrics-long-label": {1, 0, "", "", 12},
	"scrape-label-too-long": {1, 0, `c1/r1/metrics-end.prom:2:41: warning: label value of 5,000 bytes, longer than the limit of 4,096`,
		"unreadable scrape", 12},
	"scrape-openmetrics-after-eof": {1, 0, `c1/r1/metrics-end.prom:4: warning: not valid OpenMetrics 1.0: unexpected data after # EOF`,
		"unreadable scrape", 12},
	"scrape-line-too-long": {1, 0, `c1/r1/metrics-end.prom:1: warning: line of 70,009 bytes, longer than the limit of 65,536 for a scrape line`,
		"unreadable scrape", 12},
	// Scrape pairs that cannot bracket one window of one server process
	// (the finding each must raise is in corpusFindings); scrape-valid is
	// the same pair without a fault, which raises none.
	"scrape-valid":             {1, 0, "", "", 12},
	"scrape-process-restarted": {2, 0, "", "", 12},
	"scrape-other-model":       {2, 0, "", "", 12},
	"scrape-identical":         {2, 0, "", "", 12},
	"scrape-not-monotonic":     {1, 0, "", "", 12},
	"scrape-two-engines": {2, 0, `c1/r1/metrics-start.prom: error: vllm:generation_tokens_total has 2 series: {engine="0",model_name="m"}, {engine="1",model_name="m"}; set label_selector in sweep.yaml`,
		"several series", 12},

	// Failed requests: 983 of 1,000 in one run.
	"error-rate-983-of-1000": {2, 0, "", "", 1008},

	// sweep.yaml: any problem stops both commands.
	"sweep-duplicate-key":   {2, 2, `sweep.yaml:3:1: error: key "title" given twice (first on line 1)`, "duplicate key", 0},
	"sweep-second-document": {2, 2, `sweep.yaml:2:1: error: a second YAML document starts here`, "bad yaml", 0},
	"sweep-alias":           {2, 2, `sweep.yaml:1:6: error: anchor &j: anchors and aliases are not allowed in settings`, "bad yaml", 0},
	"sweep-alias-bomb":      {2, 2, `sweep.yaml:1:5: error: anchor &a0: anchors and aliases are not allowed in settings`, "bad yaml", 0},
	"sweep-merge-key":       {2, 2, `sweep.yaml:1:7: error: anchor &b: anchors and aliases are not allowed in settings`, "bad yaml", 0},
	"sweep-out-of-range":    {2, 2, `sweep.yaml:2:20: error: counter_tolerance: expected a number in (0, 1), got "2"`, "bad value", 0},
	"sweep-slo-negative": {2, 2, `sweep.yaml:2:12: error: slo.ttft_ms: expected a number in [0, 86,400,000] (milliseconds; 0 disables it), got "-5"`,
		"bad value", 0},
	"sweep-unknown-key": {1, 0, `sweep.yaml:1:1: warning: unknown setting "titel" is ignored`, "unknown setting", 12},
	"sweep-too-large":   {2, 2, `sweep.yaml: error: larger than 1,048,576 bytes, the limit for a settings file`, "too large", 0},
	"sweep-warmup-window-huge": {2, 2, `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "1e10"`,
		"bad value", 0},
	"sweep-warmup-window-fraction": {2, 2, `sweep.yaml:1:39: error: warmup.window: expected an integer from 2 to 1000000, got "2.7"`,
		"bad value", 0},

	// run.yaml: a problem fails the run.
	"run-fractional-concurrency": {2, 0, `c1/r1/run.yaml:1:14: error: concurrency: expected an integer from 1 to 1,000,000, got "2.7"`,
		"bad value", 12},
	"run-duplicate-key": {2, 0, `c1/r1/run.yaml:3:1: error: key "concurrency" given twice (first on line 1)`,
		"duplicate key", 12},
	"run-window-out-of-range": {2, 0, `c1/r1/run.yaml:1:25: error: window.end: expected an RFC 3339 time or unix seconds, between 1970 and 9999, got "1e300"`,
		"bad value", 12},
	"run-alias": {2, 0, `c1/r1/run.yaml:1:9: error: anchor &n: anchors and aliases are not allowed in settings`,
		"bad yaml", 12},

	// Environment logs: read as far as sensible, with a warning.
	"env-yaml-duplicate-key": {1, 0, `env.yaml:3:1: warning: key "gpu" given twice (first on line 1); this one is not read`,
		"duplicate key", 12},
	"env-yaml-alias-bomb": {1, 0, `env.yaml:1:1: warning: YAML aliases expand to more than 100,000 values; the rest of the file is not read`,
		"aliases", 12},
}

// corpusFindings names, for the cases whose fault is found by the lint
// rather than by a reader, the start of the finding validate must print
// ("severity: rule: message"). report must repeat an error or warning
// finding on stderr. The base sweep's own finding (no-warm-up-handling)
// is left out.
var corpusFindings = map[string]string{
	"csv-quoted-newlines":    "error: error-rate: concurrency 1: 1 of 11 measured requests failed (9.091%), above the error-rate threshold of 1%; 1 of 3 runs is above it.",
	"csv-non-utf8":           "error: error-rate: concurrency 1: 1 of 10 measured requests failed (10%), above the error-rate threshold of 1%; 1 of 3 runs is above it.",
	"csv-header-only":        "warning: empty-run: 1 run has no usable request: nothing measured, nothing added to any figure [c1/r1: the requests file has no data row (header only?)]",
	"csv-unterminated-quote": "error: run-failed: 1 run left out of every figure: it could not be used [c1/r1/requests.csv:3:6: error: a quoted field opened on line 3 is never closed",
	"parquet-bomb":           "error: run-failed: 1 run left out of every figure: it could not be used [c1/r1/requests.parquet: error: the footer declares 5,242,880 rows in a file of 1,701 bytes",
	"parquet-missing-column": "error: run-failed: 1 run left out of every figure: it could not be used [c1/r1/requests.parquet: error: missing required column E2E_ms;",
	"scrape-counter-reset":   "error: scrapes-not-one-process: 1 run has start and end scrapes that cannot come from one server process: server throughput and histograms are not reported [c1/r1: counter vllm:generation_tokens_total decreased from 100000 to 30",
	"scrape-missing-inf":     "warning: histogram-without-inf-bucket: 1 run has a server histogram without a +Inf bucket: not a valid Prometheus histogram, so it gives no quantiles (Prometheus's histogram_quantile returns NaN) [c1/r1: vllm:time_to_first_token_seconds]",
	"scrape-empty":           "warning: empty-scrape: 1 run has a scrape with no metric at all (an empty or truncated /metrics dump): server-side figures are unavailable [c1/r1: c1/r1/metrics-start.prom]",
	"scrape-process-restarted": "error: scrapes-not-one-process: 1 run has start and end scrapes that cannot come from one server process: server throughput and histograms are not reported " +
		"[c1/r1: process_start_time_seconds is 2026-11-02T09:50:00Z in the start scrape and 2026-11-02T10:00:30Z in the end scrape]",
	"scrape-other-model": "error: scrapes-not-one-process: 1 run has start and end scrapes that cannot come from one server process: server throughput and histograms are not reported " +
		`[c1/r1: labels {model_name="m"} in the start scrape and {model_name="other"} in the end scrape (vllm:generation_tokens_total, vllm:prompt_tokens_total, vllm:time_to_first_token_seconds)]`,
	"scrape-identical": "error: identical-scrapes: 1 run has identical start and end scrape files, which cannot bracket the window: server throughput and histograms are not reported [c1/r1]",
	"scrape-not-monotonic": "warning: histogram-not-monotonic: 1 run has server histogram buckets whose count over the window is below a lower bucket's: " +
		`each was raised to that count before interpolating, as Prometheus's histogram_quantile does, so the quantiles rest on repaired buckets [c1/r1: vllm:time_to_first_token_seconds le="0.1" 2 raised to 3]`,
	"scrape-two-engines":     "error: several-engines-in-scrape: a metric has several series (engines or models) and no label_selector chooses one; it is not used [c1/r1/metrics-start.prom: error: vllm:generation_tokens_total has 2 series",
	"error-rate-983-of-1000": "error: error-rate: concurrency 1: 983 of 1008 measured requests failed (97.52%), above the error-rate threshold of 1%; 1 of 3 runs is above it. Latency and throughput figures describe only the requests that succeeded [c1/r1 (983 of 1000 measured requests failed, 98.3%)]",
	"sweep-unknown-key":      `warning: unknown-settings: 1 setting benchnote does not know was ignored (a misspelt key?): sweep.yaml:1:1 titel`,
}

// corpusBase is the sweep every case starts from: one level, three runs
// of four requests each with a declared window and no warm-up rule, so
// that validate finds nothing in it but that warm-up handling is off.
var corpusBase = map[string]string{
	"sweep.yaml": "warmup: none\n",
	"c1/r1/requests.csv": "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"a,100,10,50,500,ok\nb,100,10,60,600,ok\nc,100,10,70,700,ok\nd,100,10,80,800,ok\n",
	"c1/r2/requests.csv": "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"e,100,10,50,500,ok\nf,100,10,60,600,ok\ng,100,10,70,700,ok\nh,100,10,80,800,ok\n",
	"c1/r3/requests.csv": "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n" +
		"i,100,10,50,500,ok\nj,100,10,60,600,ok\nk,100,10,70,700,ok\nl,100,10,80,800,ok\n",
	"c1/r1/run.yaml": "window: {start: 1793613600, end: 1793613660}\n",
	"c1/r2/run.yaml": "window: {start: 1793613600, end: 1793613660}\n",
	"c1/r3/run.yaml": "window: {start: 1793613600, end: 1793613660}\n",
}

// corpusGenerated makes the cases too large or too binary to keep as
// files: path in the sweep -> content.
var corpusGenerated = map[string]func() map[string][]byte{
	"csv-line-too-long": func() map[string][]byte {
		return map[string][]byte{"c1/r1/requests.csv": []byte(corpusHeader + "a,1,2,3,4,ok\nb,1,2,3,4," +
			strings.Repeat("x", 2<<20) + "\nc,1,2,3,4,ok\n")}
	},
	"parquet-valid": func() map[string][]byte { return pq(hostile.ParquetRows(6, 3)) },
	"parquet-bomb":  func() map[string][]byte { return pq(hostile.Bomb()) },
	"parquet-footer-fewer-rows": func() map[string][]byte {
		return pq(hostile.SetRowCounts(hostile.ParquetRows(6, 3), 4, []int64{2, 2}))
	},
	"parquet-footer-more-rows": func() map[string][]byte {
		return pq(hostile.SetRowCounts(hostile.ParquetRows(6, 3), 9, []int64{5, 4}))
	},
	"parquet-footer-negative": func() map[string][]byte {
		return pq(hostile.SetRowCounts(hostile.ParquetRows(6, 3), -6, nil))
	},
	"parquet-footer-groups-disagree": func() map[string][]byte {
		return pq(hostile.SetRowCounts(hostile.ParquetRows(6, 3), 6, []int64{3, 4}))
	},
	"parquet-missing-column": func() map[string][]byte {
		return pq(renameColumn(hostile.ParquetRows(6, 3), 4, "E2E"))
	},
	"parquet-misnamed-column": func() map[string][]byte {
		return pq(renameColumn(hostile.ParquetRows(6, 3), 3, "TTFT_s"))
	},
	"parquet-wrong-type": func() map[string][]byte {
		return pq(hostile.RewriteFooter(hostile.ParquetRows(6, 3), func(md *xparquet.FileMetaData) {
			bin := xparquet.Type_BYTE_ARRAY
			md.Schema[4].Type = &bin
		}))
	},
	"parquet-truncated-to-4": func() map[string][]byte { return pq(hostile.ParquetRows(6, 3)[:4]) },
	"parquet-truncated-half": func() map[string][]byte {
		data := hostile.ParquetRows(6, 3)
		return pq(data[:len(data)/2])
	},
	"parquet-truncated-footer": func() map[string][]byte {
		data := hostile.ParquetRows(6, 3)
		return pq(data[:len(data)-9])
	},
	"parquet-data-cut": func() map[string][]byte {
		// The data pages' second half removed, the footer kept.
		data := hostile.ParquetRows(6, 3)
		start, _ := hostile.FooterStart(data)
		return pq(append(append([]byte{}, data[:start/2]...), data[start:]...))
	},
	"parquet-footer-bitflip-rows": func() map[string][]byte {
		// The top bit of the file's num_rows varint: a count the data
		// cannot back.
		data := hostile.SetRowCounts(hostile.ParquetRows(6, 3), 1<<40, nil)
		return pq(data)
	},
	"parquet-checksums-valid": func() map[string][]byte {
		data, _ := hostile.AddPageChecksums(hostile.ParquetRows(6, 3))
		return pq(data)
	},
	"parquet-checksum-mismatch": func() map[string][]byte {
		// One bit of the first prompt_tokens page, in a file whose pages
		// carry checksums.
		data, spans := hostile.AddPageChecksums(hostile.ParquetRows(6, 3))
		for _, s := range spans {
			if s.Column == 1 {
				data[s.Offset+s.Length-1] ^= 0x01
				break
			}
		}
		return pq(data)
	},
	"parquet-footer-bitflip-schema": func() map[string][]byte { return pq(flipFooterBit(17)) },
	// A bit in the field header of prompt_tokens' logical-type annotation:
	// the reader skips the field and reads the column by its physical type
	// (int64), so the file reads as before.
	"parquet-footer-bitflip-harmless": func() map[string][]byte { return pq(flipFooterBit(61)) },
	"parquet-footer-bitflip-length": func() map[string][]byte {
		data := hostile.ParquetRows(6, 3)
		data[len(data)-6] ^= 0x40 // the footer length
		return pq(data)
	},
	"parquet-footer-bitflip-magic": func() map[string][]byte {
		data := hostile.ParquetRows(6, 3)
		data[len(data)-1] ^= 0x01
		return pq(data)
	},
	"scrape-line-too-long": func() map[string][]byte {
		return map[string][]byte{"c1/r1/metrics-end.prom": []byte("# HELP x " + strings.Repeat("h", 70000) + "\n")}
	},
	"error-rate-983-of-1000": func() map[string][]byte {
		var b strings.Builder
		b.WriteString(corpusHeader)
		for i := range 1000 {
			if i < 983 {
				fmt.Fprintf(&b, "r%d,100,0,,,HTTP 500\n", i) // failed requests carry no timings
			} else {
				fmt.Fprintf(&b, "r%d,100,10,50,500,ok\n", i)
			}
		}
		return map[string][]byte{"c1/r1/requests.csv": []byte(b.String())}
	},
	"sweep-too-large": func() map[string][]byte {
		return map[string][]byte{"sweep.yaml": []byte("title: t\n" + strings.Repeat("# padding line\n", 80000))}
	},
}

const corpusHeader = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n"

// pq places a requests.parquet in c1/r1, in place of the base CSV.
func pq(data []byte) map[string][]byte {
	return map[string][]byte{"c1/r1/requests.parquet": data, "c1/r1/requests.csv": nil}
}

// flipFooterBit flips bit 4 of the footer byte at offset off of a valid
// six-row file.
func flipFooterBit(off int) []byte {
	data := hostile.ParquetRows(6, 3)
	start, _ := hostile.FooterStart(data)
	data[start+off] ^= 0x10
	return data
}

// renameColumn renames leaf column col (0-based) of a flat Parquet file.
func renameColumn(data []byte, col int, name string) []byte {
	return hostile.RewriteFooter(data, func(md *xparquet.FileMetaData) {
		md.Schema[col+1].Name = name
		for _, g := range md.RowGroups {
			g.Columns[col].MetaData.PathInSchema = []string{name}
		}
	})
}

// corpusFiles returns a case's files, path in the sweep -> content; a nil
// content removes a base file.
func corpusFiles(t *testing.T, name string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if gen, ok := corpusGenerated[name]; ok {
		files = gen()
	}
	dir := filepath.Join("testdata", "corpus", name)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("case %s has neither testdata/corpus/%s nor a generator", name, name)
	}
	return files
}

// writeSweep writes the base sweep with a case's files over it.
func writeSweep(t *testing.T, root string, files map[string][]byte) {
	t.Helper()
	all := map[string][]byte{}
	for p, s := range corpusBase {
		all[p] = []byte(s)
	}
	for p, data := range files {
		if data == nil {
			delete(all, p)
			continue
		}
		all[p] = data
	}
	for p, data := range all {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runCLI runs the command line in-process, turning a panic into a test
// failure that names the command.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("benchnote %s panicked: %v", strings.Join(args, " "), p)
			}
		}()
		code = Run(args, &out, &errOut)
	}()
	return code, out.String(), errOut.String()
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// reasonOf loads the sweep and returns the Reason of the diagnostic whose
// text starts with diag, "" when there is none.
func reasonOf(t *testing.T, root, diag string) string {
	t.Helper()
	sw, err := ingest.Load(root, ingest.Options{})
	if err != nil {
		if fe, ok := err.(*ingest.FileError); ok && strings.HasPrefix(fe.Error(), diag) {
			return fe.Reason
		}
		return ""
	}
	var all []ingest.Diagnostic
	all = append(all, sw.Diagnostics...)
	for _, r := range sw.Runs {
		all = append(all, r.Diagnostics...)
		if r.Requests != nil {
			all = append(all, r.Requests.Excluded...)
			for _, u := range r.Requests.Unlisted {
				all = append(all, u.Diagnostic(r.Requests.Path))
			}
		}
	}
	for _, d := range all {
		if strings.HasPrefix(d.String(), diag) {
			return d.Reason
		}
	}
	return ""
}

// corpusCounts is the accounting part of summary.json.
type corpusCounts struct {
	RowsRead      int `json:"rows_read"`
	FailedRunRows int `json:"failed_run_rows"`
	BadRows       int `json:"bad_rows"`
	Accepted      int `json:"accepted"`
}

func (c corpusCounts) adds() bool { return c.RowsRead == c.FailedRunRows+c.BadRows+c.Accepted }

func TestCorpus(t *testing.T) {
	// Every case directory has a row, and every row has inputs.
	dirs, err := os.ReadDir(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := corpusCases[d.Name()]; !ok {
			t.Errorf("testdata/corpus/%s has no row in corpusCases", d.Name())
		}
	}

	// A previous report, to check that a failing report leaves it alone.
	work := t.TempDir()
	baseSweep := filepath.Join(work, "base")
	writeSweep(t, baseSweep, nil)
	prior := filepath.Join(work, "prior")
	if code, _, stderr := runCLI(t, "report", baseSweep, "-o", prior); code != ExitClean {
		t.Fatalf("report of the base sweep: exit %d: %s", code, stderr)
	}
	priorFiles := snapshot(t, prior)

	names := make([]string, 0, len(corpusCases))
	for name := range corpusCases {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		want := corpusCases[name]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "sweep")
			writeSweep(t, root, corpusFiles(t, name))

			// validate
			code, stdout, stderr := runCLI(t, "validate", root)
			printed := strings.ReplaceAll(stdout+stderr, filepath.ToSlash(root)+"/", "")
			if code != want.validate {
				t.Errorf("validate exit %d, want %d\n%s", code, want.validate, printed)
			}
			if want.diag != "" {
				found := false
				for _, line := range strings.Split(printed, "\n") {
					line = strings.TrimPrefix(line, "benchnote validate: ")
					found = found || strings.HasPrefix(line, want.diag)
				}
				if !found {
					t.Errorf("validate does not print a line starting\n%s\nit prints:\n%s", want.diag, printed)
				}
				if got := reasonOf(t, root, want.diag); got != want.reason {
					t.Errorf("reason %q, want %q", got, want.reason)
				}
			}

			finding, hasFinding := corpusFindings[name]
			if hasFinding && !slices.ContainsFunc(strings.Split(printed, "\n"), func(l string) bool { return strings.HasPrefix(l, finding) }) {
				t.Errorf("validate does not print a finding starting\n%s\nit prints:\n%s", finding, printed)
			}
			if name == "scrape-valid" {
				// The control of the scrape cases: no finding but the base sweep's.
				for _, l := range strings.Split(printed, "\n") {
					if (strings.HasPrefix(l, "error: ") || strings.HasPrefix(l, "warning: ")) && !strings.HasPrefix(l, "warning: no-warm-up-handling: ") {
						t.Errorf("unexpected finding %q", l)
					}
				}
			}

			// report, over a copy of a previous report
			out := filepath.Join(dir, "out")
			copyDir(t, prior, out)
			code, _, stderr = runCLI(t, "report", root, "-o", out)
			if code != want.report {
				t.Errorf("report exit %d, want %d; stderr:\n%s", code, want.report, stderr)
			}
			if hasFinding && code == ExitClean {
				repeated := strings.ReplaceAll(stderr, filepath.ToSlash(root)+"/", "")
				if !slices.ContainsFunc(strings.Split(repeated, "\n"), func(l string) bool { return strings.HasPrefix(l, "benchnote report: "+finding) }) {
					t.Errorf("report does not repeat the finding on stderr\n%s\nstderr:\n%s", finding, stderr)
				}
			}
			if code != ExitClean {
				if got := snapshot(t, out); fmt.Sprint(got) != fmt.Sprint(priorFiles) {
					t.Errorf("report failed and changed the previous report at OUT")
				}
				return
			}
			var summary struct {
				Runs []struct {
					Dir    string       `json:"dir"`
					Counts corpusCounts `json:"counts"`
				} `json:"runs"`
				Accounting struct {
					Requests corpusCounts `json:"requests"`
				} `json:"accounting"`
			}
			data, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &summary); err != nil {
				t.Fatal(err)
			}
			total := summary.Accounting.Requests
			if !total.adds() || total.RowsRead != want.rows {
				t.Errorf("accounting %+v: want rows_read %d = failed_run_rows + bad_rows + accepted", total, want.rows)
			}
			for _, r := range summary.Runs {
				if !r.Counts.adds() {
					t.Errorf("run %s: counts %+v do not add up", r.Dir, r.Counts)
				}
			}
		})
	}
}

// copyDir copies the regular files under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	for rel, data := range snapshot(t, src) {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
