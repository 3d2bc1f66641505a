package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xparquet "github.com/xitongsys/parquet-go/parquet"

	"github.com/benchnote/benchnote/internal/hostile"
	"github.com/benchnote/benchnote/internal/textfmt"
)

const reqHeader = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\n"

// TestReadRequestsCSVGuard covers what csvGuard refuses and what it lets
// through unchanged.
func TestReadRequestsCSVGuard(t *testing.T) {
	var rows strings.Builder
	for i := range 240 {
		fmt.Fprintf(&rows, "r%d,10,5,20,100,ok\n", i)
	}
	tests := []struct {
		name, in string
		want     string // the error, or "" when the file is read
		n        int    // accepted rows when read
	}{
		{name: "unterminated quote swallowing the rest",
			in:   reqHeader + "a,1,2,3,4,ok\nb,1,2,3,4,\"ok\n" + rows.String(),
			want: `r.csv:3:6: error: a quoted field opened on line 3 is never closed (it runs to the end of the file, line 243); expected a closing '"' before the end of the record`},
		{name: "unterminated quote in the header",
			in:   "request_id,\"prompt_tokens\n",
			want: `r.csv:1:2: error: a quoted field opened on line 1 is never closed`},
		{name: "record too long",
			in:   reqHeader + "a,1,2,3,4,ok\n" + "b,1,2,3,4," + strings.Repeat("x", MaxCSVRecordBytes) + "\n",
			want: `r.csv:3: error: record longer than 1048576 bytes (the limit for one CSV record)`},
		{name: "quoted newlines too long",
			in:   reqHeader + "a,1,2,3,4,\"" + strings.Repeat("x\n", MaxCSVRecordBytes/2) + "\"\n",
			want: `r.csv:2: error: record longer than 1048576 bytes`},
		{name: "quoted newlines, escaped quotes and a lone quote are data",
			in: "\xef\xbb\xbf\"request_id\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\r\n" +
				"a,1,2,3,4,\"line one\r\nline \"\"two\"\"\"\r\nb,1,2,3,4,say \"hi\"\r\nc,1,2,3,4,\"x\" y\"\r\n",
			n: 3},
		{name: "quote closed at the end of the file", in: reqHeader + "a,1,2,3,4,\"ok\"", n: 1},
		{name: "quote closed before CR at the end of the file", in: reqHeader + "a,1,2,3,4,\"ok\"\r", n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time too, so state crosses every read boundary.
			for _, oneByte := range []bool{false, true} {
				var r = bytes.NewReader([]byte(tt.in))
				var rf *RequestFile
				var err error
				if oneByte {
					rf, err = ReadRequestsCSV(oneByteReader{r}, "r.csv")
				} else {
					rf, err = ReadRequestsCSV(r, "r.csv")
				}
				switch {
				case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
					t.Fatalf("one byte %v: error %v, want prefix %s", oneByte, err, tt.want)
				case tt.want == "" && err != nil:
					t.Fatalf("one byte %v: %v", oneByte, err)
				case tt.want == "" && rf.Requests.N != tt.n:
					t.Fatalf("one byte %v: %d rows accepted, want %d; excluded %v", oneByte, rf.Requests.N, tt.n, rf.Excluded)
				}
			}
		})
	}
	rf, err := ReadRequestsCSV(strings.NewReader("\xef\xbb\xbf\"request_id\",prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status\r\n"+
		"a,1,2,3,4,\"line one\r\nline \"\"two\"\"\"\r\n"), "r.csv")
	if err != nil || rf.Requests.Status.At(0) != "line one\nline \"two\"" {
		t.Errorf("quoted status = %q, %v", rf.Requests.Status.Strings(), err)
	}
}

