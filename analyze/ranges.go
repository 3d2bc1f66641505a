package analyze

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/benchnote/benchnote/ingest"
)

// The ranges of the numbers of a Summary. Each is what benchnote can
// measure from values ingest accepts (ingest/ranges.go), with room to
// spare; a number outside its range is not a measurement. Analyze writes
// such a number as null and lists it among the exclusions (a rate over a
// window too short to time it, a server histogram's bucket bound of
// 10^300 s), and DecodeSummary refuses a summary.json holding one, so
// every reader of a Summary (report, compare, archive, history) gets
// numbers it can add, subtract, divide and draw without overflowing.
const (
	// MaxLatencyMs bounds every duration in milliseconds: latencies, gaps,
	// SLO targets, histogram bucket bounds.
	MaxLatencyMs = ingest.MaxLatencyMs
	// MaxSeconds bounds a window or a span in seconds: every Unix time
	// ingest accepts lies within it of every other.
	MaxSeconds = ingest.MaxUnixSeconds - ingest.MinUnixSeconds
	// MaxPerSecond bounds a rate: tokens or requests per second.
	MaxPerSecond = 1e12
	// MaxCount bounds a count: tokens, requests or observations, of one
	// request or summed over a window or a level (50 million requests of
	// ingest's most tokens sum to 5 × 10^16).
	MaxCount = 1e18
	// MaxRatio bounds a dimensionless statistic: a warm-up rule's
	// statistic, a slowdown, a relative difference.
	MaxRatio = 1e15
	// MaxSummaryText bounds a text (a title, notes, an environment
	// value) in bytes. Readers copy texts into their outputs, some of
	// them into each of several (compare copies the environment's values
	// into compare.json's checks): a 30 MB title made compare take 380
	// MB, fifteen environment values of 1 MiB each 360 MB.
	MaxSummaryText = 64 << 10
)

// numberRange is the range of one number of a Summary.
type numberRange struct {
	lo, hi float64
	unit   string
}

var (
	msRange      = numberRange{0, MaxLatencyMs, "ms"}
	secondsRange = numberRange{0, MaxSeconds, "s"}
	tokenRate    = numberRange{0, MaxPerSecond, "tokens/s"}
	requestRate  = numberRange{0, MaxPerSecond, "req/s"}
	percentRange = numberRange{0, 100, "%"}
	shareRange   = numberRange{0, 1, ""}
	tokenCount   = numberRange{0, MaxCount, "tokens"}
	requestCount = numberRange{0, MaxCount, "requests"}
	countRange   = numberRange{0, MaxCount, ""}
	ratioRange   = numberRange{-MaxRatio, MaxRatio, ""}
)

// unitRange is the range of a statistic in unit, as the Unit fields of
// Distribution, AcrossRuns, ServerHistogram and FigureComparison name it.
// A unit benchnote does not know (an imported tool's own) bounds the
// number only by its size.
func unitRange(unit string) numberRange {
	switch unit {
	case "ms":
		return msRange
	case "s":
		return secondsRange
	case "tokens/s", "req/s":
		return numberRange{0, MaxPerSecond, unit}
	case "%":
		return percentRange
	case "tokens", "requests", "GPUs", "W", "MiB", "J/token", "tokens/s/kW":
		return numberRange{0, MaxCount, unit}
	}
	return numberRange{-MaxCount, MaxCount, unit}
}

