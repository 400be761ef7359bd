package explorer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// NativeTx is a native (Cosmos-format) transaction: it runs in its place
// in the CometBFT block on the same state as the EVM transactions, but has
// no EVM hash, no receipt and is not in the EVM block. Its hash is the
// CometBFT tx hash (sha256 of its bytes), which has the 32 bytes of an EVM
// hash, so /tx/{hash} reaches both kinds.
type NativeTx struct {
	Hash        common.Hash
	BlockNumber uint64
	BlockHash   common.Hash // the EVM block's
	Position    int         // index among the CometBFT block's transactions
	Time        uint64
	Sender      common.Address
	Sequence    uint64   // the sender's nonce
	Fee         *big.Int // charged: the whole fee the tx offers once it runs, 0 when rejected before running
	BurntFee    *big.Int // base fee × gas used, destroyed; the rest of the fee goes to the fee recipient
	Value       *big.Int // what its messages take from the sender's balance (sent, delegated, self-bonded)
	GasWanted   uint64
	GasUsed     uint64
	Code        uint32 // ABCI result code: 0 succeeded
	Codespace   string
	Log         string // the failure's message; "" on success
	Memo        string
	Msgs        []NativeMsg
}

// NativeMsg is one message of a native transaction, with the fields the
// explorer shows. Which are set depends on the type.
type NativeMsg struct {
	Type      string          `json:"type"`                // type URL, e.g. /cosmos.bank.v1beta1.MsgSend
	To        *common.Address `json:"to,omitempty"`        // MsgSend recipient, MsgSetWithdrawAddress reward address
	Validator *common.Address `json:"validator,omitempty"` // staking: the operator's account
	Amount    *big.Int        `json:"amount,omitempty"`    // sent, delegated, undelegated or self-bonded, in the base denomination
	Moniker   string          `json:"moniker,omitempty"`   // MsgCreateValidator, MsgEditValidator
}

// Addresses are the accounts a native transaction touches: its sender and
// the recipients and validators its messages name, each once.
func (t *NativeTx) Addresses() []common.Address {
	out := []common.Address{t.Sender}
	seen := map[common.Address]bool{t.Sender: true}
	for _, m := range t.Msgs {
		for _, a := range []*common.Address{m.To, m.Validator} {
			if a != nil && !seen[*a] {
				seen[*a] = true
				out = append(out, *a)
			}
		}
	}
	return out
}

// NativeCursor is a keyset position in a list of native transactions
// ordered by (block, position) descending.
type NativeCursor struct {
	Set         bool
	BlockNumber uint64
	Position    int
}

// NativeStore reads the indexed native transactions.
type NativeStore interface {
	NativeTx(ctx context.Context, hash common.Hash) (*NativeTx, error)
	// BlockNativeTxs lists a block's native transactions in block order,
	// from position from on.
	BlockNativeTxs(ctx context.Context, number uint64, from int, limit int) ([]NativeTx, error)
	// AddressNativeTxs lists the native transactions that sent from or
	// named addr, newest first.
	AddressNativeTxs(ctx context.Context, addr common.Address, after NativeCursor, limit int) ([]NativeTx, error)
	// NativeTxs lists the chain's native transactions, newest first.
	NativeTxs(ctx context.Context, after NativeCursor, limit int) ([]NativeTx, error)
	// NativeTxCount is how many native transactions are indexed (the
	// transactions counter counts them beside the EVM ones).
	NativeTxCount(ctx context.Context) (uint64, error)
}
