package ingest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Reasons recorded on scrape diagnostics.
const (
	reasonSyntax        = "syntax"
	reasonReadError     = "read error"
	reasonSeveralSeries = "several series"
	reasonNoMatch       = "no matching series"
	reasonWrongType     = "wrong type"
	reasonNaN           = "nan"
	reasonInf           = "inf"
)

// ParseScrape reads one Prometheus /metrics dump and reduces it to the
// metrics named in names. path is used only in messages and Scrape.Path.
//
// The input is the text format 0.0.4, or OpenMetrics 1.0 when it has a
// "# EOF" line; both are parsed by github.com/prometheus/common/expfmt's
// text format parser.
// Before parsing, a UTF-8 byte-order mark is dropped, CRLF line ends become
// LF, a missing final newline is added (text format) and blank lines after
// "# EOF" are dropped (OpenMetrics). None of this moves a line number. A file
// expfmt rejects is returned as a *FileError carrying the line expfmt
// reports.
//
// OpenMetrics is not given to expfmt's OpenMetrics parser, whose cost grows
// with the square of a line's length (a 4,000-character label value took
// 40 s and 4.6 GB): openMetricsToText rewrites it, line for line, into the
// text format, which expfmt parses in linear time. See scrape_openmetrics.go.
//
// A scrape may hold at most MaxScrapeBytes, a line at most
// MaxScrapeLineBytes and a label value at most MaxLabelValueBytes; a file
// over a limit is a *FileError with reason "too large" naming the line and
// column.
//
// For each role, the candidate names are tried in order and the first one
// present in the file decides the role:
//
//   - A counter role accepts a family of type counter, gauge or untyped named
//     either as given or with "_total" added (or removed). A family of
//     another type with that name, such as the histogram
//     vllm:iteration_tokens_total, is skipped with a "wrong type" warning.
//   - A histogram role accepts a histogram family with exactly that name.
//   - Families whose name ends in "_created" are never read for a role.
//
// Within the family only series whose labels match selector are kept: every
// key must be present with exactly that value, except that an empty value
// also matches a series that lacks the label (as in PromQL). When no series
// is left the role is absent with a "no matching series" warning. When more
// than one is left the role is absent with a "several series" error listing
// every label set; values are never added up across series. A NaN or
// infinite value leaves the role absent with a "nan" or "inf" warning.
// Roles whose names do not occur in the file are absent without a
// diagnostic.
//
// Histogram buckets are keyed by the number their le label denotes:
// buckets whose bounds are equal however written (le="0.2", le="2e-1") are
// merged into one holding the sum of their counts, as Prometheus does, and
// the bound is recorded in Histogram.MergedBounds. Buckets are sorted by
// upper bound. A histogram without a +Inf bucket keeps its buckets as they
// are (none is made up from _count); it is not a valid Prometheus histogram
// and analysis gives it no quantiles. When the file has no _count sample,
// Count is taken from the +Inf bucket.
//
// Beside the roles, the Scrape records process_start_time_seconds, the
// label set of every series read, why a role present in the file could not
// be read, and a digest of the file, so that analysis can tell whether a
// start and an end scrape come from one server process.
//
// Families counts the families expfmt returns: families with at least one
// sample. A family with only HELP and TYPE lines is not counted.
func ParseScrape(r io.Reader, path string, names MetricNames, selector map[string]string) (*Scrape, error) {
	data, err := readScrapeLimited(r, path)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if fe := checkScrapeLimits(data, path); fe != nil {
		return nil, fe
	}

	s := &Scrape{
		Path:           path,
		Format:         "text",
		Counters:       map[MetricRole]float64{},
		CounterNames:   map[MetricRole]string{},
		Histograms:     map[MetricRole]Histogram{},
		HistogramNames: map[MetricRole]string{},
		Unread:         map[MetricRole]string{},
		Series:         map[MetricRole]string{},
		Digest:         sha256.Sum256(data),
	}
	var fams []*dto.MetricFamily
	if hasEOFLine(data) {
		s.Format = "openmetrics"
		fams, err = decodeOpenMetrics(data)
	} else {
		fams, err = decodeText(data)
	}
	if err != nil {
		return nil, parseFailure(path, s.Format, err)
	}

	byName := make(map[string]*dto.MetricFamily, len(fams))
	var latestMs int64
	haveTS := false
	for _, f := range fams {
		byName[f.GetName()] = f
		for _, m := range f.GetMetric() {
			if m.TimestampMs != nil && (!haveTS || m.GetTimestampMs() > latestMs) {
				latestMs, haveTS = m.GetTimestampMs(), true
			}
		}
	}
	if haveTS {
		s.Timestamp = time.UnixMilli(latestMs).UTC()
	}

	rd := &scrapeReader{scrape: s, fams: byName, selector: selector, used: map[string]bool{}}
	for _, role := range CounterRoles {
		rd.readCounter(role, names[role])
	}
	for _, role := range HistogramRoles {
		rd.readHistogram(role, names[role])
	}
	rd.readProcessStartTime()
	s.Families = len(fams)
	s.UnusedFamilies = s.Families - len(rd.used)
	return s, nil
}

