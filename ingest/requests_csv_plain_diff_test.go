package ingest

// Adversarial checks of parsePlain against the general parser (csvline.Split
// + parse): a line parsePlain takes must be kept by the general parser with
// every value equal bit for bit; a declined line must append nothing.

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest/internal/csvline"
)

// reviewLayouts: the id, a status, a count, a checked column last; odd names.
var reviewLayouts = []string{
	strings.TrimSuffix(plainHeader, "\n"),
	"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms",
	"E2E_ms,extra,TTFT_ms,status,completion_tokens,t_first_text,prompt_tokens,text_chunks,request_id",
	"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status",
	"status,request_id,t_last_text,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,max_tokens",
	" Request_ID ,PROMPT_TOKENS,Completion_Tokens,ttft_MS,e2e_ms,\tT_First_Text",
	"request_id,,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,,",
	"request_id2,TTFT,ttft_ms_x,request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,e2e,status_code",
	"t_request_sent,text_chunks,request_id,max_tokens,prompt_tokens,completion_tokens,E2E_ms,TTFT_ms,t_first_text,t_last_text,status,text",
}

// reviewOpts: whole, for the analysis with ids kept (the re-read) and hashed.
var reviewOpts = []ReadOptions{{}, {ForAnalysis: true}, {ForAnalysis: true, hashIDs: true}}

func reviewLayout(t testing.TB, header string) *requestLayout {
	t.Helper()
	l, ferr := resolveRequestLayout(strings.Split(header, ","), "f.csv", 1, "line")
	if ferr != nil {
		t.Fatalf("%q: %v", header, ferr)
	}
	return l
}

// plainAgainstGeneral runs both parsers on line and fails on any difference;
// bytes follow parsePlain's line in memory, so a read past its end shows.
func plainAgainstGeneral(t testing.TB, l *requestLayout, line string, opts ReadOptions) (taken, kept bool, q *Requests) {
	t.Helper()
	a, b := newCSVState(l, "f.csv", 1, 4, opts), newCSVState(l, "f.csv", 1, 4, opts)
	if a.p.plain == nil {
		t.Fatalf("no plan for %q", l.names)
	}
	b.p.seed = a.p.seed
	buf := []byte(line + "0123456789,9.9,12345678901234567890")
	taken = a.p.parsePlain(buf[:len(line)], 41)
	_, _, bad := b.p.parse(csvline.Split(nil, []byte(line)), 41)
	kept = !bad
	switch {
	case !taken && (a.rf.Requests.N != 0 || len(a.rf.Requests.SourceRow) != 0 || len(a.p.hashes) != 0):
		t.Errorf("%q (%+v): declined, but appended a row", line, opts)
	case taken && !kept:
		t.Errorf("%q (%+v): parsePlain took it, the general parser excludes it", line, opts)
	case taken:
		if d := requestsBitDiff(a.rf.Requests, b.rf.Requests); d != "" || !slices.Equal(a.p.hashes, b.p.hashes) {
			t.Errorf("%q (%+v): plain and general differ: %s (hashes %x, %x)", line, opts, d, a.p.hashes, b.p.hashes)
		}
	}
	if q = b.rf.Requests; taken {
		q = a.rf.Requests
	}
	return taken, kept, q
}

