package archive

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchnote/benchnote/internal/outdir"
)

// BenchmarkCopyInput measures how archive add copies an input file (read,
// SHA-256, write, fsync) against the disk's own speed: a plain io.Copy of
// the same file followed by fsync. Both copy the same 256 MiB file (the
// source stays in the page cache after the first read, so the write side
// is what is measured). Run it three times to interleave the two:
//
//	for i in 1 2 3; do go test ./archive -run '^$' -bench CopyInput -benchtime 4x; done
func BenchmarkCopyInput(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	const size = 256 << 20
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 1<<20)
	for written := 0; written < size; written += len(buf) {
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	n := 0
	dst := func() string {
		n++
		return filepath.Join(dir, fmt.Sprintf("dst-%d", n))
	}
	b.Run("copyInput", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			stage, err := outdir.BeginNew(dir, "entry", outdir.Options{Kind: outdir.Entry, InArchive: true})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := copyInput(src, stage, "inputs/requests.csv"); err != nil {
				b.Fatal(err)
			}
			stage.Abort()
		}
	})
	b.Run("io.Copy+fsync", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			d := dst()
			in, err := os.Open(src)
			if err != nil {
				b.Fatal(err)
			}
			out, err := os.Create(d)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(out, in); err != nil {
				b.Fatal(err)
			}
			if err := out.Sync(); err != nil {
				b.Fatal(err)
			}
			in.Close()
			out.Close()
			os.Remove(d)
		}
	})
}
