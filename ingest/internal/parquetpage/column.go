package parquetpage

import (
	"fmt"
	"io"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/metadata"
)

// Column is a flat leaf column (no repetition) as the file stores it.
type Column struct {
	Leaf     int          // the leaf column index in the file's schema
	Type     parquet.Type // INT64, INT32, DOUBLE or BYTE_ARRAY
	Optional bool         // max definition level 1; else required (0)
}

// DecodeColumn decodes the chunks of column col in every row group of a
// file (md its metadata, r its bytes, size its length), in order, and
// calls page with each data page. A Page and what it returns are valid
// only until page returns.
//
// It returns ErrUnsupported, before any page when the footer tells, else
// at the first page that tells (after page has seen the pages before it);
// a *CorruptError naming the row group and page of a page it finds
// corrupt (or that page's own *CorruptError); page's error, or another
// error for a page or chunk it cannot decode, which leaves the column to
// a reader whose diagnostics are the reference.
func DecodeColumn(md *metadata.FileMetaData, r io.ReaderAt, size int64, col Column, page func(*Page) error) error {
	for g := range len(md.RowGroups) {
		cc, err := md.RowGroup(g).ColumnChunk(col.Leaf)
		if err != nil {
			return ErrUnsupported
		}
		if err := chunkUnsupported(md, cc, size); err != nil {
			return err
		}
	}
	d := newChunkDecoder(col.Type, col.Optional)
	defer d.release()
	p := &Page{d: d}
	for g := range len(md.RowGroups) {
		rg := md.RowGroup(g)
		cc, _ := rg.ColumnChunk(col.Leaf)
		if cc.NumValues() != rg.NumRows() {
			return fmt.Errorf("row group %d holds %d values of the column for %d rows", g+1, cc.NumValues(), rg.NumRows())
		}
		if err := d.reset(r, cc); err != nil {
			return err
		}
		for n := 1; ; n++ {
			err := d.next()
			if err == io.EOF {
				break
			}
			if err == nil {
				err = page(p)
			}
			if err != nil {
				return placeCorrupt(g, n, err)
			}
		}
	}
	return nil
}

// Page is one decoded data page: its definition levels, and its values,
// decoded when asked for.
type Page struct{ d *chunkDecoder }

// Levels is the page's number of rows.
func (p *Page) Levels() int { return p.d.levels }

// NonNull is the number of values the page stores: Levels less its nulls.
func (p *Page) NonNull() int { return p.d.read }

// Defs are the page's Levels definition levels, 1 for a value and 0 for a
// null, when the column is optional; nil when it is required.
func (p *Page) Defs() []int16 {
	if !p.d.opt {
		return nil
	}
	return p.d.defs[:p.d.levels]
}

// Values holds a page's decoded non-null values: only the slice of the
// column's physical type is set.
type Values struct {
	Int64s     []int64
	Int32s     []int32
	Float64s   []float64
	ByteArrays []parquet.ByteArray // views of the page's bytes
}

// Values decodes the page's values into the decoder's buffers.
func (p *Page) Values() (Values, error) {
	d := p.d
	if err := d.decodeValues(); err != nil {
		return Values{}, err
	}
	// Only the slice of the column's type: a pooled decoder's others hold
	// another column's values.
	switch d.phys {
	case parquet.Types.Int64:
		return Values{Int64s: d.ints}, nil
	case parquet.Types.Int32:
		return Values{Int32s: d.int32s}, nil
	case parquet.Types.Double:
		return Values{Float64s: d.floats}, nil
	case parquet.Types.ByteArray:
		return Values{ByteArrays: d.bytes}, nil
	}
	return Values{}, ErrUnsupported
}

// Int64s decodes the values of a page of an INT64 column into out, of
// length NonNull.
func (p *Page) Int64s(out []int64) error { return p.d.decodeInts(out) }

// Float64s decodes the values of a page of a DOUBLE column into out, of
// length NonNull.
func (p *Page) Float64s(out []float64) error { return p.d.decodeFloats(out) }

// Dictionary is the dictionary a page's values index: the values of its
// dictionary page, of which only the slice of the column's physical type
// is set.
type Dictionary struct {
	// ID tells dictionaries apart while a column is decoded: work done
	// once per dictionary can be kept by ID.
	ID int
	Values
}

// Dictionary returns the dictionary the page's values index, or false
// when the page stores its values PLAIN.
func (p *Page) Dictionary() (Dictionary, bool) {
	d := p.d
	if !d.dictEncoded {
		return Dictionary{}, false
	}
	dict := Dictionary{ID: d.dictGen}
	switch d.phys {
	case parquet.Types.Int64:
		dict.Int64s = d.dictInts
	case parquet.Types.Int32:
		dict.Int32s = d.dictInt32s
	case parquet.Types.Double:
		dict.Float64s = d.dictFloats
	case parquet.Types.ByteArray:
		dict.ByteArrays = d.dictBytes
	}
	return dict, true
}

// DecodeIndexed decodes the dictionary indices of a dictionary-encoded
// page into out (of length NonNull), each looked up in dict: a dictionary
// of the caller's, dict[i] standing for value i of the page's Dictionary.
func DecodeIndexed[T any](p *Page, dict []T, out []T) error {
	return decodeDictionary(p.d.values, dict, out)
}
