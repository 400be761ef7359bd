package perturb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
)

// block is what every node must agree on for one height, and what the
// transaction and supply checks read.
type block struct {
	Number    hexutil.Uint64 `json:"number"`
	Hash      common.Hash    `json:"hash"`
	StateRoot common.Hash    `json:"stateRoot"`
	Parent    common.Hash    `json:"parentHash"`
	GasUsed   hexutil.Uint64 `json:"gasUsed"`
	BaseFee   *hexutil.Big   `json:"baseFeePerGas"`
	Txs       []blockTx      `json:"transactions"`
	// Time is CometBFT's header time (the eth timestamp has whole
	// seconds), from the first node's /blockchain.
	Time time.Time `json:"-"`
}

type blockTx struct {
	Hash  common.Hash    `json:"hash"`
	From  common.Address `json:"from"`
	Nonce hexutil.Uint64 `json:"nonce"`
}

// cometBlock is CometBFT's view of one height.
type cometBlock struct {
	Hash    string
	AppHash string
	Time    time.Time
}

// Fork is a height at which a node differs from the first node.
type Fork struct {
	Height uint64
	Node   string
	What   string
}

// readBlocks reads heights 1..to with full transactions, in batches.
func readBlocks(ctx context.Context, n *Node, to uint64) ([]block, error) {
	c, err := n.RPC()
	if err != nil {
		return nil, err
	}
	out := make([]block, to)
	const chunk = 100
	for from := uint64(1); from <= to; from += chunk {
		last := min(to, from+chunk-1)
		batch := make([]rpc.BatchElem, 0, chunk)
		for h := from; h <= last; h++ {
			batch = append(batch, rpc.BatchElem{Method: "eth_getBlockByNumber",
				Args: []any{hexutil.EncodeUint64(h), true}, Result: &out[h-1]})
		}
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := c.BatchCallContext(cctx, batch)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: blocks %d..%d: %w", n.Name, from, last, err)
		}
		for i, el := range batch {
			if el.Error != nil {
				return nil, fmt.Errorf("%s: block %d: %w", n.Name, from+uint64(i), el.Error)
			}
			if got := uint64(out[from-1+uint64(i)].Number); got != from+uint64(i) {
				return nil, fmt.Errorf("%s: block %d answered as %d", n.Name, from+uint64(i), got)
			}
		}
	}
	return out, nil
}

// readCometBlocks reads CometBFT's block id and app hash of heights 1..to
// from /blockchain (at most 20 metas an answer).
func readCometBlocks(ctx context.Context, n *Node, to uint64) ([]cometBlock, error) {
	c, err := cmthttp.New("tcp://"+n.CometRPC, "/websocket")
	if err != nil {
		return nil, err
	}
	out := make([]cometBlock, to)
	for from := int64(1); from <= int64(to); from += 20 {
		last := min(int64(to), from+19)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		res, err := c.BlockchainInfo(cctx, from, last)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: /blockchain %d..%d: %w", n.Name, from, last, err)
		}
		for _, m := range res.BlockMetas {
			h := m.Header.Height
			if h < from || h > last {
				return nil, fmt.Errorf("%s: /blockchain %d..%d answered height %d", n.Name, from, last, h)
			}
			out[h-1] = cometBlock{Hash: m.BlockID.Hash.String(), AppHash: m.Header.AppHash.String(), Time: m.Header.Time}
		}
		for h := from; h <= last; h++ {
			if out[h-1].Hash == "" {
				return nil, fmt.Errorf("%s: /blockchain %d..%d lacks height %d", n.Name, from, last, h)
			}
		}
	}
	return out, nil
}

