package e2e

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts"
)

// rewardsOp is one operator of the rewards network: its home, key and
// commission rate.
type rewardsOp struct {
	operatorHome
	op   common.Address
	rate string
}

// rewardsAction is a native tx the test sent, for the reference to replay
// at its place in the chain.
type rewardsAction struct {
	Kind       string // delegate, withdraw, withdraw+commission
	Del        common.Address
	Val        common.Address
	Amount     *big.Int
	Height     int64
	Index      uint32
	Hash       string
	paidEvents *big.Int // Σ withdraw_rewards + withdraw_commission amounts in its events
	fee        *big.Int
}

// TestRewardsMatchReference forms a four-operator network from gentxs
// (commissions 5%, 10%, 20%, 0%, inflation 13%), runs EVM transfers with
// tips through it for some three hundred blocks while two delegators
// delegate at different heights (one to two validators, both twice to the
// same one: their rewards are paid by the hook) and withdraw, and every operator withdraws its rewards and
// commission. A reference written from the SDK's specification replays
// the chain from its blocks (tips of h−1 and the mint of h allocated at
// h to the last commit's validators by power) and must match, at every
// height, each validator's outstanding rewards and commission, the
// community pool and the allocation events to 18 places, each
// delegation's rewards query, and each withdrawal to the wei.
func TestRewardsMatchReference(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	t.Parallel()
	began := time.Now()
	load := make([]*ecdsa.PrivateKey, 4)
	for i := range load {
		load[i] = mustKey(t)
	}
	d1, d2, c1 := mustKey(t), mustKey(t), mustKey(t)
	nw, ops := rewardsNetwork(t, []string{"0.05", "0.10", "0.20", "0.00"}, append(append([]*ecdsa.PrivateKey{}, load...), d1, d2, c1))
	nodes := nw.Nodes
	delHome := cliKeyring(t, map[string]*ecdsa.PrivateKey{"d1": d1, "d2": d2})
	addr := func(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }
	stop := evmLoad(nodes, load)
	defer func() {
		if stop != nil {
			stop()
		}
	}()

	var actions []*rewardsAction
	send := func(at uint64, home, from string, a *rewardsAction, args ...string) {
		waitAllHeightWithin(t, at, 2*time.Minute, nodes[0])
		res := emberdTx(t, nodes[int(at/10)%len(nodes)], home, append(args, "--from", from)...)
		if res.Code != 0 {
			t.Fatalf("%s: code %d %s", strings.Join(args, " "), res.Code, res.RawLog)
		}
		a.Hash = res.TxHash
		actions = append(actions, a)
	}
	delegate := func(at uint64, name string, key *ecdsa.PrivateKey, val common.Address, amount *big.Int) {
		send(at, delHome, name, &rewardsAction{Kind: "delegate", Del: addr(key), Val: val, Amount: amount},
			"staking", "delegate", valoper(val), amount.String()+denom)
	}
	withdraw := func(at uint64, home, name string, del, val common.Address, commission bool) {
		a := &rewardsAction{Kind: "withdraw", Del: del, Val: val}
		args := []string{"distribution", "withdraw-rewards", valoper(val)}
		if commission {
			a.Kind, args = "withdraw+commission", append(args, "--commission")
		}
		send(at, home, name, a, args...)
	}
	big18 := func(s string) *big.Int { return mustInt(t, s) }
	delegate(15, "d1", d1, ops[1].op, big18("3000000000000000007"))
	delegate(45, "d2", d2, ops[2].op, big18("2000000000000000003"))
	delegate(75, "d2", d2, ops[0].op, big18("1500000000000000000"))
	delegate(105, "d1", d1, ops[1].op, big18("1000000000000000000")) // pays d1's rewards through the hook
	withdraw(135, delHome, "d1", addr(d1), ops[1].op, false)
	delegate(220, "d2", d2, ops[2].op, big18("500000000000000001"))
	withdraw(310, delHome, "d1", addr(d1), ops[1].op, false)
	withdraw(310, delHome, "d2", addr(d2), ops[2].op, false)
	withdraw(310, delHome, "d2", addr(d2), ops[0].op, false)
	for _, o := range ops {
		// op3's commission rate is 0: it has no commission to withdraw.
		withdraw(310, o.node.Home, "op", o.op, o.op, o.rate != "0.00")
	}
	transfers := stop()
	stop = nil
	var last int64
	for _, a := range actions {
		hash, _ := hexBytes(a.Hash)
		// Sent through another node: node 0 may index its block a moment later.
		res := waitCometTx(t, nodes[0], hash)
		a.Height, a.Index = res.Height, res.Index
		a.paidEvents, a.fee = withdrawnInEvents(t, res.TxResult.Events), mustInt(t, mustAttr(t, res.TxResult.Events, "tx", "fee"))
		last = max(last, res.Height)
	}
	sort.SliceStable(actions, func(i, j int) bool {
		return actions[i].Height < actions[j].Height || actions[i].Height == actions[j].Height && actions[i].Index < actions[j].Index
	})
	to := last + 2
	waitAllHeight(t, uint64(to), nodes...)
	t.Logf("network of 4 gentx validators: %d EVM transfers, %d native txs up to height %d (%.0f s)", transfers, len(actions), last, time.Since(began).Seconds())

	ref := replayRewards(t, nodes[0], ops, actions, to)
	t.Logf("reference matches the chain at heights 1..%d: collected %v = commission %v + delegators' periods %v + community pool %v (%.0f s)",
		to, ref.Collected, ref.CommissionΣ, ref.SharedΣ, ref.AllocatedPool, time.Since(began).Seconds())

	checkEconomy(t, nw, nodes...)
	t.Logf("supply invariant and identical blocks on 4 nodes (%.0f s)", time.Since(began).Seconds())

	t.Run("Cosmjs", func(t *testing.T) { cosmjsStaking(t, nodes[1], c1, ops[0].op, ops[1].op) })
}

