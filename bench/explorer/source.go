package main

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/explorer"
)

// synthSource is an explorer.Source that makes up a chain as the indexer
// reads it: blocks of EIP-1559 transactions between accounts picked with a
// Zipf law (a few hot accounts, a long tail), ERC-20 transfers with their
// Transfer log, swaps with three logs, contract creations and failed calls;
// receipts with gas, effective price and block-wide log indexes; and a
// balance ledger that moves value, fees and tips, so that balances read
// before and after each block differ exactly as a real chain's would.
//
// Blocks must be read in ascending order (the indexer does); a later start
// replays the earlier blocks to rebuild the ledger.
type synthSource struct {
	rng      *rand.Rand
	zipf     *rand.Zipf
	accounts []common.Address
	tokens   []common.Address // contracts that emit logs: the chain's first creations
	miners   []common.Address
	counts   []int // transactions per block
	start    uint64
	chainID  *big.Int
	signer   types.Signer

	ledger map[common.Address]*big.Int
	nonces map[common.Address]uint64
	next   uint64 // next block to generate
	parent common.Hash
	cur    *synthBlock // the last generated block

	// samples of what exists, for the API requests
	blockHashes, txHashes []common.Hash
	spent                 time.Duration // time spent making blocks up
}

type synthBlock struct {
	number        uint64
	sb            *explorer.SourceBlock
	before, after map[common.Address]*big.Int
}

// tokenCount is how many contracts the chain's calls go to.
const tokenCount = 50

var (
	baseFee      = big.NewInt(1_000_000_000) // 1 gwei
	tip          = big.NewInt(100_000_000)   // 0.1 gwei
	feeCap       = big.NewInt(3_000_000_000)
	startBalance = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	transferSig  = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	swapSig      = crypto.Keccak256Hash([]byte("Swap(address,uint256,uint256,uint256,uint256,address)"))
	syncSig      = crypto.Keccak256Hash([]byte("Sync(uint112,uint112)"))
)

// newSynthSource plans blocks 0..blocks-1 holding txs transactions in all
// (block 0, genesis, none), among accounts addresses, one block a second.
func newSynthSource(blocks, txs, accounts int, seed int64) *synthSource {
	rng := rand.New(rand.NewSource(seed))
	s := &synthSource{
		rng: rng, zipf: rand.NewZipf(rng, 1.2, 8, uint64(accounts-1)),
		start: uint64(time.Now().Unix()) - uint64(blocks), chainID: big.NewInt(31337),
		ledger: map[common.Address]*big.Int{}, nonces: map[common.Address]uint64{},
	}
	s.signer = types.LatestSignerForChainID(s.chainID)
	for i := 0; i < accounts; i++ {
		s.accounts = append(s.accounts, common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprint("account", i)))[:20]))
	}
	for i := 0; i < 4; i++ {
		s.miners = append(s.miners, common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprint("validator", i)))[:20]))
	}
	s.counts = spread(rng, blocks, txs)
	return s
}

// spread splits total over blocks 1..n-1 with random weights (busy and
// quiet blocks), exactly.
func spread(rng *rand.Rand, n, total int) []int {
	w := make([]float64, n)
	sum := 0.0
	for i := 1; i < n; i++ {
		w[i] = rng.ExpFloat64()
		sum += w[i]
	}
	counts := make([]int, n)
	cum, prev := 0.0, 0
	for i := 1; i < n; i++ {
		cum += w[i]
		upto := int(float64(total) * cum / sum)
		if i == n-1 {
			upto = total
		}
		counts[i], prev = upto-prev, upto
	}
	return counts
}

// Head implements explorer.Source.
func (s *synthSource) Head(context.Context) (uint64, bool, error) {
	return uint64(len(s.counts) - 1), true, nil
}

// Notify implements explorer.Source: the chain is complete, nothing comes.
func (s *synthSource) Notify() <-chan struct{} { return nil }

