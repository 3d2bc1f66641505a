package csvline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// testPlan is the plan of the lines of these tests: an id, a count, two
// numbers (a latency, a Unix time), a checked count and number, a status
// and a column not read.
var testPlan = []Field{
	{Op: NonEmptyText, Slot: 0},
	{Op: Count, Slot: 0, Limit: maxTokens},
	{Op: Number, Slot: 0, Limit: maxLatencyMs},
	{Op: Number, Slot: 1, Limit: maxUnixSeconds},
	{Op: CheckCount, Limit: maxTokens},
	{Op: CheckNumber, Limit: maxUnixSeconds},
	{Op: Text, Slot: 1},
	{Op: Skip},
}

// parsed is what Parse gave for a line.
type parsed struct {
	ok     bool
	texts  [2]string
	ints   [1]int64
	floats [2]float64
}

func parseLine(p *Plan, line string) parsed {
	var r parsed
	v := Values{Texts: r.texts[:], Ints: r.ints[:], Floats: r.floats[:]}
	// Bytes follow the line in memory, so a read past its end shows.
	buf := []byte(line + "0123456789,9.9,12345678901234567890")
	r.ok = p.Parse(buf[:len(line)], &v)
	return r
}

// TestParse pins which lines are plain and their values.
func TestParse(t *testing.T) {
	p := NewPlan(testPlan)
	tests := []struct {
		line   string
		ok     bool
		count  int64
		floats [2]float64
		status string
	}{
		{"req-1,1223,806.259,1790000000.000107,61,1790000002.533354,ok,x", true, 1223, [2]float64{806.259, 1790000000.000107}, "ok"},
		{"r,0,0,0,0,0,,", true, 0, [2]float64{0, 0}, ""},
		{"r,1,3.,.25,9,7,HTTP 500,a;b", true, 1, [2]float64{3, 0.25}, "HTTP 500"},
		{" ,1,2,3,4,5,é ok\r,x", true, 1, [2]float64{2, 3}, "é ok\r"},                           // a blank id is an id; a status is any text
		{"r,000000000000000001,2,3,4,5,ok,x", true, 1, [2]float64{2, 3}, "ok"},                  // a count of 18 characters
		{"r,1,2,9007199.254740991,4,5,ok,x", true, 1, [2]float64{2, 9007199.254740991}, "ok"},   // 2^53 − 1 as digits
		{"r,1,2,00900719925.4740991,4,5,ok,x", true, 1, [2]float64{2, 900719925.4740991}, "ok"}, // 19 characters with a point
		{"r,1000000000,10000000000,253402300799,1000000000,253402300799,ok,x", true, 1000000000, [2]float64{1e10, 253402300799}, "ok"},
		{"r,1,2,3,4,0000000000000000012,ok,x", false, 0, [2]float64{}, ""},  // a checked number of 19 characters
		{"r,1,2,9007199.254740992,4,5,ok,x", false, 0, [2]float64{}, ""},    // 2^53: ParseFloat's
		{"r,1,2,000900719925.4740991,4,5,ok,x", false, 0, [2]float64{}, ""}, // 20 characters
		{"r,0000000000000000001,2,3,4,5,ok,x", false, 0, [2]float64{}, ""},  // a count of 19 characters
		{"r,1000000001,2,3,4,5,ok,x", false, 0, [2]float64{}, ""},           // past the count's limit
		{"r,1,10000000000.0000009,3,4,5,ok,x", false, 0, [2]float64{}, ""},  // rounds down onto the limit
		{"r,1,2,3,4,253402300799.00001,ok,x", false, 0, [2]float64{}, ""},   // checked: rounds onto the limit
		{"r,1,2,3,1000000001,5,ok,x", false, 0, [2]float64{}, ""},           // checked: past the limit
		{"r,1.0,2,3,4,5,ok,x", false, 0, [2]float64{}, ""},                  // an integral decimal count
		{"r,1,2,3,4.,5,ok,x", false, 0, [2]float64{}, ""},                   // a checked count with a point
		{",1,2,3,4,5,ok,x", false, 0, [2]float64{}, ""},                     // no id
		{"r,1,,3,4,5,ok,x", false, 0, [2]float64{}, ""},                     // an empty number
		{"r,1,.,3,4,5,ok,x", false, 0, [2]float64{}, ""},                    // no digit
		{"r,1, 2,3,4,5,ok,x", false, 0, [2]float64{}, ""},                   // a blank
		{"r,1,2 ,3,4,5,ok,x", false, 0, [2]float64{}, ""},
		{"r,-1,2,3,4,5,ok,x", false, 0, [2]float64{}, ""},    // a sign
		{"r,1,1e3,3,4,5,ok,x", false, 0, [2]float64{}, ""},   // an exponent
		{"r,1,NaN,3,4,5,ok,x", false, 0, [2]float64{}, ""},   // NaN
		{"r,1,1.2.3,3,4,5,ok,x", false, 0, [2]float64{}, ""}, // two points
		{"r,1,2:,3,4,5,ok,x", false, 0, [2]float64{}, ""},    // ':' borders the digits
		{"r,1,2\xb5,3,4,5,ok,x", false, 0, [2]float64{}, ""}, // a byte over 0x7F
		{"r,1,2,3,4,5\r,ok,x", false, 0, [2]float64{}, ""},   // a carriage return after a number
		{"r,1,2,3,4,5,ok", false, 0, [2]float64{}, ""},       // a field short
		{"r,1,2,3,4,5,ok,x,y", false, 0, [2]float64{}, ""},   // a field over
		{"r,1,2,3,4,5,ok,x,", false, 0, [2]float64{}, ""},    // an empty field over
		{"", false, 0, [2]float64{}, ""},                     // an empty line
	}
	for _, tt := range tests {
		got := parseLine(p, tt.line)
		if got.ok != tt.ok {
			t.Errorf("Parse(%q) = %v, want %v", tt.line, got.ok, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		id := tt.line[:strings.IndexByte(tt.line, ',')]
		if got.texts != [2]string{id, tt.status} || got.ints[0] != tt.count || got.floats != tt.floats {
			t.Errorf("Parse(%q): texts %q, ints %v, floats %v; want %q, %v, %v", tt.line, got.texts, got.ints, got.floats,
				[2]string{id, tt.status}, tt.count, tt.floats)
		}
	}
}

// TestParseNoFields: a plan of no fields takes no line.
func TestParseNoFields(t *testing.T) {
	for _, line := range []string{"", "a", ","} {
		if parseLine(NewPlan(nil), line).ok {
			t.Errorf("the empty plan took %q", line)
		}
	}
}

// TestNewPlanUnknownOp: an Op past CheckNumber is a programming error.
func TestNewPlanUnknownOp(t *testing.T) {
	defer func() {
		if r := recover(); fmt.Sprint(r) != "csvline: field 1: unknown Op 7" {
			t.Errorf("panic %v", r)
		}
	}()
	NewPlan([]Field{{Op: Skip}, {Op: CheckNumber + 1}})
}

// agreesWithStrconv fails unless a line Parse took under testPlan holds
// the values strconv reads from its fields, within their limits.
func agreesWithStrconv(t *testing.T, line string, got parsed) {
	t.Helper()
	if !got.ok {
		return
	}
	fields := strings.Split(line, ",")
	if !Splittable([]byte(line)) || len(fields) != len(testPlan) {
		t.Fatalf("Parse took %q: not splittable, or %d fields", line, len(fields))
	}
	for j, f := range testPlan {
		s := fields[j]
		switch f.Op {
		case NonEmptyText, Text:
			if got.texts[f.Slot] != s || f.Op == NonEmptyText && s == "" {
				t.Fatalf("Parse(%q): text %d is %q", line, j, got.texts[f.Slot])
			}
		case Count, CheckCount:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 || uint64(n) > f.Limit || f.Op == Count && got.ints[f.Slot] != n {
				t.Fatalf("Parse(%q): field %d: ParseInt gives %d, %v; Parse %v", line, j, n, err, got.ints)
			}
		case Number, CheckNumber:
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || x < 0 || x > float64(f.Limit) ||
				f.Op == Number && math.Float64bits(got.floats[f.Slot]) != math.Float64bits(x) {
				t.Fatalf("Parse(%q): field %d: ParseFloat gives %v, %v; Parse %v", line, j, x, err, got.floats)
			}
		}
	}
}

// TestParseMatchesStrconv reads random lines near the plain ones (numbers
// of every length, points, blanks, signs, empty and odd fields) and checks
// every line Parse takes against strconv; Parse must have taken a good
// share of them, and declined a good share, or the test tests nothing.
func TestParseMatchesStrconv(t *testing.T) {
	p := NewPlan(testPlan)
	rng := rand.New(rand.NewPCG(8, 17))
	odd := []string{"", " ", "-", "+", "e3", "x", ":", "/", "..", "\xc3\xa9", "NaN"}
	// number is a run of 1 to 9 digits, or now and then of up to 22,
	// sometimes with a point (rarely in a count), now and then with
	// something odd spliced in.
	number := func(count bool) string {
		n := 1 + rng.IntN(9)
		if rng.IntN(8) == 0 {
			n = 1 + rng.IntN(22)
		}
		b := make([]byte, n)
		for k := range b {
			b[k] = byte('0' + rng.IntN(10))
		}
		if rng.IntN(map[bool]int{false: 2, true: 30}[count]) == 0 {
			k := rng.IntN(len(b) + 1)
			b = append(b[:k], append([]byte{'.'}, b[k:]...)...)
		}
		s := string(b)
		if rng.IntN(25) == 0 {
			k := rng.IntN(len(s) + 1)
			s = s[:k] + odd[rng.IntN(len(odd))] + s[k:]
		}
		return s
	}
	taken, lines := 0, 20000
	for i := range lines {
		fields := []string{fmt.Sprintf("r%d", i), number(true), number(false), number(false), number(true), number(false), "ok", "x"}
		if rng.IntN(20) == 0 {
			fields = fields[:rng.IntN(len(fields))]
		}
		line := strings.Join(fields, ",")
		got := parseLine(p, line)
		agreesWithStrconv(t, line, got)
		if got.ok {
			taken++
		}
	}
	t.Logf("Parse took %d of %d lines", taken, lines)
	if taken < lines/20 || taken > lines*19/20 {
		t.Fatalf("Parse took %d of %d lines: the mix tests one side only", taken, lines)
	}
}

// FuzzParse checks every line Parse takes against strconv.
func FuzzParse(f *testing.F) {
	f.Add("req-1,1223,806.259,1790000000.000107,61,1790000002.533354,ok,x")
	f.Add("r,000000000000000001,2,9007199.254740991,4,0000000000000000012,ok,x")
	f.Add("r,1,10000000000.0000009,253402300799,1000000000,253402300799.00001,,")
	p := NewPlan(testPlan)
	f.Fuzz(func(t *testing.T, line string) {
		if Splittable([]byte(line)) && !strings.Contains(line, "\n") {
			agreesWithStrconv(t, line, parseLine(p, line))
		}
	})
}

// BenchmarkParse parses lines like those a client writes, per testPlan.
func BenchmarkParse(b *testing.B) {
	p := NewPlan(testPlan)
	lines := make([][]byte, 1024)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, "req-%d-%d,%d,%d.%03d,1790000000.%06d,%d,1790000002.%06d,ok,x",
			i%5, i, 100+i%1900, 20+i%900, i%1000, i*7919%1000000, 1+i%500, i*104729%1000000)
	}
	var r parsed
	v := Values{Texts: r.texts[:], Ints: r.ints[:], Floats: r.floats[:]}
	b.ReportAllocs()
	for b.Loop() {
		for _, line := range lines {
			if !p.Parse(line, &v) {
				b.Fatalf("not plain: %q", line)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}
