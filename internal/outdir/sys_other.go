//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package outdir

import (
	"errors"
	"fmt"
	"os"
)

// lock creates the lock file at p exclusively. Without flock(2) a lock
// cannot outlive its holder safely, so a second run fails instead of
// waiting, and a killed run's lock file stays until the user removes it.
func lock(p string) (unlock func() error, err error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("another benchnote run is writing this report, or one was killed: if none is running, remove %s", p)
	}
	if err != nil {
		return nil, err
	}
	return func() error {
		cerr := f.Close()
		return errors.Join(cerr, os.Remove(p))
	}, nil
}

// syncDir does nothing: not every system can flush a directory.
func syncDir(string) error { return nil }
