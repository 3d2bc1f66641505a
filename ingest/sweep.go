package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
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
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/ingest/internal/csvline"
	"github.com/benchnote/benchnote/internal/outdir"
	"github.com/benchnote/benchnote/internal/sparse"
)

// Options tunes Open, Load and the reading Stream does.
type Options struct {
	// Progress, when non-nil, receives one line per run as it is read.
	Progress io.Writer
	// RunRead, when non-nil, is called after each run is read with the
	// number of runs read so far, the number of runs and the run itself.
	// Calls never overlap. The command line draws its progress from it.
	RunRead func(done, total int, run *Run)
	// Workers is the number of runs read at once; 0 means GOMAXPROCS.
	Workers int
	// MaxRowsPerRun is the most rows a run's requests file may hold; a run
	// with more fails. 0 means DefaultMaxRowsPerRun.
	MaxRowsPerRun int
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
	reasonArchive    = "a benchnote archive (it holds " + outdir.ArchiveMarkerName + "), not input: analyse an entry with benchnote history, or its inputs/ directory"
)

// ReasonBenchnoteReport is the IgnoredFile reason of a report benchnote
// wrote inside the sweep (by an earlier version, or copied there): not
// input, and not a problem of the sweep.
const ReasonBenchnoteReport = "a report benchnote wrote (it holds " + outdir.MarkerName + "), not input"

// Load reads the sweep rooted at root whole: Open, then every run's
// records and scrapes, which it keeps (Run.Release leaves them in place).
// It returns an error only when root itself cannot be read or sweep.yaml
// is malformed; every other problem is recorded on the sweep or on the run
// it concerns.
func Load(root string, opts Options) (*Sweep, error) {
	sw, err := Open(root, opts)
	if err != nil {
		return nil, err
	}
	sw.keepRecords = true
	for range sw.Stream() {
	}
	return sw, nil
}

// Open reads what a sweep says about itself — sweep.yaml, the directory
// tree, every environment log and run.yaml — and returns the sweep with
// its runs found, numbered and in order (by load level, then repeat), but
// with no request records or scrapes read yet: Stream reads them run by
// run. It returns an error only when root itself cannot be read or
// sweep.yaml is malformed.
func Open(root string, opts Options) (*Sweep, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("sweep: %s is not a directory", root)
	}
	sw := &Sweep{Root: root, Config: DefaultConfig(), opts: opts, pool: &columnPool{}, streamRows: streamRows}
	if data, err := readFileLimited(filepath.Join(root, SweepConfigFile), MaxYAMLBytes); err == nil {
		cfg, diags, err := ParseSweepConfig(data, SweepConfigFile)
		if err != nil {
			return nil, err
		}
		sw.Config = cfg
		sw.Diagnostics = append(sw.Diagnostics, diags...)
	} else if errors.Is(err, errTooLarge) {
		return nil, &FileError{tooLargeDiagnostic(SweepConfigFile, Error, MaxYAMLBytes, "a settings file", "expected a small text file")}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %w", err)
	}

	tree, err := scanTree(root)
	if err != nil {
		return nil, err
	}
	sw.IgnoredFiles = tree.ignored
	if len(tree.runDirs) == 0 && len(tree.reportedDirs) == 0 {
		// A sweep of the tools' own figures alone (reported.yaml) has no
		// run to recompute, but its figures are shown as reported.
		sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Error, File: ".", Reason: "no runs",
			Message: "no run directory found: a run directory holds requests.csv or requests.parquet"})
	}

	// Environment files of each directory, parsed once.
	envByDir := map[string][]EnvSource{}
	for _, dir := range tree.envDirs {
		for _, name := range tree.envFiles[dir] {
			rel := path.Join(dir, name)
			data, err := readFileLimited(filepath.Join(root, filepath.FromSlash(rel)), MaxEnvLogBytes)
			if errors.Is(err, errTooLarge) {
				sw.Diagnostics = append(sw.Diagnostics, tooLargeDiagnostic(rel, Warning, MaxEnvLogBytes, "an environment log", "it is not read"))
				continue
			}
			if err != nil {
				sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Error, File: rel, Reason: "unreadable",
					Message: fmt.Sprintf("cannot read environment log: %v", err)})
				continue
			}
			src := ParseEnvFile(data, rel)
			sw.Diagnostics = append(sw.Diagnostics, src.Diagnostics...)
			if src.Format == "unrecognised" {
				sw.Diagnostics = append(sw.Diagnostics, Diagnostic{Severity: Warning, File: rel, Reason: "unrecognised environment log",
					Message: "environment log format not recognised (expected JSON, YAML, collect_env, nvidia-smi or a vLLM server log); its keys are not used"})
			}
			envByDir[dir] = append(envByDir[dir], src)
		}
	}

	runs := make([]*Run, len(tree.runDirs))
	for i, dir := range tree.runDirs {
		runs[i] = openRun(root, dir, tree.runFiles[dir], envForDir(dir, envByDir), sw.Config.Series)
	}
	assignRepeats(runs)
	sort.SliceStable(runs, func(i, j int) bool {
		if c := runs[i].Series.Compare(runs[j].Series); c != 0 {
			return c < 0
		}
		if c := runs[i].Load.Compare(runs[j].Load); c != 0 {
			return c < 0
		}
		if runs[i].Repeat != runs[j].Repeat {
			return runs[i].Repeat < runs[j].Repeat
		}
		return runs[i].Dir < runs[j].Dir
	})
	markDuplicates(root, runs)
	sw.Runs = runs
	for _, dir := range tree.reportedDirs {
		sw.Reported = append(sw.Reported, loadReported(root, dir, envForDir(dir, envByDir), sw.Config.Series))
	}
	sort.SliceStable(sw.Reported, func(i, j int) bool {
		if c := sw.Reported[i].Series.Compare(sw.Reported[j].Series); c != 0 {
			return c < 0
		}
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

// Stream returns the sweep's runs in order, each once its request records
// and scrapes are read. Up to Options.Workers runs are read at once, and
// no more than that many are read (or being read) ahead of the consumer;
// in a sweep from Open, whose runs drop their records on Release, no more
// than streamRows request rows are held at once either (a run the
// consumer waits for is read whatever it holds), so memory follows a few
// runs, not the sweep nor the length of its runs: a consumer that is done
// with a run calls Run.Release. Options.RunRead is called as each run is
// read. Streaming a sweep again (or one from Load) yields the runs as they
// are, except those released since they were read, which are read again.
// Stopping the loop early stops the reading; the runs not read stay to be
// read by a later Stream.
func (sw *Sweep) Stream() iter.Seq[*Run] {
	return func(yield func(*Run) bool) {
		runs := sw.Runs
		workers := sw.opts.Workers
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		workers = min(workers, max(len(runs), 1))
		ready := make([]chan struct{}, len(runs))
		for i := range ready {
			ready[i] = make(chan struct{})
		}
		// ahead holds a token for every run handed to a reader and not yet
		// taken by the consumer.
		ahead := make(chan struct{}, workers)
		// rows bounds the rows held when the consumer releases the runs.
		var rows *rowBudget
		if !sw.keepRecords {
			rows = newRowBudget(sw.streamRows)
		}
		next := make(chan readJob)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		progress := &streamProgress{total: len(runs)}
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for job := range next {
					sw.readForStream(runs[job.run], job.reserved, rows, progress)
					close(ready[job.run])
				}
			}()
		}
		go feedStream(runs, rows, ahead, next, stop)
		defer wg.Wait()
		defer close(stop)
		if rows != nil {
			defer rows.stop()
		}
		for i, r := range runs {
			if rows != nil {
				rows.want(i)
			}
			<-ready[i]
			<-ahead
			if !yield(r) {
				return
			}
		}
	}
}

