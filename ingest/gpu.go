package ingest

// This file reads a run's GPU telemetry: gpu.csv and gpu-*.csv in the run
// directory, each in one of three formats told apart by its header:
//
//   - benchnote's own (what importers write):
//     timestamp,host,gpu_uuid,gpu_index,gpu_name,power_w,energy_j,util_percent,memory_used_mib,memory_total_mib,temperature_c
//     in any order, unknown columns ignored (and listed), an empty cell
//     "not recorded". timestamp is RFC 3339 with a zone or unix seconds.
//   - `nvidia-smi --query-gpu=... --format=csv[,nounits]`: headers such as
//     "timestamp", "index", "uuid", "name", "power.draw [W]",
//     "utilization.gpu [%]", "memory.used [MiB]", "temperature.gpu";
//     values carry the header's unit ("41 %") unless nounits; "[N/A]" and
//     "[Not Supported]" are not recorded. nvidia-smi writes its timestamp
//     ("2025/01/15 06:27:34.166") in the machine's local time without a
//     zone: it is read as UTC, and GPUTelemetry.Notes says so.
//   - a CSV made from `nvidia-smi dmon` (time,gpu,pwr,gtemp,...) with a
//     second header row of units (s,Idx,W,C,...).
//
// A file whose times are relative (dmon's "time" in s, or a "time [s]"
// column some scripts prefix to --query-gpu) cannot be placed in the
// measurement window: its samples are kept, and GPUTelemetry.Unplaced
// says why the run has no GPU figures. Nothing is guessed.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// Limits on GPU telemetry. nvidia-smi or DCGM sampling once a second
// writes some 100 bytes per GPU and second: a day of 8 GPUs is 70 MB
// and 700,000 rows.
const (
	// MaxGPUFileBytes bounds one gpu.csv or gpu-*.csv.
	MaxGPUFileBytes = 256 << 20
	// MaxGPULineBytes bounds one line of it.
	MaxGPULineBytes = 64 << 10
	// MaxGPUSamplesPerRun bounds the samples kept of a run, over its files.
	MaxGPUSamplesPerRun = 4_000_000
	// MaxGPUsPerRun bounds the distinct GPUs of a run.
	MaxGPUsPerRun = 4096
	// MaxPowerW bounds a power reading (watts) and MaxEnergyJ an energy
	// counter (joules); MaxMemoryMiB a memory figure (MiB).
	MaxPowerW    = 1e6
	MaxEnergyJ   = 1e18
	MaxMemoryMiB = 1e9
)

// GPU file formats, for GPUFile.Format.
const (
	GPUFormatNative      = "benchnote gpu.csv"
	GPUFormatNvidiaQuery = "nvidia-smi --query-gpu"
	GPUFormatNvidiaDmon  = "nvidia-smi dmon"
)

// GPUFileName is the name of a run's GPU telemetry file; gpu-*.csv files
// (one per node, say) are read too and merged with it.
const GPUFileName = "gpu.csv"

// isGPUFile reports whether a file name in a run directory is GPU telemetry.
func isGPUFile(name string) bool {
	return name == GPUFileName || strings.HasPrefix(name, "gpu-") && strings.HasSuffix(name, ".csv") && len(name) > len("gpu-.csv")
}

// GPUTelemetry is a run's GPU samples, from all its GPU files merged.
type GPUTelemetry struct {
	// Files are the files read, in name order.
	Files []GPUFile
	// GPUs are the distinct GPUs, sorted by Key.
	GPUs []GPUSeries
	// Unplaced says why the samples cannot be placed in the measurement
	// window (a file's times are relative); "" when they can.
	Unplaced string
	// Notes say how the files were read where a reader should know (a
	// timestamp without a zone read as UTC).
	Notes []string
	// DuplicateSamples counts samples of one GPU at a time it already had
	// a sample for (the same UUID reported by two hosts or endpoints, or
	// two files); the first was kept.
	DuplicateSamples int
	// Unread lists the GPU files that could not be used at all, with why
	// (the diagnostic's text); their samples are not in GPUs.
	Unread []IgnoredFile
}

