package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
)

// StatsColumns are the columns of stats.parquet, in file order; the types,
// units and nulls are documented in docs/archive.md.
var StatsColumns = []arrow.Field{
	{Name: "entry_id", Type: arrow.BinaryTypes.String},
	{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "fingerprint", Type: arrow.BinaryTypes.String},
	{Name: "gpu", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "gpu_count", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "model", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "precision", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "engine", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "engine_version", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "level", Type: arrow.BinaryTypes.String},
	{Name: "level_mode", Type: arrow.BinaryTypes.String},
	{Name: "level_value", Type: arrow.PrimitiveTypes.Float64},
	{Name: "level_arrival", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "run", Type: arrow.BinaryTypes.String},
	{Name: "repeat", Type: arrow.PrimitiveTypes.Int32},
	{Name: "statistic", Type: arrow.BinaryTypes.String},
	{Name: "unit", Type: arrow.BinaryTypes.String},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}

// SeriesColumns are the columns stats.parquet has after StatsColumns when
// the entry's sweep has series labels (a configuration per level): the
// series as text ("max_num_seqs=128, tp=2", names sorted) and as a map of
// label name to value, so that a query can filter on one label. Both are
// null on a row of an unlabelled series. A sweep without labels has
// StatsColumns only, so its file is what it was before series existed.
var SeriesColumns = []arrow.Field{
	{Name: "series", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "series_labels", Type: seriesLabelsType(), Nullable: true},
}

// seriesLabelsType is MAP<string, string> with values never null: the
// Parquet MAP logical type, which DuckDB, Spark and Trino read as a map.
func seriesLabelsType() *arrow.MapType {
	m := arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
	m.SetItemNullable(false)
	return m
}

// HasSeries reports whether any level of a summary has series labels:
// then its entry's stats.parquet has SeriesColumns and its entry.json is
// of schema EntrySchema rather than EntrySchemaV1.
func HasSeries(s *analyze.Summary) bool {
	for _, l := range s.Levels {
		if !l.Series.IsZero() {
			return true
		}
	}
	return false
}

// envColumns are the environment fields copied into every row, by their
// canonical key (the column has the same name).
var envColumns = []string{"gpu", "gpu_count", "model", "precision", "engine", "engine_version"}

