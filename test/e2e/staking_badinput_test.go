package e2e

import (
	"encoding/base64"
	"math/big"
	"testing"

	"github.com/cometbft/cometbft/crypto/ed25519"

	"github.com/emberchain/ember/native"
)

// TestStakingBadInput: through `emberd tx` on a dev chain, the refusals
// issue 32 names get x/staking's codes and change nothing: a commission
// rate above its max (11), a commission change within 24 hours of the last
// (12: the dev validator's was set at genesis), and a second hop of a
// redelegation before the first completes (32). The unjail too early and
// the delegation to a tombstoned validator are in the downtime and
// double-sign tests.
func TestStakingBadInput(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	tx := func(args ...string) cliTxResult { return emberdTx(t, n, n.Home, args...) }
	want := func(what string, r cliTxResult, code uint32) {
		t.Helper()
		if r.Code != code || r.Codespace != "staking" {
			t.Fatalf("%s: code %d (%s) %s, want %d staking", what, r.Code, r.Codespace, r.RawLog, code)
		}
	}
	count := func() int {
		var vs struct {
			Validators []stakingValidator `json:"validators"`
		}
		restJSON(t, n, "/cosmos/staking/v1beta1/validators", 0, &vs)
		return len(vs.Validators)
	}
	pub := func() string { return base64.StdEncoding.EncodeToString(ed25519.GenPrivKey().PubKey().Bytes()) }
	dev0, dev3 := devKeys[0].Address, devKeys[3].Address

	// The CLI refuses this one itself, as the SDK's does; signed by hand,
	// the node refuses it with the same code.
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	greedy := native.Commission{Rate: "300000000000000000", MaxRate: "200000000000000000", MaxChangeRate: "10000000000000000"}
	raw, _ := signNative(t, n, devKeys[3].Private, b.CreateValidatorWith(dev3, ed25519.GenPrivKey().PubKey().Bytes(), "greedy", e18, greedy, big.NewInt(1)))
	if r := broadcast(t, n, raw); r.Code != 11 || r.Codespace != "staking" {
		t.Fatalf("commission rate above its max: code %d (%s) %s, want 11 staking", r.Code, r.Codespace, r.Log)
	}
	if c := count(); c != 1 {
		t.Fatalf("%d validators after the refused create-validator", c)
	}

	before := validatorAt(t, n, dev0, 0)
	want("commission change within 24h", tx("staking", "edit-validator", "--from", "dev0", "--commission-rate", "0.05"), 12)
	var v struct {
		Validator struct {
			Commission struct {
				Rates struct {
					Rate string `json:"rate"`
				} `json:"commission_rates"`
			} `json:"commission"`
		} `json:"validator"`
	}
	restJSON(t, n, "/cosmos/staking/v1beta1/validators/"+valoper(dev0), 0, &v)
	if after := validatorAt(t, n, dev0, 0); v.Validator.Commission.Rates.Rate != "0.000000000000000000" || after != before {
		t.Fatalf("refused edit changed the validator: rate %s, %+v (was %+v)", v.Validator.Commission.Rates.Rate, after, before)
	}

	if r := tx("staking", "create-validator", "--from", "dev3", "--amount", "1000000000000000000aember", "--moniker", "second", "--pubkey", pub()); r.Code != 0 {
		t.Fatalf("create-validator: code %d %s", r.Code, r.RawLog)
	}
	if r := tx("staking", "delegate", valoper(dev0), "2000000000000000000aember", "--from", "dev4"); r.Code != 0 {
		t.Fatalf("delegate: code %d %s", r.Code, r.RawLog)
	}
	if r := tx("staking", "redelegate", valoper(dev0), valoper(dev3), "1000000000000000000aember", "--from", "dev4"); r.Code != 0 {
		t.Fatalf("redelegate: code %d %s", r.Code, r.RawLog)
	}
	second := validatorAt(t, n, dev3, 0)
	want("redelegation from a validator still receiving one", tx("staking", "redelegate", valoper(dev3), valoper(dev0), "1000000000000000000aember", "--from", "dev4"), 32)
	if after := validatorAt(t, n, dev3, 0); after != second {
		t.Fatalf("refused redelegation changed the validator: %+v (was %+v)", after, second)
	}
}
