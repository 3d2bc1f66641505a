package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

const exampleSummary = "../cmd/benchnote/internal/cli/testdata/golden/example/summary.json"

func TestDecodeSummaryRoundTrip(t *testing.T) {
	data, err := os.ReadFile(exampleSummary)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSummary(bytes.NewReader(data), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Levels) != 3 || s.Levels[2].Concurrency != 16 || len(s.Levels[0].Runs) != 3 {
		t.Fatalf("decoded %d levels, last %d, %d runs at the first", len(s.Levels), s.Levels[len(s.Levels)-1].Concurrency, len(s.Levels[0].Runs))
	}
	again, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), data) {
		t.Error("decoding and encoding summary.json again changes it")
	}
}

func TestDecodeSummaryErrors(t *testing.T) {
	good := `{"schema":"benchnote.summary/v3","levels":[{"mode":"concurrency","concurrency":4,"runs":["a"],"stats":[{"key":"ttft.p50","per_run":[1]}]}],"runs":[{"dir":"a"}]}`
	tests := []struct {
		name, in, want string
	}{
		{"other schema", `{"schema":"benchnote.summary/v9"}`, `x.json: schema "benchnote.summary/v9", expected "benchnote.summary/v4"`},
		{"no schema", `{"title":"t"}`, `x.json: no "schema" field`},
		{"syntax", `{"schema":`, `x.json:offset 10: unexpected end of JSON input`},
		{"cut after a number", `{"schema":"benchnote.summary/v4","x":1`, `x.json:offset 38: unexpected end of JSON input`},
		{"bad token", `{"schema": tru}`, `x.json:offset 15: invalid character`},
		{"wrong type", `{"schema":"benchnote.summary/v3","levels":[{"concurrency":"four"}]}`, `field "levels.LevelKey.concurrency": expected int, got string`},
		{"trailing data", good + ` {}`, `x.json:offset 161: data after the summary object`},
		{"per-run mismatch", strings.Replace(good, `"per_run":[1]`, `"per_run":[1,2]`, 1), `x.json: levels[0].stats[0] (ttft.p50): 2 per-run values for 1 runs`},
		{"unknown run", strings.Replace(good, `"runs":[{"dir":"a"}]`, `"runs":[{"dir":"b"}]`, 1), `x.json: levels[0].runs[0]: run "a" is not in runs[]`},
		{"levels out of order", `{"schema":"benchnote.summary/v3","levels":[{"mode":"concurrency","concurrency":4},{"mode":"concurrency","concurrency":2}]}`, `levels[1]: concurrency 2 does not follow concurrency 4 (levels must ascend, series by series)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeSummary(strings.NewReader(tt.in), "x.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := DecodeSummary(strings.NewReader(good), "x.json"); err != nil {
		t.Errorf("valid summary refused: %v", err)
	}
}

func FuzzDecodeSummary(f *testing.F) {
	f.Add([]byte(`{"schema":"benchnote.summary/v3","levels":[{"mode":"concurrency","concurrency":4,"runs":["a"],"stats":[{"key":"k","per_run":[null]}]}],"runs":[{"dir":"a"}]}`))
	f.Add([]byte(`{"schema":"benchnote.summary/v3"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s *Summary
		var err error
		fuzzbudget.Check(t, "DecodeSummary", len(data), func() { s, err = DecodeSummary(bytes.NewReader(data), "fuzz.json") })
		if err != nil {
			return
		}
		// Whatever decodes must satisfy the invariants readers rely on.
		for _, l := range s.Levels {
			for _, st := range l.Stats {
				if len(st.PerRun) != len(l.Runs) {
					t.Fatalf("accepted a level whose %s has %d values for %d runs", st.Key, len(st.PerRun), len(l.Runs))
				}
			}
		}
	})
}

// statReader is a reader with a Stat method, as *os.File has, whose size
// can lie; reads counts its Read calls.
type statReader struct {
	io.Reader
	size  int64
	reads *int
}

func (r statReader) Read(p []byte) (int, error) { *r.reads++; return r.Reader.Read(p) }

func (r statReader) Stat() (fs.FileInfo, error) { return fakeInfo{size: r.size}, nil }

type fakeInfo struct {
	fs.FileInfo
	size int64
}

func (i fakeInfo) Size() int64       { return i.size }
func (i fakeInfo) Mode() fs.FileMode { return 0o644 }

// repeat is an endless reader of one byte.
type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestDecodeSummaryBounded: a summary.json too large to read, or whose
// decoded summary would take too much memory, is refused before it is
// decoded, however the JSON is shaped and whatever size the file claims.
func TestDecodeSummaryBounded(t *testing.T) {
	const tooLarge = "x.json: larger than 67108864 bytes (64 MiB): not a summary.json benchnote wrote"
	tooMuch := func(offset int) string {
		return fmt.Sprintf("x.json:offset %d: decoded, the summary would take more than 32 MiB of memory: not a summary.json benchnote wrote", offset)
	}
	// JSON of n elements: prefix, then item n times with a comma between,
	// then suffix.
	repeated := func(prefix, item string, n int, suffix string) io.Reader {
		return io.MultiReader(strings.NewReader(prefix+item), io.LimitReader(strings.NewReader(strings.Repeat(","+item, n-1)), int64(n-1)*int64(len(item)+1)), strings.NewReader(suffix))
	}
	tests := []struct {
		name      string
		in        io.Reader
		size      int64 // the size the file claims; -1: not a file
		want      string
		wantReads int // -1: any
	}{
		{"a file over the bound, refused by its size", strings.NewReader("{}"), 300 << 20, tooLarge, 0},
		{"a file longer than it says", io.MultiReader(strings.NewReader(`{"title":"`), repeat(' ')), 10, tooLarge, -1},
		{"endless white space, no size", repeat(' '), -1, tooLarge, -1},
		{"endless white space in a string", io.MultiReader(strings.NewReader(`{"title":"`), repeat(' ')), -1, tooLarge, -1},
		// 2,040 bytes a run: the 16,449th passes 32 MiB, after 9 + 16,448 × 3 bytes.
		{"a hundred thousand empty runs", repeated(`{"runs":[`, "{}", 100_000, "]}"), -1, tooMuch(9 + 16_448*3), -1},
		// A level (1,560 bytes), a statistic (136) and 8 bytes a value:
		// the 4,194,093rd value passes 32 MiB, after 33 + 4,194,092 × 2
		// bytes.
		{"five million per-run values", repeated(`{"levels":[{"stats":[{"per_run":[`, "0", 5_000_000, "]}]}]}"), -1, tooMuch(33 + 4_194_092*2), -1},
		// A string costs its bytes: refused where it ends.
		{"a 40 MiB title", io.MultiReader(strings.NewReader(`{"title":"`), io.LimitReader(repeat(' '), 40<<20), strings.NewReader(`"}`)), -1, tooMuch(10 + 40<<20 + 1), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			var r io.Reader = tt.in
			if tt.size >= 0 {
				r = statReader{Reader: tt.in, size: tt.size, reads: &reads}
			}
			_, err := DecodeSummary(r, "x.json")
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if tt.wantReads >= 0 && reads != tt.wantReads {
				t.Errorf("%d reads, want %d", reads, tt.wantReads)
			}
		})
	}
}

