// Package dec is the fixed-point decimal the chain's economics are written
// in: 18 decimal places held in a big.Int scaled by 10^18, with the Cosmos
// SDK's LegacyDec rules (products and quotients rounded half to even by
// Mul and Quo, cut toward zero by MulTruncate and QuoTruncate), so rates,
// shares and reward ratios round exactly as the SDK's do and clients that
// parse "0.050000000000000000" read them unchanged.
//
// A Dec is a value: every operation returns a new one and never changes
// its operands. The zero Dec is 0.
package dec

import (
	"fmt"
	"math/big"
	"strings"
)

// Precision is the number of decimal places.
const Precision = 18

var (
	one       = new(big.Int).Exp(big.NewInt(10), big.NewInt(Precision), nil) // 10^18
	oneSquare = new(big.Int).Mul(one, one)
	half      = new(big.Int).Quo(one, big.NewInt(2))
)

// Dec is a decimal with 18 places.
type Dec struct{ i *big.Int } // value × 10^18; nil is 0

func (d Dec) raw() *big.Int {
	if d.i == nil {
		return new(big.Int)
	}
	return d.i
}

// Zero is 0.
func Zero() Dec { return Dec{new(big.Int)} }

// One is 1.
func One() Dec { return Dec{new(big.Int).Set(one)} }

// FromInt is the integer n.
func FromInt(n *big.Int) Dec { return Dec{new(big.Int).Mul(n, one)} }

// FromInt64 is the integer n.
func FromInt64(n int64) Dec { return FromInt(big.NewInt(n)) }

// FromRaw is the Dec whose value × 10^18 is r: the protobuf form of a
// LegacyDec and the form the state stores.
func FromRaw(r *big.Int) Dec { return Dec{new(big.Int).Set(r)} }

// Raw is d × 10^18, an integer.
func (d Dec) Raw() *big.Int { return new(big.Int).Set(d.raw()) }

// Parse reads a decimal such as "0.05", "1", "-2.5": at most 18 places.
func Parse(s string) (Dec, error) {
	orig := s
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, dotted := strings.Cut(s, ".")
	if whole == "" || (dotted && frac == "") || len(frac) > Precision || strings.ContainsAny(whole+frac, "+-") {
		return Dec{}, fmt.Errorf("invalid decimal %q", orig)
	}
	n, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", Precision-len(frac)), 10)
	if !ok {
		return Dec{}, fmt.Errorf("invalid decimal %q", orig)
	}
	if neg {
		n.Neg(n)
	}
	return Dec{n}, nil
}

// MustParse is Parse for constants; it panics on a malformed s.
func MustParse(s string) Dec {
	d, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

// String is the SDK's text form: always 18 places, "0.050000000000000000".
func (d Dec) String() string {
	r := d.raw()
	abs := new(big.Int).Abs(r).String()
	if len(abs) <= Precision {
		abs = strings.Repeat("0", Precision+1-len(abs)) + abs
	}
	s := abs[:len(abs)-Precision] + "." + abs[len(abs)-Precision:]
	if r.Sign() < 0 {
		return "-" + s
	}
	return s
}

// Add is d + e.
func (d Dec) Add(e Dec) Dec { return Dec{new(big.Int).Add(d.raw(), e.raw())} }

// Sub is d − e.
func (d Dec) Sub(e Dec) Dec { return Dec{new(big.Int).Sub(d.raw(), e.raw())} }

// Neg is −d.
func (d Dec) Neg() Dec { return Dec{new(big.Int).Neg(d.raw())} }

// Mul is d × e rounded half to even.
func (d Dec) Mul(e Dec) Dec { return Dec{chopRound(new(big.Int).Mul(d.raw(), e.raw()))} }

// MulTruncate is d × e cut toward zero.
func (d Dec) MulTruncate(e Dec) Dec {
	return Dec{new(big.Int).Quo(new(big.Int).Mul(d.raw(), e.raw()), one)}
}

// MulInt is d × n, exact.
func (d Dec) MulInt(n *big.Int) Dec { return Dec{new(big.Int).Mul(d.raw(), n)} }

// Quo is d ÷ e rounded half to even; e must not be 0.
func (d Dec) Quo(e Dec) Dec {
	n := new(big.Int).Mul(d.raw(), oneSquare)
	return Dec{chopRound(n.Quo(n, e.raw()))}
}

// QuoTruncate is d ÷ e cut toward zero; e must not be 0.
func (d Dec) QuoTruncate(e Dec) Dec {
	n := new(big.Int).Mul(d.raw(), one)
	return Dec{n.Quo(n, e.raw())}
}

// QuoInt is d ÷ n cut toward zero; n must not be 0.
func (d Dec) QuoInt(n *big.Int) Dec { return Dec{new(big.Int).Quo(d.raw(), n)} }

// TruncateInt is the integer part of d, cut toward zero.
func (d Dec) TruncateInt() *big.Int { return new(big.Int).Quo(d.raw(), one) }

// Cmp compares d and e: -1, 0 or +1.
func (d Dec) Cmp(e Dec) int { return d.raw().Cmp(e.raw()) }

// Equal tells whether d = e.
func (d Dec) Equal(e Dec) bool { return d.Cmp(e) == 0 }

// LT tells whether d < e.
func (d Dec) LT(e Dec) bool { return d.Cmp(e) < 0 }

// GT tells whether d > e.
func (d Dec) GT(e Dec) bool { return d.Cmp(e) > 0 }

// IsZero tells whether d = 0.
func (d Dec) IsZero() bool { return d.raw().Sign() == 0 }

// IsNegative tells whether d < 0.
func (d Dec) IsNegative() bool { return d.raw().Sign() < 0 }

// IsPositive tells whether d > 0.
func (d Dec) IsPositive() bool { return d.raw().Sign() > 0 }

// Min is the smaller of d and e.
func Min(d, e Dec) Dec {
	if d.LT(e) {
		return d
	}
	return e
}

// chopRound divides n (a value × 10^36) by 10^18, rounding half to even,
// as the SDK's chopPrecisionAndRound does.
func chopRound(n *big.Int) *big.Int {
	neg := n.Sign() < 0
	q, r := new(big.Int).QuoRem(new(big.Int).Abs(n), one, new(big.Int))
	switch c := r.Cmp(half); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q
}
