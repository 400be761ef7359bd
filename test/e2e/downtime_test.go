package e2e

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/internal/wait"
)

// TestDowntimeJailAndUnjail stops validator 2 of four for longer than the
// signed-blocks window (10 blocks, half must be signed: app_state.slashing
// set in genesis before the first start). The other three go on making
// blocks, none more than a few seconds after its parent, and their last
// commits lack its signature. With the economics merged: validator 2 is
// jailed and slashed (see assertDowntimePunished), an unjail inside the
// jail period is refused, and after it the restarted validator's `emberd
// tx slashing unjail` brings it back into CometBFT's set with its cut
// power. The supply invariant and identical
// blocks hold on every node at the end.
func TestDowntimeJailAndUnjail(t *testing.T) {
	nw := InitNetwork(t, 4, 0)
	setSlashingParams(nw, testSlashing)
	vals := nw.Nodes
	ops := nw.manifest().Nodes
	for _, n := range vals {
		n.Start("start")
	}
	waitAllHeight(t, 2, vals...)
	up := []*Node{vals[0], vals[1], vals[3]}
	cons := consAddress(t, ops[2].Home)

	vals[2].Stop()
	stopped := maxHeight(t, up...)
	var jail time.Time
	if punishmentMerged {
		// The unjail inside the jail period goes out the moment the slash
		// is seen, well within the jail.
		slash := waitSlash(t, vals[0], cons, int64(stopped), 90*time.Second)
		early := emberdTx(t, vals[0], ops[2].Home, "slashing", "unjail", "--from", "validator")
		if early.Code != 4 || early.Codespace != "slashing" {
			t.Errorf("unjail inside the jail period: code %d codespace %q (%s), want 4 slashing", early.Code, early.Codespace, early.RawLog)
		}
		jail = assertDowntimePunished(t, vals[0], cons, ops[2].Operator, slash)
	}
	window, _ := strconv.Atoi(testSlashing.SignedBlocksWindow)
	// Past the window and past the blocks it takes to miss more than half.
	waitAllHeightWithin(t, stopped+uint64(window)+5, 90*time.Second, up...)
	head := maxHeight(t, up...)
	checkNoStall(t, vals[0], stopped, head, 5)
	// What x/slashing reads: the last commits from stopped+3 on lack
	// validator 2's signature, more than the window lets it miss.
	missed := missedCommits(t, vals[0], cons, int64(stopped)+3, int64(head))
	if maxMissed := window / 2; missed <= maxMissed {
		t.Fatalf("validator 2 missed %d commits after it stopped, want more than %d", missed, maxMissed)
	}

	vals[2].restart(t, up...)
	if punishmentMerged {
		waitBlockTimePast(t, vals[0], jail)
		if res := emberdTx(t, vals[0], ops[2].Home, "slashing", "unjail", "--from", "validator"); res.Code != 0 {
			t.Fatalf("unjail after the jail period: code %d (%s) %s", res.Code, res.Codespace, res.RawLog)
		}
		// 10^19 less 1 % leaves 9.9·10^18 tokens: power 9.
		waitCometValidators(t, vals[0], valcons(cons)+" back at power 9", func(v map[string]int64) bool { return v[hexAddr(cons)] == 9 })
		if v := validatorAt(t, vals[0], ops[2].Operator, 0); v.Jailed || v.Status != "BOND_STATUS_BONDED" {
			t.Errorf("validator after unjail: %+v", v)
		}
	}
	waitAllHeight(t, maxHeight(t, vals...)+2, vals...)
	checkEconomy(t, nw, vals...)
}

// missedCommits counts the blocks from..to whose last commit has no
// signature of cons, failing if any but the first few has one (the
// validator stopped before from-2 was committed).
func missedCommits(t *testing.T, n *Node, cons []byte, from, to int64) int {
	t.Helper()
	c := n.cometClient(t)
	missed := 0
	for h := from; h <= to; h++ {
		b, err := c.Block(ctx(t), &h)
		if err != nil {
			t.Fatal(err)
		}
		signed := false
		for _, s := range b.Block.LastCommit.Signatures {
			signed = signed || bytes.Equal(s.ValidatorAddress, cons)
		}
		if signed {
			t.Fatalf("block %d: the last commit has a signature of the stopped validator %X", h, cons)
		}
		missed++
	}
	return missed
}

