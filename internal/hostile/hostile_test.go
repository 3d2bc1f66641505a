package hostile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/parquet/file"
)

var regenerate = flag.Bool("regenerate", false, "write testdata/bomb.parquet again")

// TestBombIsCurrent checks the kept compression bomb: its footer declares
// BombRows rows in under 3 KB. With -regenerate it writes the file again
// and checks that the writer reproduces it byte for byte.
func TestBombIsCurrent(t *testing.T) {
	if *regenerate {
		data := ParquetBomb(BombRows)
		if err := os.WriteFile(filepath.Join("testdata", "bomb.parquet"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if again := ParquetBomb(BombRows); !bytes.Equal(again, data) {
			t.Error("ParquetBomb is not deterministic")
		}
		return
	}
	data := Bomb()
	r, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r.NumRows() != BombRows || len(data) >= 3000 {
		t.Errorf("bomb: %d rows in %d bytes, want %d in under 3,000", r.NumRows(), len(data), BombRows)
	}
}

var writeSweeps = flag.String("write-sweeps", "", "write the hostile sweeps under this directory (for scripts/hostile-rss.sh)")

func TestWriteSweeps(t *testing.T) {
	dir := *writeSweeps
	if dir == "" {
		dir = t.TempDir()
	}
	if err := WriteSweeps(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range Sweeps {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "csv-1GB-line", "c1", "r1", "requests.csv"))
	if err != nil || fi.Size() < 1<<30 {
		t.Errorf("the 1 GiB line: %v, %v", fi, err)
	}
}
