// Package sparse reads a file without reading its holes: the ranges of a
// sparse file that the file system has not allocated, which read as zero
// bytes however long they are. A file whose size says 1 GiB may hold only
// a few kilobytes of data; reading its holes byte by byte costs time (the
// kernel fills page after page with zeros) for nothing a line counter
// needs, since a hole holds no newline.
package sparse

import (
	"io"
	"os"
)

// Reader returns a reader of f from its current offset that reads f's
// data as it is and each hole as a single zero byte. A hole holds no
// newline and nothing but zero bytes, so lines, and which of them are
// blank, are the same as in the file: what a line counter counts is
// unchanged, and a hole costs one byte however long it is. Where the
// system or the file system cannot report holes, the reader reads f as
// it is. f's offset is left undefined.
func Reader(f *os.File) io.Reader {
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return f
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return f
	}
	return &reader{f: f, pos: pos, end: pos}
}

// reader reads f from pos; [pos, end) is data known to be allocated.
type reader struct {
	f     *os.File
	pos   int64
	end   int64
	plain bool // holes cannot be found: read everything
	done  bool // nothing but a hole, already returned, after pos
}

func (r *reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !r.plain && r.pos >= r.end {
		if r.done {
			return 0, io.EOF
		}
		data, end, ok := nextData(r.f, r.pos)
		switch {
		case !ok:
			r.plain = true
		case data < 0:
			// No data after pos: the rest of the file, if any, is a hole.
			r.done = true
			info, err := r.f.Stat()
			if err != nil {
				return 0, err
			}
			if info.Size() <= r.pos {
				return 0, io.EOF
			}
			r.pos = info.Size()
			p[0] = 0
			return 1, nil
		default:
			hole := data > r.pos
			r.pos, r.end = data, end
			if hole {
				p[0] = 0
				return 1, nil
			}
		}
	}
	if !r.plain {
		p = p[:min(int64(len(p)), r.end-r.pos)]
	}
	n, err := r.f.ReadAt(p, r.pos)
	r.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}
