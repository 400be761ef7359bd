package eth

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// maxGetProofKeys bounds the storage keys of one eth_getProof, as in geth.
const maxGetProofKeys = 1024

// AccountResult is the eth_getProof answer.
type AccountResult struct {
	Address      common.Address  `json:"address"`
	AccountProof []string        `json:"accountProof"`
	Balance      *hexutil.Big    `json:"balance"`
	CodeHash     common.Hash     `json:"codeHash"`
	Nonce        hexutil.Uint64  `json:"nonce"`
	StorageHash  common.Hash     `json:"storageHash"`
	StorageProof []StorageResult `json:"storageProof"`
}

// StorageResult is the proof of one storage slot.
type StorageResult struct {
	Key   string       `json:"key"`
	Value *hexutil.Big `json:"value"`
	Proof []string     `json:"proof"`
}

// proofList collects trie proof nodes as hex strings.
type proofList []string

func (n *proofList) Put(_ []byte, value []byte) error {
	*n = append(*n, hexutil.Encode(value))
	return nil
}

func (n *proofList) Delete([]byte) error { return errors.New("not supported") }

// GetProof returns the Merkle proofs of an account and some of its storage
// slots against the state root of the given block (default latest); they
// verify with go-ethereum's trie.VerifyProof.
func (api *API) GetProof(ctx context.Context, address common.Address, storageKeys []string, bnh *rpc.BlockNumberOrHash) (*AccountResult, error) {
	if len(storageKeys) > maxGetProofKeys {
		return nil, invalidParams("too many storage keys requested (max %d, got %d)", maxGetProofKeys, len(storageKeys))
	}
	keys := make([]common.Hash, len(storageKeys))
	keyLengths := make([]int, len(storageKeys))
	for i, hexKey := range storageKeys {
		var err error
		if keys[i], keyLengths[i], err = decodeStorageKey(hexKey); err != nil {
			return nil, invalidParams("%v: %q", err, hexKey)
		}
	}
	st, header, err := api.stateAt(orLatest(bnh))
	if err != nil {
		return nil, err
	}
	storageRoot := st.GetStorageRoot(address)
	storageProof, err := proveStorage(ctx, st, header, address, storageRoot, keys, keyLengths)
	if err != nil {
		return nil, err
	}
	tr, err := st.Database().OpenTrie(header.Root)
	if err != nil {
		return nil, err
	}
	var accountProof proofList
	if err := tr.Prove(crypto.Keccak256(address.Bytes()), &accountProof); err != nil {
		return nil, err
	}
	return &AccountResult{
		Address:      address,
		AccountProof: accountProof,
		Balance:      (*hexutil.Big)(st.GetBalance(address).ToBig()),
		CodeHash:     st.GetCodeHash(address),
		Nonce:        hexutil.Uint64(st.GetNonce(address)),
		StorageHash:  storageRoot,
		StorageProof: storageProof,
	}, st.Error()
}

func proveStorage(ctx context.Context, st *state.StateDB, header *types.Header, address common.Address, storageRoot common.Hash, keys []common.Hash, keyLengths []int) ([]StorageResult, error) {
	out := make([]StorageResult, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	var storageTrie state.Trie
	if storageRoot != types.EmptyRootHash && storageRoot != (common.Hash{}) {
		t, err := st.Database().OpenStorageTrie(header.Root, address, storageRoot, nil)
		if err != nil {
			return nil, err
		}
		storageTrie = t
	}
	for i, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// A 32-byte key is echoed as given; shorter ones as a QUANTITY, as
		// geth does for compatibility.
		outputKey := hexutil.Encode(key[:])
		if keyLengths[i] != 32 {
			outputKey = hexutil.EncodeBig(key.Big())
		}
		if storageTrie == nil {
			out[i] = StorageResult{outputKey, &hexutil.Big{}, []string{}}
			continue
		}
		var proof proofList
		if err := storageTrie.Prove(crypto.Keccak256(key.Bytes()), &proof); err != nil {
			return nil, err
		}
		out[i] = StorageResult{outputKey, (*hexutil.Big)(st.GetState(address, key).Big()), proof}
	}
	return out, nil
}

// decodeStorageKey reads a storage slot of at most 32 bytes, with or without
// 0x, odd length allowed, as geth does; it also returns the input's length
// in bytes.
func decodeStorageKey(s string) (common.Hash, int, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if len(s)&1 > 0 {
		s = "0" + s
	}
	if len(s) > 64 {
		return common.Hash{}, len(s) / 2, errors.New("storage key too long (want at most 32 bytes)")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return common.Hash{}, 0, errors.New("invalid hex in storage key")
	}
	return common.BytesToHash(b), len(b), nil
}