// GPUFile is one GPU telemetry file that was read.
type GPUFile struct {
	// Path is relative to the sweep root.
	Path string
	// Format is GPUFormatNative, GPUFormatNvidiaQuery or GPUFormatNvidiaDmon.
	Format string
	// Rows counts the data rows read; Used those that gave a sample.
	Rows, Used int
	// Excluded counts the rows not used, by reason.
	Excluded []ReasonCount
	// UnusedColumns lists, in file order, the columns benchnote does not read.
	UnusedColumns []string
	// Relative is set when the file's times are seconds since the logger
	// started, not wall-clock times.
	Relative bool
}

// GPUSeries is one GPU's samples.
type GPUSeries struct {
	// Key identifies the GPU: its UUID when known, else "host/index".
	Key  string
	UUID string
	// Index is the GPU's index on its host, -1 when not recorded.
	Index int
	Name  string
	// Hosts lists the hosts (or endpoints) that reported it, sorted; one
	// GPU reported by two is counted once.
	Hosts []string
	// MemoryTotalMiB is the last total memory recorded, NaN when none.
	MemoryTotalMiB float64
	// Samples are sorted by Time.
	Samples []GPUSample
}

// GPUSample is one reading of one GPU; a field not recorded is NaN.
type GPUSample struct {
	// Time is unix seconds, or seconds since the logger started when the
	// file's times are relative.
	Time float64
	// PowerW is the power draw (W); EnergyJ a cumulative energy counter (J).
	PowerW, EnergyJ float64
	// UtilPercent is GPU utilisation, 0–100.
	UtilPercent float64
	// MemoryUsedMiB is the memory used (MiB); TemperatureC the temperature (°C).
	MemoryUsedMiB, TemperatureC float64
}

// gpuField is what a column holds.
type gpuField int

const (
	gfNone gpuField = iota
	gfTime
	gfRelTime
	gfHost
	gfUUID
	gfIndex
	gfName
	gfPower
	gfEnergy
	gfUtil
	gfMemUsed
	gfMemTotal
	gfTemp
)

var gpuFieldNames = map[gpuField]string{
	gfTime: "timestamp", gfRelTime: "time", gfHost: "host", gfUUID: "gpu uuid", gfIndex: "gpu index", gfName: "gpu name",
	gfPower: "power", gfEnergy: "energy", gfUtil: "utilisation", gfMemUsed: "memory used", gfMemTotal: "memory total", gfTemp: "temperature",
}

// nativeGPUColumns maps benchnote's gpu.csv columns.
var nativeGPUColumns = map[string]gpuField{
	"timestamp": gfTime, "host": gfHost, "gpu_uuid": gfUUID, "gpu_index": gfIndex, "gpu_name": gfName,
	"power_w": gfPower, "energy_j": gfEnergy, "util_percent": gfUtil, "memory_used_mib": gfMemUsed,
	"memory_total_mib": gfMemTotal, "temperature_c": gfTemp,
}

// nvidiaQueryColumns maps nvidia-smi --query-gpu headers (the property
// name, without the unit in brackets) and the unit each value must carry.
// power.draw.instant is preferred to power.draw (an average over a second
// on recent drivers), which is preferred to power.draw.average.
var nvidiaQueryColumns = map[string]struct {
	field gpuField
	unit  string
	rank  int // among columns of one field, the lowest is read
}{
	"timestamp": {gfTime, "", 0}, "index": {gfIndex, "", 0}, "uuid": {gfUUID, "", 0}, "gpu_uuid": {gfUUID, "", 0},
	"name": {gfName, "", 0}, "gpu_name": {gfName, "", 0},
	"power.draw.instant": {gfPower, "W", 0}, "power.draw": {gfPower, "W", 1}, "power.draw.average": {gfPower, "W", 2},
	"utilization.gpu": {gfUtil, "%", 0}, "memory.used": {gfMemUsed, "MiB", 0}, "memory.total": {gfMemTotal, "MiB", 0},
	"temperature.gpu": {gfTemp, "", 0}, "time": {gfRelTime, "s", 0},
}

