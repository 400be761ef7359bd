// Package slots is the storage arithmetic of the native modules' state: each
// module keeps its records in the storage of one system account, laid out
// as Solidity lays out state variables (a mapping's value at
// keccak256(key . slot), a dynamic array's elements from keccak256(slot)),
// so that the layouts the modules document can be read with eth_getStorageAt
// and proved with eth_getProof. One place for the rule, used by every module.
package slots

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Word is n as a 32-byte big-endian word.
func Word(n uint64) common.Hash {
	var h common.Hash
	binary.BigEndian.PutUint64(h[24:], n)
	return h
}

// AddrWord is a as a word (left-padded), as Solidity stores an address.
func AddrWord(a common.Address) common.Hash {
	var h common.Hash
	copy(h[12:], a[:])
	return h
}

// WordAddr is the address in the low 20 bytes of h.
func WordAddr(h common.Hash) common.Address { return common.BytesToAddress(h[12:]) }

// WordUint is the low 64 bits of h.
func WordUint(h common.Hash) uint64 { return binary.BigEndian.Uint64(h[24:]) }

// Map is the slot of m[key] for the mapping at slot: keccak256(key . slot).
func Map(key, slot common.Hash) common.Hash { return crypto.Keccak256Hash(key[:], slot[:]) }

// Offset is slot + n (a struct's field n).
func Offset(slot common.Hash, n uint64) common.Hash {
	v := new(uint256.Int).SetBytes32(slot[:])
	return v.AddUint64(v, n).Bytes32()
}

// Elem is the first word of element i (of size words) of the dynamic array
// at slot.
func Elem(slot common.Hash, i, size uint64) common.Hash {
	return Offset(crypto.Keccak256Hash(slot[:]), i*size)
}

// Account is the system account whose storage holds a module's records.
type Account common.Address

// Get reads the word at slot.
func (a Account) Get(st module.Reader, slot common.Hash) common.Hash {
	return st.GetState(common.Address(a), slot)
}

// Set writes the word at slot.
func (a Account) Set(st module.State, slot, v common.Hash) { st.SetState(common.Address(a), slot, v) }

// Uint reads the low 64 bits of the word at slot.
func (a Account) Uint(st module.Reader, slot common.Hash) uint64 { return WordUint(a.Get(st, slot)) }

// SetUint writes n at slot.
func (a Account) SetUint(st module.State, slot common.Hash, n uint64) { a.Set(st, slot, Word(n)) }

// Big reads the word at slot as an unsigned integer.
func (a Account) Big(st module.Reader, slot common.Hash) *big.Int {
	v := a.Get(st, slot)
	return new(big.Int).SetBytes(v[:])
}

// SetBig writes v, which is never negative, at slot.
func (a Account) SetBig(st module.State, slot common.Hash, v *big.Int) {
	a.Set(st, slot, common.BigToHash(v))
}

// Dec reads the decimal stored as its raw word at slot.
func (a Account) Dec(st module.Reader, slot common.Hash) dec.Dec { return dec.FromRaw(a.Big(st, slot)) }

// SetDec writes d, which is never negative, as its raw word at slot.
func (a Account) SetDec(st module.State, slot common.Hash, d dec.Dec) { a.SetBig(st, slot, d.Raw()) }
