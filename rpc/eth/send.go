package eth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// Accounts are the keys the node holds (its keyring), for eth_accounts and
// for signing with unlocked keys. Errors are go-ethereum's: for a key the
// node does not hold accounts.ErrUnknownAccount ("unknown account"), for a
// locked one "authentication needed: password or unlock".
type Accounts interface {
	// Accounts lists the addresses in the keyring's order.
	Accounts() []common.Address
	// SignHash signs a 32-byte hash with addr's unlocked key: [R || S || V],
	// V 0 or 1.
	SignHash(addr common.Address, hash []byte) ([]byte, error)
	// SignTx signs tx with addr's unlocked key for chainID.
	SignTx(addr common.Address, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

// DefaultGas is the gas limit of a transaction sent through the node
// without one (eth_sendTransaction, personal_sendTransaction): go-ethereum's
// historic default.
const DefaultGas = 90_000

// SignFunc signs a transaction the node filled in, for chainID.
type SignFunc func(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)

// SignTransactionResult is eth_signTransaction's answer: the signed tx in
// its binary encoding and as an object.
type SignTransactionResult struct {
	Raw hexutil.Bytes      `json:"raw"`
	Tx  *types.Transaction `json:"tx"`
}

// MarshalJSON writes the tx as go-ethereum does, except that a fee-market
// tx's gasPrice, which go-ethereum leaves null, is its maxFeePerGas: the
// execution-apis schema wants a number, equal to the max fee per gas for a
// transaction not yet in a block.
func (r SignTransactionResult) MarshalJSON() ([]byte, error) {
	tx, err := json.Marshal(r.Tx)
	if err != nil {
		return nil, err
	}
	if r.Tx != nil && r.Tx.Type() != types.LegacyTxType && r.Tx.Type() != types.AccessListTxType {
		price, _ := json.Marshal((*hexutil.Big)(r.Tx.GasFeeCap()))
		tx = bytes.Replace(tx, []byte(`"gasPrice":null`), append([]byte(`"gasPrice":`), price...), 1)
	}
	return json.Marshal(struct {
		Raw hexutil.Bytes   `json:"raw"`
		Tx  json.RawMessage `json:"tx"`
	}{r.Raw, tx})
}

// TxSender completes, signs and submits transactions the node signs itself.
// One is shared by eth and personal so that one account's sends through
// either take nonces in turn.
type TxSender struct {
	b     Backend
	cfg   Config
	locks addrLocker // held from choosing a nonce until the pool has the tx
}

// NewTxSender returns a sender submitting through b with cfg's fee cap.
func NewTxSender(b Backend, cfg Config) *TxSender {
	return &TxSender{b: b, cfg: cfg}
}

// Send fills in args' defaults, signs the tx with sign and hands it to the
// mempool, as go-ethereum's eth_sendTransaction does. With no nonce given the
// account's next pending nonce is taken, under a per-account lock so that
// concurrent sends get consecutive nonces; a given nonce is used as is (it
// may replace one of the account's pending txs, by the pool's rules).
func (s *TxSender) Send(ctx context.Context, args TransactionArgs, sign SignFunc) (common.Hash, error) {
	if args.Nonce == nil {
		unlock := s.locks.lock(args.from())
		defer unlock()
	}
	tx, err := s.Fill(ctx, args)
	if err != nil {
		return common.Hash{}, err
	}
	signed, err := sign(tx, s.b.ChainConfig().ChainID)
	if err != nil {
		return common.Hash{}, err
	}
	return s.submit(ctx, signed)
}

// Sign is eth_signTransaction's work: every field but the ones it can
// derive (chain id, value, type) must be given, and the tx is signed, not
// sent.
func (s *TxSender) Sign(ctx context.Context, args TransactionArgs, sign SignFunc) (*SignTransactionResult, error) {
	switch {
	case args.Gas == nil:
		return nil, errors.New("gas not specified")
	case args.GasPrice == nil && (args.MaxPriorityFeePerGas == nil || args.MaxFeePerGas == nil):
		return nil, errors.New("missing gasPrice or maxFeePerGas/maxPriorityFeePerGas")
	case args.Nonce == nil:
		return nil, errors.New("nonce not specified")
	}
	tx, err := s.Fill(ctx, args)
	if err != nil {
		return nil, err
	}
	if err := checkTxFee(tx.GasPrice(), tx.Gas(), s.cfg.TxFeeCap); err != nil {
		return nil, err
	}
	signed, err := sign(tx, s.b.ChainConfig().ChainID)
	if err != nil {
		return nil, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &SignTransactionResult{Raw: raw, Tx: signed}, nil
}

// Fill completes args as go-ethereum's setDefaults does, except that a
// missing gas limit is DefaultGas, and builds the unsigned tx: EIP-1559
// unless gasPrice is given.
func (s *TxSender) Fill(ctx context.Context, args TransactionArgs) (*types.Transaction, error) {
	if err := s.feeDefaults(ctx, &args); err != nil {
		return nil, err
	}
	if args.Value == nil {
		args.Value = new(hexutil.Big)
	}
	if args.Nonce == nil {
		nonce, err := s.pendingNonce(args.from())
		if err != nil {
			return nil, err
		}
		args.Nonce = (*hexutil.Uint64)(&nonce)
	}
	data, err := args.data()
	if err != nil {
		return nil, err
	}
	if args.To == nil {
		if len(data) == 0 {
			return nil, errors.New(`contract creation without any data provided`)
		}
		if args.AuthorizationList != nil {
			return nil, errors.New(`authorizationList provided for contract creation, but "to" field is missing`)
		}
	}
	if args.Gas == nil {
		gas := hexutil.Uint64(DefaultGas)
		args.Gas = &gas
	}
	want := s.b.ChainConfig().ChainID
	if args.ChainID != nil {
		if have := args.ChainID.ToInt(); have.Cmp(want) != 0 {
			return nil, fmt.Errorf("chainId does not match node's (have=%v, want=%v)", have, want)
		}
	} else {
		args.ChainID = (*hexutil.Big)(want)
	}
	return args.toTransaction(data), nil
}

// feeDefaults is go-ethereum's setFeeDefaults on a London chain: a given
// fee mechanism is checked and kept; otherwise the tip eth_maxPriorityFeePerGas
// suggests and a fee cap of twice the next base fee plus the tip.
func (s *TxSender) feeDefaults(ctx context.Context, args *TransactionArgs) error {
	if args.GasPrice != nil && (args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil) {
		return errors.New("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if args.GasPrice != nil && args.AuthorizationList != nil {
		return errors.New("both gasPrice and authorizationList specified")
	}
	if args.GasPrice != nil {
		if args.GasPrice.ToInt().Sign() == 0 {
			return errors.New("gasPrice must be non-zero after london fork")
		}
		return nil
	}
	if args.MaxFeePerGas != nil && args.MaxPriorityFeePerGas != nil && args.MaxFeePerGas.ToInt().Sign() == 0 {
		return errors.New("maxFeePerGas must be non-zero")
	}
	if args.MaxPriorityFeePerGas == nil {
		tip, err := s.b.SuggestGasTipCap(ctx)
		if err != nil {
			return err
		}
		args.MaxPriorityFeePerGas = (*hexutil.Big)(tip)
	}
	if args.MaxFeePerGas == nil {
		fee := new(big.Int).Mul(s.b.NextBaseFee(), big.NewInt(2))
		args.MaxFeePerGas = (*hexutil.Big)(fee.Add(fee, args.MaxPriorityFeePerGas.ToInt()))
	}
	if args.MaxFeePerGas.ToInt().Cmp(args.MaxPriorityFeePerGas.ToInt()) < 0 {
		return fmt.Errorf("maxFeePerGas (%v) < maxPriorityFeePerGas (%v)", args.MaxFeePerGas, args.MaxPriorityFeePerGas)
	}
	return nil
}

// pendingNonce is the account's next nonce counting its pooled txs.
func (s *TxSender) pendingNonce(addr common.Address) (uint64, error) {
	head := s.b.Head()
	st, err := s.b.StateAt(head)
	if err != nil {
		return 0, err
	}
	return s.b.PendingNonce(addr, st.GetNonce(addr)), nil
}

// submit applies the checks eth_sendRawTransaction applies and sends.
func (s *TxSender) submit(ctx context.Context, tx *types.Transaction) (common.Hash, error) {
	if err := checkTxFee(tx.GasPrice(), tx.Gas(), s.cfg.TxFeeCap); err != nil {
		return common.Hash{}, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return common.Hash{}, err
	}
	if err := s.b.SendTransaction(ctx, tx, raw); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}

// from is the sender, the zero address when absent (which no keyring holds).
func (args *TransactionArgs) from() common.Address {
	if args.From == nil {
		return common.Address{}
	}
	return *args.From
}

// toTransaction builds the tx whose fields Fill completed, with go-ethereum's
// choice of type: set-code with an authorization list, legacy (or access
// list) with gasPrice, EIP-1559 otherwise.
func (args *TransactionArgs) toTransaction(data []byte) *types.Transaction {
	al := types.AccessList{}
	if args.AccessList != nil {
		al = *args.AccessList
	}
	nonce, gas, value, chainID := uint64(*args.Nonce), uint64(*args.Gas), args.Value.ToInt(), args.ChainID.ToInt()
	switch {
	case args.GasPrice != nil && args.AccessList != nil:
		return types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: args.GasPrice.ToInt(),
			Gas: gas, To: args.To, Value: value, Data: data, AccessList: al})
	case args.GasPrice != nil:
		return types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: args.GasPrice.ToInt(), Gas: gas,
			To: args.To, Value: value, Data: data})
	case args.AuthorizationList != nil:
		return types.NewTx(&types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Nonce: nonce,
			GasTipCap: uint256.MustFromBig(args.MaxPriorityFeePerGas.ToInt()), GasFeeCap: uint256.MustFromBig(args.MaxFeePerGas.ToInt()),
			Gas: gas, To: *args.To, Value: uint256.MustFromBig(value), Data: data, AccessList: al, AuthList: args.AuthorizationList})
	}
	return types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
		GasTipCap: args.MaxPriorityFeePerGas.ToInt(), GasFeeCap: args.MaxFeePerGas.ToInt(),
		Gas: gas, To: args.To, Value: value, Data: data, AccessList: al})
}

