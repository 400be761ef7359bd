package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/privval"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/internal/wait"
)

// doubleSign is a DuplicateVoteEvidence committed in a block.
type doubleSign struct {
	Cons     []byte // the validator's CometBFT address
	Operator common.Address
	Power    int64 // its voting power at the infraction, as the evidence reports it
	Total    int64
	Height   int64 // the height of the conflicting votes: the infraction
	Included int64 // the block that carries the evidence
}

// unbondingMade is an unbonding a delegator started with `emberd tx
// staking unbond`.
type unbondingMade struct {
	Delegator common.Address
	Operator  common.Address
	Amount    *big.Int
	Height    int64 // the block that holds the MsgUndelegate: the entry's creation height
}

// TestDoubleSignEvidenceCommitted makes two validators double-sign on a
// four-validator network and checks the evidence is committed:
//
//   - validator 3 by a fifth process running with a copy of its
//     priv_validator_key.json (its own node key, a fresh
//     priv_validator_state.json, its own ports, the validators as peers):
//     both processes sign at every height, and the conflicting votes
//     become DuplicateVoteEvidence;
//   - validator 2 by two conflicting prevotes signed with its key for a
//     past height H and handed to /broadcast_evidence (CometBFT's own e2e
//     runner injects evidence so), after one of its delegators started an
//     unbonding at a height above H: that entry was made after the
//     infraction and before the evidence landed. Node 2 is SIGKILLed while
//     the evidence is being committed.
//
// Then the supply invariant holds at every height on every validator and
// all serve the same blocks. With the economics merged both validators are
// punished as assertDoubleSignPunished describes.
func TestDoubleSignEvidenceCommitted(t *testing.T) {
	nw := InitNetwork(t, 4, 1)
	setSlashingParams(nw, testSlashing)
	setUnbondingTime(nw, "600s") // no entry matures during the test
	vals := nw.Nodes[:4]
	ops := nw.manifest().Nodes
	for _, n := range vals {
		n.Start("start")
	}
	waitAllHeight(t, 2, vals...)
	delegators := cliKeyring(t, map[string]*ecdsaKey{"del6": devKeys[6].Private, "del7": devKeys[7].Private})

	// Validator 3's delegator unbonds before any double-sign: its entry is
	// older than the infraction and must stay whole.
	early := delegateAndUnbond(t, vals[0], delegators, "del7", devKeys[7].Private, ops[3].Operator, tokensE18(2), e18)
	// Validator 2 gets a delegation, so its power at the infraction is 13.
	delegate(t, vals[0], devKeys[6].Private, ops[2].Operator, tokensE18(3))
	cons2 := consAddress(t, ops[2].Home)
	waitCometValidators(t, vals[0], "validator 2 at power 13", func(v map[string]int64) bool { return v[hexAddr(cons2)] == 13 })

	// Validator 2: the infraction at H, an unbonding above H, the evidence.
	// /validators shows the set of the next height; H is past it.
	waitAllHeight(t, vals[0].height(t)+2, vals[0])
	infraction := int64(vals[0].height(t))
	total := cometTotalPower(t, vals[0], infraction)
	late := unbond(t, vals[0], delegators, "del6", devKeys[6].Address, ops[2].Operator, e18)
	if late.Height <= infraction {
		t.Fatalf("unbonding at %d, not above the infraction %d", late.Height, infraction)
	}
	broadcastDoubleSign(t, vals[0], filepath.Join(ops[2].Home, "config", "priv_validator_key.json"), infraction)
	// Node 2 dies part-way through the next height, the one the evidence
	// is most likely proposed in.
	killedAt := vals[2].killAtHeight(t, vals[2].height(t), 250*time.Millisecond)
	ev2 := findDoubleSign(t, vals[0], cons2, infraction, 60*time.Second)
	ev2.Operator = ops[2].Operator
	t.Logf("validator 2: votes at %d, evidence in block %d (power %d of %d); unbonding at %d; node2 killed at head %d",
		ev2.Height, ev2.Included, ev2.Power, ev2.Total, late.Height, killedAt)
	if ev2.Height != infraction || ev2.Power != 13 || ev2.Total != total {
		t.Fatalf("evidence %+v, want the votes of %d with power 13 of %d", ev2, infraction, total)
	}
	vals[2].restart(t, vals[0], vals[1], vals[3])

	// Validator 2 is now jailed and out of the set: 10 + 10 + 11. Two
	// processes signing for validator 3 with more than a third of the power
	// would fork the chain (conflicting blocks could each gather +2/3);
	// validator 0's extra stake keeps it under a third, as BFT assumes.
	cons0 := consAddress(t, ops[0].Home)
	delegate(t, vals[0], devKeys[6].Private, ops[0].Operator, tokensE18(10))
	waitCometValidators(t, vals[0], "validator 0 at power 20", func(v map[string]int64) bool { return v[hexAddr(cons0)] == 20 })

	// Validator 3: a second process signs with its key.
	twin := nw.AddFullNode()
	copyFile(t, filepath.Join(ops[3].Home, "config", "priv_validator_key.json"), filepath.Join(twin.Home, "config", "priv_validator_key.json"))
	twinFrom := int64(vals[0].height(t))
	twin.Start("start")
	cons3 := consAddress(t, ops[3].Home)
	ev3 := findDoubleSign(t, vals[0], cons3, twinFrom, 120*time.Second)
	ev3.Operator = ops[3].Operator
	twin.Stop()
	t.Logf("validator 3 (twin process): votes at %d, evidence in block %d (power %d of %d); unbonding at %d",
		ev3.Height, ev3.Included, ev3.Power, ev3.Total, early.Height)
	if ev3.Height <= early.Height+1 {
		t.Fatalf("the twin double-signed at %d, not after the early unbonding at %d", ev3.Height, early.Height)
	}

	waitAllHeight(t, uint64(ev3.Included)+3, vals...)
	want := economyExpect{ExtraBurns: map[uint64]*big.Int{}, Unbondings: []unbondingMade{early, late}}
	if punishmentMerged {
		assertDoubleSignPunished(t, vals[0], ev2, []unbondingMade{late}, nil)
		assertDoubleSignPunished(t, vals[0], ev3, nil, []unbondingMade{early})
		// The SDK's burned_coins counts the validator's part; the
		// unbonding entry's cut is burned too.
		want.ExtraBurns[uint64(ev2.Included)] = fractionOf(t, late.Amount, testSlashing.SlashFractionDoubleSign)
		refuseTombstoned(t, vals[0], ops[3].Operator)
	}
	checkEconomyWith(t, nw, want, vals...)
}