// dmonColumns maps nvidia-smi dmon's columns and their units.
var dmonColumns = map[string]struct {
	field gpuField
	unit  string
}{
	"time": {gfRelTime, "s"}, "gpu": {gfIndex, "Idx"}, "pwr": {gfPower, "W"}, "gtemp": {gfTemp, "C"},
	"sm": {gfUtil, "%"}, "fb": {gfMemUsed, "MB"},
}

// gpuColumn is how one column is read.
type gpuColumn struct {
	field gpuField
	name  string // as written
	unit  string // the unit a value may carry ("" for none)
}

// gpuReader holds one file's layout while it is read.
type gpuReader struct {
	path   string
	format string
	cols   []gpuColumn
	noZone bool // nvidia-smi timestamps: no zone, read as UTC
}

// errGPULineTooLong is returned by lineLimitReader.
var errGPULineTooLong = errors.New("line too long")

// lineLimitReader fails once a line is longer than limit bytes, so that
// encoding/csv never buffers more than that for one line.
type lineLimitReader struct {
	r     io.Reader
	limit int
	run   int   // bytes since the last newline
	line  int   // 1-based line of the current byte
	read  int64 // bytes read
	err   error
}

func (l *lineLimitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	b := p[:n]
	for off := 0; off < n; {
		i := bytes.IndexByte(b[off:], '\n')
		seg := n - off
		if i >= 0 {
			seg = i
		}
		if l.run+seg > l.limit {
			l.err = errGPULineTooLong
			return off, l.err
		}
		if i < 0 {
			l.run += seg
			break
		}
		l.run = 0
		l.line++
		off += i + 1
	}
	return n, err
}

// gpuRecord is one row read: the GPU's identity and its sample.
type gpuRecord struct {
	host, uuid, name string
	index            int
	memTotal         float64
	s                GPUSample
}

// readGPUFile reads one GPU file. It returns a *FileError when the file
// cannot be used at all; rows it cannot use are counted in the GPUFile and
// listed (the first MaxListedExclusions of each reason) in diags.
func readGPUFile(r io.Reader, relPath string) (GPUFile, []gpuRecord, []Diagnostic, error) {
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxGPUFileBytes {
			return GPUFile{Path: relPath}, nil, nil, &FileError{tooLargeDiagnostic(relPath, Warning, MaxGPUFileBytes, "a GPU telemetry file", "its samples are not read")}
		}
	}
	f := newGPUFileReader(r, relPath)
	if err := f.readHeader(); err != nil {
		return f.gf, nil, nil, err
	}
	if err := f.readRows(); err != nil {
		return f.gf, nil, nil, err
	}
	if f.ll.read > MaxGPUFileBytes {
		// LimitReader stopped one byte past the bound: the file is larger.
		return f.gf, nil, nil, &FileError{tooLargeDiagnostic(relPath, Warning, MaxGPUFileBytes, "a GPU telemetry file", "its samples are not read")}
	}
	f.countExcluded()
	return f.gf, f.recs, f.diags, nil
}

// gpuFileReader is readGPUFile's state while it reads one file.
type gpuFileReader struct {
	relPath string
	ll      *lineLimitReader
	cr      *csv.Reader
	header  []string
	g       *gpuReader
	gf      GPUFile
	recs    []gpuRecord
	diags   []Diagnostic
	// excluded counts the rows excluded per reason; order holds the
	// reasons in the order first met.
	excluded map[string]int
	order    []string
	// interned holds one copy of each host, UUID and name.
	interned map[string]string
}

// newGPUFileReader returns a reader of r's CSV, lines and size bounded.
func newGPUFileReader(r io.Reader, relPath string) *gpuFileReader {
	ll := &lineLimitReader{r: io.LimitReader(r, MaxGPUFileBytes+1), limit: MaxGPULineBytes, line: 1}
	cr := csv.NewReader(ll)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	return &gpuFileReader{relPath: relPath, ll: ll, cr: cr, gf: GPUFile{Path: relPath},
		excluded: map[string]int{}, interned: map[string]string{}}
}

