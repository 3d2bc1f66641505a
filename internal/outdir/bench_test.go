package outdir

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkReplace replaces a report the size of the example's (16 files,
// about 600 KB: report.html 250 KB, 12 plots of 15 KB, ...) in place, as a
// re-run does: lock, write and flush every file, exchange, remove the
// previous copy file by file, verifying its SHA-256 sums first.
//
//	go test ./internal/outdir -run '^$' -bench Replace -benchtime 50x
func BenchmarkReplace(b *testing.B) {
	files := map[string][]byte{
		"report.html":  bytes.Repeat([]byte("h"), 250_000),
		"report.md":    bytes.Repeat([]byte("m"), 60_000),
		"summary.json": bytes.Repeat([]byte("j"), 120_000),
	}
	for i := range 12 {
		files[fmt.Sprintf("plots/p%02d.svg", i)] = bytes.Repeat([]byte("s"), 15_000)
	}
	out := filepath.Join(b.TempDir(), "out")
	if err := Replace(out, files, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := Replace(out, files, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