// fieldRange returns the range of field (its JSON name) of a struct of
// type typ; byUnit when the range is that of the unit the struct's Unit
// field names (see unitRange); false for a field without a range (a test
// checks that every number of a Summary has one).
func fieldRange(typ, field string) (r numberRange, byUnit, ok bool) {
	switch typ + "." + field {
	case "Distribution.p50", "Distribution.p95", "Distribution.p99", "Distribution.max", "Distribution.mean",
		"AcrossRuns.median", "AcrossRuns.mad", "AcrossRuns.per_run",
		"ServerHistogram.p50", "ServerHistogram.p95", "ServerHistogram.p99", "ServerHistogram.mean",
		"FigureComparison.reported", "FigureComparison.benchnote":
		return numberRange{}, true, true
	case "SLO.ttft_ms", "SLO.tpot_ms", "SLO.e2e_ms", "RunSummary.gap_weighted_itl_ms",
		"LevelBucket.lo_ms", "LevelBucket.hi_ms", "QuantileBucket.lo_ms", "QuantileBucket.hi_ms",
		"WarmupPoint.ttft_ms", "WarmupPoint.block_median_ms", "CDFPoint.value":
		return msRange, false, true
	case "SLO.attainment", "Method.counter_tolerance", "Method.error_rate_threshold", "CDFPoint.p",
		"WarmupSeries.p", "WarmupSeries.threshold":
		return shareRange, false, true
	case "Throughput.window_seconds", "Throughput.client_span_seconds", "ToolMeasured.duration_s":
		return secondsRange, false, true
	case "Throughput.output_tokens_per_s", "Throughput.prompt_tokens_per_s", "Throughput.client_output_tokens_per_s", "ToolMeasured.output_tokens_per_s":
		return tokenRate, false, true
	case "Throughput.requests_per_s", "Goodput.requests_per_s", "ToolMeasured.requests_per_s":
		return requestRate, false, true
	case "Goodput.percent", "Workload.early_stop_percent", "Level.error_percent", "Level.zero_output_percent":
		return percentRange, false, true
	case "Throughput.generation_tokens_delta", "Throughput.prompt_tokens_delta", "HistogramBin.lo", "HistogramBin.hi":
		return tokenCount, false, true
	case "WarmupLevel.cut_median", "Workload.achieved_concurrency":
		return requestCount, false, true
	case "ServerHistogram.count", "RoleCount.count":
		return countRange, false, true
	case "RaisedBucket.count", "RaisedBucket.raised_to":
		return numberRange{-MaxCount, MaxCount, ""}, false, true
	case "Throughput.counter_mismatch":
		return numberRange{0, MaxRatio, ""}, false, true
	case "WarmupSeries.slowdown", "WarmupPoint.ttft_stat", "WarmupPoint.tpot_stat":
		return ratioRange, false, true
	case "GPUSummary.coverage_percent", "GPUSummary.util_percent", "GPUFigures.coverage_percent", "GPUFigures.util_percent":
		return percentRange, false, true
	case "GPUSummary.output_tokens":
		return tokenCount, false, true
	case "GPUSummary.energy_j", "GPUSummary.power_w", "GPUSummary.memory_used_mib", "GPUSummary.j_per_output_token",
		"GPUSummary.output_tokens_per_s_per_kw", "GPUFigures.energy_j", "GPUFigures.power_w", "GPUFigures.memory_used_mib":
		return countRange, false, true
	case "LevelKey.rate":
		return numberRange{0, ingest.MaxRate, "req/s"}, false, true
	}
	return numberRange{}, false, false
}

// typePlan is how walkNumbers visits a struct type, worked out once.
type typePlan struct {
	// unit and key are the indexes of the Unit and Key fields (strings),
	// or -1.
	unit, key int
	fields    []fieldPlan
}

// fieldPlan is one field of a struct that can hold a number.
type fieldPlan struct {
	index int
	name  string // JSON name
	// embedded fields are walked as fields of the embedding struct.
	embedded bool
	// text marks a string field, or a slice of them.
	text bool
	// For a float64 field, or a slice or pointer of them: its range.
	float         bool
	rng           numberRange
	byUnit, known bool
}

var plans sync.Map // reflect.Type → *typePlan