// TestDecodedSize pins the estimate: a run is 2,040 bytes, a level 1,544,
// a string header 16 and a string's bytes their count; keys match as
// encoding/json matches them, so a key spelt another way costs the same.
func TestDecodedSize(t *testing.T) {
	tests := []struct {
		in   string
		size int64
		err  error
	}{
		{`{"runs":[{},{}]}`, 2 * 2040, nil},
		{`{"title":"abc","unknown":[{},{},"long string"]}`, 3, nil},
		{`{"levels":[{"runs":["a","bc"]}]}`, 1560 + 2*16 + 3, nil},
		{`{"RUNS":[{}]}`, 2040, nil},
		{`{"run\u0073":[{}]}`, 2040, nil},
		{`{"runſ":[{}]}`, 2040, nil}, // ſ folds to s, as encoding/json folds it
		{`{"title":"a\"b\\"}`, 6, nil},
		{`{"title":"","runs":[{}]}`, 2040, nil},                     // a quote right after the opening one
		{`{"title":"a\""}`, 3, nil},                                 // and right after an escaped one
		{`{"runs":[{"import":{"tool":"x"}}]}`, 2040 + 208 + 1, nil}, // a pointer allocates its ImportSummary (4 strings, 6 slices)
		{`{"runs":[{"import":null}]}`, 2040, nil},
		{`{"runs":[{},{}`, 2 * 2040, errMalformed},
		{`{"runs" [`, 0, errMalformed},
		// A number, true, false or null running to the end of the data.
		{`{"title":"a","x":true`, 1, errMalformed},
		{`[1`, 0, errMalformed},
		{`12`, 0, nil},
		{`{"runs":[{},{},{}]}`, 3 * 2040, errTooLarge},
		// Nesting: 10,001 values one inside the other (depths 0 to
		// 10,000; encoding/json, whose limit is 10,000, then refuses
		// them) are read, 10,002 are malformed.
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), 0, nil},
		{strings.Repeat("[", 10002) + strings.Repeat("]", 10002), 0, errMalformed},
		{strings.Repeat(`{"a":`, 10000) + "{}" + strings.Repeat("}", 10000), 0, nil},
		{strings.Repeat(`{"a":`, 10001) + "{}" + strings.Repeat("}", 10001), 0, errMalformed},
	}
	for _, tt := range tests {
		_, size, err := decodedSize([]byte(tt.in), reflect.TypeFor[Summary](), 5000)
		if size != tt.size || err != tt.err {
			t.Errorf("decodedSize(%.40s) = %d, %v; want %d, %v", tt.in, size, err, tt.size, tt.err)
		}
	}
}