// oneByteReader reads one byte at a time.
type oneByteReader struct{ r *bytes.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// A quote opened by mistake and closed by another, later, joins lines into
// one record; the field-count warning says so.
func TestReadRequestsCSVQuoteJoiningLines(t *testing.T) {
	in := reqHeader + "a,1,2,3,4,\"ok\nb,1,2,3,4,ok\nc,1,2,3,4,\"timeout\",x\nd,1,2,3,4,ok\n"
	rf, err := ReadRequestsCSV(strings.NewReader(in), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := reqWarn("r.csv", 2, 0, "", "missing field",
		`expected 6 fields as in the header, got 7; field 6 is a quoted field that starts on line 2 and runs over 2 more lines: is a quote unbalanced?`)
	reqCheckDiags(t, rf.Excluded, []Diagnostic{want})
	if rf.RowsRead != 2 || rf.Requests.N != 1 {
		t.Errorf("rows read %d, accepted %d; want 2 records (lines 2-4 and 5), 1 accepted", rf.RowsRead, rf.Requests.N)
	}
}

// TestExclusionsAreBounded checks that repeated problems keep their counts
// but not their messages: MaxListedExclusions per reason and column.
func TestExclusionsAreBounded(t *testing.T) {
	var in strings.Builder
	in.WriteString(reqHeader)
	for i := range 25 {
		fmt.Fprintf(&in, "same-id,10,5,20,100,ok\n") // lines 2-26: 24 duplicates
		_ = i
	}
	for i := range 13 {
		fmt.Fprintf(&in, "n%d,x%d,5,20,100,ok\n", i, i) // lines 27-39: non-numeric, each different
	}
	in.WriteString("m,-1,5,20,100,ok\n") // line 40
	rf, err := ReadRequestsCSV(strings.NewReader(in.String()), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if rf.RowsRead != 39 || rf.Requests.N != 1 || rf.ExcludedRows() != 38 || len(rf.Excluded) != 21 {
		t.Fatalf("rows %d, accepted %d, excluded %d (%d listed); want 39, 1, 38 (21 listed)",
			rf.RowsRead, rf.Requests.N, rf.ExcludedRows(), len(rf.Excluded))
	}
	want := []UnlistedRows{
		{Reason: "duplicate request_id", Column: 1, ColumnName: "request_id", Rows: 14, Lines: []int{13, 14, 15, 16, 17}, Value: `"same-id"`},
		{Reason: "non-numeric", Column: 2, ColumnName: "prompt_tokens", Rows: 3, Lines: []int{37, 38, 39}},
	}
	if fmt.Sprint(rf.Unlisted) != fmt.Sprint(want) {
		t.Errorf("unlisted:\n got %+v\nwant %+v", rf.Unlisted, want)
	}
	if got, want := rf.Unlisted[0].Diagnostic("r.csv").String(),
		`r.csv:13:1: warning: 14 more rows excluded as duplicate request_id in request_id, each with "same-id" (lines 13, 14, 15, 16, 17, ...); only the first 10 are listed one by one`; got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
	if got, want := rf.Unlisted[1].Diagnostic("r.csv").String(),
		`r.csv:37:2: warning: 3 more rows excluded as non-numeric in prompt_tokens (lines 37, 38, 39); only the first 10 are listed one by one`; got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
	var lines []int
	for _, d := range rf.Excluded {
		lines = append(lines, d.Line)
	}
	if fmt.Sprint(lines) != "[3 4 5 6 7 8 9 10 11 12 27 28 29 30 31 32 33 34 35 36 40]" {
		t.Errorf("listed lines %v", lines)
	}
	if got := fmt.Sprint(rf.ExcludedByReason()); got != "[{duplicate request_id 24} {non-numeric 13} {negative 1}]" {
		t.Errorf("by reason %s", got)
	}
}

// TestParquetBombIsRefused reads the file of issue 7: 5,242,880 identical
// rows in under 3 KB. Its cost is measured by BenchmarkHostileInputs.
func TestParquetBombIsRefused(t *testing.T) {
	data := reqParquetBomb()
	_, err := ReadRequestsParquet(bytes.NewReader(data), "r.parquet")
	want := fmt.Sprintf("r.parquet: error: the footer declares 5,242,880 rows in a file of %s bytes, more than 8 rows per byte; expected at least one bit per row (a compression bomb or a corrupt footer?)", textfmt.Thousands(len(data)))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Reason != "implausible size" || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

func reqParquetBomb() []byte { return hostile.Bomb() }

// TestPaddedParquetBombIsRefused: the same bomb with 700 KB of key-value
// metadata in its footer, enough to pass the bound over the file's size,
// is refused by the bound over the bytes of the columns read.
func TestPaddedParquetBombIsRefused(t *testing.T) {
	data := hostile.PaddedBomb(700_000)
	if rows := 5_242_880; int64(rows) > MaxParquetRowsPerByte*int64(len(data)) {
		t.Fatalf("the padded file (%d bytes) is refused by the file-size bound already; the test needs more padding", len(data))
	}
	_, err := ReadRequestsParquet(bytes.NewReader(data), "r.parquet")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Reason != "implausible size" || !strings.Contains(err.Error(), "the footer declares 5,242,880 rows in ") ||
		!strings.Contains(err.Error(), " bytes of the columns read, more than 8 rows per byte") {
		t.Errorf("error %v, want the rows refused for the bytes of the columns read", err)
	}
}

func TestReadRequestsMaxRows(t *testing.T) {
	opts := ReadOptions{MaxRows: 4}
	_, err := ReadRequestsParquetWith(bytes.NewReader(hostile.ParquetRows(5, 5)), "r.parquet", opts)
	if want := "r.parquet: error: more than 4 rows, the limit per run; raise it with --max-rows-per-run or split the run"; err == nil || err.Error() != want {
		t.Errorf("Parquet: %v, want %s", err, want)
	}
	if rf, err := ReadRequestsParquetWith(bytes.NewReader(hostile.ParquetRows(4, 4)), "r.parquet", opts); err != nil || rf.Requests.N != 4 {
		t.Errorf("Parquet at the limit: %v", err)
	}
	csv := reqHeader + strings.Repeat("a,1,2,3,4,ok\n", 5)
	_, err = ReadRequestsCSVWith(strings.NewReader(csv), "r.csv", opts)
	if want := "r.csv:6: error: more than 4 rows, the limit per run"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("CSV: %v, want %s", err, want)
	}
}

// TestReadRequestsParquetFooterCounts checks footers whose row counts
// disagree with each other or with the data.
func TestReadRequestsParquetFooterCounts(t *testing.T) {
	base := hostile.ParquetRows(6, 3)
	tests := []struct {
		name   string
		file   int64
		groups []int64
		want   string
	}{
		{"fewer rows than the data", 4, []int64{2, 2},
			"r.parquet:0:1: error: request_id: decoding: the column holds more values than the 4 rows the footer declares"},
		{"more rows than the data", 8, []int64{4, 4},
			"r.parquet:0:1: error: request_id: decoding: the column holds 6 values, fewer than the 8 rows the footer declares"},
		{"file and groups disagree", 7, nil,
			"r.parquet: error: the footer declares 7 rows but its row groups hold 6; expected the same count"},
		{"negative file count", -1, nil,
			"r.parquet: error: the footer declares a negative row count (-1); expected a count of 0 or more"},
		{"negative group count", 6, []int64{9, -3},
			"r.parquet: error: the footer declares a negative row count (-3) for row group 2; expected a count of 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRequestsParquet(bytes.NewReader(hostile.SetRowCounts(base, tt.file, tt.groups)), "r.parquet")
			if err == nil || strings.Replace(err.Error(), "r.parquet: error: request_id", "r.parquet:0:1: error: request_id", 1) != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestFailedRunsCountTheirRows loads runs whose requests file is unusable
// and checks that their rows are still counted, from the Parquet footer
// or the CSV records.
func TestFailedRunsCountTheirRows(t *testing.T) {
	valid := hostile.ParquetRows(6, 3)
	missing := hostile.RewriteFooter(valid, func(md *xparquet.FileMetaData) {
		md.Schema[5].Name = "E2E"
		for _, g := range md.RowGroups {
			g.Columns[4].MetaData.PathInSchema = []string{"E2E"}
		}
	})
	wrongType := hostile.RewriteFooter(valid, func(md *xparquet.FileMetaData) {
		bin := xparquet.Type_BYTE_ARRAY
		md.Schema[4].Type = &bin
	})
	start, _ := hostile.FooterStart(valid)
	truncatedData := append(append([]byte{}, valid[:start/2]...), valid[start:]...)
	files := map[string][]byte{
		"c1/missing-column/requests.parquet": missing,
		"c1/wrong-type/requests.parquet":     wrongType,
		"c1/truncated-data/requests.parquet": truncatedData,
		"c1/footer-short/requests.parquet":   hostile.SetRowCounts(valid, 4, []int64{2, 2}),
		"c1/cut-footer/requests.parquet":     valid[:len(valid)-20],
		"c1/bomb/requests.parquet":           reqParquetBomb(),
		"c1/csv-quote/requests.csv":          []byte(reqHeader + "a,1,2,3,4,ok\nb,1,2,3,4,\"ok\nc,1,2,3,4,ok\n\nd,1,2,3,4,ok\n"),
		"c1/csv-header/requests.csv":         []byte("request_id,prompt_tokens\na,1\nb,2\n"),
		"c1/csv-long/requests.csv":           []byte(reqHeader + "a,1,2,3,4," + strings.Repeat("x", MaxCSVRecordBytes) + "\nb,1,2,3,4,ok\n"),
	}
	root := t.TempDir()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		rows   int
		reason string
	}{
		"c1/missing-column": {6, "missing column"},
		"c1/wrong-type":     {6, "wrong type"},
		"c1/truncated-data": {6, "corrupt parquet"},
		"c1/footer-short":   {4, "corrupt parquet"},
		"c1/cut-footer":     {0, "corrupt parquet"},    // no footer: nothing to count
		"c1/bomb":           {0, "implausible size"},   // a count not believed is not counted
		"c1/csv-quote":      {4, "unterminated quote"}, // the non-blank lines after the header
		"c1/csv-header":     {2, "missing column"},     // the records
		"c1/csv-long":       {2, "too large"},          // the lines
	}
	for _, r := range sw.Runs {
		w, ok := want[r.Dir]
		if !ok {
			t.Errorf("unexpected run %s", r.Dir)
			continue
		}
		rows := 0
		if r.Requests != nil {
			rows = r.Requests.RowsRead
		}
		if !r.Failed || rows != w.rows || len(r.Diagnostics) == 0 || r.Diagnostics[0].Reason != w.reason {
			t.Errorf("%s: failed %v, rows %d, diagnostics %v; want failed, %d rows, reason %q", r.Dir, r.Failed, rows, r.Diagnostics, w.rows, w.reason)
		}
	}
}

// TestParquetPageChecksums checks that pages carrying a CRC-32 are
// verified, and that a file without checksums is read as it is.
func TestParquetPageChecksums(t *testing.T) {
	data, spans := hostile.AddPageChecksums(hostile.ParquetRows(6, 3))
	rf, err := ReadRequestsParquet(bytes.NewReader(data), "r.parquet")
	if err != nil || rf.Requests.N != 6 {
		t.Fatalf("file with checksums: %v", err)
	}
	// Every page of TTFT_ms (column 4) of row group 2, corrupted in turn.
	n := 0
	for _, s := range spans {
		if s.RowGroup != 1 || s.Column != 3 {
			continue
		}
		n++
		bad := bytes.Clone(data)
		bad[s.Offset+s.Length/2] ^= 0x01
		_, err := ReadRequestsParquet(bytes.NewReader(bad), "r.parquet")
		want := fmt.Sprintf("r.parquet: error: row group 2, column TTFT_ms: the page at byte %d fails its checksum", s.Header)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Reason != "corrupt parquet" || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("page at %d corrupted: %v\nwant prefix %s", s.Offset, err, want)
		}
	}
	if n == 0 {
		t.Fatal("no page of TTFT_ms in row group 2")
	}
}

// TestCorruptPageHeaderIsRefused: a mutation of the fuzz seed (found by
// mutating it at random) whose data page runs past the end of its column
// chunk, its header ending exactly there: Arrow's page reader spun without
// end on that header. The header walk refuses the file first.
func TestCorruptPageHeaderIsRefused(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "requests", "corrupt_page_header.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadRequestsParquet(bytes.NewReader(data), "r.parquet")
		done <- err
	}()
	select {
	case err := <-done:
		var fe *FileError
		const want = "r.parquet: error: row group 1, column E27_ms: page 2 (header at byte 322) runs 9 bytes past the end of its column chunk at byte 378; the file is corrupt"
		if !errors.As(err, &fe) || fe.Reason != "corrupt parquet" || err.Error() != want {
			t.Errorf("error %v\nwant %s", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("reading the file did not end within 30 s")
	}
}