// readErr turns an error of the CSV reader into a *FileError.
func (f *gpuFileReader) readErr(err error) error {
	if errors.Is(err, errGPULineTooLong) {
		return fileErrorf(f.relPath, f.ll.line, 0, "", reasonTooLarge, "line longer than the limit of %s bytes for a GPU telemetry line", textfmt.Thousands(MaxGPULineBytes))
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileErrorf(f.relPath, pe.Line, pe.Column, "", "malformed CSV", "malformed CSV: %v", pe.Err)
	}
	return fileErrorf(f.relPath, 0, 0, "", reasonReadError, "reading GPU telemetry: %v", err)
}

// readHeader reads the header row, tells the format and notes the unused
// columns and whether times are relative.
func (f *gpuFileReader) readHeader() error {
	header, err := f.cr.Read()
	if err == io.EOF {
		return fileErrorf(f.relPath, 0, 0, "", "empty file", "empty file: expected a header row (benchnote gpu.csv, nvidia-smi --query-gpu --format=csv or nvidia-smi dmon CSV)")
	}
	if err != nil {
		return f.readErr(err)
	}
	header = slices.Clone(header)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	f.header = header
	g, ferr := gpuLayout(header, f.relPath)
	if ferr != nil {
		return ferr
	}
	f.g = g
	f.gf.Format = g.format
	for i, c := range g.cols {
		if c.field == gfNone {
			f.gf.UnusedColumns = append(f.gf.UnusedColumns, header[i])
		}
		if c.field == gfRelTime {
			f.gf.Relative = true
		}
	}
	return nil
}

// readRows reads the rows after the header: dmon's units row is checked
// and skipped, blank lines skipped, every other row added.
func (f *gpuFileReader) readRows() error {
	first := true
	for {
		rec, err := f.cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return f.readErr(err)
		}
		line, _ := f.cr.FieldPos(0)
		if f.g.format == GPUFormatNvidiaDmon && first {
			first = false
			if ok, msg := dmonUnits(f.g.cols, rec); msg != "" {
				return fileErrorf(f.relPath, line, 0, "", "bad units", "%s", msg)
			} else if ok {
				continue // the units row
			}
		}
		first = false
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if err := f.addRow(rec, line); err != nil {
			return err
		}
	}
}

// addRow keeps row rec of line as a sample, or excludes it with why; an
// error when the run's limits of GPUs or samples are passed.
func (f *gpuFileReader) addRow(rec []string, line int) error {
	f.gf.Rows++
	if len(rec) != len(f.g.cols) {
		f.exclude(line, 0, "wrong number of fields", fmt.Sprintf("%d fields, expected %d as in the header", len(rec), len(f.g.cols)))
		return nil
	}
	gr, col, reason, msg := f.g.row(rec)
	if reason != "" {
		f.exclude(line, col, reason, msg)
		return nil
	}
	// Hosts, UUIDs and names repeat on every row: one copy each, so
	// that a sample does not keep its line alive.
	gr.host, gr.uuid, gr.name = f.intern(gr.host), f.intern(gr.uuid), f.intern(gr.name)
	if len(f.interned) > 3*MaxGPUsPerRun {
		return fileErrorf(f.relPath, line, 0, "", reasonTooLarge, "more than %d distinct GPUs, hosts and names, the limit for a run's GPU telemetry", 3*MaxGPUsPerRun)
	}
	if len(f.recs) >= MaxGPUSamplesPerRun {
		return fileErrorf(f.relPath, line, 0, "", reasonTooLarge, "more than %s samples, the limit for a run's GPU telemetry", textfmt.Thousands(MaxGPUSamplesPerRun))
	}
	f.recs = append(f.recs, gr)
	f.gf.Used++
	return nil
}

// exclude counts a row excluded for reason and lists the first
// MaxListedExclusions of each reason as diagnostics.
func (f *gpuFileReader) exclude(line, col int, reason, msg string) {
	if f.excluded[reason] == 0 {
		f.order = append(f.order, reason)
	}
	f.excluded[reason]++
	if f.excluded[reason] <= MaxListedExclusions {
		d := Diagnostic{Severity: Warning, File: f.relPath, Line: line, Column: col, Reason: reason, Message: msg}
		if col > 0 && col <= len(f.header) {
			d.ColumnName = strings.TrimSpace(f.header[col-1])
		}
		f.diags = append(f.diags, d)
	}
}

