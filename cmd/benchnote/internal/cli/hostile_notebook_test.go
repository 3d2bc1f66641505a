//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHostileNotebooks: the notebooks of the issue 20 audit, each once
// gigabytes or minutes, are refused within the bounds of runBounded with
// an error naming the notebook line and the limit, and write nothing.
func TestHostileNotebooks(t *testing.T) {
	const known = "(known: alerts, count, environment, exclusions, findings, headline, imports, labels, levels, load, method, notes, plot, pooled, quality, runs, table, title, value)"
	tooLarge := func(name string, line int) string {
		return name + ":" + strconv.Itoa(line) + ": the notebook is larger than 256 KiB (262,144 bytes), the limit for a notebook; it is reached on this line (a notebook is prose and cells: the default one is 5 KB)"
	}
	var indented strings.Builder
	for i := range 360 {
		indented.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	tests := []struct {
		name     string
		notebook string // "" reads /dev/zero
		want     []string
	}{
		{"/dev/zero", "", []string{tooLarge("/dev/zero", 1)}},
		{"20,000 table cells", strings.Repeat("{{table runs}}\n\n", 20_000), []string{tooLarge("nb.md", 32769)}},
		{"10,000 table cells", strings.Repeat("{{table runs}}\n", 10_000),
			[]string{"nb.md:501:1: block cell 501: a notebook holds at most 500 block cells ({{table}}, {{plot}}, {{headline}}, ...)"}},
		{"50,000 unknown cells on one line", strings.Repeat("{{x}}", 50_000) + "\n", []string{
			`nb.md:1:1: unknown cell "x" ` + known + " (repeated 9,999 more times)",
			"nb.md:1:50001: cell 10,001: a notebook holds at most 10,000 cells"}},
		{"1.8 MB of unknown cells on one line", strings.Repeat("{{nosuch}} ", 165_000) + "\n", []string{tooLarge("nb.md", 1)}},
		{"a run of [a](", strings.Repeat("[a](", 50_000) + "\n", []string{
			"nb.md:1: a paragraph of 200,001 bytes with 100,000 link, emphasis and code marks ([, ], <, and runs of *, _, ~ and ` not escaped with a backslash): the time to render a paragraph can grow with its bytes × marks, here 20,000,100,000, more than the 268,435,456 a notebook's paragraphs may add up to; split it with blank lines or escape the marks"}},
		{"a list nested 3,000 deep", strings.Repeat("- ", 3000) + "x\n", []string{
			"nb.md:1: lists and block quotes nested 3,000 levels deep (1 line): benchnote renders at most 32 levels, as the time to render a line grows with the square of its depth (a level is a >, a list marker, or 2 columns of indentation before a marker)"}},
		{"a list indented 360 deep", indented.String(), []string{
			"nb.md:33: lists and block quotes nested 33 levels deep (328 lines): benchnote renders at most 32 levels, as the time to render a line grows with the square of its depth (a level is a >, a list marker, or 2 columns of indentation before a marker)"}},
		// Found while fixing the above: a narrow table under a wide
		// delimiter row, and a long link destination used by reference.
		{"a table 2,000 columns wide", "|a|\n|" + strings.Repeat("-|", 2000) + "\n" + strings.Repeat("x\n", 2000), []string{
			"nb.md:66: the notebook's tables pass 131,072 cells on this line (2,000 columns; every row is laid out as wide as its table's delimiter row, up to the next blank line), the limit for a notebook"}},
		{"a long link used by reference", "[a]: /" + strings.Repeat("x", 130_000) + "\n\n" + strings.Repeat("[a]\n\n", 26_000), []string{
			"nb.md: report.html would repeat 3,380,026,000 bytes of link destinations and titles, more than its limit of 64 MiB (67,108,864 bytes): a reference link with a long destination or title is used too often"}},
		{"a line over 16 MiB", strings.Repeat("x", 17<<20) + "\n", []string{tooLarge("nb.md", 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tinySweep(t, dir, nil)
			nb := "/dev/zero"
			if tt.notebook != "" {
				nb = "nb.md"
				if err := os.WriteFile(filepath.Join(dir, nb), []byte(tt.notebook), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b := runBounded(t, dir, nil, "report", "sweep", "-o", "out", "--notebook", nb)
			t.Logf("%v, peak RSS %d MB", b.wall.Round(time.Millisecond), b.peakRSS>>20)
			if b.code != ExitErrors {
				t.Errorf("exit %d, want %d", b.code, ExitErrors)
			}
			want := "benchnote report: " + strings.Join(tt.want, "\n") + "\n"
			if b.stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", b.stderr, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
				t.Errorf("out was written: %v", err)
			}
		})
	}
}
