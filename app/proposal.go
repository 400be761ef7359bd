package app

import (
	"context"

	abci "github.com/cometbft/cometbft/abci/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	pool "github.com/emberchain/ember/txpool"
)

// PrepareProposal fills a block from the mempool's transactions that the
// pool holds as pending (a replaced or evicted one may linger in CometBFT's
// mempool until it is removed): per sender in nonce order starting at its
// current nonce, highest effective tip first, up to the block gas limit and
// CometBFT's byte budget. A node with an etherbase puts its coinbase marker
// first (see coinbaseMarker).
func (a *App) PrepareProposal(ctx context.Context, req *abci.RequestPrepareProposal) (*abci.ResponsePrepareProposal, error) {
	arrived := a.dev.awaitArrival(ctx, req.Txs) // proofwait.go; before checkMu, which CheckTx takes
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if err := a.ensureCheckState(); err != nil {
		return nil, err
	}
	var candidates []*pool.Tx
	if a.local.on { // local.go
		a.localProposing()
		candidates = a.proposable(req.Txs)
	} else {
		candidates = a.mempoolCandidates(req.Txs, arrived)
	}
	head := a.store.Head()
	nonce := func(addr common.Address) uint64 { return a.checkState.GetNonce(addr) }
	ordered := pool.Order(candidates, nonce, a.nextBaseFee(), head.GasLimit)

	out := make([][]byte, 0, len(ordered)+1)
	budget := req.MaxTxBytes
	if etherbase, ok := a.Etherbase(); ok && a.markersHonoured() {
		marker := coinbaseMarkerTx(etherbase)
		budget -= protoSize(marker)
		out = append(out, marker)
	}
	for _, raw := range a.dev.proposal(req.Txs, len(ordered) > 0) { // dev chains' dev transactions (dev.go)
		budget -= protoSize(raw)
		out = append(out, raw)
	}
	evmCap, capped := a.evmBytesCap(req.Time) // EIP-7934 (blocksize.go)
	evmSize := 0
	var overCap map[common.Address]bool // senders with a tx over EIP-7825's cap: their later nonces would not run
	for _, ptx := range ordered {
		if overCap[ptx.Sender] {
			continue
		}
		if budget -= protoSize(ptx.Raw); budget < 0 {
			break
		}
		if tx := ptx.EVM(); capped && tx != nil {
			if tx.Gas() > params.MaxTxGas { // admitted before Osaka; execution would reject it (EIP-7825)
				budget += protoSize(ptx.Raw)
				if overCap == nil {
					overCap = map[common.Address]bool{}
				}
				overCap[ptx.Sender] = true
				continue
			}
			if evmSize += len(ptx.Raw); evmSize > evmCap {
				break
			}
		}
		out = append(out, ptx.Raw)
	}
	return &abci.ResponsePrepareProposal{Txs: out}, nil
}

// mempoolCandidates are the transactions a proposal takes when they come
// from CometBFT's mempool: those of txs still pending, the held ones this
// proposal releases, and all pending ones when a proposal of none waited
// for an arrival.
func (a *App) mempoolCandidates(txs [][]byte, arrived bool) []*pool.Tx {
	if arrived { // txs was empty, so nothing is taken twice: take every pending one
		return a.pool.Pending()
	}
	candidates := make([]*pool.Tx, 0, len(txs))
	for _, raw := range txs {
		key := pool.KeyOf(raw)
		if a.pool.StatusOf(key) == pool.Pending {
			candidates = append(candidates, a.pool.Get(key))
		}
	}
	return append(candidates, a.dev.heldFor(txs)...) // automine.go
}

// protoSize is what raw adds to a block's data, as CometBFT counts it
// against MaxTxBytes.
func protoSize(raw []byte) int64 {
	return cmttypes.ComputeProtoSizeForTxs(cmttypes.Txs{raw})
}

// ProcessProposal accepts any proposal whose coinbase marker, if any, is a
// well-formed first transaction on a chain that honours markers (see Fee
// routing in miner.go) and, under Osaka, whose EVM transactions fit
// EIP-7934's block size cap (evmBytesCap): execution is deterministic and rejects any
// transaction that cannot run (result code > 1, no receipt), so a block with
// bad transactions costs its proposer the space, not the chain its safety.
func (a *App) ProcessProposal(_ context.Context, req *abci.RequestProcessProposal) (*abci.ResponseProcessProposal, error) {
	if !a.validMarkers(req.Txs) {
		return &abci.ResponseProcessProposal{Status: abci.ResponseProcessProposal_REJECT}, nil
	}
	if evmCap, capped := a.evmBytesCap(req.Time); capped && evmBytes(req.Txs) > evmCap {
		a.log.Info("proposal rejected: EVM transactions over the Osaka block size cap (EIP-7934)", "height", req.Height, "bytes", evmBytes(req.Txs), "cap", evmCap)
		return &abci.ResponseProcessProposal{Status: abci.ResponseProcessProposal_REJECT}, nil
	}
	return &abci.ResponseProcessProposal{Status: abci.ResponseProcessProposal_ACCEPT}, nil
}