// compareChains reads heights 1..to on every node and lists every height
// at which a node's block hash, state root, parent, transactions, CometBFT
// block id or app hash differ from the first node's. It returns the first
// node's blocks for the other checks.
func compareChains(ctx context.Context, nodes []*Node, to uint64) ([]block, []Fork, error) {
	want, err := readBlocks(ctx, nodes[0], to)
	if err != nil {
		return nil, nil, err
	}
	wantComet, err := readCometBlocks(ctx, nodes[0], to)
	if err != nil {
		return nil, nil, err
	}
	for i := range want {
		want[i].Time = wantComet[i].Time
	}
	var forks []Fork
	for i := 1; i < len(want); i++ {
		if want[i].Parent != want[i-1].Hash {
			forks = append(forks, Fork{uint64(i + 1), nodes[0].Name, "parent hash is not block " + strconv.Itoa(i) + "'s hash"})
		}
	}
	for _, n := range nodes[1:] {
		got, err := readBlocks(ctx, n, to)
		if err != nil {
			return nil, nil, err
		}
		gotComet, err := readCometBlocks(ctx, n, to)
		if err != nil {
			return nil, nil, err
		}
		for i := range want {
			if what := blockDiff(want[i], got[i], wantComet[i], gotComet[i]); what != "" {
				forks = append(forks, Fork{uint64(i + 1), n.Name, what})
			}
		}
	}
	return want, forks, nil
}

// blockDiff names what differs between two nodes' views of one height.
func blockDiff(w, g block, wc, gc cometBlock) string {
	var diffs []string
	if w.Hash != g.Hash {
		diffs = append(diffs, fmt.Sprintf("hash %s vs %s", w.Hash, g.Hash))
	}
	if w.StateRoot != g.StateRoot {
		diffs = append(diffs, fmt.Sprintf("state root %s vs %s", w.StateRoot, g.StateRoot))
	}
	if w.Parent != g.Parent {
		diffs = append(diffs, "parent")
	}
	if len(w.Txs) != len(g.Txs) {
		diffs = append(diffs, fmt.Sprintf("%d vs %d txs", len(w.Txs), len(g.Txs)))
	} else {
		for j := range w.Txs {
			if w.Txs[j].Hash != g.Txs[j].Hash {
				diffs = append(diffs, fmt.Sprintf("tx %d", j))
				break
			}
		}
	}
	if wc.Hash != gc.Hash {
		diffs = append(diffs, fmt.Sprintf("CometBFT block id %s vs %s", wc.Hash, gc.Hash))
	}
	if wc.AppHash != gc.AppHash {
		diffs = append(diffs, fmt.Sprintf("app hash %s vs %s", wc.AppHash, gc.AppHash))
	}
	return strings.Join(diffs, ", ")
}

// TxOutcome is what became of the accepted transactions.
type TxOutcome struct {
	Included int
	Replaced []Accepted // another included tx of the same sender used its nonce
	Lost     []Accepted
	// Delays are the included transactions' times from acceptance to their
	// block's time, slowest first: a tx accepted by a node that then went
	// away waits for its return (journal replay, gossip on reconnect).
	Delays []Inclusion
}

// Inclusion is one included transaction's wait.
type Inclusion struct {
	Accepted
	Height uint64
	Delay  time.Duration
}

// Delay is the p-th percentile (0 < p ≤ 100) of the inclusion delays.
func (o TxOutcome) Delay(p float64) time.Duration {
	if len(o.Delays) == 0 {
		return 0
	}
	// Delays is sorted slowest first: the p-th percentile from the bottom
	// is the (100-p)-th from the top.
	i := int(float64(len(o.Delays)) * (100 - p) / 100)
	return o.Delays[min(i, len(o.Delays)-1)].Delay
}

// classify looks every accepted transaction up in the blocks: included
// (its hash is in a block), replaced (another tx of its sender with its
// nonce is) or lost.
func classify(accepted []Accepted, blocks []block) TxOutcome {
	type slot struct {
		from  common.Address
		nonce uint64
	}
	in := map[common.Hash]*block{}
	used := map[slot]bool{}
	for i, b := range blocks {
		for _, tx := range b.Txs {
			in[tx.Hash] = &blocks[i]
			used[slot{tx.From, uint64(tx.Nonce)}] = true
		}
	}
	var out TxOutcome
	for _, a := range accepted {
		switch b := in[a.Hash]; {
		case b != nil:
			out.Included++
			out.Delays = append(out.Delays, Inclusion{Accepted: a, Height: uint64(b.Number), Delay: b.Time.Sub(a.SentAt)})
		case used[slot{a.From, a.Nonce}]:
			out.Replaced = append(out.Replaced, a)
		default:
			out.Lost = append(out.Lost, a)
		}
	}
	sort.SliceStable(out.Delays, func(i, j int) bool { return out.Delays[i].Delay > out.Delays[j].Delay })
	return out
}

