package controls

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"c8/run-1", "c8/run-1"},
		{"plain ⚠ 2 runs ± µs → 日本", "plain ⚠ 2 runs ± µs → 日本"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"nul\x00byte", `nul\x00byte`},
		{"tab\tnew\nline\rcr", `tab\tnew\nline\rcr`},
		{"bell\a del\x7f", `bell\a del\x7f`},
		{"c1 \u009b csi", `c1 \u009b csi`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"sep \u2028 \u2029", `sep \u2028 \u2029`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"truncated \xe2\x9a", `truncated \xe2\x9a`},
		{"real replacement char \uFFFD stays", "real replacement char \uFFFD stays"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEscape checks that the result never holds a character Escape is
// meant to remove and is valid UTF-8.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a\x1bb", "\xff", "\u202e", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got string
		fuzzbudget.Check(t, "Escape", len(s), func() { got = Escape(s) })
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q is not valid UTF-8", s, got)
		}
		for i, r := range got {
			if Is(r) {
				t.Fatalf("Escape(%q) = %q keeps %q at %d", s, got, r, i)
			}
		}
	})
}

func TestWriter(t *testing.T) {
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"plain\ttext\n", "ok ⚠\n"}, "plain\ttext\nok ⚠\n"},
		{[]string{"dir \x1b]0;pwned\a\tFAILED\n"}, "dir \\x1b]0;pwned\\a\tFAILED\n"},
		{[]string{"nul\x00 cr\r bidi\u202e\n"}, "nul\\x00 cr\\r bidi\\u202e\n"},
		{[]string{"bad \xff\n"}, "bad \\xff\n"},
		{[]string{"no newline at the end\x1b"}, "no newline at the end\\x1b"},
	}
	for _, tt := range tests {
		var b strings.Builder
		w := NewWriter(&b)
		for _, s := range tt.writes {
			n, err := w.Write([]byte(s))
			if n != len(s) || err != nil {
				t.Errorf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
			}
		}
		if b.String() != tt.want {
			t.Errorf("wrote %q, want %q", b.String(), tt.want)
		}
		if w.Unwrap() != &b {
			t.Error("Unwrap does not return the underlying writer")
		}
	}
}
