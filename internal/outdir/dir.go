package outdir

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Dir is a directory being written. Its files go into a private temporary
// sibling of OUT, which takes OUT's place only at Commit; until then OUT
// is untouched, and Abort (or a killed process, cleaned up by the next
// run) leaves nothing behind. A Dir holds OUT's lock from Begin to Commit
// or Abort, so call Abort in a defer: after Commit it does nothing.
type Dir struct {
	r       replacer
	out     string // as given
	abs     string // absolute OUT
	parent  string
	kind    Kind
	cur     *current
	tmp     string
	marker  *os.File // the pending marker, appended to as files are named
	m       *manifest
	open    int // files created and not yet closed
	unlock  func() error
	settled bool // committed or aborted
}

// Replace writes files (keyed by slash path) as the directory out, in
// place of what is there, after the checks of Check: Begin, WriteFile for
// each file in path order, Commit.
func Replace(out string, files map[string][]byte, opts Options) error {
	return replacer{}.replace(out, files, opts)
}

// replacer holds hooks the tests use; the zero value is what Begin uses.
type replacer struct {
	// step, when set, is called after each step that changes the disk.
	step func(name string)
	// swap, when set, replaces the platform's atomic exchange.
	swap func(newDir, out string) (oldAt string, err error)
}

func (r replacer) did(name string) {
	if r.step != nil {
		r.step(name)
	}
}

func (r replacer) replace(out string, files map[string][]byte, opts Options) (err error) {
	if _, err := newManifest(files); err != nil {
		return err
	}
	d, err := r.begin(out, opts, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, d.Abort()) }()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	// The order the files are written in does not show in the result;
	// sorted, a killed run is reproducible step by step.
	sort.Strings(names)
	for _, n := range names {
		if err := d.WriteFile(n, files[n]); err != nil {
			return err
		}
	}
	return d.Commit()
}

// Begin starts writing the directory out as opts says. It takes out's
// lock (waiting for another run writing out), removes what killed runs
// left beside out, checks out as Check does, and creates the temporary
// directory with its marker.
func Begin(out string, opts Options) (*Dir, error) {
	return replacer{}.begin(out, opts, false)
}

// BeginNew starts a new directory inside parent whose name is known only
// when it is complete (an archive entry is named by its content's hash);
// CommitNew names it. stem names the lock and the temporary directories
// (.STEM.benchnote-lock, .STEM.benchnote-tmp-*), so writers with one stem
// take turns. The checks of Check apply to the directory's place.
func BeginNew(parent, stem string, opts Options) (*Dir, error) {
	return replacer{}.begin(filepath.Join(parent, stem), opts, true)
}

func (r replacer) begin(out string, opts Options, fresh bool) (d *Dir, err error) {
	kind := opts.Kind.info() // panics on an unknown kind: a programming error
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return nil, &RefusedError{Path: out, Reason: "it is the file system's root", Kind: opts.Kind}
	}
	// Refused before anything is created, and checked again under the lock.
	if _, err := inspectSettled(out, opts, fresh); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lock(filepath.Join(parent, "."+base+lockSuffix))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", out, err)
	}
	d = &Dir{r: r, out: out, abs: abs, parent: parent, kind: opts.Kind, unlock: unlock,
		m: &manifest{files: map[string]fileEntry{}, dirs: map[string]bool{}}}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.Abort())
			d = nil
		}
	}()
	r.did("locked")
	removeStale(parent, base)
	r.did("removed stale temporary directories")
	if d.cur, err = inspectAt(out, opts, fresh); err != nil {
		return d, err
	}
	if d.tmp, err = os.MkdirTemp(parent, "."+base+tmpInfix); err != nil {
		return d, err
	}
	r.did("created temporary directory")
	if d.marker, err = os.OpenFile(filepath.Join(d.tmp, kind.marker), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644); err != nil {
		return d, err
	}
	if _, err = d.marker.WriteString(kind.header + "\n" + kind.note + "\n"); err != nil {
		return d, err
	}
	r.did("wrote " + kind.marker)
	return d, nil
}

// Path returns the temporary directory the files are written in, so that
// what was written can be read back before Commit (archive add analyses
// its copy of the inputs there). Nothing else may write in it.
func (d *Dir) Path() string { return d.tmp }