// mustKey is a new secp256k1 key.
func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// hexBytes decodes a hex tx hash.
func hexBytes(s string) ([]byte, error) { return hex.DecodeString(s) }

// mustAttr is the first value of key in an event of type typ.
func mustAttr(t *testing.T, events []abci.Event, typ, key string) string {
	t.Helper()
	v, ok := eventAttr(events, typ, key)
	if !ok {
		t.Fatalf("no %s.%s in %v", typ, key, events)
	}
	return v
}

// withdrawnInEvents is Σ amount of a tx's withdraw_rewards and
// withdraw_commission events.
func withdrawnInEvents(t *testing.T, events []abci.Event) *big.Int {
	t.Helper()
	sum := new(big.Int)
	for _, e := range finalizeEvents(0, events) {
		if e.Type == "withdraw_rewards" || e.Type == "withdraw_commission" {
			if a := e.Attrs["amount"]; a != "" {
				sum.Add(sum, mustInt(t, a))
			}
		}
	}
	return sum
}

// rewardsNetwork forms the network as operators do (each key in its own
// home's keyring, a gentx each with its commission rate, collect-gentxs),
// funds the given keys in genesis, shortens the block time, and starts
// the four nodes. The Network it returns has a manifest of the four homes
// for the economics checks.
func rewardsNetwork(t *testing.T, rates []string, funded []*ecdsa.PrivateKey) (*Network, []*rewardsOp) {
	t.Helper()
	dir := t.TempDir()
	base := freeBasePort(t, len(rates))
	ops := make([]*rewardsOp, len(rates))
	for i := range ops {
		home := filepath.Join(dir, "op"+strconv.Itoa(i))
		p := base + networkPorts*i
		addr := func(k int) string { return "127.0.0.1:" + strconv.Itoa(p+k) }
		o := &rewardsOp{rate: rates[i], operatorHome: operatorHome{name: "op" + strconv.Itoa(i), bond: strconv.Itoa(i+1) + "000000000000000000",
			node: &Node{t: t, Home: home, p2p: addr(0), CometRPC: addr(1), HTTP: addr(2), WS: addr(3), REST: addr(4), GRPC: addr(5), Explorer: addr(6),
				logPath: filepath.Join(dir, "op"+strconv.Itoa(i)+".log")}}}
		ops[i] = o
		cli(t, "init", o.name, "--chain-id", testnetChainID, "--home", home)
		cli(t, "keys", "add", "op", "--keyring-backend", "test", "--home", home)
		o.address = strings.TrimSpace(cli(t, "keys", "show", "op", "--keyring-backend", "test", "--home", home, "--address"))
		raw, err := accounts.ParseAddress("ember", o.address)
		if err != nil {
			t.Fatal(err)
		}
		o.op = raw
		cfg := filepath.Join(home, "config", "config.toml")
		rewrite(t, cfg, `allow_duplicate_ip = false`, `allow_duplicate_ip = true`)
		rewrite(t, cfg, `addr_book_strict = true`, `addr_book_strict = false`)
		rewrite(t, cfg, `(?m)^timeout_commit = ".*"$`, `timeout_commit = "100ms"`)
	}
	coord := ops[0].node.Home
	for _, o := range ops {
		cli(t, "genesis", "add-account", o.address, "100000000000000000000aember", "--home", coord)
	}
	for _, k := range funded {
		cli(t, "genesis", "add-account", accounts.Bech32("ember", crypto.PubkeyToAddress(k.PublicKey)), "1000000000000000000000aember", "--home", coord)
	}
	genesis := filepath.Join(coord, "config", "genesis.json")
	gentxDir := filepath.Join(dir, "gentxs")
	for i, o := range ops {
		if i > 0 {
			copyFile(t, genesis, filepath.Join(o.node.Home, "config", "genesis.json"))
		}
		out := cli(t, "genesis", "gentx", "op", o.bond+"aember", "--chain-id", testnetChainID, "--keyring-backend", "test", "--home", o.node.Home,
			"--ip", "127.0.0.1", "--p2p-port", strconv.Itoa(base+networkPorts*i), "--commission-rate", o.rate,
			"--output-document", filepath.Join(gentxDir, o.name+".json"))
		if !strings.Contains(out, "Genesis transaction written") {
			t.Fatalf("gentx: %s", out)
		}
	}
	cli(t, "genesis", "collect-gentxs", "--gentx-dir", gentxDir, "--home", coord)
	for _, o := range ops[1:] {
		copyFile(t, genesis, filepath.Join(o.node.Home, "config", "genesis.json"))
	}
	nw := &Network{t: t, Dir: dir}
	var m testnetManifest
	m.ChainID = testnetChainID
	for _, o := range ops {
		m.Nodes = append(m.Nodes, struct {
			Name      string         `json:"name"`
			Home      string         `json:"home"`
			Validator bool           `json:"validator"`
			NodeID    string         `json:"node_id"`
			Operator  common.Address `json:"operator"`
			Ports     struct {
				P2P      int `json:"p2p"`
				RPC      int `json:"rpc"`
				JSONRPC  int `json:"json_rpc"`
				WS       int `json:"json_rpc_ws"`
				REST     int `json:"rest"`
				GRPC     int `json:"grpc"`
				Explorer int `json:"explorer"`
			} `json:"ports"`
		}{Name: o.name, Home: o.node.Home, Validator: true, Operator: o.op})
		nw.Nodes = append(nw.Nodes, o.node)
	}
	raw, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "testnet.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		o.node.Start("start")
	}
	t.Cleanup(func() {
		for _, o := range ops {
			o.node.Stop()
			if t.Failed() {
				o.node.dumpLog()
			}
		}
	})
	return nw, ops
}

