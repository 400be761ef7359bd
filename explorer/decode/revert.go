package decode

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// Selectors of the two errors Solidity itself raises.
var (
	errorStringID = [4]byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	panicID       = [4]byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

// panicMeanings are Solidity's Panic(uint256) codes, as its documentation
// names them ("Panic via assert and Error via require").
var panicMeanings = map[uint64]string{
	0x00: "generic compiler panic",
	0x01: "assertion failed",
	0x11: "arithmetic underflow or overflow",
	0x12: "division or modulo by zero",
	0x21: "invalid enum value",
	0x22: "incorrectly encoded storage byte array",
	0x31: "pop on an empty array",
	0x32: "array index out of bounds",
	0x41: "out of memory (too much memory allocated or an array too large)",
	0x51: "call to a zero-initialized internal function variable",
}

// Revert is a decoded revert: the error and its arguments in the
// DecodedInput shape, and a one-line text of it for people.
type Revert struct {
	Decoded *Decoded
	Text    string
}

// RevertData decodes the data a call reverted with: Error(string),
// Panic(uint256), or a custom error declared in one of abis (the verified
// ABIs of the contracts the transaction ran, the reverting one first). nil
// when data is empty, too short, of an unknown selector or does not decode.
func RevertData(abis []*abi.ABI, data []byte) *Revert {
	if len(data) < 4 {
		return nil
	}
	var id [4]byte
	copy(id[:], data[:4])
	switch id {
	case errorStringID:
		return decodeError("Error", abi.Arguments{{Name: "reason", Type: mustType("string")}}, data, errorText)
	case panicID:
		return decodeError("Panic", abi.Arguments{{Name: "code", Type: mustType("uint256")}}, data, panicText)
	}
	for _, a := range abis {
		if a == nil {
			continue
		}
		if e, err := a.ErrorByID(id); err == nil && e != nil {
			return decodeError(e.Name, e.Inputs, data, customText)
		}
	}
	return nil
}

func decodeError(name string, args abi.Arguments, data []byte, text func(*Decoded, []any) string) *Revert {
	vals, err := args.Unpack(data[4:])
	if err != nil || len(vals) != len(args) {
		return nil
	}
	d := &Decoded{Name: name, MethodID: hex.EncodeToString(data[:4]), MethodCall: call(name, args, false)}
	for i, arg := range args {
		d.Params = append(d.Params, Param{Name: arg.Name, Type: arg.Type.String(), Value: Value(arg.Type, vals[i])})
	}
	return &Revert{Decoded: d, Text: text(d, vals)}
}

// errorText is require's message itself.
func errorText(_ *Decoded, vals []any) string { return vals[0].(string) }

// panicText names the code: "Panic(0x11): arithmetic underflow or overflow".
func panicText(_ *Decoded, vals []any) string {
	code := vals[0].(*big.Int)
	meaning := "unknown panic code"
	if code.IsUint64() {
		if m, ok := panicMeanings[code.Uint64()]; ok {
			meaning = m
		}
	}
	return fmt.Sprintf("Panic(0x%02x): %s", code, meaning)
}

// customText spells a custom error with its arguments:
// "NotEnough(have: 1, need: 5)" (unnamed arguments by value alone).
func customText(d *Decoded, _ []any) string {
	parts := make([]string, len(d.Params))
	for i, p := range d.Params {
		v := fmt.Sprint(p.Value)
		if p.Name != "" {
			v = p.Name + ": " + v
		}
		parts[i] = v
	}
	return d.Name + "(" + strings.Join(parts, ", ") + ")"
}

func mustType(s string) abi.Type {
	t, err := abi.NewType(s, "", nil)
	if err != nil {
		panic("decode: type " + s + ": " + err.Error())
	}
	return t
}
