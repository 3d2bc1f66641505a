package sparse

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// nextData finds the first data at or after off with lseek(2) SEEK_DATA
// and where that data ends (SEEK_HOLE; the end of the file counts as a
// hole). data is -1 when only a hole follows off. ok is false when the
// file system cannot tell.
func nextData(f *os.File, off int64) (data, end int64, ok bool) {
	data, err := f.Seek(off, unix.SEEK_DATA)
	if errors.Is(err, unix.ENXIO) {
		return -1, 0, true
	}
	if err != nil {
		return 0, 0, false
	}
	end, err = f.Seek(data, unix.SEEK_HOLE)
	if err != nil || end <= data {
		return 0, 0, false
	}
	return data, end, true
}