// name checks a new file's name and records it in the marker, before the
// file exists, so a killed run's leftovers are known to be benchnote's.
func (d *Dir) name(name string) (string, error) {
	if d.settled {
		return "", errors.New("outdir: write after Commit or Abort")
	}
	if err := checkName(name); err != nil {
		return "", err
	}
	if _, dup := d.m.files[name]; dup {
		return "", fmt.Errorf("refusing to write %q twice", name)
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if _, clash := d.m.files[dir]; clash {
			return "", fmt.Errorf("refusing to write %q: %q is also a file", name, dir)
		}
	}
	if d.m.dirs[name] {
		return "", fmt.Errorf("refusing to write %q: it is also a directory", name)
	}
	if _, err := d.marker.WriteString(pendingField + "  " + pendingField + "  " + name + "\n"); err != nil {
		return "", err
	}
	d.m.files[name] = fileEntry{pending: true}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		d.m.dirs[dir] = true
	}
	p := filepath.Join(d.tmp, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, nil
}

// WriteFile writes one file of the directory (a slash path) and flushes it
// to disk.
func (d *Dir) WriteFile(name string, data []byte) error {
	f, err := d.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// File is a file of a Dir being written; Close flushes it to disk and
// records its size and SHA-256.
type File struct {
	d    *Dir
	name string
	f    *os.File
	h    hash.Hash
	size int64
	err  error
}

// Create creates one file of the directory (a slash path) to be written
// in pieces; the caller must Close it before Commit.
func (d *Dir) Create(name string) (*File, error) {
	p, err := d.name(name)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	d.open++
	d.r.did("named " + name)
	return &File{d: d, name: name, f: f, h: sha256.New()}, nil
}

// Write writes to the file, hashing what it writes.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.f.Write(p)
	f.h.Write(p[:n])
	f.size += int64(n)
	f.err = err
	return n, err
}

// Close flushes the file to disk and records it; a second Close does
// nothing.
func (f *File) Close() error {
	if f.f == nil {
		return f.err
	}
	err := f.err
	if err == nil {
		err = f.f.Sync()
	}
	err = errors.Join(err, f.f.Close())
	f.f = nil
	f.d.open--
	if err == nil {
		var e fileEntry
		copy(e.sum[:], f.h.Sum(nil))
		e.size = f.size
		f.d.m.files[f.name] = e
		f.d.r.did("wrote " + f.name)
	}
	f.err = err
	return err
}

// seal replaces the pending marker with the complete one and flushes the
// temporary directory to disk.
func (d *Dir) seal() error {
	if d.settled {
		return errors.New("outdir: Commit after Commit or Abort")
	}
	if d.open > 0 {
		return fmt.Errorf("outdir: %d files of %s still open at Commit", d.open, d.out)
	}
	for name, e := range d.m.files {
		if e.pending {
			return fmt.Errorf("outdir: %s was not written whole", name)
		}
	}
	if err := d.marker.Close(); err != nil {
		return err
	}
	d.marker = nil
	k := d.kind.info()
	final := filepath.Join(d.tmp, k.marker+finalSuffix)
	if err := writeFile(final, d.m.markerOf(d.kind)); err != nil {
		return err
	}
	if err := os.Rename(final, filepath.Join(d.tmp, k.marker)); err != nil {
		return err
	}
	d.r.did("completed " + k.marker)
	for _, dir := range d.m.sortedDirs() {
		if err := syncDir(filepath.Join(d.tmp, filepath.FromSlash(dir))); err != nil {
			return err
		}
	}
	if err := os.Chmod(d.tmp, 0o755); err != nil {
		return err
	}
	if err := syncDir(d.tmp); err != nil {
		return err
	}
	d.r.did("synced")
	return nil
}

// Commit puts the directory in OUT's place: OUT is, at every instant,
// the whole previous directory or the whole new one. The previous one is
// then removed, file by file, as its marker lists them.
func (d *Dir) Commit() error {
	if err := d.seal(); err != nil {
		return err
	}
	var oldAt string
	var err error
	if d.cur.state == stateAbsent {
		err = renameNoReplace(d.tmp, d.abs)
	} else {
		swap := exchange
		if d.r.swap != nil {
			swap = d.r.swap
		}
		oldAt, err = swap(d.tmp, d.abs)
	}
	if err != nil {
		return fmt.Errorf("replace %s: %w", d.out, err)
	}
	d.settled = true
	if err := syncDir(d.parent); err != nil {
		return errors.Join(err, d.release())
	}
	d.r.did("swapped")
	switch d.cur.state {
	case stateEmpty:
		err = os.Remove(oldAt)
	case stateMarked:
		err = removeMarked(oldAt, d.cur.old, d.kind, d.r.did)
	}
	if err != nil {
		err = fmt.Errorf("wrote %s, but the previous copy moved to %s could not be removed: %w", d.out, oldAt, err)
	} else {
		d.r.did("removed previous copy")
	}
	return errors.Join(err, d.release())
}

