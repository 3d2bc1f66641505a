package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
)

// markDuplicates finds, among the runs of one series and level, those
// whose requests file is byte-identical to an earlier run's (in run
// order: repeat, then path): a copied run directory, the same result
// imported twice by hand. Such a run is the same run, not a second repeat:
// its DuplicateOf names the run kept, a warning says so, and analyze
// leaves it out. Files are compared only when their sizes are equal, and
// then read side by side up to their first difference, so a sweep without
// duplicates costs a stat per run of a level with repeats.
func markDuplicates(root string, runs []*Run) {
	type level struct {
		series Series
		load   LoadLevel
	}
	type key struct {
		level
		name string
		size int64
	}
	perLevel := map[level]int{}
	for _, r := range runs {
		perLevel[level{r.Series, r.Load}]++
	}
	kept := map[key][]*Run{} // runs of a key with distinct content, in order
	for _, r := range runs {
		if r.Failed || !r.Load.Valid() || perLevel[level{r.Series, r.Load}] < 2 {
			continue
		}
		name := r.requestsName()
		if name == "" {
			continue
		}
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.Dir), name))
		if err != nil || !st.Mode().IsRegular() {
			continue // reading it will say why
		}
		k := key{level{r.Series, r.Load}, name, st.Size()}
		var same *Run
		for _, o := range kept[k] {
			if eq, err := sameContent(filepath.Join(root, filepath.FromSlash(o.Dir), name), filepath.Join(root, filepath.FromSlash(r.Dir), name)); err == nil && eq {
				same = o
				break
			}
		}
		if same == nil {
			kept[k] = append(kept[k], r)
			continue
		}
		r.DuplicateOf = same.Dir
		r.heldBack = append(r.heldBack, Diagnostic{Severity: Warning, File: path.Join(r.Dir, name), Reason: "duplicate run",
			Message: fmt.Sprintf("identical to %s: the same run, not another repeat; it is left out of the analysis", path.Join(same.Dir, name))})
	}
}

// requestsName is the run's requests file name, "" when it has none or
// both (an error of its own).
func (run *Run) requestsName() string {
	var name string
	for _, n := range run.files {
		if n == RequestsCSV || n == RequestsParquet {
			if name != "" {
				return ""
			}
			name = n
		}
	}
	return name
}

// sameContent reports whether two files of one size hold the same bytes,
// reading them side by side up to the first difference.
func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	const chunk = 256 << 10
	ra, rb := bufio.NewReaderSize(fa, chunk), bufio.NewReaderSize(fb, chunk)
	bufA, bufB := make([]byte, chunk), make([]byte, chunk)
	for {
		na, errA := io.ReadFull(ra, bufA)
		nb, errB := io.ReadFull(rb, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		switch {
		case errA == io.EOF || errA == io.ErrUnexpectedEOF:
			return errB == io.EOF || errB == io.ErrUnexpectedEOF, nil
		case errA != nil:
			return false, errA
		case errB != nil:
			return false, errB
		}
	}
}
