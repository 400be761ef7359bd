package module

import (
	"fmt"
	"math/big"
	"strings"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
)

// StrictUnmarshal decodes b into m and refuses unknown fields, as the
// Cosmos SDK's tx decoder does for critical fields.
func StrictUnmarshal(b []byte, m proto.Message) error {
	if err := proto.Unmarshal(b, m); err != nil {
		return err
	}
	if len(m.ProtoReflect().GetUnknown()) > 0 {
		return fmt.Errorf("unknown field in %s", m.ProtoReflect().Descriptor().FullName())
	}
	return nil
}

// CoinsAmount is the total of coins, which must all be in denom.
func CoinsAmount(coins []*basev1beta1.Coin, denom string) (*big.Int, error) {
	total := new(big.Int)
	for _, c := range coins {
		a, err := CoinAmount(c, denom)
		if err != nil {
			return nil, err
		}
		total.Add(total, a)
	}
	return total, nil
}

// CoinAmount is a non-negative amount of denom.
func CoinAmount(c *basev1beta1.Coin, denom string) (*big.Int, error) {
	if c == nil {
		return nil, SDKError(CodeInvalidCoins, "no amount")
	}
	if c.Denom != denom {
		return nil, SDKError(CodeInvalidCoins, "denom %q: this chain's only coin is %s", c.Denom, denom)
	}
	a, ok := new(big.Int).SetString(c.Amount, 10)
	if !ok || a.Sign() < 0 || a.BitLen() > 256 {
		return nil, SDKError(CodeInvalidCoins, "invalid amount %q%s", c.Amount, c.Denom)
	}
	return a, nil
}

// Account parses an account address (ember1… or 0x…) of message field
// field.
func (c Codec) Account(field, s string) (common.Address, error) {
	a, err := accounts.ParseAddress(c.Prefix, s)
	if err != nil {
		return common.Address{}, SDKError(CodeInvalidAddress, "invalid %s: %v", field, err)
	}
	return a, nil
}

// Operator parses a validator operator address (embervaloper1… or 0x…).
func (c Codec) Operator(s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return c.Account("validator_address", s)
	}
	kind, b, err := accounts.NewPrefixes(c.Prefix).Decode(s)
	if err != nil || kind != accounts.KindValidator {
		return common.Address{}, SDKError(CodeInvalidAddress, "invalid validator address %q: want %svaloper1… or 0x…", s, c.Prefix)
	}
	return common.BytesToAddress(b), nil
}