// WriteStats writes an entry's stats.parquet: one row per level, run and
// per-run statistic (compare.RunValues), with the entry's identity, time,
// label, fingerprint and key environment fields on every row, and, when
// the sweep has series labels (HasSeries), each row's series in
// SeriesColumns. The output depends only on its arguments.
func WriteStats(w io.Writer, e Entry, s *analyze.Summary) error {
	cols := StatsColumns
	withSeries := HasSeries(s)
	if withSeries {
		cols = append(append([]arrow.Field{}, StatsColumns...), SeriesColumns...)
	}
	schema := arrow.NewSchema(cols, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	env := map[string]string{}
	for _, f := range e.Profile.Environment {
		env[f.Key] = f.Value
	}
	ts := arrow.Timestamp(e.When().UnixMicro())
	str := func(i int) *array.StringBuilder { return b.Field(i).(*array.StringBuilder) }
	optional := func(sb *array.StringBuilder, v string) {
		if v == "" {
			sb.AppendNull()
		} else {
			sb.Append(v)
		}
	}
	for _, v := range compare.RunValues(s) {
		str(0).Append(e.ID)
		b.Field(1).(*array.TimestampBuilder).Append(ts)
		optional(str(2), e.Label)
		str(3).Append(e.Fingerprint)
		for k, key := range envColumns {
			optional(str(4+k), env[key])
		}
		str(10).Append(v.Level.Label())
		str(11).Append(v.Level.Mode)
		b.Field(12).(*array.Float64Builder).Append(v.Level.Value)
		optional(str(13), v.Level.Arrival)
		str(14).Append(v.Run)
		b.Field(15).(*array.Int32Builder).Append(int32(v.Repeat))
		str(16).Append(v.Key)
		str(17).Append(v.Unit)
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			b.Field(18).(*array.Float64Builder).AppendNull()
		} else {
			b.Field(18).(*array.Float64Builder).Append(v.Value)
		}
		if withSeries {
			appendSeries(str(19), b.Field(20).(*array.MapBuilder), v.Level.Series)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	// Hide any Close method: the Parquet writer would close w.
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// appendSeries appends a row's series: its text and its map of labels,
// both null for the unlabelled series.
func appendSeries(text *array.StringBuilder, labels *array.MapBuilder, s ingest.Series) {
	if s.IsZero() {
		text.AppendNull()
		labels.AppendNull()
		return
	}
	text.Append(s.String())
	labels.Append(true)
	names := labels.KeyBuilder().(*array.StringBuilder)
	values := labels.ItemBuilder().(*array.StringBuilder)
	for _, n := range s.Names() {
		v, _ := s.Get(n)
		names.Append(n)
		values.Append(v)
	}
}

// StatRow is one row of stats.parquet as history reads it.
type StatRow struct {
	Level  compare.LevelID
	Run    string
	Repeat int
	Key    string
	// Value is NaN for a null.
	Value float64
}

// ReadStats reads the rows of an entry's stats.parquet whose statistic is
// in keys (every row when keys is nil). The file must match sum, the size
// and SHA-256 recorded in entry.json, before it is parsed: the Parquet
// reader trusts the lengths a file claims (a damaged file can make it
// allocate gigabytes or panic), so only the bytes benchnote wrote reach it.
// A panic of the reader becomes an error as well.
func ReadStats(path string, sum InputFile, keys map[string]bool) (rows []StatRow, err error) {
	data, err := readVerified(path, sum)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			rows, err = nil, fmt.Errorf("%s: damaged stats.parquet: %v", path, r)
		}
	}()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Close()
	// One batch for the whole (small) file: the reader reserves a batch's
	// worth of memory per column up front.
	batch := min(max(pf.NumRows(), 1), 64<<10)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batch}, memory.NewGoAllocator())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	want := []string{"level_mode", "level_value", "level_arrival", "run", "repeat", "statistic", "value"}
	sc, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var idx []int
	for _, name := range want {
		is := sc.FieldIndices(name)
		if len(is) != 1 {
			return nil, fmt.Errorf("%s: no column %q", path, name)
		}
		idx = append(idx, leaves(fr.Manifest.Fields[is[0]])...)
	}
	// The series, when the sweep has labels: read from the map, which
	// holds every label as it is (the text form does not: a value may
	// hold ", " or "=").
	withSeries := false
	switch is := sc.FieldIndices("series_labels"); len(is) {
	case 0:
	case 1:
		withSeries = true
		idx = append(idx, leaves(fr.Manifest.Fields[is[0]])...)
	default:
		return nil, fmt.Errorf("%s: %d columns %q", path, len(is), "series_labels")
	}
	rr, err := fr.GetRecordReader(context.Background(), idx, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rr.Release()
	var out []StatRow
	for rr.Next() {
		rec := rr.Record()
		mode, ok1 := rec.Column(0).(*array.String)
		lv, ok2 := rec.Column(1).(*array.Float64)
		arrival, ok7 := rec.Column(2).(*array.String)
		run, ok3 := rec.Column(3).(*array.String)
		rep, ok4 := rec.Column(4).(*array.Int32)
		key, ok5 := rec.Column(5).(*array.String)
		val, ok6 := rec.Column(6).(*array.Float64)
		if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
			return nil, fmt.Errorf("%s: columns do not have the documented types", path)
		}
		var series func(i int) (ingest.Series, error)
		if withSeries {
			if series, err = seriesReader(rec.Column(7)); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			k := key.Value(i)
			if keys != nil && !keys[k] {
				continue
			}
			v := math.NaN()
			if val.IsValid(i) {
				v = val.Value(i)
			}
			var arr string
			if arrival.IsValid(i) {
				arr = arrival.Value(i)
			}
			level := compare.LevelID{Mode: mode.Value(i), Value: lv.Value(i), Arrival: arr}
			if series != nil {
				if level.Series, err = series(i); err != nil {
					return nil, fmt.Errorf("%s: run %q: %w", path, run.Value(i), err)
				}
			}
			out = append(out, StatRow{Level: level, Run: run.Value(i), Repeat: int(rep.Value(i)), Key: k, Value: v})
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// leaves returns the Parquet leaf columns of a field, in order: the
// column indices the record reader takes.
func leaves(f pqarrow.SchemaField) []int {
	// Not IsLeaf: a group's ColIndex is left 0, not -1.
	if len(f.Children) == 0 {
		return []int{f.ColIndex}
	}
	var out []int
	for _, c := range f.Children {
		out = append(out, leaves(c)...)
	}
	return out
}

// seriesReader returns the series of each row of a series_labels column:
// the zero series for a null, else the labels, checked as
// ingest.NewSeries checks them.
func seriesReader(col arrow.Array) (func(int) (ingest.Series, error), error) {
	m, ok := col.(*array.Map)
	if !ok {
		return nil, errors.New("column \"series_labels\" is not a map")
	}
	names, ok1 := m.Keys().(*array.String)
	values, ok2 := m.Items().(*array.String)
	if !ok1 || !ok2 {
		return nil, errors.New("column \"series_labels\" is not a map of strings to strings")
	}
	// Rows of one level share a series: decode it once.
	var last ingest.Series
	var lastPairs [][2]string
	same := func(start, end int64) bool {
		if lastPairs == nil || int(end-start) != len(lastPairs) {
			return false
		}
		for j := start; j < end; j++ {
			p := lastPairs[j-start]
			if !values.IsValid(int(j)) || names.Value(int(j)) != p[0] || values.Value(int(j)) != p[1] {
				return false
			}
		}
		return true
	}
	return func(i int) (ingest.Series, error) {
		if m.IsNull(i) {
			return ingest.Series{}, nil
		}
		start, end := m.ValueOffsets(i)
		if same(start, end) {
			return last, nil
		}
		labels := make(map[string]string, end-start)
		pairs := make([][2]string, 0, end-start)
		for j := start; j < end; j++ {
			n := names.Value(int(j))
			if !values.IsValid(int(j)) {
				return ingest.Series{}, fmt.Errorf("series label %q without a value", n)
			}
			if _, dup := labels[n]; dup {
				return ingest.Series{}, fmt.Errorf("series label %q twice", n)
			}
			labels[n] = values.Value(int(j))
			pairs = append(pairs, [2]string{n, labels[n]})
		}
		s, err := ingest.NewSeries(labels)
		if err != nil {
			return ingest.Series{}, fmt.Errorf("series: %w", err)
		}
		last, lastPairs = s, pairs
		return s, nil
	}, nil
}

// readVerified reads a file that must have the recorded size and SHA-256,
// reading no more than the recorded size plus one byte.
func readVerified(path string, sum InputFile) ([]byte, error) {
	if sum.Bytes <= 0 || len(sum.SHA256) != 64 {
		return nil, fmt.Errorf("%s: no size and SHA-256 recorded for it in %s", path, EntryFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, sum.Bytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	got := sha256.Sum256(data)
	if int64(len(data)) != sum.Bytes || hex.EncodeToString(got[:]) != sum.SHA256 {
		return nil, fmt.Errorf("%s: does not match the size and SHA-256 recorded in %s (damaged or changed since it was written): not read", path, EntryFile)
	}
	return data, nil
}
