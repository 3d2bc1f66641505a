// Package hostile generates the small inputs that once cost benchnote
// gigabytes or minutes, for the tests, benchmarks and corrupt-input corpus
// that keep them cheap. Large or binary cases are generated here rather
// than committed under testdata.
package hostile

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/apache/thrift/lib/go/thrift"
	xparquet "github.com/xitongsys/parquet-go/parquet"
)

// BombRows is the row count of the Parquet compression bomb of issue 7.
const BombRows = 5 << 20

// bomb is ParquetBomb(BombRows), kept because writing 5,242,880 rows takes
// seconds. TestBombIsCurrent checks it; go test ./internal/hostile
// -regenerate writes it again.
//
//go:embed testdata/bomb.parquet
var bomb []byte

// Bomb returns the Parquet compression bomb of issue 7: 5,242,880
// identical rows (request_id "same-id"), zstd and dictionary encoded, in
// under 3 KB.
func Bomb() []byte { return bytes.Clone(bomb) }

// ParquetBomb returns a requests.parquet of rows identical rows (all with
// request_id "same-id"), zstd-compressed and dictionary-encoded in one row
// group: 5,242,880 rows take under 3 KB.
func ParquetBomb(rows int) []byte {
	const block = 1 << 16
	sc := requiredSchema()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	for range min(rows, block) {
		b.Field(0).(*array.StringBuilder).Append("same-id")
		b.Field(1).(*array.Int64Builder).Append(100)
		b.Field(2).(*array.Int64Builder).Append(10)
		b.Field(3).(*array.Float64Builder).Append(50)
		b.Field(4).(*array.Float64Builder).Append(500)
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(true),
		parquet.WithMaxRowGroupLength(int64(rows)+1))
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		panic(err)
	}
	for left := rows; left > 0; left -= block {
		part := rec
		if left < block {
			part = rec.NewSlice(0, int64(left))
			defer part.Release()
		}
		if err := w.WriteBuffered(part); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// ParquetRows returns a small valid requests.parquet of n distinct rows
// (ids r1, r2, ...; 10 prompt tokens, 5 completion tokens, TTFT 20 ms,
// E2E 100 ms), snappy-compressed, in row groups of groupRows rows.
func ParquetRows(n, groupRows int) []byte {
	sc := requiredSchema()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("r%d", i+1))
		b.Field(1).(*array.Int64Builder).Append(10)
		b.Field(2).(*array.Int64Builder).Append(5)
		b.Field(3).(*array.Float64Builder).Append(20)
		b.Field(4).(*array.Float64Builder).Append(100)
	}
	rec := b.NewRecord()
	defer rec.Release()
	return writeParquet(rec, parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(int64(groupRows)))
}

func requiredSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
}

func writeParquet(rec arrow.Record, opts ...parquet.WriterProperty) []byte {
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		panic(err)
	}
	if err := w.Write(rec); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// FooterStart returns the offset of a Parquet file's Thrift footer and its
// length, read from the last eight bytes.
func FooterStart(data []byte) (offset, length int) {
	length = int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	return len(data) - 8 - length, length
}

// OpenMetricsLongLabel returns an OpenMetrics scrape (it ends with
// "# EOF") whose one counter sample carries a label value of n characters:
// with n = 4,000 the file is about 4 KB.
func OpenMetricsLongLabel(n int) []byte {
	return []byte("# TYPE vllm:generation_tokens counter\n" +
		`vllm:generation_tokens_total{model_name="` + strings.Repeat("m", n) + `"} 12345` + "\n# EOF\n")
}

// CSVLongLine returns a reader of a requests.csv whose third line (the
// second data row) is n+9 bytes long, without holding those bytes in
// memory.
func CSVLongLine(n int64) io.Reader {
	header := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"
	return io.MultiReader(strings.NewReader(header+"r1,10,5,20,100\n"),
		io.LimitReader(repeatByte('x'), n), strings.NewReader(",1,2,3,4\n"))
}

