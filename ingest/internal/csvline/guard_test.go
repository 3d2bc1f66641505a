package csvline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readGuarded reads data through a Guard, whole and a byte at a time,
// and fails unless both give the same error and, without one, the same
// bytes (with one, how much of the last read passes depends on its size);
// it returns the whole read's.
func readGuarded(t *testing.T, data string, max, firstLine int) ([]byte, error) {
	t.Helper()
	got, err := io.ReadAll(NewGuard(strings.NewReader(data), max, firstLine))
	slow, slowErr := io.ReadAll(NewGuard(iotest.OneByteReader(strings.NewReader(data)), max, firstLine))
	if !bytes.Equal(got, slow) && err == nil || fmt.Sprint(err) != fmt.Sprint(slowErr) {
		t.Fatalf("%q: whole %q, %v; a byte at a time %q, %v", data, got, err, slow, slowErr)
	}
	if !strings.HasPrefix(data, string(got)) {
		t.Fatalf("%q: passed %q, not a prefix", data, got)
	}
	return got, err
}

// TestGuard checks what the guard lets through unchanged and what it
// stops, with the line and field it names.
func TestGuard(t *testing.T) {
	const open = "a quoted field opened on line %d is never closed (it runs to the end of the file, line %d); expected a closing '\"' before the end of the record"
	tooLarge := "record longer than 10 bytes (the limit for one CSV record); expected rows of a few hundred bytes: is a quote unbalanced, or is this not a requests file?"
	tests := []struct {
		name      string
		data      string
		firstLine int
		want      *GuardError
	}{
		{"plain", "a,b\nc,d\n", 1, nil},
		{"quoted newline", "a,\"b\nc\",d\ne\n", 1, nil},
		{"escaped quote", "a,\"b\"\"c\"\n", 1, nil},
		{"crlf after a quote", "a,\"b\"\r\nc\n", 1, nil},
		{"stray quote in a field", "a,b\"c\nd\n", 1, nil},
		{"the longest record", "0123456789\nx\n", 1, nil},
		{"too large", "a\n0123456789x\nb\n", 1, &GuardError{Line: 2, Reason: "too large", Msg: tooLarge}},
		{"too large, later in the file", "a\n0123456789x\n", 7, &GuardError{Line: 8, Reason: "too large", Msg: tooLarge}},
		{"too large in quotes", "\"a\n\n\n\n\n\n\n\n\n\n\"\n", 1, &GuardError{Line: 1, Reason: "too large", Msg: tooLarge}},
		{"unterminated quote", "a,b\nc,\"d\ne\n", 1, &GuardError{Line: 2, Field: 2, Reason: "unterminated quote", Msg: fmt.Sprintf(open, 2, 3)}},
		{"unterminated, no final newline", "a,b\nc,\"d\ne", 1, &GuardError{Line: 2, Field: 2, Reason: "unterminated quote", Msg: fmt.Sprintf(open, 2, 3)}},
		{"unterminated after a bom", "\ufeff\"a\n", 1, &GuardError{Line: 1, Field: 1, Reason: "unterminated quote", Msg: fmt.Sprintf(open, 1, 1)}},
		{"closed at the very end", "a,\"b\nc\"", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readGuarded(t, tt.data, 10, tt.firstLine)
			var ge *GuardError
			switch {
			case tt.want == nil && (err != nil || string(got) != tt.data):
				t.Errorf("passed %q, %v; want all of it", got, err)
			case tt.want != nil && (!errors.As(err, &ge) || *ge != *tt.want):
				t.Errorf("error %#v, want %#v", err, tt.want)
			}
		})
	}
}

// FuzzGuard: the guard passes a prefix of its input through unchanged,
// all of it when it finds nothing wrong, whatever the reads' sizes.
func FuzzGuard(f *testing.F) {
	f.Add("a,\"b\nc\",d\ne\n")
	f.Add("\ufeff\"a\"\"\r\n\"")
	f.Fuzz(func(t *testing.T, data string) {
		got, err := readGuarded(t, data, 16, 1)
		if err == nil && string(got) != data {
			t.Fatalf("%q: passed %q", data, got)
		}
	})
}