// requestsBitDiff shows a and b when they differ (floats bit for bit).
func requestsBitDiff(a, b *Requests) string {
	bits := func(s []float64) string { // nil apart from empty, as %#v shows the integers
		out := make([]uint64, len(s))
		for i, v := range s {
			out[i] = math.Float64bits(v)
		}
		return fmt.Sprintf("%v%x", s == nil, out)
	}
	status := func(q *Requests) (out []string) { // the texts, then whether there is no column
		for i := range q.Status.Len() {
			out = append(out, q.Status.At(i))
		}
		return append(out, fmt.Sprint(q.Status == nil))
	}
	show := func(q *Requests) string {
		return fmt.Sprintf("%d|%v|%q|%#v|%#v|%#v|%#v|%s|%s|%s|%s|%s|%s|%q|%#v|%#v|%#v|%q", q.N, q.SourceRow, q.IDs.Strings(),
			q.PromptTokens, q.CompletionTokens, q.MaxTokens, q.TextChunks, bits(q.TTFTms), bits(q.E2Ems), bits(q.TRequestSent),
			bits(q.TFirstText), bits(q.TLastText), bits(q.ChunkMs), status(q), q.ChunkOffsets, q.Phase, q.ExtraColumns == nil, q.ExtraColumns)
	}
	if ga, gb := show(a), show(b); ga != gb {
		return "plain " + ga + "\n general " + gb
	}
	return ""
}

// reviewLine is a line of layout l: vals by role, extra in unused columns.
func reviewLine(l *requestLayout, vals map[reqColumn]string, extra string) string {
	fields := make([]string, len(l.cols))
	for j, c := range l.cols {
		if v, ok := vals[c]; ok && c != colExtra {
			fields[j] = v
		} else {
			fields[j] = extra
		}
	}
	return strings.Join(fields, ",")
}

var reviewBase = map[reqColumn]string{colRequestID: "req-1", colPromptTokens: "1223", colCompletionTokens: "61",
	colTTFT: "806.259", colE2E: "2533.247", colTRequestSent: "1790000000.000107", colTFirstText: "1790000000.806366",
	colTLastText: "1790000002.533354", colStatus: "ok", colMaxTokens: "512", colTextChunks: "61"}

// reviewNumbers: lengths to 22 with a point anywhere, 2^53/2^63/2^64 ± 1,
// leading zeros, every byte by digits, signs, words, past float64's range.
func reviewNumbers() []string {
	vals := []string{"", "0", "00", "0.", ".0", ".", "..", "0..", ".5.", "1.2.3", "5.", ".25", "000.000", " 1", "1 ", "\t1",
		"1\t", "+1", "-0", "-1", "1e3", "1E3", "1e-3", "0x10", "0x1p3", "1_000", "NaN", "nan", "Inf", "+Inf", "infinity",
		"1\r", "\r1", "\x001", "1\x00", "١", "1" + strings.Repeat("0", 309), strings.Repeat("9", 400),
		strings.Repeat("0", 400) + "1", "0." + strings.Repeat("0", 400) + "1", strings.Repeat("1", 200) + "." + strings.Repeat("1", 200),
		// The ends of the ranges: tokens, latencies, Unix times; at, past,
		// and past as a decimal that rounds down onto them.
		"1000000000", "1000000001", "1e9", "10000000000", "10000000001", "10000000000.0000009", "10000000000.000002",
		"253402300799", "253402300800", "253402300799.00001", "253402300799.00003", "1790000000000", "1.797e308"}
	var runs []string
	for n := 1; n <= 22; n++ {
		runs = append(runs, strings.Repeat("9", n), strings.Repeat("0", n-1)+"1", strings.Repeat("1234567890", 3)[:n], strings.Repeat("0", n))
	}
	for _, s := range []string{"9007199254740991", "9007199254740992", "9007199254740993", "4503599627370496", "18014398509481984",
		"999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616"} {
		runs = append(runs, s, "0"+s, "00"+s, "000"+s)
	}
	for _, s := range runs {
		vals = append(vals, s)
		for k := 0; k <= len(s); k++ {
			vals = append(vals, s[:k]+"."+s[k:])
		}
	}
	for b := range 256 {
		if c := string([]byte{byte(b)}); b != ',' {
			vals = append(vals, c, "1"+c, c+"1", "1234567"+c, "12345678"+c, "1234567"+c+"9", "123456789"+c, "1."+c, c+".5")
		}
	}
	return vals
}

