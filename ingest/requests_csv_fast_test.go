package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// csvMatchesReference fails unless rf and err, from ReadRequestsCSV on
// data, are what encoding/csv alone (readCSVSlow from the first line)
// gives: the same rows, exclusions and error.
func csvMatchesReference(t *testing.T, data []byte, rf *RequestFile, err error) {
	t.Helper()
	ref, refErr := readCSVSlow(bytes.NewReader(data), bytes.NewReader(data), "f.csv", ReadOptions{}, nil, 1)
	if fmt.Sprint(err) != fmt.Sprint(refErr) {
		t.Fatalf("error %v, encoding/csv alone %v", err, refErr)
	}
	if refErr != nil {
		return
	}
	reqCheckRequests(t, rf.Requests, ref.Requests)
	if rf.RowsRead != ref.RowsRead || !reflect.DeepEqual(rf.Excluded, ref.Excluded) || !reflect.DeepEqual(rf.Unlisted, ref.Unlisted) {
		t.Errorf("rows read %d, excluded %v, unlisted %v; encoding/csv alone %d, %v, %v",
			rf.RowsRead, rf.Excluded, rf.Unlisted, ref.RowsRead, ref.Excluded, ref.Unlisted)
	}
}

// TestCSVFastPathMatchesEncodingCSV reads files the line splitter takes
// whole and files it hands on to encoding/csv part-way, both ways.
func TestCSVFastPathMatchesEncodingCSV(t *testing.T) {
	const header = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,t_request_sent\n"
	row := func(i int) string {
		return fmt.Sprintf("r%d,%d,%d,%d.5,%d.25,ok,%d.125\n", i, 10+i%7, 2+i%5, 40+i%3, 900+i%11, 1790000000+i)
	}
	var many strings.Builder
	many.WriteString(header)
	for i := range 60_000 { // about 2.5 MB: lines cross the 1 MiB buffer's edges
		many.WriteString(row(i))
	}
	long := header + row(1) + "r2,1,2,3,4,ok," + strings.Repeat("9", 2<<20) + "\n" + row(3)
	tests := []struct{ name, data string }{
		{"plain", header + row(1) + row(2)},
		{"many rows", many.String()},
		{"crlf", strings.ReplaceAll(header+row(1)+row(2), "\n", "\r\n")},
		{"bom", "\ufeff" + header + row(1)},
		{"two boms", "\ufeff\ufeff" + header + row(1)},
		{"bom, quoted header", "\ufeff\"request_id\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,1,2,3,4\n"},
		{"quoted header after blank lines", "\n\n\"request_id\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,1,2,3,4\n"},
		{"quote mid-file", header + row(1) + "\"r2\",1,2,3,4,ok,5\n" + row(3)},
		{"quoted newline mid-file", header + row(1) + "\"r\n2\",1,2,3,4,ok,5\n" + row(3)},
		{"unterminated quote", header + row(1) + "r2,1,2,3,4,\"ok,5\n" + row(3) + row(4)},
		{"stray quote inside a field", header + "r1,1,2,3,4,o\"k,5\n"},
		{"blank and space lines", header + "\n" + row(1) + "   \n\r\n" + row(2)},
		{"no final newline", header + row(1) + strings.TrimSuffix(row(2), "\n")},
		{"final carriage return", header + row(1) + strings.TrimSuffix(row(2), "\n") + "\r"},
		{"carriage return inside a field", header + "r1,1,2,3,4,o\rk,5\n"},
		{"field counts", header + "r1,1,2\n" + "r2,1,2,3,4,ok,5,6\n" + ",,,,,,\n"},
		{"bad values", header + "r1,x,2,3,4,ok,5\nr2,1,2,3,-4,ok,5\nr3,1,2,NaN,4,ok,5\nr4,1,2,30,4,ok,5\n"},
		{"failed and zero-token rows", header + "r1,1,,,,HTTP 500,5\nr2,1,0,,,ok,6\n"},
		{"duplicate ids", header + row(1) + row(1) + row(2)},
		{"NUL and bad UTF-8", header + "r\x001,1,2,3,4,o\xffk,5\n"},
		{"line over a record's limit", long},
		{"header only", header},
		{"empty", ""},
		{"blank lines only", "\n\r\n\n"},
		{"bom only", "\ufeff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			rf, err := ReadRequestsCSV(bytes.NewReader(data), "f.csv")
			csvMatchesReference(t, data, rf, err)
		})
	}
}

// TestCSVForAnalysis checks that a file read for the analysis gives the
// rows of a full read without the columns the analysis does not keep,
// and the same exclusions, including bad values in those columns.
func TestCSVForAnalysis(t *testing.T) {
	data := []byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_first_text,text_chunks\n" +
		"a,1,2,3,4,5.5,2\nb,1,2,3,4,-5,2\nc,1,2,3,4,,2.5\nd,1,2,3,4,NaN,\ne,1,2,3,4,1e400,2\nf,1,2,3,4,77,x\n")
	full, err := ReadRequestsCSV(bytes.NewReader(data), "f.csv")
	if err != nil {
		t.Fatal(err)
	}
	lean, err := ReadRequestsCSVWith(bytes.NewReader(data), "f.csv", ReadOptions{ForAnalysis: true})
	if err != nil {
		t.Fatal(err)
	}
	reqCheckLean(t, lean, full)
	if lean.RowsRead != 6 || len(lean.Excluded) != 4 || lean.Requests.N != 2 {
		t.Errorf("ForAnalysis: %d rows read, %d kept, excluded %v; full read excluded %v", lean.RowsRead, lean.Requests.N, lean.Excluded, full.Excluded)
	}
}

