package importer

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// GuideLLM's benchmarks.yaml imports to the same sweep as its JSON twin:
// every file Layout writes is byte-identical but for the source file's
// name (requests.parquet, run.yaml, env.json alike).
func TestYAMLGuideLLMSameAsJSON(t *testing.T) {
	const base = "testdata/real/guidellm-v0.3dev-benchmarks_stripped"
	fromJSON := layoutOf(t, base+".json")
	fromYAML := layoutOf(t, base+".yaml")
	var names []string
	for name := range fromJSON {
		names = append(names, name)
	}
	slices.Sort(names)
	var yamlNames []string
	for name := range fromYAML {
		yamlNames = append(yamlNames, name)
	}
	slices.Sort(yamlNames)
	if !slices.Equal(names, yamlNames) {
		t.Fatalf("files written from YAML %v, from JSON %v", yamlNames, names)
	}
	runFiles := 0
	for _, name := range names {
		if name == "benchnote-import.yaml" {
			// Names the file read and its format note ("read as YAML").
			if !bytes.Contains(fromYAML[name], []byte("read as YAML")) {
				t.Errorf("benchnote-import.yaml does not say the file was read as YAML:\n%s", fromYAML[name])
			}
			continue
		}
		got := bytes.ReplaceAll(fromYAML[name], []byte("benchmarks_stripped.yaml"), []byte("benchmarks_stripped.json"))
		if !bytes.Equal(got, fromJSON[name]) {
			t.Errorf("%s differs between the YAML and JSON imports:\nYAML: %.400s\nJSON: %.400s", name, got, fromJSON[name])
		}
		if strings.HasSuffix(name, "requests.parquet") {
			runFiles++
		}
	}
	if runFiles != 1 {
		t.Errorf("%d runs with requests.parquet, want 1 (the file's one benchmark)", runFiles)
	}
}

