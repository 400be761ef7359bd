package indexer

import (
	"context"
	"encoding/binary"
	"math/big"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// Event signatures of the token standards.
var (
	topicTransfer       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	topicTransferSingle = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	topicTransferBatch  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
)

// Selectors of the calls the indexer makes.
var (
	selName              = selector("name()")
	selSymbol            = selector("symbol()")
	selDecimals          = selector("decimals()")
	selTotalSupply       = selector("totalSupply()")
	selSupportsInterface = selector("supportsInterface(bytes4)")
	selTokenURI          = selector("tokenURI(uint256)")
	selURI               = selector("uri(uint256)")
)

// ERC-165 interface ids.
var (
	ifaceERC721  = [4]byte{0x80, 0xac, 0x58, 0xcd}
	ifaceERC1155 = [4]byte{0xd9, 0xb6, 0x7a, 0x26}
)

func selector(sig string) []byte { return crypto.Keccak256([]byte(sig))[:4] }

// maxBatchIDs bounds the ids one TransferBatch log may carry: more is not a
// real batch, and would only make the indexer allocate.
const maxBatchIDs = 10000

// TokenTransfers reads the token transfers of a block's logs: ERC-20
// Transfer (3 topics, 32 bytes of data), ERC-721 Transfer (4 topics),
// ERC-1155 TransferSingle and TransferBatch. Logs of other shapes are not
// transfers.
func TokenTransfers(b *explorer.Block, logs []explorer.Log) []explorer.TokenTransfer {
	var out []explorer.TokenTransfer
	for i := range logs {
		l := &logs[i]
		if len(l.Topics) == 0 {
			continue
		}
		base := explorer.TokenTransfer{BlockNumber: b.Number, BlockHash: b.Hash, LogIndex: l.Index, TxHash: l.TxHash,
			TxIndex: l.TxIndex, Time: b.Time, Token: l.Address}
		switch l.Topics[0] {
		case topicTransfer:
			t := base
			switch {
			case len(l.Topics) == 3 && len(l.Data) == 32:
				t.Type, t.Amount = explorer.ERC20, new(big.Int).SetBytes(l.Data)
			case len(l.Topics) == 4 && len(l.Data) == 0:
				t.Type = explorer.ERC721
				t.TokenID, t.Amount = new(big.Int).SetBytes(l.Topics[3][:]), big.NewInt(1)
			default:
				continue
			}
			t.From, t.To = common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:])
			out = append(out, t)
		case topicTransferSingle:
			if len(l.Topics) != 4 || len(l.Data) != 64 {
				continue
			}
			t := base
			t.Type, t.From, t.To = explorer.ERC1155, common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:])
			t.TokenID, t.Amount = new(big.Int).SetBytes(l.Data[:32]), new(big.Int).SetBytes(l.Data[32:])
			out = append(out, t)
		case topicTransferBatch:
			if len(l.Topics) != 4 {
				continue
			}
			ids, ok1 := uintArray(l.Data, 0)
			amounts, ok2 := uintArray(l.Data, 1)
			if !ok1 || !ok2 || len(ids) != len(amounts) {
				continue
			}
			for j := range ids {
				t := base
				t.Type, t.From, t.To = explorer.ERC1155, common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:])
				t.TokenID, t.Amount, t.BatchIndex, t.Batch = ids[j], amounts[j], j, true
				out = append(out, t)
			}
		}
	}
	return out
}

// word reads the 32-byte word at offset off of data as a small integer;
// ok is false past the end or above 2^32.
func word(data []byte, off uint64) (uint64, bool) {
	if off+32 < off || off+32 > uint64(len(data)) {
		return 0, false
	}
	w := data[off : off+32]
	for _, b := range w[:28] {
		if b != 0 {
			return 0, false
		}
	}
	return uint64(binary.BigEndian.Uint32(w[28:])), true
}

// uintArray decodes the arg-th head slot of ABI data as a dynamic uint256[].
func uintArray(data []byte, arg uint64) ([]*big.Int, bool) {
	off, ok := word(data, arg*32)
	if !ok {
		return nil, false
	}
	n, ok := word(data, off)
	if !ok || n > maxBatchIDs || off+32+n*32 > uint64(len(data)) {
		return nil, false
	}
	out := make([]*big.Int, n)
	for i := uint64(0); i < n; i++ {
		start := off + 32 + i*32
		out[i] = new(big.Int).SetBytes(data[start : start+32])
	}
	return out, true
}

// tokenCache remembers which tokens the indexer has read the name, symbol
// and type of, so each is called once per process (a restart reads them
// again, which the store's upsert absorbs).
type tokenCache struct {
	mu    sync.Mutex
	known map[common.Address]string // token -> type
}

func (c *tokenCache) get(a common.Address) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.known[a]
	return t, ok
}

func (c *tokenCache) put(a common.Address, typ string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known == nil {
		c.known = map[common.Address]string{}
	}
	c.known[a] = typ
}

