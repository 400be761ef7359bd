package e2e

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/test/perturb"
)

// economicsMerged switches on the assertions that need the chain's
// economics (staking's slashing semantics, distribution and mint, slashing
// with evidence, downtime and unjail, gentx genesis). Until those modules
// are merged the tests run only the parts today's chain can prove: the
// networks, the faults they inject (a double-signing validator, a stopped
// validator, SIGKILLs), the supply invariant and identical blocks on every
// node. The merger flips it.
const economicsMerged = true

// punishmentMerged switches on the double-sign and downtime assertions:
// staking's Slash/Jail/Unjail and the slashing module are merged.
const punishmentMerged = true

// testnetChainID is the chain id `emberd testnet init` gives a network.
const testnetChainID = "ember_9000-1"

// denom is the base denomination of every testnet.
const denom = "aember"

// govAccountBech32 is the gov module account (0x…0B50), which burns the
// deposits of vetoed proposals.
var govAccountBech32 = accounts.Bech32("ember", common.HexToAddress("0x0000000000000000000000000000000000000B50"))

// editGenesis rewrites the one genesis.json every home of nw shares,
// changing app_state through edit. It must run before any node's first
// start: CometBFT records the genesis it started from.
func editGenesis(nw *Network, edit func(appState map[string]json.RawMessage)) {
	t := nw.t
	t.Helper()
	homes := nw.manifest().Nodes
	first := filepath.Join(homes[0].Home, "config", "genesis.json")
	raw, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var appState map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &appState); err != nil {
		t.Fatal(err)
	}
	edit(appState)
	if doc["app_state"], err = json.Marshal(appState); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range homes {
		path := filepath.Join(h.Home, "config", "genesis.json")
		if was, err := os.ReadFile(path); err != nil || string(was) != string(raw) {
			t.Fatalf("%s: genesis differs from node0's before the edit (%v)", h.Name, err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// slashingParams is app_state.slashing.params in the SDK's genesis shape.
type slashingParams struct {
	SignedBlocksWindow      string `json:"signed_blocks_window"`
	MinSignedPerWindow      string `json:"min_signed_per_window"`
	DowntimeJailDuration    string `json:"downtime_jail_duration"`
	SlashFractionDoubleSign string `json:"slash_fraction_double_sign"`
	SlashFractionDowntime   string `json:"slash_fraction_downtime"`
}

// testSlashing are the slashing parameters of the slashing tests: a short
// window and jail so a downtime is seen within a test's run.
var testSlashing = slashingParams{
	SignedBlocksWindow:      "10",
	MinSignedPerWindow:      "0.500000000000000000",
	DowntimeJailDuration:    "20s",
	SlashFractionDowntime:   "0.010000000000000000",
	SlashFractionDoubleSign: "0.050000000000000000",
}

// setSlashingParams writes app_state.slashing = {"params": p} (the SDK's
// x/slashing GenesisState, no signing infos yet).
func setSlashingParams(nw *Network, p slashingParams) {
	editGenesis(nw, func(app map[string]json.RawMessage) {
		raw, err := json.Marshal(struct {
			Params slashingParams `json:"params"`
		}{p})
		if err != nil {
			nw.t.Fatal(err)
		}
		app["slashing"] = raw
	})
}

// genesisSupply is every coin genesis.json creates (perturb.GenesisSupply).
func genesisSupply(t *testing.T, nw *Network) *big.Int {
	t.Helper()
	total, err := perturb.GenesisSupply(nw.manifest().Nodes[0].Home)
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// mustInt parses a decimal amount, with or without the denom suffix.
func mustInt(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(strings.TrimSuffix(s, denom), 10)
	if !ok {
		t.Fatalf("amount %q is not a decimal amount of %s", s, denom)
	}
	return v
}

// supplyLedger is what checkSupplyInvariant counted up to Height.
type supplyLedger struct {
	Height  uint64
	Genesis *big.Int
	Minted  *big.Int // Σ mint events' amount
	Burned  *big.Int // base fees (EVM and native) plus slashes
	Slashed *big.Int // the slash events' burned_coins, part of Burned
	Slashes []blockEvent
	Mints   int // blocks with a mint event
	Native  int // native txs charged a fee
	EVMTxs  int

	// GovBurned is the gov account's burn events (deposits of vetoed or
	// dropped proposals), part of Burned.
	GovBurned *big.Int
}

// blockEvent is an event of a block's FinalizeBlock (begin/end block) with
// its height.
type blockEvent struct {
	Height int64
	Type   string
	Attrs  map[string]string
}

// checkSupplyInvariant checks at every height h in 1..to of n:
//
//	supply(h) = genesis + Σ minted(1..h) − Σ burned(1..h)
//
// where supply(h) is /cosmos/bank/v1beta1/supply read at h (the sum of
// every balance of the state: accounts, the staking pools, the
// distribution pool, the fee collector), minted is the amount of each
// `mint` event of FinalizeBlock, and burned is the base fee × gas used of
// each EVM tx (from the receipts), the base fee × gas used of each native
// tx charged a fee (its result carries the `tx` event with `fee`), and the
// burned_coins of each `slash` event. Where the state records a supply
// (bank.SupplyAddress), it must equal the sum of balances too.
//
// extra names burns no event reports, by height (the SDK's burned_coins
// leaves out the unbonding entries a slash cuts; a test that made one
// knows its cut).
func checkSupplyInvariant(t *testing.T, n *Node, genesis *big.Int, to uint64, extra map[uint64]*big.Int) *supplyLedger {
	t.Helper()
	l := &supplyLedger{Height: to, Genesis: genesis, Minted: new(big.Int), Burned: new(big.Int), Slashed: new(big.Int), GovBurned: new(big.Int)}
	headers, receipts := headersAndReceipts(t, n, to)
	comet := n.cometClient(t)
	recorded := 0
	for h := uint64(1); h <= to; h++ {
		header := headers[h-1]
		l.Burned.Add(l.Burned, evmBurn(t, header, receipts[h-1]))
		l.EVMTxs += len(receipts[h-1])
		res := blockResultsOf(t, comet, int64(h))
		nativeBurn, charged := nativeBurn(t, header.BaseFee, res.TxsResults)
		l.Native += charged
		l.Burned.Add(l.Burned, nativeBurn)
		if b, ok := extra[h]; ok {
			l.Burned.Add(l.Burned, b)
		}
		for _, ev := range finalizeEvents(int64(h), res.FinalizeBlockEvents) {
			switch ev.Type {
			case "mint":
				l.Minted.Add(l.Minted, mustInt(t, ev.Attrs["amount"]))
				l.Mints++
			case "burn":
				if ev.Attrs["burner"] == govAccountBech32 {
					l.GovBurned.Add(l.GovBurned, mustInt(t, ev.Attrs["amount"]))
					l.Burned.Add(l.Burned, mustInt(t, ev.Attrs["amount"]))
				}
			case "slash":
				burned, ok := ev.Attrs["burned_coins"]
				if _, jail := ev.Attrs["jailed"]; !ok && jail {
					continue // x/slashing's downtime notice; the slash itself follows
				}
				if !ok {
					t.Fatalf("block %d: slash event %v has no burned_coins: the supply check cannot count the burn", h, ev.Attrs)
				}
				l.Slashed.Add(l.Slashed, mustInt(t, burned))
				l.Burned.Add(l.Burned, mustInt(t, burned))
				l.Slashes = append(l.Slashes, ev)
			}
		}
		got := supplyAt(t, n, h)
		want := new(big.Int).Sub(new(big.Int).Add(genesis, l.Minted), l.Burned)
		if got.Cmp(want) != 0 {
			t.Fatalf("%s: supply at %d is %v, want genesis %v + minted %v - burned %v = %v (off by %v)",
				n.Home, h, got, genesis, l.Minted, l.Burned, want, new(big.Int).Sub(got, want))
		}
		if rec := recordedSupply(t, n, h); rec.Sign() != 0 || economicsMerged {
			recorded++
			if rec.Cmp(got) != 0 {
				t.Fatalf("%s: at %d the state records a supply of %v, its balances add up to %v", n.Home, h, rec, got)
			}
		}
	}
	t.Logf("%s: supply invariant holds at heights 1..%d: genesis %v, minted %v (%d blocks), burned %v (slashed %v in %d events, gov deposits %v), %d EVM txs, %d native txs; recorded supply checked at %d heights",
		n.Home, to, genesis, l.Minted, l.Mints, l.Burned, l.Slashed, len(l.Slashes), l.GovBurned, l.EVMTxs, l.Native, recorded)
	return l
}

// headersAndReceipts reads blocks 1..to and their receipts in batches.
func headersAndReceipts(t *testing.T, n *Node, to uint64) ([]*types.Header, [][]*types.Receipt) {
	t.Helper()
	headers := headersTo(t, n, to)
	receipts := make([][]*types.Receipt, to)
	batch := make([]rpc.BatchElem, to)
	for i := range batch {
		batch[i] = rpc.BatchElem{Method: "eth_getBlockReceipts", Args: []any{hexutil.EncodeUint64(uint64(i) + 1)}, Result: &receipts[i]}
	}
	n.mustBatch(t, batch)
	return headers, receipts
}

// evmBurn is the base fee × gas of a block's EVM txs, from its receipts;
// their gas must add up to the header's.
func evmBurn(t *testing.T, h *types.Header, receipts []*types.Receipt) *big.Int {
	t.Helper()
	var gas uint64
	for _, r := range receipts {
		gas += r.GasUsed
		if r.EffectiveGasPrice != nil && r.EffectiveGasPrice.Cmp(h.BaseFee) < 0 {
			t.Fatalf("block %v: tx %s paid %v per gas, under the base fee %v", h.Number, r.TxHash, r.EffectiveGasPrice, h.BaseFee)
		}
	}
	if gas != h.GasUsed {
		t.Fatalf("block %v: receipts use %d gas, the header %d", h.Number, gas, h.GasUsed)
	}
	return new(big.Int).Mul(h.BaseFee, new(big.Int).SetUint64(gas))
}

// nativeBurn is the base fee × gas used of the native txs of a block that
// were charged their fee (native.Execute burns that part of the fee and
// emits a `tx` event with `fee`; a tx refused before charging has no
// events), and how many there were.
func nativeBurn(t *testing.T, baseFee *big.Int, results []*abci.ExecTxResult) (*big.Int, int) {
	t.Helper()
	burned, count := new(big.Int), 0
	for _, r := range results {
		fee, ok := eventAttr(r.Events, "tx", "fee")
		if !ok {
			continue
		}
		count++
		b := new(big.Int).Mul(baseFee, big.NewInt(r.GasUsed))
		if mustInt(t, fee).Cmp(b) < 0 {
			t.Fatalf("native tx fee %s is less than base fee × gas used %v", fee, b)
		}
		burned.Add(burned, b)
	}
	return burned, count
}

// eventAttr is the first value of key in an event of type typ.
func eventAttr(events []abci.Event, typ, key string) (string, bool) {
	for _, e := range events {
		if e.Type != typ {
			continue
		}
		for _, a := range e.Attributes {
			if a.Key == key {
				return a.Value, true
			}
		}
	}
	return "", false
}

// finalizeEvents are a block's FinalizeBlock events with their
// attributes.
func finalizeEvents(height int64, events []abci.Event) []blockEvent {
	out := make([]blockEvent, 0, len(events))
	for _, e := range events {
		ev := blockEvent{Height: height, Type: e.Type, Attrs: map[string]string{}}
		for _, a := range e.Attributes {
			ev.Attrs[a.Key] = a.Value
		}
		out = append(out, ev)
	}
	return out
}

// supplyAt is /cosmos/bank/v1beta1/supply read at height h, which must
// answer for that height.
func supplyAt(t *testing.T, n *Node, h uint64) *big.Int {
	t.Helper()
	code, body, header := n.restGet(t, "/cosmos/bank/v1beta1/supply", "x-cosmos-block-height", jsonUint(h))
	if code != 200 {
		t.Fatalf("supply at %d: %d %s", h, code, body)
	}
	if got := header.Get("Grpc-Metadata-X-Cosmos-Block-Height"); got != jsonUint(h) {
		t.Fatalf("supply at %d answered for height %q", h, got)
	}
	var v struct {
		Supply []struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"supply"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || len(v.Supply) != 1 || v.Supply[0].Denom != denom {
		t.Fatalf("supply at %d: %s (%v)", h, body, err)
	}
	return mustInt(t, v.Supply[0].Amount)
}

// recordedSupply is the total supply the state records (bank.Supply) at h.
func recordedSupply(t *testing.T, n *Node, h uint64) *big.Int {
	t.Helper()
	v, err := n.Eth.StorageAt(ctx(t), bank.SupplyAddress, common.Hash{}, new(big.Int).SetUint64(h))
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(v)
}

// blockResults is CometBFT's /block_results at h.
func blockResults(t *testing.T, n *Node, h int64) *blockResultsView {
	t.Helper()
	return blockResultsOf(t, n.cometClient(t), h)
}

func blockResultsOf(t *testing.T, c *cmthttp.HTTP, h int64) *blockResultsView {
	t.Helper()
	res, err := c.BlockResults(ctx(t), &h)
	if err != nil {
		t.Fatalf("%s: block_results %d: %v", c.Remote(), h, err)
	}
	return &blockResultsView{TxsResults: res.TxsResults, FinalizeBlockEvents: res.FinalizeBlockEvents}
}

// blockResultsView is the part of /block_results the checks read.
type blockResultsView struct {
	TxsResults          []*abci.ExecTxResult
	FinalizeBlockEvents []abci.Event
}

// blockEvents are the FinalizeBlock events of type typ in heights from..to.
func blockEvents(t *testing.T, n *Node, typ string, from, to int64) []blockEvent {
	t.Helper()
	var out []blockEvent
	for h := from; h <= to; h++ {
		for _, ev := range finalizeEvents(h, blockResults(t, n, h).FinalizeBlockEvents) {
			if ev.Type == typ {
				out = append(out, ev)
			}
		}
	}
	return out
}

// checkEconomy is the end-of-test check every economics test runs: all
// nodes serve the same blocks up to the lowest head, the supply invariant
// holds at every height, read from each node (a restarted node serves its
// own store), and the pools hold what the staking (and, merged, the
// distribution) records say at the last height. It returns the first
// node's ledger.
func checkEconomy(t *testing.T, nw *Network, nodes ...*Node) *supplyLedger {
	t.Helper()
	return checkEconomyWith(t, nw, economyExpect{}, nodes...)
}

// economyExpect is what a test knows beyond the chain's records.
type economyExpect struct {
	// ExtraBurns are burns no event reports, by height (see
	// checkSupplyInvariant).
	ExtraBurns map[uint64]*big.Int
	// Unbondings are every (delegator, validator) pair with unbonding
	// entries: their balances are in the not-bonded pool.
	Unbondings []unbondingMade
}

// checkEconomyWith is checkEconomy with what the test knows.
func checkEconomyWith(t *testing.T, nw *Network, want economyExpect, nodes ...*Node) *supplyLedger {
	t.Helper()
	to := minHeight(t, nodes...)
	sameChain(t, to, nodes...)
	genesis := genesisSupply(t, nw)
	l := checkSupplyInvariant(t, nodes[0], genesis, to, want.ExtraBurns)
	for _, n := range nodes[1:] {
		checkSupplyInvariant(t, n, genesis, to, want.ExtraBurns)
	}
	checkPools(t, nodes[0], int64(to), want.Unbondings)
	return l
}

// Pool accounts (CONTRACT.md's system accounts).
var (
	bondedPool       = common.HexToAddress("0x0000000000000000000000000000000000000B0D")
	notBondedPool    = common.HexToAddress("0x0000000000000000000000000000000000000B0E")
	distributionPool = common.HexToAddress("0x0000000000000000000000000000000000000B11")
)

// checkPools checks at height h that the bonded pool holds exactly the
// tokens of the bonded validators, the not-bonded pool exactly those of the
// others plus the balances of the unbonding entries of the pairs in
// unbondings (the only ones the test made), and, merged, that the
// distribution pool holds the validators' outstanding rewards and the
// community pool, each truncated, plus less than one wei per record of
// dust.
func checkPools(t *testing.T, n *Node, h int64, unbondings []unbondingMade) {
	t.Helper()
	var v struct {
		Validators []stakingValidator `json:"validators"`
	}
	if code := restJSON(t, n, "/cosmos/staking/v1beta1/validators?pagination.limit=1000", h, &v); code != 200 {
		t.Fatalf("validators at %d: HTTP %d", h, code)
	}
	bonded, notBonded := new(big.Int), new(big.Int)
	for _, val := range v.Validators {
		if val.Status == "BOND_STATUS_BONDED" {
			bonded.Add(bonded, mustInt(t, val.Tokens))
		} else {
			notBonded.Add(notBonded, mustInt(t, val.Tokens))
		}
	}
	seen := map[[2]common.Address]bool{}
	for _, u := range unbondings {
		if pair := [2]common.Address{u.Delegator, u.Operator}; !seen[pair] {
			seen[pair] = true
			for _, e := range unbondingEntriesAt(t, n, u.Delegator, u.Operator, h) {
				notBonded.Add(notBonded, mustInt(t, e.Balance))
			}
		}
	}
	if got := balanceAtHeight(t, n, bondedPool, h); got.Cmp(bonded) != 0 {
		t.Fatalf("bonded pool at %d holds %v, the bonded validators' tokens add up to %v", h, got, bonded)
	}
	if got := balanceAtHeight(t, n, notBondedPool, h); got.Cmp(notBonded) != 0 {
		t.Fatalf("not-bonded pool at %d holds %v, want %v (validators not bonded and unbonding entries)", h, got, notBonded)
	}
	t.Logf("pools at %d: bonded %v, not bonded %v (%d validators, %d unbonding pairs)", h, bonded, notBonded, len(v.Validators), len(seen))
	if economicsMerged {
		checkDistributionPool(t, n, h, v.Validators)
	}
}

// checkDistributionPool compares the distribution pool's balance at h with
// /cosmos/distribution/v1beta1/validators/{valoper}/outstanding_rewards of
// every validator and /cosmos/distribution/v1beta1/community_pool.
func checkDistributionPool(t *testing.T, n *Node, h int64, vals []stakingValidator) {
	t.Helper()
	type decCoin struct {
		Denom  string `json:"denom"`
		Amount string `json:"amount"`
	}
	sum := new(big.Int)
	records := 0
	add := func(coins []decCoin) {
		for _, c := range coins {
			whole, _, _ := strings.Cut(c.Amount, ".")
			sum.Add(sum, mustInt(t, whole))
			records++
		}
	}
	for _, val := range vals {
		var r struct {
			Rewards struct {
				Rewards []decCoin `json:"rewards"`
			} `json:"rewards"`
		}
		path := "/cosmos/distribution/v1beta1/validators/" + val.OperatorAddress + "/outstanding_rewards"
		if code := restJSON(t, n, path, h, &r); code != 200 {
			t.Fatalf("%s at %d: HTTP %d", path, h, code)
		}
		add(r.Rewards.Rewards)
	}
	var cp struct {
		Pool []decCoin `json:"pool"`
	}
	if code := restJSON(t, n, "/cosmos/distribution/v1beta1/community_pool", h, &cp); code != 200 {
		t.Fatalf("community pool at %d: HTTP %d", h, code)
	}
	add(cp.Pool)
	got := balanceAtHeight(t, n, distributionPool, h)
	if dust := sub(got, sum); dust.Sign() < 0 || dust.Cmp(big.NewInt(int64(records))) > 0 {
		t.Fatalf("distribution pool at %d holds %v; outstanding rewards and community pool truncated add up to %v (%d records)", h, got, sum, records)
	}
}

// balanceAtHeight is addr's balance at height h.
func balanceAtHeight(t *testing.T, n *Node, addr common.Address, h int64) *big.Int {
	t.Helper()
	b, err := n.Eth.BalanceAt(ctx(t), addr, big.NewInt(h))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// killAtHeight SIGKILLs n delay after its head reaches h (polled every
// millisecond), so the kill lands while the next height is being decided
// and executed (block parts, votes, FinalizeBlock, Commit) at a moment the
// delay picks. It returns the head seen when h was reached.
func (n *Node) killAtHeight(t *testing.T, h uint64, delay time.Duration) uint64 {
	t.Helper()
	var seen uint64
	if err := wait.PollEvery(time.Millisecond, 60*time.Second, fmt.Sprintf("%s to reach %d", n.Home, h), func() error {
		var num hexutil.Uint64
		if err := n.RPC.Call(&num, "eth_blockNumber"); err != nil {
			return err
		}
		seen = uint64(num)
		return wait.Check(seen >= h, "head %d", seen)
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	n.Kill()
	return seen
}

// restart starts a stopped or killed validator again and waits until it is
// back at the others' head.
func (n *Node) restart(t *testing.T, others ...*Node) {
	t.Helper()
	n.Start("start")
	waitAllHeight(t, maxHeight(t, others...)+1, n)
}

// evmLoad streams 1-wei EVM transfers from keys (one stream each, each to
// its own node) until stop is called; it returns how many were confirmed.
func evmLoad(nodes []*Node, keys []*ecdsa.PrivateKey) (stop func() int) {
	quit := make(chan struct{})
	done := make(chan int, len(keys))
	for i, k := range keys {
		eth := nodes[i%len(nodes)].Eth
		to := common.BytesToAddress(crypto.Keccak256([]byte{'s', byte(i)})[:20])
		go func() {
			count := 0
			streamTransfers(eth, k, to, quit, func(confirmed) { count++ })
			done <- count
		}()
	}
	return func() int {
		close(quit)
		total := 0
		for range keys {
			total += <-done
		}
		return total
	}
}

// signTestnet signs msgs with key for the testnet chain at the account's
// current number and sequence, paying gas × 10 gwei.
func signTestnet(t *testing.T, n *Node, key *ecdsa.PrivateKey, msgs ...proto.Message) []byte {
	t.Helper()
	raw, _ := signTestnetFee(t, n, key, msgs...)
	return raw
}

// signTestnetFee is signTestnet, returning the fee too.
func signTestnetFee(t *testing.T, n *Node, key *ecdsa.PrivateKey, msgs ...proto.Message) ([]byte, *big.Int) {
	t.Helper()
	num, seq := nativeAccount(t, n, crypto.PubkeyToAddress(key.PublicKey))
	return signNativeWith(t, key, native.SignOptions{ChainID: testnetChainID, AccountNumber: num, Sequence: seq}, msgs...)
}

// testnetB builds native messages for a testnet.
var testnetB = native.Builder{Prefix: "ember", Denom: denom}

// valoper is the bech32 operator address of op.
func valoper(op common.Address) string {
	s, err := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, op[:])
	if err != nil {
		panic(err)
	}
	return s
}

// valcons is the bech32 consensus address of a CometBFT validator address.
func valcons(cons []byte) string {
	s, err := accounts.NewPrefixes("ember").Encode(accounts.KindConsensus, cons)
	if err != nil {
		panic(err)
	}
	return s
}

// cliKeyring is a home with a test keyring holding the given keys, for
// `emberd tx` commands a delegator runs.
func cliKeyring(t *testing.T, keys map[string]*ecdsa.PrivateKey) string {
	t.Helper()
	home := t.TempDir()
	for name, k := range keys {
		if out, err := emberdCLI(t, "keys", "unsafe-import-eth-key", name, common.Bytes2Hex(crypto.FromECDSA(k)),
			"--home", home, "--keyring-backend", "test"); err != nil {
			t.Fatalf("import key %s: %v\n%s", name, err, out)
		}
	}
	return home
}

// cliTxResult is what `emberd tx … -o json` prints.
type cliTxResult struct {
	TxHash    string `json:"txhash"`
	Height    string `json:"height"`
	Code      uint32 `json:"code"`
	Codespace string `json:"codespace"`
	RawLog    string `json:"raw_log"`
}

// emberdTx runs `emberd tx ARGS --home home --keyring-backend test --node
// n` and returns the tx result it printed (a refused or failed tx exits
// non-zero and prints it too).
func emberdTx(t *testing.T, n *Node, home string, args ...string) cliTxResult {
	t.Helper()
	args = append(append([]string{"tx"}, args...), "--home", home, "--keyring-backend", "test", "--node", "tcp://"+n.CometRPC)
	cmd := exec.Command(emberdBin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res cliTxResult
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		t.Fatalf("emberd %s: %v: stdout %q stderr %q", strings.Join(args, " "), err, out, stderr.String())
	}
	if (err == nil) != (res.Code == 0) {
		t.Fatalf("emberd %s: exit %v with code %d", strings.Join(args, " "), err, res.Code)
	}
	return res
}

// restJSON GETs a REST path (at height h when h > 0) and decodes a 200
// answer into v; it returns the status code.
func restJSON(t *testing.T, n *Node, path string, h int64, v any) int {
	t.Helper()
	var header []string
	if h > 0 {
		header = []string{"x-cosmos-block-height", fmt.Sprint(h)}
	}
	code, body, _ := n.restGet(t, path, header...)
	if code == 200 {
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %v: %s", path, err, body)
		}
	}
	return code
}

// stakingValidator is /cosmos/staking/v1beta1/validators/{valoper}'s
// validator, the fields the slashing checks read.
type stakingValidator struct {
	OperatorAddress string `json:"operator_address"`
	Jailed          bool   `json:"jailed"`
	Status          string `json:"status"`
	Tokens          string `json:"tokens"`
	DelegatorShares string `json:"delegator_shares"`
}

func validatorAt(t *testing.T, n *Node, op common.Address, h int64) stakingValidator {
	t.Helper()
	var v struct {
		Validator stakingValidator `json:"validator"`
	}
	if code := restJSON(t, n, "/cosmos/staking/v1beta1/validators/"+valoper(op), h, &v); code != 200 {
		t.Fatalf("validator %s at %d: HTTP %d", valoper(op), h, code)
	}
	return v.Validator
}

// signingInfo is /cosmos/slashing/v1beta1/signing_infos/{valcons}'s
// val_signing_info.
type signingInfo struct {
	Address             string `json:"address"`
	StartHeight         string `json:"start_height"`
	IndexOffset         string `json:"index_offset"`
	JailedUntil         string `json:"jailed_until"`
	Tombstoned          bool   `json:"tombstoned"`
	MissedBlocksCounter string `json:"missed_blocks_counter"`
}

func signingInfoOf(t *testing.T, n *Node, cons []byte) signingInfo {
	t.Helper()
	var v struct {
		Info signingInfo `json:"val_signing_info"`
	}
	if code := restJSON(t, n, "/cosmos/slashing/v1beta1/signing_infos/"+valcons(cons), 0, &v); code != 200 {
		t.Fatalf("signing info %s: HTTP %d", valcons(cons), code)
	}
	return v.Info
}

// unbondingEntry is one entry of
// /cosmos/staking/v1beta1/validators/{val}/delegations/{del}/unbonding_delegation.
type unbondingEntry struct {
	CreationHeight string `json:"creation_height"`
	CompletionTime string `json:"completion_time"`
	InitialBalance string `json:"initial_balance"`
	Balance        string `json:"balance"`
}

func unbondingEntries(t *testing.T, n *Node, del, op common.Address) []unbondingEntry {
	t.Helper()
	return unbondingEntriesAt(t, n, del, op, 0)
}

// unbondingEntriesAt is unbondingEntries read at height h (0: the latest);
// no unbonding delegation is no entries.
func unbondingEntriesAt(t *testing.T, n *Node, del, op common.Address, h int64) []unbondingEntry {
	t.Helper()
	var v struct {
		Unbond struct {
			Entries []unbondingEntry `json:"entries"`
		} `json:"unbond"`
	}
	path := "/cosmos/staking/v1beta1/validators/" + valoper(op) + "/delegations/" + accounts.Bech32("ember", del) + "/unbonding_delegation"
	switch code := restJSON(t, n, path, h, &v); code {
	case 200:
	case 404:
		return nil
	default:
		t.Fatalf("%s at %d: HTTP %d", path, h, code)
	}
	return v.Unbond.Entries
}

// cometPower is the voting power /validators gives cons (0: not in the
// set) at the latest height.
func cometPower(t *testing.T, n *Node, cons []byte) int64 {
	t.Helper()
	return cometValidators(t, n)[strings.ToUpper(common.Bytes2Hex(cons))]
}

// fractionOf is amount × fraction (an SDK decimal with 18 places),
// truncated, as the SDK's slash amounts are.
func fractionOf(t *testing.T, amount *big.Int, fraction string) *big.Int {
	t.Helper()
	whole, frac, _ := strings.Cut(fraction, ".")
	frac = (frac + strings.Repeat("0", 18))[:18]
	scaled := mustInt(t, whole+frac)
	out := new(big.Int).Mul(amount, scaled)
	return out.Quo(out, e18)
}
