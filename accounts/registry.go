package accounts

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// RegistryAddress holds the native account data (account numbers and public
// keys) in its storage, so the EVM state root, which is the AppHash, covers
// them and eth_getProof proves them. It has no code and nonce 1, so EIP-161
// never clears it. The layout is Solidity's for
//
//	uint256 count;                          // slot 0: numbers assigned so far
//	mapping(address => uint256) info;       // slot 1: key prefix byte << 248 | (number + 1)
//	mapping(address => bytes32) pubKeyX;    // slot 2: compressed key without its prefix byte
//
// so any EVM tool can read it.
var RegistryAddress = common.HexToAddress("0x0000000000000000000000000000000000000Acc")

// StateReader is the read side of a state: *state.StateDB satisfies it.
type StateReader interface {
	GetState(common.Address, common.Hash) common.Hash
}

// StateWriter can also write; *state.StateDB satisfies it.
type StateWriter interface {
	StateReader
	SetState(common.Address, common.Hash, common.Hash) common.Hash
	GetNonce(common.Address) uint64
	SetNonce(common.Address, uint64, tracing.NonceChangeReason)
	Exist(common.Address) bool
}

// Native is an account's native data.
type Native struct {
	Number uint64
	PubKey []byte // 33-byte compressed secp256k1 key; nil before the first signed tx
}

var countSlot = common.Hash{}

func slotOf(addr common.Address, mapping byte) common.Hash {
	var buf [64]byte
	copy(buf[12:32], addr[:])
	buf[63] = mapping
	return crypto.Keccak256Hash(buf[:])
}

// ReadNative returns addr's native data, and false when it has no number.
func ReadNative(st StateReader, addr common.Address) (Native, bool) {
	info := st.GetState(RegistryAddress, slotOf(addr, 1))
	plus1 := binary.BigEndian.Uint64(info[24:])
	if plus1 == 0 {
		return Native{}, false
	}
	n := Native{Number: plus1 - 1}
	if prefix := info[0]; prefix != 0 {
		x := st.GetState(RegistryAddress, slotOf(addr, 2))
		n.PubKey = append([]byte{prefix}, x[:]...)
	}
	return n, true
}

// register assigns addr the next account number unless it has one.
func register(st StateWriter, addr common.Address) {
	slot := slotOf(addr, 1)
	if info := st.GetState(RegistryAddress, slot); info != (common.Hash{}) {
		return
	}
	if st.GetNonce(RegistryAddress) == 0 {
		st.SetNonce(RegistryAddress, 1, tracing.NonceChangeGenesis)
	}
	count := st.GetState(RegistryAddress, countSlot)
	next := new(uint256.Int).SetBytes32(count[:])
	var info common.Hash
	binary.BigEndian.PutUint64(info[24:], next.Uint64()+1)
	st.SetState(RegistryAddress, slot, info)
	st.SetState(RegistryAddress, countSlot, next.AddUint64(next, 1).Bytes32())
}

// setPubKey records addr's compressed public key unless one is recorded.
// addr must have a number.
func setPubKey(st StateWriter, addr common.Address, compressed []byte) {
	slot := slotOf(addr, 1)
	info := st.GetState(RegistryAddress, slot)
	if info[0] != 0 || len(compressed) != 33 {
		return
	}
	info[0] = compressed[0]
	st.SetState(RegistryAddress, slot, info)
	st.SetState(RegistryAddress, slotOf(addr, 2), common.BytesToHash(compressed[1:]))
}

