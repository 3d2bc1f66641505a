//go:build !linux && !darwin

package outdir

// exchange swaps newDir and out with two renames; see swapByRenames.
func exchange(newDir, out string) (string, error) { return swapByRenames(newDir, out, nil) }

// renameNoReplace moves newDir to out, which must not exist.
func renameNoReplace(newDir, out string) error { return renameIfAbsent(newDir, out) }
