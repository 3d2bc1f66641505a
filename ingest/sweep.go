package ingest

import (
	"bufio"
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
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/parquet/file"
	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/internal/outdir"
)

// Options tunes Load.
type Options struct {
	// Progress, when non-nil, receives one line per run as it is read.
	Progress io.Writer
	// RunRead, when non-nil, is called after each run is read with the
	// number of runs read so far, the number of runs and the run itself.
	// Calls never overlap. The command line draws its progress from it.
	RunRead func(done, total int, run *Run)
	// Workers is the number of runs read at once; 0 means GOMAXPROCS.
	Workers int
}

// Well-known file names inside a sweep.
const (
	SweepConfigFile = "sweep.yaml"
	RunConfigFile   = "run.yaml"
	RequestsCSV     = "requests.csv"
	RequestsParquet = "requests.parquet"
	ScrapeStartFile = "metrics-start.prom"
	ScrapeEndFile   = "metrics-end.prom"
	// ReportedFile holds a source tool's aggregate figures for a run
	// imported without per-request records.
	ReportedFile = "reported.yaml"
	// ImportRecordFile, at the sweep root, lists what `benchnote import`
	// wrote there; its presence marks the sweep as an import.
	ImportRecordFile = "benchnote-import.yaml"
	envFilePrefix    = "env."
	reasonNotRead    = "not part of the input contract"
	reasonOutsideRun = "not in a run directory"
	reasonReport     = "a report benchnote wrote (it holds " + outdir.MarkerName + "), not input"
)

// Load reads the sweep rooted at root. It returns an error only when root
// itself cannot be read or sweep.yaml is malformed; every other problem is
// recorded on the sweep or on the run it concerns.
func Load(root string, opts Options) (*Sweep, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("sweep: %s is not a directory", root)
	}
	sw := &Sweep{Root: root, Config: DefaultConfig()}
	if data, err := os.ReadFile(filepath.Join(root, SweepConfigFile)); err == nil {
		cfg, diags, err := ParseSweepConfig(data, SweepConfigFile)
		if err != nil {
			return nil, err
		}
		sw.Config = cfg
		sw.Diagnostics = append(sw.Diagnostics, diags...)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %w", err)
	}

	tree, err := scanTree(root)
	if err != nil {
		return nil, err
	}
	sw.IgnoredFiles = tree.ignored
	if len(tree.runDirs) == 0 {
		sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Error, File: ".", Reason: "no runs",
			Message: "no run directory found: a run directory holds requests.csv or requests.parquet"})
	}

	// Environment files of each directory, parsed once.
	envByDir := map[string][]EnvSource{}
	for _, dir := range tree.envDirs {
		for _, name := range tree.envFiles[dir] {
			rel := path.Join(dir, name)
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Error, File: rel, Reason: "unreadable",
					Message: fmt.Sprintf("cannot read environment log: %v", err)})
				continue
			}
			src := ParseEnvFile(data, rel)
			if src.Format == "unrecognised" {
				sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Warning, File: rel, Reason: "unrecognised environment log",
					Message: "environment log format not recognised (expected JSON, YAML, collect_env, nvidia-smi or a vLLM server log); its keys are not used"})
			}
			envByDir[dir] = append(envByDir[dir], src)
		}
	}

	runs := make([]*Run, len(tree.runDirs))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	next := make(chan int)
	done := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				dir := tree.runDirs[i]
				runs[i] = loadRun(root, dir, tree.runFiles[dir], sw.Config, envForDir(dir, envByDir))
				if opts.Progress != nil || opts.RunRead != nil {
					progressMu.Lock()
					done++
					if opts.Progress != nil {
						fmt.Fprintf(opts.Progress, "read %d/%d runs: %s\n", done, len(runs), dir)
					}
					if opts.RunRead != nil {
						opts.RunRead(done, len(runs), runs[i])
					}
					progressMu.Unlock()
				}
			}
		}()
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()

	assignRepeats(runs)
	sort.SliceStable(runs, func(i, j int) bool {
		if c := runs[i].Load.Compare(runs[j].Load); c != 0 {
			return c < 0
		}
		if runs[i].Repeat != runs[j].Repeat {
			return runs[i].Repeat < runs[j].Repeat
		}
		return runs[i].Dir < runs[j].Dir
	})
	sw.Runs = runs
	for _, dir := range tree.reportedDirs {
		sw.Reported = append(sw.Reported, loadReported(root, dir))
	}
	sort.SliceStable(sw.Reported, func(i, j int) bool {
		if c := sw.Reported[i].Load.Compare(sw.Reported[j].Load); c != 0 {
			return c < 0
		}
		return sw.Reported[i].Dir < sw.Reported[j].Dir
	})
	sw.EnvDiffs = diffEnvironments(runs)
	for _, d := range sw.EnvDiffs {
		var parts []string
		for _, v := range d.Values {
			val := v.Value
			if val == "" {
				val = "(absent)"
			}
			parts = append(parts, fmt.Sprintf("%q in %s", val, strings.Join(v.Runs, ", ")))
		}
		sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Warning, File: ".", Reason: "environment differs",
			Message: fmt.Sprintf("environment key %s differs between runs: %s", d.Key, strings.Join(parts, "; "))})
	}
	return sw, nil
}

