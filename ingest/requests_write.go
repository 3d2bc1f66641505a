package ingest

import (
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// writeBatchRows is the number of rows converted to Arrow at once, so the
// writer's own buffers stay bounded whatever the number of rows.
const writeBatchRows = 1 << 18

// WriteRequestsParquet writes q as a requests.parquet that
// ReadRequestsParquet reads back unchanged: the required columns
// (request_id, prompt_tokens, completion_tokens, TTFT_ms, E2E_ms) and every
// optional column q has (t_request_sent, t_first_text, t_last_text, status,
// max_tokens, text_chunks, chunk_ms as list<double>, phase), in the order
// docs/input-format.md lists them. A missing value (NaN, -1 for counts,
// including a failed request's completion_tokens, TTFT_ms and E2E_ms) is
// written as null.
//
// Pages are zstd-compressed and the file carries no time stamp or writer
// state, so the same q always gives the same bytes.
func WriteRequestsParquet(w io.Writer, q *Requests) error {
	if err := checkWritable(q); err != nil {
		return err
	}
	schema, cols := writeSchema(q)
	// Dictionaries only pay off for the repetitive text columns; the
	// timings are nearly all distinct. Arrow builds a new zstd encoder,
	// with its multi-megabyte history, for every page: the fastest level
	// and 8 MiB pages keep that cost below the compression itself.
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("status", true),
		parquet.WithDictionaryFor("phase", true),
		parquet.WithCreatedBy("benchnote"),
		parquet.WithMaxRowGroupLength(writeBatchRows),
		parquet.WithDataPageSize(8<<20),
	)
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return fmt.Errorf("requests.parquet: %w", err)
	}
	for lo := 0; lo < q.N; lo += writeBatchRows {
		rec := buildRecord(schema, cols, q, lo, min(lo+writeBatchRows, q.N))
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return fmt.Errorf("requests.parquet: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("requests.parquet: %w", err)
	}
	return nil
}

// checkWritable reports columns whose length disagrees with q.N.
func checkWritable(q *Requests) error {
	n := q.N
	bad := func(name string, got int) error {
		return fmt.Errorf("requests.parquet: column %s has %d values for %d rows", name, got, n)
	}
	if q.IDs.Len() != n {
		return bad("request_id", q.IDs.Len())
	}
	for _, c := range []struct {
		name string
		got  int
		need bool
	}{
		{"prompt_tokens", len(q.PromptTokens), true},
		{"completion_tokens", len(q.CompletionTokens), true},
		{"TTFT_ms", len(q.TTFTms), true},
		{"E2E_ms", len(q.E2Ems), true},
		{"t_request_sent", len(q.TRequestSent), q.TRequestSent != nil},
		{"t_first_text", len(q.TFirstText), q.TFirstText != nil},
		{"t_last_text", len(q.TLastText), q.TLastText != nil},
		{"status", q.Status.Len(), q.Status != nil},
		{"max_tokens", len(q.MaxTokens), q.MaxTokens != nil},
		{"text_chunks", len(q.TextChunks), q.TextChunks != nil},
		{"phase", len(q.Phase), q.Phase != nil},
	} {
		if c.need && c.got != n {
			return bad(c.name, c.got)
		}
	}
	if q.ChunkOffsets != nil {
		if len(q.ChunkOffsets) != n+1 || int(q.ChunkOffsets[n]) != len(q.ChunkMs) {
			return fmt.Errorf("requests.parquet: chunk_ms offsets do not match %d rows and %d values", n, len(q.ChunkMs))
		}
	}
	return nil
}

