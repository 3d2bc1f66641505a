package importer

// The generations of AIPerf's profile_export_aiperf.json, followed from
// ai-dynamo/aiperf's exporters (aiperf/exporters/json_exporter.py at
// v0.1.1; src/aiperf/common/models/export_models.py and
// docs/reference/json-export-schema.md later):
//
//   - 0.1.x: {"records": {tag: {tag, unit, header, avg, min, max, p1…p99,
//     std, count}}, "input_config": …}: the metrics one level down.
//   - 0.2 to 0.3 (the realdata files): the metrics at the top level, as
//     GenAI-Perf writes them, with no schema_version; telemetry_data from
//     0.2 on.
//   - schema_version "1.0" (0.4.0) adds schema_version, aiperf_version and
//     benchmark_id; "1.1" count and sum in each metric; "1.2" run_info
//     (trial, run_label, variation_label, variation_values); "1.3"
//     run_info's sweep_id and cli_command; "1.4" warmup_metrics (left out:
//     benchnote reports the measured phase); "1.5" the telemetry metrics
//     renamed nvidia_* / amd_* and a platform per GPU. Later versions
//     are refused by name: a major change may rename what benchnote reads.
//
// input_config has two shapes: the CLI's UserConfig (endpoint.model_names,
// endpoint.streaming, loadgen.concurrency, tokenizer.name) up to 0.x, and
// the BenchmarkConfig body of the YAML configuration later
// (models.items[].name, endpoint.urls, phases.{name}.concurrency or a list
// of phases with a name).

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// aiperfSchemaVersions are the schema_version values benchnote reads.
var aiperfSchemaVersions = []string{"1.0", "1.1", "1.2", "1.3", "1.4", "1.5"}

// aiperfSummarySignature recognises AIPerf summaries that the metric
// members alone do not show within the first MiB: a schema_version file
// (aiperf_version with schema_version or benchmark_id), and 0.1.x's
// records-wrapped metrics.
func aiperfSummarySignature(sh *shape) bool {
	if sh.any("metadata", "metrics", "combined", "per_run") {
		// The multi-run aggregate, collated and sweep exports: statistics
		// across runs, not a run's.
		return false
	}
	if sh.has("aiperf_version") && sh.any("schema_version", "benchmark_id") {
		return true
	}
	return sh.has("records") && sh.any("records.time_to_first_token.unit", "records.request_latency.unit", "records.request_throughput.unit")
}

// aiperfRunInfo is run_info (schema 1.2+): where a run sits in a sweep or
// among repeats.
type aiperfRunInfo struct {
	trial          int64 // from 0; -1 when not recorded
	runLabel       string
	variationLabel string
}

// readAIPerfRunInfo reads run_info.
func readAIPerfRunInfo(j *jsonIn, ri *aiperfRunInfo) error {
	if j.peek() == 'n' {
		return j.skip()
	}
	return j.object(func(name string) error {
		switch name {
		case "trial":
			v, err := j.optCount()
			if err == nil && v > int64(ingest.MaxRepeat) {
				return j.errorf("trial %d is above %s", v, textfmt.Thousands(ingest.MaxRepeat))
			}
			ri.trial = v
			return err
		case "run_label":
			v, err := j.scalarText()
			ri.runLabel = v
			return err
		case "variation_label":
			v, err := j.scalarText()
			ri.variationLabel = v
			return err
		}
		return j.skip()
	})
}

// checkAIPerfSchema refuses a schema_version benchnote does not know.
func checkAIPerfSchema(j *jsonIn) (string, error) {
	v, err := j.scalarText()
	if err != nil {
		return "", err
	}
	for _, k := range aiperfSchemaVersions {
		if v == k {
			return v, nil
		}
	}
	return "", j.errorf("AIPerf summary schema_version %q is not one benchnote reads (%s to %s): a later AIPerf may have renamed what benchnote reads; please report it with the file",
		v, aiperfSchemaVersions[0], aiperfSchemaVersions[len(aiperfSchemaVersions)-1])
}

