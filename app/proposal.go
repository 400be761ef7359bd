package app

import (
	"context"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"

	pool "github.com/emberchain/ember/txpool"
)

// PrepareProposal fills a block from the mempool's transactions: per sender in
// nonce order starting at its current nonce, highest effective tip first, up
// to the block gas limit and CometBFT's byte budget. Undecodable transactions
// and nonce-gapped ones stay out (the latter wait in the mempool).
func (a *App) PrepareProposal(_ context.Context, req *abci.RequestPrepareProposal) (*abci.ResponsePrepareProposal, error) {
	if err := a.ensureCheckState(); err != nil {
		return nil, err
	}
	raws := make(map[*pool.Tx][]byte, len(req.Txs))
	candidates := make([]*pool.Tx, 0, len(req.Txs))
	for _, raw := range req.Txs {
		ptx, _, err := a.decode(raw, pool.KeyOf(raw))
		if err != nil {
			continue
		}
		raws[ptx] = raw
		candidates = append(candidates, ptx)
	}
	head := a.store.Head()
	nonce := func(addr common.Address) uint64 { return a.checkState.GetNonce(addr) }
	ordered := pool.Order(candidates, nonce, a.nextBaseFee(), head.GasLimit)

	out := make([][]byte, 0, len(ordered))
	var size int64
	for _, ptx := range ordered {
		raw := raws[ptx]
		if size+int64(len(raw)) > req.MaxTxBytes {
			break
		}
		size += int64(len(raw))
		out = append(out, raw)
	}
	return &abci.ResponsePrepareProposal{Txs: out}, nil
}

// ProcessProposal accepts every proposal: execution is deterministic and
// rejects any transaction that cannot run (result code > 1, no receipt), so a
// block with bad transactions costs its proposer the space, not the chain its
// safety.
func (a *App) ProcessProposal(context.Context, *abci.RequestProcessProposal) (*abci.ResponseProcessProposal, error) {
	return &abci.ResponseProcessProposal{Status: abci.ResponseProcessProposal_ACCEPT}, nil
}
