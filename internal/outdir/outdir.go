// Package outdir is the one way benchnote writes a directory, used by
// every command that writes one (report, import, compare, history and
// archive add), so that no command can lose a user's data:
//
//   - It replaces the output directory OUT only when OUT is absent, an
//     empty directory, or a directory of the same kind benchnote wrote
//     itself, holding nothing else; an empty directory tree of a user's
//     (`src/main`, `.git/objects`) is something benchnote did not write.
//   - It never writes inside an input, nor into an input's or the current
//     directory's place, nor inside a benchnote archive (only archive's
//     own entries go there).
//   - It swaps the new directory in so that OUT is, at every instant,
//     either the whole old directory or the whole new one.
//
// A directory benchnote wrote is recognised by its marker file, which
// lists every file with its size and SHA-256; the marker's name and first
// line say which Kind it is (a report, an imported sweep, an archive
// entry). A directory with a marker is only replaced while it holds
// nothing but those files, unchanged: a file a user added or edited is
// never deleted.
//
// Begin takes a lock on a sibling file (.OUT.benchnote-lock) so that
// concurrent runs writing one OUT take turns; the last one wins and each
// leaves a whole directory. It writes into a sibling temporary directory
// (.OUT.benchnote-tmp-*) whose marker is written before any other file
// and names each file before the file is created, and it removes such
// directories left by a killed run, but only when they carry a marker and
// hold nothing but the files it names.
//
// On Linux the swap is renameat2(RENAME_EXCHANGE) and a fresh OUT is
// created with renameat2(RENAME_NOREPLACE); on macOS renamex_np with
// RENAME_SWAP and RENAME_EXCL. Elsewhere, and on file systems that refuse
// those calls, the swap is two renames: OUT is moved aside, then the new
// directory is moved in, so a run killed between the two leaves no OUT and
// the previous directory in the temporary directory, which the next run
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

	"github.com/benchnote/benchnote/internal/textfmt"
)

// Sibling names: every name Begin creates next to OUT starts with
// "." + base(OUT) and one of these.
const (
	lockSuffix = ".benchnote-lock"
	tmpInfix   = ".benchnote-tmp-"
)

// Kind is what a directory benchnote writes is for. Its marker file says
// which, and a directory of one kind is never replaced by another.
type Kind int

const (
	// Report is a report, a comparison or a history: output, never input
	// (ingest skips a directory marked as one).
	Report Kind = iota
	// Sweep is a sweep `benchnote import` wrote: input for the others.
	Sweep
	// Entry is an archive entry, written once by `benchnote archive add`
	// and never replaced.
	Entry
	numKinds
)

// Marker file names, one per Kind.
const (
	MarkerName      = ".benchnote-report" // Report
	SweepMarkerName = ".benchnote-sweep"  // Sweep
	EntryMarkerName = ".benchnote-entry"  // Entry
)

// kindInfo is how a Kind's marker reads.
type kindInfo struct {
	marker string // file name
	header string // first line
	note   string // second line
	what   string // "a report", in messages
}

var kinds = [numKinds]kindInfo{
	Report: {MarkerName, "benchnote report directory, format 1",
		"Written by `benchnote report`, which replaces or removes this directory only while it holds nothing but the files listed here, unchanged.",
		"a report"},
	Sweep: {SweepMarkerName, "benchnote imported sweep, format 1",
		"Written by `benchnote import`, which replaces or removes this directory only while it holds nothing but the files listed here, unchanged.",
		"an imported sweep"},
	Entry: {EntryMarkerName, "benchnote archive entry, format 1",
		"Written by `benchnote archive add`; an archive entry is never replaced or removed, and `benchnote archive verify` checks it against the files listed here.",
		"an archive entry"},
}

func (k Kind) info() kindInfo {
	if k < 0 || k >= numKinds {
		panic(fmt.Sprintf("outdir: unknown kind %d", int(k)))
	}
	return kinds[k]
}

// MarkerName returns the name of k's marker file.
func (k Kind) MarkerName() string { return k.info().marker }

// String names the kind as messages do: "a report".
func (k Kind) String() string { return k.info().what }

// ArchiveMarkerName is the file that makes a directory a benchnote
// archive (archive.json, with ArchiveSchema in it). No directory but an
// archive entry is written inside one.
const (
	ArchiveMarkerName = "archive.json"
	ArchiveSchema     = "benchnote.archive/v1"
)

// Options says what a directory is and what it must keep clear of.
type Options struct {
	// Kind is what the directory is; the zero value is Report.
	Kind Kind
	// Inputs are the paths the directory is made from (a sweep, a
	// notebook, an archive, result files): OUT may not be one of them,
	// hold one, or lie inside one.
	Inputs []string
	// InArchive allows OUT inside a benchnote archive: set by archive add
	// for its entries, by nothing else.
	InArchive bool
}

// RefusedError says why OUT may not be written. Nothing was changed.
type RefusedError struct {
	Path   string // OUT as given
	Reason string
	Kind   Kind
}

func (e *RefusedError) Error() string {
	if e.Kind == Report {
		return fmt.Sprintf("refusing to write the report to %q: %s; the output directory must be absent, empty or a report benchnote wrote (marked by %s); nothing was changed",
			e.Path, e.Reason, MarkerName)
	}
	k := e.Kind.info()
	return fmt.Sprintf("refusing to write %s to %q: %s; the output directory must be absent, empty or %s benchnote wrote (marked by %s); nothing was changed",
		k.what, e.Path, e.Reason, k.what, k.marker)
}

// state is what is at OUT now.
type state int

const (
	stateAbsent state = iota
	stateEmpty
	stateMarked
)

// current is what inspect found at OUT.
type current struct {
	state state
	old   *manifest // for stateMarked
}

