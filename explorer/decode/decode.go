// Package decode turns call inputs and event logs into Blockscout's
// decoded shapes, with a contract's verified ABI or, without one, a built-in
// table of common standards (table.go). Values are spelled as Blockscout
// spells them: decimal strings for integers, EIP-55 addresses, 0x-hex
// bytes, nested lists for arrays and tuples.
package decode

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Param is one decoded argument. Indexed is set for event parameters only.
type Param struct {
	Name    string
	Type    string
	Value   any
	Indexed *bool
}

// Decoded is Blockscout's DecodedInput (and log "decoded").
type Decoded struct {
	MethodCall string // transfer(address to, uint256 amount)
	MethodID   string // a9059cbb (log: the first 4 bytes of topic 0)
	Name       string // transfer
	Params     []Param
}

// JSON is the Blockscout shape.
func (d *Decoded) JSON() map[string]any {
	params := make([]map[string]any, len(d.Params))
	for i, p := range d.Params {
		params[i] = map[string]any{"name": p.Name, "type": p.Type, "value": p.Value}
		if p.Indexed != nil {
			params[i]["indexed"] = *p.Indexed
		}
	}
	return map[string]any{"method_call": d.MethodCall, "method_id": d.MethodID, "parameters": params}
}

type eventKey struct {
	topic  common.Hash
	topics int
}

var builtin = sync.OnceValues(func() (map[[4]byte]*abi.Method, map[eventKey]*abi.Event) {
	fns := make(map[[4]byte]*abi.Method, len(builtinFunctions))
	for _, s := range builtinFunctions {
		name, args, err := parseSignature(s)
		if err != nil {
			panic(fmt.Sprintf("decode table: %s: %v", s, err))
		}
		m := abi.NewMethod(name, name, abi.Function, "nonpayable", false, false, args, nil)
		var id [4]byte
		copy(id[:], m.ID)
		if _, dup := fns[id]; dup {
			panic("decode table: duplicate selector " + s)
		}
		fns[id] = &m
	}
	evs := make(map[eventKey]*abi.Event, len(builtinEvents))
	for _, s := range builtinEvents {
		name, args, err := parseSignature(s)
		if err != nil {
			panic(fmt.Sprintf("decode table: %s: %v", s, err))
		}
		e := abi.NewEvent(name, name, false, args)
		n := 1
		for _, a := range args {
			if a.Indexed {
				n++
			}
		}
		evs[eventKey{e.ID, n}] = &e
	}
	return fns, evs
})

// Builtin reports the built-in signature of a selector, "" if unknown.
func Builtin(selector []byte) *abi.Method {
	fns, _ := builtin()
	var id [4]byte
	if len(selector) < 4 {
		return nil
	}
	copy(id[:], selector)
	return fns[id]
}

// Input decodes a call's input with a (the verified ABI of the callee; nil
// for the built-in table). nil when the selector is unknown or the
// arguments do not decode.
func Input(a *abi.ABI, input []byte) *Decoded {
	if len(input) < 4 {
		return nil
	}
	var m *abi.Method
	if a != nil {
		m, _ = a.MethodById(input[:4])
	}
	if m == nil {
		m = Builtin(input[:4])
	}
	if m == nil {
		return nil
	}
	vals, err := m.Inputs.Unpack(input[4:])
	if err != nil || len(vals) != len(m.Inputs) {
		return nil
	}
	d := &Decoded{Name: m.RawName, MethodID: hex.EncodeToString(input[:4]), MethodCall: call(m.RawName, m.Inputs, false)}
	for i, arg := range m.Inputs {
		d.Params = append(d.Params, Param{Name: arg.Name, Type: arg.Type.String(), Value: Value(arg.Type, vals[i])})
	}
	return d
}

// MethodName is the name of the function input calls, from a or the
// built-in table; "" when unknown.
func MethodName(a *abi.ABI, input []byte) string {
	if len(input) < 4 {
		return ""
	}
	if a != nil {
		if m, _ := a.MethodById(input[:4]); m != nil {
			return m.RawName
		}
	}
	if m := Builtin(input[:4]); m != nil {
		return m.RawName
	}
	return ""
}