// readJob is a run handed to a reader, with the rows reserved for it.
type readJob struct {
	run      int // index in Sweep.Runs
	reserved int
}

// streamProgress counts the runs a Stream has read, for Options.Progress
// and Options.RunRead.
type streamProgress struct {
	mu          sync.Mutex
	done, total int
}

// readForStream reads run r's files if they are not read, settles the rows
// reserved for it with the budget (when there is one), then reports
// progress.
func (sw *Sweep) readForStream(r *Run, reserved int, rows *rowBudget, p *streamProgress) {
	if !r.pending {
		return
	}
	ro := ReadOptions{MaxRows: sw.opts.MaxRowsPerRun}
	if !sw.keepRecords {
		// Read for the analysis, into the columns of the runs it has
		// released.
		ro.ForAnalysis, ro.pool = true, sw.pool
		r.dropRecords, r.pool = true, sw.pool
	}
	r.readFiles(sw.Root, sw.Config, ro)
	if rows != nil {
		held := r.heldRows()
		rows.read(reserved, held)
		r.onRelease = func() { rows.release(held) }
	}
	if sw.opts.Progress == nil && sw.opts.RunRead == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if sw.opts.Progress != nil {
		fmt.Fprintf(sw.opts.Progress, "read %d/%d runs: %s\n", p.done, p.total, r.Dir)
	}
	if sw.opts.RunRead != nil {
		sw.opts.RunRead(p.done, p.total, r)
	}
}