// planOf returns the plan of a struct type.
func planOf(t reflect.Type) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	p := &typePlan{unit: -1, key: -1}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		if sf.Type.Kind() == reflect.String && (sf.Name == "Unit" || sf.Name == "Key") {
			if sf.Name == "Unit" {
				p.unit = i
			} else {
				p.key = i
			}
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		elem := sf.Type
		for elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Slice {
			elem = elem.Elem()
		}
		f := fieldPlan{index: i, name: name, embedded: sf.Anonymous && sf.Type.Kind() == reflect.Struct}
		switch elem.Kind() {
		case reflect.Float64:
			f.float = true
			f.rng, f.byUnit, f.known = fieldRange(t.Name(), name)
		case reflect.String:
			f.text = true
		case reflect.Struct:
		default:
			continue // no number or text in it
		}
		p.fields = append(p.fields, f)
	}
	plans.Store(t, p)
	return p
}

// pathSeg is one step of a JSON path, built on the stack as the walk
// descends and written out only for a number that is reported.
type pathSeg struct {
	up    *pathSeg
	name  string
	index int // -1 for a field
}

func (p *pathSeg) String() string {
	var segs []*pathSeg
	for s := p; s != nil; s = s.up {
		segs = append(segs, s)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// outOfRange is a number found outside its range, or a text too long.
type outOfRange struct {
	// where is its JSON path, with the key of its statistic if any;
	// value the number; outside what is wrong ("outside [0, 1e10] ms");
	// fixed what nullOutOfRange did ("written as null", "cut").
	where, value, outside, fixed string
}

// rangeWalk visits every float64 (Num, Rate) and string of a Summary or
// a part of one, checking it against its range (a string against
// MaxSummaryText). With null set it writes a Num out of range as NaN and
// cuts a string; otherwise it stops at the first problem.
type rangeWalk struct {
	null bool
	// nulled lists the numbers written as null; kept those out of range
	// that could not be (not a Num, or not settable), or with null
	// unset the first one.
	nulled, kept []outOfRange
}

func (w *rangeWalk) done() bool { return !w.null && len(w.kept) > 0 }

// walk visits v, a struct or a pointer to one, whose path is path.
func (w *rangeWalk) walk(v reflect.Value, path *pathSeg) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	w.walkStruct(v, path, "")
}

func (w *rangeWalk) walkStruct(v reflect.Value, path *pathSeg, key string) {
	p := planOf(v.Type())
	unit := ""
	if p.unit >= 0 {
		unit = v.Field(p.unit).String()
	}
	if p.key >= 0 {
		key = v.Field(p.key).String()
	}
	for i := range p.fields {
		f := &p.fields[i]
		if w.done() {
			return
		}
		fv := v.Field(f.index)
		if f.embedded {
			w.walkStruct(fv, path, key)
			continue
		}
		seg := pathSeg{up: path, name: f.name, index: -1}
		if f.text {
			w.walkText(fv, &seg, key)
			continue
		}
		if f.float {
			rng := f.rng
			if f.byUnit {
				rng = unitRange(unit)
			}
			w.walkFloats(fv, &seg, rng, f.known, key)
			continue
		}
		w.walkValue(fv, &seg, key)
	}
}

// walkValue visits a struct, or a pointer or slice of structs.
func (w *rangeWalk) walkValue(v reflect.Value, path *pathSeg, key string) {
	switch v.Kind() {
	case reflect.Struct:
		w.walkStruct(v, path, key)
	case reflect.Pointer:
		if !v.IsNil() {
			w.walkValue(v.Elem(), path, key)
		}
	case reflect.Slice:
		for i := 0; i < v.Len() && !w.done(); i++ {
			seg := pathSeg{up: path, index: i}
			w.walkValue(v.Index(i), &seg, key)
		}
	}
}

// walkFloats visits a float64, or a pointer or slice of them.
func (w *rangeWalk) walkFloats(v reflect.Value, path *pathSeg, rng numberRange, known bool, key string) {
	switch v.Kind() {
	case reflect.Float64:
		w.check(v, path, rng, known, key)
	case reflect.Pointer:
		if !v.IsNil() {
			w.walkFloats(v.Elem(), path, rng, known, key)
		}
	case reflect.Slice:
		for i := 0; i < v.Len() && !w.done(); i++ {
			seg := pathSeg{up: path, index: i}
			w.walkFloats(v.Index(i), &seg, rng, known, key)
		}
	}
}

// walkText visits a string, or a slice of them.
func (w *rangeWalk) walkText(v reflect.Value, path *pathSeg, key string) {
	switch v.Kind() {
	case reflect.String:
		n := v.Len()
		if n <= MaxSummaryText {
			return
		}
		o := outOfRange{where: path.String(), value: fmt.Sprintf("a text of %d bytes", n), outside: fmt.Sprintf("longer than %d bytes", MaxSummaryText)}
		if key != "" {
			o.where += " (" + shortKey(key) + ")"
		}
		if w.null && v.CanSet() {
			v.SetString(cutText(v.String(), MaxSummaryText))
			o.fixed = "cut"
			w.nulled = append(w.nulled, o)
			return
		}
		w.kept = append(w.kept, o)
	case reflect.Slice:
		for i := 0; i < v.Len() && !w.done(); i++ {
			seg := pathSeg{up: path, index: i}
			w.walkText(v.Index(i), &seg, key)
		}
	}
}

// cutText shortens s to at most n bytes, at a character boundary, ending
// it with "…".
func cutText(s string, n int) string {
	end := n - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

var (
	numType   = reflect.TypeFor[Num]()
	rateType  = reflect.TypeFor[Rate]()
	floatType = reflect.TypeFor[float64]()
)

func (w *rangeWalk) check(v reflect.Value, path *pathSeg, rng numberRange, known bool, key string) {
	f := v.Float()
	switch {
	case math.IsNaN(f) && v.Type() != floatType:
		return // null: not available
	case math.IsInf(f, 1) && v.Type() == rateType:
		return // rate inf
	case known && f >= rng.lo && f <= rng.hi:
		return
	}
	where := path.String()
	if key != "" {
		where += " (" + shortKey(key) + ")"
	}
	o := outOfRange{where: where, value: fmtBound(f), outside: "outside " + rng.String()}
	if !known {
		o.outside = "without a range (a bug: please report it)"
	}
	if w.null && known && v.Type() == numType && v.CanSet() {
		v.SetFloat(math.NaN())
		o.fixed = "written as null"
		w.nulled = append(w.nulled, o)
		return
	}
	w.kept = append(w.kept, o)
}

func (r numberRange) String() string {
	s := "[" + fmtBound(r.lo) + ", " + fmtBound(r.hi) + "]"
	if r.unit != "" {
		s += " " + r.unit
	}
	return s
}

// fmtBound writes a number in the shorter of its exact decimal and
// exponent forms, the exponent without "+" or leading zeros ("1e10",
// "253402300799", "-1.5e-7", "+Inf").
func fmtBound(f float64) string {
	g := strconv.FormatFloat(f, 'g', -1, 64)
	if mant, exp, ok := strings.Cut(g, "e"); ok {
		sign := ""
		if exp[0] == '-' {
			sign = "-"
		}
		g = mant + "e" + sign + strings.TrimLeft(exp[1:], "0")
	}
	if d := strconv.FormatFloat(f, 'f', -1, 64); len(d) < len(g) {
		return d
	}
	return g
}

// checkNumbers returns an error naming the first number of s outside its
// range.
func (s *Summary) checkNumbers() error {
	var w rangeWalk
	w.walk(reflect.ValueOf(s), nil)
	if len(w.kept) > 0 {
		return fmt.Errorf("%s: %s is %s", w.kept[0].where, w.kept[0].value, w.kept[0].outside)
	}
	return nil
}

// nullOutOfRange writes every Num of v (a pointer to a Summary or a part
// of one) that lies outside its range as null (NaN), cuts every text
// longer than MaxSummaryText, and returns the place and reason of each,
// and of any other number out of range, which cannot be null: the caller
// must keep such numbers in range.
func nullOutOfRange(v any) (nulled, kept []outOfRange) {
	w := rangeWalk{null: true}
	w.walk(reflect.ValueOf(v), nil)
	return w.nulled, w.kept
}

// keepInRange writes the numbers of a run's summary that lie outside
// their ranges as null, drops a length histogram whose bins do, and lists
// each in the ledger, so that no level statistic is computed from them.
func keepInRange(rs *RunSummary, led *ledger) {
	dropBins(&rs.Workload, rs.Dir+": workload", led)
	for i := range rs.Server {
		h := &rs.Server[i]
		kept := h.RaisedBuckets[:0]
		for _, b := range h.RaisedBuckets {
			if math.Abs(b.Count) <= MaxCount && math.Abs(b.RaisedTo) <= MaxCount {
				kept = append(kept, b)
				continue
			}
			led.add(ScopeStatistic, fmt.Sprintf("out of range (outside [%s, %s]): left out", fmtBound(-MaxCount), fmtBound(MaxCount)), 1,
				fmt.Sprintf("%s: server[%d].raised_buckets (le %s)", rs.Dir, i, b.Le))
		}
		if len(kept) == 0 {
			kept = nil
		}
		h.RaisedBuckets = kept
	}
	nulled, kept := nullOutOfRange(rs)
	recordOutOfRange(led, rs.Dir+": ", nulled, kept)
}

// keepSummaryInRange does what keepInRange does for a whole summary: the
// level figures computed from samples (pooled percentiles, CDFs, length
// histograms), server observation counts and copies in the headline.
func keepSummaryInRange(s *Summary, led *ledger) {
	for i := range s.Levels {
		lv := &s.Levels[i]
		dropBins(&lv.Workload, fmt.Sprintf("levels[%d].workload", i), led)
		kept := lv.ServerObservations[:0]
		for _, rc := range lv.ServerObservations {
			if rc.Count <= countRange.hi {
				kept = append(kept, rc)
				continue
			}
			led.add(ScopeStatistic, "out of range (outside "+countRange.String()+"): left out", 1, fmt.Sprintf("levels[%d].server_observations (%s)", i, rc.Role))
		}
		lv.ServerObservations = kept
	}
	nulled, kept := nullOutOfRange(s)
	recordOutOfRange(led, "", nulled, kept)
}

// dropBins drops a workload's length histograms whose bins lie outside
// the range of a token count.
func dropBins(w *Workload, where string, led *ledger) {
	for _, h := range []struct {
		name string
		bins *[]HistogramBin
	}{{"prompt_histogram", &w.PromptHistogram}, {"output_histogram", &w.OutputHistogram}} {
		if n := len(*h.bins); n > 0 && !((*h.bins)[0].Lo >= 0 && (*h.bins)[n-1].Hi <= tokenCount.hi) {
			*h.bins = nil
			led.add(ScopeStatistic, "out of range (outside "+tokenCount.String()+"): left out", 1, where+"."+h.name)
		}
	}
}

func recordOutOfRange(led *ledger, prefix string, nulled, kept []outOfRange) {
	for _, o := range nulled {
		led.add(ScopeStatistic, "out of range ("+o.outside+"): "+o.fixed, 1, prefix+o.where)
	}
	for _, o := range kept {
		// A number that cannot be null: summary.json will be refused
		// by DecodeSummary. Listed, so the bug is visible.
		led.add(ScopeStatistic, "out of range ("+o.outside+"): kept (a bug: please report it)", 1, prefix+o.where)
	}
}

// CheckStatistic returns an error saying that v, a per-run statistic in
// unit (as AcrossRuns.Unit names it), lies outside the range a Summary
// allows for it ("1e308 is outside [0, 1e10] ms"), or nil. NaN, "not
// available", is within.
func CheckStatistic(unit string, v float64) error {
	r := unitRange(unit)
	if math.IsNaN(v) || v >= r.lo && v <= r.hi {
		return nil
	}
	return fmt.Errorf("%s is outside %s", fmtBound(v), r)
}

// shortKey is a statistic's key as a message shows it: at most 64 bytes.
func shortKey(key string) string {
	if len(key) <= 64 {
		return key
	}
	return cutText(key, 64)
}