// tree is the result of walking a sweep directory.
type tree struct {
	runDirs      []string            // slash paths relative to root, sorted
	reportedDirs []string            // directories holding only reported.yaml, sorted
	runFiles     map[string][]string // run dir -> file names in it
	envDirs      []string            // directories holding env.* files, sorted
	envFiles     map[string][]string // dir -> env file names, sorted
	ignored      []IgnoredFile
}

func scanTree(root string) (*tree, error) {
	files := map[string][]string{} // dir -> regular file names
	var dirs []string
	var ignored []IgnoredFile
	// WalkDir does not follow a root that is a symbolic link; walk what it
	// points to (links below the root are still not followed).
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			rel, _ := filepath.Rel(root, p)
			ignored = append(ignored, IgnoredFile{Path: filepath.ToSlash(rel), Reason: fmt.Sprintf("unreadable: %v", err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if outdir.IsMarked(p) {
				ignored = append(ignored, IgnoredFile{Path: rel + "/", Reason: reasonReport})
				return fs.SkipDir
			}
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				ignored = append(ignored, IgnoredFile{Path: rel + "/", Reason: "hidden directory"})
				return fs.SkipDir
			}
			dirs = append(dirs, rel)
			return nil
		}
		if !d.Type().IsRegular() {
			ignored = append(ignored, IgnoredFile{Path: rel, Reason: "not a regular file"})
			return nil
		}
		dir := path.Dir(rel)
		files[dir] = append(files[dir], d.Name())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	t := &tree{runFiles: map[string][]string{}, envFiles: map[string][]string{}}
	isRun, isReported := map[string]bool{}, map[string]bool{}
	for _, dir := range dirs {
		for _, name := range files[dir] {
			if name == RequestsCSV || name == RequestsParquet {
				isRun[dir] = true
			}
		}
		for _, name := range files[dir] {
			if name == ReportedFile && !isRun[dir] {
				isReported[dir] = true
			}
		}
	}
	for _, dir := range dirs {
		names := files[dir]
		sort.Strings(names)
		if isRun[dir] {
			t.runDirs = append(t.runDirs, dir)
			t.runFiles[dir] = names
		}
		if isReported[dir] {
			t.reportedDirs = append(t.reportedDirs, dir)
		}
		for _, name := range names {
			rel := path.Join(dir, name)
			switch {
			case strings.HasPrefix(name, envFilePrefix):
				t.envFiles[dir] = append(t.envFiles[dir], name)
			case dir == "." && (name == SweepConfigFile || name == ImportRecordFile):
			case isReported[dir] && name == ReportedFile:
			case isRun[dir] && (name == RunConfigFile || name == RequestsCSV || name == RequestsParquet ||
				name == ScrapeStartFile || name == ScrapeEndFile):
			case isRun[dir]:
				ignored = append(ignored, IgnoredFile{Path: rel, Reason: reasonNotRead})
			default:
				ignored = append(ignored, IgnoredFile{Path: rel, Reason: reasonOutsideRun})
			}
		}
		if len(t.envFiles[dir]) > 0 {
			t.envDirs = append(t.envDirs, dir)
		}
	}
	sort.Slice(ignored, func(i, j int) bool { return ignored[i].Path < ignored[j].Path })
	t.ignored = ignored
	return t, nil
}

// envForDir returns the environment sources that apply to a run directory:
// those of the root, then of every directory on the way down to it.
func envForDir(dir string, envByDir map[string][]EnvSource) []EnvSource {
	var chain []string
	for d := dir; ; d = path.Dir(d) {
		chain = append(chain, d)
		if d == "." || d == "/" {
			break
		}
	}
	var out []EnvSource
	for i := len(chain) - 1; i >= 0; i-- {
		out = append(out, envByDir[chain[i]]...)
	}
	return out
}

var concurrencySegment = regexp.MustCompile(`^(?i:c|conc|concurrency[-_=])(\d+)$`)

// concurrencyFromPath finds the concurrency in the path segment closest to
// the run directory.
func concurrencyFromPath(dir string) (int, bool) {
	segs := strings.Split(dir, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if m := concurrencySegment.FindStringSubmatch(segs[i]); m != nil {
			n, err := strconv.Atoi(m[1])
			if err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, false
}

func loadRun(root, dir string, names []string, cfg Config, env []EnvSource) *Run {
	run := &Run{Dir: dir}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	abs := func(name string) string { return filepath.Join(root, filepath.FromSlash(dir), name) }
	rel := func(name string) string { return path.Join(dir, name) }
	fail := func(d Diagnostic) {
		run.Diagnostics = append(run.Diagnostics, d)
		if d.Severity == Error {
			run.Failed = true
		}
	}

	var rc runConfig
	if has[RunConfigFile] {
		data, err := os.ReadFile(abs(RunConfigFile))
		if err != nil {
			fail(Diagnostic{Severity: Error, File: rel(RunConfigFile), Reason: "unreadable", Message: err.Error()})
		} else {
			var diags []Diagnostic
			rc, diags = parseRunConfig(data, rel(RunConfigFile))
			for _, d := range diags {
				fail(d)
			}
		}
	}
	run.Load, run.ConcurrencySource = levelOf(dir, rc)
	run.Concurrency = run.Load.Concurrency
	if !run.Load.Valid() {
		fail(Diagnostic{Severity: Error, File: dir, Reason: "no concurrency",
			Message: fmt.Sprintf("cannot tell the load level of run directory %q: set concurrency or rate in run.yaml or name a path segment c8, conc8, concurrency-8, concurrency_8, concurrency=8, rate16, qps16 or rate-inf", dir)})
	}
	run.Clock, run.Provenance = rc.Clock, rc.Provenance
	if rc.Repeat > 0 {
		run.Repeat, run.RepeatSource = rc.Repeat, "run.yaml"
	}
	run.MaxTokens, run.Notes = rc.MaxTokens, rc.Notes

	// Client records.
	switch {
	case has[RequestsCSV] && has[RequestsParquet]:
		fail(Diagnostic{Severity: Error, File: dir, Reason: "ambiguous requests",
			Message: "run directory holds both requests.csv and requests.parquet; keep one"})
	case has[RequestsCSV]:
		run.Requests = readRequestsFile(abs(RequestsCSV), rel(RequestsCSV), "csv", fail)
	case has[RequestsParquet]:
		run.Requests = readRequestsFile(abs(RequestsParquet), rel(RequestsParquet), "parquet", fail)
	}

	// Scrapes.
	readScrape := func(name string) *Scrape {
		if !has[name] {
			return nil
		}
		f, err := os.Open(abs(name))
		if err != nil {
			fail(Diagnostic{Severity: Warning, File: rel(name), Reason: "unreadable scrape", Message: err.Error()})
			return nil
		}
		defer f.Close()
		s, err := ParseScrape(f, rel(name), cfg.Metrics, cfg.LabelSelector)
		if err != nil {
			d := Diagnostic{Severity: Warning, File: rel(name), Reason: "unreadable scrape", Message: err.Error()}
			var fe *FileError
			if errors.As(err, &fe) {
				d = fe.Diagnostic
				d.Severity = Warning
				d.Reason = "unreadable scrape"
			}
			fail(d)
			return nil
		}
		run.Diagnostics = append(run.Diagnostics, s.Diagnostics...)
		return s
	}
	run.ScrapeStart = readScrape(ScrapeStartFile)
	run.ScrapeEnd = readScrape(ScrapeEndFile)

	// Window.
	switch {
	case rc.HasWindow:
		run.Window = Window{Start: rc.WindowStart, End: rc.WindowEnd, Source: "run.yaml"}
	case run.ScrapeStart != nil && run.ScrapeEnd != nil &&
		!run.ScrapeStart.Timestamp.IsZero() && run.ScrapeEnd.Timestamp.After(run.ScrapeStart.Timestamp):
		run.Window = Window{Start: run.ScrapeStart.Timestamp, End: run.ScrapeEnd.Timestamp, Source: "scrapes"}
	default:
		run.Window = Window{Source: "unknown"}
	}

	run.Env = MergeEnv(env)
	return run
}

// levelOf finds a run's load level: run.yaml's concurrency or rate, else
// the path segment closest to the run directory naming a concurrency (c8)
// or a rate (rate16, qps16, rate-inf). It also says where it came from.
func levelOf(dir string, rc runConfig) (LoadLevel, string) {
	switch {
	case rc.Concurrency > 0 && rc.Rate > 0:
		return LoadLevel{}, ""
	case rc.Concurrency > 0:
		return ConcurrencyLoad(rc.Concurrency), "run.yaml"
	case rc.Rate > 0:
		return RateLoad(rc.Rate, rc.Arrival), "run.yaml"
	}
	segs := strings.Split(dir, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if n, ok := concurrencyFromPath(segs[i]); ok {
			return ConcurrencyLoad(n), "path"
		}
		if l, ok := rateFromPath(segs[i]); ok {
			return l, "path"
		}
	}
	return LoadLevel{}, ""
}

// loadReported reads a directory holding a source tool's aggregate
// figures (reported.yaml) and nothing to recompute them from.
func loadReported(root, dir string) *ReportedRun {
	rr := &ReportedRun{Dir: dir}
	rel := path.Join(dir, ReportedFile)
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		rr.Diagnostics = append(rr.Diagnostics, Diagnostic{Severity: Error, File: rel, Reason: "unreadable", Message: err.Error()})
		return rr
	}
	rc, diags := parseRunConfig(data, rel)
	rr.Diagnostics = append(rr.Diagnostics, diags...)
	rr.Load, _ = levelOf(dir, rc)
	rr.Repeat, rr.Notes, rr.Provenance = rc.Repeat, rc.Notes, rc.Provenance
	if rr.Provenance == nil {
		rr.Diagnostics = append(rr.Diagnostics, Diagnostic{Severity: Error, File: rel, Reason: "no source",
			Message: "reported.yaml: expected source.tool and a reported list of the tool's figures"})
	}
	return rr
}

func readRequestsFile(absPath, relPath, format string, fail func(Diagnostic)) *RequestFile {
	f, err := os.Open(absPath)
	if err != nil {
		fail(Diagnostic{Severity: Error, File: relPath, Reason: "unreadable", Message: err.Error()})
		return nil
	}
	defer f.Close()
	var rf *RequestFile
	if format == "csv" {
		rf, err = ReadRequestsCSV(f, relPath)
	} else {
		rf, err = ReadRequestsParquet(f, relPath)
	}
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fail(fe.Diagnostic)
		} else {
			fail(Diagnostic{Severity: Error, File: relPath, Reason: "unreadable", Message: err.Error()})
		}
		// Count what the file holds, where it can be counted, so the
		// report's accounting still adds up to the input.
		if n, ok := countRows(f, format); ok && n > 0 {
			return &RequestFile{Path: relPath, Format: format, RowsRead: n, Requests: &Requests{}}
		}
		return nil
	}
	return rf
}