// readAIPerfPhases reads the new input_config's phases: a map from phase
// name to its settings, or a list of phases with a name each. The level
// is that of the phase that is not warm-up.
func readAIPerfPhases(j *jsonIn, concurrency, rate *float64, mode *string) error {
	phase := func(name string) error {
		if j.peek() != '{' {
			return j.skip()
		}
		var c, r float64
		var typ, pname string
		err := j.object(func(field string) error {
			switch field {
			case "name":
				v, err := j.scalarText()
				pname = v
				return err
			case "type":
				v, err := j.scalarText()
				typ = v
				return err
			case "concurrency":
				v, err := j.optNumber()
				if err == nil {
					err = j.checkLevel(v, false)
				}
				c = v
				return err
			case "rate", "request_rate":
				v, err := j.optNumber()
				if err == nil {
					err = j.checkLevel(v, true)
				}
				r = v
				return err
			}
			return j.skip()
		})
		if name == "" {
			name = pname
		}
		if err != nil || name == "warmup" || typ == "warmup" {
			return err
		}
		if c > 0 && !math.IsNaN(c) {
			*concurrency = c
		}
		if r > 0 && !math.IsNaN(r) {
			*rate = r
		}
		if typ != "" {
			*mode = typ
		}
		return nil
	}
	switch j.peek() {
	case '{':
		return j.object(phase)
	case '[':
		return j.array(func(int) error { return phase("") })
	}
	return j.skip()
}

// readAIPerfModels reads the new input_config's models.items[].name into
// config["endpoint.model_names"], the old shape's key.
func readAIPerfModels(j *jsonIn, config map[string]string) error {
	if j.peek() != '{' {
		return j.skip()
	}
	var names []string
	err := j.object(func(name string) error {
		if name != "items" || j.peek() != '[' {
			return j.skip()
		}
		return j.array(func(int) error {
			if j.peek() != '{' {
				v, err := j.scalarText()
				if v != "" && len(names) < 8 {
					names = append(names, v)
				}
				return err
			}
			return j.object(func(f string) error {
				if f != "name" {
					return j.skip()
				}
				v, err := j.scalarText()
				if v != "" && len(names) < 8 {
					names = append(names, v)
				}
				return err
			})
		})
	})
	if len(names) > 0 {
		config["endpoint.model_names"] = strings.Join(names, ",")
	}
	return err
}

// gpuSummary is one GPU of a summary's telemetry_data.
type gpuSummary struct {
	endpoint, uuid, name, host string
	index                      int64
	// Means over the telemetry window, NaN when not recorded.
	powerW, utilPercent, memUsedMiBMax float64
	// energyJ is the energy counter's max − min, NaN when not recorded.
	energyJ float64
	// also lists the other endpoints that reported this GPU.
	also []string
}

// telemetrySummary is a summary's telemetry_data, one entry per distinct
// GPU in file order.
type telemetrySummary struct {
	gpus      []*gpuSummary
	endpoints []string
	// duplicates counts GPUs reported by a second endpoint.
	duplicates int
}

// telemetryUnits is the unit table of a summary telemetry metric benchnote
// reads (its units converted to W, J, % and MiB), nil for another metric.
func telemetryUnits(metric string) map[string]float64 {
	switch telemetryMetric(metric) {
	case "power_usage":
		return powerUnits
	case "energy_consumption":
		return energyUnits
	case "utilization":
		return utilUnits
	case "memory_used":
		return memoryUnits
	}
	return nil
}

// unitScale converts unit by table, or returns the error naming the
// units benchnote converts.
func unitScale(j *jsonIn, unit string, table map[string]float64) (float64, error) {
	if s, ok := table[unit]; ok {
		return s, nil
	}
	var units []string
	for u := range table {
		units = append(units, u)
	}
	sort.Strings(units)
	return 0, j.errorf("unit %q is not one benchnote converts (%s)", unit, strings.Join(units, ", "))
}

var (
	powerUnits  = map[string]float64{"W": 1, "mW": 1e-3, "kW": 1e3}
	energyUnits = map[string]float64{"J": 1, "mJ": 1e-3, "kJ": 1e3, "MJ": 1e6}
	// memoryUnits convert to MiB: AIPerf's GB are 10^9 bytes.
	memoryUnits = map[string]float64{"B": 1.0 / (1 << 20), "MB": 1e6 / (1 << 20), "GB": 1e9 / (1 << 20), "MiB": 1, "GiB": 1024}
	utilUnits   = map[string]float64{"%": 1, "percent": 1}
)

// telemetryMetric names a summary telemetry metric without its vendor
// prefix (schema 1.5 writes nvidia_power_usage where 1.4 wrote
// gpu_power_usage).
func telemetryMetric(name string) string {
	for _, p := range []string{"nvidia_", "amd_"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			name = rest
			break
		}
	}
	return strings.TrimPrefix(name, "gpu_")
}

