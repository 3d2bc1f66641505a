package ingest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchnote/benchnote/internal/controls"
)

// Series is a configuration: the labels (engine, tp, max_num_seqs,
// workload, ...) that tell apart runs measured at one load level. Runs are
// repeats of each other only when their series and their level are equal.
// The zero Series is a sweep's only, unlabelled series. A Series is
// comparable, so it can key a map; its labels are kept in a canonical
// encoding, names sorted.
type Series struct {
	key string // name=value pairs, sorted by name, each ended by "\x00"
}

// Bounds of a series' labels: enough for any configuration, small enough
// that a label fits in a legend and a report's first screen.
const (
	MaxSeriesLabels     = 32
	MaxSeriesNameBytes  = 64
	MaxSeriesValueBytes = 256
)

// NewSeries makes a series of labels; it refuses a name that is not a
// label name (a letter or _, then letters, digits, _, - or .; at most
// MaxSeriesNameBytes) and a value that is empty, holds a control character
// or is longer than MaxSeriesValueBytes, and more than MaxSeriesLabels
// labels.
func NewSeries(labels map[string]string) (Series, error) {
	if len(labels) > MaxSeriesLabels {
		return Series{}, fmt.Errorf("%d labels: at most %d", len(labels), MaxSeriesLabels)
	}
	names := make([]string, 0, len(labels))
	for n, v := range labels {
		if err := checkSeriesLabel(n, v); err != nil {
			return Series{}, err
		}
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(labels[n])
		b.WriteByte(0)
	}
	return Series{key: b.String()}, nil
}

// checkSeriesLabel checks one label; see NewSeries.
func checkSeriesLabel(name, value string) error {
	if !validLabelName(name) {
		return fmt.Errorf("label name %q: expected a letter or _ then letters, digits, _, - or ., at most %d bytes", name, MaxSeriesNameBytes)
	}
	switch {
	case value == "":
		return fmt.Errorf("label %s: expected a value, got an empty one", name)
	case len(value) > MaxSeriesValueBytes:
		return fmt.Errorf("label %s: a value of %d bytes, at most %d", name, len(value), MaxSeriesValueBytes)
	case !utf8.ValidString(value) || strings.IndexFunc(value, controls.Is) >= 0:
		return fmt.Errorf("label %s: value %q holds a control character or invalid UTF-8", name, value)
	}
	return nil
}

// validLabelName reports whether s is a label name; see NewSeries.
func validLabelName(s string) bool {
	if s == "" || len(s) > MaxSeriesNameBytes {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// IsZero reports whether s is the unlabelled series.
func (s Series) IsZero() bool { return s.key == "" }

// each calls f with every label in name order.
func (s Series) each(f func(name, value string)) {
	for rest := s.key; rest != ""; {
		pair, next, _ := strings.Cut(rest, "\x00")
		n, v, _ := strings.Cut(pair, "=")
		f(n, v)
		rest = next
	}
}

// Labels returns the labels as a new map (nil for the zero series).
func (s Series) Labels() map[string]string {
	if s.IsZero() {
		return nil
	}
	m := map[string]string{}
	s.each(func(n, v string) { m[n] = v })
	return m
}

// Names returns the label names, sorted.
func (s Series) Names() []string {
	var out []string
	s.each(func(n, _ string) { out = append(out, n) })
	return out
}

// Get returns the value of label name, and whether s has it.
func (s Series) Get(name string) (string, bool) {
	v, ok := "", false
	s.each(func(n, val string) {
		if n == name {
			v, ok = val, true
		}
	})
	return v, ok
}

// String writes the labels as "name=value, name=value" in name order; ""
// for the zero series.
func (s Series) String() string { return s.Only(nil) }

// Only writes the labels whose names are in names (all of them when names
// is nil) as String does.
func (s Series) Only(names []string) string {
	var parts []string
	s.each(func(n, v string) {
		if names == nil || slices.Contains(names, n) {
			parts = append(parts, n+"="+v)
		}
	})
	return strings.Join(parts, ", ")
}

// With returns s with the labels of o added, o's value winning where both
// have a label; an error when that makes too many labels.
func (s Series) With(o Series) (Series, error) {
	if o.IsZero() {
		return s, nil
	}
	m := s.Labels()
	if m == nil {
		m = map[string]string{}
	}
	o.each(func(n, v string) { m[n] = v })
	return NewSeries(m)
}

// Compare orders series: label by label in name order, a value that reads
// as a number before one that does not and numbers by value (tp=2 before
// tp=16), then by text; a series that is a prefix of another first.
func (s Series) Compare(o Series) int {
	a, b := s.pairs(), o.pairs()
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i][0], b[i][0]); c != 0 {
			return c
		}
		if c := compareValues(a[i][1], b[i][1]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func (s Series) pairs() [][2]string {
	var out [][2]string
	s.each(func(n, v string) { out = append(out, [2]string{n, v}) })
	return out
}

// compareValues orders two label values: numbers first, by value, then
// text.
func compareValues(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil && x != y:
		if x < y {
			return -1
		}
		return 1
	case errA == nil && errB != nil:
		return -1
	case errA != nil && errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// MarshalJSON writes the labels as a JSON object, names sorted.
func (s Series) MarshalJSON() ([]byte, error) {
	m := s.Labels()
	if m == nil {
		m = map[string]string{}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a JSON object of labels, checked as NewSeries does.
func (s *Series) UnmarshalJSON(data []byte) error {
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("series: expected an object of text labels: %w", err)
	}
	out, err := NewSeries(m)
	if err != nil {
		return fmt.Errorf("series: %w", err)
	}
	*s = out
	return nil
}

// Differing returns the label names whose values are not the same in
// every one of series (a label some lack counts as differing), sorted, and
// the labels every one shares, as one series.
func Differing(series []Series) (names []string, common Series) {
	if len(series) == 0 {
		return nil, Series{}
	}
	all := map[string]bool{}
	for _, s := range series {
		for _, n := range s.Names() {
			all[n] = true
		}
	}
	shared := map[string]string{}
	for n := range all {
		v0, ok0 := series[0].Get(n)
		same := ok0
		for _, s := range series[1:] {
			if v, ok := s.Get(n); !ok || v != v0 {
				same = false
				break
			}
		}
		if same {
			shared[n] = v0
		} else {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	common, _ = NewSeries(shared)
	return names, common
}
