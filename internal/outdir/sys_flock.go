//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package outdir

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock(2) on the lock file at p, creating it,
// waiting while another run holds it. The returned function removes the
// file and releases the lock. The kernel releases the lock of a killed
// run; its file stays until the next run removes it.
func lock(p string) (unlock func() error, err error) {
	for attempt := 0; attempt < 100; attempt++ {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return nil, err
		}
		if err := flock(f); err != nil {
			f.Close()
			return nil, err
		}
		// The holder before us may have removed the file after we opened
		// it: then we hold a lock on nothing and must start again.
		held, err1 := f.Stat()
		named, err2 := os.Lstat(p)
		if err := errors.Join(err1, err2); err != nil && !errors.Is(err2, os.ErrNotExist) {
			f.Close()
			return nil, err
		}
		if err2 != nil || !os.SameFile(held, named) {
			f.Close()
			continue
		}
		if held.Size() != 0 {
			f.Close()
			return nil, fmt.Errorf("%s is not empty: benchnote did not write it", p)
		}
		return func() error {
			rerr := os.Remove(p)
			return errors.Join(rerr, f.Close())
		}, nil
	}
	return nil, fmt.Errorf("%s: could not take the lock: other runs keep replacing it", p)
}

// flock waits for an exclusive lock on f.
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// syncDir flushes a directory's entries to disk.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}
