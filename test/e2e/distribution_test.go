package e2e

import (
	"math/big"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
)

// TestDistributionDevFees: a dev chain keeps anvil's coinbase; pointed at
// the fee collector with anvil_setCoinbase, its tips are allocated at the
// next block (2% to the community pool, the rest to the validator that
// signed), served on REST and by `emberd query distribution`, and
// `emberd tx distribution fund-community-pool` adds to the pool.
func TestDistributionDevFees(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	collector := common.HexToAddress("0x0000000000000000000000000000000000000B12")
	var null any
	mustCall(t, n, &null, "anvil_setCoinbase", collector)
	to := common.HexToAddress("0x00000000000000000000000000000000000d1570")
	tx := n.send(t, devKeys[5].Private, txOpts{To: &to, Value: big.NewInt(1), Tip: gwei(5)})
	r := n.WaitReceipt(t, tx.Hash())
	if r.GasUsed != 21000 {
		t.Fatalf("gas used %d", r.GasUsed)
	}
	// 21000 × 5 gwei = 105·10^12 of tips: 2.1·10^12 to the community.
	pool := `{"pool":[{"denom":"aember","amount":"2100000000000.000000000000000000"}]}`
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body, _ := n.restGet(t, "/cosmos/distribution/v1beta1/community_pool")
		if body == pool {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("community pool %s, want %s", body, pool)
		}
		time.Sleep(50 * time.Millisecond)
	}
	valoper, _ := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, devKeys[0].Address[:])
	if code, body, _ := n.restGet(t, "/cosmos/distribution/v1beta1/validators/"+valoper+"/outstanding_rewards"); code != 200 ||
		body != `{"rewards":{"rewards":[{"denom":"aember","amount":"102900000000000.000000000000000000"}]}}` {
		t.Fatalf("outstanding rewards: %d %s", code, body)
	}
	if _, body, _ := n.restGet(t, "/cosmos/mint/v1beta1/inflation"); body != `{"inflation":"0.000000000000000000"}` {
		t.Fatalf("inflation %s", body)
	}
	mustCall(t, n, &null, "anvil_setCoinbase", to) // the fund tx's own tip stays out of the pool
	out, err := exec.Command(emberdBin, "tx", "distribution", "fund-community-pool", "1000aember", "--from", "dev1",
		"--home", n.Home, "--node", "tcp://"+n.CometRPC).CombinedOutput()
	if err != nil {
		t.Fatalf("fund-community-pool: %v\n%s", err, out)
	}
	out, err = exec.Command(emberdBin, "query", "distribution", "community-pool", "--node", "tcp://"+n.CometRPC).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != `{"pool":[{"denom":"aember","amount":"2100000001000.000000000000000000"}]}` {
		t.Fatalf("query community-pool: %v %s", err, out)
	}
}
