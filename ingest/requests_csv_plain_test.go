package ingest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// plainHeader is the header of the sweeps benchnote's benchmarks write:
// the columns a real client writes, and one benchnote does not use.
const plainHeader = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_request_sent,t_first_text,t_last_text,status,max_tokens,text_chunks,extra\n"

// TestParsePlain checks which lines the plain-line parser takes, and
// that a file of each line reads as encoding/csv alone reads it, read
// whole and for the analysis.
func TestParsePlain(t *testing.T) {
	tests := []struct {
		line  string
		taken bool
		// lean is whether it takes the line read for the analysis, where
		// t_first_text and text_chunks are checked but not kept.
		lean bool
	}{
		{"req-1,1223,61,806.259,2533.247,1790000000.000107,1790000000.806366,1790000002.533354,ok,512,61,x", true, true},
		{"r,0,0,0,0,0,0,0,,0,0,", true, true},                     // an empty status and extra field
		{"r,1,2,3.,4.5,.25,6,7,HTTP 500,8,9,x", true, true},       // "3." and ".25"
		{"r,1,2,3,4,5,6,7,é ok,8,9,x", true, true},                // a status in UTF-8
		{"r,1,2,3,4,5,6,7,ok,8,9,a;b c", true, true},              // the extra column is text
		{"r,000000000000000001,2,3,4,5,6,7,ok,8,9,x", true, true}, // 18 characters
		{"r,1,2,3,4,9007199.254740991,6,7,ok,8,9,x", true, true},  // 2^53 − 1 as digits
		{"r,1,2,3,4,1234567890123456789,6,7,ok,8,9,x", false, false},
		{"r,1,2,3,4,9007199.254740992,6,7,ok,8,9,x", false, false},  // 2^53: ParseFloat's
		{"r,1,2,3,4,5,000000000000000012,7,ok,8,9,x", true, true},   // 18 characters
		{"r,1,2,3,4,5,12345678.012345678,7,ok,8,9,x", false, true},  // over 2^53: kept only whole
		{"r,1,2,3,4,5,0000000000000000012,7,ok,8,9,x", true, false}, // 19 characters: checked up to 18
		{"r,1,2,3,4,5,1234567890123456789,7,ok,8,9,x", false, false},
		{"r,1,2,3,4,5,6,7,ok,8,000000001000000000,x", true, true},
		{"r,1,2,3,4,5,6,7,ok,8,1234567890123456789,x", false, false},
		{"r,1,2,3,4,5,6,7,ok,123456789012345678,9,x", true, true},    // max_tokens: any int64
		{"r,1000000000,2,3,4,5,6,7,ok,8,9,x", true, true},            // the most tokens
		{"r,1000000001,2,3,4,5,6,7,ok,8,9,x", false, false},          // out of range
		{"r,1,2,3,4,5,6,7,ok,8,1000000001,x", false, false},          // checked, out of range
		{"r,1,2,3,10000000000,5,6,7,ok,8,9,x", true, true},           // the longest latency
		{"r,1,2,3,10000000001,5,6,7,ok,8,9,x", false, false},         // out of range
		{"r,1,2,3,10000000000.0000009,5,6,7,ok,8,9,x", false, false}, // rounds to 1e10: ParseFloat's
		{"r,1,2,3,4,253402300799,6,7,ok,8,9,x", true, true},          // the end of 9999
		{"r,1,2,3,4,253402300800,6,7,ok,8,9,x", false, false},        // out of range
		{"r,1,2,3,4,5,253402300799,7,ok,8,9,x", true, true},          // checked at the end of 9999
		{"r,1,2,3,4,5,253402300800,7,ok,8,9,x", false, false},        // checked, out of range
		{"r,1,2,3,4,5,253402300799.00001,7,ok,8,9,x", false, false},  // rounds to the end of 9999
		{"r,1,2,3,4,5,6,1790000000000,ok,8,9,x", false, false},       // milliseconds
		{"r,0000000000000000001,2,3,4,5,6,7,ok,8,9,x", false, false}, // a count of 19 characters
		{"r,1.0,2,3,4,5,6,7,ok,8,9,x", false, false},                 // an integral decimal count
		{"r,1,2,3,4,5,6,7,ok,8,9.0,x", false, false},
		{",1,2,3,4,5,6,7,ok,8,9,x", false, false}, // no id
		{"r,1,2,,4,5,6,7,ok,8,9,x", false, false}, // an empty number
		{"r,1,2,3,4,5,,7,ok,8,9,x", false, false},
		{"r,1,2,3,4,5,6,7,HTTP 500,,9,x", false, false},
		{"r,1,2, 3,4,5,6,7,ok,8,9,x", false, false},
		{"r,1,2,3 ,4,5,6,7,ok,8,9,x", false, false},
		{"r,1,2,3,4,5,6,7,ok,8,9", false, false},       // a field short
		{"r,1,2,3,4,5,6,7,ok,8,9,x,y", false, false},   // a field over
		{"r,1,2,3,4,5,6,7,ok,8,9,x,", false, false},    // an empty field over
		{"r,1,2,3,4,5,6,7,ok,8,9", false, false},       // the last number ends the line
		{"r,1,2,5,4,5,6,7,ok,8,9,x", false, false},     // E2E below TTFT
		{"r,-1,2,3,4,5,6,7,ok,8,9,x", false, false},    // negative
		{"r,+1,2,3,4,5,6,7,ok,8,9,x", false, false},    // a sign
		{"r,1,2,3,4,1e3,6,7,ok,8,9,x", false, false},   // an exponent
		{"r,1,2,3,4,NaN,6,7,ok,8,9,x", false, false},   // NaN, taken as missing
		{"r,1,2,3,4,1.2.3,6,7,ok,8,9,x", false, false}, // two points
		{"r,1,2,3,4,.,6,7,ok,8,9,x", false, false},     // no digit
		{"r,1,2,3,4,5,6,7,ok,8,9/,x", false, false},    // '/' and ':' border the digits
		{"r,1,2,3,4,5:,6,7,ok,8,9,x", false, false},
		{"r,1,2,3,4,5\xb5,6,7,ok,8,9,x", false, false},                   // a byte over 0x7F
		{"r,1,2,3,4,5,6,7,ok,8,12345678901234567890123,x", false, false}, // a long run of digits
		{"r,1,2,3,4,5,6,7,ok,8,9\r,x", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			l, ferr := resolveRequestLayout(strings.Split(strings.TrimSuffix(plainHeader, "\n"), ","), "f.csv", 1, "line")
			if ferr != nil {
				t.Fatal(ferr)
			}
			for _, opts := range []ReadOptions{{}, {ForAnalysis: true}} {
				st := newCSVState(l, "f.csv", 1, 1, opts)
				if st.p.plain == nil {
					t.Fatal("no plan for the layout")
				}
				want := tt.taken
				if opts.ForAnalysis {
					want = tt.lean
				}
				if got := st.p.parsePlain([]byte(tt.line), 2); got != want {
					t.Errorf("ForAnalysis %v: parsePlain = %v, want %v", opts.ForAnalysis, got, want)
				}
				if n := st.rf.Requests.N; n != map[bool]int{true: 1, false: 0}[want] {
					t.Errorf("ForAnalysis %v: %d rows appended", opts.ForAnalysis, n)
				}
			}
			data := []byte(plainHeader + tt.line + "\n")
			rf, err := ReadRequestsCSV(bytes.NewReader(data), "f.csv")
			csvMatchesReference(t, data, rf, err)
			if err == nil {
				lean, err := ReadRequestsCSVWith(bytes.NewReader(data), "f.csv", ReadOptions{ForAnalysis: true})
				if err != nil {
					t.Fatal(err)
				}
				reqCheckLean(t, lean, rf)
			}
		})
	}
}

