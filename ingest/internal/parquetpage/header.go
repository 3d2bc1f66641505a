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

// readFullPageHeader reads one Thrift PageHeader with the fields decoding
// the page needs. As Arrow's reader does, it refuses a header without a
// field parquet.thrift requires: the page type and sizes, the sub-header
// the type names, and that sub-header's required fields (a field of the
// wrong Thrift type counts as absent).
func readFullPageHeader(p thrift.TProtocol) (fullPageHeader, error) {
	h := fullPageHeader{typ: -1, uncompressed: -1, compressed: -1, values: -1, compressedV2: true}
	ctx := context.Background()
	var seen [9]uint16            // seen[id]: the fields read of the struct with field id (0: the header)
	var values, encoding [9]int32 // by sub-header: the page type picks one
	err := readStruct(p, func(id int16, typ thrift.TType) (bool, error) {
		var err error
		switch {
		case id == 1 && typ == thrift.I32:
			h.typ, err = p.ReadI32(ctx)
		case id == 2 && typ == thrift.I32:
			h.uncompressed, err = p.ReadI32(ctx)
		case id == 3 && typ == thrift.I32:
			h.compressed, err = p.ReadI32(ctx)
		case (id == 5 || id == 7 || id == 8) && typ == thrift.STRUCT:
			err = readStruct(p, func(f int16, typ thrift.TType) (bool, error) {
				var err error
				switch {
				case typ == thrift.I32 && f == 1:
					values[id], err = p.ReadI32(ctx)
				case typ == thrift.I32 && f == 2 && id != 8, typ == thrift.I32 && f == 4 && id == 8:
					encoding[id], err = p.ReadI32(ctx)
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
				seen[id] |= 1 << f
				return true, err
			})
		default:
			return false, nil
		}
		seen[0] |= 1 << id
		return true, err
	})
	if err != nil {
		return h, err
	}
	if seen[0]&0b1110 != 0b1110 || h.compressed < 0 || h.uncompressed < 0 {
		return h, errors.New("a page header without its type or sizes")
	}
	// The sub-header each page type requires, and its required fields.
	var sub int
	var fields uint16
	switch h.typ {
	case pageData:
		sub, fields = 5, 0b11110 // num_values, encoding, both level encodings
	case pageDictionary:
		sub, fields = 7, 0b110 // num_values, encoding
	case pageDataV2:
		sub, fields = 8, 0b1111110 // num_values, num_nulls, num_rows, encoding, both level lengths
	default:
		return h, nil // a page next refuses to decode
	}
	if seen[0]&(1<<sub) == 0 || seen[sub]&fields != fields {
		return h, fmt.Errorf("a page header of type %d without the required fields of its sub-header", h.typ)
	}
	h.values, h.encoding = values[sub], encoding[sub]
	return h, nil
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