// countRows counts the data rows of a file that could not be read as
// requests: CSV records after the header line, or the row count a Parquet
// footer declares. ok is false when even that cannot be read.
func countRows(f *os.File, format string) (int, bool) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, false
	}
	if format == "parquet" {
		r, err := file.NewParquetReader(f)
		if err != nil {
			return 0, false
		}
		defer r.Close()
		return int(r.NumRows()), true
	}
	cr := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	n := -1 // the header
	for {
		_, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false
		}
		n++
	}
	return max(n, 0), true
}

// assignRepeats numbers the runs of each load level: run.yaml's repeat
// where given, else the next free number in path order.
func assignRepeats(runs []*Run) {
	byLevel := map[LoadLevel][]*Run{}
	var levels []LoadLevel
	for _, r := range runs {
		if _, ok := byLevel[r.Load]; !ok {
			levels = append(levels, r.Load)
		}
		byLevel[r.Load] = append(byLevel[r.Load], r)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i].Compare(levels[j]) < 0 })
	for _, c := range levels {
		level := byLevel[c]
		sort.SliceStable(level, func(i, j int) bool { return level[i].Dir < level[j].Dir })
		used := map[int]string{}
		for _, r := range level {
			if r.Repeat == 0 {
				continue
			}
			if other, dup := used[r.Repeat]; dup {
				r.Diagnostics = append(r.Diagnostics, Diagnostic{Severity: Warning, File: path.Join(r.Dir, RunConfigFile), Reason: "duplicate repeat",
					Message: fmt.Sprintf("repeat %d is also claimed by %s; numbering this run by path order", r.Repeat, other)})
				r.Repeat, r.RepeatSource = 0, ""
				continue
			}
			used[r.Repeat] = r.Dir
		}
		nextFree := 1
		for _, r := range level {
			if r.Repeat != 0 {
				continue
			}
			for used[nextFree] != "" {
				nextFree++
			}
			r.Repeat, r.RepeatSource = nextFree, "path order"
			used[nextFree] = r.Dir
		}
	}
}

