package importer

// AIPerf's time series beside a run's records, followed from
// ai-dynamo/aiperf src/aiperf/common/models/telemetry_models.py
// (TelemetryRecord) and _server_metrics_records.py (SlimRecord):
//
//   - gpu_telemetry_export.jsonl: one line per GPU per DCGM (or pynvml,
//     amdsmi) sample: {timestamp_ns, dcgm_url, gpu_index, gpu_uuid,
//     gpu_model_name, hostname, telemetry_data: {gpu_power_usage (W),
//     energy_consumption (MJ, cumulative), gpu_utilization (%),
//     gpu_memory_used (GB), gpu_temperature (°C), …}}; AMD GPUs write
//     amd_power, amd_energy_consumption, amd_gfx_activity,
//     amd_memory_used and amd_temperature. It becomes the run's gpu.csv.
//   - server_metrics_export.jsonl: one line per scrape of a server's
//     /metrics: {endpoint_url, timestamp_ns, metrics: {family: [{labels,
//     value} or {labels, buckets: {le: count}, sum, count}]}}. The scrapes
//     bracketing the run's window become metrics-start.prom and
//     metrics-end.prom.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// GPUFile is the name of a run's GPU telemetry (the contract is in
// docs/import.md, "GPU telemetry").
const GPUFile = "gpu.csv"

// GPUSample is one GPU's telemetry at one time, a row of gpu.csv. Values
// not recorded are NaN; Index is -1 when not recorded.
type GPUSample struct {
	Time                    time.Time
	Host, UUID, Name        string
	Index                   int64
	PowerW, EnergyJ         float64
	UtilPercent             float64
	MemUsedMiB, MemTotalMiB float64
	TempC                   float64
}

// gpuCSVHeader is gpu.csv's header row.
var gpuCSVHeader = []string{"timestamp", "host", "gpu_uuid", "gpu_index", "gpu_name", "power_w", "energy_j", "util_percent", "memory_used_mib", "memory_total_mib", "temperature_c"}

// FormatGPUCSV writes samples as gpu.csv: the header, then one row per
// sample sorted by time and GPU (UUID, else host and index), timestamps
// in UTC with nanoseconds, numbers as strconv's shortest 'g', an empty
// cell for a value not recorded.
func FormatGPUCSV(samples []GPUSample) []byte {
	rows := slices.Clone(samples)
	sort.SliceStable(rows, func(a, b int) bool {
		x, y := rows[a], rows[b]
		if !x.Time.Equal(y.Time) {
			return x.Time.Before(y.Time)
		}
		if x.UUID != y.UUID {
			return x.UUID < y.UUID
		}
		if x.Host != y.Host {
			return x.Host < y.Host
		}
		return x.Index < y.Index
	})
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(gpuCSVHeader)
	num := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range rows {
		idx := ""
		if r.Index >= 0 {
			idx = strconv.FormatInt(r.Index, 10)
		}
		_ = w.Write([]string{r.Time.UTC().Format("2006-01-02T15:04:05.999999999Z"), r.Host, r.UUID, idx, r.Name,
			num(r.PowerW), num(r.EnergyJ), num(r.UtilPercent), num(r.MemUsedMiB), num(r.MemTotalMiB), num(r.TempC)})
	}
	w.Flush()
	return b.Bytes()
}

// gpuTelemetry is what benchnote keeps of a gpu_telemetry_export.jsonl.
type gpuTelemetry struct {
	samples []GPUSample
	gpus    int
	// duplicates counts the lines of a GPU already reported by another
	// endpoint (the same UUID under two DCGM exporters): left out, as the
	// GPU is counted once.
	duplicates     int
	duplicateFirst string
	endpoints      []string
}

