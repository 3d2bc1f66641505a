// Package parquetpagetest holds what the tests of package parquetpage and
// of its caller share: the page layouts the decoder reads, as Arrow's
// writer makes them, and a summary of a file's pages as Arrow's page
// reader walks them, to check that a file is laid out as a test means it
// to be. It is imported by tests only.
package parquetpagetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
)

// Layout is one way of writing a file with Arrow's writer that the
// decoder reads.
type Layout struct {
	Name     string
	V2       bool // data pages v2, else v1
	Codec    compress.Compression
	Dict     bool // dictionary-encoded pages, else PLAIN
	Small    bool // pages of a few rows, else one page a chunk
	Required bool // the columns without a null written required
	Props    []parquet.WriterProperty
}

// RowGroupRows is the row group length of the Layouts.
const RowGroupRows = 128

// Layouts are every layout of the decoder's matrix: data pages v1 and v2,
// each codec it knows, dictionary on and off, pages of the default size
// and of a few rows, optional and required columns.
func Layouts() []Layout {
	var layouts []Layout
	for _, v2 := range []bool{false, true} {
		for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd} {
			layouts = appendVariants(layouts, v2, codec)
		}
	}
	return layouts
}

// appendVariants appends the layouts of data pages v2 (or v1) and codec:
// dictionary on and off, small pages or not, required columns or not.
func appendVariants(layouts []Layout, v2 bool, codec compress.Compression) []Layout {
	version := parquet.DataPageV1
	if v2 {
		version = parquet.DataPageV2
	}
	for _, dict := range []bool{false, true} {
		for _, small := range []bool{false, true} {
			for _, required := range []bool{false, true} {
				l := Layout{V2: v2, Codec: codec, Dict: dict, Small: small, Required: required}
				l.Name = fmt.Sprintf("v%d-%s-%s", map[bool]int{false: 1, true: 2}[v2], codec, map[bool]string{false: "plain", true: "dict"}[dict])
				l.Props = []parquet.WriterProperty{
					parquet.WithCompression(codec), parquet.WithDictionaryDefault(dict),
					parquet.WithDataPageVersion(version), parquet.WithMaxRowGroupLength(RowGroupRows),
				}
				if small {
					l.Name += "-small"
					l.Props = append(l.Props, parquet.WithDataPageSize(96), parquet.WithBatchSize(8))
				}
				if required {
					l.Name += "-required"
				}
				layouts = append(layouts, l)
			}
		}
	}
	return layouts
}

// Check returns an error unless s, the pages of a file of columns columns
// and groups row groups, are laid out as l says.
func (l Layout) Check(s Summary, columns, groups int) error {
	switch {
	case s.Chunks != groups*columns:
		return fmt.Errorf("%d column chunks, want %d row groups of %d", s.Chunks, groups, columns)
	case l.V2 && (s.V1 != 0 || s.V2 == 0) || !l.V2 && (s.V2 != 0 || s.V1 == 0):
		return fmt.Errorf("%d v1 and %d v2 data pages", s.V1, s.V2)
	case l.Dict && (s.Plain != 0 || s.ChunksWithDict != s.Chunks) || !l.Dict && (s.DictEncoded != 0 || s.Dict != 0):
		return fmt.Errorf("%d PLAIN and %d dictionary-encoded data pages, %d chunks of %d with a dictionary", s.Plain, s.DictEncoded, s.ChunksWithDict, s.Chunks)
	case l.Small && s.MostDataPages < 8 || !l.Small && s.MostDataPages != 1:
		return fmt.Errorf("at most %d data pages a chunk", s.MostDataPages)
	}
	return nil
}

// Summary sums up the pages of a file.
type Summary struct {
	V1, V2, Dict   int // pages of each type
	DictEncoded    int // data pages of dictionary indices
	Plain          int // PLAIN data pages
	MostDataPages  int // the most data pages of one chunk
	ChunksWithDict int
	Chunks         int
	Encodings      map[parquet.Encoding]int // data pages of each encoding
}

// Summarize sums up the pages of the Parquet file data, as Arrow's page
// reader walks them; it fails tb if they cannot be walked.
func Summarize(tb testing.TB, data []byte) Summary {
	tb.Helper()
	s := Summary{Encodings: map[parquet.Encoding]int{}}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	defer pf.Close()
	for g := range pf.NumRowGroups() {
		rg := pf.RowGroup(g)
		for c := range rg.NumColumns() {
			pr, err := rg.GetColumnPageReader(c)
			if err == nil {
				err = s.addChunk(pr)
			}
			if err != nil {
				tb.Fatalf("row group %d, column %d: %v", g, c, err)
			}
		}
	}
	return s
}

// addChunk adds the pages pr reads, those of one column chunk.
func (s *Summary) addChunk(pr file.PageReader) error {
	s.Chunks++
	dataPages, dict := 0, false
	for pr.Next() {
		p := pr.Page()
		switch p.(type) {
		case *file.DictionaryPage:
			s.Dict++
			dict = true
			continue
		case *file.DataPageV1:
			s.V1++
		case *file.DataPageV2:
			s.V2++
		}
		dataPages++
		enc := parquet.Encoding(p.Encoding())
		s.Encodings[enc]++
		if enc == parquet.Encodings.Plain {
			s.Plain++
		} else {
			s.DictEncoded++
		}
	}
	s.MostDataPages = max(s.MostDataPages, dataPages)
	if dict {
		s.ChunksWithDict++
	}
	return pr.Err()
}
