package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts"
)

// TestSlashingQueries: the dev chain's validator has a signing info from
// its first signed block on, counting every block since, none missed; the
// parameters are the SDK's defaults, in the gateway's JSON.
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
	code, body, header := n.restGet(t, "/cosmos/slashing/v1beta1/signing_infos/"+valcons)
	height, _ := strconv.ParseInt(header.Get("Grpc-Metadata-X-Cosmos-Block-Height"), 10, 64)
	want := fmt.Sprintf(`{"val_signing_info":{"address":"%s","start_height":"2","index_offset":"%d","jailed_until":"1970-01-01T00:00:00Z","tombstoned":false,"missed_blocks_counter":"0"}}`, valcons, height-1)
	if code != 200 || body != want || height < 3 {
		t.Fatalf("signing info at height %d: %d %s\nwant %s", height, code, body, want)
	}
	code, body, _ = n.restGet(t, "/cosmos/slashing/v1beta1/signing_infos?pagination.count_total=true")
	var all struct {
		Info       []json.RawMessage `json:"info"`
		Pagination struct {
			Total string `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal([]byte(body), &all); code != 200 || err != nil || len(all.Info) != 1 || all.Pagination.Total != "1" {
		t.Fatalf("signing infos: %d %s", code, body)
	}
	code, body, _ = n.restGet(t, "/cosmos/slashing/v1beta1/signing_infos/embervalcons1nope")
	if code != 400 {
		t.Fatalf("bad address: %d %s", code, body)
	}
}
