package compare

import (
	"fmt"
	"strconv"
	"strings"
)

// Corrections for many tests at once.
const (
	CorrectionNone = "none"
	CorrectionHolm = "holm"
)

// Options tunes Compare. Start from DefaultOptions.
type Options struct {
	// Alpha is the significance level of each test (or of the family,
	// under a correction).
	Alpha float64 `json:"alpha"`
	// Correction is CorrectionNone or CorrectionHolm.
	Correction string `json:"correction"`
	// Threshold is the smallest relative change (0.05 = 5 %) that can be
	// flagged, for every metric measured on a ratio scale.
	Threshold float64 `json:"threshold"`
	// GoodputThreshold and ErrorRateThreshold are the smallest changes, in
	// percentage points, that can be flagged for goodput and the error
	// rate. A rise of the error rate beyond ErrorRateThreshold also fails
	// the gate by default (see Gate).
	GoodputThreshold   float64 `json:"goodput_threshold_pp"`
	ErrorRateThreshold float64 `json:"error_rate_threshold_pp"`
	// Overrides are per-metric thresholds, by key ("ttft.p99") or family
	// ("ttft"); a key wins over its family.
	Overrides []Threshold `json:"overrides"`
	// Expect lists the comparability keys declared as intended changes.
	Expect []string `json:"expect"`
	// Attainment is the percentage goodput a level must reach (median
	// across runs) to count as meeting the SLO.
	Attainment float64 `json:"attainment_percent"`
	// Series, when set, keeps on both sides only the series it matches
	// (--series).
	Series Selector `json:"series,omitzero"`
	// Pair, when set, compares one series of each side, levels matched by
	// load alone (--base-series, --new-series). Not with Series.
	Pair *SeriesPair `json:"series_pair,omitempty"`
	// Gate is the gate's family of statistics (keys of Headline), tested
	// per series across levels; empty means DefaultGate (--gate).
	Gate []string `json:"gate,omitempty"`
	// PerLevel adds each level's test of the family's statistics to the
	// family (--per-level).
	PerLevel bool `json:"per_level,omitempty"`
	// NoTest flags a family statistic on its threshold alone, without a
	// statistical test: for sweeps where none is possible (--no-test).
	NoTest bool `json:"no_test,omitempty"`
}

// DefaultOptions returns α = 0.05 with Holm's correction over the gate's
// family, a 5 % threshold, 5 pp for goodput, 1 pp for the error rate and
// 90 % attainment.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, Correction: CorrectionHolm, Threshold: 0.05,
		GoodputThreshold: 5, ErrorRateThreshold: 1, Attainment: 90}
}

// Threshold is one threshold from the command line.
type Threshold struct {
	// Key is a metric key or family; empty for the default relative
	// threshold.
	Key string `json:"key"`
	// Value is a fraction (0.1 = 10 %) or, with Points, percentage points.
	Value  float64 `json:"value"`
	Points bool    `json:"points"`
}

// MaxThreshold is the largest threshold accepted, in percent or in
// percentage points: far beyond any change worth flagging, and low enough
// that every threshold is a finite number.
const MaxThreshold = 1_000_000