// feedStream hands the runs to Stream's readers in order, each once a
// token fits in ahead and, for a run still to be read, its rows fit the
// budget (when there is one), until stop is closed; it closes next.
func feedStream(runs []*Run, rows *rowBudget, ahead chan<- struct{}, next chan<- readJob, stop <-chan struct{}) {
	defer close(next)
	for i := range runs {
		select {
		case ahead <- struct{}{}:
		case <-stop:
			return
		}
		job := readJob{run: i}
		if rows != nil && runs[i].pending {
			var ok bool
			if job.reserved, ok = rows.reserve(i); !ok {
				return
			}
		}
		select {
		case next <- job:
		case <-stop:
			return
		}
	}
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
				ignored = append(ignored, IgnoredFile{Path: rel + "/", Reason: ReasonBenchnoteReport})
				return fs.SkipDir
			}
			if rel != "." && outdir.IsArchive(p) {
				ignored = append(ignored, IgnoredFile{Path: rel + "/", Reason: reasonArchive})
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
			case dir == "." && (name == SweepConfigFile || name == ImportRecordFile || name == outdir.SweepMarkerName):
			case isReported[dir] && name == ReportedFile:
			case isRun[dir] && (name == RunConfigFile || name == RequestsCSV || name == RequestsParquet ||
				name == ScrapeStartFile || name == ScrapeEndFile || isGPUFile(name)):
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

// openRun reads a run directory's run.yaml: its load level, repeat,
// clock, provenance, max_tokens and notes. The records and scrapes are
// read later, by readFiles.
func openRun(root, dir string, names []string, env []EnvSource, sweepSeries Series) *Run {
	run := &Run{Dir: dir, files: names, Env: MergeEnv(env), pending: true}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	abs := filepath.Join(root, filepath.FromSlash(dir), RunConfigFile)
	rel := path.Join(dir, RunConfigFile)
	var rc runConfig
	if has[RunConfigFile] {
		data, err := readFileLimited(abs, MaxYAMLBytes)
		switch {
		case errors.Is(err, errTooLarge):
			run.fail(tooLargeDiagnostic(rel, Error, MaxYAMLBytes, "a settings file", "expected a small text file"))
		case err != nil:
			run.fail(Diagnostic{Severity: Error, File: rel, Reason: "unreadable", Message: err.Error()})
		default:
			var diags []Diagnostic
			rc, diags = parseRunConfig(data, rel)
			for _, d := range diags {
				run.fail(d)
			}
		}
	}
	run.Load, run.ConcurrencySource = levelOf(dir, rc)
	run.Concurrency = run.Load.Concurrency
	if !run.Load.Valid() {
		run.fail(Diagnostic{Severity: Error, File: dir, Reason: "no concurrency",
			Message: fmt.Sprintf("cannot tell the load level of run directory %q: set concurrency or rate in run.yaml or name a path segment c8, conc8, concurrency-8, concurrency_8, concurrency=8, rate16, qps16 or rate-inf", dir)})
	}
	run.Clock, run.Provenance = rc.Clock, rc.Provenance
	if series, err := sweepSeries.With(rc.Series); err != nil {
		run.fail(Diagnostic{Severity: Error, File: rel, ColumnName: "series", Reason: "bad value",
			Message: fmt.Sprintf("series: with sweep.yaml's labels: %v", err)})
	} else {
		run.Series = series
	}
	if rc.Repeat > 0 {
		run.Repeat, run.RepeatSource = rc.Repeat, "run.yaml"
	}
	run.MaxTokens, run.Notes = rc.MaxTokens, rc.Notes
	run.rc = rc
	run.openDiags, run.openFailed = len(run.Diagnostics), run.Failed
	return run
}

// fail records d on the run; an Error makes the run unusable.
func (run *Run) fail(d Diagnostic) {
	run.Diagnostics = append(run.Diagnostics, d)
	if d.Severity == Error {
		run.Failed = true
	}
}

// readFiles reads the run's records and scrapes and settles its window.
// The diagnostics Open held back (a repeat claimed twice) follow the
// files' own, as when everything was read in one go.
func (run *Run) readFiles(root string, cfg Config, readOpts ReadOptions) {
	dir := run.Dir
	has := map[string]bool{}
	for _, n := range run.files {
		has[n] = true
	}
	abs := func(name string) string { return filepath.Join(root, filepath.FromSlash(dir), name) }
	rel := func(name string) string { return path.Join(dir, name) }
	fail := run.fail
	rc := run.rc
	// What an earlier read left (the run was released since) goes.
	run.Diagnostics = run.Diagnostics[:run.openDiags:run.openDiags]
	run.Failed = run.openFailed
	run.Requests, run.ScrapeStart, run.ScrapeEnd, run.GPU = nil, nil, nil, nil

	// Client records.
	switch {
	case has[RequestsCSV] && has[RequestsParquet]:
		fail(Diagnostic{Severity: Error, File: dir, Reason: "ambiguous requests",
			Message: "run directory holds both requests.csv and requests.parquet; keep one"})
	case has[RequestsCSV]:
		run.Requests = readRequestsFile(abs(RequestsCSV), rel(RequestsCSV), "csv", readOpts, fail)
	case has[RequestsParquet]:
		run.Requests = readRequestsFile(abs(RequestsParquet), rel(RequestsParquet), "parquet", readOpts, fail)
	}
	if rf := run.Requests; rf != nil {
		rf.firstSent, rf.sentKnown = rf.FirstSent(), true
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

	// GPU telemetry: a file that cannot be used is a warning; the run's
	// other figures do not rest on it.
	var gpuDiags []Diagnostic
	run.GPU, gpuDiags = readGPUTelemetry(root, dir, run.files)
	run.Diagnostics = append(run.Diagnostics, gpuDiags...)

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

	run.Diagnostics = append(run.Diagnostics, run.heldBack...)
	run.pending = false
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
func loadReported(root, dir string, env []EnvSource, sweepSeries Series) *ReportedRun {
	rr := &ReportedRun{Dir: dir, Env: MergeEnv(env)}
	rel := path.Join(dir, ReportedFile)
	data, err := readFileLimited(filepath.Join(root, filepath.FromSlash(rel)), MaxYAMLBytes)
	if errors.Is(err, errTooLarge) {
		rr.Diagnostics = append(rr.Diagnostics, tooLargeDiagnostic(rel, Error, MaxYAMLBytes, "a settings file", "expected a small text file"))
		return rr
	}
	if err != nil {
		rr.Diagnostics = append(rr.Diagnostics, Diagnostic{Severity: Error, File: rel, Reason: "unreadable", Message: err.Error()})
		return rr
	}
	rc, diags := parseRunConfig(data, rel)
	rr.Diagnostics = append(rr.Diagnostics, diags...)
	rr.Load, _ = levelOf(dir, rc)
	rr.Repeat, rr.Notes, rr.Provenance = rc.Repeat, rc.Notes, rc.Provenance
	if series, err := sweepSeries.With(rc.Series); err != nil {
		rr.Diagnostics = append(rr.Diagnostics, Diagnostic{Severity: Error, File: rel, ColumnName: "series", Reason: "bad value",
			Message: fmt.Sprintf("series: with sweep.yaml's labels: %v", err)})
	} else {
		rr.Series = series
	}
	if rr.Provenance == nil {
		rr.Diagnostics = append(rr.Diagnostics, Diagnostic{Severity: Error, File: rel, Reason: "no source",
			Message: "reported.yaml: expected source.tool and a reported list of the tool's figures"})
	}
	return rr
}

// readRequestsFile reads one requests file. When the file is unusable it
// still counts the rows it holds, so that the report's accounting adds up
// to the input: a Parquet file's rows from its footer (read while the file
// is open: closing the Arrow reader closes the file), a CSV file's records.
func readRequestsFile(absPath, relPath, format string, opts ReadOptions, fail func(Diagnostic)) *RequestFile {
	f, err := os.Open(absPath)
	if err != nil {
		fail(Diagnostic{Severity: Error, File: relPath, Reason: "unreadable", Message: err.Error()})
		return nil
	}
	defer f.Close()
	var rf *RequestFile
	rows := int64(-1)
	if format == "csv" {
		rf, err = ReadRequestsCSVWith(f, relPath, opts)
	} else {
		rf, rows, err = readRequestsParquet(f, relPath, parquetBatchRows, opts)
	}
	if err == nil {
		return rf
	}
	var fe *FileError
	if errors.As(err, &fe) {
		fail(fe.Diagnostic)
	} else {
		fail(Diagnostic{Severity: Error, File: relPath, Reason: "unreadable", Message: err.Error()})
	}
	if format == "csv" {
		rows = countCSVRows(f)
	}
	if rows > 0 && rows <= math.MaxInt32 {
		return &RequestFile{Path: relPath, Format: format, RowsRead: int(rows), Requests: &Requests{}}
	}
	return nil
}

// countCSVRows counts the data rows of a CSV file that could not be read
// as requests: its records after the header, or, when even the records
// cannot be told apart (a quote never closed, a record too long), its
// non-blank lines after the first. It returns -1 when the file cannot be
// read again.
func countCSVRows(f *os.File) int64 {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return -1
	}
	cr := csv.NewReader(bufio.NewReaderSize(csvline.NewGuard(f, MaxCSVRecordBytes, 1), 64<<10))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	n := int64(-1) // the header
	for {
		_, err := cr.Read()
		if err == io.EOF {
			return max(n, 0)
		}
		if err != nil {
			break
		}
		n++
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return -1
	}
	lines := int64(-1) // the header
	// Holes of a sparse file hold no newline: skip them, so that a 1 GiB
	// line made of a hole costs nothing to count.
	br := bufio.NewReaderSize(sparse.Reader(f), 64<<10)
	blank := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			blank = false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !blank {
			lines++
		}
		blank = true
		if err != nil {
			return max(lines, 0)
		}
	}
}

// assignRepeats numbers the runs of each load level: run.yaml's repeat
// where given, else the next free number in path order.
func assignRepeats(runs []*Run) {
	type key struct {
		series Series
		load   LoadLevel
	}
	byLevel := map[key][]*Run{}
	var levels []key
	for _, r := range runs {
		k := key{r.Series, r.Load}
		if _, ok := byLevel[k]; !ok {
			levels = append(levels, k)
		}
		byLevel[k] = append(byLevel[k], r)
	}
	sort.Slice(levels, func(i, j int) bool {
		if c := levels[i].series.Compare(levels[j].series); c != 0 {
			return c < 0
		}
		return levels[i].load.Compare(levels[j].load) < 0
	})
	for _, c := range levels {
		level := byLevel[c]
		sort.SliceStable(level, func(i, j int) bool { return level[i].Dir < level[j].Dir })
		used := map[int]string{}
		for _, r := range level {
			if r.Repeat == 0 {
				continue
			}
			if other, dup := used[r.Repeat]; dup {
				r.heldBack = append(r.heldBack, Diagnostic{Severity: Warning, File: path.Join(r.Dir, RunConfigFile), Reason: "duplicate repeat",
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
	levelNode  *yaml.Node
	Provenance *Provenance
	// Series is run.yaml's series labels (added to sweep.yaml's).
	Series      Series
	Repeat      int
	MaxTokens   int
	Notes       string
	HasWindow   bool
	WindowStart time.Time
	WindowEnd   time.Time
}

// parseRunConfig reads run.yaml. Every problem is an Error diagnostic
// naming the line and column: the YAML problems parseSettingsYAML refuses,
// a value of the wrong type or out of range. Unknown keys are warnings.
func parseRunConfig(data []byte, file string) (runConfig, []Diagnostic) {
	p := &runParser{file: file}
	root, fe := parseSettingsYAML(data, file)
	if fe != nil {
		return p.rc, []Diagnostic{fe.Diagnostic}
	}
	if root == nil {
		return p.rc, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if read, ok := runKeys[k.Value]; ok {
			read(p, v)
			continue
		}
		if p.rc.Provenance == nil {
			p.rc.Provenance = &Provenance{}
		}
		if !parseProvenanceKey(k, v, p.rc.Provenance, file, &p.diags) {
			p.diags = append(p.diags, unknownKey(file, k, ""))
		}
	}
	p.checkProvenance()
	p.checkLevel()
	if !p.checkWindow() {
		// A window with one bound ends the parse; its diagnostics stay
		// in the order they were found.
		return p.rc, p.diags
	}
	sort.SliceStable(p.diags, func(i, j int) bool {
		if p.diags[i].Line != p.diags[j].Line {
			return p.diags[i].Line < p.diags[j].Line
		}
		return p.diags[i].Column < p.diags[j].Column
	})
	return p.rc, p.diags
}

// runParser is parseRunConfig's state: the settings read so far, the
// diagnostics, and the window's bounds, checked once every key is read.
type runParser struct {
	file       string
	rc         runConfig
	diags      []Diagnostic
	start, end *yaml.Node
}

// runKeys reads each of run.yaml's own settings; any other key is one of
// the import keys (parseProvenanceKey) or unknown.
var runKeys = map[string]func(p *runParser, v *yaml.Node){
	"concurrency": func(p *runParser, v *yaml.Node) { p.rc.Concurrency = p.integer(v, "concurrency", MaxConcurrency) },
	"repeat":      func(p *runParser, v *yaml.Node) { p.rc.Repeat = p.integer(v, "repeat", MaxRepeat) },
	"max_tokens":  func(p *runParser, v *yaml.Node) { p.rc.MaxTokens = p.integer(v, "max_tokens", MaxMaxTokens) },
	"series":      (*runParser).series,
	"notes":       (*runParser).notes,
	"rate":        (*runParser).rate,
	"arrival":     (*runParser).arrival,
	"clock":       (*runParser).clock,
	"window":      (*runParser).window,
}

// bad records a value of the wrong type or out of range.
func (p *runParser) bad(n *yaml.Node, key, want string) {
	p.diags = append(p.diags, Diagnostic{Severity: Error, File: p.file, Line: n.Line, Column: n.Column, ColumnName: key, Reason: "bad value",
		Message: fmt.Sprintf("%s: expected %s, got %s", key, want, yamlKind(n))})
}

// integer reads an integer from 1 to hi; a bad one is recorded and read
// as what yamlInteger made of it.
func (p *runParser) integer(v *yaml.Node, key string, hi int64) int {
	n, want, ok := yamlInteger(v, key, 1, hi)
	if !ok {
		p.bad(v, key, want)
	}
	return int(n)
}

func (p *runParser) series(v *yaml.Node) {
	series, d := parseSeriesNode(p.file, v)
	if d != nil {
		p.diags = append(p.diags, *d)
	}
	p.rc.Series = series
}

func (p *runParser) notes(v *yaml.Node) {
	if v.Kind != yaml.ScalarNode {
		p.bad(v, "notes", "text")
		return
	}
	p.rc.Notes = v.Value
}

func (p *runParser) rate(v *yaml.Node) {
	if r, err := ParseRate(v.Value); err == nil && v.Kind == yaml.ScalarNode {
		p.rc.Rate, p.rc.levelNode = r, v
		return
	}
	p.bad(v, "rate", "a positive number of requests per second up to 1,000,000, or inf")
}

func (p *runParser) arrival(v *yaml.Node) {
	if a, ok := ParseArrival(v.Value); ok && v.Kind == yaml.ScalarNode {
		p.rc.Arrival = a
		return
	}
	p.bad(v, "arrival", "poisson, constant or gamma")
}

func (p *runParser) clock(v *yaml.Node) {
	switch v.Value {
	case "monotonic", "wall":
		p.rc.Clock = v.Value
	default:
		p.bad(v, "clock", "monotonic or wall")
	}
}

// window notes the window's bounds; checkWindow reads them.
func (p *runParser) window(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		p.bad(v, "window", "a mapping with start and end")
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		switch v.Content[j].Value {
		case "start":
			p.start = v.Content[j+1]
		case "end":
			p.end = v.Content[j+1]
		default:
			p.diags = append(p.diags, unknownKey(p.file, v.Content[j], "window"))
		}
	}
}

// checkProvenance drops import keys that come without source.tool, with
// a warning when there were any.
func (p *runParser) checkProvenance() {
	pv := p.rc.Provenance
	if pv == nil || pv.Tool != "" {
		return
	}
	if len(pv.Recomputed)+len(pv.AsReported)+len(pv.Unavailable)+len(pv.Approximate)+len(pv.Definitions)+len(pv.Reported) > 0 || pv.TokenCounts != "" {
		p.diags = append(p.diags, Diagnostic{Severity: Warning, File: p.file, Reason: "unknown setting",
			Message: "import keys (recomputed, as_reported, unavailable, ...) without source.tool are ignored"})
	}
	p.rc.Provenance = nil
}

// checkLevel refuses both a concurrency and a rate, and drops an arrival
// process that applies to neither.
func (p *runParser) checkLevel() {
	rc := &p.rc
	if rc.Concurrency > 0 && rc.Rate > 0 {
		p.diags = append(p.diags, Diagnostic{Severity: Error, File: p.file, Line: rc.levelNode.Line, Column: rc.levelNode.Column, ColumnName: "rate", Reason: "bad value",
			Message: "rate: expected either concurrency or rate, not both"})
	}
	if rc.Arrival != "" && (rc.Rate == 0 || math.IsInf(rc.Rate, 1)) {
		p.diags = append(p.diags, Diagnostic{Severity: Warning, File: p.file, Reason: "unknown setting",
			Message: "arrival is ignored: it applies only to a finite rate"})
		rc.Arrival = ""
	}
}

// checkWindow reads the window's bounds into the run's window. It reports
// false when the window has only one of them.
func (p *runParser) checkWindow() bool {
	start, end := p.start, p.end
	if start == nil && end == nil {
		return true
	}
	if start == nil || end == nil {
		n := start
		if n == nil {
			n = end
		}
		p.diags = append(p.diags, Diagnostic{Severity: Error, File: p.file, Line: n.Line, Column: n.Column, ColumnName: "window", Reason: "bad value",
			Message: "window: expected both start and end"})
		return false
	}
	s, err1 := ParseTime(start.Value)
	e, err2 := ParseTime(end.Value)
	const want = "an RFC 3339 time or unix seconds, between 1970 and 9999"
	switch {
	case err1 != nil || start.Kind != yaml.ScalarNode:
		p.bad(start, "window.start", want)
	case err2 != nil || end.Kind != yaml.ScalarNode:
		p.bad(end, "window.end", want)
	case !e.After(s):
		p.diags = append(p.diags, Diagnostic{Severity: Error, File: p.file, Line: end.Line, Column: end.Column, ColumnName: "window.end", Reason: "bad value",
			Message: fmt.Sprintf("window.end: expected a time after window.start (%s), got %q", start.Value, end.Value)})
	default:
		p.rc.HasWindow, p.rc.WindowStart, p.rc.WindowEnd = true, s, e
	}
	return true
}

// ParseTime accepts an RFC 3339 time or unix seconds (with an optional
// fraction) from 1970 to the end of 9999 (MinUnixSeconds to
// MaxUnixSeconds) and returns it in UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < MinUnixSeconds || f > MaxUnixSeconds {
			return time.Time{}, fmt.Errorf("time %q out of range", s)
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: expected RFC 3339 or unix seconds", s)
	}
	// An offset can carry a time of 9999 into 10000 in UTC; a fraction
	// of the last second lies past MaxUnixSeconds, as it does in seconds.
	if sec := t.Unix(); sec < MinUnixSeconds || sec > MaxUnixSeconds || sec == MaxUnixSeconds && t.Nanosecond() > 0 {
		return time.Time{}, fmt.Errorf("time %q out of range", s)
	}
	return t.UTC(), nil
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

// Bounds of sweep.yaml's settings (besides the fractions, which lie in
// (0, 1)).
const (
	maxTitleRunes      = 500
	maxSLOms           = 86_400_000 // one day
	maxMetricNames     = 32
	maxMetricNameBytes = 1024
	maxSelectorLabels  = 32
)

// ParseSweepConfig reads sweep.yaml on top of DefaultConfig. Unknown keys are
// warnings; YAML that parseSettingsYAML refuses (a second document,
// anchors, aliases, merge keys, duplicate keys, more than MaxYAMLBytes) and
// values of the wrong type or out of range are returned as a *FileError
// naming the line, the column and the allowed range.
func ParseSweepConfig(data []byte, file string) (Config, []Diagnostic, error) {
	p := &sweepParser{file: file, cfg: DefaultConfig()}
	root, fe := parseSettingsYAML(data, file)
	if fe != nil {
		return p.cfg, nil, fe
	}
	if root == nil {
		return p.cfg, nil, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		read, ok := sweepKeys[k.Value]
		if !ok {
			p.diags = append(p.diags, unknownKey(file, k, ""))
			continue
		}
		if err := read(p, v); err != nil {
			return p.cfg, p.diags, err
		}
	}
	return p.cfg, p.diags, nil
}

// sweepParser is ParseSweepConfig's state: the config read so far and the
// warnings collected.
type sweepParser struct {
	file  string
	cfg   Config
	diags []Diagnostic
}

// sweepKeys reads each of sweep.yaml's top-level settings. A handler sets
// what it read on p.cfg, appends warnings to p.diags and returns the first
// bad value as an error.
var sweepKeys = map[string]func(p *sweepParser, v *yaml.Node) error{
	"title":                 (*sweepParser).title,
	"percentile":            (*sweepParser).percentile,
	"mad":                   (*sweepParser).mad,
	"speculative_decoding":  (*sweepParser).speculativeDecoding,
	"counter_tolerance":     (*sweepParser).counterTolerance,
	"non_streamed_fraction": (*sweepParser).nonStreamedFraction,
	"error_rate_threshold":  (*sweepParser).errorRateThreshold,
	"slo":                   (*sweepParser).slo,
	"warmup":                (*sweepParser).warmup,
	"metrics":               (*sweepParser).metrics,
	"series":                (*sweepParser).series,
	"label_selector":        (*sweepParser).labelSelector,
}

// badf reports a value that is not one of those allowed, quoting it.
func (p *sweepParser) badf(n *yaml.Node, key, want string) error {
	return fileErrorf(p.file, n.Line, n.Column, key, "bad value", "%s: expected %s, got %q", key, want, n.Value)
}

// ranged reports a value out of its allowed range (or of the wrong
// kind), naming the range.
func (p *sweepParser) ranged(n *yaml.Node, key, want string) error {
	return fileErrorf(p.file, n.Line, n.Column, key, "bad value", "%s: expected %s, got %s", key, want, yamlKind(n))
}

// fraction reads a number in [0, 1], or [0, 1) when hiOpen.
func (p *sweepParser) fraction(n *yaml.Node, key string, hiOpen bool) (float64, error) {
	f, want, ok := yamlNumber(n, 0, 1, true, hiOpen)
	if !ok {
		return 0, p.ranged(n, key, want)
	}
	return f, nil
}

// sloMillis reads an SLO bound in milliseconds.
func (p *sweepParser) sloMillis(n *yaml.Node, key string) (float64, error) {
	f, want, ok := yamlNumber(n, 0, maxSLOms, false, false)
	if !ok {
		return 0, p.ranged(n, key, want+" (milliseconds; 0 disables it)")
	}
	return f, nil
}

func (p *sweepParser) title(v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || utf8.RuneCountInString(v.Value) > maxTitleRunes {
		return p.ranged(v, "title", fmt.Sprintf("a text of at most %d characters", maxTitleRunes))
	}
	p.cfg.Title = v.Value
	return nil
}

func (p *sweepParser) percentile(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && (v.Value == "nearest-rank" || v.Value == "linear") {
		p.cfg.Percentile = v.Value
		return nil
	}
	return p.badf(v, "percentile", `"nearest-rank" or "linear"`)
}

func (p *sweepParser) mad(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && (v.Value == "raw" || v.Value == "scaled") {
		p.cfg.MAD = v.Value
		return nil
	}
	return p.badf(v, "mad", `"raw" or "scaled"`)
}

func (p *sweepParser) speculativeDecoding(v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || v.Decode(&p.cfg.SpeculativeDecoding) != nil {
		return p.badf(v, "speculative_decoding", "true or false")
	}
	return nil
}

func (p *sweepParser) counterTolerance(v *yaml.Node) error {
	var err error
	p.cfg.CounterTolerance, err = p.fraction(v, "counter_tolerance", true)
	return err
}

func (p *sweepParser) nonStreamedFraction(v *yaml.Node) error {
	var err error
	p.cfg.StreamingCheckFraction, err = p.fraction(v, "non_streamed_fraction", false)
	return err
}

func (p *sweepParser) errorRateThreshold(v *yaml.Node) error {
	f, perr := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || perr != nil || !(f > 0 && f <= 1) {
		return p.badf(v, "error_rate_threshold", "a share in (0, 1], e.g. 0.01 for 1 %")
	}
	p.cfg.ErrorRateThreshold = f
	return nil
}

// slo reads the slo mapping. A bound is marked as set by sweep.yaml even
// when its value is bad (the error stops the parse anyway).
func (p *sweepParser) slo(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.badf(v, "slo", "a mapping with ttft_ms, tpot_ms, e2e_ms, attainment")
	}
	var err error
	for j := 0; j+1 < len(v.Content) && err == nil; j += 2 {
		sk, sv := v.Content[j], v.Content[j+1]
		switch sk.Value {
		case "ttft_ms":
			p.cfg.SLO.TTFTms, err = p.sloMillis(sv, "slo.ttft_ms")
			p.cfg.SLOFrom.TTFT = FromSweepYAML
		case "tpot_ms":
			p.cfg.SLO.TPOTms, err = p.sloMillis(sv, "slo.tpot_ms")
			p.cfg.SLOFrom.TPOT = FromSweepYAML
		case "e2e_ms":
			p.cfg.SLO.E2Ems, err = p.sloMillis(sv, "slo.e2e_ms")
			p.cfg.SLOFrom.E2E = FromSweepYAML
		case "attainment":
			p.cfg.SLO.Attainment, err = p.fraction(sv, "slo.attainment", false)
			p.cfg.SLOFrom.Attainment = FromSweepYAML
		default:
			p.diags = append(p.diags, unknownKey(p.file, sk, "slo"))
		}
	}
	return err
}

func (p *sweepParser) warmup(v *yaml.Node) error {
	wd, err := parseWarmup(p.file, v, &p.cfg.Warmup)
	p.diags = append(p.diags, wd...)
	return err
}

// metrics reads the mapping from metric role to the metric name(s) that
// hold it; the names read before a bad entry stay set.
func (p *sweepParser) metrics(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.badf(v, "metrics", "a mapping from role to metric name(s)")
	}
	known := map[MetricRole]bool{}
	for _, r := range append(append([]MetricRole{}, CounterRoles...), HistogramRoles...) {
		known[r] = true
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		mk, mv := v.Content[j], v.Content[j+1]
		role := MetricRole(mk.Value)
		if !known[role] {
			return fileErrorf(p.file, mk.Line, mk.Column, "metrics", "bad value",
				"metrics: unknown role %q (known: generation_tokens, prompt_tokens, ttft, itl, request_tpot, e2e, prefill, queue, decode)", mk.Value)
		}
		names := metricNames(mv)
		if len(names) == 0 || len(names) != max(len(mv.Content), 1) || len(names) > maxMetricNames ||
			slices.ContainsFunc(names, func(n string) bool { return strings.TrimSpace(n) == "" || len(n) > maxMetricNameBytes }) {
			return p.ranged(mv, "metrics."+mk.Value, fmt.Sprintf("a metric name or a list of 1 to %d names, each 1 to %d bytes", maxMetricNames, maxMetricNameBytes))
		}
		p.cfg.Metrics[role] = names
	}
	return nil
}

// metricNames is a metrics entry's names: a scalar's value, or a list's
// scalars up to the first entry that is not one.
func metricNames(mv *yaml.Node) []string {
	var names []string
	switch mv.Kind {
	case yaml.ScalarNode:
		names = []string{mv.Value}
	case yaml.SequenceNode:
		for _, e := range mv.Content {
			if e.Kind != yaml.ScalarNode {
				break
			}
			names = append(names, e.Value)
		}
	}
	return names
}

func (p *sweepParser) series(v *yaml.Node) error {
	series, d := parseSeriesNode(p.file, v)
	if d != nil {
		return &FileError{*d}
	}
	p.cfg.Series = series
	return nil
}

func (p *sweepParser) labelSelector(v *yaml.Node) error {
	sel := map[string]string{}
	if v.Kind != yaml.MappingNode || len(v.Content) > 2*maxSelectorLabels ||
		slices.ContainsFunc(v.Content, func(n *yaml.Node) bool { return n.Kind != yaml.ScalarNode }) ||
		v.Decode(&sel) != nil {
		return p.ranged(v, "label_selector", fmt.Sprintf("a mapping of at most %d label names to values", maxSelectorLabels))
	}
	p.cfg.LabelSelector = sel
	return nil
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

// parseSeriesNode reads a series: setting, a mapping of label names to
// scalar values (a number is its text: tp: 2 is the label tp=2); see
// NewSeries for what a label may be.
func parseSeriesNode(file string, v *yaml.Node) (Series, *Diagnostic) {
	bad := func(n *yaml.Node, format string, args ...any) (Series, *Diagnostic) {
		return Series{}, &Diagnostic{Severity: Error, File: file, Line: n.Line, Column: n.Column, ColumnName: "series", Reason: "bad value",
			Message: "series: " + fmt.Sprintf(format, args...)}
	}
	if v.Kind != yaml.MappingNode {
		return bad(v, "expected a mapping of label names to values (engine: vllm, tp: 2), got %s", yamlKind(v))
	}
	if len(v.Content) > 2*MaxSeriesLabels {
		return bad(v, "%d labels: at most %d", len(v.Content)/2, MaxSeriesLabels)
	}
	labels := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
			return bad(val, "label %s: expected a text or a number, got %s", k.Value, yamlKind(val))
		}
		if err := checkSeriesLabel(k.Value, val.Value); err != nil {
			return bad(k, "%v", err)
		}
		labels[k.Value] = val.Value
	}
	series, err := NewSeries(labels)
	if err != nil {
		return bad(v, "%v", err)
	}
	return series, nil
}