// GenesisAlloc returns alloc with the registry account added: the genesis
// accounts numbered from 0 in address order, as a chain's genesis accounts
// are numbered before any block.
func GenesisAlloc(alloc types.GenesisAlloc) types.GenesisAlloc {
	addrs := make([]common.Address, 0, len(alloc))
	for a := range alloc {
		if a != RegistryAddress {
			addrs = append(addrs, a)
		}
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
	storage := make(map[common.Hash]common.Hash, len(addrs)+1)
	for i, a := range addrs {
		var info common.Hash
		binary.BigEndian.PutUint64(info[24:], uint64(i)+1)
		storage[slotOf(a, 1)] = info
	}
	storage[countSlot] = common.BigToHash(new(uint256.Int).SetUint64(uint64(len(addrs))).ToBig())
	out := make(types.GenesisAlloc, len(alloc)+1)
	for a, acc := range alloc {
		out[a] = acc
	}
	out[RegistryAddress] = types.Account{Nonce: 1, Balance: new(uint256.Int).ToBig(), Storage: storage}
	return out
}

// Tracker collects, while a block executes, the addresses whose balance,
// nonce or code changed, in the order they were first touched: the accounts
// that may be new. Its hooks go on the block's EVM.
type Tracker struct {
	seen  map[common.Address]struct{}
	order []common.Address
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{seen: make(map[common.Address]struct{})} }

func (t *Tracker) touch(addr common.Address) {
	if _, ok := t.seen[addr]; ok {
		return
	}
	t.seen[addr] = struct{}{}
	t.order = append(t.order, addr)
}

// Hooks are the state hooks that feed the tracker.
func (t *Tracker) Hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnBalanceChange: func(addr common.Address, _, _ *big.Int, _ tracing.BalanceChangeReason) { t.touch(addr) },
		OnNonceChange:   func(addr common.Address, _, _ uint64) { t.touch(addr) },
		OnCodeChange:    func(addr common.Address, _ common.Hash, _ []byte, _ common.Hash, _ []byte) { t.touch(addr) },
	}
}

// Apply numbers the touched accounts that exist after the block and have no
// number yet (in first-touch order, so every validator assigns the same),
// then records the public key of each sender of an included tx that has
// none. signer recovers the keys.
func (t *Tracker) Apply(st StateWriter, signer types.Signer, included types.Transactions) error {
	for _, addr := range t.order {
		if addr != RegistryAddress && st.Exist(addr) {
			register(st, addr)
		}
	}
	// A burst's block holds many transactions per sender; each sender's
	// slot is hashed and read once.
	done := make(map[common.Address]struct{})
	for _, tx := range included {
		from, err := types.Sender(signer, tx) // cached by execution
		if err != nil {
			return err
		}
		if _, ok := done[from]; ok {
			continue
		}
		done[from] = struct{}{}
		info := st.GetState(RegistryAddress, slotOf(from, 1))
		if info[0] != 0 {
			continue
		}
		if info == (common.Hash{}) {
			register(st, from) // a sender always exists; defensive for gas-free chains
		}
		pub, err := TxPubKey(signer, tx)
		if err != nil {
			return err
		}
		setPubKey(st, from, pub)
	}
	return nil
}

// TxPubKey recovers the compressed public key that signed tx.
func TxPubKey(signer types.Signer, tx *types.Transaction) ([]byte, error) {
	v, r, s := tx.RawSignatureValues()
	sig := make([]byte, crypto.SignatureLength)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	// Legacy EIP-155 V is 35 + 2·chainID + parity; typed txs carry parity.
	parity := new(big.Int).Set(v)
	if tx.Type() == types.LegacyTxType {
		if tx.Protected() {
			parity.Sub(parity, new(big.Int).Mul(signer.ChainID(), big.NewInt(2)))
			parity.Sub(parity, big.NewInt(35))
		} else {
			parity.Sub(parity, big.NewInt(27))
		}
	}
	if !parity.IsUint64() || parity.Uint64() > 1 {
		return nil, fmt.Errorf("tx %s: invalid signature V %v", tx.Hash(), v)
	}
	sig[64] = byte(parity.Uint64())
	hash := signer.Hash(tx)
	if tx.Type() == types.LegacyTxType && !tx.Protected() {
		hash = types.HomesteadSigner{}.Hash(tx) // pre-EIP-155: no chain id signed
	}
	pub, err := crypto.SigToPub(hash.Bytes(), sig)
	if err != nil {
		return nil, fmt.Errorf("tx %s: recover public key: %w", tx.Hash(), err)
	}
	return crypto.CompressPubkey(pub), nil
}
