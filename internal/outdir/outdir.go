// Package outdir writes a report directory without ever losing data:
// it replaces the output directory OUT only when OUT is absent, an empty
// directory, or a report benchnote wrote itself, and it swaps the new
// report in so that OUT is, at every instant, either the whole old report
// or the whole new one.
//
// A report benchnote wrote is recognised by its marker file, MarkerName,
// which lists every file with its size and SHA-256. A directory with a
// marker is only replaced while it holds nothing but those files,
// unchanged: a file a user added or edited is never deleted.
//
// Replace takes a lock on a sibling file (.OUT.benchnote-lock) so that
// concurrent runs writing one OUT take turns; the last one wins and each
// leaves a whole report. It writes the new report into a sibling temporary
// directory (.OUT.benchnote-tmp-*) that carries the marker before any other
// file, and it removes such directories left by a killed run, but only
// when they carry the marker and hold nothing else.
//
// On Linux the swap is renameat2(RENAME_EXCHANGE) and a fresh OUT is
// created with renameat2(RENAME_NOREPLACE); on macOS renamex_np with
// RENAME_SWAP and RENAME_EXCL. Elsewhere, and on file systems that refuse
// those calls, the swap is two renames: OUT is moved aside, then the new
// directory is moved in, so a run killed between the two leaves no OUT and
// the previous report in the temporary directory, which the next run
// removes. The lock uses flock(2) where the system has it; elsewhere it is
// a lock file created exclusively, which a killed run leaves behind and the
// user must remove.
package outdir

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sibling names: every name Replace creates next to OUT starts with
// "." + base(OUT) and one of these.
const (
	lockSuffix = ".benchnote-lock"
	tmpInfix   = ".benchnote-tmp-"
)

// RefusedError says why OUT may not be replaced. Nothing was changed.
type RefusedError struct {
	Path   string // OUT as given
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to write the report to %q: %s; the output directory must be absent, empty or a report benchnote wrote (marked by %s); nothing was changed",
		e.Path, e.Reason, MarkerName)
}

// state is what is at OUT now.
type state int

const (
	stateAbsent state = iota
	stateEmpty
	stateReport
)

// current is what inspect found at OUT.
type current struct {
	state state
	old   *manifest // for stateReport
}

// Check reports whether out may be replaced by a report made from the
// given inputs (the sweep directory, a notebook, ...). It returns nil when
// out is absent, an empty directory or an unchanged report benchnote wrote,
// a *RefusedError when it is anything else, or an I/O error. It changes
// nothing.
func Check(out string, inputs ...string) error {
	_, err := inspect(out, inputs)
	return err
}