// addrLocker is a mutex per address, as go-ethereum's AddrLocker.
type addrLocker struct {
	mu    sync.Mutex
	locks map[common.Address]*sync.Mutex
}

// lock takes addr's mutex and returns its release.
func (l *addrLocker) lock(addr common.Address) func() {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[common.Address]*sync.Mutex)
	}
	m, ok := l.locks[addr]
	if !ok {
		m = new(sync.Mutex)
		l.locks[addr] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// SendTransaction signs a transaction with an unlocked key of the node and
// submits it (eth_sendTransaction). Missing fields are filled in: gas
// DefaultGas, nonce the pending nonce, EIP-1559 fees from the node's
// suggestions unless gasPrice is given, the chain id.
func (api *API) SendTransaction(ctx context.Context, args TransactionArgs) (common.Hash, error) {
	if api.impersonating(args.from()) { // impersonate.go
		return api.send.SendImpersonated(ctx, args, api.imp)
	}
	if err := api.holds(args.from()); err != nil {
		return common.Hash{}, err
	}
	return api.send.Send(ctx, args, api.signer(args.from()))
}

// SignTransaction signs a fully specified transaction with an unlocked key
// without sending it (eth_signTransaction).
func (api *API) SignTransaction(ctx context.Context, args TransactionArgs) (*SignTransactionResult, error) {
	if err := api.holds(args.from()); err != nil {
		return nil, err
	}
	return api.send.Sign(ctx, args, api.signer(args.from()))
}

// Sign signs keccak256("\x19Ethereum Signed Message:\n" + len(data) + data)
// with an unlocked key (eth_sign); V is 27 or 28, as every wallet verifies.
func (api *API) Sign(addr common.Address, data hexutil.Bytes) (hexutil.Bytes, error) {
	if err := api.holds(addr); err != nil {
		return nil, err
	}
	sig, err := api.keys.SignHash(addr, accounts.TextHash(data))
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// Accounts lists the addresses of the node's keyring (eth_accounts).
func (api *API) Accounts() []common.Address {
	if api.keys == nil {
		return []common.Address{}
	}
	return api.keys.Accounts()
}

// holds answers go-ethereum's "unknown account" for an address the keyring
// does not hold.
func (api *API) holds(addr common.Address) error {
	if api.keys == nil || !slices.Contains(api.keys.Accounts(), addr) {
		return accounts.ErrUnknownAccount
	}
	return nil
}

func (api *API) signer(addr common.Address) SignFunc {
	return func(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
		return api.keys.SignTx(addr, tx, chainID)
	}
}