// checkNoStall requires every block from+1..to of n to come at most
// maxGap seconds after its parent.
func checkNoStall(t *testing.T, n *Node, from, to uint64, maxGap uint64) {
	t.Helper()
	headers := headersTo(t, n, to)
	for h := from + 1; h <= to; h++ {
		if gap := headers[h-1].Time - headers[h-2].Time; gap > maxGap {
			t.Fatalf("block %d came %d s after its parent with 3 of 4 validators up", h, gap)
		}
	}
	t.Logf("blocks %d..%d made with 3 of 4 validators, none more than %d s after its parent", from+1, to, maxGap)
}

// waitSlash waits for the block, from height from on, whose FinalizeBlock
// events hold the `slash` of cons that reports burned_coins.
func waitSlash(t *testing.T, n *Node, cons []byte, from int64, within time.Duration) blockEvent {
	t.Helper()
	next := from
	return wait.For(t, within, "a slash of "+valcons(cons), func() (blockEvent, error) {
		head := int64(n.height(t))
		for ; next <= head; next++ {
			for _, e := range blockEvents(t, n, "slash", next, next) {
				if e.Attrs["address"] == valcons(cons) && e.Attrs["burned_coins"] != "" {
					return e, nil
				}
			}
		}
		return blockEvent{}, fmt.Errorf("none up to %d", head)
	})
}

// assertDowntimePunished checks what x/slashing and x/staking do to a
// validator (cons, operator op) stopped for longer than the window: the
// `slash` event of block E names it with reason missing_signature, power
// 10 and burned_coins slash_fraction_downtime × 10·10^18; its tokens drop
// by exactly that from E−1 to E; it is jailed, not tombstoned, out of
// CometBFT's set, jailed until E's time + downtime_jail_duration. It
// returns that time.
func assertDowntimePunished(t *testing.T, n *Node, cons []byte, op common.Address, slash blockEvent) time.Time {
	t.Helper()
	amount := fractionOf(t, tokensE18(10), testSlashing.SlashFractionDowntime)
	if slash.Attrs["reason"] != "missing_signature" || slash.Attrs["power"] != "10" || mustInt(t, slash.Attrs["burned_coins"]).Cmp(amount) != 0 {
		t.Errorf("slash event of %s: %+v, want reason missing_signature, power 10, burned_coins %v", valcons(cons), slash, amount)
	}
	at := slash.Height
	before, after := mustInt(t, validatorAt(t, n, op, at-1).Tokens), mustInt(t, validatorAt(t, n, op, at).Tokens)
	if sub(before, after).Cmp(amount) != 0 {
		t.Errorf("tokens of %s from %v to %v at %d, want a cut of %v", valoper(op), before, after, at, amount)
	}
	if v := validatorAt(t, n, op, 0); !v.Jailed || v.Status == "BOND_STATUS_BONDED" {
		t.Errorf("validator after downtime: %+v, want jailed, not bonded", v)
	}
	waitCometValidators(t, n, valcons(cons)+" removed", func(v map[string]int64) bool { _, ok := v[hexAddr(cons)]; return !ok })
	info := signingInfoOf(t, n, cons)
	block, err := n.cometClient(t).Block(ctx(t), &at)
	if err != nil {
		t.Fatal(err)
	}
	jail, _ := time.ParseDuration(testSlashing.DowntimeJailDuration)
	until, err := time.Parse(time.RFC3339Nano, info.JailedUntil)
	// The SDK jails until the CometBFT block time + the duration; a chain
	// reading the EVM header's time has it in whole seconds.
	exact, seconds := block.Block.Time.Add(jail), block.Block.Time.Truncate(time.Second).Add(jail)
	if err != nil || info.Tombstoned || (!until.Equal(exact) && !until.Equal(seconds)) {
		t.Errorf("signing info %+v: want not tombstoned, jailed until %s (or %s)", info, exact.Format(time.RFC3339Nano), seconds.Format(time.RFC3339))
	}
	return until
}

// waitBlockTimePast waits until n commits a block whose time is after
// until.
func waitBlockTimePast(t *testing.T, n *Node, until time.Time) {
	t.Helper()
	wait.Eventually(t, time.Until(until)+60*time.Second, fmt.Sprintf("a block after %s", until), func() error {
		head := mustHeader(t, n, nil)
		return wait.Check(time.Unix(int64(head.Time), 0).After(until), "head %v at %d", head.Number, head.Time)
	})
}