// intern returns the one copy kept of v.
func (f *gpuFileReader) intern(v string) string {
	if v == "" {
		return ""
	}
	if c, ok := f.interned[v]; ok {
		return c
	}
	c := strings.Clone(v)
	f.interned[c] = c
	return c
}

// countExcluded sets the file's excluded rows per reason and says how
// many of each were not listed one by one.
func (f *gpuFileReader) countExcluded() {
	for _, reason := range f.order {
		n := f.excluded[reason]
		f.gf.Excluded = append(f.gf.Excluded, ReasonCount{Reason: reason, Rows: n})
		if n > MaxListedExclusions {
			f.diags = append(f.diags, Diagnostic{Severity: Warning, File: f.relPath, Reason: reason,
				Message: fmt.Sprintf("%s more rows excluded as %s; only the first %d are listed one by one", textfmt.Thousands(n-MaxListedExclusions), reason, MaxListedExclusions)})
		}
	}
}

// gpuLayout tells the format from the header and maps its columns.
func gpuLayout(header []string, relPath string) (*gpuReader, *FileError) {
	g := &gpuReader{path: relPath, cols: make([]gpuColumn, len(header))}
	norm := make([]string, len(header))
	native, query, dmon := 0, 0, false
	for i, h := range header {
		norm[i] = strings.ToLower(strings.TrimSpace(h))
		if _, ok := nativeGPUColumns[norm[i]]; ok && norm[i] != "timestamp" {
			native++
		}
		name, _ := splitHeaderUnit(norm[i])
		if _, ok := nvidiaQueryColumns[name]; ok && strings.Contains(name, ".") {
			query++
		}
	}
	if len(norm) >= 2 && strings.TrimPrefix(norm[0], "#") == "time" && norm[1] == "gpu" || len(norm) >= 1 && norm[0] == "#gpu" {
		dmon = true
	}
	seen := map[gpuField]int{} // field -> column index+1
	rank := map[gpuField]int{}
	set := func(i int, f gpuField, unit string, r int) *FileError {
		if j := seen[f]; j > 0 {
			if r >= rank[f] {
				g.cols[i] = gpuColumn{field: gfNone, name: header[i]}
				if r == rank[f] {
					return fileErrorf(relPath, 1, i+1, header[i], "duplicate column", "column %q holds the %s, as column %d does; keep one", header[i], gpuFieldNames[f], j)
				}
				return nil
			}
			g.cols[j-1] = gpuColumn{field: gfNone, name: header[j-1]}
		}
		seen[f], rank[f] = i+1, r
		g.cols[i] = gpuColumn{field: f, name: header[i], unit: unit}
		return nil
	}
	switch {
	case dmon:
		g.format = GPUFormatNvidiaDmon
		for i, h := range norm {
			c, ok := dmonColumns[strings.TrimPrefix(h, "#")]
			if !ok {
				g.cols[i] = gpuColumn{name: header[i]}
				continue
			}
			if err := set(i, c.field, c.unit, 0); err != nil {
				return nil, err
			}
		}
	case query > 0 && native == 0:
		g.format = GPUFormatNvidiaQuery
		g.noZone = true
		for i, h := range norm {
			name, unit := splitHeaderUnit(h)
			c, ok := nvidiaQueryColumns[name]
			if !ok {
				g.cols[i] = gpuColumn{name: header[i]}
				continue
			}
			if c.unit != "" && unit != "" && unit != strings.ToLower(c.unit) {
				return nil, fileErrorf(relPath, 1, i+1, header[i], "bad unit", "column %q is in %s, expected [%s]", header[i], unit, c.unit)
			}
			if err := set(i, c.field, c.unit, c.rank); err != nil {
				return nil, err
			}
		}
	case native > 0:
		g.format = GPUFormatNative
		for i, h := range norm {
			f, ok := nativeGPUColumns[h]
			if !ok {
				g.cols[i] = gpuColumn{name: header[i]}
				continue
			}
			if err := set(i, f, "", 0); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fileErrorf(relPath, 1, 0, "", "unrecognised header",
			"header %q is not GPU telemetry: expected benchnote's gpu.csv columns (timestamp, gpu_uuid or gpu_index, power_w, energy_j, util_percent, ...), nvidia-smi --query-gpu --format=csv headers (timestamp, uuid, power.draw [W], ...) or an nvidia-smi dmon CSV (time, gpu, pwr, ...)", textfmt.ClipBytes(strings.Join(header, ","), 200))
	}
	if seen[gfTime] == 0 && seen[gfRelTime] == 0 {
		return nil, fileErrorf(relPath, 1, 0, "", "missing column", "no timestamp column: a GPU sample must say when it was taken")
	}
	if seen[gfUUID] == 0 && seen[gfIndex] == 0 {
		return nil, fileErrorf(relPath, 1, 0, "", "missing column", "no GPU uuid or index column: a sample must say which GPU it is of")
	}
	return g, nil
}

// splitHeaderUnit splits "power.draw [w]" into "power.draw" and "w".
func splitHeaderUnit(h string) (string, string) {
	if i := strings.LastIndexByte(h, '['); i > 0 && strings.HasSuffix(h, "]") {
		return strings.TrimSpace(h[:i]), strings.TrimSpace(h[i+1 : len(h)-1])
	}
	return h, ""
}

// dmonUnits reports whether rec is dmon's units row; when it is one but a
// unit is not the one expected, it says so.
func dmonUnits(cols []gpuColumn, rec []string) (bool, string) {
	if len(rec) != len(cols) || strings.TrimSpace(rec[0]) == "" {
		return false, ""
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64); err == nil {
		return false, ""
	}
	for i, c := range cols {
		if c.field == gfNone || c.unit == "" {
			continue
		}
		if u := strings.TrimSpace(rec[i]); !strings.EqualFold(u, c.unit) {
			return true, fmt.Sprintf("units row: column %q is in %q, expected %q", c.name, u, c.unit)
		}
	}
	return true, ""
}

// notRecorded reports whether a cell says "no value".
func notRecorded(v string) bool {
	switch strings.ToLower(v) {
	case "", "[n/a]", "n/a", "[not supported]", "not supported", "-", "[unknown error]", "[gpu is lost]":
		return true
	}
	return false
}

// nvidiaTimeLayout is nvidia-smi's timestamp, in local time without a zone.
const nvidiaTimeLayout = "2006/01/02 15:04:05.000"

// row reads one data row. reason is "" when it gave a sample; else col
// (1-based, 0 for the row) and msg say what is wrong.
func (g *gpuReader) row(rec []string) (gr gpuRecord, col int, reason, msg string) {
	nan := math.NaN()
	gr = gpuRecord{index: -1, memTotal: nan, s: GPUSample{Time: nan, PowerW: nan, EnergyJ: nan, UtilPercent: nan, MemoryUsedMiB: nan, TemperatureC: nan}}
	values := 0
	for i, c := range g.cols {
		if c.field == gfNone {
			continue
		}
		v := strings.TrimSpace(rec[i])
		if notRecorded(v) {
			continue
		}
		switch c.field {
		case gfHost:
			gr.host = v
			continue
		case gfUUID:
			gr.uuid = v
			continue
		case gfName:
			gr.name = v
			continue
		case gfTime:
			t, err := g.parseTime(v)
			if err != nil {
				return gr, i + 1, "bad timestamp", err.Error()
			}
			gr.s.Time = t
			continue
		}
		if c.unit != "" {
			if num, unit, ok := strings.Cut(v, " "); ok {
				if !strings.EqualFold(strings.TrimSpace(unit), c.unit) {
					return gr, i + 1, "bad unit", fmt.Sprintf("%s %q: unit %q, expected %q", gpuFieldNames[c.field], v, strings.TrimSpace(unit), c.unit)
				}
				v = num
			}
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return gr, i + 1, "non-numeric", fmt.Sprintf("%s %q: expected a number", gpuFieldNames[c.field], textfmt.ClipBytes(v, 40))
		}
		lo, hi := 0.0, MaxPowerW
		var dst *float64
		switch c.field {
		case gfRelTime:
			lo, hi, dst = 0, MaxUnixSeconds, &gr.s.Time
		case gfIndex:
			if f != math.Trunc(f) || f < 0 || f >= MaxGPUsPerRun {
				return gr, i + 1, "out of range", fmt.Sprintf("gpu index %q: expected a whole number from 0 to %d", v, MaxGPUsPerRun-1)
			}
			gr.index = int(f)
			continue
		case gfPower:
			dst = &gr.s.PowerW
		case gfEnergy:
			hi, dst = MaxEnergyJ, &gr.s.EnergyJ
		case gfUtil:
			hi, dst = 100, &gr.s.UtilPercent
		case gfMemUsed:
			hi, dst = MaxMemoryMiB, &gr.s.MemoryUsedMiB
			if c.unit == "MB" {
				f = f * 1e6 / (1 << 20) // dmon's fb is in MB (10^6 bytes)
			}
		case gfMemTotal:
			hi, dst = MaxMemoryMiB, &gr.memTotal
		case gfTemp:
			lo, hi, dst = -273.15, 1000, &gr.s.TemperatureC
		}
		if f < lo || f > hi {
			return gr, i + 1, "out of range", fmt.Sprintf("%s %s is outside [%g, %g]", gpuFieldNames[c.field], v, lo, hi)
		}
		*dst = f
		if c.field != gfRelTime && c.field != gfMemTotal {
			values++
		}
	}
	switch {
	case math.IsNaN(gr.s.Time):
		return gr, 0, "no timestamp", "no timestamp: the sample cannot be placed"
	case gr.uuid == "" && gr.index < 0:
		return gr, 0, "no GPU key", "neither a GPU uuid nor an index: the sample is of no known GPU"
	case values == 0:
		return gr, 0, "nothing recorded", "no power, energy, utilisation, memory or temperature recorded"
	}
	return gr, 0, "", ""
}

// parseTime reads a wall-clock timestamp as unix seconds.
func (g *gpuReader) parseTime(v string) (float64, error) {
	if g.noZone {
		if t, err := time.Parse(nvidiaTimeLayout, v); err == nil {
			return unixSeconds(t), nil
		}
		if t, err := time.Parse("2006/01/02 15:04:05", v); err == nil {
			return unixSeconds(t), nil
		}
	}
	t, err := ParseTime(v)
	if err != nil {
		return 0, fmt.Errorf("timestamp %q: expected RFC 3339 with a zone, unix seconds or nvidia-smi's 2006/01/02 15:04:05.000", textfmt.ClipBytes(v, 60))
	}
	return unixSeconds(t), nil
}

func unixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// readGPUTelemetry reads a run directory's GPU files (names sorted) and
// merges them; nil when the run has none. A file that cannot be used is a
// Warning (the run's other figures do not depend on it) and is listed in
// Unread.
func readGPUTelemetry(root, dir string, names []string) (*GPUTelemetry, []Diagnostic) {
	var diags []Diagnostic
	var tel *GPUTelemetry
	var all []gpuRecord
	for _, name := range names {
		if !isGPUFile(name) {
			continue
		}
		if tel == nil {
			tel = &GPUTelemetry{}
		}
		rel := path.Join(dir, name)
		unread := func(d Diagnostic) {
			diags = append(diags, d)
			tel.Unread = append(tel.Unread, IgnoredFile{Path: rel, Reason: d.String()})
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			unread(Diagnostic{Severity: Warning, File: rel, Reason: "unreadable GPU telemetry", Message: err.Error()})
			continue
		}
		gf, recs, ds, err := readGPUFile(f, rel)
		f.Close()
		if err != nil {
			d := Diagnostic{Severity: Warning, File: rel, Reason: "unreadable GPU telemetry", Message: err.Error()}
			var fe *FileError
			if errors.As(err, &fe) {
				d = fe.Diagnostic
				d.Severity = Warning
			}
			unread(d)
			continue
		}
		if len(all)+len(recs) > MaxGPUSamplesPerRun {
			unread(Diagnostic{Severity: Warning, File: rel, Reason: reasonTooLarge,
				Message: fmt.Sprintf("the run's GPU files hold more than %s samples, the limit for a run; this file is not read", textfmt.Thousands(MaxGPUSamplesPerRun))})
			continue
		}
		diags = append(diags, ds...)
		if len(gf.UnusedColumns) > 0 {
			diags = append(diags, Diagnostic{Severity: Warning, File: rel, Reason: "unused columns",
				Message: fmt.Sprintf("columns not read: %s", strings.Join(gf.UnusedColumns, ", "))})
		}
		tel.Files = append(tel.Files, gf)
		all = append(all, recs...)
		switch {
		case gf.Relative && tel.Unplaced == "":
			tel.Unplaced = rel + ": times are seconds since the logger started, not wall-clock times; the samples cannot be placed in the measurement window"
		case gf.Format == GPUFormatNvidiaQuery && gf.Used > 0 && !gf.Relative:
			tel.Notes = append(tel.Notes, rel+": nvidia-smi writes timestamps in local time without a zone; they were read as UTC")
		}
	}
	if tel == nil || len(all) == 0 {
		return tel, diags
	}
	if err := mergeGPURecords(tel, all); err != "" {
		diags = append(diags, Diagnostic{Severity: Warning, File: dir, Reason: reasonTooLarge, Message: err})
		tel.GPUs = nil
	}
	return tel, diags
}

// mergeGPURecords groups records into GPUs: by UUID when the record has
// one, else by (host, index). A UUID seen under two hosts is one GPU; a
// second sample of one GPU at one time is counted and left out. A record
// without UUID whose (host, index) another record names with a UUID joins
// that GPU.
func mergeGPURecords(tel *GPUTelemetry, recs []gpuRecord) string {
	byKey := map[string]*GPUSeries{}
	hostIndex := map[string]string{} // host/index -> uuid key
	for _, r := range recs {
		if r.uuid != "" && r.index >= 0 {
			hostIndex[r.host+"/"+strconv.Itoa(r.index)] = r.uuid
		}
	}
	for _, r := range recs {
		key := r.uuid
		if key == "" {
			hi := r.host + "/" + strconv.Itoa(r.index)
			if u, ok := hostIndex[hi]; ok {
				key = u
			} else {
				key = hi
			}
		}
		g := byKey[key]
		if g == nil {
			if len(byKey) >= MaxGPUsPerRun {
				return fmt.Sprintf("more than %d distinct GPUs, the limit for a run: GPU telemetry not used", MaxGPUsPerRun)
			}
			g = &GPUSeries{Key: key, UUID: r.uuid, Index: -1, MemoryTotalMiB: math.NaN()}
			if r.uuid == "" {
				g.UUID = ""
			}
			byKey[key] = g
		}
		if r.index >= 0 && g.Index < 0 {
			g.Index = r.index
		}
		if r.name != "" && g.Name == "" {
			g.Name = textfmt.ClipBytes(r.name, 200)
		}
		if r.uuid != "" && g.UUID == "" {
			g.UUID = r.uuid
		}
		if !slices.Contains(g.Hosts, r.host) && r.host != "" {
			g.Hosts = append(g.Hosts, textfmt.ClipBytes(r.host, 200))
		}
		if !math.IsNaN(r.memTotal) {
			g.MemoryTotalMiB = r.memTotal
		}
		g.Samples = append(g.Samples, r.s)
	}
	for _, g := range byKey {
		slices.Sort(g.Hosts)
		slices.SortStableFunc(g.Samples, func(a, b GPUSample) int {
			switch {
			case a.Time < b.Time:
				return -1
			case a.Time > b.Time:
				return 1
			}
			return 0
		})
		out := g.Samples[:0]
		for i, s := range g.Samples {
			if i > 0 && s.Time == out[len(out)-1].Time {
				tel.DuplicateSamples++
				continue
			}
			out = append(out, s)
		}
		g.Samples = out
		tel.GPUs = append(tel.GPUs, *g)
	}
	slices.SortFunc(tel.GPUs, func(a, b GPUSeries) int { return strings.Compare(a.Key, b.Key) })
	return ""
}
