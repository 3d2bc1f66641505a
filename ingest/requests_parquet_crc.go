package ingest

// Arrow Go v17 never reads the page checksums a Parquet file may carry
// (parquet-mr and Spark write them by default, pyarrow on request), so a
// flipped bit in a data page could change a statistic without a word.
// verifyPageChecksums checks them itself: it walks the page headers of
// each column chunk benchnote reads and compares each page's CRC-32 with
// the one its header gives. A chunk whose first page has no checksum is
// taken to have none (writers checksum every page or none) and costs one
// header read. A file without checksums gets no diagnostic: most writers
// write none, and the warning would be on nearly every file.

import (
	"bufio"
	"context"
	"errors"
	"hash/crc32"
	"io"

	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/thrift/lib/go/thrift"
)

// verifyPageChecksums checks the checksummed pages of the given leaf
// columns of pf, a file of size bytes read from r. It returns a *FileError
// for the first page whose checksum does not match; a page header it
// cannot read ends the check of that chunk silently (decoding the chunk
// will report it).
func verifyPageChecksums(r io.ReaderAt, size int64, pf *file.Reader, leaves map[int]bool, path string) *FileError {
	md := pf.MetaData()
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			if !leaves[c] {
				continue
			}
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				continue
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
				start = cc.DictionaryPageOffset()
			}
			length := cc.TotalCompressedSize()
			if start < 4 || length <= 0 || start+length > size || start+length < start {
				continue
			}
			if fe := verifyChunk(io.NewSectionReader(r, start, length), start, length, g, cc.PathInSchema().String(), path); fe != nil {
				return fe
			}
		}
	}
	return nil
}

// verifyChunk walks the pages of one column chunk of length bytes starting
// at file offset base.
func verifyChunk(r io.Reader, base, length int64, group int, column, path string) *FileError {
	cr := &countingReader{r: bufio.NewReaderSize(r, 4<<10), size: length}
	proto := thrift.NewTCompactProtocolConf(cr, &thrift.TConfiguration{MaxMessageSize: 1 << 20})
	crc := crc32.NewIEEE()
	for first := true; ; first = false {
		at := base + cr.n
		h, err := readPageHeader(proto)
		if err != nil || h.size < 0 || !h.hasCRC && first {
			return nil
		}
		if !h.hasCRC {
			if _, err := io.CopyN(io.Discard, cr, int64(h.size)); err != nil {
				return nil
			}
			continue
		}
		crc.Reset()
		if _, err := io.CopyN(crc, cr, int64(h.size)); err != nil {
			return nil
		}
		if got := crc.Sum32(); got != h.crc {
			return fileErrorf(path, 0, 0, "", "corrupt parquet",
				"row group %d, column %s: the page at byte %d fails its checksum (CRC-32 %08x, the page header says %08x); the file is corrupt",
				group+1, column, at, got, h.crc)
		}
	}
}

// pageHeader holds the fields of a Parquet PageHeader the check needs.
type pageHeader struct {
	size   int32 // compressed_page_size
	crc    uint32
	hasCRC bool
}

// readPageHeader reads one Thrift PageHeader (parquet.thrift: field 3
// compressed_page_size, field 4 crc), skipping the other fields.
func readPageHeader(p thrift.TProtocol) (pageHeader, error) {
	ctx := context.Background()
	var h pageHeader
	haveSize := false
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return h, err
	}
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return h, err
		}
		if typ == thrift.STOP {
			break
		}
		switch {
		case id == 3 && typ == thrift.I32:
			h.size, err = p.ReadI32(ctx)
			haveSize = true
		case id == 4 && typ == thrift.I32:
			var v int32
			v, err = p.ReadI32(ctx)
			h.crc, h.hasCRC = uint32(v), true
		default:
			err = p.Skip(ctx, typ)
		}
		if err != nil {
			return h, err
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return h, err
		}
	}
	if !haveSize {
		return h, errors.New("page header without compressed_page_size")
	}
	return h, p.ReadStructEnd(ctx)
}

// countingReader is the Thrift transport of verifyChunk: it counts the
// bytes read through it, so that page offsets are known however the Thrift
// decoder reads, and buffers nothing of its own beyond them.
type countingReader struct {
	r    *bufio.Reader
	n    int64 // bytes read
	size int64 // bytes in the chunk
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
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