// decCoinsJSON is a DecCoins list in the SDK's JSON.
type decCoinsJSON []struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// one is the amount of a one-coin list, "0.000000000000000000" for none.
func (c decCoinsJSON) one(t *testing.T) string {
	t.Helper()
	switch {
	case len(c) == 0:
		return refZero().String()
	case len(c) == 1 && c[0].Denom == denom:
		return c[0].Amount
	}
	t.Fatalf("dec coins %v", c)
	return ""
}

// sdkPaysAbsentVoters is the SDK's allocation rule (x/distribution
// AllocateTokens pays every validator of the last commit by power, signed
// or not: "TODO: Consider micro-slashing for missing votes"). Ember's
// distribution pays only those whose precommit is in the commit and gives
// an absent validator's share to the community pool (distribution/
// allocate.go). The reference follows Ember's rule, so that the rest of
// the comparison runs; with true it fails at the first block whose last
// commit lacks a precommit.
const sdkPaysAbsentVoters = false

// replayRewards runs the reference over blocks 1..to of n and compares it
// with the chain at every height; it returns the reference at the end.
func replayRewards(t *testing.T, n *Node, ops []*rewardsOp, actions []*rewardsAction, to int64) *refChain {
	t.Helper()
	var params struct {
		Params struct {
			CommunityTax string `json:"community_tax"`
			Base         string `json:"base_proposer_reward"`
			Bonus        string `json:"bonus_proposer_reward"`
		} `json:"params"`
	}
	restJSON(t, n, "/cosmos/distribution/v1beta1/params", 0, &params)
	if params.Params.Base != refZero().String() || params.Params.Bonus != refZero().String() {
		t.Fatalf("proposer rewards %+v: the reference has the SDK's current allocation, without them", params.Params)
	}
	tax, err := refParse(params.Params.CommunityTax)
	if err != nil {
		t.Fatal(err)
	}
	ref := newRefChain(tax)
	byCons := map[string]common.Address{}
	for _, o := range ops {
		var v struct {
			Validator struct {
				Tokens  string `json:"tokens"`
				ConsKey struct {
					Key []byte `json:"key"`
				} `json:"consensus_pubkey"`
				Commision struct {
					Rates struct {
						Rate string `json:"rate"`
					} `json:"commission_rates"`
				} `json:"commission"`
			} `json:"validator"`
		}
		restJSON(t, n, "/cosmos/staking/v1beta1/validators/"+valoper(o.op), 1, &v)
		rate, err := refParse(v.Validator.Commision.Rates.Rate)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := refParse(o.rate); rate.String() != want.String() {
			t.Fatalf("%s: commission rate %s, its gentx %s", o.name, rate, o.rate)
		}
		tokens := mustInt(t, v.Validator.Tokens)
		if tokens.Cmp(mustInt(t, o.bond)) != 0 {
			t.Fatalf("%s: tokens %v at height 1, self-bond %s", o.name, tokens, o.bond)
		}
		ref.Vals[o.op] = &refValidator{Rate: rate, Tokens: tokens, Cumulative: refZero(), Current: refZero(), Commission: refZero(), Outstanding: refZero()}
		ref.Dels[refPair{o.op, o.op}] = &refDelegation{Stake: refInt(tokens), Start: refZero()}
		byCons[strings.ToUpper(common.Bytes2Hex(ed25519.PubKey(v.Validator.ConsKey.Key).Address()))] = o.op
	}
	headers, receipts := headersAndReceipts(t, n, uint64(to))
	comet := n.cometClient(t)
	absent := 0
	for h := int64(1); h <= to; h++ {
		res := blockResultsOf(t, comet, h)
		for _, ev := range finalizeEvents(h, res.FinalizeBlockEvents) {
			if ev.Type == "mint" {
				ref.Carry.Add(ref.Carry, mustInt(t, ev.Attrs["amount"]))
			}
		}
		if h > 1 {
			votes := lastCommitVotes(t, n, h, byCons)
			for _, v := range votes {
				if !v.Signed {
					absent++
				}
			}
			got := ref.allocate(votes, sdkPaysAbsentVoters)
			checkAllocationEvents(t, h, res.FinalizeBlockEvents, got, ops)
		}
		for _, a := range actions {
			if a.Height == h {
				replayAction(t, n, ref, a)
			}
		}
		tips := blockTips(t, headers[h-1].BaseFee, receipts[h-1], res)
		ref.Carry.Add(ref.Carry, tips)
		if got := balanceAtHeight(t, n, common.HexToAddress("0x0000000000000000000000000000000000000B12"), h); got.Cmp(ref.Carry) != 0 {
			t.Fatalf("fee collector at %d holds %v; the block's tips and what was not allocated add up to %v", h, got, ref.Carry)
		}
		checkRecordsAt(t, n, ref, h, ops, h%5 == 0 || h == to)
	}
	if sum := ref.CommissionΣ.add(ref.SharedΣ).add(ref.AllocatedPool); sum.String() != refInt(ref.Collected).String() {
		t.Fatalf("reference: commission %v + periods %v + community %v = %v, collected %v", ref.CommissionΣ, ref.SharedΣ, ref.AllocatedPool, sum, ref.Collected)
	}
	t.Logf("%d absent votes in last commits: their shares, %s, went to the community pool", absent, ref.AbsentShares)
	return ref
}