// readTelemetrySummary reads telemetry_data: endpoints.{host:port}.gpus.
// {gpu_N}.{gpu_index, gpu_name, gpu_uuid, hostname, metrics.{name}.{unit,
// avg, min, max, …}}. A GPU is keyed by its UUID: two endpoints reporting
// one GPU give it once, from the first.
func readTelemetrySummary(j *jsonIn) (*telemetrySummary, error) {
	rd := &telemetrySummaryReader{j: j, ts: &telemetrySummary{}, byKey: map[string]*gpuSummary{}}
	if j.peek() == 'n' {
		return rd.ts, j.skip()
	}
	err := j.object(func(name string) error {
		if name != "endpoints" || j.peek() != '{' {
			return j.skip()
		}
		return j.object(rd.endpoint)
	})
	return rd.ts, err
}

// telemetrySummaryReader reads telemetry_data into ts; byKey holds the
// GPUs kept so far by their UUID (else host and index).
type telemetrySummaryReader struct {
	j     *jsonIn
	ts    *telemetrySummary
	byKey map[string]*gpuSummary
}

// endpoint reads the GPUs of one DCGM endpoint.
func (rd *telemetrySummaryReader) endpoint(endpoint string) error {
	j := rd.j
	rd.ts.endpoints = append(rd.ts.endpoints, endpoint)
	if j.peek() != '{' {
		return j.skip()
	}
	return j.object(func(name string) error {
		if name != "gpus" || j.peek() != '{' {
			return j.skip()
		}
		return j.object(func(string) error { return rd.gpu(endpoint) })
	})
}

// gpu reads one GPU of endpoint and keeps it, unless an earlier endpoint
// reported it (then it is counted once, with endpoint noted).
func (rd *telemetrySummaryReader) gpu(endpoint string) error {
	ts := rd.ts
	g, err := readGPUSummary(rd.j, endpoint)
	if err != nil || g == nil {
		return err
	}
	key := g.uuid
	if key == "" {
		key = fmt.Sprintf("%s\x00%d", g.host, g.index)
	}
	if first, ok := rd.byKey[key]; ok {
		first.also = append(first.also, endpoint)
		ts.duplicates++
		return nil
	}
	if len(ts.gpus) >= maxGPUs {
		return rd.j.errorf("more than %d GPUs; refusing to import", maxGPUs)
	}
	rd.byKey[key] = g
	ts.gpus = append(ts.gpus, g)
	return nil
}

// maxGPUs bounds the GPUs one telemetry file or summary may list.
const maxGPUs = 100_000

// readGPUSummary reads one GPU of telemetry_data.
func readGPUSummary(j *jsonIn, endpoint string) (*gpuSummary, error) {
	if j.peek() != '{' {
		return nil, j.skip()
	}
	nan := math.NaN()
	rd := &gpuSummaryReader{j: j, g: &gpuSummary{endpoint: endpoint, index: -1, powerW: nan, utilPercent: nan, memUsedMiBMax: nan, energyJ: nan}}
	err := j.object(rd.member)
	return rd.g, err
}

// gpuSummaryReader reads a GPU of telemetry_data into g.
type gpuSummaryReader struct {
	j *jsonIn
	g *gpuSummary
}

// member reads a member of the GPU: its identity and its metrics.
func (rd *gpuSummaryReader) member(name string) error {
	j, g := rd.j, rd.g
	switch name {
	case "gpu_index":
		v, err := j.optCount()
		g.index = v
		return err
	case "gpu_name":
		v, err := j.scalarText()
		g.name = v
		return err
	case "gpu_uuid":
		v, err := j.scalarText()
		g.uuid = v
		return err
	case "hostname":
		v, err := j.scalarText()
		g.host = v
		return err
	case "metrics":
		if j.peek() != '{' {
			return j.skip()
		}
		return j.object(rd.metric)
	}
	return j.skip()
}