// diffEnvironments lists the environment keys whose values differ between
// runs: the canonical fields first, then every other key, each sorted.
func diffEnvironments(runs []*Run) []EnvDiff {
	if len(runs) < 2 {
		return nil
	}
	perRun := make([]map[string]string, len(runs))
	keySet := map[string]bool{}
	for i, r := range runs {
		m := map[string]string{}
		for _, src := range r.Env.Sources {
			for _, kv := range src.Keys {
				m[path.Base(src.Path)+": "+kv.Key] = kv.Value
			}
		}
		for k, v := range r.Env.Canonical {
			m[k] = v
		}
		perRun[i] = m
		for k := range m {
			keySet[k] = true
		}
	}
	canonical := map[string]bool{}
	for _, k := range CanonicalFields {
		canonical[k] = true
	}
	var keys []string
	for k := range keySet {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := canonical[keys[i]], canonical[keys[j]]
		if ci != cj {
			return ci
		}
		return keys[i] < keys[j]
	})
	var diffs []EnvDiff
	canonicalDiffers := map[string]bool{}
	for _, k := range keys {
		// A raw key ("env.json: engine_version") that names a canonical
		// field already reported as differing adds nothing.
		if i := strings.Index(k, ": "); i >= 0 && canonicalDiffers[k[i+2:]] {
			continue
		}
		groups := map[string][]string{}
		for i, r := range runs {
			groups[perRun[i][k]] = append(groups[perRun[i][k]], r.Dir)
		}
		if len(groups) < 2 {
			continue
		}
		d := EnvDiff{Key: k}
		for v, dirs := range groups {
			sort.Strings(dirs)
			d.Values = append(d.Values, EnvDiffValue{Value: v, Runs: dirs})
		}
		sort.Slice(d.Values, func(i, j int) bool { return d.Values[i].Value < d.Values[j].Value })
		diffs = append(diffs, d)
		if canonical[k] {
			canonicalDiffers[k] = true
		}
	}
	return diffs
}

