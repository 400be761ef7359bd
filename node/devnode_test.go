package node

import (
	"errors"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emberchain/ember/internal/freeport"
	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/node/homes"
)

// startDevNode runs a dev node in this process on free ports.
func startDevNode(t testing.TB) *Node {
	t.Helper()
	return startDevNodeWith(t, homes.InitOptions{Moniker: "test"}, nil)
}

// startDevNodeWith runs a dev node from init (its Home, ChainID and Dev are
// set here) with edit applied to its config. A free port is only free until
// someone takes it, and packages test in parallel: a start that finds one of
// its ports taken tries again, in a fresh home, on other ports.
func startDevNodeWith(t testing.TB, init homes.InitOptions, edit func(*config.Config)) *Node {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a node: skipped with -short")
	}
	const attempts = 3
	for attempt := 1; ; attempt++ {
		init.Home, init.ChainID, init.Dev = filepath.Join(t.TempDir(), "home"), "ember_31337-1", true
		if err := homes.Init(init); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			cfg, err := config.Load(init.Home)
			if err != nil {
				t.Fatal(err)
			}
			edit(&cfg)
			if err := config.Write(init.Home, cfg); err != nil {
				t.Fatal(err)
			}
		}
		n, err := New(init.Home, freeOverrides(t))
		if err != nil {
			t.Fatal(err)
		}
		err = n.Start() // a failed start has stopped itself
		if err == nil {
			t.Cleanup(n.Stop)
			return n
		}
		if !portTaken(err) || attempt == attempts {
			t.Fatal(err)
		}
		t.Logf("start, attempt %d: %v; again on other ports", attempt, err)
	}
}

// freeOverrides puts every listener on a free port: dev homes run them all,
// and none may use its fixed default port. extra flags come last and win.
func freeOverrides(t testing.TB, extra ...string) config.Overrides {
	ov, err := config.ParseOverrides(append([]string{
		"--json-rpc.address=" + freeAddr(t), "--json-rpc.ws-address=" + freeAddr(t),
		"--rpc.laddr=tcp://" + freeAddr(t), "--p2p.laddr=tcp://" + freeAddr(t), "--log-level=warn",
		"--rest.address=" + freeAddr(t), "--explorer.address=" + freeAddr(t), "--grpc.address=" + freeAddr(t),
		"--metrics.address=" + freeAddr(t),
	}, extra...))
	if err != nil {
		t.Fatal(err)
	}
	return ov
}

func freeAddr(t testing.TB) string {
	addr, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// portTaken tells whether err is a listen that found its port in use.
// CometBFT's RPC listener formats the cause with %v, so the text is checked
// as well as the chain.
func portTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// TestFailedStartReleasesEverything starts a node whose port is taken, once
// where CometBFT has opened its RPC listener but not its P2P one, and once
// after CometBFT runs (the gRPC port): each start fails with the port in its
// error and frees what it had opened, so the same home starts afterwards.
func TestFailedStartReleasesEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node: skipped with -short")
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := homes.Init(homes.InitOptions{Home: home, Moniker: "taken", ChainID: "ember_31337-1", Dev: true}); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		name string
		take string // the flag given the taken address
	}{
		{"p2p", "--p2p.laddr=tcp://"},
		{"grpc", "--grpc.address="},
	} {
		o := freeOverrides(t, c.take+taken.Addr().String())
		n, err := New(home, o)
		if err != nil {
			t.Fatal(err)
		}
		err = n.Start()
		if err == nil {
			n.Stop()
			t.Fatalf("%s: started on a taken port", c.name)
		}
		if !portTaken(err) || !strings.Contains(err.Error(), taken.Addr().String()) {
			t.Fatalf("%s: error %q does not name the taken port", c.name, err)
		}
		// CometBFT's RPC listened before the failure (both cases): it must be closed.
		l, err := net.Listen("tcp", strings.TrimPrefix(o.Value("rpc.laddr"), "tcp://"))
		if err != nil {
			t.Fatalf("%s: CometBFT's RPC port still held: %v", c.name, err)
		}
		l.Close()
	}
	n, err := New(home, freeOverrides(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatalf("the home does not start after failed starts: %v", err)
	}
	defer n.Stop()
	wait.Eventually(t, 10*time.Second, "block 1 after the failed starts", func() error {
		return wait.Check(n.headNumber() >= 1, "head %d", n.headNumber())
	})
}