// refuseTombstoned: a delegation to a tombstoned validator gets staking's
// code 7 (at CheckTx: the mempool refuses it, no fee is taken) and changes
// neither the validator's tokens nor its shares.
func refuseTombstoned(t *testing.T, n *Node, op common.Address) {
	t.Helper()
	before := validatorAt(t, n, op, 0)
	r := broadcast(t, n, signTestnet(t, n, devKeys[7].Private, testnetB.Delegate(devKeys[7].Address, op, tokensE18(1))))
	if r.Code != 7 || r.Codespace != "staking" || !strings.Contains(r.Log, "validator is tombstoned") {
		t.Fatalf("delegation to the tombstoned validator: code %d (%s) %s, want 7 staking", r.Code, r.Codespace, r.Log)
	}
	waitAllHeight(t, n.height(t)+2, n)
	after := validatorAt(t, n, op, 0)
	if after.Tokens != before.Tokens || after.DelegatorShares != before.DelegatorShares {
		t.Fatalf("refused delegation changed the validator: %+v, was %+v", after, before)
	}
}

// assertDoubleSignPunished checks what the economics do with a committed
// double-sign ev (SDK x/evidence + x/slashing + x/staking): at the block
// that carries it the validator is slashed by slash_fraction_double_sign of
// power×10^18 at the infraction — the part taken from unbonding entries
// made at or after the infraction (cut, each by exactly fraction × its
// initial balance) comes off the validator's tokens' share — while older
// entries (kept) stay whole; one `slash` event with reason double_sign
// reports the power and the tokens burned from the validator; the
// validator is jailed, leaves CometBFT's set, and its signing info is
// tombstoned with jailed_until at the end of time.
func assertDoubleSignPunished(t *testing.T, n *Node, ev doubleSign, cut, kept []unbondingMade) {
	t.Helper()
	fraction := testSlashing.SlashFractionDoubleSign
	amount := fractionOf(t, new(big.Int).Mul(big.NewInt(ev.Power), e18), fraction)
	entriesCut := new(big.Int)
	for _, u := range cut {
		entriesCut.Add(entriesCut, fractionOf(t, u.Amount, fraction))
		checkEntry(t, n, u, sub(u.Amount, fractionOf(t, u.Amount, fraction)))
	}
	for _, u := range kept {
		checkEntry(t, n, u, u.Amount)
	}
	before := mustInt(t, validatorAt(t, n, ev.Operator, ev.Included-1).Tokens)
	after := validatorAt(t, n, ev.Operator, ev.Included)
	fromValidator := sub(amount, entriesCut)
	if got := mustInt(t, after.Tokens); got.Cmp(sub(before, fromValidator)) != 0 {
		t.Errorf("validator %s tokens %v after the evidence, want %v - (%v - %v entries) = %v",
			valoper(ev.Operator), got, before, amount, entriesCut, sub(before, fromValidator))
	}
	if now := validatorAt(t, n, ev.Operator, 0); !now.Jailed || now.Status == "BOND_STATUS_BONDED" {
		t.Errorf("validator %s after a double-sign: %+v, want jailed and not bonded", valoper(ev.Operator), now)
	}
	waitCometValidators(t, n, valcons(ev.Cons)+" removed", func(v map[string]int64) bool { _, ok := v[hexAddr(ev.Cons)]; return !ok })
	info := signingInfoOf(t, n, ev.Cons)
	if !info.Tombstoned || info.JailedUntil != "9999-12-31T23:59:59Z" || info.Address != valcons(ev.Cons) {
		t.Errorf("signing info of %s: %+v, want tombstoned, jailed until 9999-12-31T23:59:59Z", valcons(ev.Cons), info)
	}
	var slashes []blockEvent
	for _, e := range blockEvents(t, n, "slash", ev.Included, ev.Included) {
		if e.Attrs["address"] == valcons(ev.Cons) {
			slashes = append(slashes, e)
		}
	}
	if len(slashes) != 1 || slashes[0].Attrs["reason"] != "double_sign" || slashes[0].Attrs["power"] != strconv.FormatInt(ev.Power, 10) ||
		mustInt(t, slashes[0].Attrs["burned_coins"]).Cmp(fromValidator) != 0 {
		t.Errorf("slash events for %s in block %d: %+v, want one with reason double_sign, power %d, burned_coins %v",
			valcons(ev.Cons), ev.Included, slashes, ev.Power, fromValidator)
	}
}

