package outdir

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories newDir and out in one renamex_np(2)
// RENAME_SWAP; after it, newDir names the previous out. A file system that
// cannot swap gets the two-rename swap.
func exchange(newDir, out string) (string, error) {
	err := unix.RenamexNp(newDir, out, unix.RENAME_SWAP)
	if unsupported(err) {
		return swapByRenames(newDir, out, nil)
	}
	if err != nil {
		return "", &os.LinkError{Op: "renamex_np(RENAME_SWAP)", Old: newDir, New: out, Err: err}
	}
	return newDir, nil
}

// renameNoReplace moves newDir to out, failing if out appeared meanwhile.
func renameNoReplace(newDir, out string) error {
	err := unix.RenamexNp(newDir, out, unix.RENAME_EXCL)
	if unsupported(err) {
		return renameIfAbsent(newDir, out)
	}
	if err != nil {
		return &os.LinkError{Op: "renamex_np(RENAME_EXCL)", Old: newDir, New: out, Err: err}
	}
	return nil
}

func unsupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL)
}