// yamlConvert converts text, failing the test on error.
func yamlConvert(t *testing.T, text string) string {
	t.Helper()
	doc, err := yamlToJSON([]byte(text), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(doc.json)
}

func TestYAMLToJSON(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"scalars by tag", "a: 1\nb: 1.50\nc: true\nd: ~\ne: x\nf: '12'\ng: 2025-11-05T18:01:00Z\n",
			`{"a":1,"b":1.50,"c":true,"d":null,"e":"x","f":"12","g":"2025-11-05T18:01:00Z"}`},
		{"YAML numbers JSON does not write", "a: .inf\nb: -.Inf\nc: .nan\nd: 0x1F\ne: +5\nf: 1e3\n",
			`{"a":Infinity,"b":-Infinity,"c":NaN,"d":31,"e":5,"f":1e3}`},
		{"nesting and sequences", "a:\n  - {x: 1}\n  - [2, 3]\nb: {}\n", `{"a":[{"x":1},[2,3]],"b":{}}`},
		{"alias expanded", "a: &x {k: v}\nb: *x\n", `{"a":{"k":"v"},"b":{"k":"v"}}`},
		{"quoting", "\"a b\": \"q\\\"\\n\"\n", `{"a b":"q\"\n"}`},
		{"document start and comments", "# c\n---\nversion: '0.2' # v\n", `{"version":"0.2"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := yamlConvert(t, tc.in); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestYAMLErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"syntax", "a: 1\nb: c: d\n", "f.yaml: line 2: not valid YAML: mapping values are not allowed in this context"},
		{"not a mapping", "- 1\n- 2\n", "f.yaml: line 1: a YAML sequence, not a mapping: benchnote reads YAML result files whose top value is a mapping"},
		{"two documents", "a: 1\n---\nb: 2\n", "f.yaml: line 2: a second YAML document (after ---): the file must hold one"},
		{"merge key", "a: &x {k: 1}\nb:\n  <<: *x\n", "f.yaml: line 3: a YAML merge key (<<): not supported; write the members out"},
		{"key not scalar", "? [1]\n: 2\n", "f.yaml: line 1: a YAML mapping key that is a sequence: benchnote reads keys that are scalars"},
		{"alias to itself", "a: &x [1, *x]\n", "f.yaml: line 1: YAML aliases expand to more than twice the values the file holds; refusing to expand them (an alias bomb?)"},
		{"empty", "# nothing\n", "f.yaml: an empty YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := yamlToJSON([]byte(tc.in), "f.yaml")
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// An error at a JSON path in a file read as YAML names the YAML line of
// the value.
func TestYAMLErrorLine(t *testing.T) {
	text := "benchmarks:\n- type_: generative_benchmark\n  args:\n    strategy:\n      type_: concurrent\n      streams: 2000000\n  requests:\n    successful: []\n"
	_, err := importIn(t, [][2]string{{"benchmarks.yaml", text}}, Options{})
	want := "benchmarks.yaml: line 6: $.benchmarks[0].args.strategy.streams: 2000000 is above 1,000,000"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestYAMLLine(t *testing.T) {
	doc, err := yamlToJSON([]byte("a:\n  b:\n    - x: 1\n    - x: 2\n      \"y z\": [5]\n"), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"$": 1, "$.a": 2, "$.a.b": 3, "$.a.b[0]": 3, "$.a.b[1].x": 4, `$.a.b[1]["y z"]`: 5, `$.a.b[1]["y z"][0]`: 5,
		"$.a.missing": 2, "$.a.b[7]": 3,
	} {
		if got := yamlLine(doc.root, path); got != want {
			t.Errorf("yamlLine(%s) = %d, want %d", path, got, want)
		}
	}
}

func TestLooksLikeYAML(t *testing.T) {
	for in, want := range map[string]bool{
		"---\nbenchmarks:\n": true, "# c\nversion: '0.2'\n": true, "%YAML 1.2\n---\n": true, "key:\n  x: 1\n": true,
		"\"quoted key\": 1\n": true, "time,ttft\n1,2\n": false, "hello world\n": false, "": false,
		"http://x: y": false,
	} {
		if got := looksLikeYAML([]byte(in)); got != want {
			t.Errorf("looksLikeYAML(%q) = %v, want %v", in, got, want)
		}
	}
}

// In a directory, a .yaml file that cannot be read is listed as skipped
// with why; a log whose first line happens to read "key:" is not listed,
// as no file that is not JSON is.
func TestYAMLInDirectory(t *testing.T) {
	imp, err := importIn(t, [][2]string{{".", ""},
		{"d/benchmarks.json", `{"args": {}, "benchmarks": [{"config": {"strategy": {"type_": "synchronous"}}, "requests": {"successful": []}}]}`},
		{"d/broken.yaml", "benchmarks:\n- {a: 1\n"},
		{"d/run.log", "INFO: starting\nINFO: a: b\n"},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, s := range imp.Skipped {
		skipped = append(skipped, filepath.Base(s.Path)+": "+s.Note)
	}
	want := []string{"broken.yaml: line 2: not valid YAML: did not find expected ',' or '}'"}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %q\nwant %q", skipped, want)
	}
}

// FuzzYAMLToJSON: any bytes give an error or JSON that reads back whole
// (Python's NaN and Infinity, which YAML's .nan and .inf become, read as
// the importers read them), within the time budget.
func FuzzYAMLToJSON(f *testing.F) {
	for _, seed := range []string{
		"a: 1\nb: [1, 2.5, .inf, -.nan, 0x1f, 1e400, ~, true, 2025-11-05T18:01:00Z]\n",
		"a: &x {k: [v]}\nb: *x\nc: {<<: *x}\n",
		"? [1]\n: 2\n",
		"---\na: 1\n---\nb: 2\n",
		"a: \"\\u00e9\\x00\"\nb: |\n  text\n  more\n",
		"a: &a [*a]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := yamlToJSON(data, "f.yaml")
		if err != nil {
			var se *SourceError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SourceError", err)
			}
			return
		}
		j := newJSONIn(bytes.NewReader(doc.json), "f.json")
		if err := j.skip(); err != nil {
			t.Fatalf("%q converts to JSON that does not read back: %v\n%s", data, err, doc.json)
		}
		if err := j.end(); err != nil {
			t.Fatalf("%q converts to more than one JSON value: %v\n%s", data, err, doc.json)
		}
		if len(doc.json) > 4*len(data)+64 {
			// Aliases may double the values; quoting may add escapes.
			t.Errorf("%d bytes of YAML became %d bytes of JSON", len(data), len(doc.json))
		}
	})
}