// repeatByte is an endless reader of one byte.
type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// YAMLAliasBomb returns a YAML mapping whose last key expands, through
// levels of anchors each aliasing the previous one ten times, to 10^levels
// scalars: "billion laughs" at levels 9.
func YAMLAliasBomb(levels int) []byte {
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for k := range 10 {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	fmt.Fprintf(&b, "title: *a%d\n", levels)
	return []byte(b.String())
}

// PaddedBomb is Bomb with pad bytes of key-value metadata in its footer:
// with 700,000 it is large enough for its 5,242,880 rows to pass a bound
// over the file's size.
func PaddedBomb(pad int) []byte {
	v := strings.Repeat("x", pad)
	return RewriteFooter(Bomb(), func(md *xparquet.FileMetaData) {
		md.KeyValueMetadata = append(md.KeyValueMetadata, &xparquet.KeyValue{Key: "padding", Value: &v})
	})
}

// RewriteFooter decodes a Parquet file's Thrift footer, lets edit change
// it, and returns the file with the new footer.
func RewriteFooter(data []byte, edit func(*xparquet.FileMetaData)) []byte {
	start, length := FooterStart(data)
	md := readFooter(data[start : start+length])
	edit(md)
	return appendFooter(append([]byte{}, data[:start]...), md)
}

// SetRowCounts rewrites the row counts of a Parquet footer: the file's,
// and each row group's when groups is not nil.
func SetRowCounts(data []byte, file int64, groups []int64) []byte {
	return RewriteFooter(data, func(md *xparquet.FileMetaData) {
		md.NumRows = file
		for i, g := range groups {
			md.RowGroups[i].NumRows = g
		}
	})
}

// okRequests is a small valid requests.csv.
const okRequests = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n" +
	"a,100,10,50,500\nb,100,10,60,600\nc,100,10,70,700\n"

// Sweeps names the hostile sweeps WriteSweeps makes: the small files of
// issue 7 that cost gigabytes, each in an otherwise valid sweep.
var Sweeps = []string{"openmetrics-4KB-label", "parquet-bomb", "parquet-padded-bomb", "csv-1GB-line", "yaml-alias-bomb"}

// WriteSweeps writes each sweep of Sweeps under dir. The CSV's 1 GiB line
// is a sparse run of NUL bytes: it takes no disk space.
func WriteSweeps(dir string) error {
	files := map[string][]byte{
		"openmetrics-4KB-label/c1/r1/requests.csv":       []byte(okRequests),
		"openmetrics-4KB-label/c1/r1/metrics-start.prom": bytes.Replace(OpenMetricsLongLabel(4000), []byte("} 12345"), []byte("} 12315"), 1),
		"openmetrics-4KB-label/c1/r1/metrics-end.prom":   OpenMetricsLongLabel(4000),
		"parquet-bomb/c1/r1/requests.parquet":            Bomb(),
		"parquet-padded-bomb/c1/r1/requests.parquet":     PaddedBomb(700_000),
		"csv-1GB-line/c1/r1/requests.csv":                []byte(okRequests + "d,"),
		"yaml-alias-bomb/sweep.yaml":                     YAMLAliasBomb(9),
		"yaml-alias-bomb/env.yaml":                       YAMLAliasBomb(9),
		"yaml-alias-bomb/c1/r1/requests.csv":             []byte(okRequests),
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	p := filepath.Join(dir, "csv-1GB-line", "c1", "r1", "requests.csv")
	return os.Truncate(p, int64(len(okRequests))+2+1<<30)
}

// PageSpan locates one page of a Parquet file: its header and its payload
// (the bytes after the header).
type PageSpan struct {
	RowGroup, Column int // 0-based
	Header           int64
	Offset, Length   int64 // the payload, in the file
}

// AddPageChecksums rewrites a Parquet file so that every page header
// carries the CRC-32 of its page, as parquet-mr writes them (Arrow Go v17
// writes none). Page indexes are dropped from the footer, since the pages
// move. It returns the new file and where each page's payload lies.
func AddPageChecksums(data []byte) ([]byte, []PageSpan) {
	ctx := context.Background()
	footerAt, length := FooterStart(data)
	md := readFooter(data[footerAt : footerAt+length])
	out := append([]byte{}, "PAR1"...)
	var spans []PageSpan
	for g, rg := range md.RowGroups {
		groupStart := int64(len(out))
		for c, cc := range rg.Columns {
			meta := cc.MetaData
			start := meta.DataPageOffset
			if meta.DictionaryPageOffset != nil && *meta.DictionaryPageOffset > 0 && *meta.DictionaryPageOffset < start {
				start = *meta.DictionaryPageOffset
			}
			end := start + meta.TotalCompressedSize
			newStart := int64(len(out))
			for pos := start; pos < end; {
				in := thrift.NewTMemoryBufferLen(int(end - pos))
				in.Write(data[pos:end])
				h := xparquet.NewPageHeader()
				if err := h.Read(ctx, thrift.NewTCompactProtocolConf(in, nil)); err != nil {
					panic(err)
				}
				headerLen := int64(int(end-pos) - in.Len())
				payload := data[pos+headerLen : pos+headerLen+int64(h.CompressedPageSize)]
				crc := int32(crc32.ChecksumIEEE(payload))
				h.Crc = &crc
				buf := thrift.NewTMemoryBuffer()
				if err := h.Write(ctx, thrift.NewTCompactProtocolConf(buf, nil)); err != nil {
					panic(err)
				}
				at := int64(len(out))
				switch {
				case pos == meta.DataPageOffset:
					meta.DataPageOffset = at
				case meta.DictionaryPageOffset != nil && pos == *meta.DictionaryPageOffset:
					meta.DictionaryPageOffset = &at
				}
				out = append(out, buf.Bytes()...)
				spans = append(spans, PageSpan{RowGroup: g, Column: c, Header: at, Offset: int64(len(out)), Length: int64(len(payload))})
				out = append(out, payload...)
				pos += headerLen + int64(len(payload))
			}
			meta.TotalCompressedSize = int64(len(out)) - newStart
			cc.FileOffset = newStart
			cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = nil, nil, nil, nil
		}
		rg.FileOffset = &groupStart
		size := int64(len(out)) - groupStart
		rg.TotalCompressedSize = &size
	}
	return appendFooter(out, md), spans
}

func readFooter(b []byte) *xparquet.FileMetaData {
	in := thrift.NewTMemoryBufferLen(len(b))
	in.Write(b)
	md := xparquet.NewFileMetaData()
	if err := md.Read(context.Background(), thrift.NewTCompactProtocolConf(in, nil)); err != nil {
		panic(err)
	}
	return md
}

func appendFooter(file []byte, md *xparquet.FileMetaData) []byte {
	out := thrift.NewTMemoryBuffer()
	if err := md.Write(context.Background(), thrift.NewTCompactProtocolConf(out, nil)); err != nil {
		panic(err)
	}
	footer := out.Bytes()
	file = append(file, footer...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(footer)))
	return append(file, "PAR1"...)
}