// TestReadSummaryOfItsStatedSize: a file of the size it says, or empty, is
// read into one buffer of its size + 1 bytes: one Read fills it short and
// the next says io.EOF, which io.ReadFull reports as io.ErrUnexpectedEOF
// (io.EOF when nothing was read). Both end the read with what it holds.
// An empty summary is then JSON's error at offset 0, not a read error.
func TestReadSummaryOfItsStatedSize(t *testing.T) {
	data, err := os.ReadFile(exampleSummary)
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	s, err := DecodeSummary(statReader{Reader: bytes.NewReader(data), size: int64(len(data)), reads: &reads}, "summary.json")
	if err != nil || len(s.Levels) != 3 || reads != 2 {
		t.Errorf("a file of its stated size: %d levels, %d reads, error %v; want 3 levels, 2 reads, no error", len(s.Levels), reads, err)
	}
	f, err := os.Open(exampleSummary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s, err := DecodeSummary(f, "summary.json"); err != nil || len(s.Levels) != 3 {
		t.Errorf("an *os.File: error %v", err)
	}
	for _, tt := range []struct {
		name string
		in   io.Reader
	}{
		{"an empty file", statReader{Reader: strings.NewReader(""), size: 0, reads: new(int)}},
		{"an empty reader", strings.NewReader("")},
	} {
		const want = "x.json:offset 0: unexpected end of JSON input"
		if _, err := DecodeSummary(tt.in, "x.json"); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", tt.name, err, want)
		}
	}
}

// TestDecodeSummaryBoundedThroughPointers: encoding/json accepts 10,000
// nested arrays and objects, and a pointer is no level of nesting to it.
// Here the 10,000th bracket is reached through two pointer fields
// (configurations, then a series' level) and a run list of 20,000 "{}"s
// (40 MB decoded) follows: the summary is refused before it is decoded,
// as it is without the nesting.
func TestDecodeSummaryBoundedThroughPointers(t *testing.T) {
	// Brackets 1 to 5 open the summary, its configurations, their series
	// list, a series and its level; the value of "x" brings 9,995 more.
	nested := `{"configurations":{"series":[{"level":{"x":` + strings.Repeat("[", 9995) + strings.Repeat("]", 9995) + `}}]},"runs":[`
	in := nested + strings.Repeat("{},", 19999) + "{}]}"
	if !json.Valid([]byte(in)) {
		t.Fatal("encoding/json refuses the input")
	}
	const want = "decoded, the summary would take more than 32 MiB of memory"
	if _, err := DecodeSummary(strings.NewReader(in), "x.json"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}

// TestRateJSON: a rate is a JSON number, +Inf the string "inf"; null and
// any other string are refused.
func TestRateJSON(t *testing.T) {
	for _, tt := range []struct {
		r    Rate
		text string
	}{{2.5, `2.5`}, {16, `16`}, {Rate(math.Inf(1)), `"inf"`}} {
		b, err := json.Marshal(tt.r)
		if err != nil || string(b) != tt.text {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.r, b, err, tt.text)
		}
		var r Rate
		if err := json.Unmarshal([]byte(tt.text), &r); err != nil || r != tt.r {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", tt.text, r, err, tt.r)
		}
	}
	for _, text := range []string{`null`, `"2"`, `"Inf"`} {
		var r Rate
		if err := r.UnmarshalJSON([]byte(text)); err == nil {
			t.Errorf("UnmarshalJSON(%s) = %v, want an error", text, r)
		}
	}
}