// runConfig is run.yaml.
type runConfig struct {
	Concurrency int
	// Rate is run.yaml's rate (+Inf for inf), 0 when not given.
	Rate    float64
	Arrival string
	// Clock is "monotonic" when the run's times are not wall-clock time.
	Clock string
	// levelNode is the run.yaml node the level came from, for messages.
	levelNode   *yaml.Node
	Provenance  *Provenance
	Repeat      int
	MaxTokens   int
	Notes       string
	HasWindow   bool
	WindowStart time.Time
	WindowEnd   time.Time
}

func parseRunConfig(data []byte, file string) (runConfig, []Diagnostic) {
	var rc runConfig
	var diags []Diagnostic
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return rc, []Diagnostic{yamlDiagnostic(file, err)}
	}
	root := mappingRoot(&doc)
	if root == nil {
		if len(bytes.TrimSpace(data)) == 0 {
			return rc, nil
		}
		return rc, []Diagnostic{{Severity: Error, File: file, Line: doc.Line, Reason: "bad yaml", Message: "expected a mapping of settings"}}
	}
	bad := func(n *yaml.Node, key, want string) {
		diags = append(diags, Diagnostic{Severity: Error, File: file, Line: n.Line, Column: n.Column, ColumnName: key, Reason: "bad value",
			Message: fmt.Sprintf("%s: expected %s, got %q", key, want, n.Value)})
	}
	var start, end *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "concurrency":
			if n, err := strconv.Atoi(v.Value); err == nil && n > 0 {
				rc.Concurrency = n
			} else {
				bad(v, k.Value, "a positive integer")
			}
		case "repeat":
			if n, err := strconv.Atoi(v.Value); err == nil && n > 0 {
				rc.Repeat = n
			} else {
				bad(v, k.Value, "a positive integer")
			}
		case "max_tokens":
			if n, err := strconv.Atoi(v.Value); err == nil && n > 0 {
				rc.MaxTokens = n
			} else {
				bad(v, k.Value, "a positive integer")
			}
		case "notes":
			rc.Notes = v.Value
		case "rate":
			if r, err := ParseRate(v.Value); err == nil && v.Kind == yaml.ScalarNode {
				rc.Rate, rc.levelNode = r, v
			} else {
				bad(v, k.Value, "a positive number of requests per second or inf")
			}
		case "arrival":
			if a, ok := ParseArrival(v.Value); ok && v.Kind == yaml.ScalarNode {
				rc.Arrival = a
			} else {
				bad(v, k.Value, "poisson, constant or gamma")
			}
		case "clock":
			switch v.Value {
			case "monotonic", "wall":
				rc.Clock = v.Value
			default:
				bad(v, k.Value, "monotonic or wall")
			}
		case "window":
			if v.Kind != yaml.MappingNode {
				bad(v, "window", "a mapping with start and end")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				switch v.Content[j].Value {
				case "start":
					start = v.Content[j+1]
				case "end":
					end = v.Content[j+1]
				default:
					diags = append(diags, unknownKey(file, v.Content[j], "window"))
				}
			}
		default:
			if rc.Provenance == nil {
				rc.Provenance = &Provenance{}
			}
			if !parseProvenanceKey(k, v, rc.Provenance, file, &diags) {
				diags = append(diags, unknownKey(file, k, ""))
			}
		}
	}
	if p := rc.Provenance; p != nil && p.Tool == "" {
		if len(p.Recomputed)+len(p.AsReported)+len(p.Unavailable)+len(p.Approximate)+len(p.Definitions)+len(p.Reported) > 0 || p.TokenCounts != "" {
			diags = append(diags, Diagnostic{Severity: Warning, File: file, Reason: "unknown setting",
				Message: "import keys (recomputed, as_reported, unavailable, ...) without source.tool are ignored"})
		}
		rc.Provenance = nil
	}
	if rc.Concurrency > 0 && rc.Rate > 0 {
		diags = append(diags, Diagnostic{Severity: Error, File: file, Line: rc.levelNode.Line, Column: rc.levelNode.Column, ColumnName: "rate", Reason: "bad value",
			Message: "rate: expected either concurrency or rate, not both"})
	}
	if rc.Arrival != "" && (rc.Rate == 0 || math.IsInf(rc.Rate, 1)) {
		diags = append(diags, Diagnostic{Severity: Warning, File: file, Reason: "unknown setting",
			Message: "arrival is ignored: it applies only to a finite rate"})
		rc.Arrival = ""
	}
	if start != nil || end != nil {
		if start == nil || end == nil {
			n := start
			if n == nil {
				n = end
			}
			diags = append(diags, Diagnostic{Severity: Error, File: file, Line: n.Line, Column: n.Column, ColumnName: "window", Reason: "bad value",
				Message: "window: expected both start and end"})
			return rc, diags
		}
		s, err1 := ParseTime(start.Value)
		e, err2 := ParseTime(end.Value)
		switch {
		case err1 != nil:
			bad(start, "window.start", "an RFC 3339 time or unix seconds")
		case err2 != nil:
			bad(end, "window.end", "an RFC 3339 time or unix seconds")
		case !e.After(s):
			diags = append(diags, Diagnostic{Severity: Error, File: file, Line: end.Line, Column: end.Column, ColumnName: "window.end", Reason: "bad value",
				Message: fmt.Sprintf("window.end: expected a time after window.start (%s), got %q", start.Value, end.Value)})
		default:
			rc.HasWindow, rc.WindowStart, rc.WindowEnd = true, s, e
		}
	}
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Line != diags[j].Line {
			return diags[i].Line < diags[j].Line
		}
		return diags[i].Column < diags[j].Column
	})
	return rc, diags
}

