package e2e

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts"
)

// TestSlashingQueries: a dev chain's genesis has no slashing section (one
// validator, nothing to punish, and an idle dev chain must not change its
// state at every block): the module counts no votes, so its validator has
// no signing info, and the parameters read are the SDK's defaults, in the
// gateway's JSON. The downtime and double-sign tests read signing infos on
// networks.
func TestSlashingQueries(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	for nonce := uint64(0); nonce < 2; nonce++ { // blocks after the first: their last commits name the validator
		tx, err := types.SignNewTx(devKeys[7].Private, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
			ChainID: big.NewInt(31337), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: gasPrice, Gas: 21000, To: &devKeys[6].Address})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
			t.Fatal(err)
		}
		n.WaitReceipt(t, tx.Hash())
	}
	code, body, _ := n.restGet(t, "/cosmos/slashing/v1beta1/params")
	if want := `{"params":{"signed_blocks_window":"100","min_signed_per_window":"0.500000000000000000","downtime_jail_duration":"600s","slash_fraction_double_sign":"0.050000000000000000","slash_fraction_downtime":"0.010000000000000000"}}`; code != 200 || body != want {
		t.Fatalf("params: %d %s", code, body)
	}
	var status struct {
		ValidatorInfo struct {
			Address string `json:"address"`
		} `json:"validator_info"`
	}
	n.CometGet(t, "status", url.Values{}, &status)
	raw, _ := hex.DecodeString(status.ValidatorInfo.Address)
	valcons, err := accounts.NewPrefixes("ember").Encode(accounts.KindConsensus, raw)
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ = n.restGet(t, "/cosmos/slashing/v1beta1/signing_infos/"+valcons)
	if code != 404 || !strings.Contains(body, "SigningInfo not found for validator "+valcons) {
		t.Fatalf("signing info of the dev validator: %d %s", code, body)
	}
	code, body, _ = n.restGet(t, "/cosmos/slashing/v1beta1/signing_infos?pagination.count_total=true")
	var all struct {
		Info       []json.RawMessage `json:"info"`
		Pagination struct {
			Total string `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal([]byte(body), &all); code != 200 || err != nil || len(all.Info) != 0 || all.Pagination.Total != "0" {
		t.Fatalf("signing infos: %d %s", code, body)
	}
	code, body, _ = n.restGet(t, "/cosmos/slashing/v1beta1/signing_infos/embervalcons1nope")
	if code != 400 {
		t.Fatalf("bad address: %d %s", code, body)
	}
}
