package parquetpage

// Arrow Go v17 never reads the page checksums a Parquet file may carry
// (parquet-mr and Spark write them by default, pyarrow on request), so a
// flipped bit in a data page could change a statistic without a word.
// VerifyChecksums checks them: it walks the page headers of each column
// chunk read and compares each page's CRC-32 with the one its header
// gives. Walking the headers costs a few small reads a chunk (the page
// bodies are skipped unless they carry a checksum), and it refuses a
// header Arrow's reader could spin on. A file without checksums passes:
// most writers write none.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/thrift/lib/go/thrift"
)

// VerifyChecksums walks the page headers of the chunks of the leaf columns
// in leaves of every row group of a file (md its metadata, r its bytes,
// size its length) and checks the pages that carry a checksum. It returns
// an error for the first header it cannot read, page that runs past its
// chunk, or page whose checksum does not match: a sentence naming the row
// group, column, page and byte, which ends "the file is corrupt". A chunk
// whose span the footer gives outside the file, or whose bytes cannot be
// read, is passed over: decoding it reports the problem.
func VerifyChecksums(r io.ReaderAt, size int64, md *metadata.FileMetaData, leaves map[int]bool) error {
	for g := range len(md.RowGroups) {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			if !leaves[c] {
				continue
			}
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				continue
			}
			start, length := chunkSpan(cc)
			if start < 4 || length <= 0 || start+length > size || start+length < start {
				continue
			}
			// Arrow reads up to 100 bytes past the chunk of a file from a
			// parquet-mr before 1.2.9 (PARQUET-816): walk what it reads.
			window := length
			if md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
				window += min(100, size-(start+length))
			}
			if err := verifyChunk(r, start, window, cc.NumValues(), g, cc.PathInSchema().String()); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifyChunk walks the pages of one column chunk of length bytes starting
// at file offset base, as Arrow's page reader does, until its data pages
// hold the chunk's values: it reads every page header, with Thrift bounded
// by what is left of the chunk, and checks the pages that carry a checksum.
// A header that cannot be read, or a page that runs past the chunk, is an
// error: Arrow's own reader (arrow/go v17) fails on such a page, or, on
// some such headers, spins without end.
func verifyChunk(r io.ReaderAt, base, length, values int64, group int, column string) error {
	end := base + length
	crc := crc32.NewIEEE()
	var seen int64 // values of the data pages walked
	for at, page := base, 1; at < end && seen < values; page++ {
		cr := &countingReader{r: bufio.NewReaderSize(io.NewSectionReader(r, at, end-at), 4<<10), size: end - at}
		proto := thrift.NewTCompactProtocolConf(cr, &thrift.TConfiguration{MaxMessageSize: maxPageHeaderBytes})
		h, err := readPageHeader(proto)
		switch {
		case err != nil:
		case h.seen[0]&(1<<3) == 0:
			err = errors.New("page header without compressed_page_size")
		case h.compressed < 0:
			err = fmt.Errorf("negative page size %d", h.compressed)
		}
		if err != nil && cr.err != nil {
			// The chunk's bytes ran out (or could not be read) inside the
			// header: a cut file, which decoding the chunk reports with
			// the values it found.
			return nil
		}
		if err != nil {
			return fmt.Errorf("row group %d, column %s: page %d's header at byte %d cannot be read (%v); the file is corrupt", group+1, column, page, at, err)
		}
		body := at + cr.n
		if body+int64(h.compressed) > end {
			// Arrow's reader fails on such a page, or spins on its header.
			return fmt.Errorf("row group %d, column %s: page %d (header at byte %d) runs %d bytes past the end of its column chunk at byte %d; the file is corrupt",
				group+1, column, page, at, body+int64(h.compressed)-end, end)
		}
		if h.hasCRC {
			crc.Reset()
			if _, err := io.Copy(crc, io.NewSectionReader(r, body, int64(h.compressed))); err != nil {
				return nil
			}
			if got := crc.Sum32(); got != h.crc {
				return fmt.Errorf("row group %d, column %s: the page at byte %d fails its checksum (CRC-32 %08x, the page header says %08x); the file is corrupt",
					group+1, column, at, got, h.crc)
			}
		}
		if h.dataValues > 0 {
			seen += int64(h.dataValues)
		}
		at = body + int64(h.compressed)
	}
	return nil
}

// countingReader is the Thrift transport of verifyChunk: it counts the
// bytes read through it, so that page offsets are known however the Thrift
// decoder reads, and buffers nothing of its own beyond them.
type countingReader struct {
	r    *bufio.Reader
	n    int64 // bytes read
	size int64 // bytes in the chunk
	err  error // the first error of the underlying reader
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

func (c *countingReader) Write([]byte) (int, error)   { return 0, errors.New("read only") }
func (c *countingReader) Close() error                { return nil }
func (c *countingReader) Flush(context.Context) error { return nil }
func (c *countingReader) Open() error                 { return nil }
func (c *countingReader) IsOpen() bool                { return true }
func (c *countingReader) RemainingBytes() (num_bytes uint64) {
	if c.n >= c.size {
		return 0
	}
	return uint64(c.size - c.n)
}