// CommitNew gives the directory begun with BeginNew its name inside its
// parent. A name that exists already is an error wrapping fs.ErrExist,
// and nothing is replaced.
func (d *Dir) CommitNew(name string) error {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return fmt.Errorf("outdir: %q is not a plain directory name", name)
	}
	if err := d.seal(); err != nil {
		return err
	}
	final := filepath.Join(d.parent, name)
	if err := renameNoReplace(d.tmp, final); err != nil {
		if _, serr := os.Lstat(final); serr == nil {
			err = fmt.Errorf("%s: %w", final, fs.ErrExist)
		}
		return err
	}
	d.settled = true
	err := syncDir(d.parent)
	d.r.did("renamed")
	return errors.Join(err, d.release())
}

// Abort removes the temporary directory and releases the lock, unless
// Commit succeeded; it may be called any number of times.
func (d *Dir) Abort() error {
	if d == nil {
		return nil
	}
	var err error
	if !d.settled {
		d.settled = true
		if d.marker != nil {
			d.marker.Close()
			d.marker = nil
		}
		if d.tmp != "" {
			err = removeMarked(d.tmp, d.m, d.kind, nil)
		}
	}
	return errors.Join(err, d.release())
}

// release releases the lock once.
func (d *Dir) release() error {
	if d.unlock == nil {
		return nil
	}
	err := d.unlock()
	d.unlock = nil
	if err != nil {
		return fmt.Errorf("unlock %s: %w", d.out, err)
	}
	return nil
}

// removeMarked removes a directory benchnote wrote, file by file: the
// manifest's files, then its directories, then the marker (and a complete
// one not yet moved into place), then dir. What is not in the manifest
// stays, and then dir stays too, with an error. step, when set, is called
// after each file.
func removeMarked(dir string, m *manifest, kind Kind, step func(string)) error {
	for _, name := range m.sortedFiles() {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if step != nil {
			step("removed previous " + name)
		}
	}
	for _, d := range m.sortedDirs() {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s holds files benchnote did not write: %w", filepath.Join(dir, d), err)
		}
	}
	marker := kind.MarkerName()
	for _, name := range []string{marker + finalSuffix, marker} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.Remove(dir); err != nil {
		return fmt.Errorf("%s holds files benchnote did not write: %w", dir, err)
	}
	return nil
}

// removeStale removes the temporary directories a killed run left next to
// OUT: those named by Begin's pattern that are empty, or that carry a
// marker of any kind and hold nothing but (part of) the files it names.
// Anything else is left alone. Called with the lock held, so no live run
// owns them.
func removeStale(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := "." + base + tmpInfix
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if os.Remove(dir) == nil {
			continue // it was empty
		}
		if markerStarted(dir) {
			continue
		}
		for k := range numKinds {
			m, err := readMarker(dir, k, true)
			if err != nil {
				continue
			}
			if onlyListed(dir, m, k) {
				removeMarked(dir, m, k, nil)
			}
			break
		}
	}
}

// markerStarted removes dir when it holds nothing but a marker cut short
// before its second line (a run killed as it began writing it) and reports
// whether it did.
func markerStarted(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].Type().IsRegular() {
		return false
	}
	for _, k := range kinds {
		if entries[0].Name() != k.marker {
			continue
		}
		p := filepath.Join(dir, k.marker)
		data, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(k.header+"\n"+k.note+"\n", string(data)) {
			return false
		}
		return os.Remove(p) == nil && os.Remove(dir) == nil
	}
	return false
}

// onlyListed reports whether dir holds nothing but its marker of kind (or
// the complete one being moved into place), files its manifest names
// (whatever their content: a killed run may have cut one short) and the
// directories they imply.
func onlyListed(dir string, m *manifest, kind Kind) bool {
	marker := kind.MarkerName()
	ok := true
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			ok = false
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		_, listed := m.files[rel]
		switch {
		case rel == ".", d.IsDir() && m.dirs[rel]:
			return nil
		case (rel == marker || rel == marker+finalSuffix || listed) && d.Type().IsRegular():
			return nil
		}
		ok = false
		return fs.SkipAll
	})
	return ok
}