// checkEntry requires u's unbonding entry (found by its creation height)
// to have its initial balance and balance want.
func checkEntry(t *testing.T, n *Node, u unbondingMade, want *big.Int) {
	t.Helper()
	for _, e := range unbondingEntries(t, n, u.Delegator, u.Operator) {
		if e.CreationHeight != strconv.FormatInt(u.Height, 10) {
			continue
		}
		if mustInt(t, e.InitialBalance).Cmp(u.Amount) != 0 || mustInt(t, e.Balance).Cmp(want) != 0 {
			t.Errorf("unbonding entry of %s at %d: initial %s balance %s, want initial %v balance %v", u.Delegator, u.Height, e.InitialBalance, e.Balance, u.Amount, want)
		}
		return
	}
	t.Errorf("no unbonding entry of %s from %s created at %d", u.Delegator, valoper(u.Operator), u.Height)
}

// delegate delivers a MsgDelegate of amount from key to op.
func delegate(t *testing.T, n *Node, key *ecdsaKey, op common.Address, amount *big.Int) {
	t.Helper()
	if r := deliver(t, n, signTestnet(t, n, key, testnetB.Delegate(devKeyAddress(key), op, amount))); r.TxResult.Code != 0 {
		t.Fatalf("delegate %v to %s: %d %s", amount, valoper(op), r.TxResult.Code, r.TxResult.Log)
	}
}

// unbond runs `emberd tx staking unbond VALOPER AMOUNT --from name`, name
// being del's key in the keyring at home.
func unbond(t *testing.T, n *Node, home, name string, del, op common.Address, amount *big.Int) unbondingMade {
	t.Helper()
	res := emberdTx(t, n, home, "staking", "unbond", valoper(op), amount.String()+denom, "--from", name)
	if res.Code != 0 {
		t.Fatalf("unbond: code %d (%s) %s", res.Code, res.Codespace, res.RawLog)
	}
	h, err := strconv.ParseInt(res.Height, 10, 64)
	if err != nil || h <= 0 {
		t.Fatalf("unbond answered height %q", res.Height)
	}
	return unbondingMade{Delegator: del, Operator: op, Amount: amount, Height: h}
}

