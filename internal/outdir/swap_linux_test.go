package outdir

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestExchangeUsesRenameat2 checks that on Linux the swap is the one
// atomic renameat2(RENAME_EXCHANGE): the previous copy ends up under the
// new directory's name, not under the portable swap's ".old" name.
func TestExchangeUsesRenameat2(t *testing.T) {
	parent := t.TempDir()
	out, next := filepath.Join(parent, "out"), filepath.Join(parent, ".out.benchnote-tmp-1")
	write(t, filepath.Join(out, "old"), "old")
	write(t, filepath.Join(next, "new"), "new")
	oldAt, err := exchange(next, out)
	if err != nil {
		t.Fatal(err)
	}
	if oldAt != next {
		t.Fatalf("previous copy at %s, want %s (the file system could not exchange?)", oldAt, next)
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, map[string]string{".": "dir -rwxr-xr-x", "new": "file -rw-r--r-- new"}) {
		t.Errorf("OUT = %v", got)
	}
	if got := snapshot(t, next); !reflect.DeepEqual(got, map[string]string{".": "dir -rwxr-xr-x", "old": "file -rw-r--r-- old"}) {
		t.Errorf("previous copy = %v", got)
	}
	// A fresh OUT: no replace, so an OUT that appeared meanwhile is kept.
	if err := renameNoReplace(next, out); err == nil {
		t.Error("renameNoReplace replaced an existing OUT")
	}
}
