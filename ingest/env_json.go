package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// json reads data as a JSON object (format 1 of ParseEnvFile), its keys
// flattened, and reports whether it is one.
func (p *envParse) json(data []byte) bool {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var keys []KV
	if _, err := envJSONValue(dec, "", 0, &keys); err != nil {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false // trailing data
	}
	p.keys = keys
	p.aliases()
	return true
}

// envJSONValue reads one JSON value, appends its flattened keys and
// reports whether it was an object or array.
func envJSONValue(dec *json.Decoder, prefix string, depth int, keys *[]KV) (nested bool, err error) {
	if depth > envMaxDepth {
		return false, fmt.Errorf("nesting deeper than %d", envMaxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := 0
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return true, err
				}
				k, ok := kt.(string)
				if !ok {
					return true, fmt.Errorf("object key is %T", kt)
				}
				if _, err := envJSONValue(dec, envJoinKey(prefix, k), depth+1, keys); err != nil {
					return true, err
				}
				n++
			}
			if _, err := dec.Token(); err != nil { // '}'
				return true, err
			}
			if n == 0 && prefix != "" {
				*keys = append(*keys, KV{Key: prefix, Value: ""})
			}
		case '[':
			var elems []envElem
			for i := 0; dec.More(); i++ {
				var sub []KV
				nested, err := envJSONValue(dec, envJoinKey(prefix, strconv.Itoa(i)), depth+1, &sub)
				if err != nil {
					return true, err
				}
				elems = append(elems, envElem{kvs: sub, nested: nested})
			}
			if _, err := dec.Token(); err != nil { // ']'
				return true, err
			}
			envEmitArray(prefix, elems, keys)
		default:
			return true, fmt.Errorf("unexpected %v", t)
		}
		return true, nil
	case string:
		*keys = append(*keys, KV{Key: prefix, Value: t})
	case json.Number:
		*keys = append(*keys, KV{Key: prefix, Value: t.String()})
	case bool:
		*keys = append(*keys, KV{Key: prefix, Value: strconv.FormatBool(t)})
	case nil:
		*keys = append(*keys, KV{Key: prefix, Value: "null"})
	}
	return false, nil
}
