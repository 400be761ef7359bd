package rpc

import (
	"encoding"
	"encoding/json"
	"reflect"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// scanCall parses body when it is a plain JSON-RPC call: one JSON object
// whose keys are among "jsonrpc", "id", "method" and "params", each at most
// once and written without escapes, with string "jsonrpc" and "method"
// values without escapes and "params" an array or null; the whole body is
// valid JSON. It fills req as json.Unmarshal would (the method name in
// req.method, which decode resolves without a copy) and reports ok; for
// anything else (other or differently cased keys, which encoding/json
// matches case-insensitively, duplicates, escapes, invalid JSON) it reports
// false and json.Unmarshal decides, as before.
//
// Why: encoding/json's reflection-driven decoding of the envelope was the
// fast path's largest cost after the socket syscalls (bench/reads).
func scanCall(body []byte, req *request) bool {
	s := scanner{b: body}
	s.space()
	if !s.byte('{') {
		return false
	}
	var seen [4]bool
	s.space()
	if s.byte('}') {
		s.space()
		return s.i == len(body)
	}
	for {
		s.space()
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		var k int
		switch string(key) {
		case "jsonrpc":
			k = 0
			v, ok := s.plainString()
			if !ok {
				return false
			}
			req.Version = "2.0"
			if string(v) != req.Version {
				req.Version = string(v)
			}
		case "id":
			k = 1
			start := s.i
			if !s.value(0) {
				return false
			}
			req.ID = body[start:s.i]
		case "method":
			k = 2
			v, ok := s.plainString()
			if !ok {
				return false
			}
			req.method = v
		case "params":
			k = 3
			if !s.params(req) {
				return false
			}
		default:
			return false
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		s.space()
		if s.byte(',') {
			continue
		}
		if !s.byte('}') {
			return false
		}
		s.space()
		return s.i == len(body)
	}
}

// scanner walks a JSON text; every method reports false on invalid JSON
// (or on JSON it leaves to encoding/json).
type scanner struct {
	b []byte
	i int
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// plainString reads a string of printable ASCII without escapes and
// returns its contents (encoding/json would replace invalid UTF-8).
func (s *scanner) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// params reads an array (each element's raw text into req.Params) or null.
func (s *scanner) params(req *request) bool {
	if s.literal("null") {
		req.Params = nil
		return true
	}
	if !s.byte('[') {
		return false
	}
	req.Params = req.params[:0]
	s.space()
	if s.byte(']') {
		return true
	}
	for {
		s.space()
		start := s.i
		if !s.value(1) {
			return false
		}
		req.Params = append(req.Params, s.b[start:s.i])
		s.space()
		if s.byte(',') {
			continue
		}
		return s.byte(']')
	}
}

// maxScanDepth bounds nesting; deeper values are encoding/json's.
const maxScanDepth = 32

// value skips one JSON value.
func (s *scanner) value(depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	switch c := s.peek(); {
	case c == '"':
		return s.string()
	case c == '{':
		s.i++
		s.space()
		if s.byte('}') {
			return true
		}
		for {
			s.space()
			if !s.string() {
				return false
			}
			s.space()
			if !s.byte(':') {
				return false
			}
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte(',') {
				continue
			}
			return s.byte('}')
		}
	case c == '[':
		s.i++
		s.space()
		if s.byte(']') {
			return true
		}
		for {
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte(',') {
				continue
			}
			return s.byte(']')
		}
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// string skips a string, escapes included (as encoding/json, it does not
// check UTF-8).
func (s *scanner) string() bool {
	if !s.byte('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.b)-s.i < 4 {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	s.byte('-')
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.byte('.') && !s.digits() {
		return false
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// argType is one parameter of a fast method, with how an argument the
// scanner has validated decodes into it, worked out once from the type when
// the method is looked up: reflect's Implements walks a method set, too
// much to repeat for every call.
type argType struct {
	t   reflect.Type
	how argDecode
}

type argDecode uint8

const (
	decodeOther        argDecode = iota // decodeFlat, else json.Unmarshal
	decodePtrUnmarsh                    // a pointer whose type decodes itself
	decodeValueUnmarsh                  // a value whose pointer decodes itself
	decodeBool
)

func newArgType(t reflect.Type) argType {
	a := argType{t: t}
	switch {
	case t.Kind() == reflect.Pointer && t.Implements(unmarshalerType):
		a.how = decodePtrUnmarsh
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(unmarshalerType):
		a.how = decodeValueUnmarsh
	case t.Kind() == reflect.Bool:
		a.how = decodeBool
	}
	return a
}

// decodeScanned decodes one argument the scanner has already validated as
// JSON, as json.Unmarshal into a *t would, without its validation pass: a
// block tag into a BlockNumberOrHash directly (blockTag), a type with an
// UnmarshalJSON method gets the raw text (a pointer type gets nil for
// null, as encoding/json sets it), a bool its literal, a flat object of
// strings its fields (decodeFlat); anything else goes through
// json.Unmarshal.
func (a argType) decodeScanned(raw []byte) (reflect.Value, bool) {
	t := a.t
	if v, ok := blockTag(raw, t); ok {
		return v, true
	}
	switch {
	case a.how == decodePtrUnmarsh:
		if string(raw) == "null" {
			return reflect.Zero(t), true
		}
		v := reflect.New(t.Elem())
		if v.Interface().(json.Unmarshaler).UnmarshalJSON(raw) != nil {
			return reflect.Value{}, false
		}
		return v, true
	case a.how == decodeValueUnmarsh:
		v := reflect.New(t)
		if v.Interface().(json.Unmarshaler).UnmarshalJSON(raw) != nil {
			return reflect.Value{}, false
		}
		return v.Elem(), true
	case a.how == decodeBool && (string(raw) == "true" || string(raw) == "false"):
		return reflect.ValueOf(string(raw) == "true").Convert(t), true
	}
	if v, ok := decodeFlat(raw, t); ok { // flatjson.go
		return v, true
	}
	v := reflect.New(t)
	if json.Unmarshal(raw, v.Interface()) != nil {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

var (
	blockNumberOrHashType = reflect.TypeFor[gethrpc.BlockNumberOrHash]()
	blockNumberOrHashPtr  = reflect.TypeFor[*gethrpc.BlockNumberOrHash]()
	blockTags             = map[string]gethrpc.BlockNumber{
		`"latest"`: gethrpc.LatestBlockNumber, `"pending"`: gethrpc.PendingBlockNumber, `"earliest"`: gethrpc.EarliestBlockNumber,
		`"safe"`: gethrpc.SafeBlockNumber, `"finalized"`: gethrpc.FinalizedBlockNumber,
	}
)

// blockTag decodes a block tag ("latest", ...) into a BlockNumberOrHash or
// a *BlockNumberOrHash as its UnmarshalJSON does, which first tries the
// object form through encoding/json and fails: a third of the cost of an
// eth_getBalance.
func blockTag(raw []byte, t reflect.Type) (reflect.Value, bool) {
	if t != blockNumberOrHashType && t != blockNumberOrHashPtr {
		return reflect.Value{}, false
	}
	n, ok := blockTags[string(raw)]
	if !ok {
		return reflect.Value{}, false
	}
	v := reflect.New(blockNumberOrHashType)
	v.Interface().(*gethrpc.BlockNumberOrHash).BlockNumber = &n
	if t.Kind() == reflect.Pointer {
		return v, true
	}
	return v.Elem(), true
}

// encodeResult encodes a method's result as go-ethereum does (json.Marshal,
// except that a json.Marshaler, e.g. an encoded block, encodes itself
// without a validation pass). A TextMarshaler whose text needs no escaping
// (hexutil's quantities and data) is quoted directly: json.Marshal would
// write the same bytes after a reflection walk.
func encodeResult(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	if m, ok := v.(encoding.TextMarshaler); ok {
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || !rv.IsNil() {
			text, err := m.MarshalText()
			if err == nil && plainText(text) {
				out := make([]byte, 0, len(text)+2)
				out = append(out, '"')
				out = append(out, text...)
				return append(out, '"'), nil
			}
		}
	}
	return json.Marshal(v)
}

// plainText: letters and digits only, which a JSON string holds as they are.
func plainText(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
