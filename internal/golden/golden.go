// Package golden compares test output with golden files under testdata and
// rewrites them on request (go test -update), for the packages that pin
// whole outputs: the report's charts and the command line's reports.
package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check compares got with the file at path; with update it writes got
// there instead. A difference names the first differing line and shows it.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: output differs from the golden file (got %d bytes, want %d); rerun with -update if the change is intended\n%s",
			path, len(got), len(want), FirstDiff(got, want))
	}
}

// FirstDiff describes the first line where got and want differ, or "".
func FirstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %.300s\nwant: %.300s", i+1, gl, wl)
		}
	}
	return ""
}