// lastCommitVotes are block h's last commit: each validator of block
// h−1's set with its power and whether its precommit is in the commit.
func lastCommitVotes(t *testing.T, n *Node, h int64, byCons map[string]common.Address) []refVote {
	t.Helper()
	c := n.cometClient(t)
	b, err := c.Block(ctx(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	prev := h - 1
	vals, err := c.Validators(ctx(t), &prev, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	power := map[string]int64{}
	for _, v := range vals.Validators {
		power[v.Address.String()] = v.VotingPower
	}
	var out []refVote
	for _, s := range b.Block.LastCommit.Signatures {
		if s.BlockIDFlag == cmttypes.BlockIDFlagAbsent && len(s.ValidatorAddress) == 0 {
			// An absent entry names no address: it is the set's validator
			// at the same index.
			s.ValidatorAddress = vals.Validators[len(out)].Address
		}
		op, ok := byCons[s.ValidatorAddress.String()]
		if !ok {
			t.Fatalf("block %d: commit signature of unknown validator %s", h, s.ValidatorAddress)
		}
		out = append(out, refVote{Val: op, Power: power[s.ValidatorAddress.String()], Signed: s.BlockIDFlag != cmttypes.BlockIDFlagAbsent})
	}
	return out
}

// blockTips are the priority fees of block h: each EVM tx's
// (effective gas price − base fee) × gas used and each charged native
// tx's fee less base fee × gas used.
func blockTips(t *testing.T, baseFee *big.Int, receipts []*types.Receipt, res *blockResultsView) *big.Int {
	t.Helper()
	tips := new(big.Int)
	for _, r := range receipts {
		tip := new(big.Int).Sub(r.EffectiveGasPrice, baseFee)
		tips.Add(tips, tip.Mul(tip, new(big.Int).SetUint64(r.GasUsed)))
	}
	for _, r := range res.TxsResults {
		if fee, ok := eventAttr(r.Events, "tx", "fee"); ok {
			tip := new(big.Int).Sub(mustInt(t, fee), new(big.Int).Mul(baseFee, big.NewInt(r.GasUsed)))
			tips.Add(tips, tip)
		}
	}
	return tips
}

// checkAllocationEvents compares block h's `rewards` and `commission`
// events with the reference's allocation, validator by validator.
func checkAllocationEvents(t *testing.T, h int64, events []abci.Event, want map[common.Address]refAllocation, ops []*rewardsOp) {
	t.Helper()
	got := map[string]map[string]string{"rewards": {}, "commission": {}}
	for _, ev := range finalizeEvents(h, events) {
		if m, ok := got[ev.Type]; ok {
			m[ev.Attrs["validator"]] = ev.Attrs["amount"]
		}
	}
	coins := func(d refDec) string {
		if d.v == nil || d.isZero() {
			return ""
		}
		return d.String() + denom
	}
	for _, o := range ops {
		// An absent event and one with an empty amount both say zero.
		w := want[o.op]
		r, hasR := got["rewards"][valoper(o.op)]
		c := got["commission"][valoper(o.op)]
		if r != coins(w.Reward) || c != coins(w.Commission) {
			t.Fatalf("block %d, %s: rewards event %q (present %v), commission %q; the reference allocates %q, commission %q",
				h, o.name, r, hasR, c, coins(w.Reward), coins(w.Commission))
		}
	}
}

// replayAction applies one of the test's txs to the reference and checks
// what the chain paid: its events' withdrawn amount and the signer's
// balance change over the block.
func replayAction(t *testing.T, n *Node, ref *refChain, a *rewardsAction) {
	t.Helper()
	p := refPair{a.Del, a.Val}
	paid := new(big.Int)
	delta := new(big.Int).Neg(a.fee)
	switch a.Kind {
	case "delegate":
		paid = ref.delegate(p, a.Amount)
		delta.Sub(delta, a.Amount)
	case "withdraw":
		paid = ref.withdrawRewards(p)
	case "withdraw+commission":
		paid = ref.withdrawRewards(p)
		paid.Add(paid, ref.withdrawCommission(a.Val))
	}
	delta.Add(delta, paid)
	got := new(big.Int).Sub(balanceAtHeight(t, n, a.Del, a.Height), balanceAtHeight(t, n, a.Del, a.Height-1))
	if got.Cmp(delta) != 0 {
		t.Fatalf("%s %s→%s at %d: balance changed by %v, the reference %v (fee %v, paid %v, events say %v)",
			a.Kind, a.Del.Hex(), valoper(a.Val), a.Height, got, delta, a.fee, paid, a.paidEvents)
	}
	if a.Kind != "delegate" && a.paidEvents.Cmp(paid) != 0 {
		t.Fatalf("%s %s→%s at %d: events withdraw %v, the reference %v", a.Kind, a.Del.Hex(), valoper(a.Val), a.Height, a.paidEvents, paid)
	}
	n.t.Logf("height %d: %s by %s from %s: paid %v (balance %+v)", a.Height, a.Kind, a.Del.Hex(), valoper(a.Val), paid, got)
}

// checkRecordsAt compares the distribution queries at h with the
// reference: each validator's outstanding rewards and commission, the
// community pool, and (when delegations is set) every delegation's
// rewards.
func checkRecordsAt(t *testing.T, n *Node, ref *refChain, h int64, ops []*rewardsOp, delegations bool) {
	t.Helper()
	for _, o := range ops {
		v := ref.Vals[o.op]
		var out struct {
			Rewards struct {
				Rewards decCoinsJSON `json:"rewards"`
			} `json:"rewards"`
		}
		restJSON(t, n, "/cosmos/distribution/v1beta1/validators/"+valoper(o.op)+"/outstanding_rewards", h, &out)
		var com struct {
			Commission struct {
				Commission decCoinsJSON `json:"commission"`
			} `json:"commission"`
		}
		restJSON(t, n, "/cosmos/distribution/v1beta1/validators/"+valoper(o.op)+"/commission", h, &com)
		if got := out.Rewards.Rewards.one(t); got != v.Outstanding.String() {
			t.Fatalf("height %d, %s: outstanding rewards %s, reference %s", h, o.name, got, v.Outstanding)
		}
		if got := com.Commission.Commission.one(t); got != v.Commission.String() {
			t.Fatalf("height %d, %s: commission %s, reference %s", h, o.name, got, v.Commission)
		}
	}
	var cp struct {
		Pool decCoinsJSON `json:"pool"`
	}
	restJSON(t, n, "/cosmos/distribution/v1beta1/community_pool", h, &cp)
	if got := cp.Pool.one(t); got != ref.Community.String() {
		t.Fatalf("height %d: community pool %s, reference %s", h, got, ref.Community)
	}
	if !delegations {
		return
	}
	for p := range ref.Dels {
		var r struct {
			Rewards decCoinsJSON `json:"rewards"`
		}
		path := "/cosmos/distribution/v1beta1/delegators/" + accounts.Bech32("ember", p.Del) + "/rewards/" + valoper(p.Val)
		if code := restJSON(t, n, path, h, &r); code != 200 {
			t.Fatalf("%s at %d: HTTP %d", path, h, code)
		}
		if got, want := r.Rewards.one(t), ref.queryRewards(p); got != want.String() {
			t.Fatalf("height %d: rewards of %s from %s: %s, reference %s", h, p.Del.Hex(), valoper(p.Val), got, want)
		}
	}
}

// cosmjsStaking runs test/clients/cosmjs-staking.mjs on n with key (funded,
// no delegation yet): cosmjs's SigningStargateClient with Ember's
// ethsecp256k1 signer delegates to val0, withdraws, redelegates to val1
// and undelegates, reading delegations and the distribution extension,
// each balance checked to the wei.
func cosmjsStaking(t *testing.T, n *Node, key *ecdsa.PrivateKey, val0, val1 common.Address) {
	dir, err := filepath.Abs(filepath.Join("..", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: the client tests need Node.js (>= 20) and npm to run test/clients: %v", err)
	}
	npmInstall(t, dir)
	start := time.Now()
	out, err := runScript(t, dir, nodeBin, "cosmjs-staking.mjs",
		"EMBER_COMET=http://"+n.CometRPC,
		"EMBER_RPC=http://"+n.HTTP,
		"EMBER_KEY="+hexutil.Encode(crypto.FromECDSA(key)),
		"EMBER_VALIDATORS="+valoper(val0)+","+valoper(val1),
	)
	if err != nil {
		t.Fatalf("node cosmjs-staking.mjs: %v\n%s", err, out)
	}
	t.Logf("node cosmjs-staking.mjs (%.1f s):\n%s", time.Since(start).Seconds(), out)
}
