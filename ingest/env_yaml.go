package ingest

import (
	"bytes"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// yaml reads data as a YAML mapping (format 6 of ParseEnvFile), its keys
// flattened, and reports whether it is one; path is for its diagnostics.
func (p *envParse) yaml(data []byte, path string) bool {
	if len(data) > MaxYAMLBytes {
		return false
	}
	var doc, extra yaml.Node
	if !envYAMLUnmarshal(data, &doc, &extra) {
		return false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return false
	}
	root := doc.Content[0]
	for i := 0; root != nil && root.Kind == yaml.AliasNode && i < envMaxDepth; i++ {
		root = root.Alias
	}
	if root == nil || root.Kind != yaml.MappingNode || len(root.Content) == 0 {
		return false
	}
	y := envYAML{path: path, budget: envMaxNodes}
	var keys []KV
	y.mapping(root, "", 0, &keys)
	if y.budget <= 0 {
		y.warn(root, "aliases", fmt.Sprintf("YAML aliases expand to more than %s values; the rest of the file is not read", textfmt.Thousands(envMaxNodes)))
	}
	if extra.Kind != 0 {
		y.warn(&extra, "second document", "a second YAML document starts here; it is not read")
	}
	p.keys = keys
	p.diags = y.diags
	p.aliases()
	return true
}

// envYAMLUnmarshal parses the first document into doc and the start of a
// second one, if any, into extra. It guards against panics inside the
// YAML library, which has had them on malformed input; a panic there means
// "not YAML".
func envYAMLUnmarshal(data []byte, doc, extra *yaml.Node) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if dec.Decode(doc) != nil {
		return false
	}
	if dec.Decode(extra) != nil {
		*extra = yaml.Node{}
	}
	return true
}

// envYAML flattens one YAML environment log. Aliases and merge keys are
// followed (tools such as PyYAML write them for repeated values), within a
// budget of envMaxNodes values and envMaxDepth levels, so that an alias
// bomb costs at most that much.
type envYAML struct {
	path   string
	budget int
	diags  []Diagnostic
}

func (y *envYAML) warn(n *yaml.Node, reason, msg string) {
	y.diags = append(y.diags, Diagnostic{Severity: Warning, File: y.path, Line: n.Line, Column: n.Column, Reason: reason, Message: msg})
}

func (y *envYAML) mapping(n *yaml.Node, prefix string, depth int, keys *[]KV) {
	var first map[string]int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0) {
			// A merge key copies the keys of the mapping(s) it names.
			y.merge(v, prefix, depth+1, keys)
			continue
		}
		if first == nil {
			first = make(map[string]int, len(n.Content)/2)
		}
		if line, dup := first[k.Value]; dup {
			y.warn(k, "duplicate key", fmt.Sprintf("key %q given twice (first on line %d); this one is not read", envJoinKey(prefix, k.Value), line))
			continue
		}
		first[k.Value] = k.Line
		y.value(v, envJoinKey(prefix, k.Value), depth+1, keys)
	}
}

func (y *envYAML) merge(v *yaml.Node, prefix string, depth int, keys *[]KV) {
	if depth > envMaxDepth || y.budget <= 0 {
		return
	}
	y.budget--
	switch v.Kind {
	case yaml.AliasNode:
		if v.Alias != nil {
			y.merge(v.Alias, prefix, depth+1, keys)
		}
	case yaml.MappingNode:
		y.mapping(v, prefix, depth, keys)
	case yaml.SequenceNode:
		for _, c := range v.Content {
			y.merge(c, prefix, depth+1, keys)
		}
	}
}

func (y *envYAML) value(v *yaml.Node, prefix string, depth int, keys *[]KV) {
	if depth > envMaxDepth || y.budget <= 0 {
		return
	}
	y.budget--
	switch v.Kind {
	case yaml.AliasNode:
		if v.Alias != nil {
			y.value(v.Alias, prefix, depth+1, keys)
		}
	case yaml.ScalarNode:
		*keys = append(*keys, KV{Key: prefix, Value: v.Value})
	case yaml.MappingNode:
		if len(v.Content) == 0 {
			*keys = append(*keys, KV{Key: prefix, Value: ""})
			return
		}
		y.mapping(v, prefix, depth, keys)
	case yaml.SequenceNode:
		elems := make([]envElem, 0, len(v.Content))
		for i, c := range v.Content {
			for hops := 0; c.Kind == yaml.AliasNode && c.Alias != nil && hops < envMaxDepth; hops++ {
				c = c.Alias
			}
			var sub []KV
			y.value(c, envJoinKey(prefix, strconv.Itoa(i)), depth+1, &sub)
			elems = append(elems, envElem{kvs: sub, nested: c.Kind != yaml.ScalarNode})
		}
		envEmitArray(prefix, elems, keys)
	}
}
