package accounts

import (
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"
)

// Bech32 spells a 20-byte address with the given human-readable prefix
// (BIP-0173), e.g. ember1….
func Bech32(prefix string, addr common.Address) string {
	conv, err := bech32.ConvertBits(addr[:], 8, 5, true)
	if err != nil {
		panic(err) // unreachable: 20 bytes always convert
	}
	s, err := bech32.Encode(prefix, conv)
	if err != nil {
		panic(err) // unreachable for a valid prefix and 32 5-bit groups
	}
	return s
}

// ParseAddress reads an address in either spelling: 0x hex (any case), or
// bech32 with the given prefix.
func ParseAddress(prefix, s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if !common.IsHexAddress(s) {
			return common.Address{}, fmt.Errorf("invalid hex address %q: want 0x and 40 hex digits", s)
		}
		return common.HexToAddress(s), nil
	}
	hrp, data, err := bech32.Decode(s)
	if err != nil {
		return common.Address{}, fmt.Errorf("invalid bech32 address %q: %w", s, err)
	}
	if hrp != prefix {
		return common.Address{}, fmt.Errorf("invalid bech32 address %q: prefix %q, want %q", s, hrp, prefix)
	}
	raw, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		return common.Address{}, fmt.Errorf("invalid bech32 address %q: %w", s, err)
	}
	if len(raw) != common.AddressLength {
		return common.Address{}, fmt.Errorf("invalid bech32 address %q: %d bytes, want 20", s, len(raw))
	}
	return common.BytesToAddress(raw), nil
}
