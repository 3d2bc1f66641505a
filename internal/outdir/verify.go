package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ErrNoMarker is returned by Verify for a directory without a marker of
// the kind asked for.
var ErrNoMarker = errNoMarker

// Verify checks a directory benchnote wrote against its marker of kind:
// every file it lists is present, a regular file, of its recorded size
// and, with full set, of its recorded SHA-256; and nothing else is there.
// Without full it reads only the marker and the directory's entries, so it
// costs a few system calls a file. It returns what differs, one phrase per
// path in path order ("inputs/c1/r1/requests.csv: 1200 bytes, recorded
// 1180"), and nil when nothing does. A directory without such a marker
// gives ErrNoMarker.
func Verify(dir string, kind Kind, full bool) ([]string, error) {
	m, err := readMarker(dir, kind, false)
	if err != nil {
		return nil, err
	}
	marker := kind.MarkerName()
	var problems []string
	seen := map[string]bool{}
	err = walkRel(dir, func(p, rel string, d fs.DirEntry) error {
		switch {
		case rel == "." || rel == marker || d.IsDir() && m.dirs[rel]:
			return nil
		case d.IsDir():
			problems = append(problems, rel+"/: a directory benchnote did not write")
			return fs.SkipDir
		case !d.Type().IsRegular():
			problems = append(problems, rel+": not a regular file")
			return nil
		}
		e, ok := m.files[rel]
		if !ok {
			problems = append(problems, rel+": a file benchnote did not write")
			return nil
		}
		seen[rel] = true
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Size() != e.size:
			problems = append(problems, fmt.Sprintf("%s: %d bytes, recorded %d", rel, info.Size(), e.size))
		case full:
			same, err := sameContent(p, e)
			if err != nil {
				return err
			}
			if !same {
				problems = append(problems, rel+": content changed (SHA-256 differs from the recorded one)")
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	for _, name := range m.sortedFiles() {
		if !seen[name] {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, name+": missing")
			}
		}
	}
	sort.Strings(problems)
	return problems, nil
}

// walkRel walks dir as filepath.WalkDir does, giving fn each entry's path
// and its slash path relative to dir ("." for dir); an error walking stops
// the walk and is returned.
func walkRel(dir string, fn func(p, rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return fn(p, filepath.ToSlash(rel), d)
	})
}
