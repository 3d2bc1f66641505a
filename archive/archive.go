// Package archive keeps analysed sweeps in an append-only directory so
// they can be compared over time and analysed again under one method.
//
// An entry holds the sweep's inputs copied byte for byte, its summary.json,
// a stats.parquet table of every per-run statistic, and entry.json (its
// identity, time, label, environment fingerprint and the benchnote version
// that added it). An entry's identity is a content hash of its inputs, so
// the same sweep cannot be added twice; an entry is written into a
// private temporary directory and renamed into place only when complete,
// and it is never modified or deleted afterwards. A bad entry is marked
// excluded in a separate file, with the reason. The layout is described in
// docs/archive.md.
package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/outdir"
)

// Schemas of the archive's JSON files.
const (
	Schema = outdir.ArchiveSchema
	// EntrySchema is the schema of an entry whose sweep has series labels
	// (see HasSeries): its levels carry their series, its stats.parquet
	// has SeriesColumns. An entry without labels is written as
	// EntrySchemaV1, as before series existed, so that its files stay the
	// same and a benchnote that predates series, which would pool the
	// series of a level as repeats, refuses only the entries it cannot read.
	EntrySchema     = "benchnote.archive-entry/v2"
	EntrySchemaV1   = "benchnote.archive-entry/v1"
	ExclusionSchema = "benchnote.archive-exclusion/v1"
)

// File and directory names inside an archive.
const (
	MarkerFile    = outdir.ArchiveMarkerName
	EntryFile     = "entry.json"
	SummaryFile   = "summary.json"
	StatsFile     = "stats.parquet"
	InputsDir     = "inputs"
	ExclusionsDir = "exclusions"
	tmpDir        = ".tmp"
)

// IDLength is the number of hex digits of the input hash that name an
// entry.
const IDLength = 16

// MaxLabel is the longest label accepted, in bytes.
const MaxLabel = 200

// Time sources.
const (
	TimeFromRequests = "earliest request send time"
	TimeFromWindow   = "earliest measurement window start"
	TimeFromFlag     = "given with --time"
)

// Entry is an entry's entry.json.
type Entry struct {
	Schema string `json:"schema"`
	// ID is the first IDLength hex digits of InputHash, and the name of
	// the entry's directory.
	ID string `json:"id"`
	// InputHash is the SHA-256 of the input manifest (see Inputs).
	InputHash string `json:"input_hash"`
	// Time is when the sweep ran (RFC 3339, UTC), from TimeSource.
	Time       string `json:"time"`
	TimeSource string `json:"time_source"`
	// Label is the user's label (a git revision, a ticket), may be empty.
	Label            string `json:"label"`
	BenchnoteVersion string `json:"benchnote_version"`
	SummarySchema    string `json:"summary_schema"`
	Title            string `json:"title"`
	// Fingerprint identifies the environment and method (compare.Profile).
	Fingerprint string          `json:"fingerprint"`
	Profile     compare.Profile `json:"profile"`
	Levels      []EntryLevel    `json:"levels"`
	// Stats is stats.parquet's size and SHA-256, checked before the file
	// is parsed.
	Stats InputFile `json:"stats"`
	// Inputs lists every copied input with its size and SHA-256.
	Inputs []InputFile `json:"inputs"`
	// Ignored lists the files of the sweep directory that were not inputs.
	Ignored []ingest.IgnoredFile `json:"ignored"`
}

// EntryLevel is one level of an entry.
type EntryLevel struct {
	// Level is the level with its series (labels, omitted when none).
	Level compare.LevelID `json:"level"`
	// Label is the load level as people read it, without the series.
	Label string `json:"label"`
	Runs  int    `json:"runs"`
}

// InputFile is one copied input.
type InputFile struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// When returns the entry's time.
func (e Entry) When() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.Time)
	return t
}

// Exclusion marks an entry as excluded: exclusions/ID.json.
type Exclusion struct {
	Schema           string `json:"schema"`
	ID               string `json:"id"`
	Why              string `json:"why"`
	BenchnoteVersion string `json:"benchnote_version"`
}

