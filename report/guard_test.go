package report

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

func TestContainerPrefix(t *testing.T) {
	tests := []struct {
		line       string
		depth      int
		quotesOnly bool
		content    string
		newItem    bool
	}{
		{"x", 0, false, "x", false},
		{"- x", 1, false, "x", true},
		{"  - x", 2, false, "x", true},
		{"    - x", 3, false, "x", false}, // indented code, or a list item of a list item
		{"\t- x", 3, false, "x", false},
		{"- - - x", 3, false, "x", true},
		{"* * *", 3, false, "", false}, // a thematic break
		{"-", 1, false, "", false},
		{"-x", 0, false, "-x", false},
		{"1. x", 1, false, "x", true},
		{"1) x", 1, false, "x", true},
		{"2. x", 1, false, "x", false}, // does not interrupt a paragraph
		{"123456789. x", 1, false, "x", false},
		{"1234567890. x", 0, false, "1234567890. x", false},
		{"> > x", 2, false, "x", false},
		{">", 1, true, "", false},
		{"> >  ", 2, true, "", false},
		{"> - x", 2, false, "x", true},
		{">    - x", 3, false, "x", true},
		{"> - > - x", 4, false, "x", true},
		{"  > x", 2, false, "x", false},
		{strings.Repeat("- ", 3000) + "x", 3000, false, "x", true},
		{strings.Repeat("  ", 40) + "x", 0, false, "x", false},
	}
	for _, tt := range tests {
		depth, quotesOnly, content, newItem := containerPrefix(tt.line)
		if depth != tt.depth || quotesOnly != tt.quotesOnly || content != tt.content || newItem != tt.newItem {
			t.Errorf("containerPrefix(%.20q) = %d, %v, %q, %v; want %d, %v, %q, %v",
				tt.line, depth, quotesOnly, content, newItem, tt.depth, tt.quotesOnly, tt.content, tt.newItem)
		}
	}
}

func TestInlineMarks(t *testing.T) {
	tests := []struct {
		line string
		want int64
	}{
		{"plain text, (parentheses) and a | pipe", 0},
		{"[a](b)", 2},
		{"![a](b)", 2},
		{"**a**", 2},
		{"*a_b~c`d", 4},
		{"``code``", 2},
		{"a < b", 1},
		{`\*a\_ \[b\] \<`, 0},
		{`\\*`, 1},   // an escaped backslash escapes nothing after it
		{`*\**`, 2},  // two runs around an escaped *
		{`\a*`, 1},   // a letter is not escaped
		{`[b] \`, 2}, // a backslash ending the line escapes nothing
		{`[a](` + strings.Repeat("[a](", 9), 20},
	}
	for _, tt := range tests {
		if got := inlineMarks(tt.line); got != tt.want {
			t.Errorf("inlineMarks(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
}

// TestTablesAgreeWithGoldmark is a differential test of delimiterRow and
// headerCells against goldmark's table extension: when a header and a
// delimiter row both start with |, the guard decides that goldmark makes
// a table exactly when goldmark does (it then counts the rows one by one);
// otherwise every table goldmark makes has a delimiter row the guard sees
// (so it counts its cells).
func TestTablesAgreeWithGoldmark(t *testing.T) {
	headers := []string{"|a|", "|a|b|", "| a | b |", "a|b", "a", "|a\\|b|", "|`a|b`|", " |a|b| ", "|a||b|", "||", "|", "|a|b|c|", "   |a|b|", "a | b |"}
	delims := []string{"|-|", "-", "|-|-|", "-|-", "|:-|-:|", "| :-: | --- |", "|-|-|-|", "---", "|---", "  |-|-|", "    |-|-|", "\t|-|-|",
		"|-|x|", "|- -|", ":-:", "|::|", "|-:-|", "| - | - |", "|-|-", "-|-|", "|--|--|  ", "|-|\\|-|", "| -- |"}
	for _, h := range headers {
		for _, d := range delims {
			md := []byte(h + "\n" + d + "\n")
			doc := markdown.Parser().Parse(text.NewReader(md))
			table := false
			_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if _, ok := n.(*east.Table); ok {
					table = true
				}
				return ast.WalkContinue, nil
			})
			al := delimiterRow(d)
			if startsWithPipe(h) && startsWithPipe(d) {
				if guess := al != nil && headerCells(h) <= len(al); guess != table {
					t.Errorf("%q over %q: the guard says table %v, goldmark %v", h, d, guess, table)
				}
			} else if table && al == nil {
				_, _, content, _ := containerPrefix(d)
				if delimiterRow(content) == nil {
					t.Errorf("%q over %q: goldmark makes a table the guard does not see", h, d)
				}
			}
		}
	}
}
