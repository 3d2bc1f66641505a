// Package parquetpage reads the pages of Parquet column chunks itself:
// DecodeColumn decodes a flat column's pages into the caller's slices, and
// VerifyChecksums checks the CRC-32 of the pages that carry one. It is the
// fast path of ingest's Parquet reader; Apache Arrow's readers are the
// reference and the fallback.
//
// # What it decodes
//
// Flat columns (no repetition, max definition level 0 or 1) of physical
// type INT64, INT32, DOUBLE or BYTE_ARRAY, stored as data pages v1 or v2,
// uncompressed or compressed with Snappy, gzip or zstd, their values PLAIN
// or dictionary-encoded (PLAIN_DICTIONARY or RLE_DICTIONARY, the dictionary
// page PLAIN), their definition levels RLE/bit-packed. Arrow's column
// readers decode the same pages, but allocate and clear fresh buffers for
// every chunk, page and dictionary, which costs more than the decoding on
// a file of millions of rows; a decoder here keeps its buffers from chunk
// to chunk and from file to file.
//
// # Where the fallback is decided
//
// Anything else — another encoding or codec, encryption, a file from a
// parquet-mr before PARQUET-816 was fixed, an index page or a page type
// Parquet does not define, a page larger than 256 MiB — is ErrUnsupported,
// and the caller reads the column with Arrow's readers. The caller makes
// that decision, in one place (ingest's readTypedColumn); this package only
// says why not.
//
// # Corrupt input
//
// It is written never to panic, loop or allocate more than the file's real
// sizes allow. It trusts only the footer's chunk offsets and lengths
// (checked against the file's size before a byte is read), the chunk's
// value count, and the bytes themselves: a page's header is read with
// Thrift bounded by what is left of its chunk (and by 4 MiB, as Arrow
// does); a page's declared sizes must fit its chunk, its values (at most
// 10 bytes a value of a fixed-width type) and its codec's largest
// expansion before anything is allocated for them; a dictionary is sized
// by its page's bytes, not by its header's count; every run of levels or
// indices must lie within its page and every index within its dictionary.
//
// A page that breaks those rules in a way Arrow's readers mishandle (they
// read stale bytes past a page, or allocate what a corrupt index asks) is
// a *CorruptError naming its row group and page: the caller should refuse
// the file with it. Any other page it cannot decode is a plain error: the
// caller should read the file with Arrow's readers, whose diagnostics are
// the reference.
//
// Its differential tests decode files of every layout above, from Arrow's
// writer, and compare each column with what Arrow's column reader gives.
package parquetpage