// Pending implements explorer.Source: no pool.
func (s *synthSource) Pending() []explorer.PendingTx { return nil }

// Block implements explorer.Source.
func (s *synthSource) Block(_ context.Context, number uint64) (*explorer.SourceBlock, error) {
	t0 := time.Now()
	defer func() { s.spent += time.Since(t0) }()
	if s.cur != nil && number == s.cur.number {
		return s.cur.sb, nil
	}
	if number < s.next {
		return nil, fmt.Errorf("synthetic block %d requested after %d: blocks are made in order", number, s.next)
	}
	for s.next <= number {
		s.cur = s.generate(s.next)
		s.next++
	}
	return s.cur.sb, nil
}

// Balances implements explorer.Source for the last block made and the one
// before it, which is what the indexer asks for.
func (s *synthSource) Balances(_ context.Context, number uint64, addrs []common.Address) ([]*big.Int, error) {
	if s.cur == nil || (number != s.cur.number && number+1 != s.cur.number) {
		return nil, fmt.Errorf("synthetic balances of block %d: only %d and the one before are kept", number, s.next-1)
	}
	out := make([]*big.Int, len(addrs))
	for i, a := range addrs {
		v, ok := s.cur.after[a]
		if number+1 == s.cur.number {
			v, ok = s.cur.before[a]
		}
		if !ok { // untouched by the block: the same before and after
			v = s.balance(a)
		}
		out[i] = new(big.Int).Set(v)
	}
	return out, nil
}

func (s *synthSource) balance(a common.Address) *big.Int {
	if v, ok := s.ledger[a]; ok {
		return v
	}
	return startBalance // every account is funded at genesis
}

// move adds delta to a's balance, remembering its value before the block.
func (s *synthSource) move(b *synthBlock, a common.Address, delta *big.Int) {
	old := s.balance(a)
	if _, ok := b.before[a]; !ok {
		b.before[a] = old
	}
	v := new(big.Int).Add(old, delta)
	s.ledger[a], b.after[a] = v, v
}

func (s *synthSource) account() common.Address { return s.accounts[s.zipf.Uint64()] }

// generate makes block number up and applies it to the ledger.
func (s *synthSource) generate(number uint64) *synthBlock {
	b := &synthBlock{number: number, before: map[common.Address]*big.Int{}, after: map[common.Address]*big.Int{}}
	miner := s.miners[number%uint64(len(s.miners))]
	var (
		txs      types.Transactions
		receipts types.Receipts
		senders  []common.Address
		gasUsed  uint64
		logIndex uint
	)
	for i := 0; i < s.counts[number]; i++ {
		tx, r, from := s.makeTx(number, uint(i), &logIndex)
		gasUsed += r.GasUsed
		r.CumulativeGasUsed = gasUsed
		txs, receipts, senders = append(txs, tx), append(receipts, r), append(senders, from)
		gas := new(big.Int).SetUint64(r.GasUsed)
		spent := new(big.Int).Mul(gas, r.EffectiveGasPrice)
		if r.Status == types.ReceiptStatusSuccessful {
			spent.Add(spent, tx.Value())
			if to := tx.To(); to != nil {
				s.move(b, *to, tx.Value())
			} else {
				s.move(b, r.ContractAddress, tx.Value())
			}
		}
		s.move(b, from, new(big.Int).Neg(spent))
		s.move(b, miner, new(big.Int).Mul(gas, tip))
	}
	s.move(b, miner, new(big.Int)) // the fee recipient is always touched
	header := &types.Header{
		ParentHash: s.parent, Coinbase: miner, Number: new(big.Int).SetUint64(number), Time: s.start + number,
		GasLimit: 30_000_000, GasUsed: gasUsed, BaseFee: baseFee, Difficulty: new(big.Int),
		Root: common.BigToHash(new(big.Int).SetUint64(s.rng.Uint64())), Extra: []byte("synthetic"),
	}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
	s.parent = block.Hash()
	for i, r := range receipts {
		r.BlockHash, r.BlockNumber, r.TransactionIndex = block.Hash(), header.Number, uint(i)
		for _, l := range r.Logs {
			l.BlockHash = block.Hash()
		}
	}
	if number%97 == 0 {
		s.blockHashes = append(s.blockHashes, block.Hash())
	}
	b.sb = &explorer.SourceBlock{Block: block, Receipts: receipts, Senders: senders}
	return b
}

