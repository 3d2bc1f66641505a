package csvline

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, line := range []string{"", ",", ",,", "a", "a,b", "abcdefgh,", ",abcdefgh", "abcdefg,hijklmn,opq", "req-1-0,1405,211,53.656,3182.169,1790000000.000459,1790000000.054115,1790000003.182628,ok,512,211",
		",-1,-,--,,,,,,,,,,,,,,,,x", "\x00,\xff\xfe,\x2c\x2c\x2d"} {
		got := Split(nil, []byte(line))
		if want := strings.Split(line, ","); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestSplittable checks the two things that send a line to encoding/csv:
// a quote anywhere, and a length that, with the line end, passes
// MaxRecordBytes.
func TestSplittable(t *testing.T) {
	for _, tt := range []struct {
		name string
		line string
		want bool
	}{
		{"empty", "", true},
		{"plain", "a,1,2.5,ok", true},
		{"carriage return", "a,1\r", true},
		{"quoted field", `"a",1`, false},
		{"stray quote", `a,o"k`, false},
		{"quote last", `a,1"`, false},
		{"the longest", strings.Repeat("x", MaxRecordBytes-1), true},
		{"a byte too long", strings.Repeat("x", MaxRecordBytes), false},
	} {
		if got := Splittable([]byte(tt.line)); got != tt.want {
			t.Errorf("%s: Splittable = %v, want %v", tt.name, got, tt.want)
		}
	}
}
