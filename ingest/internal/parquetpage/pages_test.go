package parquetpage

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/golang/snappy"
	kgzip "github.com/klauspost/compress/gzip"
)

// Helpers that walk the pages of a file, as the tests of corrupt pages
// and of the file layouts need them.

// filePage is one page of a column chunk of a Parquet file, as its
// header gives it.
type filePage struct {
	group, leaf int
	column      string
	opt         bool // the column is optional
	codec       compress.Compression
	h           fullPageHeader
	header      int // the header's offset in the file
	body        int // the body's
	data        int // a data page's 1-based number in its chunk; 0 for others
}

// filePages walks the page headers of every column chunk of data.
func filePages(t *testing.T, data []byte) []filePage {
	t.Helper()
	var pages []filePage
	eachChunk(t, data, func(md *metadata.FileMetaData, g, c int, cc *metadata.ColumnChunkMetaData) error {
		start, length := chunkSpan(cc)
		at, values, nth := int(start), int64(0), 0
		for values < cc.NumValues() {
			if at > int(start+length) {
				t.Fatalf("row group %d column %d: the pages run past the chunk", g, c)
			}
			h, rest, err := readHeaderBytes(data[at : start+length])
			if err != nil {
				t.Fatalf("row group %d column %d: the header at byte %d: %v", g, c, at, err)
			}
			body := int(start+length) - len(rest)
			col := md.Schema.Column(c)
			p := filePage{g, c, col.Name(), col.MaxDefinitionLevel() == 1, cc.Compression(), h, at, body, 0}
			if h.typ == pageData || h.typ == pageDataV2 {
				values += int64(h.values)
				nth++
				p.data = nth
			}
			pages = append(pages, p)
			at = body + max(0, int(h.compressed))
		}
		return nil
	})
	return pages
}

// eachChunk calls fn on every column chunk of the Parquet file data, in
// row group and column order, until fn returns an error, which it
// returns.
func eachChunk(t *testing.T, data []byte, fn func(md *metadata.FileMetaData, g, c int, cc *metadata.ColumnChunkMetaData) error) error {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := fn(md, g, c, cc); err != nil {
				return err
			}
		}
	}
	return nil
}

// arrowIndexWidth is the widest bit width of dictionary indices that
// Arrow's reader finds in the dictionary-encoded data pages of data,
// where it looks for it, in the bytes its codecs decompress (gzip without
// its CRC checked); 0 when there is none.
//
// Arrow Go v17 makes a slice as long as the largest dictionary index it
// decodes before it checks the index (Int64DictConverter.ensure, called
// by IsValid), so that indices of 4 bytes can ask for gigabytes: a page
// whose corrupt bit width is above 16 is no test of the page decoder but
// of the machine's memory.
func arrowIndexWidth(t *testing.T, data []byte) int {
	t.Helper()
	width := 0
	for _, p := range filePages(t, data) {
		if p.h.typ == pageDictionary || p.h.encoding == encPlain {
			continue
		}
		body := data[p.body : p.body+int(p.h.compressed)]
		var page []byte
		if p.h.typ == pageDataV2 {
			if p.h.defBytes < 0 || int(p.h.defBytes) > len(body) {
				continue
			}
			page = body[p.h.defBytes:]
			if p.h.compressedV2 {
				page = arrowDecompress(p.codec, page, int(p.h.uncompressed-p.h.defBytes))
			}
		} else {
			page = arrowDecompress(p.codec, body, int(p.h.uncompressed))
			if p.opt {
				if len(page) < 4 {
					continue
				}
				k := int64(binary.LittleEndian.Uint32(page))
				if 4+k >= int64(len(page)) {
					continue
				}
				page = page[4+k:]
			}
		}
		if len(page) > 0 {
			width = max(width, int(page[0]))
		}
	}
	return width
}

// arrowDecompress decompresses a page body of n bytes as Arrow's codecs
// do, nil when they fail.
func arrowDecompress(codec compress.Compression, body []byte, n int) []byte {
	switch codec {
	case compress.Codecs.Uncompressed:
		return body
	case compress.Codecs.Snappy:
		b, err := snappy.Decode(nil, body)
		if err != nil {
			return nil
		}
		return b
	case compress.Codecs.Gzip:
		r, err := kgzip.NewReader(bytes.NewReader(body))
		if err != nil || n < 0 {
			return nil
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil
		}
		return b
	case compress.Codecs.Zstd:
		b, err := zstdDecoder().DecodeAll(body, nil)
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}
