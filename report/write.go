package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WriteDir writes files into dir atomically: everything is written into a
// fresh sibling directory first, and only when all of it is on disk does
// that directory replace dir. A failure leaves the previous dir intact.
func WriteDir(dir string, files map[string][]byte) error {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.Contains(name, "..") || filepath.IsAbs(name) {
			return fmt.Errorf("refusing to write %q outside the output directory", name)
		}
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
