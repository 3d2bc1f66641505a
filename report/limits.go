package report

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// A notebook given with --notebook (Options.Notebook) is input: what it
// costs to render is bounded by these limits, each refused with an error
// naming the notebook line where it is crossed. The embedded default
// notebook is benchnote's own and is not bounded: its report grows with
// the sweep. README.md (Notebooks) says why each limit is what it is.
const (
	// MaxNotebookBytes is the largest notebook benchnote reads: 256 KiB,
	// 50 times the default notebook, some 40,000 words of prose. The
	// Markdown renderer needs up to about 400 bytes of memory and 4 µs for
	// a byte of dense Markdown (a heading or list item a line): 256 KiB of
	// it take 1.3 s and 110 MB in all. A longer notebook is refused before
	// it is read further; so is a longer line, since no line is longer
	// than its file.
	MaxNotebookBytes = 256 << 10
	// MaxNotebookCells is the most cells a notebook holds, and
	// MaxNotebookBlockCells the most block cells among them ({{table}},
	// {{plot}}, {{headline}}, ...: each as large as the sweep).
	MaxNotebookCells      = 10_000
	MaxNotebookBlockCells = 500
	// MaxNotebookMarkdownBytes bounds report.md and MaxNotebookHTMLBytes
	// report.html, its figures inlined, as rendered from a notebook.
	MaxNotebookMarkdownBytes = 16 << 20
	MaxNotebookHTMLBytes     = 64 << 20
	// MaxNotebookNesting is the deepest nesting of lists and block quotes
	// in a notebook: the Markdown renderer's time on a line grows with
	// the square of its depth.
	MaxNotebookNesting = 32
	// MaxNotebookTableCells bounds the cells of the tables written in a
	// notebook, counted as the renderer lays them out: every row as wide
	// as its table's delimiter row (|---|---|).
	MaxNotebookTableCells = 1 << 17
	// MaxNotebookInlineWork bounds, summed over a notebook's paragraphs,
	// the product of a paragraph's bytes and its link, emphasis and code
	// marks ([, ], <, and runs of *, _, ~ and `): the Markdown renderer's
	// time on a paragraph grows with that product in the worst case.
	MaxNotebookInlineWork = 1 << 28
)

// notebookLimits are the limits a rendering checks; the zero value checks
// none (the default notebook).
type notebookLimits struct {
	bytes               int
	cells, blockCells   int
	markdownBytes, html int
	nesting, tableCells int
	inlineWork          int64
}

// bounded reports whether the limits check anything.
func (l *notebookLimits) bounded() bool { return l != nil && l.bytes > 0 }

// defaultNotebookLimits are the limits of a notebook given by the user.
var defaultNotebookLimits = notebookLimits{
	bytes: MaxNotebookBytes, cells: MaxNotebookCells, blockCells: MaxNotebookBlockCells,
	markdownBytes: MaxNotebookMarkdownBytes, html: MaxNotebookHTMLBytes,
	nesting: MaxNotebookNesting, tableCells: MaxNotebookTableCells, inlineWork: MaxNotebookInlineWork,
}

// ReadNotebook reads the notebook file name, of at most MaxNotebookBytes.
// It reads at most one byte more than that, whatever the file is (a
// regular file, a pipe, a device such as /dev/zero) and whatever size its
// metadata claims, and refuses a longer one with an error naming the file,
// the line where the limit is reached and the limit.
func ReadNotebook(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxNotebookBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkNotebookSize(buf.Bytes(), name, MaxNotebookBytes); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkNotebookSize refuses a notebook longer than limit bytes, naming the
// line on which the limit is reached.
func checkNotebookSize(nb []byte, name string, limit int) error {
	if len(nb) <= limit {
		return nil
	}
	line := bytes.Count(nb[:limit], []byte("\n")) + 1
	return &NotebookError{[]error{fmt.Errorf("%s:%d: the notebook is larger than %s, the limit for a notebook; it is reached on this line (a notebook is prose and cells: the default one is 5 KB)",
		name, line, fmtBytes(limit))}}
}

// fmtBytes writes a limit in bytes as its binary unit and its exact count:
// "1 MiB (1,048,576 bytes)".
func fmtBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%s bytes)", n>>20, textfmt.Thousands(n))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%s bytes)", n>>10, textfmt.Thousands(n))
	}
	return textfmt.Thousands(n) + " bytes"
}