// TestPlainReviewColumnValues: each value in each number column, rest plain.
func TestPlainReviewColumnValues(t *testing.T) {
	vals := reviewNumbers()
	taken, lines := 0, 0
	for _, header := range reviewLayouts {
		l := reviewLayout(t, header)
		for j, c := range l.cols {
			if c == colExtra || c == colRequestID || c == colStatus {
				continue
			}
			for _, v := range vals {
				row := maps.Clone(reviewBase)
				if row[c] = v; c == colTTFT {
					row[colE2E] = "10000000000" // MaxLatencyMs
				}
				for _, opts := range reviewOpts {
					lines++
					if got, _, _ := plainAgainstGeneral(t, l, reviewLine(l, row, "x"), opts); got {
						taken++
					}
				}
				if t.Failed() {
					t.Fatalf("layout %q, column %d (%s), value %q", header, j+1, l.names[j], v)
				}
			}
		}
	}
	if taken < lines/12 { // about 1 in 11: the rest are not plain, or out of range
		t.Fatalf("parsePlain took %d of %d lines", taken, lines)
	}
}

// TestPlainReviewTextColumns: ids, statuses, extras; zero tokens, E2E ≤ TTFT.
func TestPlainReviewTextColumns(t *testing.T) {
	texts := []string{"", " ", "\t", "ok", "OK", " ok ", "ok\r", "error", "HTTP 500", "timeout: 30s; retried",
		"\x00", "\xff\xfe", "é", "NaN", "-1", "1.5", "\"", "a\"b", "abcdefghijklmnopqrstuvwxyz0123456789", "12345678"}
	timings := [][3]string{{"61", "806.259", "2533.247"}, {"0", "5", "5"}, {"0", "5", "4.999"}, {"2", "5", "5."}, {"2", "5.0000000001", "5"}, {"0", "0", "0"}}
	extras := []string{"x", "", "1e400", "a;b"}
	for _, header := range reviewLayouts {
		l := reviewLayout(t, header)
		for i := range len(texts) * len(texts) * len(extras) * len(timings) {
			row, tm := maps.Clone(reviewBase), timings[i%len(timings)]
			row[colRequestID], row[colStatus] = texts[i/len(timings)%len(texts)], texts[i/len(timings)/len(texts)%len(texts)]
			row[colCompletionTokens], row[colTTFT], row[colE2E] = tm[0], tm[1], tm[2]
			line := reviewLine(l, row, extras[i/len(timings)/len(texts)/len(texts)])
			for _, opts := range reviewOpts {
				plainAgainstGeneral(t, l, line, opts)
			}
			if t.Failed() {
				t.Fatalf("layout %q, line %q", header, line)
			}
		}
	}
}

