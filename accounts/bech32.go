package accounts

import (
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"
)

// Kind is what a bech32 string spells. Every kind shares the chain's prefix
// (`ember` by default) followed by a suffix, as Cosmos chains spell them.
type Kind int

// The address kinds of a chain, with their prefix suffixes.
const (
	KindAccount      Kind = iota // ember1…: 20-byte account address
	KindAccountPub               // emberpub1…: 33-byte compressed eth_secp256k1 key
	KindValidator                // embervaloper1…: 20-byte operator (account) address
	KindValidatorPub             // embervaloperpub1…: 33-byte operator key
	KindConsensus                // embervalcons1…: 20-byte CometBFT validator address
	KindConsensusPub             // embervalconspub1…: 32-byte ed25519 consensus key
)

var kindSuffix = [...]string{"", "pub", "valoper", "valoperpub", "valcons", "valconspub"}

// kindSize is the decoded length each kind must have. Public keys are the
// raw key bytes (no amino prefix): what Ethermint-aware tools show as key.
var kindSize = [...]int{20, 33, 20, 33, 20, 32}

var kindName = [...]string{"account", "account public key", "validator operator", "validator operator public key", "consensus node", "consensus public key"}

func (k Kind) String() string { return kindName[k] }

// Prefixes holds the human-readable parts of a chain's bech32 spellings.
type Prefixes struct{ base string }

// NewPrefixes returns the spellings of a chain whose account prefix is base.
func NewPrefixes(base string) Prefixes { return Prefixes{base: base} }

// HRP is the human-readable part of kind.
func (p Prefixes) HRP(k Kind) string { return p.base + kindSuffix[k] }

// Encode spells data as kind. It fails when data has the wrong length.
func (p Prefixes) Encode(k Kind, data []byte) (string, error) {
	if len(data) != kindSize[k] {
		return "", fmt.Errorf("%s: %d bytes, want %d", k, len(data), kindSize[k])
	}
	return encode(p.HRP(k), data), nil
}

// Decode reads a bech32 string of any of the chain's kinds.
func (p Prefixes) Decode(s string) (Kind, []byte, error) {
	hrp, data, err := decode(s)
	if err != nil {
		return 0, nil, err
	}
	// Longest suffix first: "embervaloperpub" also starts with "embervaloper".
	for _, k := range []Kind{KindValidatorPub, KindConsensusPub, KindValidator, KindConsensus, KindAccountPub, KindAccount} {
		if hrp != p.HRP(k) {
			continue
		}
		if len(data) != kindSize[k] {
			return 0, nil, fmt.Errorf("invalid bech32 %s %q: %d bytes, want %d", k, s, len(data), kindSize[k])
		}
		return k, data, nil
	}
	return 0, nil, fmt.Errorf("invalid bech32 address %q: prefix %q is none of %s", s, hrp, strings.Join(p.all(), ", "))
}

func (p Prefixes) all() []string {
	out := make([]string, len(kindSuffix))
	for i := range kindSuffix {
		out[i] = p.HRP(Kind(i))
	}
	return out
}

// Bech32 spells a 20-byte address with the given human-readable prefix
// (BIP-0173), e.g. ember1….
func Bech32(prefix string, addr common.Address) string { return encode(prefix, addr[:]) }

// ParseAddress reads an account address in either spelling: 0x hex (any
// case), or bech32 with the given prefix.
func ParseAddress(prefix, s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if !common.IsHexAddress(s) {
			return common.Address{}, fmt.Errorf("invalid hex address %q: want 0x and 40 hex digits", s)
		}
		return common.HexToAddress(s), nil
	}
	hrp, raw, err := decode(s)
	if err != nil {
		return common.Address{}, err
	}
	if hrp != prefix {
		return common.Address{}, fmt.Errorf("invalid bech32 address %q: prefix %q, want %q", s, hrp, prefix)
	}
	if len(raw) != common.AddressLength {
		return common.Address{}, fmt.Errorf("invalid bech32 address %q: %d bytes, want 20", s, len(raw))
	}
	return common.BytesToAddress(raw), nil
}

func encode(hrp string, data []byte) string {
	conv, err := bech32.ConvertBits(data, 8, 5, true)
	if err != nil {
		panic(err) // unreachable: 8-bit groups always convert
	}
	s, err := bech32.Encode(hrp, conv)
	if err != nil {
		panic(fmt.Sprintf("bech32 encode with prefix %q: %v", hrp, err)) // an invalid prefix is a programming error
	}
	return s
}

// decode reads a BIP-0173 string into its prefix and 8-bit data. Mixed case
// and bad checksums are refused by the library.
func decode(s string) (string, []byte, error) {
	hrp, data, err := bech32.Decode(s)
	if err != nil {
		return "", nil, fmt.Errorf("invalid bech32 address %q: %w", s, err)
	}
	raw, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		return "", nil, fmt.Errorf("invalid bech32 address %q: %w", s, err)
	}
	return hrp, raw, nil
}
