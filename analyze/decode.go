package analyze

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxSummaryBytes bounds the size of a summary.json that DecodeSummary
// reads. A summary grows with the number of runs (about 60 KB each, most
// of it the warm-up trace), not with the number of requests; a file past
// this bound is refused rather than read into memory.
const MaxSummaryBytes = 1 << 30

// DecodeSummary reads a summary.json written by benchnote report. name is
// only used in messages. It refuses a file whose schema is not
// SchemaVersion, a file larger than MaxSummaryBytes, trailing data, and a
// summary whose per-run statistics do not line up with its runs (see
// Summary.Validate).
func DecodeSummary(r io.Reader, name string) (*Summary, error) {
	lr := &io.LimitedReader{R: r, N: MaxSummaryBytes + 1}
	dec := json.NewDecoder(lr)
	var s Summary
	if err := dec.Decode(&s); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("%s: larger than %d bytes: not a summary.json", name, int64(MaxSummaryBytes))
		}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s:offset %d: %v", name, se.Offset, err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%s:offset %d: field %q: expected %s, got %s", name, te.Offset, te.Field, te.Type, te.Value)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:offset %d: data after the summary object", name, dec.InputOffset())
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a summary.json", name, int64(MaxSummaryBytes))
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
// in strictly ascending order, every level's runs present in Runs, and
// every per-run statistic holding one value per run of its level. The
// error names the offending field.
func (s *Summary) Validate() error {
	runs := make(map[string]bool, len(s.Runs))
	for _, r := range s.Runs {
		runs[r.Dir] = true
	}
	for i, l := range s.Levels {
		if !l.Load().Valid() {
			return fmt.Errorf("levels[%d]: mode %q with concurrency %d, rate %g is not a load level", i, l.Mode, l.Concurrency, float64(l.Rate))
		}
		if i > 0 && l.Load().Compare(s.Levels[i-1].Load()) <= 0 {
			return fmt.Errorf("levels[%d]: %s does not follow %s (levels must ascend)", i, l.Load().Describe(), s.Levels[i-1].Load().Describe())
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
	return nil
}
