package outdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// FileOptions tunes WriteSingleFile.
type FileOptions struct {
	// Inputs are the paths the file is made from: the file may not be one
	// of them nor lie inside one.
	Inputs []string
	// Ours reports whether an existing file's content is one benchnote
	// wrote and nobody changed since (a file carrying its own digest, as
	// export's reports do); only such a file is replaced. Nil replaces no
	// existing file.
	Ours func(content []byte) bool
	// What names the file for messages ("the llm-d report").
	What string
}

// maxOwnFile is the most of an existing file read to decide whether
// benchnote wrote it: larger, it is not one of benchnote's.
const maxOwnFile = 256 << 20

// WriteSingleFile writes data as the file out, with the discipline of the
// directories this package writes: out is replaced only when absent or a
// file benchnote wrote, unchanged (opts.Ours); never a directory, a link,
// an input or a file inside one, nor inside an archive. It takes the lock
// .OUT.benchnote-lock beside out, writes a temporary sibling, flushes it
// and moves it into place, so out is at every instant the whole old file
// or the whole new one; a fresh out is created without replacing a file
// another program created meanwhile (a hard link, which fails if out
// exists). Nothing is changed when it refuses.
func WriteSingleFile(out string, data []byte, opts FileOptions) error {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("refusing to write %s to %q: %s; the file must be absent or one benchnote wrote and nobody changed since; nothing was changed",
			opts.What, out, fmt.Sprintf(format, args...))
	}
	check := func() (exists bool, err error) {
		info, err := os.Lstat(out)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return false, err
		case info.Mode()&fs.ModeSymlink != 0:
			return false, refuse("it is a symbolic link")
		case info.IsDir():
			return false, refuse("it is a directory")
		case !info.Mode().IsRegular():
			return false, refuse("it is not a regular file (%s)", info.Mode().Type())
		}
		exists = err == nil
		for _, in := range opts.Inputs {
			fi, err := os.Stat(in)
			if err != nil {
				continue
			}
			if exists && os.SameFile(fi, info) {
				return false, refuse("it is the input %q", in)
			}
			if fi.IsDir() && within(out, fi) == 2 {
				return false, refuse("it lies inside the input %q (write it beside the input instead)", in)
			}
		}
		if a := archiveAround(filepath.Dir(out)); a != "" {
			return false, refuse("it lies inside the benchnote archive %q, where only `benchnote archive add` writes", a)
		}
		if !exists {
			return false, nil
		}
		f, err := os.Open(out)
		if err != nil {
			return false, err
		}
		defer f.Close()
		content, err := io.ReadAll(io.LimitReader(f, maxOwnFile+1))
		if err != nil {
			return false, err
		}
		if opts.Ours == nil || len(content) > maxOwnFile || !opts.Ours(content) {
			return false, refuse("it exists and is not a file benchnote wrote, or was changed since")
		}
		return true, nil
	}
	// Refused before the lock is taken (a lock file beside a directory
	// the user named by mistake would be litter), and again under it.
	if _, err := check(); err != nil {
		return err
	}
	dir, base := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	unlock, err := lock(filepath.Join(dir, "."+base+lockSuffix))
	if err != nil {
		return err
	}
	defer unlock()
	exists, err := check()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+base+tmpInfix+"*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	switch {
	case exists:
		err = os.Rename(tmpName, out)
	default:
		err = os.Link(tmpName, out)
		if errors.Is(err, fs.ErrExist) {
			return refuse("another program created it while benchnote was writing")
		}
		if err != nil {
			// A file system without hard links: as renameIfAbsent, a
			// file created between the check and the rename is replaced.
			err = renameIfAbsent(tmpName, out)
		}
	}
	if err != nil {
		return err
	}
	return syncDir(dir)
}
