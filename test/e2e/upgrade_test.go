package e2e

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/upgrade"
)

// TestUpgradeSwitchBinary rehearses a software upgrade on one validator
// under cosmovisor, without governance: its genesis binary (built with
// -tags upgradeschedule) schedules upgrade.TestUpgradeName for
// upgrade.TestPlanHeight by itself at block upgrade.TestScheduleAt, as a
// passed MsgSoftwareUpgrade does. At the plan's height that binary writes
// upgrade-info.json and exits 1 with the SDK's message; cosmovisor starts
// cosmovisor/upgrades/NAME/bin/emberd (also -tags upgradetest: it has the
// handler), CometBFT replays the block into it and the migration runs once.
// The old binary then refuses the upgraded home.
func TestUpgradeSwitchBinary(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 0)
	n := nw.Nodes[0]
	oldBin := emberdWithTags(t, "upgradeschedule")
	newBin := emberdWithTags(t, "upgradeschedule,upgradetest")
	visorLayout(t, n.Home, oldBin, map[string]string{upgrade.TestUpgradeName: newBin})
	v := startVisor(t, n)
	const h = upgrade.TestPlanHeight
	hs := fmt.Sprint(h)
	waitPast(t, n, h+2, 3*time.Minute)

	t.Run("OldBinaryHalted", func(t *testing.T) {
		msg := fmt.Sprintf(`UPGRADE "ember-test-upgrade" NEEDED at height: %d: {"binaries":{}}`, h)
		if !logHas(n, msg) {
			t.Fatalf("no %q in the log", msg)
		}
		// The process ends with the message on stderr (CometBFT's own
		// consensus-failure line comes first, then emberd exits).
		if !logHas(n, "Error: "+msg) {
			t.Fatalf("no %q on stderr", "Error: "+msg)
		}
		if !v.real {
			if exits := v.Exits(); len(exits) < 1 || exits[0] != 1 {
				t.Fatalf("genesis binary's exit statuses %v, want 1 first", exits)
			}
		}
		b, err := os.ReadFile(upgrade.InfoPath(n.Home))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`{"name":"ember-test-upgrade","time":"0001-01-01T00:00:00Z","height":%d,"info":"{\"binaries\":{}}"}`, h); string(b) != want {
			t.Fatalf("upgrade-info.json\n%s\nwant\n%s", b, want)
		}
		cur, err := os.Readlink(filepath.Join(n.Home, "cosmovisor", "current"))
		if err != nil || filepath.Base(cur) != upgrade.TestUpgradeName {
			t.Fatalf("cosmovisor/current -> %s (%v)", cur, err)
		}
	})

	t.Run("NewBinaryApplied", func(t *testing.T) {
		word, err := n.Eth.StorageAt(ctx(t), upgrade.StateAddress, upgrade.TestMarkerSlot, nil)
		if err != nil {
			t.Fatal(err)
		}
		if at, runs := upgrade.ParseTestMarker(common.BytesToHash(word)); at != h || runs != 1 {
			t.Fatalf("migration marker: ran at %d, %d times; want %d, once", at, runs, h)
		}
		var applied struct {
			Height string `json:"height"`
		}
		if code := restJSON(t, n, "/cosmos/upgrade/v1beta1/applied_plan/"+upgrade.TestUpgradeName, 0, &applied); code != 200 || applied.Height != hs {
			t.Fatalf("applied_plan: %d %+v", code, applied)
		}
		var cur struct {
			Plan *json.RawMessage `json:"plan"`
		}
		if code := restJSON(t, n, "/cosmos/upgrade/v1beta1/current_plan", 0, &cur); code != 200 || cur.Plan != nil {
			t.Fatalf("current_plan: %d %s", code, string(deref(cur.Plan)))
		}
		var info struct {
			Response struct {
				AppVersion string `json:"app_version"`
			} `json:"response"`
		}
		n.CometGet(t, "abci_info", nil, &info)
		if info.Response.AppVersion != "2" {
			t.Fatalf("abci_info app_version %q, want 2", info.Response.AppVersion)
		}
		// Before the plan the chain was at app version 1.
		var before struct {
			Plan struct {
				Name   string `json:"name"`
				Height string `json:"height"`
			} `json:"plan"`
		}
		if code := restJSON(t, n, "/cosmos/upgrade/v1beta1/current_plan", h-1, &before); code != 200 || before.Plan.Name != upgrade.TestUpgradeName || before.Plan.Height != hs {
			t.Fatalf("current_plan at %d: %d %+v", h-1, code, before)
		}
	})

	t.Run("CLI", func(t *testing.T) {
		node := "tcp://" + n.CometRPC
		out, err := emberdCLI(t, "query", "upgrade", "applied", upgrade.TestUpgradeName, "--node", node)
		var applied struct {
			Height string `json:"height"`
		}
		if err != nil || json.Unmarshal([]byte(out), &applied) != nil || applied.Height != hs {
			t.Fatalf("query upgrade applied: %v\n%s", err, out)
		}
		out, err = emberdCLI(t, "query", "upgrade", "plan", "--node", node, "--height", fmt.Sprint(h-1))
		var plan struct {
			Plan struct {
				Name   string `json:"name"`
				Height string `json:"height"`
				Info   string `json:"info"`
			} `json:"plan"`
		}
		if err != nil || json.Unmarshal([]byte(out), &plan) != nil || plan.Plan.Name != upgrade.TestUpgradeName || plan.Plan.Height != hs || plan.Plan.Info != `{"binaries":{}}` {
			t.Fatalf("query upgrade plan --height %d: %v\n%s", h-1, err, out)
		}
		// The proposal the CLI builds is a gov v1 MsgSubmitProposal: until
		// the gov module is routed CheckTx names its type URL; after, it is
		// accepted (a lone proposal nobody votes for changes no plan).
		home := cliKeyring(t, map[string]*ecdsa.PrivateKey{"alice": devKeys[1].Private})
		res := emberdTx(t, n, home, "upgrade", "software-upgrade", "cli-check", "--upgrade-height", "100000", "--upgrade-info", "{}",
			"--title", "cli", "--summary", "check", "--deposit", "1000000aember", "--from", "alice", "--gas", "400000")
		if res.Code != 0 && !(res.Code == 2 && strings.Contains(res.RawLog, "/cosmos.gov.v1.MsgSubmitProposal")) {
			t.Fatalf("tx upgrade software-upgrade: %+v", res)
		}
	})

	t.Run("OldBinaryRefused", func(t *testing.T) {
		v.Stop()
		c, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		out, err := exec.CommandContext(c, oldBin, startArgs(n)...).CombinedOutput()
		exit, ok := err.(*exec.ExitError)
		want := fmt.Sprintf(`upgrade "ember-test-upgrade" was applied at height %d and this binary has no handler for it`, h)
		if !ok || exit.ExitCode() != 1 || !strings.Contains(string(out), want) {
			t.Fatalf("old binary: %v\n%s", err, out)
		}
	})
}

// TestHaltHeightExits: a node started with --halt-height stops after
// committing that block with exit status 0 and the SDK's log line, and
// refuses to start again with the same setting.
func TestHaltHeightExits(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 0)
	n := nw.Nodes[0]
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(c, emberdBin, append(startArgs(n), "--halt-height", "4")...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `msg="halting node per configuration" height=4`) {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	out, err = exec.CommandContext(c, emberdBin, append(startArgs(n), "--halt-height", "4")...).CombinedOutput()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 1 || !strings.Contains(string(out), "Error: halt height 4 reached: the last block is 4") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	// Without the setting it goes on from block 4.
	n.Start("start")
	waitAllHeight(t, 6, n)
}

// startArgs are the arguments of `emberd start` on n's home and ports.
func startArgs(n *Node) []string {
	return []string{"start", "--home", n.Home,
		"--json-rpc.address", n.HTTP, "--json-rpc.ws-address", n.WS, "--rpc.laddr", "tcp://" + n.CometRPC,
		"--p2p.laddr", "tcp://" + n.p2p, "--rest.address", n.REST, "--explorer.address", n.Explorer, "--grpc.address", n.GRPC}
}

func deref(m *json.RawMessage) []byte {
	if m == nil {
		return nil
	}
	return *m
}
