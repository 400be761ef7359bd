package rpc

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// flatStruct is what decodeFlat knows of a struct type: the fields it may
// set, by their exact JSON name. Only exported, non-embedded fields whose
// type is a pointer to a json.Unmarshaler qualify (TransactionArgs' addresses,
// quantities and data); a key naming any other field leaves the object to
// encoding/json.
type flatStruct struct {
	fields map[string]flatField
}

type flatField struct {
	index int
	elem  reflect.Type // the pointer's element type
}

var flatStructs sync.Map // reflect.Type → *flatStruct

func flatStructOf(t reflect.Type) *flatStruct {
	if fs, ok := flatStructs.Load(t); ok {
		return fs.(*flatStruct)
	}
	fs := &flatStruct{fields: make(map[string]flatField)}
	names := make(map[string]int) // JSON name → fields using it
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name]++
		if plainName(name) && f.Type.Kind() == reflect.Pointer && f.Type.Implements(unmarshalerType) {
			fs.fields[name] = flatField{index: i, elem: f.Type.Elem()}
		}
	}
	for name, n := range names {
		if n > 1 { // encoding/json sets neither of two fields sharing a name
			delete(fs.fields, name)
		}
	}
	flatStructs.Store(t, fs)
	return fs
}

// plainName reports whether a JSON name is letters, digits and
// underscores: encoding/json ignores some other tag names, and no field
// that qualifies needs more.
func plainName(name string) bool {
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return name != ""
}

// decodeFlat decodes raw, JSON already validated by the scanner, into a
// struct of type t as json.Unmarshal would, when raw is a flat object: each
// key written exactly as a qualifying field's JSON name, at most once,
// without escapes, and each value a string without escapes, which goes to
// that field type's UnmarshalJSON as encoding/json would hand it over. For
// anything else (other keys, which encoding/json matches case-insensitively
// or ignores, duplicates, null, numbers, nested values, a value its
// UnmarshalJSON refuses) it reports false and encoding/json decides.
//
// Why: decoding eth_call's call object through encoding/json's reflection
// was a large share of a light call's CPU (bench/reads).
func decodeFlat(raw []byte, t reflect.Type) (reflect.Value, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	fs := flatStructOf(t)
	v := reflect.New(t).Elem()
	s := scanner{b: raw}
	s.space()
	if !s.byte('{') {
		return reflect.Value{}, false
	}
	s.space()
	if s.byte('}') {
		return v, s.end()
	}
	var seen uint64 // by field index; wider structs are left to encoding/json
	for {
		s.space()
		key, ok := s.plainString()
		if !ok {
			return reflect.Value{}, false
		}
		f, ok := fs.fields[string(key)]
		if !ok || f.index >= 64 || seen&(1<<f.index) != 0 {
			return reflect.Value{}, false
		}
		seen |= 1 << f.index
		s.space()
		if !s.byte(':') {
			return reflect.Value{}, false
		}
		s.space()
		start := s.i
		if _, ok := s.plainString(); !ok {
			return reflect.Value{}, false
		}
		p := reflect.New(f.elem)
		if p.Interface().(json.Unmarshaler).UnmarshalJSON(raw[start:s.i]) != nil {
			return reflect.Value{}, false
		}
		v.Field(f.index).Set(p)
		s.space()
		if s.byte('}') {
			return v, s.end()
		}
		if !s.byte(',') {
			return reflect.Value{}, false
		}
	}
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}
