package anvil

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Quantity is a number as anvil reads its U256 and u64 parameters: a JSON
// number, or a string in hex (0x…, leading zeros allowed: Hardhat's helpers
// pad some) or decimal. It is at most 256 bits and never negative.
type Quantity big.Int

// UnmarshalJSON implements json.Unmarshaler.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if len(s) > 0 && s[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = str
	}
	v, ok := new(big.Int), false
	if h, isHex := strings.CutPrefix(strings.ToLower(s), "0x"); isHex {
		v, ok = v.SetString(h, 16)
	} else {
		v, ok = v.SetString(s, 10)
	}
	if !ok || v.Sign() < 0 || v.BitLen() > 256 {
		return fmt.Errorf("invalid quantity %s: want a non-negative 256-bit number, hex (0x…) or decimal", s)
	}
	*q = Quantity(*v)
	return nil
}

// Big is the quantity as a big.Int.
func (q *Quantity) Big() *big.Int { return (*big.Int)(q) }

// Uint64 is the quantity, or an error naming what when it does not fit in 64 bits.
func (q *Quantity) Uint64(what string) (uint64, error) {
	if !q.Big().IsUint64() {
		return 0, invalidParams(fmt.Sprintf("%s %v does not fit in 64 bits", what, q.Big()))
	}
	return q.Big().Uint64(), nil
}
