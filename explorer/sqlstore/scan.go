package sqlstore

import (
	"database/sql"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

// Column lists and the scanners that read them, in the same order.
const (
	blockCols = `number, hash, parent_hash, miner, timestamp, gas_used, gas_limit, base_fee, size, tx_count,
		state_root, extra_data, nonce, difficulty, burnt_fees, priority_fee, tx_fees, comet_hash`
	txCols = `t.hash, t.block_number, t.tx_index, t.block_hash, t.timestamp, t.from_addr, t.to_addr, t.created_contract,
		t.value, t.gas, t.gas_used, t.gas_price, t.max_fee, t.max_tip, t.base_fee, t.nonce, t.type, t.status, t.input,
		t.fee, t.burnt_fee`
	logCols     = `block_number, log_index, block_hash, tx_hash, tx_index, address, topic0, topic1, topic2, topic3, data`
	addressCols = `hash, balance, balance_block, first_seen, last_seen, tx_count, gas_used, blocks_validated,
		is_contract, creator, creation_tx`
)

type scanner interface{ Scan(dest ...any) error }

// decoder collects the first error of the conversions of one row.
type decoder struct {
	d   dialect
	err error
}

func (c *decoder) wei(s string) *big.Int {
	v, err := c.d.decodeWei(s)
	if err != nil && c.err == nil {
		c.err = err
	}
	return v
}

func (c *decoder) optWei(s sql.NullString) *big.Int {
	if !s.Valid {
		return nil
	}
	return c.wei(s.String)
}

func (c *decoder) bytes(s string) []byte {
	b, err := hexutil.Decode(s)
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("bad hex %q in database", s)
	}
	return b
}

func (c *decoder) hash(s string) common.Hash { return common.BytesToHash(c.bytes(s)) }

func (c *decoder) addr(s string) common.Address { return common.BytesToAddress(c.bytes(s)) }

func (c *decoder) optAddr(s sql.NullString) *common.Address {
	if !s.Valid {
		return nil
	}
	a := c.addr(s.String)
	return &a
}

func (c *decoder) optHash(s sql.NullString) *common.Hash {
	if !s.Valid {
		return nil
	}
	h := c.hash(s.String)
	return &h
}

func (s *Store) scanBlock(r scanner) (*explorer.Block, error) {
	var (
		b                                 explorer.Block
		num, ts, gasUsed, gasLimit, size  int64
		hash, parent, miner, root, nonce  string
		baseFee                           sql.NullString
		extra                             []byte
		difficulty, burnt, priority, fees string
		comet                             sql.NullString
	)
	if err := r.Scan(&num, &hash, &parent, &miner, &ts, &gasUsed, &gasLimit, &baseFee, &size, &b.TxCount,
		&root, &extra, &nonce, &difficulty, &burnt, &priority, &fees, &comet); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	b.Number, b.Time, b.GasUsed, b.GasLimit, b.Size = uint64(num), uint64(ts), uint64(gasUsed), uint64(gasLimit), uint64(size)
	b.Hash, b.ParentHash, b.Miner, b.StateRoot = c.hash(hash), c.hash(parent), c.addr(miner), c.hash(root)
	b.BaseFee, b.ExtraData = c.optWei(baseFee), extra
	b.Nonce = new(big.Int).SetBytes(c.bytes(nonce)).Uint64()
	b.Difficulty, b.BurntFees, b.PriorityFee, b.TxFees = c.wei(difficulty), c.wei(burnt), c.wei(priority), c.wei(fees)
	if comet.Valid {
		b.CometHash = c.bytes(comet.String)
	}
	return &b, c.err
}

func (s *Store) scanTx(r scanner) (*explorer.Tx, error) {
	var (
		t                                 explorer.Tx
		num, ts, gas, gasUsed, nonce      int64
		typ, status                       int
		hash, blockHash, from             string
		to, created, maxFee, maxTip, base sql.NullString
		value, price, fee, burnt          string
	)
	if err := r.Scan(&hash, &num, &t.Index, &blockHash, &ts, &from, &to, &created, &value, &gas, &gasUsed, &price,
		&maxFee, &maxTip, &base, &nonce, &typ, &status, &t.Input, &fee, &burnt); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	t.Hash, t.BlockNumber, t.BlockHash, t.Time = c.hash(hash), uint64(num), c.hash(blockHash), uint64(ts)
	t.From, t.To, t.Created = c.addr(from), c.optAddr(to), c.optAddr(created)
	t.Value, t.Gas, t.GasUsed, t.GasPrice = c.wei(value), uint64(gas), uint64(gasUsed), c.wei(price)
	t.MaxFee, t.MaxTip, t.BaseFee = c.optWei(maxFee), c.optWei(maxTip), c.optWei(base)
	t.Nonce, t.Type, t.Status = uint64(nonce), uint8(typ), uint8(status)
	t.Fee, t.BurntFee = c.wei(fee), c.wei(burnt)
	return &t, c.err
}

func (s *Store) scanLog(r scanner) (*explorer.Log, error) {
	var (
		l                       explorer.Log
		num, idx, txIdx         int64
		blockHash, txHash, addr string
		topics                  [4]sql.NullString
	)
	if err := r.Scan(&num, &idx, &blockHash, &txHash, &txIdx, &addr, &topics[0], &topics[1], &topics[2], &topics[3], &l.Data); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	l.BlockNumber, l.Index, l.TxIndex = uint64(num), uint(idx), uint(txIdx)
	l.BlockHash, l.TxHash, l.Address = c.hash(blockHash), c.hash(txHash), c.addr(addr)
	for _, t := range topics {
		if t.Valid {
			l.Topics = append(l.Topics, c.hash(t.String))
		}
	}
	return &l, c.err
}

func (s *Store) scanAddress(r scanner) (*explorer.Address, error) {
	var (
		a                                                          explorer.Address
		hash, balance                                              string
		balBlock, first, last, txCount, gasUsed, validated, isCont int64
		creator, creationTx                                        sql.NullString
	)
	if err := r.Scan(&hash, &balance, &balBlock, &first, &last, &txCount, &gasUsed, &validated, &isCont, &creator, &creationTx); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	a.Hash, a.Balance, a.BalanceBlock = c.addr(hash), c.wei(balance), uint64(balBlock)
	a.FirstSeen, a.LastSeen, a.TxCount, a.GasUsed = uint64(first), uint64(last), uint64(txCount), uint64(gasUsed)
	a.BlocksValidated, a.IsContract = uint64(validated), isCont == 1
	a.Creator, a.CreationTx = c.optAddr(creator), c.optHash(creationTx)
	return &a, c.err
}
