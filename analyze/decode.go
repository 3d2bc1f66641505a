package analyze

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"

	"github.com/benchnote/benchnote/ingest"
)

// MaxSummaryBytes bounds the size of a summary.json that DecodeSummary
// reads. A summary grows with the number of runs (about 50 KB each as
// benchnote writes it, up to some 250 KB with the longest warm-up trace),
// not with the number of requests: 64 MiB holds some 1,300 runs, or 250
// at the longest trace. A larger file is refused before it is read (by
// its size, when it is a file) or as soon as the bound is passed.
const MaxSummaryBytes = 64 << 20

// MaxSummaryMemory bounds the memory a summary may take once decoded, as
// DecodeSummary estimates it from the JSON before decoding: a summary
// benchnote writes is estimated at about 0.3 bytes per byte of JSON (18
// MiB for one of MaxSummaryBytes), but JSON of the right shape can take
// 600 (a run list of 100,000 "{}"s is 300 KB of JSON and 200 MB of runs).
const MaxSummaryMemory = 32 << 20

// DecodeSummary reads a summary.json written by benchnote report. name is
// only used in messages. It refuses a file whose schema is not
// SchemaVersion, a file larger than MaxSummaryBytes or whose decoded
// summary would take more than MaxSummaryMemory, trailing data, and a
// summary whose per-run statistics do not line up with its runs or whose
// numbers are out of range (see Summary.Validate).
//
// When r is a file (it has a Stat method), a size beyond MaxSummaryBytes
// is refused before anything is read; the size is never trusted
// otherwise: no more than MaxSummaryBytes + 1 bytes are read whatever it
// says. Decoding needs the file's bytes and the decoded summary in
// memory at once, at most MaxSummaryBytes + MaxSummaryMemory.
func DecodeSummary(r io.Reader, name string) (*Summary, error) {
	data, err := readSummary(r, name)
	if err != nil {
		return nil, err
	}
	// Before anything is decoded: the memory it would take, and trailing
	// data (a second value; encoding/json would call it a syntax error).
	end, _, err := decodedSize(data, reflect.TypeFor[Summary](), MaxSummaryMemory)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, fmt.Errorf("%s:offset %d: decoded, the summary would take more than %d MiB of memory: not a summary.json benchnote wrote", name, end, MaxSummaryMemory>>20)
	case err == nil:
		if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
			return nil, fmt.Errorf("%s:offset %d: data after the summary object", name, len(data)-len(rest))
		}
	}
	// Any other error is malformed JSON, which Unmarshal reports.
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s:offset %d: %v", name, se.Offset, err)
		case errors.As(err, &te):
			want := te.Type.String()
			switch te.Type {
			case reflect.TypeFor[Num]():
				want = "a number within ±MaxFloat64, or null"
			case reflect.TypeFor[Rate]():
				want = `a number within ±MaxFloat64, or "inf"`
			}
			if te.Offset == 0 {
				// A value's own UnmarshalJSON does not know its offset.
				return nil, fmt.Errorf("%s: field %q: expected %s, got %s", name, te.Field, want, te.Value)
			}
			return nil, fmt.Errorf("%s:offset %d: field %q: expected %s, got %s", name, te.Offset, te.Field, want, te.Value)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.Schema == previousSchema {
		s.Schema = SchemaVersion // v3 is v4 without series
	}
	if s.Schema != SchemaVersion {
		if s.Schema == "" {
			return nil, fmt.Errorf("%s: no \"schema\" field: not a benchnote summary.json (expected %q)", name, SchemaVersion)
		}
		return nil, fmt.Errorf("%s: schema %q, expected %q (written by another benchnote version: re-run benchnote report on the sweep)", name, s.Schema, SchemaVersion)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// Validate checks the invariants that readers of a Summary rely on: levels
// in strictly ascending order, every level's runs present in Runs, every
// per-run statistic holding one value per run of its level, and every
// number within the range benchnote can produce (see MaxLatencyMs and
// the other bounds: null, "not available", is always allowed). The error
// names the offending field by its JSON path.
func (s *Summary) Validate() error {
	runs := make(map[string]bool, len(s.Runs))
	for i, r := range s.Runs {
		runs[r.Dir] = true
		if r.Concurrency < 0 || r.Concurrency > ingest.MaxConcurrency {
			return fmt.Errorf("runs[%d].concurrency: %d is outside [0, %d]", i, r.Concurrency, ingest.MaxConcurrency)
		}
		if !knownArrival(r.Arrival) {
			return fmt.Errorf("runs[%d].arrival: %q is not an arrival process (expected %s, %s or %s)", i, r.Arrival, ingest.ArrivalPoisson, ingest.ArrivalConstant, ingest.ArrivalGamma)
		}
	}
	for i, l := range s.Levels {
		if !l.Load().Valid() || l.Concurrency > ingest.MaxConcurrency {
			return fmt.Errorf("levels[%d]: mode %q with concurrency %d, rate %g is not a load level", i, l.Mode, l.Concurrency, float64(l.Rate))
		}
		if !knownArrival(l.Arrival) {
			return fmt.Errorf("levels[%d].arrival: %q is not an arrival process (expected %s, %s or %s)", i, l.Arrival, ingest.ArrivalPoisson, ingest.ArrivalConstant, ingest.ArrivalGamma)
		}
		if i > 0 {
			prev := s.Levels[i-1]
			c := l.Series.Compare(prev.Series)
			if c == 0 {
				c = l.Load().Compare(prev.Load())
			}
			if c <= 0 {
				return fmt.Errorf("levels[%d]: %s does not follow %s (levels must ascend, series by series)", i, describeLevel(l.LevelKey), describeLevel(prev.LevelKey))
			}
		}
		for j, dir := range l.Runs {
			if !runs[dir] {
				return fmt.Errorf("levels[%d].runs[%d]: run %q is not in runs[]", i, j, dir)
			}
		}
		for j, st := range l.Stats {
			if st.Key == "" {
				return fmt.Errorf("levels[%d].stats[%d]: empty key", i, j)
			}
			if len(st.PerRun) != len(l.Runs) {
				return fmt.Errorf("levels[%d].stats[%d] (%s): %d per-run values for %d runs", i, j, st.Key, len(st.PerRun), len(l.Runs))
			}
		}
	}
	return s.checkNumbers()
}

// knownArrival reports whether a level's arrival is one ingest records,
// or none: it is written into labels and tables as it is.
func knownArrival(a string) bool {
	switch a {
	case "", ingest.ArrivalPoisson, ingest.ArrivalConstant, ingest.ArrivalGamma:
		return true
	}
	return false
}

// readSummary reads at most MaxSummaryBytes of r, refusing more. A file's
// size, when r has one, is checked first and sizes the buffer; the read
// is bounded all the same: what a file holds beyond its size, or a
// reader without one, is read in chunks (no buffer doubling, whose old
// and new copies together take three times the data) and joined once.
func readSummary(r io.Reader, name string) ([]byte, error) {
	tooLarge := fmt.Errorf("%s: larger than %d bytes (%d MiB): not a summary.json benchnote wrote", name, int64(MaxSummaryBytes), MaxSummaryBytes>>20)
	hint := 0
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if info, err := st.Stat(); err == nil && info.Mode().IsRegular() {
			if info.Size() > MaxSummaryBytes {
				return nil, tooLarge
			}
			hint = int(info.Size())
		}
	}
	buf := make([]byte, hint+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return buf[:n], nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// More than the file said, or a reader of unknown size.
	chunks, total := [][]byte{buf}, len(buf)
	for {
		c := make([]byte, min(1<<20, MaxSummaryBytes+1-total))
		n, err := io.ReadFull(r, c)
		chunks, total = append(chunks, c[:n]), total+n
		switch {
		case total > MaxSummaryBytes:
			return nil, tooLarge
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return bytes.Join(chunks, nil), nil
		case err != nil:
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
}

// describeLevel names a level in messages: its load, and its series when
// it has one.
func describeLevel(k LevelKey) string {
	if k.Series.IsZero() {
		return k.Load().Describe()
	}
	return k.Load().Describe() + " of series " + k.Series.String()
}