// ParseTime accepts an RFC 3339 time or unix seconds (with an optional
// fraction) and returns it in UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return time.Time{}, fmt.Errorf("time %q out of range", s)
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: expected RFC 3339 or unix seconds", s)
	}
	return t.UTC(), nil
}

func mappingRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		return doc.Content[0]
	}
	return nil
}

func unknownKey(file string, k *yaml.Node, parent string) Diagnostic {
	name := k.Value
	if parent != "" {
		name = parent + "." + name
	}
	return Diagnostic{Severity: Warning, File: file, Line: k.Line, Column: k.Column, ColumnName: name, Reason: "unknown setting",
		Message: fmt.Sprintf("unknown setting %q is ignored", name)}
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

func yamlDiagnostic(file string, err error) Diagnostic {
	d := Diagnostic{Severity: Error, File: file, Reason: "bad yaml", Message: "not valid YAML: " + err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		d.Line, _ = strconv.Atoi(m[1])
	}
	return d
}

// ParseSweepConfig reads sweep.yaml on top of DefaultConfig. Unknown keys are
// warnings; values of the wrong type or out of range are returned as a
// *FileError naming the line.
func ParseSweepConfig(data []byte, file string) (Config, []Diagnostic, error) {
	cfg := DefaultConfig()
	var diags []Diagnostic
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		d := yamlDiagnostic(file, err)
		return cfg, nil, &FileError{d}
	}
	root := mappingRoot(&doc)
	if root == nil {
		if len(bytes.TrimSpace(data)) == 0 {
			return cfg, nil, nil
		}
		return cfg, nil, fileErrorf(file, doc.Line, 0, "", "bad yaml", "expected a mapping of settings")
	}
	badf := func(n *yaml.Node, key, want string) error {
		return fileErrorf(file, n.Line, n.Column, key, "bad value", "%s: expected %s, got %q", key, want, n.Value)
	}
	num := func(n *yaml.Node, key string, min float64) (float64, error) {
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < min {
			return 0, badf(n, key, fmt.Sprintf("a number ≥ %g", min))
		}
		return f, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var err error
		switch k.Value {
		case "title":
			cfg.Title = v.Value
		case "percentile":
			switch v.Value {
			case "nearest-rank", "linear":
				cfg.Percentile = v.Value
			default:
				err = badf(v, "percentile", `"nearest-rank" or "linear"`)
			}
		case "mad":
			switch v.Value {
			case "raw", "scaled":
				cfg.MAD = v.Value
			default:
				err = badf(v, "mad", `"raw" or "scaled"`)
			}
		case "speculative_decoding":
			if err = v.Decode(&cfg.SpeculativeDecoding); err != nil {
				err = badf(v, "speculative_decoding", "true or false")
			}
		case "counter_tolerance":
			cfg.CounterTolerance, err = num(v, "counter_tolerance", 0)
		case "non_streamed_fraction":
			cfg.StreamingCheckFraction, err = num(v, "non_streamed_fraction", 0)
		case "error_rate_threshold":
			f, perr := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || perr != nil || !(f > 0 && f <= 1) {
				err = badf(v, "error_rate_threshold", "a share in (0, 1], e.g. 0.01 for 1 %")
				break
			}
			cfg.ErrorRateThreshold = f
		case "slo":
			if v.Kind != yaml.MappingNode {
				err = badf(v, "slo", "a mapping with ttft_ms, tpot_ms, e2e_ms")
				break
			}
			for j := 0; j+1 < len(v.Content) && err == nil; j += 2 {
				sk, sv := v.Content[j], v.Content[j+1]
				switch sk.Value {
				case "ttft_ms":
					cfg.SLO.TTFTms, err = num(sv, "slo.ttft_ms", 0)
				case "tpot_ms":
					cfg.SLO.TPOTms, err = num(sv, "slo.tpot_ms", 0)
				case "e2e_ms":
					cfg.SLO.E2Ems, err = num(sv, "slo.e2e_ms", 0)
				default:
					diags = append(diags, unknownKey(file, sk, "slo"))
				}
			}
		case "warmup":
			var wd []Diagnostic
			wd, err = parseWarmup(file, v, &cfg.Warmup)
			diags = append(diags, wd...)
		case "metrics":
			if v.Kind != yaml.MappingNode {
				err = badf(v, "metrics", "a mapping from role to metric name(s)")
				break
			}
			known := map[MetricRole]bool{}
			for _, r := range append(append([]MetricRole{}, CounterRoles...), HistogramRoles...) {
				known[r] = true
			}
			for j := 0; j+1 < len(v.Content) && err == nil; j += 2 {
				mk, mv := v.Content[j], v.Content[j+1]
				role := MetricRole(mk.Value)
				if !known[role] {
					err = fileErrorf(file, mk.Line, mk.Column, "metrics", "bad value",
						"metrics: unknown role %q (known: generation_tokens, prompt_tokens, ttft, itl, request_tpot, e2e, prefill, queue, decode)", mk.Value)
					break
				}
				var names []string
				switch mv.Kind {
				case yaml.ScalarNode:
					names = []string{mv.Value}
				case yaml.SequenceNode:
					if mv.Decode(&names) != nil {
						err = badf(mv, "metrics."+mk.Value, "a metric name or a list of names")
					}
				default:
					err = badf(mv, "metrics."+mk.Value, "a metric name or a list of names")
				}
				cfg.Metrics[role] = names
			}
		case "label_selector":
			sel := map[string]string{}
			if v.Kind != yaml.MappingNode || v.Decode(&sel) != nil {
				err = badf(v, "label_selector", "a mapping of label names to values")
				break
			}
			cfg.LabelSelector = sel
		default:
			diags = append(diags, unknownKey(file, k, ""))
		}
		if err != nil {
			return cfg, diags, err
		}
	}
	return cfg, diags, nil
}

