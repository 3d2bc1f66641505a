package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/outdir"
)

// AddOptions tunes Add.
type AddOptions struct {
	// Label is stored with the entry (a git revision, any user label).
	Label string
	// Time, when not zero, is the entry's time instead of the earliest
	// request send time or window start.
	Time time.Time
	// Version is the benchnote version recorded with the entry.
	Version string
}

// Add archives the sweep in sweepDir: it copies the sweep's inputs (see
// ingest.InputFiles) into a new entry, analyses the copy, and writes the
// summary, stats.parquet and entry.json. The archive is created when
// archiveDir is absent or empty. Adding inputs that are already archived
// fails with a *DuplicateError naming the existing entry. The entry is
// written as every benchnote directory is (package outdir): into a
// temporary directory of the archive whose marker names each file before
// it exists, renamed into place only when complete, under a lock; what a
// killed add left is removed by the next one. An archive inside the sweep,
// or a sweep inside the archive, is refused: either would make the next
// entry hold the last one.
func Add(archiveDir, sweepDir string, opts AddOptions) (Entry, error) {
	if err := checkLabel(opts.Label); err != nil {
		return Entry{}, err
	}
	if err := checkTime(opts.Time); err != nil {
		return Entry{}, err
	}
	switch outdir.Overlap(archiveDir, sweepDir) {
	case "is":
		return Entry{}, fmt.Errorf("refusing to add %s to itself: the archive and the sweep are one directory", sweepDir)
	case "lies inside":
		return Entry{}, fmt.Errorf("refusing to keep the archive %s inside the sweep %s: the next entry would hold this one; put the archive beside the sweep", archiveDir, sweepDir)
	case "contains":
		return Entry{}, fmt.Errorf("refusing to add %s: the sweep lies inside the archive %s (archive a sweep from outside it)", sweepDir, archiveDir)
	}
	if a := archiveAbove(sweepDir); a != "" {
		return Entry{}, fmt.Errorf("refusing to add %s: the sweep lies inside the benchnote archive %s (archive a sweep from outside it)", sweepDir, a)
	}
	inputs, ignored, err := ingest.InputFiles(sweepDir)
	if err != nil {
		return Entry{}, err
	}
	if !hasRequests(inputs) {
		if _, err := os.Stat(filepath.Join(sweepDir, SummaryFile)); err == nil {
			return Entry{}, fmt.Errorf("%s holds summary.json but no runs: it looks like a report directory; archive add needs the sweep directory (the inputs are archived so the sweep can be analysed again)", sweepDir)
		}
		return Entry{}, fmt.Errorf("%s: no run directory found (a run directory holds requests.csv or requests.parquet)", sweepDir)
	}
	a, err := create(archiveDir)
	if err != nil {
		return Entry{}, err
	}
	stage, err := outdir.BeginNew(a.Dir, "entry", outdir.Options{Kind: outdir.Entry, InArchive: true, Inputs: []string{sweepDir}})
	if err != nil {
		return Entry{}, err
	}
	// Whatever happens, the staging directory goes unless it became the entry.
	defer stage.Abort()

	e := Entry{Schema: EntrySchema, Label: opts.Label, BenchnoteVersion: opts.Version, Ignored: ignored}
	for _, rel := range inputs {
		f, err := copyInput(filepath.Join(sweepDir, filepath.FromSlash(rel)), stage, path.Join(InputsDir, rel))
		if err != nil {
			return Entry{}, err
		}
		f.Path = rel
		e.Inputs = append(e.Inputs, f)
	}
	e.InputHash = hashInputs(e.Inputs)
	e.ID = e.InputHash[:IDLength]
	final := filepath.Join(a.Dir, e.ID)
	if err := duplicate(final, e.InputHash); err != nil {
		return Entry{}, err
	}

	// Analyse the copy, so the summary is exactly that of the archived
	// inputs, streamed as report does.
	sw, err := ingest.Open(filepath.Join(stage.Path(), InputsDir), ingest.Options{})
	if err != nil {
		return Entry{}, err
	}
	s := analyze.Analyze(sw)
	when, source, err := entryTime(sw, opts.Time)
	if err != nil {
		return Entry{}, err
	}
	e.Time, e.TimeSource = when.UTC().Format(time.RFC3339Nano), source
	e.SummarySchema, e.Title = s.Schema, s.Title
	if !HasSeries(s) {
		e.Schema = EntrySchemaV1
	}
	e.Profile = compare.ProfileOf(s)
	e.Fingerprint = e.Profile.Fingerprint()
	for _, l := range s.Levels {
		id := compare.LevelOf(l)
		e.Levels = append(e.Levels, EntryLevel{Level: id, Label: id.Label(), Runs: len(l.Runs)})
	}

	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Entry{}, err
	}
	var stats bytes.Buffer
	if err := WriteStats(&stats, e, s); err != nil {
		return Entry{}, fmt.Errorf("%s: %w", StatsFile, err)
	}
	sum := sha256.Sum256(stats.Bytes())
	e.Stats = InputFile{Path: StatsFile, Bytes: int64(stats.Len()), SHA256: hex.EncodeToString(sum[:])}
	entry, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return Entry{}, err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{StatsFile, stats.Bytes()}, {SummaryFile, append(summary, '\n')}, {EntryFile, append(entry, '\n')}} {
		if err := stage.WriteFile(f.name, f.data); err != nil {
			return Entry{}, err
		}
	}
	// The rename fails rather than replaces when the name is taken, so two
	// concurrent adds of the same sweep cannot both succeed.
	if err := stage.CommitNew(e.ID); err != nil {
		if errors.Is(err, fs.ErrExist) {
			if derr := duplicate(final, e.InputHash); derr != nil {
				return Entry{}, derr
			}
		}
		return Entry{}, fmt.Errorf("archive entry %s: %w", e.ID, err)
	}
	return e, nil
}

