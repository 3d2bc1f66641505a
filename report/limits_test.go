package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/templates"
)

// known is the list of cells an unknown cell's error ends with.
var known = "(known: alerts, count, environment, exclusions, findings, headline, imports, labels, levels, load, method, notes, plot, pooled, quality, runs, table, title, value)"

// smallLimits are limits small enough for a test to cross each one.
var smallLimits = notebookLimits{
	bytes: 1000, cells: 3, blockCells: 2, markdownBytes: 2000, html: 3000,
	nesting: 4, tableCells: 20, inlineWork: 1000,
}

// TestNotebookLimits: each limit of a user's notebook is an error naming
// the line (and the cell's column) where it is crossed, and the limit.
func TestNotebookLimits(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	fig := Plot{Name: "cdf-ttft", SVG: bytes.Repeat([]byte("x"), 1000)}
	tests := []struct {
		name     string
		notebook string
		tgt      target
		lim      notebookLimits // smallLimits when zero
		want     string
	}{
		{name: "size", notebook: strings.Repeat("a\n", 501),
			want: "nb.md:501: the notebook is larger than 1,000 bytes, the limit for a notebook; it is reached on this line (a notebook is prose and cells: the default one is 5 KB)"},
		{name: "size on the last line", notebook: strings.Repeat("a", 1001),
			want: "nb.md:1: the notebook is larger than 1,000 bytes, the limit for a notebook; it is reached on this line (a notebook is prose and cells: the default one is 5 KB)"},
		{name: "cells", notebook: "{{runs}} {{runs}}\n{{runs}} {{runs}}\n",
			want: "nb.md:2:10: cell 4: a notebook holds at most 3 cells"},
		{name: "cells before them are reported", notebook: "{{nope}} {{runs}} {{runs}} {{runs}}\n",
			want: "nb.md:1:1: unknown cell \"nope\" " + known + "\nnb.md:1:28: cell 4: a notebook holds at most 3 cells"},
		{name: "block cells", notebook: "{{method}}\n\n{{notes}}\n\n{{method}}\n",
			want: "nb.md:5:1: block cell 3: a notebook holds at most 2 block cells ({{table}}, {{plot}}, {{headline}}, ...)"},
		{name: "markdown bytes", notebook: strings.Repeat("word ", 60) + "\n" + strings.Repeat("word ", 60) + "\n",
			lim:  notebookLimits{bytes: 1000, cells: 3, blockCells: 2, markdownBytes: 500, html: 3000},
			want: "nb.md:2: the report passes 500 bytes of Markdown on this line, the limit for a report rendered from a notebook"},
		{name: "markdown bytes in a block cell", notebook: "{{notes}}\n", lim: notebookLimits{bytes: 1000, cells: 3, blockCells: 2, markdownBytes: 100, html: 3000},
			want: "nb.md:1:1: the report passes 100 bytes of Markdown on this line, the limit for a report rendered from a notebook"},
		{name: "markdown bytes in an inline cell", notebook: "a {{title}} b {{title}}\n", lim: notebookLimits{bytes: 1000, cells: 3, blockCells: 2, markdownBytes: 30, html: 3000},
			want: "nb.md:1:15: the report passes 30 bytes of Markdown in this cell, the limit for a report rendered from a notebook"},
		{name: "figures", notebook: "{{plot cdf-ttft}}\n\n{{plot cdf-ttft}}\n\n{{plot cdf-ttft}}\n", tgt: targetHTML,
			lim:  notebookLimits{bytes: 1000, cells: 3, blockCells: 3, markdownBytes: 2000, html: 3000, nesting: 4, tableCells: 20, inlineWork: 1000},
			want: "nb.md:5:1: report.html passes 3,000 bytes on this line (its figures inlined), the limit for a report rendered from a notebook"},
		{name: "an error repeated", notebook: "{{nope}} {{nope}}\n{{nope}}\n",
			want: "nb.md:1:1: unknown cell \"nope\" " + known + " (repeated 2 more times)"},
		{name: "nesting", notebook: "- - - - - x\n", tgt: targetHTML,
			want: "nb.md:1: lists and block quotes nested 5 levels deep (1 line): benchnote renders at most 4 levels, as the time to render a line grows with the square of its depth (a level is a >, a list marker, or 2 columns of indentation before a marker)"},
		{name: "nesting by indentation", notebook: "- a\n  - b\n    - c\n      - d\n        - e\n        - f\n", tgt: targetHTML,
			want: "nb.md:5: lists and block quotes nested 5 levels deep (2 lines): benchnote renders at most 4 levels, as the time to render a line grows with the square of its depth (a level is a >, a list marker, or 2 columns of indentation before a marker)"},
		{name: "nesting in block quotes", notebook: "> > > > > x\n", tgt: targetHTML,
			want: "nb.md:1: lists and block quotes nested 5 levels deep (1 line): benchnote renders at most 4 levels, as the time to render a line grows with the square of its depth (a level is a >, a list marker, or 2 columns of indentation before a marker)"},
		{name: "table cells", notebook: "|a|b|c|\n|-|-|-|\n" + strings.Repeat("x\n", 6), tgt: targetHTML,
			want: "nb.md:7: the notebook's tables pass 20 cells on this line (3 columns; every row is laid out as wide as its table's delimiter row, up to the next blank line), the limit for a notebook"},
		{name: "inline work", notebook: strings.Repeat("[a](", 20) + "\n", tgt: targetHTML,
			want: "nb.md:1: a paragraph of 81 bytes with 40 link, emphasis and code marks ([, ], <, and runs of *, _, ~ and ` not escaped with a backslash): the time to render a paragraph can grow with its bytes × marks, here 3,240, more than the 1,000 a notebook's paragraphs may add up to; split it with blank lines or escape the marks"},
		{name: "inline work added up", notebook: "x\n\n" + strings.Repeat("*a ", 10) + "\n\n" + strings.Repeat("*a ", 9) + "\n\n" + strings.Repeat("*a ", 10) + "\n", tgt: targetHTML,
			want: "nb.md:3: a paragraph of 31 bytes with 10 link, emphasis and code marks ([, ], <, and runs of *, _, ~ and ` not escaped with a backslash): the time to render a paragraph can grow with its bytes × marks, here 310, the most of any paragraph; the notebook's add up to 872, more than 800; split long paragraphs with blank lines or escape the marks",
			lim:  notebookLimits{bytes: 1000, cells: 3, blockCells: 2, markdownBytes: 2000, html: 3000, nesting: 4, tableCells: 20, inlineWork: 800}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := tt.lim
			if lim == (notebookLimits{}) {
				lim = smallLimits
			}
			ctx := &cellContext{s: s, plots: map[string]Plot{"cdf-ttft": fig}, limits: &lim}
			_, err := renderNotebook([]byte(tt.notebook), "nb.md", ctx, tt.tgt)
			var ne *NotebookError
			if !errors.As(err, &ne) {
				t.Fatalf("error %v, want a *NotebookError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestNotebookWithinLimits: what stays within the limits renders, and the
// default notebook is not bounded at all.
func TestNotebookWithinLimits(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	tests := []struct {
		name, notebook string
		lim            *notebookLimits
	}{
		{"escaped marks", strings.Repeat(`\[a\](`, 20) + "\n", &smallLimits},
		{"marks in short paragraphs", strings.Repeat("[a](b) *c*\n\n", 10), &smallLimits},
		{"a table of its header's width", "|a|b|c|\n|-|-|-|\n" + strings.Repeat("|x|y|z|\n", 4), &smallLimits},
		{"nesting at the limit", "> - > - x\n", &smallLimits},
		{"indented code is no nesting", strings.Repeat(" ", 40) + "x\n", &smallLimits},
		{"the default notebook is not bounded", strings.Repeat("- ", 100) + "x\n" + strings.Repeat("{{runs}}", 10), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tgt := range []target{targetMarkdown, targetHTML} {
				if _, err := renderNotebook([]byte(tt.notebook), "nb.md", &cellContext{s: s, limits: tt.lim}, tgt); err != nil {
					t.Errorf("target %d: %v", tgt, err)
				}
			}
		})
	}
}

// TestNotebookErrorsAreCounted: after maxNotebookErrors different errors,
// the rest are counted on one line.
func TestNotebookErrorsAreCounted(t *testing.T) {
	var nb strings.Builder
	for i := range maxNotebookErrors + 2 {
		nb.WriteString("{{nope" + strings.Repeat("x", i) + "}}\n")
	}
	_, err := renderNotebook([]byte(nb.String()), "nb.md", &cellContext{s: analyze.Analyze(hostileSweep())}, targetMarkdown)
	var ne *NotebookError
	if !errors.As(err, &ne) {
		t.Fatalf("error %v, want a *NotebookError", err)
	}
	if len(ne.Problems) != maxNotebookErrors+1 {
		t.Fatalf("%d errors, want %d", len(ne.Problems), maxNotebookErrors+1)
	}
	if got, want := ne.Problems[maxNotebookErrors].Error(), "nb.md: and 2 more errors"; got != want {
		t.Errorf("last error %q, want %q", got, want)
	}
}

// TestDefaultNotebookAsUserNotebook: the default notebook, given as the
// user's, is within every limit and renders the same files.
func TestDefaultNotebookAsUserNotebook(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	def, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	user, err := Build(s, Options{Notebook: templates.Notebook, NotebookName: "notebook.md"})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range def {
		if !bytes.Equal(data, user[name]) {
			t.Errorf("%s differs", name)
		}
	}
}

// TestRenderHTMLLimits: report.html is bounded before goldmark writes it
// (link destinations repeated by references) and as it writes it.
func TestRenderHTMLLimits(t *testing.T) {
	tests := []struct {
		name, md string
		html     int
		want     string
	}{
		{"a reference used too often", "[a]: /" + strings.Repeat("x", 199) + "\n\n" + strings.Repeat("[a] ", 10) + "\n", 1000,
			"nb.md: report.html would repeat 2,000 bytes of link destinations and titles, more than its limit of 1,000 bytes: a reference link with a long destination or title is used too often"},
		{"a title used too often", "[a]: /u \"" + strings.Repeat("x", 200) + "\"\n\n" + strings.Repeat("![a] ", 10) + "\n", 2000,
			"nb.md: report.html would repeat 2,020 bytes of link destinations and titles, more than its limit of 2,000 bytes: a reference link with a long destination or title is used too often"},
		{"the page", strings.Repeat("&amp; ", 100) + "\n", 100,
			"nb.md: report.html is larger than 100 bytes, the limit for a report rendered from a notebook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := notebookLimits{bytes: 1 << 20, html: tt.html}
			_, err := renderHTML([]byte(tt.md), "T", nil, "nb.md", &lim)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n got %v\nwant %s", err, tt.want)
			}
			if _, err := renderHTML([]byte(tt.md), "T", nil, "nb.md", nil); err != nil {
				t.Errorf("without limits: %v", err)
			}
		})
	}
	// The figures inlined count.
	md := "\n" + plotToken + "cdf-ttft\n\n"
	plots := map[string]Plot{"cdf-ttft": {Name: "cdf-ttft", SVG: bytes.Repeat([]byte("x"), 5000)}}
	lim := notebookLimits{bytes: 1 << 20, html: 4000}
	if _, err := renderHTML([]byte(md), "T", plots, "nb.md", &lim); err == nil || err.Error() != "nb.md: report.html is larger than 4,000 bytes, the limit for a report rendered from a notebook" {
		t.Errorf("a figure over the limit: %v", err)
	}
}

// TestReadNotebook: a notebook is read up to MaxNotebookBytes whatever the
// file, and a longer one is refused naming the line the limit is reached on.
func TestReadNotebook(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tooLarge := func(name string, line int) string {
		return name + ":" + strconv.Itoa(line) + ": the notebook is larger than 256 KiB (262,144 bytes), the limit for a notebook; it is reached on this line (a notebook is prose and cells: the default one is 5 KB)"
	}
	atLimit := bytes.Repeat([]byte("abc\n"), MaxNotebookBytes/4)
	tests := []struct {
		name, path string
		want       []byte // the notebook, when it is read
		wantErr    string
	}{
		{"small", write("small.md", []byte("# a\n")), []byte("# a\n"), ""},
		{"at the limit", write("at.md", atLimit), atLimit, ""},
		{"one byte over", write("over.md", append(atLimit, 'x')), nil, tooLarge(filepath.Join(dir, "over.md"), MaxNotebookBytes/4+1)},
		{"one long line", write("line.md", bytes.Repeat([]byte("x"), 1<<20)), nil, tooLarge(filepath.Join(dir, "line.md"), 1)},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		tests = append(tests, struct {
			name, path string
			want       []byte
			wantErr    string
		}{"a device", "/dev/zero", nil, tooLarge("/dev/zero", 1)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadNotebook(tt.path)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("read %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
	if _, err := ReadNotebook(filepath.Join(dir, "absent.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an absent file: %v", err)
	}
}