// ParseThreshold reads "10%" (the default relative threshold),
// "ttft.p99=10%" or "ttft=10%" (a metric or family), or "goodput=2pp"
// (percentage points, for goodput and the error rate).
func ParseThreshold(s string) (Threshold, error) {
	var t Threshold
	val := s
	if k, v, ok := strings.Cut(s, "="); ok {
		t.Key, val = strings.TrimSpace(k), v
		if t.Key == "" {
			return t, fmt.Errorf("threshold %q: empty metric before '='", s)
		}
	}
	val = strings.TrimSpace(val)
	switch {
	case strings.HasSuffix(val, "pp"):
		t.Points = true
		val = strings.TrimSuffix(val, "pp")
	case strings.HasSuffix(val, "%"):
		val = strings.TrimSuffix(val, "%")
	default:
		return t, fmt.Errorf("threshold %q: expected a percentage like 5%% or percentage points like 2pp", s)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || !(f >= 0 && f <= MaxThreshold) { // NaN fails both
		return t, fmt.Errorf("threshold %q: %q is not a number from 0 to %d", s, strings.TrimSpace(val), MaxThreshold)
	}
	if t.Points {
		t.Value = f
	} else {
		t.Value = f / 100
	}
	return t, nil
}

// String is the threshold as --threshold takes it: "5%", "ttft.p99=10%",
// "goodput=2pp". ParseThreshold reads it back to the same key and kind and
// to the value within a unit in the last place (a percentage is stored
// as a fraction: ×100 and ÷100 may round).
func (t Threshold) String() string {
	v, unit := t.Value*100, "%"
	if t.Points {
		v, unit = t.Value, "pp"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64) + unit
	if t.Key != "" {
		s = t.Key + "=" + s
	}
	return s
}

// Validate checks the options and every override against the headline
// metrics: a metric changing in percentage points takes "pp", the others
// take "%".
func (o Options) Validate() error {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("alpha %v: expected a number between 0 and 1", o.Alpha)
	}
	if o.Correction != CorrectionNone && o.Correction != CorrectionHolm {
		return fmt.Errorf("correction %q: expected %q or %q", o.Correction, CorrectionNone, CorrectionHolm)
	}
	if !(o.Attainment > 0 && o.Attainment <= 100) {
		return fmt.Errorf("attainment %v: expected a percentage in (0, 100]", o.Attainment)
	}
	for _, th := range []struct {
		name     string
		v, scale float64
	}{{"threshold", o.Threshold, 100}, {"goodput threshold", o.GoodputThreshold, 1}, {"error-rate threshold", o.ErrorRateThreshold, 1}} {
		if !(th.v >= 0 && th.v*th.scale <= MaxThreshold) {
			return fmt.Errorf("%s %v: expected a number from 0 to %g", th.name, th.v, MaxThreshold/th.scale)
		}
	}
	if len(o.Gate) > 0 {
		if err := CheckGate(o.Gate); err != nil {
			return err
		}
	}
	if o.Pair != nil && !o.Series.IsZero() {
		return fmt.Errorf("--series selects series on both sides; --base-series and --new-series pick one on each: give one or the other")
	}
	for _, t := range o.Overrides {
		scale := 100.0
		if t.Points {
			scale = 1
		}
		if !(t.Value >= 0 && t.Value*scale <= MaxThreshold) {
			return fmt.Errorf("threshold for %q: %v: expected a number from 0 to %g", t.Key, t.Value, MaxThreshold/scale)
		}
		var matched []Metric
		for _, m := range Headline {
			if m.Key == t.Key || m.Family == t.Key {
				matched = append(matched, m)
			}
		}
		if len(matched) == 0 {
			var keys []string
			for _, m := range Headline {
				keys = append(keys, m.Key)
			}
			return fmt.Errorf("threshold for %q: not a headline metric or family (expected one of %s, or a family such as ttft)", t.Key, strings.Join(keys, ", "))
		}
		for _, m := range matched {
			if m.Points != t.Points {
				if m.Points {
					return fmt.Errorf("threshold for %q: %s changes in percentage points: write it as NUMBERpp", t.Key, m.Name)
				}
				return fmt.Errorf("threshold for %q: %s changes relatively: write it as NUMBER%%", t.Key, m.Name)
			}
		}
	}
	return CheckExpect(o.Expect)
}

// ThresholdFor returns the threshold applying to a metric: a fraction, or
// percentage points when m.Points.
func (o Options) ThresholdFor(m Metric) float64 {
	v := o.Threshold
	switch m.Key {
	case GoodputKey:
		v = o.GoodputThreshold
	case ErrorRateKey:
		v = o.ErrorRateThreshold
	}
	for _, t := range o.Overrides {
		if t.Key == m.Family && t.Key != m.Key {
			v = t.Value
		}
	}
	for _, t := range o.Overrides {
		if t.Key == m.Key {
			v = t.Value
		}
	}
	return v
}
