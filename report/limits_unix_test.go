//go:build unix

package report

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadNotebookFIFO: a FIFO whose writer never stops is read up to the
// limit and refused.
func TestReadNotebookFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "nb.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		defer w.Close()
		chunk := bytes.Repeat([]byte("endless\n"), 8<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				done <- nil // the reader stopped reading
				return
			}
		}
	}()
	_, err := ReadNotebook(fifo)
	want := fifo + ":32769: the notebook is larger than 256 KiB (262,144 bytes), the limit for a notebook; it is reached on this line (a notebook is prose and cells: the default one is 5 KB)"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