// inspect classifies out; see Check.
func inspect(out string, inputs []string) (*current, error) {
	refuse := func(format string, args ...any) (*current, error) {
		return nil, &RefusedError{Path: out, Reason: fmt.Sprintf(format, args...)}
	}
	info, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return &current{state: stateAbsent}, nil
	}
	if err != nil {
		return nil, err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return refuse("it is a symbolic link (benchnote replaces only a real directory, never a link or what it points to)")
	case info.Mode().IsRegular():
		return refuse("it is a file, not a directory")
	case !info.IsDir():
		return refuse("it is not a directory (%s)", info.Mode().Type())
	}
	for _, in := range inputs {
		switch within(in, info) {
		case 1:
			return refuse("it is the input %q", in)
		case 2:
			return refuse("it contains the input %q", in)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		switch within(wd, info) {
		case 1:
			return refuse("it is the current directory")
		case 2:
			return refuse("it contains the current directory")
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return &current{state: stateEmpty}, nil
	}
	m, err := readMarker(out, false)
	if errors.Is(err, errNoMarker) {
		return refuse("it holds %d %s that benchnote did not write (first: %q)", len(entries), plural(len(entries), "entry", "entries"), entries[0].Name())
	}
	if err != nil {
		return refuse("its marker is not one benchnote wrote: %v", err)
	}
	if reason := unchanged(out, m); reason != "" {
		return refuse("%s", reason)
	}
	return &current{state: stateReport, old: m}, nil
}

// within tells where path p is relative to directory dir: 1 when p is dir,
// 2 when p is inside dir, 0 otherwise. It compares files, not names, after
// resolving symbolic links, so "runs/./x", a link to runs/x and a
// case-insensitive spelling of it are all seen as runs/x.
func within(p string, dir fs.FileInfo) int {
	abs, err := filepath.Abs(p)
	if err != nil {
		return 0
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for a, first := abs, true; ; a, first = filepath.Dir(a), false {
		if fi, err := os.Stat(a); err == nil && os.SameFile(fi, dir) {
			if first {
				return 1
			}
			return 2
		}
		if filepath.Dir(a) == a {
			return 0
		}
	}
}

// unchanged checks that dir holds nothing but its manifest's files, each
// with its recorded size and SHA-256; it returns why not, or "".
func unchanged(dir string, m *manifest) string {
	reason := ""
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "." || rel == MarkerName:
			return nil
		case d.IsDir() && m.dirs[rel]:
			return nil
		case d.IsDir():
			reason = fmt.Sprintf("it holds the directory %q, which benchnote did not write", p)
		case !d.Type().IsRegular():
			reason = fmt.Sprintf("it holds %q, which is not a regular file", p)
		default:
			e, ok := m.files[rel]
			if !ok {
				reason = fmt.Sprintf("it holds %q, which benchnote did not write", p)
				break
			}
			same, err := sameContent(p, e)
			if err != nil {
				return err
			}
			if !same {
				reason = fmt.Sprintf("%q was changed after benchnote wrote it", p)
			}
		}
		if reason != "" {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return fmt.Sprintf("it cannot be read whole (%v)", err)
	}
	return reason
}

// sameContent reports whether the file at p has the entry's size and SHA-256.
func sameContent(p string, e fileEntry) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || info.Size() != e.size {
		return false, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	return bytes.Equal(h.Sum(nil), e.sum[:]), nil
}

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Replace writes files (keyed by slash path) as the directory out, in
// place of what is there, after the same checks as Check; inputs are the
// paths the report was made from. See the package comment for how.
func Replace(out string, files map[string][]byte, inputs ...string) error {
	return replacer{}.replace(out, files, inputs)
}

// replacer holds hooks the tests use; the zero value is what Replace uses.
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

func (r replacer) replace(out string, files map[string][]byte, inputs []string) (err error) {
	next, err := newManifest(files)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return &RefusedError{Path: out, Reason: "it is the file system's root"}
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	unlock, err := lock(filepath.Join(parent, "."+base+lockSuffix))
	if err != nil {
		return fmt.Errorf("lock %s: %w", out, err)
	}
	defer func() {
		if uerr := unlock(); err == nil && uerr != nil {
			err = fmt.Errorf("unlock %s: %w", out, uerr)
		}
	}()
	r.did("locked")
	removeStale(parent, base)
	r.did("removed stale temporary directories")

	cur, err := inspect(out, inputs)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+base+tmpInfix)
	if err != nil {
		return err
	}
	swapped := false
	defer func() {
		if !swapped {
			removeReport(tmp, next, nil)
		}
	}()
	r.did("created temporary directory")
	if err := writeFile(filepath.Join(tmp, MarkerName), next.marker()); err != nil {
		return err
	}
	r.did("wrote " + MarkerName)
	for _, name := range next.sortedFiles() {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeFile(p, files[name]); err != nil {
			return err
		}
		r.did("wrote " + name)
	}
	for _, d := range next.sortedDirs() {
		if err := syncDir(filepath.Join(tmp, filepath.FromSlash(d))); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	r.did("synced")

	oldAt := ""
	if cur.state == stateAbsent {
		err = renameNoReplace(tmp, abs)
	} else {
		swap := exchange
		if r.swap != nil {
			swap = r.swap
		}
		oldAt, err = swap(tmp, abs)
	}
	if err != nil {
		return fmt.Errorf("replace %s: %w", out, err)
	}
	swapped = true
	if err := syncDir(parent); err != nil {
		return err
	}
	r.did("swapped")
	switch cur.state {
	case stateEmpty:
		err = os.Remove(oldAt)
	case stateReport:
		err = removeReport(oldAt, cur.old, r.did)
	}
	if err != nil {
		return fmt.Errorf("wrote %s, but the previous copy moved to %s could not be removed: %w", out, oldAt, err)
	}
	r.did("removed previous copy")
	return nil
}

// writeFile writes data to a new file and flushes it to disk.
func writeFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeReport removes a directory benchnote wrote, file by file: the
// manifest's files, then its directories, then the marker, then dir. What
// is not in the manifest stays, and then dir stays too, with an error.
// step, when set, is called after each file.
func removeReport(dir string, m *manifest, step func(string)) error {
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
	if err := os.Remove(filepath.Join(dir, MarkerName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(dir); err != nil {
		return fmt.Errorf("%s holds files benchnote did not write: %w", dir, err)
	}
	return nil
}

// removeStale removes the temporary directories a killed run left next to
// OUT: those named by Replace's pattern that are empty, or that carry a
// marker and hold nothing but (part of) the files it lists. Anything else
// is left alone. Called with the lock held, so no live run owns them.
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
		m, err := readMarker(dir, true)
		if err != nil || !onlyListed(dir, m) {
			continue
		}
		removeReport(dir, m, nil)
	}
}

// onlyListed reports whether dir holds nothing but its marker, files its
// manifest lists (whatever their content: a killed run may have cut one
// short) and the directories they imply.
func onlyListed(dir string, m *manifest) bool {
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
		case rel == ".", d.IsDir() && m.dirs[rel], rel == MarkerName && d.Type().IsRegular(), listed && d.Type().IsRegular():
			return nil
		}
		ok = false
		return fs.SkipAll
	})
	return ok
}

// swapByRenames is the portable swap: move out aside into a name of the
// temporary pattern, then move newDir in. Between the two renames there is
// no out (between, when set, is called there); a run killed there leaves
// the previous copy where the next run removes it.
func swapByRenames(newDir, out string, between func()) (string, error) {
	old := newDir + ".old"
	if err := os.Rename(out, old); err != nil {
		return "", err
	}
	if between != nil {
		between()
	}
	if err := os.Rename(newDir, out); err != nil {
		if rerr := os.Rename(old, out); rerr != nil {
			return "", fmt.Errorf("%w (and the previous copy could not be moved back from %s: %v)", err, old, rerr)
		}
		return "", err
	}
	return old, nil
}

// renameIfAbsent moves newDir to out when nothing is at out. Without an
// atomic no-replace rename, a file another program creates at out between
// the check and the rename is replaced (a directory is not: os.Rename
// refuses to replace one).
func renameIfAbsent(newDir, out string) error {
	if _, err := os.Lstat(out); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			err = fs.ErrExist
		}
		return &os.LinkError{Op: "rename", Old: newDir, New: out, Err: err}
	}
	return os.Rename(newDir, out)
}