// Log decodes an event with a (the emitter's verified ABI; nil for the
// built-in table). nil when the event is unknown or does not decode.
func Log(a *abi.ABI, topics []common.Hash, data []byte) *Decoded {
	if len(topics) == 0 {
		return nil
	}
	var ev *abi.Event
	if a != nil {
		if e, err := a.EventByID(topics[0]); err == nil && indexedCount(e.Inputs)+1 == len(topics) {
			ev = e
		}
	}
	if ev == nil {
		_, evs := builtin()
		ev = evs[eventKey{topics[0], len(topics)}]
	}
	if ev == nil || ev.Anonymous {
		return nil
	}
	nonIndexed, err := ev.Inputs.NonIndexed().Unpack(data)
	if err != nil {
		return nil
	}
	d := &Decoded{Name: ev.RawName, MethodID: hex.EncodeToString(topics[0][:4]), MethodCall: call(ev.RawName, ev.Inputs, true)}
	ti, ni := 1, 0
	for _, arg := range ev.Inputs {
		indexed := arg.Indexed
		var v any
		if indexed {
			v = topicValue(arg.Type, topics[ti])
			ti++
		} else {
			v = Value(arg.Type, nonIndexed[ni])
			ni++
		}
		d.Params = append(d.Params, Param{Name: arg.Name, Type: arg.Type.String(), Value: v, Indexed: &indexed})
	}
	return d
}

func indexedCount(args abi.Arguments) int {
	n := 0
	for _, a := range args {
		if a.Indexed {
			n++
		}
	}
	return n
}

// topicValue is an indexed parameter: static values are ABI-encoded in the
// topic, dynamic ones (strings, bytes, arrays, tuples) only hashed there,
// so their value is the hash.
func topicValue(t abi.Type, topic common.Hash) any {
	switch t.T {
	case abi.StringTy, abi.BytesTy, abi.SliceTy, abi.ArrayTy, abi.TupleTy:
		return topic.Hex()
	}
	vals, err := abi.Arguments{{Type: t}}.Unpack(topic[:])
	if err != nil || len(vals) != 1 {
		return topic.Hex()
	}
	return Value(t, vals[0])
}

// call spells a signature as Blockscout's method_call does.
func call(name string, args abi.Arguments, event bool) string {
	parts := make([]string, len(args))
	for i, a := range args {
		p := a.Type.String()
		if event && a.Indexed {
			p += " indexed"
		}
		if a.Name != "" {
			p += " " + a.Name
		}
		parts[i] = p
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// Value spells a decoded value as Blockscout does.
func Value(t abi.Type, v any) any {
	rv := reflect.ValueOf(v)
	switch t.T {
	case abi.IntTy, abi.UintTy:
		switch x := v.(type) {
		case *big.Int:
			return x.String()
		default:
			return fmt.Sprint(x)
		}
	case abi.AddressTy:
		if a, ok := v.(common.Address); ok {
			return a.Hex()
		}
	case abi.BoolTy:
		return v
	case abi.StringTy:
		return v
	case abi.BytesTy:
		if b, ok := v.([]byte); ok {
			return hexutil.Encode(b)
		}
	case abi.FixedBytesTy, abi.FunctionTy:
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return hexutil.Encode(b)
	case abi.SliceTy, abi.ArrayTy:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = Value(*t.Elem, rv.Index(i).Interface())
		}
		return out
	case abi.TupleTy:
		out := make([]any, len(t.TupleElems))
		for i, et := range t.TupleElems {
			out[i] = Value(*et, rv.Field(i).Interface())
		}
		return out
	}
	return fmt.Sprint(v)
}

// Constructor decodes constructor arguments as Blockscout's
// decoded_constructor_args: [[value, {internalType, name, type}], …].
func Constructor(a *abi.ABI, args []byte) []any {
	if a == nil || len(a.Constructor.Inputs) == 0 {
		return nil
	}
	vals, err := a.Constructor.Inputs.Unpack(args)
	if err != nil || len(vals) != len(a.Constructor.Inputs) {
		return nil
	}
	out := make([]any, len(vals))
	for i, arg := range a.Constructor.Inputs {
		internal := arg.Type.String()
		if arg.Type.TupleRawName != "" {
			internal = "struct " + arg.Type.TupleRawName
		}
		out[i] = []any{Value(arg.Type, vals[i]), map[string]any{"internalType": internal, "name": arg.Name, "type": arg.Type.String()}}
	}
	return out
}

// ABICache parses verified ABIs once per distinct JSON text.
type ABICache struct{ m sync.Map }

// Parse returns the parsed ABI, nil when it does not parse.
func (c *ABICache) Parse(js string) *abi.ABI {
	if v, ok := c.m.Load(js); ok {
		return v.(*abi.ABI)
	}
	a, err := abi.JSON(strings.NewReader(js))
	if err != nil {
		return nil
	}
	c.m.Store(js, &a)
	return &a
}
