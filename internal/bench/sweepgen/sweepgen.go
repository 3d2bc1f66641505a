// Package sweepgen writes large synthetic sweeps for benchmarks: runs of
// per-request records with the eleven columns a real streaming client
// writes (request_id, prompt_tokens, completion_tokens, TTFT_ms, E2E_ms,
// t_request_sent, t_first_text, t_last_text, status, max_tokens,
// text_chunks), as zstd Parquet or as CSV.
//
// The numbers are deterministic functions of (level, run, row): the same
// Config always writes byte-identical files, so a benchmark and its DuckDB
// peer read exactly the same data. Nothing here resembles a measurement of
// real hardware; it only has the shape of one (latency growing with
// concurrency, a heavy-ish tail, a few 0- and 1-token outputs and failed
// requests, send times in order with small reorderings).
package sweepgen

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// Config says what to generate.
type Config struct {
	// Levels are the concurrency levels, one directory c<N> each.
	Levels []int
	// Runs is the number of repeats per level (run-1 … run-N).
	Runs int
	// Rows is the number of requests per run.
	Rows int
	// Format is "parquet" (zstd, 100,000-row row groups) or "csv".
	Format string
}

// Default10M is the issue-8 benchmark sweep: 5 levels × 5 runs × 400,000
// requests.
func Default10M(format string) Config {
	return Config{Levels: []int{1, 4, 16, 64, 256}, Runs: 5, Rows: 400_000, Format: format}
}

// TotalRows is the number of requests the sweep holds.
func (c Config) TotalRows() int { return len(c.Levels) * c.Runs * c.Rows }

// completeSuffix names the file written beside dir, last: a sweep with
// it is complete. It sits outside the sweep so benchnote does not list it
// as an ignored file.
const completeSuffix = ".sweepgen-complete"

// Ensure writes the sweep under dir unless a complete copy is already
// there, and returns dir. A partial directory left by an interrupted run
// (no marker) is written over, but only when it holds nothing but what
// sweepgen writes: a directory with any other file is refused.
func Ensure(dir string, cfg Config) (string, error) {
	marker := filepath.Clean(dir) + completeSuffix
	if _, err := os.Stat(marker); err == nil {
		return dir, nil
	}
	if err := onlyOwnFiles(dir); err != nil {
		return "", err
	}
	if err := Write(dir, cfg); err != nil {
		return "", err
	}
	return dir, os.WriteFile(marker, []byte(fmt.Sprintf("%+v\n", cfg)), 0o644)
}

// ownFile matches the files Write writes, relative to the sweep.
var ownFile = regexp.MustCompile(`^c[0-9]+/run-[0-9]+/requests\.(parquet|csv)$`)

// onlyOwnFiles reports an error unless dir is absent or holds only files
// Write writes (and the directories holding them).
func onlyOwnFiles(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.Type().IsRegular() || !ownFile.MatchString(filepath.ToSlash(rel)) {
			return fmt.Errorf("sweepgen: refusing to write into %s: it holds %s, which sweepgen does not write", dir, rel)
		}
		return nil
	})
}

