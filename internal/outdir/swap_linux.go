package outdir

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories newDir and out in one renameat2(2)
// RENAME_EXCHANGE; after it, newDir names the previous out. A file system
// that cannot exchange gets the two-rename swap.
func exchange(newDir, out string) (string, error) {
	err := unix.Renameat2(unix.AT_FDCWD, newDir, unix.AT_FDCWD, out, unix.RENAME_EXCHANGE)
	if unsupported(err) {
		return swapByRenames(newDir, out, nil)
	}
	if err != nil {
		return "", &os.LinkError{Op: "renameat2(RENAME_EXCHANGE)", Old: newDir, New: out, Err: err}
	}
	return newDir, nil
}

// renameNoReplace moves newDir to out, failing if out appeared meanwhile.
func renameNoReplace(newDir, out string) error {
	err := unix.Renameat2(unix.AT_FDCWD, newDir, unix.AT_FDCWD, out, unix.RENAME_NOREPLACE)
	if unsupported(err) {
		return renameIfAbsent(newDir, out)
	}
	if err != nil {
		return &os.LinkError{Op: "renameat2(RENAME_NOREPLACE)", Old: newDir, New: out, Err: err}
	}
	return nil
}

// unsupported tells an error meaning "this kernel or file system has no
// such rename" from a real failure.
func unsupported(err error) bool {
	return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP)
}