// Listed is an entry as listed: with its exclusion, if any, and what the
// cheap check found changed since it was added.
type Listed struct {
	Entry
	// Dir is the entry's directory.
	Dir      string
	Excluded *Exclusion
	// Unreadable, when set, says why the entry's entry.json cannot be
	// read; then only ID and Dir are set, and nothing else of the entry
	// may be used.
	Unreadable string
	// Modified lists what differs from what was recorded when the entry
	// was added (see Check): a file missing, added, or of another size.
	Modified []string
}

// Usable reports whether the entry can be used as it was added: readable
// and unchanged as far as the check looked.
func (l Listed) Usable() bool { return l.Unreadable == "" && len(l.Modified) == 0 }

// Problem says in one line why the entry is not usable, or "".
func (l Listed) Problem() string {
	switch {
	case l.Unreadable != "":
		return "unreadable: " + l.Unreadable
	case len(l.Modified) == 1:
		return "modified since it was added: " + l.Modified[0]
	case len(l.Modified) > 1:
		return fmt.Sprintf("modified since it was added: %s (and %d more)", l.Modified[0], len(l.Modified)-1)
	}
	return ""
}

// DuplicateError is returned when a sweep's inputs are already archived.
type DuplicateError struct {
	Existing Entry
}

func (e *DuplicateError) Error() string {
	label := ""
	if e.Existing.Label != "" {
		label = fmt.Sprintf(", label %q", e.Existing.Label)
	}
	return fmt.Sprintf("these inputs are already archived as entry %s (time %s%s); an entry is never added twice or overwritten",
		e.Existing.ID, e.Existing.Time, label)
}

// Archive is an opened archive directory.
type Archive struct {
	Dir string
}

type marker struct {
	Schema string `json:"schema"`
}

// Open opens an existing archive.
func Open(dir string) (*Archive, error) {
	data, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: not a benchnote archive (no %s)", dir, MarkerFile)
		}
		return nil, err
	}
	var m marker
	if err := json.Unmarshal(data, &m); err != nil || m.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, expected %q", filepath.Join(dir, MarkerFile), m.Schema, Schema)
	}
	return &Archive{Dir: dir}, nil
}

// create opens an archive, creating it when dir is absent or empty. A
// non-empty directory that is not an archive is refused: benchnote never
// writes into a directory it did not make. Concurrent creations are safe:
// archive.json is linked into place, never replaced, and a directory that
// holds only what another creation is writing (its .tmp) counts as empty.
func create(dir string) (*Archive, error) {
	if a, err := Open(dir); err == nil {
		return a, nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case len(entries) > 1 || len(entries) == 1 && (entries[0].Name() != tmpDir || !entries[0].IsDir()):
		return nil, fmt.Errorf("%s: not empty and not a benchnote archive (no %s): refusing to write into it", dir, MarkerFile)
	}
	if a := archiveAbove(dir); a != "" {
		return nil, fmt.Errorf("%s: inside the benchnote archive %s: refusing to make an archive there", dir, a)
	}
	data, _ := json.MarshalIndent(marker{Schema: Schema}, "", "  ")
	if err := writeNew(filepath.Join(dir, MarkerFile), append(data, '\n'), dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return Open(dir)
}

// writeNew writes a file that must not exist yet: into a temporary file
// under the archive, synced, then hard-linked into place, which fails
// rather than replaces when the name is taken.
func writeNew(path string, data []byte, archiveDir string) error {
	tmp := filepath.Join(archiveDir, tmpDir)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(tmp, "file-*")
	if err != nil {
		return err
	}
	name := f.Name()
	defer os.Remove(name)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return err
	}
	return os.Link(name, path)
}

// Entries lists the archive's entries, oldest first (ties by id), each
// with its exclusion if it has one, and checked cheaply (Check without
// hashing: every recorded file present with its recorded size, nothing
// added). Directories that are not entries (temporary ones, exclusions)
// are skipped; an entry directory whose entry.json cannot be read is
// listed last, Unreadable saying why, so that one bad entry never hides
// the others.
func (a *Archive) Entries() ([]Listed, error) {
	return a.entries(false)
}