// metric reads one metric of the GPU, {unit, avg, min, max}, and sets the
// GPU's figure of it in benchnote's unit; a metric benchnote does not
// use is skipped.
func (rd *gpuSummaryReader) metric(metric string) error {
	j, g := rd.j, rd.g
	table := telemetryUnits(metric)
	if table == nil {
		return j.skip()
	}
	st := map[string]float64{}
	unit := ""
	err := j.object(func(field string) error {
		switch field {
		case "unit":
			u, err := j.scalarText()
			unit = u
			return err
		case "avg", "min", "max":
			v, err := j.optNumber()
			st[field] = v
			return err
		}
		return j.skip()
	})
	if err != nil {
		return err
	}
	scale, err := unitScale(j, unit, table)
	if err != nil {
		return err
	}
	get := func(k string) float64 {
		if v, ok := st[k]; ok {
			return v * scale
		}
		return math.NaN()
	}
	switch telemetryMetric(metric) {
	case "power_usage":
		g.powerW = get("avg")
	case "energy_consumption":
		g.energyJ = get("max") - get("min")
	case "utilization":
		g.utilPercent = get("avg")
	case "memory_used":
		g.memUsedMiBMax = get("max")
	}
	return nil
}

// shortUUID cuts a GPU UUID for a label: "GPU-8962cc8a…".
func shortUUID(u string) string { return textfmt.ClipBytes(u, 12) }

// figures turns the telemetry into reported figures (keys as in
// docs/import.md's GPU telemetry section): the total and per-GPU mean
// power, utilisation, memory, and, with the output tokens of the run, the
// energy per output token and output tokens/s per kW.
func (ts *telemetrySummary) figures(tool string, outputTokens float64) []ingest.ReportedFigure {
	if ts == nil || len(ts.gpus) == 0 {
		return nil
	}
	src := tool + " telemetry summary, DCGM via " + strings.Join(ts.endpoints, ", ")
	if len(src) > 200 {
		src = cutText(src, 200)
	}
	note := src + "; energy = counter max − min"
	var out []ingest.ReportedFigure
	n := len(ts.gpus)
	countNote := "distinct GPU UUIDs"
	if ts.duplicates > 0 {
		countNote += fmt.Sprintf("; %s reported by a second endpoint counted once", textfmt.Count(ts.duplicates, "GPU", "GPUs"))
	}
	out = append(out, ingest.ReportedFigure{Key: "gpu.count", Label: "GPUs reporting telemetry", Value: float64(n), Unit: "GPUs", Note: countNote})
	var power, util, mem, energy float64
	var nPower, nUtil, nMem, nEnergy int
	for _, g := range ts.gpus {
		if !math.IsNaN(g.powerW) {
			power += g.powerW
			nPower++
		}
		if !math.IsNaN(g.utilPercent) {
			util += g.utilPercent
			nUtil++
		}
		if !math.IsNaN(g.memUsedMiBMax) {
			mem += g.memUsedMiBMax
			nMem++
		}
		if !math.IsNaN(g.energyJ) {
			energy += g.energyJ
			nEnergy++
		}
	}
	if nPower > 0 {
		out = append(out, ingest.ReportedFigure{Key: "gpu.power_w", Label: fmt.Sprintf("mean total GPU power (%s)", textfmt.Count(nPower, "GPU", "GPUs")), Value: power, Unit: "W", Note: src})
	}
	if nUtil > 0 {
		out = append(out, ingest.ReportedFigure{Key: "gpu.util_percent", Label: "mean GPU utilisation", Value: util / float64(nUtil), Unit: "%", Note: src})
	}
	if nMem > 0 {
		out = append(out, ingest.ReportedFigure{Key: "gpu.memory_used_mib", Label: "max GPU memory used, summed over GPUs", Value: mem, Unit: "MiB", Note: src + "; GB of 10^9 bytes converted to MiB"})
	}
	if nEnergy > 0 && nEnergy == n && outputTokens > 0 {
		jpt := energy / outputTokens
		tnote := fmt.Sprintf("%s; %s J over %s / %s output tokens (total_output_tokens, client tokenizer, the measured phase); the counter spans the telemetry window",
			note, strconv.FormatFloat(energy, 'g', 6, 64), textfmt.Count(nEnergy, "GPU", "GPUs"), strconv.FormatFloat(outputTokens, 'g', -1, 64))
		out = append(out,
			ingest.ReportedFigure{Key: "energy.j_per_output_token", Label: "GPU energy per output token", Value: jpt, Unit: "J/token", Note: tnote},
			ingest.ReportedFigure{Key: "energy.output_tokens_per_s_per_kw", Label: "output tokens/s per kW of GPU power", Value: 1000 / jpt, Unit: "tokens/s/kW", Note: "1000 / J per output token; " + note})
	}
	for _, g := range ts.gpus {
		if math.IsNaN(g.powerW) {
			continue
		}
		idx := "?"
		if g.index >= 0 {
			idx = strconv.FormatInt(g.index, 10)
		}
		label := "GPU " + idx
		if g.name != "" {
			label += " " + g.name
		}
		if g.uuid != "" {
			label += " (" + shortUUID(g.uuid) + ")"
		}
		label += " mean power"
		gn := src
		if len(g.also) > 0 {
			gn += "; also reported by " + strings.Join(g.also, ", ") + " (counted once)"
		}
		out = append(out, ingest.ReportedFigure{Key: "gpu.power_w", Label: label, Value: g.powerW, Unit: "W", Note: gn})
	}
	return out
}