// Check reports whether out may be written as opts says: it returns nil
// when out is absent, an empty directory or an unchanged directory of
// opts.Kind benchnote wrote, a *RefusedError when it is anything else, or
// an I/O error. It changes nothing.
func Check(out string, opts Options) error {
	_, err := inspectSettled(out, opts, false)
	return err
}

// inspectSettled is inspectAt without the lock when that finds out may be
// written; a refusal is checked again under out's lock, since without it
// a concurrent writer's exchange can be seen half-way (its new files under
// the old marker).
func inspectSettled(out string, opts Options, fresh bool) (*current, error) {
	cur, err := inspectAt(out, opts, fresh)
	var refused *RefusedError
	if err == nil || !errors.As(err, &refused) {
		return cur, err
	}
	abs, aerr := filepath.Abs(out)
	if aerr != nil {
		return nil, err
	}
	parent := filepath.Dir(abs)
	if info, serr := os.Stat(parent); serr != nil || !info.IsDir() || parent == abs {
		return nil, err
	}
	unlock, lerr := lock(filepath.Join(parent, "."+filepath.Base(abs)+lockSuffix))
	if lerr != nil {
		return nil, err
	}
	cur, err = inspectAt(out, opts, fresh)
	if uerr := unlock(); err == nil && uerr != nil {
		err = uerr
	}
	return cur, err
}

// inspectAt classifies out (see Check); with fresh set, out only names
// where a new directory will be created beside (see BeginNew): its place
// is checked, not what is there.
func inspectAt(out string, opts Options, fresh bool) (*current, error) {
	refuse := func(format string, args ...any) (*current, error) {
		return nil, &RefusedError{Path: out, Reason: fmt.Sprintf(format, args...), Kind: opts.Kind}
	}
	kind := opts.Kind.info()
	info, err := os.Lstat(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	exists := err == nil && !fresh
	if exists {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return refuse("it is a symbolic link (benchnote replaces only a real directory, never a link or what it points to)")
		case info.Mode().IsRegular():
			return refuse("it is a file, not a directory")
		case !info.IsDir():
			return refuse("it is not a directory (%s)", info.Mode().Type())
		}
		for _, in := range opts.Inputs {
			switch within(in, info) {
			case 1:
				return refuse("it is the input %q", in)
			case 2:
				return refuse("it contains the input %q", in)
			}
		}
	}
	for _, in := range opts.Inputs {
		if fi, err := os.Stat(in); err == nil && fi.IsDir() && within(out, fi) == 2 {
			return refuse("it lies inside the input %q (write it beside the input instead)", in)
		}
	}
	if !opts.InArchive {
		if a := archiveAround(out); a != "" {
			if exists && isArchive(out) {
				return refuse("it is a benchnote archive")
			}
			return refuse("it lies inside the benchnote archive %q, where only `benchnote archive add` writes", a)
		}
	}
	if !exists {
		return &current{state: stateAbsent}, nil
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
	m, err := readMarker(out, opts.Kind, false)
	if errors.Is(err, errNoMarker) {
		for k := range numKinds {
			if other := k.info(); k != opts.Kind && markedAs(out, k) {
				return refuse("it is %s benchnote wrote (it holds %s), not %s", other.what, other.marker, kind.what)
			}
		}
		if isArchive(out) {
			return refuse("it is a benchnote archive")
		}
		return refuse("it holds %s that benchnote did not write (first: %q)", textfmt.Count(len(entries), "entry", "entries"), entries[0].Name())
	}
	if err != nil {
		return refuse("its marker is not one benchnote wrote: %v", err)
	}
	if opts.Kind == Entry {
		return refuse("it is an archive entry, which is never replaced")
	}
	if reason := unchanged(out, m, kind.marker); reason != "" {
		return refuse("%s", reason)
	}
	return &current{state: stateMarked, old: m}, nil
}

// archiveAround returns the benchnote archive that p is or lies inside,
// or "". Only directories that exist are looked at, so a path not yet
// created is judged by its nearest existing ancestor.
func archiveAround(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	for a := abs; ; a = filepath.Dir(a) {
		if isArchive(a) {
			return a
		}
		if filepath.Dir(a) == a {
			return ""
		}
	}
}

// isArchive reports whether dir holds a benchnote archive's marker: an
// archive.json naming ArchiveSchema in its first KiB.
func isArchive(dir string) bool {
	f, err := os.Open(filepath.Join(dir, ArchiveMarkerName))
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`"`+ArchiveSchema+`"`))
}

// IsArchive reports whether dir is a benchnote archive (it holds
// archive.json naming the archive schema). ingest skips such a directory
// inside a sweep.
func IsArchive(dir string) bool { return isArchive(dir) }

// Overlap reports how the paths a and b lie: "" when apart, otherwise a
// phrase for a message ("is", "lies inside", "contains") read as "a ...
// b". Links and other spellings of one path are resolved.
func Overlap(a, b string) string {
	fb, errB := os.Stat(b)
	fa, errA := os.Stat(a)
	switch {
	case errB == nil && fb.IsDir() && within(a, fb) == 1:
		return "is"
	case errB == nil && fb.IsDir() && within(a, fb) == 2:
		return "lies inside"
	case errA == nil && fa.IsDir() && within(b, fa) == 2:
		return "contains"
	}
	return ""
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

// unchanged checks that dir holds nothing but its marker (markerName) and its manifest's files, each
// with its recorded size and SHA-256; it returns why not, or "".
func unchanged(dir string, m *manifest, markerName string) string {
	reason := ""
	err := walkRel(dir, func(p, rel string, d fs.DirEntry) error {
		switch {
		case rel == "." || rel == markerName:
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
