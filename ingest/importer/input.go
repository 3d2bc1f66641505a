package importer

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// DefaultMaxFileBytes is the most bytes one input may hold unless
// Options.MaxFileBytes says otherwise: far beyond any real result file,
// and a bound on the time an endless stream (a pipe that never closes)
// can take.
const DefaultMaxFileBytes = 64 << 30

// input is one input file. Detection reads its first bytes (head); the
// importer then reads the file from its start.
//
// A file that is not a regular file (a pipe, a FIFO, /dev/stdin, process
// substitution's /dev/fd/N) can be read only once: its head is kept and
// the importer continues from the still-open file, so detection and
// parsing share one read. It is handed to one reader only; a second
// reader is refused, unless the whole file fitted in the head.
//
// A regular file is opened again to be parsed, so that a directory of
// many files costs neither a descriptor nor a head's memory per file;
// what detection saw is kept as a hash, and the file is refused when its
// first bytes changed in between.
type input struct {
	path    string
	regular bool
	// head holds the first bytes of a file that is not regular; whole is
	// set when they are the whole file.
	head  []byte
	whole bool
	// headLen and headSum describe the head of a regular file.
	headLen int
	headSum [sha256.Size]byte
	// rest is the open file that is not regular, positioned after head;
	// nil once handed to a reader.
	rest *os.File
	// max is the most bytes the file may hold.
	max int64
}

// openInput opens path and reads its first bytes for detection; the
// returned head is valid until the next read of the input.
func openInput(path string, max int64) (*input, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	in := &input{path: path, regular: st.Mode().IsRegular(), max: max}
	// One byte more than detection scans tells a file that ends within
	// the head from one that goes on; Stat's size is not trusted.
	head := make([]byte, min(int64(detectPrefix)+1, max+1))
	n, err := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		in.whole = true
	case err != nil:
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(n) > max {
		f.Close()
		return nil, nil, tooLarge(path, max)
	}
	if in.regular {
		f.Close()
		in.headLen, in.headSum = n, sha256.Sum256(head)
		return in, head, nil
	}
	in.head = head
	if in.whole {
		f.Close()
	} else {
		in.rest = f
	}
	return in, head, nil
}

// close releases what the input still holds.
func (in *input) close() {
	if in.rest != nil {
		in.rest.Close()
		in.rest = nil
	}
	in.head = nil
}

// reader returns the whole file from its start, bounded by max.
func (in *input) reader() (io.ReadCloser, error) {
	switch {
	case !in.regular && in.whole:
		return io.NopCloser(bytes.NewReader(in.head)), nil
	case !in.regular && in.rest == nil:
		return nil, fmt.Errorf("%s: not a regular file (a pipe?), and already read: it cannot be read twice; save it to a file and import that", in.path)
	case !in.regular:
		f := in.rest
		in.rest = nil
		r := &boundedReader{r: io.MultiReader(bytes.NewReader(in.head), f), max: in.max, path: in.path}
		in.head = nil
		return readCloser{r, f}, nil
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, in.headLen)
	if _, err := io.ReadFull(f, head); err != nil || sha256.Sum256(head) != in.headSum {
		f.Close()
		return nil, fmt.Errorf("%s: changed while being imported (its first %d bytes differ from those read to detect its format); import it again", in.path, in.headLen)
	}
	r := &boundedReader{r: io.MultiReader(bytes.NewReader(head), f), max: in.max, path: in.path}
	return readCloser{r, f}, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// boundedReader fails, rather than ends, once more than max bytes were
// read: a file cut at the bound would read as a truncated one.
type boundedReader struct {
	r         io.Reader
	max, read int64
	path      string
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if left := b.max - b.read; int64(len(p)) > left+1 {
		p = p[:left+1]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	if b.read > b.max {
		return 0, tooLarge(b.path, b.max)
	}
	return n, err
}

// tooLarge is the error for a file above max bytes.
func tooLarge(path string, max int64) error {
	return &SourceError{File: path, Msg: fmt.Sprintf("larger than %s bytes; refusing to read more", textfmt.Thousands(max))}
}