// TestParseNumberEightDigitRuns compares parseNumber with ParseFloat on
// decimals whose digits come in runs of eight and more, and on strings that
// look like them but are not numbers.
func TestParseNumberEightDigitRuns(t *testing.T) {
	cases := []string{"12345678", "123456789", "1790000000.000459", "12345678.", "12345678.87654321", "99999999",
		"00000000", "0000000000000000001", "1234567.8", "1790000003.182628"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		intDigits, fracDigits := rng.IntN(17), rng.IntN(12)
		var b strings.Builder
		for range intDigits {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if fracDigits > 0 || intDigits == 0 {
			b.WriteByte('.')
			for range max(fracDigits, 1) {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		got, p := parseNumber(s)
		want, err := parseFloatRef(s)
		if p != probNone || err != nil || got != want {
			t.Fatalf("parseNumber(%q) = %v, %v; ParseFloat = %v, %v", s, got, p, want, err)
		}
	}
	for _, s := range []string{"1234567a", "12345678a", "1234567:", "123456789/", "12.345678.9", "1e12345678"} {
		if _, p := parseNumber(s); p == probNone {
			t.Errorf("parseNumber(%q) accepted it", s)
		}
	}
}

// failingReader returns data in reads of at most chunk bytes, then err.
type failingReader struct {
	data  []byte
	chunk int
	err   error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestCSVFastPathReaderErrors checks that a reader's failure is reported
// as encoding/csv reports it, on the line after the last record, whatever
// the error: a reader's own io.ErrUnexpectedEOF (a cut gzip stream, a cut
// download) used to pass for the end of the file, and the cut last line
// for a row with too few fields.
func TestCSVFastPathReaderErrors(t *testing.T) {
	const header = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"
	var long strings.Builder // the cut comes after the first 1 MiB buffer
	long.WriteString(header)
	for i := range 80_000 {
		fmt.Fprintf(&long, "r%d,1,2,3,4\n", i)
	}
	for _, tt := range []struct {
		data string
		want string
	}{
		{header + "r1,1,2,3,4\nr2,1,2,3,4\nr3,1,", "f.csv:4: error: reading line 4: "},
		{long.String() + "r,1,", "f.csv:80002: error: reading line 80002: "},
	} {
		for _, e := range []error{io.ErrUnexpectedEOF, errors.New("input/output error")} {
			for _, chunk := range []int{7, 1 << 20} {
				_, err := ReadRequestsCSV(&failingReader{[]byte(tt.data), chunk, e}, "f.csv")
				_, refErr := readCSVSlow(&failingReader{[]byte(tt.data), chunk, e}, nil, "f.csv", ReadOptions{}, nil, 1)
				if want := tt.want + e.Error(); fmt.Sprint(err) != want || fmt.Sprint(refErr) != want {
					t.Errorf("%v after %d bytes in reads of %d: got %v, encoding/csv %v; want %q", e, len(tt.data), chunk, err, refErr, want)
				}
			}
		}
	}
}

// TestCSVForAnalysisDuplicateIDs checks the hashed ids of a read for the
// analysis: a file without duplicates is read once, its ids never kept;
// one with a duplicate id (rows c and e repeat a) is read again keeping
// them, and gives the full read's rows and exclusions, the duplicates
// named with the line of their first occurrence. A reader that cannot
// seek keeps the ids from the start, with the same result.
func TestCSVForAnalysisDuplicateIDs(t *testing.T) {
	const header = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"
	for _, tt := range []struct {
		name     string
		rows     string
		kept     int
		excluded []string // the duplicate rows' lines and first lines
	}{
		{"unique", "a,1,2,3,4\nb,1,2,3,4\nc,1,2,3,4\n", 3, nil},
		{"duplicates", "a,1,2,3,4\nb,1,2,3,4\na,1,2,3,4\nd,1,2,3,4\na,1,2,3,4\n", 3, []string{"line 4 (first on 2)", "line 6 (first on 2)"}},
	} {
		data := []byte(header + tt.rows)
		full, err := ReadRequestsCSV(bytes.NewReader(data), "f.csv")
		if err != nil {
			t.Fatal(err)
		}
		var dups []string
		for _, d := range full.Excluded {
			var first int
			fmt.Sscanf(d.Message[strings.LastIndex(d.Message, " ")+1:], "%d", &first)
			dups = append(dups, fmt.Sprintf("line %d (first on %d)", d.Line, first))
		}
		if !reflect.DeepEqual(dups, tt.excluded) || full.Requests.N != tt.kept {
			t.Fatalf("%s: full read kept %d, excluded %v; want %d, %v", tt.name, full.Requests.N, dups, tt.kept, tt.excluded)
		}
		for _, r := range []io.Reader{bytes.NewReader(data), struct{ io.Reader }{bytes.NewReader(data)}} {
			lean, err := ReadRequestsCSVWith(r, "f.csv", ReadOptions{ForAnalysis: true})
			if err != nil {
				t.Fatal(err)
			}
			reqCheckLean(t, lean, full)
			if lean.idsRepeat {
				t.Errorf("%s (%T): %d rows read, excluded %v, ids repeat %v; full read %d, %v", tt.name, r, lean.RowsRead, lean.Excluded, lean.idsRepeat, full.RowsRead, full.Excluded)
			}
		}
	}
}