// telemetryColumn maps telemetry_data's members to gpu.csv's columns and
// their units' scale to the contract's.
var telemetryColumn = map[string]struct {
	column string
	scale  float64
}{
	"gpu_power_usage": {"power_w", 1}, "nvidia_power_usage": {"power_w", 1}, "amd_power": {"power_w", 1},
	"energy_consumption": {"energy_j", 1e6}, "nvidia_energy_consumption": {"energy_j", 1e6}, "amd_energy_consumption": {"energy_j", 1e6},
	"gpu_utilization": {"util_percent", 1}, "nvidia_gpu_utilization": {"util_percent", 1}, "amd_gfx_activity": {"util_percent", 1},
	// GB of 10^9 bytes to MiB of 2^20.
	"gpu_memory_used": {"memory_used_mib", 1e9 / (1 << 20)}, "nvidia_gpu_memory_used": {"memory_used_mib", 1e9 / (1 << 20)}, "amd_memory_used": {"memory_used_mib", 1e9 / (1 << 20)},
	"gpu_memory_total": {"memory_total_mib", 1e9 / (1 << 20)}, "nvidia_gpu_memory_total": {"memory_total_mib", 1e9 / (1 << 20)},
	"gpu_temperature": {"temperature_c", 1}, "nvidia_gpu_temperature": {"temperature_c", 1}, "amd_temperature": {"temperature_c", 1},
}

// readGPUTelemetry reads gpu_telemetry_export.jsonl. A GPU is keyed by its
// UUID (else host and index); the lines of a GPU that a second endpoint
// also reports are left out and counted.
func readGPUTelemetry(s *source, opts Options) (*gpuTelemetry, error) {
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	j := newJSONIn(f, s.path)
	gt := &gpuTelemetry{}
	owner := map[string]string{} // GPU key → the endpoint kept for it
	for n := 1; ; n++ {
		more, err := j.more()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		j.record = n
		if len(gt.samples) >= opts.MaxRequests {
			return nil, j.errorf("more than %d GPU samples; refusing to import (raise the limit with --max-requests if the file is genuine)", opts.MaxRequests)
		}
		g, endpoint, err := readGPURecord(j)
		if err != nil {
			return nil, err
		}
		if err := gt.add(g, endpoint, owner, s.path, n); err != nil {
			return nil, err
		}
	}
	j.record = 0
	if len(gt.samples) == 0 {
		return nil, &SourceError{File: s.path, Msg: "empty file: expected one GPU sample per line"}
	}
	return gt, nil
}

// readGPURecord reads one line of gpu_telemetry_export.jsonl: the sample,
// and the DCGM endpoint that reported it.
func readGPURecord(j *jsonIn) (GPUSample, string, error) {
	nan := math.NaN()
	g := GPUSample{Index: -1, PowerW: nan, EnergyJ: nan, UtilPercent: nan, MemUsedMiB: nan, MemTotalMiB: nan, TempC: nan}
	var endpoint string
	hasTime := false
	if j.peek() != '{' {
		return g, "", j.expected("a GPU telemetry record (an object)")
	}
	err := j.object(func(name string) error {
		switch name {
		case "timestamp_ns":
			v, err := j.bigCount()
			if err == nil {
				if err = unixRange(j.file, j.record, j.path(), float64(v)/1e9); err == nil {
					g.Time, hasTime = unixNs(v), true
				}
			}
			return err
		case "dcgm_url":
			v, err := j.scalarText()
			endpoint = v
			return err
		case "gpu_index":
			v, err := j.optCount()
			g.Index = v
			return err
		case "gpu_uuid":
			v, err := j.scalarText()
			g.UUID = v
			return err
		case "gpu_model_name":
			v, err := j.scalarText()
			g.Name = v
			return err
		case "hostname":
			v, err := j.scalarText()
			g.Host = v
			return err
		case "telemetry_data":
			if j.peek() != '{' {
				return j.expected("an object of metrics")
			}
			return j.object(func(metric string) error { return readTelemetryMetric(j, &g, metric) })
		}
		return j.skip()
	})
	if err != nil {
		return g, "", err
	}
	if !hasTime {
		return g, "", &SourceError{File: j.file, Record: j.record, Path: "$", Msg: "not an AIPerf GPU telemetry record: expected timestamp_ns"}
	}
	if g.Host == "" {
		g.Host = endpointHost(endpoint)
	}
	return g, endpoint, nil
}