// readGenAIPerfTelemetry reads GenAI-Perf's telemetry_stats: {metric:
// {unit, gpu0: {avg, min, max, …}, gpu1: …}}, the GPUs named by their
// index only (GenAI-Perf records no UUID), in the order first met.
func readGenAIPerfTelemetry(j *jsonIn) (*telemetrySummary, error) {
	rd := &genaiPerfTelemetryReader{j: j, ts: &telemetrySummary{endpoints: []string{"--server-metrics-urls"}}, byName: map[string]*gpuSummary{}}
	if j.peek() != '{' {
		return rd.ts, j.skip()
	}
	err := j.object(rd.metric)
	return rd.ts, err
}

// genaiPerfTelemetryReader reads telemetry_stats into ts; byName holds
// the GPUs met so far by their name (gpu0, gpu1, …).
type genaiPerfTelemetryReader struct {
	j      *jsonIn
	ts     *telemetrySummary
	byName map[string]*gpuSummary
}

// genaiPerfStat is one GPU's statistics of one metric.
type genaiPerfStat struct {
	gpu           *gpuSummary
	avg, min, max float64
}

// metric reads one metric, {unit, gpu0: {…}, …}, and sets each GPU's
// figure of it in benchnote's unit; a metric benchnote does not use is
// skipped.
func (rd *genaiPerfTelemetryReader) metric(metric string) error {
	j := rd.j
	table := telemetryUnits(metric)
	if table == nil || j.peek() != '{' {
		return j.skip()
	}
	unit := ""
	var stats []genaiPerfStat
	err := j.object(func(name string) error {
		if name == "unit" {
			u, err := j.scalarText()
			unit = u
			return err
		}
		if j.peek() != '{' {
			return j.skip()
		}
		st, err := rd.gpuStat(name)
		if st.gpu != nil {
			stats = append(stats, st)
		}
		return err
	})
	if err != nil {
		return err
	}
	scale, err := unitScale(j, unit, table)
	if err != nil {
		return err
	}
	for _, st := range stats {
		switch telemetryMetric(metric) {
		case "power_usage":
			st.gpu.powerW = st.avg * scale
		case "energy_consumption":
			st.gpu.energyJ = (st.max - st.min) * scale
		case "utilization":
			st.gpu.utilPercent = st.avg * scale
		case "memory_used":
			st.gpu.memUsedMiBMax = st.max * scale
		}
	}
	return nil
}

// gpuStat reads GPU name's {avg, min, max, …}, adding the GPU when first
// met; the stat's gpu is nil when there are too many GPUs.
func (rd *genaiPerfTelemetryReader) gpuStat(name string) (genaiPerfStat, error) {
	j := rd.j
	nan := math.NaN()
	g := rd.byName[name]
	if g == nil {
		if len(rd.ts.gpus) >= maxGPUs {
			return genaiPerfStat{}, j.errorf("more than %d GPUs; refusing to import", maxGPUs)
		}
		g = &gpuSummary{name: "", index: -1, powerW: nan, utilPercent: nan, memUsedMiBMax: nan, energyJ: nan}
		if n, err := strconv.ParseInt(strings.TrimPrefix(name, "gpu"), 10, 64); err == nil && n >= 0 {
			g.index = n
		}
		g.host = name
		rd.byName[name] = g
		rd.ts.gpus = append(rd.ts.gpus, g)
	}
	st := genaiPerfStat{gpu: g, avg: nan, min: nan, max: nan}
	err := j.object(func(field string) error {
		switch field {
		case "avg", "min", "max":
			v, err := j.optNumber()
			switch field {
			case "avg":
				st.avg = v
			case "min":
				st.min = v
			default:
				st.max = v
			}
			return err
		}
		return j.skip()
	})
	return st, err
}
