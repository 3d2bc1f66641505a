package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteSingleFile writes a new file, replaces one Ours accepts, and
// refuses, changing nothing, everything else; it leaves no lock or
// temporary file behind.
func TestWriteSingleFile(t *testing.T) {
	dir := t.TempDir()
	ours := func(b []byte) bool { return strings.HasPrefix(string(b), "ours") }
	opts := FileOptions{Ours: ours, What: "the file"}
	out := filepath.Join(dir, "r.yaml")
	for _, content := range []string{"ours 1", "ours 2"} {
		if err := WriteSingleFile(out, []byte(content), opts); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(out); string(got) != content {
			t.Fatalf("got %q, want %q", got, content)
		}
	}
	if err := os.WriteFile(out, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "in")
	if err := os.Mkdir(input, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out    string
		inputs []string
		want   string
	}{
		{out, nil, "it exists and is not a file benchnote wrote, or was changed since"},
		{link, nil, "it is a symbolic link"},
		{input, nil, "it is a directory"},
		{filepath.Join(input, "r.yaml"), []string{input}, "it lies inside the input"},
	} {
		o := opts
		o.Inputs = tc.inputs
		err := WriteSingleFile(tc.out, []byte("ours 3"), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), "nothing was changed") {
			t.Errorf("%s: %v, want %q", tc.out, err, tc.want)
		}
	}
	if got, _ := os.ReadFile(out); string(got) != "theirs" {
		t.Errorf("a refused write changed the file: %q", got)
	}
	// Without Ours no existing file is replaced.
	if err := WriteSingleFile(out, []byte("ours"), FileOptions{What: "the file"}); err == nil {
		t.Error("replaced a file with no Ours given")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}
