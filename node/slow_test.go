package node

import (
	"context"
	"math/big"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/gorilla/websocket"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/node/homes"
)

// TestSlowSubscriberIsDisconnected subscribes a client that never reads,
// with a 4 KiB receive buffer, to full pending transactions, and sends
// transactions until its notification queue overflows: the node must close
// that connection and free its subscription, and keep serving others.
func TestSlowSubscriberIsDisconnected(t *testing.T) {
	key, _ := accounts.DeriveKey(accounts.TestMnemonic, 0)
	n := startDevNodeWith(t, homes.InitOptions{Moniker: "slow",
		Alloc: homes.FundAll([]common.Address{key.Address}, new(big.Int).Lsh(big.NewInt(1), 100))},
		func(cfg *config.Config) { cfg.JSONRPC.NotificationQueue = 4 })

	dialer := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		}}
		return d.Dial(network, addr)
	}}
	conn, _, err := dialer.Dial("ws://"+n.Config().JSONRPC.WSAddress, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": []any{"newPendingTransactions", true}}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, "the subscription", func() error {
		return wait.Check(n.filters.OpenSubscriptions() == 1, "%d open", n.filters.OpenSubscriptions())
	})

	eth, err := ethclient.Dial("http://" + n.JSONRPCAddr())
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(big.NewInt(31337))
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	data := make([]byte, 2000) // big notifications fill the socket buffers sooner
	sent := 0
	for nonce := uint64(0); n.filters.OpenSubscriptions() > 0; nonce++ {
		if nonce == 20000 {
			t.Fatalf("subscriber still connected after %d txs", nonce)
		}
		tx, _ := types.SignNewTx(key.Private, signer, &types.DynamicFeeTx{ChainID: big.NewInt(31337), Nonce: nonce,
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11), Gas: 100_000, To: &to, Data: data})
		if err := eth.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	t.Logf("slow subscriber disconnected after %d transactions", sent)
	if n.events.Len() != 0 {
		t.Fatalf("%d event subscribers left", n.events.Len())
	}
	// The client's connection is closed: reading ends in an error.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("connection still open")
			}
			break
		}
	}
	// Others are still served.
	if _, err := eth.BlockNumber(context.Background()); err != nil {
		t.Fatal(err)
	}
}
