package parquetpage

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// FuzzDecodeColumn mutates small valid files and decodes every column the
// decoder may read, within the fuzz budget (internal/fuzzbudget). Any
// error is fine; a panic is not, nor a page whose counts disagree (more
// values than rows, definition levels that count other than its values,
// decoded values other than its count), nor a column decoded without an
// error into other than the footer's row count. That the values are
// Arrow's is TestCorruptPages's to check: on corrupt pages Arrow's own
// readers are no reference (see there). See docs/fuzzing.md for the
// commands.
func FuzzDecodeColumn(f *testing.F) {
	f.Add(testFile(f, 30, false, parquet.WithDictionaryDefault(true), parquet.WithDataPageSize(96), parquet.WithBatchSize(8), parquet.WithCompression(compress.Codecs.Snappy)))
	f.Add(testFile(f, 30, true, parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithMaxRowGroupLength(16)))
	f.Add(testFile(f, 20, false, parquet.WithDictionaryDefault(true), parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd)))
	f.Fuzz(func(t *testing.T, data []byte) {
		md := fuzzFooter(data)
		if md == nil {
			return
		}
		var rows int64
		for g := range len(md.RowGroups) {
			rows += md.RowGroup(g).NumRows()
		}
		for leaf := range md.Schema.NumColumns() {
			c := md.Schema.Column(leaf)
			if c.MaxRepetitionLevel() != 0 || c.MaxDefinitionLevel() > 1 {
				continue
			}
			col := Column{Leaf: leaf, Type: c.PhysicalType(), Optional: c.MaxDefinitionLevel() == 1}
			var levels int64
			var err error
			fuzzbudget.Check(t, "DecodeColumn", len(data), func() {
				levels = 0
				err = DecodeColumn(md, bytes.NewReader(data), int64(len(data)), col, func(p *Page) error {
					levels += int64(p.Levels())
					return checkPage(t, p, col)
				})
			})
			if err == nil && levels != rows {
				t.Fatalf("column %d: %d values decoded for the footer's %d rows", leaf, levels, rows)
			}
			var cp *CorruptError
			if errors.As(err, &cp) && (cp.Group < 1 || cp.Page < 1) {
				t.Fatalf("column %d: %v, a corrupt page not placed", leaf, err)
			}
		}
	})
}

// fuzzFooter is the metadata of the Parquet file data, nil when Arrow
// cannot read its footer (or panics on it).
func fuzzFooter(data []byte) (md *metadata.FileMetaData) {
	defer func() {
		if recover() != nil {
			md = nil
		}
	}()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	defer pf.Close()
	return pf.MetaData()
}

// checkPage decodes page p of column col, failing t if its counts
// disagree; it returns the error of a page that cannot be decoded.
func checkPage(t *testing.T, p *Page, col Column) error {
	levels, read := p.Levels(), p.NonNull()
	if read < 0 || read > levels || !col.Optional && read != levels {
		t.Fatalf("a page of %d rows holds %d values", levels, read)
	}
	if col.Optional {
		ones := 0
		for _, d := range p.Defs() {
			ones += int(d)
		}
		if len(p.Defs()) != levels || ones != read {
			t.Fatalf("%d definition levels, %d of them 1, for %d rows and %d values", len(p.Defs()), ones, levels, read)
		}
	}
	v, err := p.Values()
	if err != nil {
		return err
	}
	if n := len(v.Int64s) + len(v.Int32s) + len(v.Float64s) + len(v.ByteArrays); n != read {
		t.Fatalf("%d values decoded of %d", n, read)
	}
	return nil
}