// archiveAbove returns the benchnote archive a directory lies inside, or "".
func archiveAbove(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for a := filepath.Dir(abs); ; a = filepath.Dir(a) {
		if outdir.IsArchive(a) {
			return a
		}
		if filepath.Dir(a) == a {
			return ""
		}
	}
}

func hasRequests(inputs []string) bool {
	for _, p := range inputs {
		if b := path.Base(p); b == ingest.RequestsCSV || b == ingest.RequestsParquet {
			return true
		}
	}
	return false
}

func checkLabel(l string) error {
	if len(l) > MaxLabel {
		return fmt.Errorf("label of %d bytes: at most %d", len(l), MaxLabel)
	}
	for _, r := range l {
		if unicode.IsControl(r) {
			return fmt.Errorf("label %q: control characters are not allowed", l)
		}
	}
	return nil
}

// duplicate returns a *DuplicateError when an entry directory exists at
// final, or an error when it exists with other inputs (a prefix clash).
func duplicate(final, hash string) error {
	if _, err := os.Stat(final); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	existing, err := readEntry(final)
	if err != nil {
		return fmt.Errorf("%s exists but is not a readable entry: %w", final, err)
	}
	if existing.InputHash != hash {
		return fmt.Errorf("entry %s exists with other inputs (input hash %s, these %s): refusing to overwrite", existing.ID, existing.InputHash, hash)
	}
	return &DuplicateError{Existing: existing}
}

// copyInput copies one file byte for byte into the staged entry as name,
// hashing what it copies; the size recorded is what was read, not what the
// file system claims.
func copyInput(src string, stage *outdir.Dir, name string) (InputFile, error) {
	in, err := os.Open(src)
	if err != nil {
		return InputFile{}, err
	}
	defer in.Close()
	out, err := stage.Create(name)
	if err != nil {
		return InputFile{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return InputFile{}, fmt.Errorf("copy %s: %w", src, err)
	}
	return InputFile{Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// entryTime is the sweep's time: the given time, else the earliest
// request send time of any run, else the earliest window start. A file's
// modification time is never used: it says when a file was copied, not
// when the sweep ran.
func entryTime(sw *ingest.Sweep, given time.Time) (time.Time, string, error) {
	if !given.IsZero() {
		return given, TimeFromFlag, nil
	}
	earliest := math.Inf(1)
	for _, r := range sw.Runs {
		if r.Requests != nil && r.Requests.FirstSent() < earliest { // NaN never is
			earliest = r.Requests.FirstSent()
		}
	}
	if !math.IsInf(earliest, 1) {
		sec, frac := math.Modf(earliest)
		return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC(), TimeFromRequests, nil
	}
	var start time.Time
	for _, r := range sw.Runs {
		if r.Window.Known() && (start.IsZero() || r.Window.Start.Before(start)) {
			start = r.Window.Start
		}
	}
	if !start.IsZero() {
		return start.UTC(), TimeFromWindow, nil
	}
	return time.Time{}, "", errors.New("the sweep records no request send time (t_request_sent) and no measurement window: give its time with --time (RFC 3339)")
}

// ParseTime reads a --time value: RFC 3339, or a date (midnight UTC),
// from 1970 to the end of 9999 (the times a sweep's records can hold).
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, err = time.Parse("2006-01-02", s)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: expected RFC 3339 (2026-11-02T09:00:00Z) or a date (2026-11-02)", s)
	}
	t = t.UTC()
	if err := inTimeRange(t); err != nil {
		return time.Time{}, fmt.Errorf("time %q: %w", s, err)
	}
	return t, nil
}

// The range of an entry's time: that of the Unix times ingest accepts.
var (
	minTime = time.Unix(ingest.MinUnixSeconds, 0).UTC()
	maxTime = time.Unix(ingest.MaxUnixSeconds, 999_999_999).UTC()
)

// checkTime refuses a given time outside minTime..maxTime; the zero time
// means none was given.
func checkTime(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	return inTimeRange(t)
}

// inTimeRange refuses a time outside minTime..maxTime, the zero time too.
func inTimeRange(t time.Time) error {
	if t.Before(minTime) || t.After(maxTime) {
		return fmt.Errorf("expected a time from 1970-01-01 to 9999-12-31, got %s", t.UTC().Format(time.RFC3339Nano))
	}
	return nil
}
