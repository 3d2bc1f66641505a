package parquetpage

import (
	"errors"
	"fmt"
)

// ErrUnsupported says a column's chunks are stored in a way the decoder
// does not read: the caller reads the column another way (Arrow's column
// readers), from its first row.
var ErrUnsupported = errors.New("pages stored in a way the page decoder does not read")

// CorruptError is a page the decoder found corrupt in a way Arrow's
// readers mishandle: runs of definition levels or dictionary indices that
// run past their page, an index past the dictionary, a size no value or
// codec can need. Arrow's readers decode stale bytes from such pages
// without an error, or allocate what the page claims (gigabytes, for a
// corrupt dictionary index in a file of a few kilobytes), so the file
// should be refused with this error rather than handed to them.
type CorruptError struct {
	Group, Page int // 1-based: the row group, and the data page in its chunk
	Err         error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("row group %d, page %d: %v", e.Group, e.Page, e.Err)
}

// placeCorrupt names row group g (0-based) and page n in a *CorruptError;
// any other error passes through unchanged.
func placeCorrupt(g, n int, err error) error {
	var cp *CorruptError
	if errors.As(err, &cp) {
		cp.Group, cp.Page = g+1, n
	}
	return err
}