// buildTokens fills ib's token transfers, and, when the source can run
// calls, the metadata of tokens met for the first time and the total supply
// of tokens minted or burnt in the block. A call that fails leaves the
// field empty: a token that does not answer must not stop indexing.
func (ix *Indexer) buildTokens(ctx context.Context, ib *explorer.IndexedBlock) {
	ib.TokenTransfers = TokenTransfers(&ib.Block, ib.Logs)
	if len(ib.TokenTransfers) == 0 {
		return
	}
	// The addresses tokens moved between are the block's too: they get
	// their address rows (and balances) as Blockscout gives them.
	known := map[common.Address]bool{}
	for _, t := range ib.Touched {
		known[t.Address] = true
	}
	for i := range ib.TokenTransfers {
		for _, a := range []common.Address{ib.TokenTransfers[i].From, ib.TokenTransfers[i].To} {
			if !known[a] {
				known[a] = true
				ib.Touched = append(ib.Touched, explorer.Touched{Address: a})
			}
		}
	}
	caller, _ := ix.src.(explorer.Caller)
	var order []common.Address
	seen := map[common.Address]*explorer.TokenMeta{}
	for i := range ib.TokenTransfers {
		t := &ib.TokenTransfers[i]
		m := seen[t.Token]
		if m == nil {
			m = &explorer.TokenMeta{Address: t.Token, Type: t.Type}
			seen[t.Token] = m
			order = append(order, t.Token)
		}
		if (t.From == common.Address{} || t.To == common.Address{}) {
			m.Supply = true
		}
	}
	number := ib.Block.Number
	for _, a := range order {
		m := seen[a]
		if typ, ok := ix.tokens.get(a); ok {
			m.Type = typ
		} else {
			if caller != nil {
				readTokenInfo(ctx, caller, number, m)
				m.Supply = true
			}
			m.Info = true
			ix.tokens.put(a, m.Type)
		}
		if m.Supply && caller != nil {
			if out, err := caller.Call(ctx, number, a, selTotalSupply); err == nil && len(out) == 32 {
				m.TotalSupply = new(big.Int).SetBytes(out)
			}
		} else {
			m.Supply = false
		}
		ib.Tokens = append(ib.Tokens, *m)
	}
}

// readTokenInfo asks the contract which standard it implements (ERC-165;
// otherwise the shape of its first log decides) and reads name, symbol and,
// for ERC-20, decimals.
func readTokenInfo(ctx context.Context, c explorer.Caller, number uint64, m *explorer.TokenMeta) {
	supports := func(id [4]byte) bool {
		data := append(append([]byte{}, selSupportsInterface...), common.RightPadBytes(id[:], 32)...)
		out, err := c.Call(ctx, number, m.Address, data)
		return err == nil && len(out) == 32 && new(big.Int).SetBytes(out).Cmp(big.NewInt(1)) == 0
	}
	switch {
	case supports(ifaceERC1155):
		m.Type = explorer.ERC1155
	case supports(ifaceERC721):
		m.Type = explorer.ERC721
	}
	if out, err := c.Call(ctx, number, m.Address, selName); err == nil {
		m.Name = decodeString(out, maxTokenString)
	}
	if out, err := c.Call(ctx, number, m.Address, selSymbol); err == nil {
		m.Symbol = decodeString(out, maxTokenString)
	}
	if m.Type == explorer.ERC20 {
		if out, err := c.Call(ctx, number, m.Address, selDecimals); err == nil && len(out) == 32 {
			if d := new(big.Int).SetBytes(out); d.Cmp(big.NewInt(255)) <= 0 {
				m.Decimals = d
			}
		}
	}
}

// maxTokenString bounds a name or symbol kept; maxTokenURI a metadata URI,
// which on-chain NFTs fill with whole data: JSON documents and images.
const (
	maxTokenString = 256
	maxTokenURI    = 1 << 20
)

// decodeString reads an ABI string return value, or a bytes32 one (old
// tokens such as MKR's), as valid UTF-8 without NULs, cut to max bytes;
// nil when it is neither.
func decodeString(out []byte, max int) *string {
	var s string
	switch {
	case len(out) == 32:
		s = string(common.TrimRightZeroes(out))
	case len(out) >= 64:
		off, ok := word(out, 0)
		if !ok {
			return nil
		}
		n, ok := word(out, off)
		if !ok || off+32+n > uint64(len(out)) {
			return nil
		}
		s = string(out[off+32 : off+32+n])
	default:
		return nil
	}
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
	for len(s) > max {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return &s
}

// TokenURI reads an NFT's metadata URI at block number: tokenURI(id) for
// ERC-721, uri(id) for ERC-1155 with "{id}" replaced by the id in 64 hex
// digits as the standard says.
func TokenURI(ctx context.Context, c explorer.Caller, number uint64, token common.Address, typ string, id *big.Int) (string, error) {
	sel := selTokenURI
	if typ == explorer.ERC1155 {
		sel = selURI
	}
	data := append(append([]byte{}, sel...), common.BigToHash(id).Bytes()...)
	out, err := c.Call(ctx, number, token, data)
	if err != nil {
		return "", err
	}
	// A URI longer than maxTokenURI would be cut: useless, so refused.
	s := decodeString(out, maxTokenURI)
	if s == nil || len(out) == 32 || len(out) > maxTokenURI+64 {
		return "", errBadURI
	}
	uri := *s
	if typ == explorer.ERC1155 {
		uri = strings.ReplaceAll(uri, "{id}", common.Bytes2Hex(common.BigToHash(id).Bytes()))
	}
	return uri, nil
}

type uriError string

func (e uriError) Error() string { return string(e) }

const errBadURI = uriError("token URI call returned no string")