// writeSchema lists the columns q has, in the input contract's order.
func writeSchema(q *Requests) (*arrow.Schema, []reqColumn) {
	has := [numReqColumns]bool{
		colRequestID: true, colPromptTokens: true, colCompletionTokens: true, colTTFT: true, colE2E: true,
		colTRequestSent: q.TRequestSent != nil, colTFirstText: q.TFirstText != nil, colTLastText: q.TLastText != nil,
		colStatus: q.Status != nil, colMaxTokens: q.MaxTokens != nil, colTextChunks: q.TextChunks != nil,
		colChunkMs: q.ChunkOffsets != nil, colPhase: q.Phase != nil,
	}
	var fields []arrow.Field
	var cols []reqColumn
	for c := range numReqColumns {
		if !has[c] {
			continue
		}
		info := requestColumns[c]
		var dt arrow.DataType
		switch info.kind {
		case kindID, kindStatus, kindPhase:
			dt = arrow.BinaryTypes.String
		case kindCount:
			dt = arrow.PrimitiveTypes.Int64
		case kindNumber, kindUnixTime:
			dt = arrow.PrimitiveTypes.Float64
		case kindChunkMs:
			dt = arrow.ListOf(arrow.PrimitiveTypes.Float64)
		}
		fields = append(fields, arrow.Field{Name: info.name, Type: dt, Nullable: c != colRequestID})
		cols = append(cols, c)
	}
	return arrow.NewSchema(fields, nil), cols
}

// buildRecord converts rows [lo, hi) of q to an Arrow record.
func buildRecord(schema *arrow.Schema, cols []reqColumn, q *Requests, lo, hi int) arrow.Record {
	b := array.NewRecordBuilder(goAllocator, schema)
	defer b.Release()
	b.Reserve(hi - lo)
	for f, c := range cols {
		switch c {
		case colRequestID:
			sb := b.Field(f).(*array.StringBuilder)
			for i := lo; i < hi; i++ {
				sb.Append(q.IDs.view(i))
			}
		case colPromptTokens:
			appendInts(b.Field(f).(*array.Int64Builder), q.PromptTokens[lo:hi])
		case colCompletionTokens:
			appendInts(b.Field(f).(*array.Int64Builder), q.CompletionTokens[lo:hi])
		case colMaxTokens:
			appendInts(b.Field(f).(*array.Int64Builder), q.MaxTokens[lo:hi])
		case colTextChunks:
			appendInts(b.Field(f).(*array.Int64Builder), q.TextChunks[lo:hi])
		case colTTFT:
			appendFloats(b.Field(f).(*array.Float64Builder), q.TTFTms[lo:hi])
		case colE2E:
			appendFloats(b.Field(f).(*array.Float64Builder), q.E2Ems[lo:hi])
		case colTRequestSent:
			appendFloats(b.Field(f).(*array.Float64Builder), q.TRequestSent[lo:hi])
		case colTFirstText:
			appendFloats(b.Field(f).(*array.Float64Builder), q.TFirstText[lo:hi])
		case colTLastText:
			appendFloats(b.Field(f).(*array.Float64Builder), q.TLastText[lo:hi])
		case colStatus:
			sb := b.Field(f).(*array.StringBuilder)
			for _, k := range q.Status.Codes[lo:hi] {
				sb.Append(q.Status.Texts[k])
			}
		case colPhase:
			sb := b.Field(f).(*array.StringBuilder)
			for _, p := range q.Phase[lo:hi] {
				if p == PhaseMeasured {
					sb.Append("")
				} else {
					sb.Append(p.String())
				}
			}
		case colChunkMs:
			lb := b.Field(f).(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			for i := lo; i < hi; i++ {
				lb.Append(true)
				vb.AppendValues(q.Chunks(i), nil)
			}
		}
	}
	return b.NewRecord()
}

// appendInts appends counts, -1 (missing) as null.
func appendInts(b *array.Int64Builder, vs []int64) {
	for _, v := range vs {
		if v < 0 {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
}

// appendFloats appends numbers, NaN (missing) as null.
func appendFloats(b *array.Float64Builder, vs []float64) {
	for _, v := range vs {
		if math.IsNaN(v) {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
}