// Verify lists the entries as Entries does, but Check hashes every file:
// it reads the whole archive.
func (a *Archive) Verify() ([]Listed, error) {
	return a.entries(true)
}

func (a *Archive) entries(full bool) ([]Listed, error) {
	dirs, err := os.ReadDir(a.Dir)
	if err != nil {
		return nil, err
	}
	excl, err := a.exclusions()
	if err != nil {
		return nil, err
	}
	var out, unreadable []Listed
	for _, d := range dirs {
		if !d.IsDir() || !isID(d.Name()) {
			continue
		}
		dir := filepath.Join(a.Dir, d.Name())
		e, err := readEntry(dir)
		if err != nil {
			unreadable = append(unreadable, Listed{Entry: Entry{ID: d.Name()}, Dir: dir, Unreadable: err.Error()})
			continue
		}
		l := Listed{Entry: e, Dir: dir}
		if x, ok := excl[e.ID]; ok {
			l.Excluded = &x
		}
		if l.Modified, err = Check(dir, e, full); err != nil {
			l.Modified = []string{err.Error()}
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := out[i].When(), out[j].When()
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].ID < out[j].ID
	})
	for _, u := range unreadable {
		if x, ok := excl[u.ID]; ok {
			u.Excluded = &x
		}
		out = append(out, u)
	}
	return out, nil
}

// Check compares an entry's directory with what was recorded when it was
// added, and returns what differs (nil when nothing does). An entry
// written with a marker (.benchnote-entry) is checked against it: every
// file, entry.json and summary.json included, present with its size and,
// with full set, its SHA-256, and nothing added. An older entry is checked
// against entry.json: its inputs and stats.parquet, and the presence of
// summary.json. Either way entry.json's input hash must match its list of
// inputs, so an edited entry.json shows.
func Check(dir string, e Entry, full bool) ([]string, error) {
	var problems []string
	if got := hashInputs(e.Inputs); got != e.InputHash {
		problems = append(problems, fmt.Sprintf("%s: its input hash does not match its list of inputs", EntryFile))
	}
	found, err := outdir.Verify(dir, outdir.Entry, full)
	switch {
	case err == nil:
		return append(problems, found...), nil
	case !errors.Is(err, outdir.ErrNoMarker):
		return nil, err
	}
	files := append([]InputFile{}, e.Inputs...)
	for i := range files {
		files[i].Path = path.Join(InputsDir, files[i].Path)
	}
	files = append(files, e.Stats)
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		info, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, f.Path+": missing")
			continue
		case err != nil:
			return nil, err
		case !info.Mode().IsRegular():
			problems = append(problems, f.Path+": not a regular file")
			continue
		case info.Size() != f.Bytes:
			problems = append(problems, fmt.Sprintf("%s: %d bytes, recorded %d", f.Path, info.Size(), f.Bytes))
			continue
		}
		if full {
			sum, err := fileSHA256(p)
			if err != nil {
				return nil, err
			}
			if sum != f.SHA256 {
				problems = append(problems, f.Path+": content changed (SHA-256 differs from the recorded one)")
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, SummaryFile)); errors.Is(err, fs.ErrNotExist) {
		problems = append(problems, SummaryFile+": missing")
	}
	sort.Strings(problems)
	return problems, nil
}

// fileSHA256 returns a file's SHA-256 in hex.
func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isID(s string) bool {
	if len(s) != IDLength {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// maxEntryJSON bounds the size of an entry.json that is read.
const maxEntryJSON = 64 << 20

func readEntry(dir string) (Entry, error) {
	p := filepath.Join(dir, EntryFile)
	f, err := os.Open(p)
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	var e Entry
	dec := json.NewDecoder(io.LimitReader(f, maxEntryJSON))
	if err := dec.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("%s: %w", p, err)
	}
	if e.Schema != EntrySchema && e.Schema != EntrySchemaV1 {
		return Entry{}, fmt.Errorf("%s: schema %q, expected %q or %q", p, e.Schema, EntrySchema, EntrySchemaV1)
	}
	if e.ID != filepath.Base(dir) {
		return Entry{}, fmt.Errorf("%s: id %q does not match its directory %q", p, e.ID, filepath.Base(dir))
	}
	if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
		return Entry{}, fmt.Errorf("%s: time %q: %v", p, e.Time, err)
	}
	return e, nil
}