// readTelemetryMetric reads one member of telemetry_data into the
// sample's column for it, in the column's unit; it skips a metric with
// no column and a null.
func readTelemetryMetric(j *jsonIn, g *GPUSample, metric string) error {
	col, ok := telemetryColumn[metric]
	if !ok || j.peek() == 'n' {
		return j.skip()
	}
	v, err := j.number()
	if err != nil {
		return err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return j.errorf("%s is not a finite non-negative number", formatValue(v))
	}
	v *= col.scale
	switch col.column {
	case "power_w":
		g.PowerW = v
	case "energy_j":
		g.EnergyJ = v
	case "util_percent":
		if v > 100 {
			return j.errorf("%s is above 100 %%", formatValue(v))
		}
		g.UtilPercent = v
	case "memory_used_mib":
		g.MemUsedMiB = v
	case "memory_total_mib":
		g.MemTotalMiB = v
	case "temperature_c":
		g.TempC = v
	}
	return nil
}

// add keeps sample g of line n, which endpoint reported, unless another
// endpoint reported its GPU first (then it is counted as a duplicate);
// owner maps each GPU's key to the endpoint kept for it.
func (gt *gpuTelemetry) add(g GPUSample, endpoint string, owner map[string]string, file string, n int) error {
	key := g.UUID
	if key == "" {
		if g.Index < 0 {
			return &SourceError{File: file, Record: n, Path: "$", Msg: "a GPU telemetry record names its GPU by neither gpu_uuid nor gpu_index"}
		}
		key = g.Host + "\x00" + strconv.FormatInt(g.Index, 10)
	}
	first, seen := owner[key]
	switch {
	case !seen && gt.gpus >= maxGPUs:
		return &SourceError{File: file, Record: n, Path: "$", Msg: fmt.Sprintf("more than %d GPUs; refusing to import", maxGPUs)}
	case !seen:
		owner[key] = endpoint
		gt.gpus++
		if !slices.Contains(gt.endpoints, endpoint) && len(gt.endpoints) < 64 {
			gt.endpoints = append(gt.endpoints, endpoint)
		}
	case first != endpoint:
		if gt.duplicates == 0 {
			gt.duplicateFirst = fmt.Sprintf("line %d: %s from %s, already read from %s", n, shortUUID(g.UUID), endpoint, first)
		}
		gt.duplicates++
		return nil
	}
	gt.samples = append(gt.samples, g)
	return nil
}

// endpointHost is the host of an endpoint URL ("http://node1:9401/metrics"
// → "node1"), or the text itself when it is not a URL.
func endpointHost(e string) string {
	if u, err := url.Parse(e); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return e
}

// serverScrape is one line of server_metrics_export.jsonl.
type serverScrape struct {
	endpoint string
	ns       int64
	families []promFamily
}

// promFamily is one metric family of a scrape.
type promFamily struct {
	name    string
	samples []promSample
}

// promSample is a counter or gauge value, or a histogram's buckets.
type promSample struct {
	labels     [][2]string
	value      float64
	histogram  bool
	buckets    [][2]string // le as written, count
	sum, count float64
}

// Bounds on a server metrics line: families, samples of a family, labels
// of a sample and buckets of a histogram.
const (
	maxScrapeFamilies = 10_000
	maxFamilySamples  = 10_000
	maxSampleLabels   = 64
	maxBuckets        = 1_000
	// maxScrapeEndpoints bounds the servers one file may scrape.
	maxScrapeEndpoints = 1_000
	// maxLabelBytes keeps a written line under ingest.MaxScrapeLineBytes.
	maxLabelBytes = 16 << 10
)

// scrapeWindow picks, per endpoint, the scrapes bracketing a window: the
// last at or before its start (else the first), and the first at or after
// its end (else the last). With no window, the first and the last.
type scrapeWindow struct {
	start, end   int64
	known        bool
	first, last  map[string]*serverScrape
	before       map[string]*serverScrape // latest ≤ start
	after        map[string]*serverScrape // earliest ≥ end
	endpoints    []string
	lines, empty int
}

