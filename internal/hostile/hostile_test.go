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