// hasEOFLine reports whether data has an OpenMetrics "# EOF" line.
func hasEOFLine(data []byte) bool {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if string(bytes.TrimRight(line, " \t\r")) == "# EOF" {
			return true
		}
	}
	return false
}

func decodeText(data []byte) ([]*dto.MetricFamily, error) {
	// expfmt treats input that ends inside a sample line as truncated.
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	m, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	fams := make([]*dto.MetricFamily, 0, len(m))
	for _, f := range m {
		fams = append(fams, f)
	}
	slices.SortFunc(fams, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	return fams, nil
}

// decodeOpenMetrics reads OpenMetrics through the text format parser: see
// openMetricsToText for why expfmt's own OpenMetrics parser is not used.
func decodeOpenMetrics(data []byte) ([]*dto.MetricFamily, error) {
	text, err := openMetricsToText(data)
	if err != nil {
		return nil, err
	}
	return decodeText(text)
}

// parseFailure turns an expfmt error into a FileError at the line expfmt
// reports (0 when it reports none).
func parseFailure(path, format string, err error) *FileError {
	what := "Prometheus text format 0.0.4"
	if format == "openmetrics" {
		what = "OpenMetrics 1.0"
	}
	var pe expfmt.ParseError
	if errors.As(err, &pe) {
		return fileErrorf(path, pe.Line, 0, "", reasonSyntax, "not valid %s: %s", what, pe.Msg)
	}
	return fileErrorf(path, 0, 0, "", reasonSyntax, "not valid %s: %v", what, err)
}

// scrapeReader resolves metric roles against the parsed families.
type scrapeReader struct {
	scrape   *Scrape
	fams     map[string]*dto.MetricFamily
	selector map[string]string
	// used holds the names of the families that supplied a role.
	used map[string]bool
}

func (rd *scrapeReader) diag(sev Severity, reason, format string, args ...any) {
	rd.scrape.Diagnostics = append(rd.scrape.Diagnostics, Diagnostic{
		Severity: sev, File: rd.scrape.Path, Reason: reason, Message: fmt.Sprintf(format, args...),
	})
}

// family returns the family called name, ignoring _created families.
func (rd *scrapeReader) family(name string) *dto.MetricFamily {
	if name == "" || strings.HasSuffix(name, "_created") {
		return nil
	}
	return rd.fams[name]
}

// counterFamilyNames returns the family names a counter called name may
// appear under: as given first, then with "_total" added or removed.
func counterFamilyNames(name string) []string {
	if base, ok := strings.CutSuffix(name, "_total"); ok {
		return []string{name, base}
	}
	return []string{name, name + "_total"}
}

func (rd *scrapeReader) readCounter(role MetricRole, candidates []string) {
	for _, name := range candidates {
		for _, famName := range counterFamilyNames(name) {
			f := rd.family(famName)
			if f == nil {
				continue
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER, dto.MetricType_GAUGE, dto.MetricType_UNTYPED:
			default:
				rd.diag(Warning, reasonWrongType, "%s is a %s, not a counter; not read as %s",
					famName, typeName(f.GetType()), role)
				rd.scrape.Unread[role] = fmt.Sprintf("%s is a %s, not a counter", famName, typeName(f.GetType()))
				continue
			}
			m, ok := rd.oneSeries(role, famName, f)
			if !ok {
				return
			}
			v := counterValue(m)
			if !rd.finite(role, famName, m, v) {
				return
			}
			rd.read(role, famName, m)
			rd.scrape.Counters[role] = v
			rd.scrape.CounterNames[role] = famName
			return
		}
	}
}

func (rd *scrapeReader) readHistogram(role MetricRole, candidates []string) {
	for _, name := range candidates {
		f := rd.family(name)
		if f == nil {
			if b := rd.family(name + "_bucket"); b != nil {
				rd.diag(Warning, reasonWrongType, "%s_bucket has no TYPE histogram line; not read as %s", name, role)
				rd.scrape.Unread[role] = name + "_bucket has no TYPE histogram line"
			}
			continue
		}
		if f.GetType() != dto.MetricType_HISTOGRAM {
			rd.diag(Warning, reasonWrongType, "%s is a %s, not a histogram; not read as %s",
				name, typeName(f.GetType()), role)
			rd.scrape.Unread[role] = fmt.Sprintf("%s is a %s, not a histogram", name, typeName(f.GetType()))
			continue
		}
		m, ok := rd.oneSeries(role, name, f)
		if !ok {
			return
		}
		h := m.GetHistogram()
		if !rd.finite(role, name, m, firstNonFinite(h)) {
			return
		}
		rd.read(role, name, m)
		rd.scrape.Histograms[role] = convertHistogram(h)
		rd.scrape.HistogramNames[role] = name
		return
	}
}

// read records that role was read from series m of family famName.
func (rd *scrapeReader) read(role MetricRole, famName string, m *dto.Metric) {
	delete(rd.scrape.Unread, role)
	rd.scrape.Series[role] = formatLabels(m.GetLabel())
	rd.used[famName] = true
}

// processStartTimeName is the standard process collector's start time gauge.
const processStartTimeName = "process_start_time_seconds"

// readProcessStartTime records process_start_time_seconds when one series
// of it is present or the label selector leaves exactly one; a process
// metric often lacks the engine labels a selector names.
func (rd *scrapeReader) readProcessStartTime() {
	f := rd.family(processStartTimeName)
	if f == nil {
		return
	}
	ms := f.GetMetric()
	if len(ms) > 1 {
		var kept []*dto.Metric
		for _, m := range ms {
			if selectorMatches(m.GetLabel(), rd.selector) {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	if len(ms) != 1 {
		return
	}
	if v := counterValue(ms[0]); v > 0 && !math.IsInf(v, 0) {
		rd.scrape.ProcessStartTime = v
		rd.used[processStartTimeName] = true
	}
}

// firstNonFinite returns the first NaN or infinite value among h's sum,
// count and bucket counts, or a NaN bucket bound; 0 when there is none.
func firstNonFinite(h *dto.Histogram) float64 {
	vals := []float64{h.GetSampleSum(), histogramCount(h)}
	for _, b := range h.GetBucket() {
		if math.IsNaN(b.GetUpperBound()) {
			return b.GetUpperBound()
		}
		vals = append(vals, bucketCount(b))
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return v
		}
	}
	return 0
}

// oneSeries applies the label selector to f and returns the single series
// left, recording a diagnostic when there is not exactly one.
func (rd *scrapeReader) oneSeries(role MetricRole, name string, f *dto.MetricFamily) (*dto.Metric, bool) {
	var kept []*dto.Metric
	for _, m := range f.GetMetric() {
		if selectorMatches(m.GetLabel(), rd.selector) {
			kept = append(kept, m)
		}
	}
	switch {
	case len(kept) == 1:
		return kept[0], true
	case len(kept) == 0:
		rd.diag(Warning, reasonNoMatch, "%s has no series matching label_selector %s (found %s); %s not read",
			name, formatSelector(rd.selector), labelSetList(f.GetMetric()), role)
		rd.scrape.Unread[role] = fmt.Sprintf("%s has no series matching label_selector %s", name, formatSelector(rd.selector))
	case len(rd.selector) == 0:
		rd.diag(Error, reasonSeveralSeries, "%s has %d series: %s; set label_selector in sweep.yaml",
			name, len(kept), labelSetList(kept))
		rd.scrape.Unread[role] = fmt.Sprintf("%s has %d series and no label_selector chooses one", name, len(kept))
	default:
		rd.diag(Error, reasonSeveralSeries, "%s has %d series matching label_selector %s: %s; narrow label_selector in sweep.yaml",
			name, len(kept), formatSelector(rd.selector), labelSetList(kept))
		rd.scrape.Unread[role] = fmt.Sprintf("%s has %d series matching label_selector %s", name, len(kept), formatSelector(rd.selector))
	}
	return nil, false
}

// finite records a diagnostic and returns false when v is NaN or infinite.
func (rd *scrapeReader) finite(role MetricRole, famName string, m *dto.Metric, v float64) bool {
	switch {
	case math.IsNaN(v):
		rd.diag(Warning, reasonNaN, "%s%s has a NaN value; %s not read", famName, formatLabels(m.GetLabel()), role)
		rd.scrape.Unread[role] = famName + " has a NaN value"
	case math.IsInf(v, 0):
		rd.diag(Warning, reasonInf, "%s%s has an infinite value; %s not read", famName, formatLabels(m.GetLabel()), role)
		rd.scrape.Unread[role] = famName + " has an infinite value"
	default:
		return true
	}
	return false
}

// selectorMatches reports whether a series with these labels is selected.
// A label the series lacks has the empty value.
func selectorMatches(labels []*dto.LabelPair, selector map[string]string) bool {
	for k, want := range selector {
		got := ""
		for _, lp := range labels {
			if lp.GetName() == k {
				got = lp.GetValue()
				break
			}
		}
		if got != want {
			return false
		}
	}
	return true
}

func counterValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return m.GetUntyped().GetValue()
}

func histogramCount(h *dto.Histogram) float64 {
	if h.SampleCountFloat != nil {
		return h.GetSampleCountFloat()
	}
	if h.SampleCount != nil {
		return float64(h.GetSampleCount())
	}
	// No _count sample: fall back to the +Inf bucket.
	for _, b := range h.GetBucket() {
		if math.IsInf(b.GetUpperBound(), 1) {
			return bucketCount(b)
		}
	}
	return 0
}

func bucketCount(b *dto.Bucket) float64 {
	if b.CumulativeCountFloat != nil {
		return b.GetCumulativeCountFloat()
	}
	return float64(b.GetCumulativeCount())
}

func convertHistogram(h *dto.Histogram) Histogram {
	out := Histogram{Count: histogramCount(h), Sum: h.GetSampleSum()}
	out.Buckets = make([]Bucket, 0, len(h.GetBucket()))
	for _, b := range h.GetBucket() {
		out.Buckets = append(out.Buckets, Bucket{UpperBound: b.GetUpperBound(), Count: bucketCount(b)})
	}
	out.Buckets, out.MergedBounds = SortBuckets(out.Buckets)
	return out
}

func typeName(t dto.MetricType) string {
	switch t {
	case dto.MetricType_GAUGE_HISTOGRAM:
		return "gauge histogram"
	case dto.MetricType_UNTYPED:
		return "untyped metric"
	}
	return strings.ToLower(t.String())
}

// formatLabels renders labels as {a="x",b="y"}, sorted by name.
func formatLabels(labels []*dto.LabelPair) string {
	pairs := make([]string, 0, len(labels))
	for _, lp := range labels {
		pairs = append(pairs, lp.GetName()+"="+strconv.Quote(lp.GetValue()))
	}
	slices.Sort(pairs)
	return "{" + strings.Join(pairs, ",") + "}"
}

func formatSelector(selector map[string]string) string {
	labels := make([]*dto.LabelPair, 0, len(selector))
	for k, v := range selector {
		labels = append(labels, &dto.LabelPair{Name: &k, Value: &v})
	}
	return formatLabels(labels)
}

// labelSetList renders the label sets of ms, sorted, separated by ", ".
func labelSetList(ms []*dto.Metric) string {
	sets := make([]string, 0, len(ms))
	for _, m := range ms {
		sets = append(sets, formatLabels(m.GetLabel()))
	}
	slices.Sort(sets)
	return strings.Join(sets, ", ")
}