// TestPlainReviewExact pins what is taken (whole, lean), kept, and its values.
func TestPlainReviewExact(t *testing.T) {
	l := reviewLayout(t, "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_request_sent,t_first_text,text_chunks,status")
	tests := []struct {
		line              string
		whole, lean, kept bool
		sent              float64
	}{
		{"a,1,2,3,4,5,6,7,ok", true, true, true, 5},
		{"a,000000000000000001,2,3,4,5,6,7,ok", true, true, true, 5},                     // a count of 18
		{"a,0000000000000000001,2,3,4,5,6,7,ok", false, false, true, 5},                  // 19: ParseInt's
		{"a,1,2,3,4,900719925.4740991,6,7,ok", true, true, true, 900719925.4740991},      // 2^53 − 1 digits
		{"a,1,2,3,4,900719925.4740992,6,7,ok", false, false, true, 900719925.4740992},    // 2^53: ParseFloat's
		{"a,1,2,3,4,00900719925.4740991,6,7,ok", true, true, true, 900719925.4740991},    // 19 with a point
		{"a,1,2,3,4,000900719925.4740991,6,7,ok", false, false, true, 900719925.4740991}, // 20 with a point
		{"a,1,2,3,4,0000000001790000000,6,7,ok", true, true, true, 1790000000},           // 19 digits
		{"a,1,2,3,4,00000000001790000000,6,7,ok", false, false, true, 1790000000},        // 20
		{"a,1,2,3,4,123456789.01234567,6,7,ok", false, false, true, 123456789.01234567},  // over 2^53
		{"a,1,2,3,4,253402300799,6,7,ok", true, true, true, MaxUnixSeconds},              // the end of 9999
		{"a,1,2,3,4,253402300799.00001,6,7,ok", false, false, true, MaxUnixSeconds},      // rounds down onto it
		{"a,1,2,3,4,253402300800,6,7,ok", false, false, false, 0},                        // past it
		{"a,1,2,3,4,5,253402300799.00001,7,ok", false, false, true, 5},                   // checked: rounds onto it
		{"a,1,2,3,4,5,253402300800,7,ok", false, false, false, 0},                        // checked: past it
		{"a,1000000000,2,3,4,5,6,1000000000,ok", true, true, true, 5},                    // the most tokens
		{"a,1000000001,2,3,4,5,6,7,ok", false, false, false, 0},                          // past them
		{"a,1,2,3,4,5,6,1000000001,ok", false, false, false, 0},                          // checked: past them
		{"a,1,2,3,10000000000,5,6,7,ok", true, true, true, 5},                            // the longest latency
		{"a,1,2,3,10000000000.0000009,5,6,7,ok", false, false, true, 5},                  // rounds down onto it
		{"a,1,2,3,10000000000.000002,5,6,7,ok", false, false, false, 0},                  // the next float
		{"a,1,2,3,10000000001,5,6,7,ok", false, false, false, 0},                         // past it
		{"a,1,2,3,4,5,000000000000000012,7,ok", true, true, true, 5},                     // checked: 18
		{"a,1,2,3,4,5,0000000000000000012,7,ok", true, false, true, 5},                   // checked: 19
		{"a,1,2,3,4,5,6,0000000000000000007,ok", false, false, true, 5},
		{"a,1,2,3,4,5,6,7.,ok", false, false, true, 5},       // "7." as a count
		{"a,1,0,4,3,5,6,7,ok", false, false, false, 0},       // zero tokens, E2E < TTFT
		{"a,1,2,4,3,5,6,7,HTTP 500", false, false, false, 0}, // failed, E2E < TTFT
		{"a,1,2,3,3,5,6,7,", true, true, true, 5},            // E2E = TTFT
		{" ,1,2,3,4,5,6,7,ok", true, true, true, 5},          // a blank id is an id
		{"a,1,2,3,4,5,6,7,ok,", false, false, false, 0},      // a field over
		{"a,1,2,3,4,5,6,7,ok\r", true, true, true, 5},        // a CR in the status is text
		{"a,1,2,3,4,5,6,7\r,ok", false, false, false, 0},     // after a count it is not
	}
	for _, tt := range tests {
		for _, opts := range reviewOpts {
			taken, kept, q := plainAgainstGeneral(t, l, tt.line, opts)
			if want := map[bool]bool{false: tt.whole, true: tt.lean}[opts.ForAnalysis]; taken != want || kept != tt.kept {
				t.Errorf("%q (%+v): taken %v, kept %v; want %v, %v", tt.line, opts, taken, kept, want, tt.kept)
			}
			if tt.kept && (q.N != 1 || q.TRequestSent[0] != tt.sent || q.TTFTms[0] != 3 || q.SourceRow[0] != 41) {
				t.Errorf("%q (%+v): sent %v, TTFT %v, line %v", tt.line, opts, q.TRequestSent, q.TTFTms, q.SourceRow)
			}
		}
	}
}

