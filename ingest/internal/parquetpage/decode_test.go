package parquetpage

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
)

// TestCheckSize checks the page sizes the page decoder believes before it
// allocates them: a fixed-width page may need at most 10 bytes a value
// (+64), and no page may claim more than its codec can expand its
// compressed bytes to (Snappy 22×, deflate 1032×, zstd 32768×, +64); a
// claim beyond either is a corrupt page. A page of more than
// maxBytePageLength is left to Arrow.
func TestCheckSize(t *testing.T) {
	tests := []struct {
		name  string
		phys  parquet.Type
		codec compress.Compression
		h     fullPageHeader
		want  string // "", "corrupt" or "unsupported"
	}{
		{"doubles within 10 bytes a value", parquet.Types.Double, compress.Codecs.Zstd, fullPageHeader{values: 100, uncompressed: 1064, compressed: 500}, ""},
		{"doubles beyond", parquet.Types.Double, compress.Codecs.Zstd, fullPageHeader{values: 100, uncompressed: 1065, compressed: 500}, "corrupt"},
		{"snappy at 22×", parquet.Types.ByteArray, compress.Codecs.Snappy, fullPageHeader{values: 1, uncompressed: 22*100 + 64, compressed: 100}, ""},
		{"snappy beyond", parquet.Types.ByteArray, compress.Codecs.Snappy, fullPageHeader{values: 1, uncompressed: 22*100 + 65, compressed: 100}, "corrupt"},
		{"zstd 256 MiB from 100 bytes", parquet.Types.ByteArray, compress.Codecs.Zstd, fullPageHeader{values: 1, uncompressed: 256 << 20, compressed: 100}, "corrupt"},
		{"gzip at 1032×", parquet.Types.ByteArray, compress.Codecs.Gzip, fullPageHeader{values: 1, uncompressed: 1032 * 1000, compressed: 1000}, ""},
		{"uncompressed, one byte more", parquet.Types.ByteArray, compress.Codecs.Uncompressed, fullPageHeader{values: 1, uncompressed: 1065, compressed: 1000}, "corrupt"},
		{"a page over 256 MiB", parquet.Types.ByteArray, compress.Codecs.Zstd, fullPageHeader{values: 1, uncompressed: 256<<20 + 1, compressed: 64 << 20}, "unsupported"},
	}
	for _, tt := range tests {
		d := &chunkDecoder{phys: tt.phys, codec: tt.codec}
		err := d.checkSize(tt.h)
		var cp *CorruptError
		got := ""
		switch {
		case errors.As(err, &cp):
			got = "corrupt"
		case errors.Is(err, ErrUnsupported):
			got = "unsupported"
		case err != nil:
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDictionarySizedByItsBytes checks that a dictionary page whose
// header claims more values than its bytes hold is refused before the
// dictionary is allocated: 16 bytes hold 2 doubles (or 4 BYTE_ARRAY
// lengths), not the 2^28 the header claims.
func TestDictionarySizedByItsBytes(t *testing.T) {
	for _, phys := range []parquet.Type{parquet.Types.Double, parquet.Types.Int64, parquet.Types.Int32, parquet.Types.ByteArray} {
		d := newChunkDecoder(phys, false)
		d.codec, d.left = compress.Codecs.Uncompressed, 1<<28
		h := fullPageHeader{typ: pageDictionary, uncompressed: 16, compressed: 16, values: 1 << 28, encoding: encPlain}
		err := d.readDictionary(h, make([]byte, 16))
		if err == nil || !strings.Contains(err.Error(), "a dictionary page of 16 bytes for 268435456 values") {
			t.Errorf("%v: error %v", phys, err)
		}
		if c := cap(d.dictFloats) + cap(d.dictInts) + cap(d.dictInt32s) + cap(d.dictBytes); c > 16 {
			t.Errorf("%v: %d values allocated for the dictionary", phys, c)
		}
		d.release()
	}
}
