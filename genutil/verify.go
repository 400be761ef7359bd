package genutil

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// GenTx is a decoded and verified gentx.
type GenTx struct {
	Raw      []byte // the signed TxRaw bytes
	Tx       *native.Tx
	Operator common.Address // signer and validator operator
	ConsKey  []byte
	Moniker  string
	SelfBond *big.Int
	Memo     string // <node id>@<ip>:<port>, the peer collect-gentxs adds
}

// Parse decodes a gentx's JSON and checks what can be checked without
// state: one signer with its public key, one MsgCreateValidator whose
// operator signs it, sequence 0, no fee, and the signature over account
// number 0 and chainID.
func Parse(j json.RawMessage, chainID, prefix, denom string) (*GenTx, error) {
	raw, err := DecodeJSON(j)
	if err != nil {
		return nil, err
	}
	tx, err := native.Decode(raw, prefix, denom)
	if err != nil {
		return nil, err
	}
	if len(tx.Msgs) != 1 || tx.Msgs[0].TypeURL != staking.TypeMsgCreateValidator {
		return nil, fmt.Errorf("a gentx holds exactly one %s", staking.TypeMsgCreateValidator)
	}
	if tx.PubKey == nil {
		return nil, fmt.Errorf("gentx of %s has no public key in signer_infos", tx.Signer.Hex())
	}
	if tx.Sequence != 0 {
		return nil, fmt.Errorf("gentx of %s has sequence %d, want 0", tx.Signer.Hex(), tx.Sequence)
	}
	if tx.Fee.Sign() != 0 {
		return nil, fmt.Errorf("gentx of %s pays a fee of %v%s: gentxs pay none", tx.Signer.Hex(), tx.Fee, denom)
	}
	if native.PubKeyAddress(tx.PubKey) != tx.Signer || !tx.Verify(tx.PubKey, chainID, 0) {
		return nil, fmt.Errorf("gentx of %s: signature verification failed for chain-id %s and account number 0", tx.Signer.Hex(), chainID)
	}
	m := tx.Msgs[0]
	return &GenTx{Raw: raw, Tx: tx, Operator: m.Validator, ConsKey: m.ConsKey, Moniker: *m.Moniker, SelfBond: m.Amount, Memo: tx.Body.Memo}, nil
}

// ParseAll parses every gentx and checks them against each other and the
// balances of the genesis allocation: one validator per operator and per
// consensus key, each operator funded with at least its self-bond. It
// fails with the first problem (Problems lists them all).
func ParseAll(txs []json.RawMessage, chainID, prefix, denom string, balance func(common.Address) (*big.Int, bool)) ([]*GenTx, error) {
	out, problems := check(txs, chainID, prefix, denom, balance)
	if len(problems) > 0 {
		return nil, problems[0]
	}
	return out, nil
}

// Problems are every problem ParseAll would find, one error per gentx
// problem, in gentx order.
func Problems(txs []json.RawMessage, chainID, prefix, denom string, balance func(common.Address) (*big.Int, bool)) []error {
	_, problems := check(txs, chainID, prefix, denom, balance)
	return problems
}

func check(txs []json.RawMessage, chainID, prefix, denom string, balance func(common.Address) (*big.Int, bool)) ([]*GenTx, []error) {
	ops := map[common.Address]int{}
	keys := map[string]int{}
	out := make([]*GenTx, 0, len(txs))
	var problems []error
	for i, j := range txs {
		g, err := Parse(j, chainID, prefix, denom)
		if err != nil {
			problems = append(problems, fmt.Errorf("gen_txs[%d]: %w", i, err))
			continue
		}
		if k, dup := ops[g.Operator]; dup {
			problems = append(problems, fmt.Errorf("gen_txs[%d]: operator %s already has a validator in gen_txs[%d]", i, g.Operator.Hex(), k))
			continue
		}
		ck := hex.EncodeToString(g.ConsKey)
		if k, dup := keys[ck]; dup {
			problems = append(problems, fmt.Errorf("gen_txs[%d]: consensus key %x is already the key of gen_txs[%d]", i, g.ConsKey, k))
			continue
		}
		ops[g.Operator], keys[ck] = i, i
		if bal, ok := balance(g.Operator); !ok {
			problems = append(problems, fmt.Errorf("gen_txs[%d]: operator %s is not in the genesis allocation (emberd genesis add-account)", i, g.Operator.Hex()))
		} else if bal.Cmp(g.SelfBond) < 0 {
			problems = append(problems, fmt.Errorf("gen_txs[%d]: operator %s has %v%s at genesis, less than its self-bond %v%s", i, g.Operator.Hex(), bal, denom, g.SelfBond, denom))
		}
		out = append(out, g)
	}
	return out, problems
}

// Deliver executes the gentxs on st, in order, with native.Execute in env
// (height 0, zero base fee): a gentx that is refused or whose message
// fails makes Deliver fail with its error, as a failing gentx fails the
// SDK's InitChain.
func Deliver(st module.State, txs []json.RawMessage, env *module.Env) error {
	for i, j := range txs {
		g, err := Parse(j, env.ChainID, env.Prefix, env.Denom)
		if err != nil {
			return fmt.Errorf("gen_txs[%d]: %w", i, err)
		}
		res, err := native.Execute(st, g.Tx, env)
		if err != nil {
			return fmt.Errorf("gen_txs[%d] (%s): %w", i, g.Moniker, err)
		}
		if res.Code != 0 {
			return fmt.Errorf("gen_txs[%d] (%s): code %d (%s): %s", i, g.Moniker, res.Code, res.Codespace, res.Log)
		}
	}
	return nil
}