// TestPlainReviewFiles compares whole files with encoding/csv + parse alone,
// whole and lean: line ends, no final newline, the 1 MiB buffer's edge.
func TestPlainReviewFiles(t *testing.T) {
	const header = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_first_text,text_chunks,status,extra"
	rows := strings.Join([]string{"a,1,2,3,4,5,6,ok,x", "b,1,2,3,4,0000000000000000012,6,ok,x", "c,1,0,4,3,5,6,ok,x",
		"d,1,2,3,4,5,6,HTTP 500,x", "e,1,2,3.,4.5,.25,6,,", "a,1,2,3,4,5,6,ok,x", "f,1,2,3,4,5,6,ok,x,", "g,1,2,3,4,5,6"}, "\n")
	var edge, exact strings.Builder
	edge.WriteString(header + "\n")
	for i := 0; edge.Len() < csvFastBuffer+4096; i++ {
		fmt.Fprintf(&edge, "r%d,%d,%d,%d.%d,%d,%d,%d,ok,%s\n", i, i%977, 1+i%13, i%7, i%1000, 100+i%50, i, i%3, strings.Repeat("y", i%11))
	}
	for exact.WriteString(header + "\n"); exact.Len()+40 < csvFastBuffer; {
		fmt.Fprintf(&exact, "q%d,1,2,3,4,5,6,ok,x\n", exact.Len())
	}
	exact.WriteString("z,1,2,3,4,5,6,ok," + strings.Repeat("w", csvFastBuffer-exact.Len()-17))
	for name, data := range map[string]string{
		"lf": header + "\n" + rows + "\n", "crlf": strings.ReplaceAll(header+"\n"+rows+"\n", "\n", "\r\n"),
		"no final newline": header + "\n" + rows, "final cr": header + "\n" + rows + "\r",
		"two crs": strings.ReplaceAll(header+"\n"+rows+"\n", "\n", "\r\r\n"), "crs at the end": header + "\na,1,2,3,4,5,6,ok,x\r\r",
		"number last": "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,1,2,3,4\nb,1,2,3,4.\nc,1,2,3,.\nd,1,2,3,40",
		"bom":         "\ufeff" + header + "\n" + rows, "edge": edge.String(), "edge, crlf": strings.ReplaceAll(edge.String(), "\n", "\r\n"),
		"exact buffer": exact.String(),
	} {
		t.Run(name, func(t *testing.T) {
			b := []byte(data)
			rf, err := ReadRequestsCSV(bytes.NewReader(b), "f.csv")
			csvMatchesReference(t, b, rf, err)
			lean, err := ReadRequestsCSVWith(bytes.NewReader(b), "f.csv", ReadOptions{ForAnalysis: true})
			ref, refErr := readCSVSlow(bytes.NewReader(b), bytes.NewReader(b), "f.csv", ReadOptions{ForAnalysis: true}, nil, 1)
			if fmt.Sprint(err) != fmt.Sprint(refErr) || err != nil {
				t.Fatalf("ForAnalysis: error %v, encoding/csv alone %v", err, refErr)
			}
			ref.Requests.trimForAnalysis(nil)
			if d := requestsBitDiff(lean.Requests, ref.Requests); d != "" || lean.RowsRead != ref.RowsRead ||
				fmt.Sprint(lean.Excluded, lean.Unlisted) != fmt.Sprint(ref.Excluded, ref.Unlisted) {
				t.Errorf("ForAnalysis: %s; rows %d, %v; encoding/csv alone %d, %v", d, lean.RowsRead, lean.Excluded, ref.RowsRead, ref.Excluded)
			}
		})
	}
}

// FuzzPlainLine compares the parsers on one line in a layout the fuzzer picks.
func FuzzPlainLine(f *testing.F) {
	f.Add(uint8(2), "4,x,3,ok,2,0000000000000000012,1,7,a")
	f.Add(uint8(4), "ok,a,9007199254740991,1,2,3,4.,000000000000000001")
	f.Add(uint8(8), "1.5,2,a,3,4,5,6.,.5,1,2,HTTP 500,t")
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		if !strings.ContainsAny(line, "\n\"") { // else never one plain line
			l := reviewLayout(t, reviewLayouts[int(which)%len(reviewLayouts)])
			for _, opts := range reviewOpts {
				plainAgainstGeneral(t, l, line, opts)
			}
		}
	})
}
