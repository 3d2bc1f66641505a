package sparse

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// part is a piece of a test file: data, or a hole of that many bytes.
type part struct {
	data string
	hole int64
}

// writeSparse writes the parts to a new file, holes by seeking over them
// (a trailing hole by extending the file), and returns its path.
func writeSparse(t *testing.T, parts ...part) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var size int64
	for _, pt := range parts {
		if pt.hole > 0 {
			if _, err := f.Seek(pt.hole, io.SeekCurrent); err != nil {
				t.Fatal(err)
			}
			size += pt.hole
			continue
		}
		if _, err := f.WriteString(pt.data); err != nil {
			t.Fatal(err)
		}
		size += int64(len(pt.data))
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

// shape is what a line counter sees of a text: for every line, its text
// without zero bytes and whether it is blank (only spaces) as it stands.
func shape(b []byte) (lines []string, blank []bool) {
	for _, l := range bytes.Split(b, []byte("\n")) {
		lines = append(lines, string(bytes.ReplaceAll(l, []byte{0}, nil)))
		blank = append(blank, len(bytes.TrimSpace(l)) == 0)
	}
	return lines, blank
}

func readAll(t *testing.T, p string, from int64) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	// A small buffer, so that reads end inside data extents too.
	var out bytes.Buffer
	buf := make([]byte, 4096+3)
	r := Reader(f)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestReaderKeepsLines reads files with holes at the start, in the middle
// of a line, as a whole line and at the end, from the start and from an
// offset: the lines, their text and which are blank must be those of the
// file read as it is, and each hole must cost at most one byte.
func TestReaderKeepsLines(t *testing.T) {
	const hole = 8 << 20 // far larger than any file system block
	tests := []struct {
		name  string
		parts []part
		from  int64
		holes int // holes the file has
	}{
		{"no hole", []part{{data: "a,b\n\n1,2\n  \n"}}, 0, 0},
		{"hole inside a line", []part{{data: "header\nx,"}, {hole: hole}, {data: "y\nz\n"}}, 0, 1},
		{"hole as a whole line", []part{{data: "header\n"}, {hole: hole}, {data: "\nlast\n"}}, 0, 1},
		{"hole first", []part{{hole: hole}, {data: "\na\nb\n"}}, 0, 1},
		{"hole last", []part{{data: "a\nb"}, {hole: hole}}, 0, 1},
		{"two holes, from an offset", []part{{data: "skip me\nh\n"}, {hole: hole}, {data: "\n\n"}, {hole: hole}, {data: "end"}}, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSparse(t, tt.parts...)
			plain, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, p, tt.from)
			wantLines, wantBlank := shape(plain[tt.from:])
			gotLines, gotBlank := shape(got)
			if !reflect.DeepEqual(gotLines, wantLines) || !reflect.DeepEqual(gotBlank, wantBlank) {
				t.Errorf("lines %q blank %v, want %q blank %v", gotLines, gotBlank, wantLines, wantBlank)
			}
			if max := readBound(t, p, tt.parts, tt.holes); sparseOnDisk(t, p) && len(got) > max {
				t.Errorf("read %d bytes, want at most %d (each data part rounded up to whole blocks, one byte per hole)", len(got), max)
			}
		})
	}
}

// TestReaderSkipsAGibibyteHole reads a file of 1 GiB of hole between two
// lines and checks that the reader returns a few bytes, not the hole.
func TestReaderSkipsAGibibyteHole(t *testing.T) {
	p := writeSparse(t, part{data: "header\na,"}, part{hole: 1 << 30}, part{data: "\nb\n"})
	if !sparseOnDisk(t, p) {
		t.Skip("the file system allocated the hole")
	}
	got := readAll(t, p, 0)
	lines, blank := shape(got)
	if fmt.Sprint(lines, blank) != `[header a, b ] [false false false true]` {
		t.Errorf("lines %q blank %v, want header, a,<hole>, b and an empty last line", lines, blank)
	}
	parts := []part{{data: "header\na,"}, {hole: 1 << 30}, {data: "\nb\n"}}
	if max := readBound(t, p, parts, 1); len(got) > max {
		t.Errorf("read %d bytes, want at most %d", len(got), max)
	}
}

// readBound is the most the reader may return for a file of these parts:
// the file system allocates whole blocks, so each data part may read as
// up to two blocks (it may straddle a boundary), and each hole as a byte.
func readBound(t *testing.T, p string, parts []part, holes int) int {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	blk := int64(4096)
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Blksize > 0 {
		blk = int64(st.Blksize)
	}
	n := holes
	for _, pt := range parts {
		if pt.hole == 0 {
			n += int((int64(len(pt.data))/blk + 2) * blk)
		}
	}
	return n
}

// sparseOnDisk reports whether the file system keeps p's holes unallocated
// (it takes far fewer blocks than its size), so that the reader can skip
// them.
func sparseOnDisk(t *testing.T, p string) bool {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Blocks*512 < info.Size()/2
}
