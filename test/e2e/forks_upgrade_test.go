package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/upgrade"
)

// TestOsakaByGovUpgrade: a chain that runs Prague (its genesis schedules
// no Osaka, as chains made before Osaka) passes a gov v1 proposal carrying
// MsgSoftwareUpgrade for the built-in "osaka" plan. Before the plan's
// height a CLZ contract fails and P256VERIFY is an empty account; the
// plan's block is timed strictly after its parent and records its time as
// Osaka's (0x…0B61, eth_config current); from it on CLZ and P256VERIFY
// work, while calls and traces at Prague heights still run Prague. Every
// transaction the test sent, run by go-ethereum with Osaka from that time,
// gives the same receipts and the same post-state of every account it
// touched.
func TestOsakaByGovUpgrade(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 0)
	p := gov.DefaultParams()
	p.MaxDepositPeriod, p.VotingPeriod, p.ExpeditedVotingPeriod = 8*time.Second, 8*time.Second, 4*time.Second
	setGovParams(nw, p.Proto("ember", denom))
	editGenesis(nw, dropOsaka(t))
	n := nw.Nodes[0]
	n.Start("start")
	waitAllHeight(t, 2, n)
	home := nw.manifest().Nodes[0].Home

	s := newForkSender(t, n, devKeys[8].Private)
	sender := devKeys[8].Address
	clz, p256 := s.create(300_000, clzInit), s.create(300_000, p256Init)
	recipient := common.HexToAddress("0x00000000000000000000000000000000000f0a06")
	word := common.BigToHash(new(big.Int).Lsh(big.NewInt(1), 200)).Bytes()
	phase := func() {
		s.send(&clz, 100_000, word)
		s.send(&p256, 100_000, p256Input(t, false))
		s.send(&p256, 100_000, p256Input(t, true))
		s.sendValue(&recipient, 21_000, nil, ether(1))
	}
	phase() // Prague
	var cfg configJSON
	mustCall(t, n, &cfg, "eth_config")
	if cfg.Current == nil || len(cfg.Current.Precompiles) != 17 || cfg.Next != nil {
		t.Fatalf("eth_config of a Prague chain: %+v next %+v", cfg.Current, cfg.Next)
	}

	// The proposal: the plan well after the voting period; the validator
	// votes yes through the CLI.
	planAt := int64(n.height(t)) + 40 // blocks come every half second: the plan is well after the 8 s vote
	proposer := devKeys[4]
	msg := packAny(t, upgrade.NewMsgSoftwareUpgrade("ember", upgrade.Plan{Name: "osaka", Height: planAt}))
	govSend(t, n, feeLedger{}, proposer.Private, &govv1.MsgSubmitProposal{Messages: []*anypb.Any{msg},
		InitialDeposit: govCoins(p.MinDeposit.Int64()), Proposer: accounts.Bech32("ember", proposer.Address), Title: "Osaka", Summary: "move the EVM to Osaka"})
	if res := emberdTx(t, n, home, "gov", "vote", "1", "yes", "--from", "validator"); res.Code != 0 {
		t.Fatalf("validator vote: %d %s", res.Code, res.RawLog)
	}
	wait.Eventually(t, 60*time.Second, "the proposal to pass", func() error {
		if pr, _ := proposalOf(t, n, 1); pr.Status != "PROPOSAL_STATUS_PASSED" {
			return fmt.Errorf("status %s", pr.Status)
		}
		return nil
	})
	var plan struct {
		Plan *struct {
			Name   string `json:"name"`
			Height string `json:"height"`
		} `json:"plan"`
	}
	restJSON(t, n, "/cosmos/upgrade/v1beta1/current_plan", 0, &plan)
	if plan.Plan == nil || plan.Plan.Name != "osaka" || plan.Plan.Height != big.NewInt(planAt).String() {
		t.Fatalf("current plan %+v, want osaka at %d", plan.Plan, planAt)
	}
	if h := int64(n.height(t)); h >= planAt {
		t.Fatalf("the proposal passed at height %d, not before the plan's %d", h, planAt)
	}
	var out hexutil.Bytes
	if err := n.RPC.Call(&out, "eth_call", map[string]any{"to": clz, "data": hexutil.Bytes(word)}, "latest"); err == nil || err.Error() != "invalid opcode: "+vm.CLZ.String() {
		t.Fatalf("CLZ before the plan's height: %v", err)
	}

	waitAllHeight(t, uint64(planAt), n)
	before, at := header(t, n, planAt-1), header(t, n, planAt)
	if at.Time <= before.Time {
		t.Fatalf("the activation block's time %d is not after its parent's %d", at.Time, before.Time)
	}
	osakaAt := at.Time
	recorded, err := n.Eth.StorageAt(ctx(t), common.HexToAddress("0x0000000000000000000000000000000000000B61"), common.BigToHash(big.NewInt(1)), big.NewInt(planAt))
	if err != nil {
		t.Fatal(err)
	}
	if want := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).SetUint64(osakaAt)); new(big.Int).SetBytes(recorded).Cmp(want) != 0 {
		t.Fatalf("recorded activation %x, want 2^64 + %d", recorded, osakaAt)
	}
	mustCall(t, n, &cfg, "eth_config")
	if cfg.Current == nil || cfg.Current.ActivationTime != osakaAt || cfg.Current.Precompiles["P256VERIFY"] != p256Address {
		t.Fatalf("eth_config after the plan: %+v", cfg.Current)
	}
	var applied struct {
		Height string `json:"height"`
	}
	restJSON(t, n, "/cosmos/upgrade/v1beta1/applied_plan/osaka", 0, &applied)
	if applied.Height != big.NewInt(planAt).String() {
		t.Fatalf("applied_plan osaka at %s, want %d", applied.Height, planAt)
	}
	phase() // Osaka
	if err := n.RPC.Call(&out, "eth_call", map[string]any{"to": clz, "data": hexutil.Bytes(word)}, hexutil.Uint64(planAt-1)); err == nil || err.Error() != "invalid opcode: "+vm.CLZ.String() {
		t.Fatalf("CLZ at the Prague height %d after the switch: %v", planAt-1, err)
	}

	receipts := make([]*types.Receipt, len(s.sent))
	times := make([]uint64, len(s.sent))
	for i, tx := range s.sent {
		receipts[i] = n.WaitReceipt(t, tx.Hash())
		times[i] = header(t, n, receipts[i].BlockNumber.Int64()).Time
	}
	// deploys 0, 1; Prague 2..5; Osaka 6..9.
	if receipts[2].Status != 0 || receipts[6].Status != 1 || receipts[3].GasUsed == receipts[7].GasUsed {
		t.Fatalf("CLZ before/after: %d/%d; P256VERIFY gas %d/%d", receipts[2].Status, receipts[6].Status, receipts[3].GasUsed, receipts[7].GasUsed)
	}
	for i, want := range map[int]string{2: "invalid opcode: " + vm.CLZ.String(), 6: ""} {
		var tr struct {
			Error string `json:"error"`
		}
		mustCall(t, n, &tr, "debug_traceTransaction", s.sent[i].Hash(), map[string]any{"tracer": "callTracer"})
		if tr.Error != want {
			t.Errorf("trace of tx %d: error %q, want %q", i, tr.Error, want)
		}
	}
	gethReceipts, gethState := runOnGeth(t, n, home, osakaAt, s.sent, times)
	for i := range s.sent {
		e, g := receipts[i], gethReceipts[i]
		if e.Status != g.Status || e.GasUsed != g.GasUsed || !sameLogs(e.Logs, g.Logs) {
			t.Errorf("tx %d: Ember status %d gas %d logs %d; geth status %d gas %d logs %d", i, e.Status, e.GasUsed, len(e.Logs), g.Status, g.GasUsed, len(g.Logs))
		}
	}
	for _, addr := range []common.Address{sender, clz, p256, recipient} {
		if e, g := emberAccount(t, n, addr), gethState[addr]; e != g {
			t.Errorf("account %s: Ember %+v, geth %+v", addr, e, g)
		}
	}
}

// create deploys init and returns the contract's address.
func (s *forkSender) create(gas uint64, init []byte) common.Address {
	s.t.Helper()
	r := s.send(nil, gas, init)
	if r.Status != 1 {
		s.t.Fatalf("deploy: status %d", r.Status)
	}
	return r.ContractAddress
}

// header is block h's header.
func header(t *testing.T, n *Node, h int64) *types.Header {
	t.Helper()
	hd, err := n.Eth.HeaderByNumber(ctx(t), big.NewInt(h))
	if err != nil {
		t.Fatal(err)
	}
	return hd
}

// dropOsaka makes the genesis a Prague chain's: no osakaTime.
func dropOsaka(t *testing.T) func(map[string]json.RawMessage) {
	return func(app map[string]json.RawMessage) {
		var evmGenesis map[string]json.RawMessage
		if err := json.Unmarshal(app["evm"], &evmGenesis); err != nil {
			t.Fatal(err)
		}
		var config map[string]json.RawMessage
		if err := json.Unmarshal(evmGenesis["config"], &config); err != nil {
			t.Fatal(err)
		}
		delete(config, "osakaTime")
		evmGenesis["config"], _ = json.Marshal(config)
		app["evm"], _ = json.Marshal(evmGenesis)
	}
}