// delegateAndUnbond delegates amount from key (the keyring's name) to op,
// then unbonds part of it with the CLI.
func delegateAndUnbond(t *testing.T, n *Node, home, name string, key *ecdsaKey, op common.Address, amount, part *big.Int) unbondingMade {
	t.Helper()
	delegate(t, n, key, op, amount)
	return unbond(t, n, home, name, devKeyAddress(key), op, part)
}

// setUnbondingTime sets app_state.staking.unbonding_time.
func setUnbondingTime(nw *Network, d string) {
	editGenesis(nw, func(app map[string]json.RawMessage) {
		var st map[string]json.RawMessage
		if err := json.Unmarshal(app["staking"], &st); err != nil {
			nw.t.Fatal(err)
		}
		st["unbonding_time"], _ = json.Marshal(d)
		app["staking"], _ = json.Marshal(st)
	})
}

// consAddress is the CometBFT address of a home's validator key.
func consAddress(t *testing.T, home string) []byte {
	t.Helper()
	pv := privval.LoadFilePVEmptyState(filepath.Join(home, "config", "priv_validator_key.json"), "")
	return pv.Key.Address
}

// cometTotalPower is the total voting power of CometBFT's set at h.
func cometTotalPower(t *testing.T, n *Node, h int64) int64 {
	t.Helper()
	perPage := 100
	res, err := n.cometClient(t).Validators(ctx(t), &h, nil, &perPage)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, v := range res.Validators {
		total += v.VotingPower
	}
	return total
}

func hexAddr(cons []byte) string { return fmt.Sprintf("%X", cons) }

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// broadcastDoubleSign signs two prevotes for different blocks at height h
// (round 0) with the key in keyFile and hands them to n's
// /broadcast_evidence as DuplicateVoteEvidence, with the block time and
// validator set of h as CometBFT verifies them.
func broadcastDoubleSign(t *testing.T, n *Node, keyFile string, h int64) {
	t.Helper()
	c := n.cometClient(t)
	block, err := c.Block(ctx(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	perPage := 100
	vres, err := c.Validators(ctx(t), &h, nil, &perPage)
	if err != nil {
		t.Fatal(err)
	}
	set, err := cmttypes.ValidatorSetFromExistingValidators(vres.Validators)
	if err != nil {
		t.Fatal(err)
	}
	pv := cmttypes.NewMockPVWithParams(privval.LoadFilePVEmptyState(keyFile, "").Key.PrivKey, false, false)
	idx, _ := set.GetByAddress(pv.PrivKey.PubKey().Address())
	if idx < 0 {
		t.Fatalf("the key of %s is not in the validator set of %d", keyFile, h)
	}
	vote := func() *cmttypes.Vote {
		v, err := cmttypes.MakeVote(pv, testnetChainID, idx, h, 0, cmtproto.PrevoteType, randomBlockID(), block.Block.Time)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ev, err := cmttypes.NewDuplicateVoteEvidence(vote(), vote(), block.Block.Time, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.BroadcastEvidence(ctx(t), ev); err != nil {
		t.Fatalf("broadcast_evidence: %v", err)
	}
}

func randomBlockID() cmttypes.BlockID {
	hash, parts := make([]byte, 32), make([]byte, 32)
	rand.Read(hash)
	rand.Read(parts)
	return cmttypes.BlockID{Hash: hash, PartSetHeader: cmttypes.PartSetHeader{Total: 1, Hash: parts}}
}

// findDoubleSign scans n's blocks from height from on, as they come,
// until one carries DuplicateVoteEvidence against cons.
func findDoubleSign(t *testing.T, n *Node, cons []byte, from int64, within time.Duration) doubleSign {
	t.Helper()
	c := n.cometClient(t)
	next := max(from, 1)
	var found *doubleSign
	if err := wait.PollEvery(200*time.Millisecond, within, fmt.Sprintf("evidence against %X in a block from %d", cons, from), func() error {
		head := int64(n.height(t))
		for ; next <= head; next++ {
			h := next
			b, err := c.Block(ctx(t), &h)
			if err != nil {
				return err
			}
			for _, e := range b.Block.Evidence.Evidence {
				if dve, ok := e.(*cmttypes.DuplicateVoteEvidence); ok && bytes.Equal(dve.VoteA.ValidatorAddress, cons) {
					found = &doubleSign{Cons: cons, Power: dve.ValidatorPower, Total: dve.TotalVotingPower, Height: dve.VoteA.Height, Included: h}
					return nil
				}
			}
		}
		return fmt.Errorf("none up to %d", head)
	}); err != nil {
		t.Fatal(err)
	}
	return *found
}