func (w *scrapeWindow) offer(sc *serverScrape) {
	e := sc.endpoint
	if _, ok := w.first[e]; !ok {
		w.endpoints = append(w.endpoints, e)
	}
	if f := w.first[e]; f == nil || sc.ns < f.ns {
		w.first[e] = sc
	}
	if l := w.last[e]; l == nil || sc.ns >= l.ns {
		w.last[e] = sc
	}
	if w.known && sc.ns <= w.start {
		if b := w.before[e]; b == nil || sc.ns >= b.ns {
			w.before[e] = sc
		}
	}
	if w.known && sc.ns >= w.end {
		if a := w.after[e]; a == nil || sc.ns < a.ns {
			w.after[e] = sc
		}
	}
}

// readServerMetrics reads server_metrics_export.jsonl and returns the
// Prometheus text of the scrapes bracketing window (nil for none), and
// what it did, for provenance.
func readServerMetrics(s *source, window *ingest.Window, opts Options) (start, end []byte, notes []string, err error) {
	f, err := s.open()
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	j := newJSONIn(f, s.path)
	w := &scrapeWindow{first: map[string]*serverScrape{}, last: map[string]*serverScrape{}, before: map[string]*serverScrape{}, after: map[string]*serverScrape{}}
	if window != nil {
		w.start, w.end, w.known = window.Start.UnixNano(), window.End.UnixNano(), true
	}
	for n := 1; ; n++ {
		more, err := j.more()
		if err != nil {
			return nil, nil, nil, err
		}
		if !more {
			break
		}
		j.record = n
		if n > opts.MaxRequests {
			return nil, nil, nil, j.errorf("more than %d scrapes; refusing to import (raise the limit with --max-requests if the file is genuine)", opts.MaxRequests)
		}
		sc, err := readServerScrape(j)
		if err != nil {
			return nil, nil, nil, err
		}
		w.lines++
		if len(sc.families) == 0 {
			w.empty++
			continue
		}
		if _, ok := w.first[sc.endpoint]; !ok && len(w.endpoints) >= maxScrapeEndpoints {
			return nil, nil, nil, j.errorf("more than %d server endpoints; refusing to import", maxScrapeEndpoints)
		}
		w.offer(sc)
	}
	j.record = 0
	if len(w.endpoints) == 0 {
		return nil, nil, []string{fmt.Sprintf("%s holds no scrape with metrics (%d lines): no server scrapes written", path.Base(s.path), w.lines)}, nil
	}
	sort.Strings(w.endpoints)
	var starts, ends []*serverScrape
	bracketed := 0
	for _, e := range w.endpoints {
		st, en := w.first[e], w.last[e]
		if b := w.before[e]; b != nil {
			st = b
		}
		if a := w.after[e]; a != nil {
			en = a
		}
		if w.before[e] != nil && w.after[e] != nil {
			bracketed++
		}
		if en.ns <= st.ns {
			continue
		}
		starts, ends = append(starts, st), append(ends, en)
	}
	if len(starts) == 0 {
		return nil, nil, []string{fmt.Sprintf("%s: every endpoint was scraped at one time only: no server scrapes written", path.Base(s.path))}, nil
	}
	label := len(starts) > 1
	start, end = formatScrapes(starts, label), formatScrapes(ends, label)
	if len(start) > ingest.MaxScrapeBytes || len(end) > ingest.MaxScrapeBytes {
		return nil, nil, []string{fmt.Sprintf("%s: the bracketing scrapes would exceed the %d MiB a scrape may hold: no server scrapes written", path.Base(s.path), ingest.MaxScrapeBytes>>20)}, nil
	}
	what := fmt.Sprintf("metrics-start.prom and metrics-end.prom from %s (%d scrapes of %s)", path.Base(s.path), w.lines-w.empty, textfmt.Count(len(starts), "endpoint", "endpoints"))
	switch {
	case !w.known:
		what += ": the first and the last scrape, as the run has no window"
	case bracketed == len(starts):
		what += ": the last scrape at or before the window's start and the first at or after its end"
	default:
		what += fmt.Sprintf(": the scrapes nearest the window; for %d of %s no scrape lies outside the window on both sides, so the counter deltas cover less than it", len(starts)-bracketed, textfmt.Count(len(starts), "endpoint", "endpoints"))
	}
	notes = append(notes, what)
	if label {
		notes = append(notes, fmt.Sprintf("the scrapes of %s are written into one file each, their series labelled aiperf_endpoint: set label_selector in sweep.yaml to choose the server whose counters are read", textfmt.Count(len(starts), "endpoint", "endpoints")))
	}
	if w.empty > 0 {
		notes = append(notes, fmt.Sprintf("%d scrapes with no metrics left out", w.empty))
	}
	return start, end, notes, nil
}

