package analyze

import (
	"reflect"
	"strings"
	"testing"
)

func TestErrorClassOf(t *testing.T) {
	tests := []struct{ text, class, line string }{
		{"Output too few tokens 100", "Output too few tokens <n>", "Output too few tokens 100"},
		{"Output too few tokens 101/128", "Output too few tokens <n>/<n>", "Output too few tokens 101/128"},
		// A traceback keeps its last line: the exception.
		{"Traceback (most recent call last):\n  File \"bench.py\", line 412, in send\n    raise e\naiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\n",
			"aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected",
			"aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected"},
		{"request req-8f3a9c21 timed out after 30.5 s", "request <id> timed out after <n> s", "request req-8f3a9c21 timed out after 30.5 s"},
		{"job 123e4567-e89b-12d3-a456-426614174000 failed at 0x7f3a2b", "job <id> failed at <id>", "job 123e4567-e89b-12d3-a456-426614174000 failed at 0x7f3a2b"},
		{"chatcmpl-abc123xyz cancelled", "<id> cancelled", "chatcmpl-abc123xyz cancelled"},
		// An HTTP status tells failures apart; other numbers do not.
		{"HTTP 503 Service Unavailable", "HTTP 503 Service Unavailable", "HTTP 503 Service Unavailable"},
		{"Error code: 429 - rate limited after 12 tries", "Error code: 429 - rate limited after <n> tries", "Error code: 429 - rate limited after 12 tries"},
		{"error at line 503", "error at line <n>", "error at line 503"},
		// A word of letters, or one with few digits, is not an id.
		{"ClientPayloadError on Llama-3.1-8B", "ClientPayloadError on Llama-<n>-<n>B", "ClientPayloadError on Llama-3.1-8B"},
		{"\n\n  first line  \nsecond", "first line", "first line"},
		{"a\t\tb   c", "a b c", "a\t\tb   c"},
		{" \n ", "(empty error text)", ""},
	}
	for _, tt := range tests {
		class, line := errorClassOf(tt.text)
		if class != tt.class || line != tt.line {
			t.Errorf("errorClassOf(%q) = %q, %q; want %q, %q", tt.text, class, line, tt.class, tt.line)
		}
	}
	long := strings.Repeat("x", 300)
	if class, line := errorClassOf(long); len([]rune(class)) != maxClassRunes || len([]rune(line)) != maxErrorExampleRunes || !strings.HasSuffix(class, "…") {
		t.Errorf("a 300-character error gives a class of %d and an example of %d characters", len([]rune(class)), len([]rune(line)))
	}
}

func TestErrorClassesCountAndKeepExamples(t *testing.T) {
	e := newErrorClasses()
	for _, text := range []string{
		"Output too few tokens 100", "Output too few tokens 101", "Output too few tokens 100",
		"Output too few tokens 102", "Output too few tokens 103", "HTTP 500",
	} {
		e.add(text)
	}
	want := []ErrorClass{
		{Class: "Output too few tokens <n>", Count: 5, Examples: []string{"Output too few tokens 100", "Output too few tokens 101", "Output too few tokens 102"}},
		{Class: "HTTP 500", Count: 1, Examples: []string{"HTTP 500"}},
	}
	if got := e.list(); !reflect.DeepEqual(got, want) {
		t.Errorf("classes %+v\nwant    %+v", got, want)
	}
}
