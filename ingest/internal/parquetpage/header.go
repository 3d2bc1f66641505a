package parquetpage

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/thrift/lib/go/thrift"
)

// Parquet's enumerations (parquet.thrift), as stored in page headers.
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3

	encPlain         = 0
	encPlainDict     = 2
	encRLE           = 3
	encRLEDictionary = 8
)

// maxPageHeaderBytes bounds one page header, as Arrow Go v17's page reader
// does (4 MiB), so that no header Arrow would read is refused.
const maxPageHeaderBytes = 4 << 20

// fullPageHeader holds what decoding a page needs of its PageHeader.
type fullPageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32
	values       int32 // num_values of the data or dictionary page header
	encoding     int32
	defEncoding  int32 // v1: definition_level_encoding
	defBytes     int32 // v2: definition_levels_byte_length
	repBytes     int32 // v2: repetition_levels_byte_length
	compressedV2 bool  // v2: is_compressed (true unless the header says false)
}

// sliceTransport is the Thrift transport chunkDecoder reads page headers
// through: the bytes after the header are what is left of b.
type sliceTransport struct{ b []byte }

func (s *sliceTransport) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

func (s *sliceTransport) ReadByte() (byte, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c, nil
}

func (s *sliceTransport) Write([]byte) (int, error)   { return 0, errors.New("read only") }
func (s *sliceTransport) Close() error                { return nil }
func (s *sliceTransport) Flush(context.Context) error { return nil }
func (s *sliceTransport) Open() error                 { return nil }
func (s *sliceTransport) IsOpen() bool                { return true }
func (s *sliceTransport) RemainingBytes() uint64      { return uint64(len(s.b)) }

// pageHeader is a Parquet PageHeader as read, before its required fields
// are checked: what decoding its page needs (fullPageHeader, whose values
// and encoding full sets) and what the checksum walk needs.
type pageHeader struct {
	fullPageHeader
	crc    uint32
	hasCRC bool
	// dataValues is num_values of the data page header (v1 or v2) read
	// last, whatever the page's type; -1 when there is none. The checksum
	// walk counts it.
	dataValues  int32
	seen        [9]uint16 // seen[id]: the fields read of the struct with field id (0: the header)
	subValues   [9]int32  // num_values, by sub-header: the page type picks one
	subEncoding [9]int32  // encoding, by sub-header
}

// readPageHeader reads one Thrift PageHeader (parquet.thrift): the page
// type, sizes and crc, and the fields of the data page header (v1 or v2)
// and the dictionary page header it holds; the other fields are skipped,
// and a field of the wrong Thrift type counts as absent. The only error is
// Thrift's. Its nesting (a field switch inside a field switch) is the
// header's: one reading of each sub-header field, in one place.
func readPageHeader(p thrift.TProtocol) (pageHeader, error) {
	h := pageHeader{fullPageHeader: fullPageHeader{typ: -1, uncompressed: -1, compressed: -1, values: -1, compressedV2: true}, dataValues: -1}
	ctx := context.Background()
	err := readStruct(p, func(id int16, typ thrift.TType) (bool, error) {
		var err error
		switch {
		case id == 1 && typ == thrift.I32:
			h.typ, err = p.ReadI32(ctx)
		case id == 2 && typ == thrift.I32:
			h.uncompressed, err = p.ReadI32(ctx)
		case id == 3 && typ == thrift.I32:
			h.compressed, err = p.ReadI32(ctx)
		case id == 4 && typ == thrift.I32:
			var v int32
			v, err = p.ReadI32(ctx)
			h.crc, h.hasCRC = uint32(v), true
		case (id == 5 || id == 7 || id == 8) && typ == thrift.STRUCT:
			err = readStruct(p, func(f int16, typ thrift.TType) (bool, error) {
				var err error
				switch {
				case typ == thrift.I32 && f == 1:
					h.subValues[id], err = p.ReadI32(ctx)
					if id != 7 {
						h.dataValues = h.subValues[id]
					}
				case typ == thrift.I32 && f == 2 && id != 8, typ == thrift.I32 && f == 4 && id == 8:
					h.subEncoding[id], err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 3 && id == 5:
					h.defEncoding, err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 5 && id == 8:
					h.defBytes, err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 6 && id == 8:
					h.repBytes, err = p.ReadI32(ctx)
				case typ == thrift.BOOL && f == 7 && id == 8:
					h.compressedV2, err = p.ReadBool(ctx)
				case typ == thrift.I32 && (f == 4 && id == 5 || (f == 2 || f == 3) && id == 8):
					// repetition_level_encoding, num_nulls, num_rows:
					// required, not needed.
					_, err = p.ReadI32(ctx)
				default:
					return false, nil
				}
				h.seen[id] |= 1 << f
				return true, err
			})
		default:
			return false, nil
		}
		h.seen[0] |= 1 << id
		return true, err
	})
	return h, err
}

// full returns what decoding the page needs. As Arrow's reader does, it
// refuses a header without a field parquet.thrift requires: the page type
// and sizes, the sub-header the type names, and that sub-header's required
// fields.
func (h *pageHeader) full() (fullPageHeader, error) {
	f := h.fullPageHeader
	if h.seen[0]&0b1110 != 0b1110 || f.compressed < 0 || f.uncompressed < 0 {
		return f, errors.New("a page header without its type or sizes")
	}
	// The sub-header each page type requires, and its required fields.
	var sub int
	var fields uint16
	switch f.typ {
	case pageData:
		sub, fields = 5, 0b11110 // num_values, encoding, both level encodings
	case pageDictionary:
		sub, fields = 7, 0b110 // num_values, encoding
	case pageDataV2:
		sub, fields = 8, 0b1111110 // num_values, num_nulls, num_rows, encoding, both level lengths
	default:
		return f, nil // a page next refuses to decode
	}
	if h.seen[0]&(1<<sub) == 0 || h.seen[sub]&fields != fields {
		return f, fmt.Errorf("a page header of type %d without the required fields of its sub-header", f.typ)
	}
	f.values, f.encoding = h.subValues[sub], h.subEncoding[sub]
	return f, nil
}

// readFullPageHeader reads one page header with the fields decoding the
// page needs, and checks that it has them (see full).
func readFullPageHeader(p thrift.TProtocol) (fullPageHeader, error) {
	h, err := readPageHeader(p)
	if err != nil {
		return h.fullPageHeader, err
	}
	return h.full()
}

// readStruct reads one Thrift struct from p, calling field for each of its
// fields; the fields it does not read (it returns false) are skipped.
func readStruct(p thrift.TProtocol, field func(id int16, typ thrift.TType) (bool, error)) error {
	ctx := context.Background()
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return err
	}
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return err
		}
		if typ == thrift.STOP {
			break
		}
		read, err := field(id, typ)
		if err == nil && !read {
			err = p.Skip(ctx, typ)
		}
		if err != nil {
			return err
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	return p.ReadStructEnd(ctx)
}