func (a *Archive) exclusions() (map[string]Exclusion, error) {
	out := map[string]Exclusion{}
	dir := filepath.Join(a.Dir, ExclusionsDir)
	files, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		id, ok := strings.CutSuffix(f.Name(), ".json")
		if !ok || !isID(id) {
			continue
		}
		p := filepath.Join(dir, f.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var x Exclusion
		if err := json.Unmarshal(data, &x); err != nil || x.Schema != ExclusionSchema || x.ID != id {
			return nil, fmt.Errorf("%s: not an exclusion of entry %s (schema %q, id %q)", p, id, x.Schema, x.ID)
		}
		out[id] = x
	}
	return out, nil
}

// Find returns the entry whose id is id or starts with it.
func (a *Archive) Find(id string) (Listed, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Listed{}, errors.New("empty entry id")
	}
	all, err := a.Entries()
	if err != nil {
		return Listed{}, err
	}
	var match []Listed
	for _, e := range all {
		if strings.HasPrefix(e.ID, id) {
			match = append(match, e)
		}
	}
	switch len(match) {
	case 0:
		return Listed{}, fmt.Errorf("%s: no entry %q", a.Dir, id)
	case 1:
		return match[0], nil
	}
	var ids []string
	for _, m := range match {
		ids = append(ids, m.ID)
	}
	return Listed{}, fmt.Errorf("%s: %q matches %d entries (%s): give more digits", a.Dir, id, len(match), strings.Join(ids, ", "))
}

// Exclude marks an entry as excluded, with the reason. The entry itself
// is not touched; an entry is excluded at most once.
func (a *Archive) Exclude(id, why, version string) (Listed, error) {
	why = strings.TrimSpace(why)
	if why == "" {
		return Listed{}, errors.New("an exclusion needs a reason (--why)")
	}
	if len(why) > 2000 {
		return Listed{}, fmt.Errorf("reason of %d bytes: at most 2000", len(why))
	}
	e, err := a.Find(id)
	if err != nil {
		return Listed{}, err
	}
	if e.Excluded != nil {
		return Listed{}, fmt.Errorf("entry %s is already excluded: %q", e.ID, e.Excluded.Why)
	}
	x := Exclusion{Schema: ExclusionSchema, ID: e.ID, Why: why, BenchnoteVersion: version}
	data, _ := json.MarshalIndent(x, "", "  ")
	if err := os.MkdirAll(filepath.Join(a.Dir, ExclusionsDir), 0o755); err != nil {
		return Listed{}, err
	}
	if err := writeNew(filepath.Join(a.Dir, ExclusionsDir, e.ID+".json"), append(data, '\n'), a.Dir); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Listed{}, fmt.Errorf("entry %s is already excluded", e.ID)
		}
		return Listed{}, err
	}
	e.Excluded = &x
	return e, nil
}

// hashInputs returns the input hash of a manifest: SHA-256 over one line
// per input, "sha256  bytes  path\n", in path order. A path that holds a
// control character (a newline could forge a second line) or begins with
// a double quote is written quoted (strconv.Quote), so no two manifests
// hash the same text; every other path is written as it is, so the ids of
// entries added before paths were quoted stay the same.
func hashInputs(files []InputFile) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s  %d  %s\n", f.SHA256, f.Bytes, manifestPath(f.Path))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// manifestPath writes a path for hashInputs.
func manifestPath(p string) string {
	if strings.HasPrefix(p, `"`) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return strconv.Quote(p)
	}
	return p
}