// makeTx makes one transaction of block number at index i and its receipt:
// 60% coin transfers, 30% token transfers, 7% swaps, 2% failed calls, 1%
// contract creations.
func (s *synthSource) makeTx(number uint64, i uint, logIndex *uint) (*types.Transaction, *types.Receipt, common.Address) {
	from := s.account()
	nonce := s.nonces[from]
	s.nonces[from] = nonce + 1
	inner := &types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap}
	r := &types.Receipt{Type: types.DynamicFeeTxType, Status: types.ReceiptStatusSuccessful,
		EffectiveGasPrice: new(big.Int).Add(baseFee, tip)}
	var logs []*types.Log
	k := s.rng.Intn(100)
	if len(s.tokens) < tokenCount {
		k = 99 // the chain starts by deploying its tokens
	}
	switch {
	case k < 60:
		to := s.account()
		inner.To, inner.Gas, r.GasUsed = &to, 21_000, 21_000
		inner.Value = big.NewInt(s.rng.Int63n(1e18))
	case k < 97:
		token := s.tokens[s.rng.Intn(len(s.tokens))]
		to := s.account()
		inner.To, inner.Gas, inner.Value = &token, 120_000, new(big.Int)
		inner.Data = append(common.FromHex("a9059cbb"), common.LeftPadBytes(to[:], 32)...)
		inner.Data = append(inner.Data, common.LeftPadBytes(big.NewInt(s.rng.Int63()).Bytes(), 32)...)
		r.GasUsed = 51_000
		logs = append(logs, &types.Log{Address: token, Topics: []common.Hash{transferSig, addrTopic(from), addrTopic(to)},
			Data: inner.Data[36:]})
		if k >= 90 { // a swap: the pair's Sync and Swap too
			r.GasUsed = 110_000
			logs = append(logs, &types.Log{Address: token, Topics: []common.Hash{syncSig}, Data: make([]byte, 64)},
				&types.Log{Address: token, Topics: []common.Hash{swapSig, addrTopic(from), addrTopic(to)}, Data: make([]byte, 128)})
		}
	case k < 99:
		token := s.tokens[s.rng.Intn(len(s.tokens))]
		inner.To, inner.Gas, inner.Value, inner.Data = &token, 60_000, new(big.Int), common.FromHex("0xdeadbeef")
		r.Status, r.GasUsed = types.ReceiptStatusFailed, 23_000
	default:
		inner.Gas, inner.Value, inner.Data = 1_000_000, new(big.Int), make([]byte, 2048)
		r.GasUsed, r.ContractAddress = 600_000, crypto.CreateAddress(from, nonce)
		if len(s.tokens) < tokenCount {
			s.tokens = append(s.tokens, r.ContractAddress)
		}
	}
	sig := make([]byte, 65)
	s.rng.Read(sig[:64])
	tx, err := types.NewTx(inner).WithSignature(s.signer, sig)
	if err != nil {
		panic(err) // a 65-byte signature with recovery id 0 is always accepted
	}
	r.TxHash = tx.Hash()
	for _, l := range logs {
		l.BlockNumber, l.TxHash, l.TxIndex, l.Index = number, tx.Hash(), i, *logIndex
		*logIndex++
	}
	r.Logs = logs
	if s.rng.Intn(100) == 0 {
		s.txHashes = append(s.txHashes, tx.Hash())
	}
	return tx, r, from
}

func addrTopic(a common.Address) common.Hash { return common.BytesToHash(a[:]) }