// readServerScrape reads one line of server_metrics_export.jsonl.
func readServerScrape(j *jsonIn) (*serverScrape, error) {
	sc := &serverScrape{}
	hasTime := false
	if j.peek() != '{' {
		return nil, j.expected("a server metrics record (an object)")
	}
	err := j.object(func(name string) error {
		switch name {
		case "endpoint_url":
			v, err := j.scalarText()
			sc.endpoint = v
			return err
		case "timestamp_ns":
			v, err := j.bigCount()
			if err == nil {
				err = unixRange(j.file, j.record, j.path(), float64(v)/1e9)
			}
			sc.ns, hasTime = v, err == nil
			return err
		case "metrics":
			if j.peek() != '{' {
				return j.expected("an object of metric families")
			}
			return j.object(func(family string) error {
				if len(sc.families) >= maxScrapeFamilies {
					return j.errorf("more than %d metric families in one scrape", maxScrapeFamilies)
				}
				fam, err := readPromFamily(j, family)
				if len(fam.samples) > 0 {
					sc.families = append(sc.families, fam)
				}
				return err
			})
		}
		return j.skip()
	})
	if err == nil && !hasTime {
		err = &SourceError{File: j.file, Record: j.record, Path: "$", Msg: "not an AIPerf server metrics record: expected timestamp_ns"}
	}
	return sc, err
}

// readPromFamily reads the list of samples of the metric family named
// family.
func readPromFamily(j *jsonIn, family string) (promFamily, error) {
	fam := promFamily{name: family}
	if !promName(family, true) {
		return fam, j.errorf("%q is not a Prometheus metric name", cutText(family, 80))
	}
	if j.peek() != '[' {
		return fam, j.expected("a list of samples")
	}
	err := j.array(func(int) error {
		if len(fam.samples) >= maxFamilySamples {
			return j.errorf("more than %d samples in one family", maxFamilySamples)
		}
		smp, err := readPromSample(j)
		fam.samples = append(fam.samples, smp)
		return err
	})
	return fam, err
}

// readPromSample reads {labels, value} or {labels, buckets, sum, count}.
func readPromSample(j *jsonIn) (promSample, error) {
	var smp promSample
	hasValue := false
	labelBytes := 0
	if j.peek() != '{' {
		return smp, j.expected("a sample (an object)")
	}
	err := j.object(func(name string) error {
		switch name {
		case "labels":
			if j.peek() == 'n' {
				return j.skip()
			}
			if j.peek() != '{' {
				return j.expected("an object of labels")
			}
			return j.object(func(label string) error {
				if len(smp.labels) >= maxSampleLabels {
					return j.errorf("more than %d labels", maxSampleLabels)
				}
				if !promName(label, false) || label == "le" || label == "aiperf_endpoint" {
					return j.errorf("%q is not a label name benchnote writes into a scrape", cutText(label, 80))
				}
				v, err := j.scalarText()
				labelBytes += len(label) + len(v)
				if len(v) > ingest.MaxLabelValueBytes || labelBytes > maxLabelBytes {
					return j.errorf("labels longer than benchnote's scrapes take (a value of at most %d bytes, %d bytes in all)", ingest.MaxLabelValueBytes, maxLabelBytes)
				}
				smp.labels = append(smp.labels, [2]string{label, v})
				return err
			})
		case "value":
			v, err := j.finite(math.Inf(-1))
			smp.value, hasValue = v, true
			return err
		case "sum":
			v, err := j.finite(math.Inf(-1))
			smp.sum = v
			return err
		case "count":
			v, err := j.finite(0)
			smp.count = v
			return err
		case "buckets":
			if j.peek() == 'n' {
				return j.skip()
			}
			if j.peek() != '{' {
				return j.expected("an object of bucket counts")
			}
			smp.histogram = true
			return j.object(func(le string) error {
				if len(smp.buckets) >= maxBuckets {
					return j.errorf("more than %d buckets", maxBuckets)
				}
				if _, err := strconv.ParseFloat(le, 64); err != nil {
					return j.errorf("bucket bound %q is not a number", cutText(le, 80))
				}
				v, err := j.finite(0)
				smp.buckets = append(smp.buckets, [2]string{le, strconv.FormatFloat(v, 'g', -1, 64)})
				return err
			})
		}
		return j.skip()
	})
	if err == nil && hasValue == smp.histogram {
		err = j.errorf("a sample holds either a value or buckets")
	}
	return smp, err
}