// Supply is the supply check's result.
type Supply struct {
	Genesis, Minted, Burned, Final *big.Int
	Slashes                        int
	Errors                         []string // every height (and node) where it does not hold
}

// checkSupply checks the invariant the e2e economics harness asserts
// (checkSupplyInvariant): at every height h of the first node, the bank
// supply (REST /cosmos/bank/v1beta1/supply at h) equals the genesis supply
// plus every FinalizeBlock mint minus every burn (base fee × gas of the EVM
// txs and of the charged native txs, gov deposit burns and slashes), and
// equals the supply the state records (bank.SupplyAddress slot 0). The
// other nodes' supply at the last height must be the same number.
func checkSupply(ctx context.Context, nodes []*Node, blocks []block, genesis *big.Int) (*Supply, error) {
	s := &Supply{Genesis: genesis, Minted: new(big.Int), Burned: new(big.Int)}
	n := nodes[0]
	comet, err := cmthttp.New("tcp://"+n.CometRPC, "/websocket")
	if err != nil {
		return nil, err
	}
	for i, b := range blocks {
		h := int64(i + 1)
		if b.BaseFee == nil {
			return nil, fmt.Errorf("block %d has no base fee", h)
		}
		s.Burned.Add(s.Burned, new(big.Int).Mul(b.BaseFee.ToInt(), new(big.Int).SetUint64(uint64(b.GasUsed))))
		if err := s.addFinalize(ctx, comet, h, b.BaseFee.ToInt()); err != nil {
			return nil, err
		}
		got, err := supplyAt(ctx, n, uint64(h))
		if err != nil {
			return nil, err
		}
		want := new(big.Int).Sub(new(big.Int).Add(genesis, s.Minted), s.Burned)
		if got.Cmp(want) != 0 {
			s.Errors = append(s.Errors, fmt.Sprintf("%s: supply at %d is %v, want genesis + minted %v - burned %v = %v (off by %v)",
				n.Name, h, got, s.Minted, s.Burned, want, new(big.Int).Sub(got, want)))
		}
		if rec, err := recordedSupply(ctx, n, uint64(h)); err != nil {
			return nil, err
		} else if rec.Cmp(got) != 0 {
			s.Errors = append(s.Errors, fmt.Sprintf("%s: at %d the state records a supply of %v, its balances add up to %v", n.Name, h, rec, got))
		}
		s.Final = got
	}
	last := uint64(len(blocks))
	for _, o := range nodes[1:] {
		got, err := supplyAt(ctx, o, last)
		if err != nil {
			return nil, err
		}
		if got.Cmp(s.Final) != 0 {
			s.Errors = append(s.Errors, fmt.Sprintf("%s: supply at %d is %v, %s's %v", o.Name, last, got, n.Name, s.Final))
		}
	}
	return s, nil
}

// govAccount is the gov module account (0x…0B50), which burns the deposits
// of vetoed proposals.
var govAccount = accounts.Bech32("ember", common.HexToAddress("0x0000000000000000000000000000000000000B50"))

