package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/explorer/api"
)

// TestExplorerStaking: on a dev chain whose fees go to the fee collector,
// a delegator delegates to the dev validator, undelegates part and earns
// rewards from a tip it pays; the explorer's /api/v2/validators and
// /api/v2/addresses/{hash}/staking then answer, to the wei, what the REST
// staking, slashing and distribution endpoints answer at the block the
// explorer says it read, and the validators page and the address page's
// Staking tab show those values in headless Chromium.
func TestExplorerStaking(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0", "--unbonding-time", "1h")
	br := startBrowser(t)
	var null any
	mustCall(t, n, &null, "anvil_setCoinbase", common.HexToAddress("0x0000000000000000000000000000000000000B12"))
	op := devKeys[0].Address // the dev validator's operator
	delKey, del := devKeys[4].Private, devKeys[4].Address

	delegated, undelegated := add(tokensE18(3), big.NewInt(7)), add(e18, big.NewInt(3))
	raw, _ := signNative(t, n, delKey, nativeB.Delegate(del, op, delegated))
	if r := deliver(t, n, raw); r.TxResult.Code != 0 {
		t.Fatalf("delegate: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	raw, _ = signNative(t, n, delKey, nativeB.Undelegate(del, op, undelegated))
	r := deliver(t, n, raw)
	if r.TxResult.Code != 0 {
		t.Fatalf("undelegate: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	// A tip the next block shares among the validator's delegators; the
	// EVM tx also makes the delegator an address the index knows.
	to := common.HexToAddress("0x00000000000000000000000000000000005a4e")
	rc := n.WaitReceipt(t, n.send(t, delKey, txOpts{To: &to, Value: big.NewInt(1), Tip: gwei(50)}).Hash())
	// The next block allocates the tip. Slashing's signing infos change
	// the state each block, so the chain does not settle: the explorer
	// says which block it read and the REST is asked at that block.
	allocated := rc.BlockNumber.Uint64() + 1
	n.waitIndexed(t, allocated)
	vals := explorerGet[api.ValidatorList](t, n, "/api/v2/validators")
	st := explorerGet[api.AddressStaking](t, n, "/api/v2/addresses/"+del.Hex()+"/staking")
	if vals.BlockNumber < allocated || st.BlockNumber < allocated {
		t.Fatalf("explorer read blocks %d and %d, before block %d", vals.BlockNumber, st.BlockNumber, allocated)
	}
	checkValidatorsJSON(t, n, vals, int64(vals.BlockNumber))
	checkStakingJSON(t, n, st, del, int64(st.BlockNumber))

	// What this test did, independently of the REST.
	want := sub(delegated, undelegated)
	if len(st.Delegations) != 1 || st.Delegations[0].Operator != op.Hex() || st.Delegations[0].Balance != want.String() || st.TotalDelegated != want.String() {
		t.Errorf("delegations %+v, want %v with %s", st.Delegations, want, op.Hex())
	}
	if len(st.Unbondings) != 1 || st.Unbondings[0].Balance != undelegated.String() || st.Unbondings[0].CreationHeight != r.Height {
		t.Errorf("unbonding entries %+v, want %v created at %d", st.Unbondings, undelegated, r.Height)
	}
	if len(st.Rewards) != 1 || !dec.MustParse(st.TotalRewards).IsPositive() {
		t.Errorf("rewards %+v total %s, want a positive reward", st.Rewards, st.TotalRewards)
	}
	var item *api.Validator
	for i := range vals.Items {
		if vals.Items[i].Operator == op.Hex() {
			item = &vals.Items[i]
		}
	}
	// A dev chain counts no votes (its genesis has no slashing section):
	// no signing info, so no uptime.
	if item == nil || item.DelegatorCount != 2 || item.StatusLabel != "bonded" || item.Jailed || item.Uptime != nil {
		t.Fatalf("dev validator %+v: want bonded, not jailed, 2 delegators, no uptime", item)
	}

	base := "http://" + n.Explorer
	checkWebValidatorStake(t, br, base, item, vals.SignedBlocksWindow)
	checkWebAddressStake(t, br, base, del, st)
}

// explorerGet GETs an explorer API path and decodes its 200 answer.
func explorerGet[T any](t *testing.T, n *Node, path string) T {
	t.Helper()
	var v T
	res, err := http.Get("http://" + n.Explorer + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d", path, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// restValidator is the part of a REST validator the explorer repeats.
type restValidator struct {
	OperatorAddress string `json:"operator_address"`
	Jailed          bool   `json:"jailed"`
	Status          string `json:"status"`
	Tokens          string `json:"tokens"`
	DelegatorShares string `json:"delegator_shares"`
	Description     struct {
		Moniker string `json:"moniker"`
	} `json:"description"`
	Commission struct {
		Rates struct {
			Rate          string `json:"rate"`
			MaxRate       string `json:"max_rate"`
			MaxChangeRate string `json:"max_change_rate"`
		} `json:"commission_rates"`
	} `json:"commission"`
	MinSelfDelegation string `json:"min_self_delegation"`
}

// restDelegation is one of a REST delegation_responses.
type restDelegation struct {
	Delegation struct {
		DelegatorAddress string `json:"delegator_address"`
		ValidatorAddress string `json:"validator_address"`
		Shares           string `json:"shares"`
	} `json:"delegation"`
	Balance struct {
		Amount string `json:"amount"`
	} `json:"balance"`
}

// restAt is restJSON that requires a 200.
func restAt[T any](t *testing.T, n *Node, path string, h int64) T {
	t.Helper()
	var v T
	if code := restJSON(t, n, path, h, &v); code != 200 {
		t.Fatalf("%s at %d: HTTP %d", path, h, code)
	}
	return v
}

// decDiv is a/b as an 18-place decimal (SDK Quo).
func decDiv(a, b int64) dec.Dec { return dec.FromInt64(a).Quo(dec.FromInt64(b)) }

func checkValidatorsJSON(t *testing.T, n *Node, got api.ValidatorList, h int64) {
	t.Helper()
	rest := restAt[struct {
		Validators []restValidator `json:"validators"`
	}](t, n, "/cosmos/staking/v1beta1/validators", h)
	params := restAt[struct {
		Params struct {
			Window string `json:"signed_blocks_window"`
		} `json:"params"`
	}](t, n, "/cosmos/slashing/v1beta1/params", h)
	if fmt.Sprint(got.SignedBlocksWindow) != params.Params.Window {
		t.Errorf("signed_blocks_window %d, REST %s", got.SignedBlocksWindow, params.Params.Window)
	}
	if len(got.Items) != len(rest.Validators) {
		t.Fatalf("explorer lists %d validators, REST %d", len(got.Items), len(rest.Validators))
	}
	var total int64
	for _, v := range rest.Validators {
		if v.Status == "BOND_STATUS_BONDED" {
			total += new(big.Int).Quo(mustInt(t, v.Tokens), e18).Int64()
		}
	}
	byOp := map[string]api.Validator{}
	for _, g := range got.Items {
		byOp[g.OperatorBech32] = g
	}
	for _, v := range rest.Validators {
		checkValidatorItem(t, n, byOp[v.OperatorAddress], v, total, got.SignedBlocksWindow, h)
	}
}

func checkValidatorItem(t *testing.T, n *Node, g api.Validator, v restValidator, total, window, h int64) {
	t.Helper()
	c := v.Commission.Rates
	power := new(big.Int).Quo(mustInt(t, v.Tokens), e18).Int64()
	share := dec.Zero().String()
	if v.Status == "BOND_STATUS_BONDED" {
		share = decDiv(power, total).String()
	}
	if g.OperatorBech32 != v.OperatorAddress || g.Moniker != v.Description.Moniker || g.Tokens != v.Tokens || g.DelegatorShares != v.DelegatorShares ||
		g.Status != v.Status || g.Jailed != v.Jailed || g.VotingPower != power || g.VotingPowerShare != share || g.MinSelfDelegation != v.MinSelfDelegation ||
		g.CommissionRate != c.Rate || g.CommissionMaxRate != c.MaxRate || g.CommissionMaxChangeRate != c.MaxChangeRate {
		t.Errorf("validator %+v, REST %+v (power %d of %d)", g, v, power, total)
	}
	dels := restAt[struct {
		Responses []restDelegation `json:"delegation_responses"`
	}](t, n, "/cosmos/staking/v1beta1/validators/"+v.OperatorAddress+"/delegations", h)
	self := "0"
	for _, d := range dels.Responses {
		if d.Delegation.DelegatorAddress == accounts.Bech32("ember", common.HexToAddress(g.Operator)) {
			self = d.Balance.Amount
		}
	}
	if g.DelegatorCount != len(dels.Responses) || g.SelfBond != self {
		t.Errorf("%s: %d delegators, self-bond %s; REST %d, %s", v.OperatorAddress, g.DelegatorCount, g.SelfBond, len(dels.Responses), self)
	}
	var info struct {
		Info signingInfo `json:"val_signing_info"`
	}
	_, cons, _ := accounts.NewPrefixes("ember").Decode(g.ConsensusAddress)
	if code := restJSON(t, n, "/cosmos/slashing/v1beta1/signing_infos/"+valcons(cons), h, &info); code != 200 {
		if g.Uptime != nil {
			t.Errorf("%s: uptime %s without a signing info (HTTP %d)", v.OperatorAddress, *g.Uptime, code)
		}
		return
	}
	missed := mustInt(t, info.Info.MissedBlocksCounter).Int64()
	uptime := dec.One().Sub(decDiv(missed, window)).String()
	if g.MissedBlocks != missed || g.Uptime == nil || *g.Uptime != uptime || g.Tombstoned != info.Info.Tombstoned {
		t.Errorf("%s: missed %d uptime %v tombstoned %v; REST missed %d (uptime %s) tombstoned %v", v.OperatorAddress, g.MissedBlocks, g.Uptime, g.Tombstoned, missed, uptime, info.Info.Tombstoned)
	}
}

func checkStakingJSON(t *testing.T, n *Node, got api.AddressStaking, del common.Address, h int64) {
	t.Helper()
	acc := accounts.Bech32("ember", del)
	dels := restAt[struct {
		Responses []restDelegation `json:"delegation_responses"`
	}](t, n, "/cosmos/staking/v1beta1/delegations/"+acc, h)
	if len(got.Delegations) != len(dels.Responses) {
		t.Fatalf("delegations %+v, REST %+v", got.Delegations, dels.Responses)
	}
	for i, d := range dels.Responses {
		g := got.Delegations[i]
		if g.OperatorBech32 != d.Delegation.ValidatorAddress || g.Shares != d.Delegation.Shares || g.Balance != d.Balance.Amount {
			t.Errorf("delegation %+v, REST %+v", g, d)
		}
	}
	ubds := restAt[struct {
		Responses []struct {
			ValidatorAddress string           `json:"validator_address"`
			Entries          []unbondingEntry `json:"entries"`
		} `json:"unbonding_responses"`
	}](t, n, "/cosmos/staking/v1beta1/delegators/"+acc+"/unbonding_delegations", h)
	var entries []string
	for _, u := range ubds.Responses {
		for _, e := range u.Entries {
			done, err := time.Parse(time.RFC3339Nano, e.CompletionTime)
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, fmt.Sprintf("%s %s %s %s %s", u.ValidatorAddress, e.CreationHeight, done.UTC().Format(time.RFC3339Nano), e.InitialBalance, e.Balance))
		}
	}
	var gotEntries []string
	for _, e := range got.Unbondings {
		gotEntries = append(gotEntries, fmt.Sprintf("%s %d %s %s %s", e.OperatorBech32, e.CreationHeight, e.CompletionTime, e.InitialBalance, e.Balance))
	}
	if strings.Join(gotEntries, "\n") != strings.Join(entries, "\n") {
		t.Errorf("unbonding entries\n%s\nREST\n%s", strings.Join(gotEntries, "\n"), strings.Join(entries, "\n"))
	}
	type decCoin struct {
		Amount string `json:"amount"`
	}
	rewards := restAt[struct {
		Rewards []struct {
			ValidatorAddress string    `json:"validator_address"`
			Reward           []decCoin `json:"reward"`
		} `json:"rewards"`
		Total []decCoin `json:"total"`
	}](t, n, "/cosmos/distribution/v1beta1/delegators/"+acc+"/rewards", h)
	amount := func(c []decCoin) string {
		if len(c) == 0 {
			return dec.Zero().String()
		}
		return c[0].Amount
	}
	if len(got.Rewards) != len(rewards.Rewards) || got.TotalRewards != amount(rewards.Total) {
		t.Fatalf("rewards %+v total %s, REST %+v", got.Rewards, got.TotalRewards, rewards)
	}
	for i, rw := range rewards.Rewards {
		if g := got.Rewards[i]; g.OperatorBech32 != rw.ValidatorAddress || g.Reward != amount(rw.Reward) {
			t.Errorf("reward %+v, REST %+v", g, rw)
		}
	}
}

// pctText spells an 18-place decimal fraction as the pages do (pct).
func pctText(d string) string {
	whole, frac, _ := strings.Cut(d, ".")
	return units(mustIntNoT(whole+frac), len(frac)-2) + "%"
}

// decCoinText spells a decimal amount of base units as the pages do
// (decCoin): cut to whole base units, what a withdrawal pays.
func decCoinText(d string) string {
	whole, _, _ := strings.Cut(d, ".")
	return units(mustIntNoT(whole), 18) + " EMBER"
}

func mustIntNoT(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("not an integer: " + s)
	}
	return v
}

// checkWebValidatorStake reads the validators page's row of v.
func checkWebValidatorStake(t *testing.T, br *browser, base string, v *api.Validator, window int64) {
	if v.Uptime != nil {
		t.Fatalf("uptime %s on a dev chain", *v.Uptime)
	}
	br.open(t, base+"/validators")
	ops := texts(t, br, `[data-field="operator-bech32"]`)
	row := -1
	for i, op := range ops {
		if op == v.OperatorBech32 {
			row = i
		}
	}
	if row < 0 {
		t.Fatalf("validators page lists %v, not %s", ops, v.OperatorBech32)
	}
	col := func(field string) string { return texts(t, br, `[data-field="`+field+`"]`)[row] }
	want := map[string]string{
		"moniker": v.Moniker, "status": "bonded", "tokens": coinText(mustIntNoT(v.Tokens)),
		"voting-power":    grouped(uint64(v.VotingPower)) + " (" + pctText(v.VotingPowerShare) + ")",
		"commission":      pctText(v.CommissionRate) + "max " + pctText(v.CommissionMaxRate) + ", change ≤ " + pctText(v.CommissionMaxChangeRate) + "/day",
		"uptime":          "—",
		"self-bond":       coinText(mustIntNoT(v.SelfBond)),
		"delegator-count": fmt.Sprint(v.DelegatorCount),
	}
	for field, w := range want {
		if got := col(field); got != w {
			t.Errorf("validators page %s = %q, want %q", field, got, w)
		}
	}
	br.shot(t, "validators-staking")
	br.noErrors(t, "validators")
}

// checkWebAddressStake reads the address page's Staking tab.
func checkWebAddressStake(t *testing.T, br *browser, base string, del common.Address, st api.AddressStaking) {
	br.open(t, base+"/address/"+del.Hex()+"#staking")
	d, u, rw := st.Delegations[0], st.Unbondings[0], st.Rewards[0]
	want := map[string]string{
		"total-delegated":    coinText(mustIntNoT(st.TotalDelegated)),
		"total-unbonding":    coinText(mustIntNoT(st.TotalUnbonding)),
		"total-rewards":      decCoinText(st.TotalRewards),
		"validator-bech32":   d.OperatorBech32,
		"shares":             d.Shares,
		"delegation-balance": coinText(mustIntNoT(d.Balance)),
		"unbonding-balance":  coinText(mustIntNoT(u.Balance)),
		"unbonding-height":   fmt.Sprint(u.CreationHeight),
		"reward":             decCoinText(rw.Reward),
	}
	for field, w := range want {
		if got := texts(t, br, `#panel-staking [data-field="`+field+`"]`)[0]; got != w {
			t.Errorf("address page %s = %q, want %q", field, got, w)
		}
	}
	if got := br.attrs(t, `#panel-staking [data-field="unbonding-completion"] time`, "datetime"); len(got) != 1 || got[0] != u.CompletionTime {
		t.Errorf("unbonding completion %v, want %s", got, u.CompletionTime)
	}
	br.shot(t, "address-staking")
	br.noErrors(t, "address staking")
}