// promName checks a metric (colons allowed) or label name.
func promName(s string, metric bool) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || metric && c == ':' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// formatScrapes writes scrapes as one Prometheus text-format file, each
// sample stamped with its scrape's time (ms); with label set, each series
// gets aiperf_endpoint naming its scrape's endpoint.
func formatScrapes(scrapes []*serverScrape, label bool) []byte {
	type series struct {
		labels string
		s      promSample
		ms     int64
	}
	byName := map[string][]series{}
	hist := map[string]bool{}
	var names []string
	for _, sc := range scrapes {
		for _, f := range sc.families {
			if _, ok := byName[f.name]; !ok {
				names = append(names, f.name)
			}
			for _, smp := range f.samples {
				ls := smp.labels
				if label {
					ls = append(slices.Clone(ls), [2]string{"aiperf_endpoint", sc.endpoint})
				}
				byName[f.name] = append(byName[f.name], series{labels: promLabels(ls), s: smp, ms: sc.ns / 1e6})
				hist[f.name] = hist[f.name] || smp.histogram
			}
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		if hist[name] {
			fmt.Fprintf(&b, "# TYPE %s histogram\n", name)
		}
		for _, se := range byName[name] {
			if !se.s.histogram {
				if hist[name] {
					continue // a family mixing values and buckets: not a histogram series
				}
				fmt.Fprintf(&b, "%s%s %s %d\n", name, braces(se.labels), strconv.FormatFloat(se.s.value, 'g', -1, 64), se.ms)
				continue
			}
			bs := slices.Clone(se.s.buckets)
			sort.SliceStable(bs, func(a, c int) bool {
				x, _ := strconv.ParseFloat(bs[a][0], 64)
				y, _ := strconv.ParseFloat(bs[c][0], 64)
				return x < y
			})
			for _, bk := range bs {
				le := promLabel("le", bk[0])
				if se.labels != "" {
					le = se.labels + "," + le
				}
				fmt.Fprintf(&b, "%s_bucket{%s} %s %d\n", name, le, bk[1], se.ms)
			}
			fmt.Fprintf(&b, "%s_sum%s %s %d\n", name, braces(se.labels), strconv.FormatFloat(se.s.sum, 'g', -1, 64), se.ms)
			fmt.Fprintf(&b, "%s_count%s %s %d\n", name, braces(se.labels), strconv.FormatFloat(se.s.count, 'g', -1, 64), se.ms)
		}
	}
	return []byte(b.String())
}

func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

// promLabels writes label pairs sorted by name.
func promLabels(ls [][2]string) string {
	ls = slices.Clone(ls)
	sort.SliceStable(ls, func(a, b int) bool { return ls[a][0] < ls[b][0] })
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = promLabel(l[0], l[1])
	}
	return strings.Join(parts, ",")
}

// promLabel writes name="value" with the text format's escapes.
func promLabel(name, value string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return name + `="` + r.Replace(value) + `"`
}

// aiperfGPUSignature recognises a line of gpu_telemetry_export.jsonl.
func aiperfGPUSignature(sh *shape) bool {
	return sh.has("timestamp_ns", "telemetry_data") && sh.any("gpu_uuid", "dcgm_url", "gpu_index")
}

// aiperfServerSignature recognises a line of server_metrics_export.jsonl.
func aiperfServerSignature(sh *shape) bool {
	return sh.has("timestamp_ns", "endpoint_url", "metrics") && !sh.has("metadata")
}