// warmupModeList names the valid warm-up modes in messages.
const warmupModeList = `"changepoint", "mser5", "stabilisation", "fixed" or "none"`

// parseWarmup reads the warmup setting into w: a mode name, or a mapping
// with a mode and that mode's parameters. Every parameter is range-checked,
// also one the chosen mode does not use (that one is reported as ignored).
func parseWarmup(file string, v *yaml.Node, w *WarmupConfig) ([]Diagnostic, error) {
	bad := func(n *yaml.Node, key, want string) error {
		return fileErrorf(file, n.Line, n.Column, key, "bad value", "%s: expected %s, got %q", key, want, n.Value)
	}
	mode := func(n *yaml.Node) (string, bool) {
		if n.Kind != yaml.ScalarNode {
			return "", false
		}
		m := n.Value
		if m == "stabilization" {
			m = WarmupStabilisation
		}
		return m, slices.Contains(WarmupModes, m)
	}
	switch v.Kind {
	case yaml.ScalarNode:
		m, ok := mode(v)
		if !ok {
			return nil, bad(v, "warmup", warmupModeList+" or a mapping")
		}
		if m == WarmupFixed {
			return nil, fileErrorf(file, v.Line, v.Column, "warmup", "bad value",
				"warmup: mode \"fixed\" needs a count: write warmup: {mode: fixed, count: N}")
		}
		w.Mode = m
		return nil, nil
	case yaml.MappingNode:
	default:
		return nil, bad(v, "warmup", warmupModeList+" or a mapping")
	}
	// The mode decides which parameters apply, wherever it stands.
	var modeNode *yaml.Node
	for j := 0; j+1 < len(v.Content); j += 2 {
		if v.Content[j].Value == "mode" {
			modeNode = v.Content[j+1]
		}
	}
	if modeNode == nil {
		return nil, fileErrorf(file, v.Line, v.Column, "warmup", "bad value",
			"warmup: a mapping needs a mode, one of %s", warmupModeList)
	}
	m, ok := mode(modeNode)
	if !ok {
		return nil, bad(modeNode, "warmup.mode", "one of "+warmupModeList)
	}
	integer := func(n *yaml.Node, key string, lo, hi int) (int, error) {
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if n.Kind != yaml.ScalarNode || err != nil || i < int64(lo) || i > int64(hi) {
			return 0, bad(n, key, fmt.Sprintf("an integer from %d to %d", lo, hi))
		}
		return int(i), nil
	}
	fraction := func(n *yaml.Node, key string, hi float64, hiIncluded bool) (float64, error) {
		f, err := strconv.ParseFloat(n.Value, 64)
		ok := n.Kind == yaml.ScalarNode && err == nil && f > 0 && (f < hi || hiIncluded && f == hi)
		if !ok {
			want := fmt.Sprintf("a number greater than 0 and less than %g", hi)
			if hiIncluded {
				want = fmt.Sprintf("a number greater than 0 and at most %g", hi)
			}
			return 0, bad(n, key, want)
		}
		return f, nil
	}
	next := *w
	next.Mode = m
	var diags []Diagnostic
	hasCount := false
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		key := "warmup." + k.Value
		var usedBy string
		var err error
		switch k.Value {
		case "mode":
			continue
		case "alpha":
			usedBy = WarmupChangePoint
			next.Alpha, err = fraction(val, key, MaxWarmupAlpha, true)
		case "min_slowdown":
			usedBy = WarmupChangePoint
			f, perr := strconv.ParseFloat(val.Value, 64)
			if val.Kind != yaml.ScalarNode || perr != nil || !(f >= 0 && f <= 1) {
				err = bad(val, key, "a number from 0 to 1")
			}
			next.MinSlowdown = f
		case "window":
			usedBy = WarmupStabilisation
			next.Window, err = integer(val, key, 2, MaxWarmupCount)
		case "tolerance":
			usedBy = WarmupStabilisation
			next.Tolerance, err = fraction(val, key, 1, false)
		case "consecutive":
			usedBy = WarmupStabilisation
			next.Consecutive, err = integer(val, key, 1, MaxWarmupCount)
		case "count":
			usedBy = WarmupFixed
			next.Count, err = integer(val, key, 0, MaxWarmupCount)
			hasCount = true
		default:
			diags = append(diags, unknownKey(file, k, "warmup"))
			continue
		}
		if err != nil {
			return diags, err
		}
		if usedBy != m {
			diags = append(diags, Diagnostic{Severity: Warning, File: file, Line: k.Line, Column: k.Column, ColumnName: key,
				Reason: "unused setting", Message: fmt.Sprintf("%s applies to mode %q and is ignored with mode %q", key, usedBy, m)})
		}
	}
	if m == WarmupFixed && !hasCount {
		return diags, fileErrorf(file, v.Line, v.Column, "warmup", "bad value",
			"warmup: mode \"fixed\" needs a count (an integer from 0 to %d)", MaxWarmupCount)
	}
	*w = next
	return diags, nil
}