// addFinalize adds height h's mints and non-EVM burns from /block_results.
func (s *Supply) addFinalize(ctx context.Context, c *cmthttp.HTTP, h int64, baseFee *big.Int) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := c.BlockResults(cctx, &h)
	if err != nil {
		return fmt.Errorf("block_results %d: %w", h, err)
	}
	for _, r := range res.TxsResults {
		// A native tx charged its fee emits a `tx` event with `fee`; it
		// burns base fee × gas used of it (native.Execute).
		for _, e := range r.Events {
			if e.Type == "tx" && attr(e.Attributes, "fee") != "" {
				s.Burned.Add(s.Burned, new(big.Int).Mul(baseFee, big.NewInt(r.GasUsed)))
				break
			}
		}
	}
	for _, e := range res.FinalizeBlockEvents {
		var amount string
		switch {
		case e.Type == "mint":
			if amount = attr(e.Attributes, "amount"); amount == "" {
				return fmt.Errorf("block %d: mint event without amount", h)
			}
			v, err := parseAmount(amount)
			if err != nil {
				return err
			}
			s.Minted.Add(s.Minted, v)
		case e.Type == "burn" && attr(e.Attributes, "burner") == govAccount:
			amount = attr(e.Attributes, "amount")
		case e.Type == "slash":
			if amount = attr(e.Attributes, "burned_coins"); amount == "" {
				if attr(e.Attributes, "jailed") != "" {
					continue // x/slashing's downtime notice; the slash itself follows
				}
				return fmt.Errorf("block %d: slash event without burned_coins", h)
			}
			s.Slashes++
		}
		if e.Type != "mint" && amount != "" {
			v, err := parseAmount(amount)
			if err != nil {
				return err
			}
			s.Burned.Add(s.Burned, v)
		}
	}
	return nil
}

// attr is the value of key among an event's attributes, "" when absent.
func attr(attrs []abci.EventAttribute, key string) string {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// parseAmount parses a decimal amount with or without the aember suffix.
func parseAmount(s string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(strings.TrimSuffix(s, "aember"), 10)
	if !ok {
		return nil, fmt.Errorf("amount %q", s)
	}
	return v, nil
}

// supplyAt is /cosmos/bank/v1beta1/supply at height h.
func supplyAt(ctx context.Context, n *Node, h uint64) (*big.Int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+n.REST+"/cosmos/bank/v1beta1/supply", nil)
	if err != nil {
		return nil, err
	}
	height := strconv.FormatUint(h, 10)
	req.Header.Set("x-cosmos-block-height", height)
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: supply at %d: %w", n.Name, h, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: supply at %d: HTTP %d %s", n.Name, h, res.StatusCode, body)
	}
	if got := res.Header.Get("Grpc-Metadata-X-Cosmos-Block-Height"); got != height {
		return nil, fmt.Errorf("%s: supply at %d answered for height %q", n.Name, h, got)
	}
	var v struct {
		Supply []struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"supply"`
	}
	if err := json.Unmarshal(body, &v); err != nil || len(v.Supply) != 1 || v.Supply[0].Denom != "aember" {
		return nil, fmt.Errorf("%s: supply at %d: %s (%v)", n.Name, h, body, err)
	}
	return parseAmount(v.Supply[0].Amount)
}

// recordedSupply is the total supply the state records at h.
func recordedSupply(ctx context.Context, n *Node, h uint64) (*big.Int, error) {
	eth, err := n.Eth()
	if err != nil {
		return nil, err
	}
	v, err := eth.StorageAt(ctx, bank.SupplyAddress, common.Hash{}, new(big.Int).SetUint64(h))
	if err != nil {
		return nil, fmt.Errorf("%s: recorded supply at %d: %w", n.Name, h, err)
	}
	return new(big.Int).SetBytes(v), nil
}

// GenesisSupply is every coin a home's genesis.json creates: the EVM
// allocation's balances plus the staking section's self-bonds, which
// InitGenesis mints into the bonded pool.
func GenesisSupply(home string) (*big.Int, error) {
	raw, err := os.ReadFile(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		return nil, err
	}
	var g struct {
		AppState struct {
			EVM struct {
				Alloc map[string]struct {
					Balance *math.HexOrDecimal256 `json:"balance"`
				} `json:"alloc"`
			} `json:"evm"`
			Staking *struct {
				Validators []struct {
					Tokens string `json:"tokens"`
				} `json:"validators"`
			} `json:"staking"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("genesis.json: %w", err)
	}
	total := new(big.Int)
	for _, a := range g.AppState.EVM.Alloc {
		if a.Balance != nil {
			total.Add(total, (*big.Int)(a.Balance))
		}
	}
	if g.AppState.Staking != nil {
		for _, v := range g.AppState.Staking.Validators {
			t, err := parseAmount(v.Tokens)
			if err != nil {
				return nil, err
			}
			total.Add(total, t)
		}
	}
	return total, nil
}
