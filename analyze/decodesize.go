package analyze

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
)

var (
	// errTooLarge: the decoded value would pass decodedSize's limit.
	errTooLarge = errors.New("decoded value too large")
	// errMalformed: the JSON is not well formed; encoding/json says how.
	errMalformed = errors.New("malformed JSON")
)

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// decodedSize estimates the memory json.Unmarshal allocates to decode the
// JSON value at the start of data into a value of type t: the size of
// every slice element, pointed-to value and string byte it fills (the
// value of type t itself not included; the temporary capacity a growing
// slice leaves behind neither). Keys match fields as encoding/json
// matches them (exactly, else case-insensitively); an unknown key's value
// costs nothing. It stops with errTooLarge as soon as the estimate passes
// limit, and returns where it stopped (the end of the value, or where it
// passed the limit) and the estimate so far. For JSON that is not well
// formed it returns errMalformed, at or before the error.
func decodedSize(data []byte, t reflect.Type, limit int64) (end int, size int64, err error) {
	z := sizer{data: data, limit: limit}
	err = z.value(t, 0)
	return z.pos, z.size, err
}

// sizer is the state of decodedSize.
type sizer struct {
	data        []byte
	pos         int
	size, limit int64
}

func (z *sizer) space() {
	for z.pos < len(z.data) {
		switch z.data[z.pos] {
		case ' ', '\t', '\n', '\r':
			z.pos++
		default:
			return
		}
	}
}

// next skips white space and returns the byte after it, or 0 at the end.
func (z *sizer) next() byte {
	z.space()
	if z.pos >= len(z.data) {
		return 0
	}
	return z.data[z.pos]
}

func (z *sizer) add(n uintptr) error {
	z.size += int64(n)
	if z.size > z.limit {
		return errTooLarge
	}
	return nil
}

// value sizes the value at z.pos decoded into t (nil: not decoded).
func (z *sizer) value(t reflect.Type, depth int) error {
	if depth > maxDepth {
		return errMalformed
	}
	c := z.next()
	if t != nil && t.Kind() == reflect.Pointer && c != 'n' {
		// A non-null value allocates what the pointer points to.
		if err := z.add(t.Elem().Size()); err != nil {
			return err
		}
		// The same JSON value: no level of nesting, as to encoding/json.
		return z.value(t.Elem(), depth)
	}
	switch c {
	case '{':
		return z.object(t, depth)
	case '[':
		return z.array(t, depth)
	case '"':
		start := z.pos
		if err := z.skipString(); err != nil {
			return err
		}
		if t != nil && t.Kind() == reflect.String {
			return z.add(uintptr(z.pos - start - 2))
		}
		return nil
	case 0:
		return errMalformed
	}
	// A number, true, false or null: up to the next delimiter.
	start := z.pos
scan:
	for ; z.pos < len(z.data); z.pos++ {
		switch z.data[z.pos] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			break scan
		}
	}
	if z.pos == start {
		return errMalformed
	}
	return nil
}

func (z *sizer) object(t reflect.Type, depth int) error {
	z.pos++ // {
	var fields *structFields
	if t != nil && t.Kind() == reflect.Struct {
		fields = fieldsOf(t)
	}
	if z.next() == '}' {
		z.pos++
		return nil
	}
	for {
		if z.next() != '"' {
			return errMalformed
		}
		start := z.pos
		if err := z.skipString(); err != nil {
			return err
		}
		var ft reflect.Type
		if fields != nil {
			ft = fields.lookup(z.data[start:z.pos])
		}
		if z.next() != ':' {
			return errMalformed
		}
		z.pos++
		if err := z.value(ft, depth+1); err != nil {
			return err
		}
		switch z.next() {
		case ',':
			z.pos++
		case '}':
			z.pos++
			return nil
		default:
			return errMalformed
		}
	}
}

func (z *sizer) array(t reflect.Type, depth int) error {
	z.pos++ // [
	var et reflect.Type
	if t != nil && t.Kind() == reflect.Slice {
		et = t.Elem()
	}
	if z.next() == ']' {
		z.pos++
		return nil
	}
	for {
		if et != nil {
			if err := z.add(et.Size()); err != nil {
				return err
			}
		}
		if err := z.value(et, depth+1); err != nil {
			return err
		}
		switch z.next() {
		case ',':
			z.pos++
		case ']':
			z.pos++
			return nil
		default:
			return errMalformed
		}
	}
}

// skipString moves past the string starting at z.pos: to the first
// quote after it that an even number of backslashes precedes.
func (z *sizer) skipString() error {
	z.pos++ // "
	for {
		i := bytes.IndexByte(z.data[z.pos:], '"')
		if i < 0 {
			z.pos = len(z.data)
			return errMalformed
		}
		q := z.pos + i
		k := q
		for k > z.pos && z.data[k-1] == '\\' {
			k--
		}
		z.pos = q + 1
		if (q-k)%2 == 0 {
			return nil
		}
	}
}

// structFields are the fields of a struct type by JSON name, embedded
// structs' fields included, as encoding/json decodes them.
type structFields struct {
	byName map[string]reflect.Type
	names  []string
}

// lookup returns the type of the field a quoted key decodes into, or nil.
func (f *structFields) lookup(quoted []byte) reflect.Type {
	key := string(quoted[1 : len(quoted)-1])
	if bytes.IndexByte(quoted, '\\') >= 0 {
		if err := json.Unmarshal(quoted, &key); err != nil {
			return nil
		}
	}
	if t, ok := f.byName[key]; ok {
		return t
	}
	for _, n := range f.names {
		if strings.EqualFold(n, key) {
			return f.byName[n]
		}
	}
	return nil
}

var structFieldCache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := structFieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{byName: map[string]reflect.Type{}}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct && name == "" {
				add(sf.Type)
				continue
			}
			if !sf.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if _, dup := f.byName[name]; !dup {
				f.byName[name] = sf.Type
				f.names = append(f.names, name)
			}
		}
	}
	add(t)
	structFieldCache.Store(t, f)
	return f
}