// TestParsePlainLayouts checks which layouts the plain-line parser
// reads: not those with a column it does not parse.
func TestParsePlainLayouts(t *testing.T) {
	tests := []struct {
		header string
		plan   bool
	}{
		{"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms", true},
		{"E2E_ms,TTFT_ms,completion_tokens,prompt_tokens,request_id,unused", true},
		{"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,chunk_ms", false},
		{"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,phase", false},
	}
	for _, tt := range tests {
		l, ferr := resolveRequestLayout(strings.Split(tt.header, ","), "f.csv", 1, "line")
		if ferr != nil {
			t.Fatal(ferr)
		}
		st := newCSVState(l, "f.csv", 1, 1, ReadOptions{})
		if got := st.p.plain != nil; got != tt.plan {
			t.Errorf("%s: plan %v, want %v", tt.header, got, tt.plan)
		}
	}
}

// TestParsePlainRandom reads random files of lines near the plain ones
// (numbers of every length, points, blanks, signs, empty and odd fields)
// and checks each reads as encoding/csv alone reads it; the plain-line
// parser must have taken a good share of the lines, or the test tests
// nothing.
func TestParsePlainRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 17))
	pieces := []string{"", "0", "7", "12", "345", ".", "9007199254740991", "00000000", "123456789", " ", "-", "e", "x", ":", "/", "\xc3\xa9"}
	// number is a field of a number column, or of a count column (where
	// a point is rare).
	number := func(count bool) string {
		if rng.IntN(40) > 0 { // mostly plain
			s := fmt.Sprint(rng.Uint64N(1 << uint(1+rng.IntN(40))))
			if k := rng.IntN(len(s) + 3); k <= len(s) && rng.IntN(map[bool]int{false: 2, true: 20}[count]) == 0 {
				s = s[:k] + "." + s[k:]
			}
			return s
		}
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	taken, lines := 0, 0
	for file := range 200 {
		var data strings.Builder
		data.WriteString(plainHeader)
		for i := range 50 {
			fields := []string{fmt.Sprintf("r%d-%d", file, i)}
			for j := range 7 {
				fields = append(fields, number(j < 2))
			}
			fields = append(fields, "ok", number(true), number(true), "x")
			if rng.IntN(20) == 0 {
				fields = fields[:rng.IntN(len(fields))]
			}
			data.WriteString(strings.Join(fields, ",") + "\n")
		}
		b := []byte(data.String())
		rf, err := ReadRequestsCSV(bytes.NewReader(b), "f.csv")
		csvMatchesReference(t, b, rf, err)
		if t.Failed() {
			t.Fatalf("file:\n%s", b)
		}
		// Count the lines the plain-line parser takes, on its own.
		l, _ := resolveRequestLayout(strings.Split(strings.TrimSuffix(plainHeader, "\n"), ","), "f.csv", 1, "line")
		st := newCSVState(l, "f.csv", 1, 1, ReadOptions{})
		for _, line := range strings.Split(strings.TrimSuffix(data.String(), "\n"), "\n")[1:] {
			lines++
			if st.p.parsePlain([]byte(line), 2) {
				taken++
			}
		}
	}
	if taken < lines/20 || taken == lines {
		t.Fatalf("the plain-line parser took %d of %d lines: the mix tests one parser only", taken, lines)
	}
	t.Logf("the plain-line parser took %d of %d lines", taken, lines)
}