// Write writes every run of the sweep under dir.
func Write(dir string, cfg Config) error {
	if cfg.Format != "parquet" && cfg.Format != "csv" {
		return fmt.Errorf("sweepgen: format %q: expected parquet or csv", cfg.Format)
	}
	for li, conc := range cfg.Levels {
		for r := 1; r <= cfg.Runs; r++ {
			run := filepath.Join(dir, fmt.Sprintf("c%d", conc), fmt.Sprintf("run-%d", r))
			if err := os.MkdirAll(run, 0o755); err != nil {
				return err
			}
			g := runGen{seed: uint64(li*1000 + r), conc: conc, rows: cfg.Rows}
			var err error
			if cfg.Format == "parquet" {
				err = g.writeParquet(filepath.Join(run, "requests.parquet"))
			} else {
				err = g.writeCSV(filepath.Join(run, "requests.csv"))
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Row is one generated request. Failed requests have no completion,
// TTFT, E2E, first or last text (NaN / -1).
type Row struct {
	ID                string
	Prompt            int64
	Completion        int64 // -1 when failed
	TTFTms, E2Ems     float64
	Sent, First, Last float64 // unix seconds
	Status            string
	MaxTokens         int64
	TextChunks        int64 // -1 when failed
}

// runGen generates the rows of one run.
type runGen struct {
	seed       uint64
	conc, rows int
}

const (
	t0        = 1_790_000_000.0 // unix seconds of the first request
	maxTokens = 512
)

// mix is a 64-bit finaliser (splitmix64): a well-spread hash of its input.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// unit maps a hash to (0, 1).
func unit(x uint64) float64 { return (float64(x>>11) + 0.5) / (1 << 53) }

// row returns request i.
func (g runGen) row(i int) Row {
	h := mix(g.seed<<40 ^ uint64(i))
	u1, u2, u3 := unit(h), unit(mix(h)), unit(mix(h+1))
	c := float64(g.conc)
	prompt := int64(64 + h%1900)
	completion := int64(2 + (h>>20)%400)
	switch {
	case h>>50%200 == 0:
		completion = 0
	case h>>50%200 == 1:
		completion = 1
	}
	// Lognormal-ish TTFT and TPOT that grow with concurrency.
	ttft := (40 + 3*c) * math.Exp(0.35*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2))
	tpot := (15 + 0.05*c) * (0.9 + 0.2*u3)
	e2e := ttft
	if completion > 1 {
		e2e += float64(completion-1) * tpot
	}
	ttft, e2e = math.Round(ttft*1000)/1000, math.Round(e2e*1000)/1000
	// Closed-loop sends: about conc requests in flight; neighbours may swap.
	meanE2E := (40 + 3*c) + 200*(15+0.05*c)
	sent := t0 + float64(i)*meanE2E/c/1000 + float64(h>>8%1000)/1e6
	sent = math.Round(sent*1e6) / 1e6
	r := Row{
		ID: "req-" + strconv.FormatUint(g.seed, 10) + "-" + strconv.Itoa(i), Prompt: prompt, Completion: completion,
		TTFTms: ttft, E2Ems: e2e, Sent: sent, First: sent + ttft/1000, Last: sent + e2e/1000,
		Status: "ok", MaxTokens: maxTokens, TextChunks: completion,
	}
	if h>>40%1000 == 7 { // 0.1 % failed requests
		r.Status = "HTTP 500: internal server error"
		r.Completion, r.TextChunks = -1, -1
		r.TTFTms, r.E2Ems, r.First, r.Last = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	return r
}

var header = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,t_request_sent,t_first_text,t_last_text,status,max_tokens,text_chunks\n"

func (g runGen) writeCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header)
	var b []byte
	num := func(v float64, prec int) {
		if !math.IsNaN(v) {
			b = strconv.AppendFloat(b, v, 'f', prec, 64)
		}
		b = append(b, ',')
	}
	for i := 0; i < g.rows; i++ {
		r := g.row(i)
		b = append(b[:0], r.ID...)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Prompt, 10)
		b = append(b, ',')
		if r.Completion >= 0 {
			b = strconv.AppendInt(b, r.Completion, 10)
		}
		b = append(b, ',')
		num(r.TTFTms, 3)
		num(r.E2Ems, 3)
		num(r.Sent, 6)
		num(r.First, 6)
		num(r.Last, 6)
		b = append(b, r.Status...)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.MaxTokens, 10)
		b = append(b, ',')
		if r.TextChunks >= 0 {
			b = strconv.AppendInt(b, r.TextChunks, 10)
		}
		b = append(b, '\n')
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

const rowGroupLen = 100_000

func (g runGen) writeParquet(path string) error {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "TTFT_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "E2E_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "t_request_sent", Type: arrow.PrimitiveTypes.Float64},
		{Name: "t_first_text", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "t_last_text", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String},
		{Name: "max_tokens", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text_chunks", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(rowGroupLen), parquet.WithDictionaryDefault(true))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		f.Close()
		return err
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	i64 := func(k int, v int64) {
		if v < 0 {
			bld.Field(k).AppendNull()
		} else {
			bld.Field(k).(*array.Int64Builder).Append(v)
		}
	}
	f64 := func(k int, v float64) {
		if math.IsNaN(v) {
			bld.Field(k).AppendNull()
		} else {
			bld.Field(k).(*array.Float64Builder).Append(v)
		}
	}
	for start := 0; start < g.rows; start += rowGroupLen {
		for i := start; i < min(start+rowGroupLen, g.rows); i++ {
			r := g.row(i)
			bld.Field(0).(*array.StringBuilder).Append(r.ID)
			i64(1, r.Prompt)
			i64(2, r.Completion)
			f64(3, r.TTFTms)
			f64(4, r.E2Ems)
			f64(5, r.Sent)
			f64(6, r.First)
			f64(7, r.Last)
			bld.Field(8).(*array.StringBuilder).Append(r.Status)
			i64(9, r.MaxTokens)
			i64(10, r.TextChunks)
		}
		rec := bld.NewRecord()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
